"""Per-invocation views of cooperative matrices at every length (issue 11, defects 1 and 2).

- Element-wise writes (`m[i] = ...` over `length()`, through a local variable, an `inout` parameter and a
  function result) into matrices with fewer elements than the subgroup has lanes (length 1 with padding
  lanes), exactly as many (length 1), and more.
- Partial subgroups (local size 16 on 32-lane subgroups, docs/interpreter-coopmat.md): the absent lanes
  write no element, but the elements the layout gives them stay part of the matrix through variables,
  function calls, Phi and Select; where a choice splits the subgroup they follow its first invocation,
  so the glslang build (variables, stores under divergent control flow) and the spirv-opt build (OpPhi)
  agree.
The expected outputs are computed here from the layout model's lane maps with numpy.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from spvcoop import read_binary
from spvcoop.layouts import load_model
from spvcoop.core.diagnostics import SpvError
from spvcoop.core.reference_tools import find_tool, require_tool

pytestmark = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")

HEADER = """#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
"""

# m = -(2 * (m + 1)) element by element, through a local variable, an inout parameter and a call
ELEMENTS = HEADER + """
layout(local_size_x = LOCAL) in;
layout(binding = 0) readonly buffer In { float v[]; };
layout(binding = 1) writeonly buffer Out { float o[]; };
#define MAT coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseAccumulator>
void twice(inout MAT m) { for (int i = 0; i < m.length(); ++i) m[i] = m[i] * 2.0; }
MAT neg(MAT m) { return -m; }
void main()
{
    const uint base = gl_WorkGroupID.x * (ROWS * COLS);
    MAT m;
    coopMatLoad(m, v, base, COLS, gl_CooperativeMatrixLayoutRowMajor);
    for (int i = 0; i < m.length(); ++i) m[i] = m[i] + 1.0;
    twice(m);
    m = neg(m);
    coopMatStore(m, o, base, COLS, gl_CooperativeMatrixLayoutRowMajor);
}
"""

# per-invocation choices between matrices: two if/else (stores to a variable under divergent control flow, or
# OpPhi after spirv-opt); the matrices are computed before, by the whole subgroup
CHOICE = HEADER + """
layout(local_size_x = LOCAL) in;
layout(binding = 0) readonly buffer In { float v[]; };
layout(binding = 1) writeonly buffer Out { float o[]; };
#define MAT coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseAccumulator>
void main()
{
    const uint base = gl_WorkGroupID.x * (ROWS * COLS);
    MAT a;
    coopMatLoad(a, v, base, COLS, gl_CooperativeMatrixLayoutRowMajor);
    MAT b = a * 3.0;
    a[0] = a[0] + 100.0;
    MAT r;
    if (gl_SubgroupInvocationID < 4) r = a; else r = b;
    MAT nr = -r;   // before the choice: arithmetic in divergent control flow is an error (TANGLED below)
    MAT s;
    if (gl_SubgroupInvocationID % 2 == 1) s = r; else s = nr;
    coopMatStore(s, o, base, COLS, gl_CooperativeMatrixLayoutRowMajor);
}
"""

# an instruction on matrices (here OpFNegate) reached by half of each subgroup: an error at run time (issue 37)
TANGLED = CHOICE.replace("MAT nr = -r;", "MAT nr = r;").replace("else s = nr;", "else s = -nr;")

# a MatrixA f16 matrix doubled element by element and stored
REPLICATED = HEADER + """
layout(local_size_x = LOCAL) in;
layout(binding = 0) readonly buffer In { float16_t v[]; };
layout(binding = 1) writeonly buffer Out { float16_t o[]; };
void main()
{
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> m;
    coopMatLoad(m, v, gl_WorkGroupID.x * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (int i = 0; i < m.length(); ++i) m[i] = m[i] * float16_t(2.0);
    coopMatStore(m, o, gl_WorkGroupID.x * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
"""

S = 32
WORKGROUPS = 3


@functools.cache
def build(template: str, rows: int, cols: int, local: int, opt: bool, tmp: str):
    src = template.replace("LOCAL", str(local)).replace("ROWS", str(rows)).replace("COLS", str(cols))
    path = f"{tmp}/s_{abs(hash(template))}_{rows}x{cols}_{local}.comp"
    with open(path, "w") as f:
        f.write(src)
    spv = path + (".opt" if opt else "") + ".spv"
    r = require_tool("glslangValidator").run("-V", "--target-env", "vulkan1.3", path, "-o", spv)
    assert r.returncode == 0, r.stdout + r.stderr
    if opt:
        r = require_tool("spirv-opt").run("-O", spv, "-o", spv)
        assert r.returncode == 0, r.stderr
    with open(spv, "rb") as f:
        return read_binary(f.read(), spv)


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return str(tmp_path_factory.mktemp("views"))


def owner(layout_name: str, rows: int, cols: int, use="acc", component="f32"):
    """(rows, cols) array: the first lane holding each element under the model (at subgroup size 32)."""
    lay = load_model(layout_name).layout(component, rows, cols, use, S)
    out = np.full(rows * cols, S)
    for p in range(S - 1, -1, -1):
        held = lay.flat[p][lay.flat[p] >= 0]
        out[held] = p
    return lay, out.reshape(rows, cols)


def run(module, x, layout, out_dtype=np.float32):
    from spvcoop.interp import run as interp_run
    res = interp_run(module, dispatch=(WORKGROUPS, 1, 1), buffers={0: x, 1: np.zeros(x.size, out_dtype)},
                     layout=layout, subgroup_size=S)
    return res[1]


SHAPES = [(4, 4), (8, 4), (3, 5), (3, 2), (8, 8), (16, 16)]


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["striped", "shuffled"])
@pytest.mark.parametrize("local", [32, 16])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{r}x{c}" for r, c in SHAPES])
def test_element_writes_at_every_length(shape, local, layout, tmp):
    rows, cols = shape
    lay, first = owner(layout, rows, cols)
    x = np.arange(WORKGROUPS * rows * cols, dtype=np.float32) - 7
    got = run(build(ELEMENTS, rows, cols, local, False, tmp), x, layout)
    # elements held by an invocation are written one by one; those held only by absent lanes (partial
    # subgroup) are not, but move with the matrix through the call and the variables
    written = np.tile((first < local).reshape(-1), WORKGROUPS)
    want = np.where(written, -(x + 1) * 2, -x)
    np.testing.assert_array_equal(got, want)
    if rows * cols <= S:
        assert lay.length == 1  # the case that used to end in a numpy ValueError
    if local < S and rows * cols > local * lay.length:
        assert not written.all()  # absent lanes hold elements here: the partial-subgroup case


@pytest.mark.slow
@pytest.mark.parametrize("opt", [False, True], ids=["glslang", "spirv-opt"])
@pytest.mark.parametrize("layout", ["striped", "shuffled"])
@pytest.mark.parametrize("shape,local", [((8, 8), 16), ((4, 4), 16), ((4, 4), 32), ((16, 16), 16)])
def test_choices_in_a_subgroup_agree_in_every_form(shape, local, layout, opt, tmp):
    rows, cols = shape
    lay, first = owner(layout, rows, cols)
    x = np.arange(WORKGROUPS * rows * cols, dtype=np.float32) + 1
    got = run(build(CHOICE, rows, cols, local, opt, tmp), x, layout)
    a = x.reshape(WORKGROUPS, rows, cols)
    a_plus = a.copy()
    slot0 = np.zeros(rows * cols, bool)
    slot0[lay.flat[:local, 0][lay.flat[:local, 0] >= 0]] = True  # a[0] += 100 by the present invocations
    a_plus[:, slot0.reshape(rows, cols)] += 100
    # per element, the invocation whose choice it follows: its owner, or invocation 0 for absent lanes
    who = np.where(first < local, first, 0)
    r = np.where(who < 4, a_plus, 3 * a)
    want = np.where(who % 2 == 1, r, -r)
    np.testing.assert_array_equal(got, want.reshape(-1))


@pytest.mark.parametrize("opt", [False, True], ids=["glslang", "spirv-opt"])
def test_matrix_arithmetic_reached_by_part_of_a_subgroup_is_an_error(opt, tmp):
    """SPV_KHR_cooperative_matrix: every instance of an instruction with a matrix operand or result is executed by
    all the invocations of the scope instance or by none; a negation under `?:` on the invocation id is not."""
    x = np.arange(WORKGROUPS * 64, dtype=np.float32) + 1
    with pytest.raises(SpvError) as e:
        run(build(TANGLED, 8, 8, 32, opt, tmp), x, "striped")
    assert "OpFNegate: reached by only part of subgroup 0 (16 of 32 invocations" in str(e.value)


@pytest.mark.parametrize("local", [16, 32])
def test_replicated_copies_in_absent_lanes_follow_the_present_ones(local, tmp):
    """amd-rdna3-wmma holds every element of a 16x16 MatrixA in lanes l and l+16: with 16 invocations the
    copies in lanes 16..31 belong to absent lanes, which write nothing; the stored matrix is the one the
    present invocations wrote (no 'replicated copies ... hold different values')."""
    lay = load_model("amd-rdna3-wmma").layout("f16", 16, 16, "a", S)
    assert lay.replicated
    x = (np.arange(WORKGROUPS * 256) % 61 - 30).astype(np.float16)
    got = run(build(REPLICATED, 16, 16, local, False, tmp), x, "amd-rdna3-wmma", np.float16)
    np.testing.assert_array_equal(got, x * np.float16(2))

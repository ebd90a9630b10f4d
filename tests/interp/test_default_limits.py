"""Issue 22: ordinary kernels that loop for more than 50,000 executed instructions (the old default step
limit) run under the default options, which limit time (60 s), not steps; an endless loop still stops by
itself, at a located error naming the option to raise. Each kernel is checked against numpy and shown to
need more than the old limit (bench/bench_default_limits.py times the loop GEMM alone)."""
from __future__ import annotations


import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import run
from conftest import REPO

ROOT = REPO
GEMM_TILED = ROOT / "bench" / "shaders" / "gemm_tiled.spvasm"   # one subgroup loops over every 16x16 tile
OLD_DEFAULT_MAX_STEPS = 50_000

SAXPY_GRID_STRIDE = """
#version 450
// saxpy by one workgroup: each invocation strides over the whole array
layout(local_size_x = 256) in;
layout(push_constant) uniform P { float a; uint n; } p;
layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) buffer Y { float y[]; };
void main() {
    for (uint i = gl_LocalInvocationID.x; i < p.n; i += gl_WorkGroupSize.x)
        y[i] = p.a * x[i] + y[i];
}
"""

DOT_LOOP = """
#version 450
// each invocation: 160 rounds, each a 32-long dot product of its slice of x with w, mixed into acc
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer W { float w[]; };
layout(binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint row = gl_GlobalInvocationID.x;
    float acc = 0.0;
    for (uint r = 0; r < 160u; ++r) {
        float d = 0.0;
        for (uint j = 0; j < 32u; ++j)
            d += x[(row * 160u + r) * 32u + j] * w[j];
        acc = 0.5 * acc + d;
    }
    o[row] = acc;
}
"""

ENDLESS = """
#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { uint v[]; };
void main() {
    uint i = 0;
    while (v[0] == 0u) { i += 1u; }   // nothing ever writes v[0]
    v[1] = i;
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("n", [256, 512])   # 174,080 and 1,351,152 steps: 1.0 s and 3.5 s here
def test_loop_gemm_runs_under_default_options(n: int) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n)).astype(np.float16)
    b = rng.standard_normal((n, n)).astype(np.float16)
    c0 = rng.standard_normal((n, n)).astype(np.float32)
    res = run(str(GEMM_TILED), spec_constants={0: n, 1: n, 2: n},
              buffers={"a": a, "b": b, "c0": c0, "c": np.zeros(n * n, np.float32)})
    assert res.steps > OLD_DEFAULT_MAX_STEPS
    want = a.astype(np.float32) @ b.astype(np.float32) + c0
    np.testing.assert_allclose(res["c"].reshape(n, n), want, rtol=1e-3, atol=1e-3)


@pytest.mark.slow
def test_grid_stride_saxpy_over_2_20_runs_under_default_options(spvcoop_run) -> None:
    n = 1 << 20
    x = np.arange(n, dtype=np.float32) % 1000
    y = np.ones(n, np.float32)
    res = spvcoop_run(SAXPY_GRID_STRIDE, buffers={"x": x, "y": y.copy()}, push_constants={"a": 2.0, "n": n})
    assert res.steps > OLD_DEFAULT_MAX_STEPS
    np.testing.assert_array_equal(res["y"], 2 * x + y)


@pytest.mark.slow
def test_160_round_dot_loop_runs_under_default_options(spvcoop_run) -> None:
    rows = 64
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, 160, 32)).astype(np.float32)
    w = rng.standard_normal(32).astype(np.float32)
    res = spvcoop_run(DOT_LOOP, buffers={"x": x, "w": w, "o": np.zeros(rows, np.float32)})
    assert res.steps > OLD_DEFAULT_MAX_STEPS
    want = np.zeros(rows)
    for r in range(160):
        want = 0.5 * want + x[:, r, :].astype(np.float64) @ w
    np.testing.assert_allclose(res["o"], want, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_endless_glsl_loop_stops_by_time_at_its_line(spvcoop_run) -> None:
    with pytest.raises(SpvError) as e:
        spvcoop_run(ENDLESS, buffers={"v": np.zeros(2, np.uint32)}, max_time=0.3)
    d = e.value.diagnostics[0]
    assert d.rule == "interp.max-time" and "--max-time" in d.message and "max_time=" in d.message, d.message
    # the GLSL text's own name, as its compile errors have it (not the deleted temporary file glslang read)
    assert d.source == "<glsl>" and d.span is not None and d.span.line == 7, (d.source, d.span)


@pytest.mark.slow
def test_endless_loop_stops_in_the_cli_naming_the_flag(tmp_path, capsys) -> None:
    from spvcoop.cli import main
    src = tmp_path / "loop.comp"
    src.write_text(ENDLESS)
    (tmp_path / "run.yaml").write_text("shader: loop.comp\nmax_time: 0.3\nbuffers:\n  v: {zeros: 2, dtype: uint32}\n")
    assert main(["run", str(tmp_path / "run.yaml"), "-q"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:7:" in err and "error[interp.max-time]: time limit of 0.3 s reached" in err and "--max-time" in err
    assert main(["run", str(tmp_path / "run.yaml"), "-q", "--max-time", "200ms"]) == 2   # not a duration it takes
    assert main(["run", str(tmp_path / "run.yaml"), "-q", "--max-steps", "2K", "--max-time", "1m"]) == 1
    assert "step limit of 2048 executed instructions" in capsys.readouterr().err

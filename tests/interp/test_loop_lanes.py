"""The loop fast lanes against the plain path and a Python reference: uniform integer scalars taken on Python ints
in compiled blocks (block_compiler._plan_lane / _python_int_lane) and loops that are one straight chain of blocks
run without walk's tables (executor.straight_chain / run_straight_loop). Same bytes, same steps, same errors at
the same instruction."""
from __future__ import annotations

import re

import numpy as np
import pytest

from spvcoop.interp import block_compiler, executor
from spvcoop.loader import load_shader

from conftest import REPO, TESTS, compile_glsl
from test_fast_paths import _both, _outcome

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

ROOT = REPO
INT_LANE = TESTS / "glsl" / "lanes" / "int_lane.comp"
GEMM_TILED = ROOT / "bench" / "shaders" / "gemm_tiled.spvasm"
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def _compiled_loops(monkeypatch) -> list:
    """The chains executor.compile_loop compiles from now on (it still compiles them)."""
    chains: list = []
    compile_loop = executor.compile_loop
    monkeypatch.setattr(executor, "compile_loop",
                        lambda ex, chain, m: chains.append(chain) or compile_loop(ex, chain, m))
    return chains


def _signed(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def _case(seed: int, n_spec: int = 6) -> dict:
    rng = np.random.default_rng(seed)
    u = rng.integers(0, 1 << 32, 16, dtype=np.uint64).astype(np.uint32)
    s = rng.integers(-(1 << 31), 1 << 31, 16, dtype=np.int64).astype(np.int32)
    w = rng.integers(0, 1 << 63, 4, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    u[3], s[4] = 0xFFFFFFFF, -(1 << 31)   # the edges of the ranges
    raw = np.concatenate([u.view(np.uint8), s.view(np.uint8), w.view(np.uint8)])
    spec = {0: n_spec, 1: int(rng.integers(0, 1 << 32)), 2: int(rng.integers(0, 1 << 32)),
            3: int(rng.integers(-(1 << 31), 1 << 31)), 4: int(rng.integers(-(1 << 31), 1 << 31))}
    return dict(spec_constants=spec, buffers={"0:0": raw, "0:1": np.zeros(16, np.uint32)})


def _want(case: dict, n: int) -> list[int]:
    """int_lane.comp in Python: each invocation's result, local ids 0..7 repeated per workgroup."""
    raw = case["buffers"]["0:0"]
    u = [int(x) for x in raw[:64].view(np.uint32)]
    s = [int(x) for x in raw[64:128].view(np.int32)]
    w = [int(x) for x in raw[128:160].view(np.uint64)]
    out = []
    for g in range(n):
        lid = g % 8
        acc = lid
        n_spec, u1, u2, s1, s2 = (case["spec_constants"][k] for k in range(5))
        for i in range(n_spec):
            x = ((i + u1) * 0x9E3779B1 + u2) & M32
            y = _signed((i + s1) * 65537 - s2, 32)
            z = (x ^ (y & M32)) | (x & 0xF0F0)
            acc = (acc + z) & M32 if y < _signed(s1 + i * 1000003, 32) else (acc - x) & M32
            if x > (u2 + i * 77777) & M32:
                acc ^= 7
            if y < s[i]:
                acc = (acc + 11) & M32
            acc = (acc + x * lid) & M32
            if lid < 3:
                acc = (acc + x * 3 + (y & M32)) & M32
            b = ((x & 0xFF) * 201 + 97) & 0xFF
            h = _signed(_signed(y, 16) * -3001 - 77, 16)
            q = (x * 6364136223846793005 + w[i & 3]) & M64
            acc = (acc + b + (h & M32) + (q >> 32) + (q & M32)) & M32
        for j in range(lid + 2):
            acc = (acc * 3 + u[j]) & M32
        for t in range(n_spec + (lid & 1) * 3):
            acc = (acc * 5 + t) & M32
        k = 0
        while True:
            acc ^= acc >> 5
            k += 1 + (lid & 1)
            if k >= 5 + lid:
                break
        out.append(acc)
    return out


@pytest.fixture(scope="module")
def int_lane(tmp_path_factory):
    return load_shader(str(compile_glsl(INT_LANE, tmp_path_factory.mktemp("lanes") / "int_lane.spv")))


@pytest.mark.parametrize("seed,dispatch", [(1, (1, 1, 1)), (2, (2, 1, 1)), (3, (1, 1, 1))])
def test_int_lane_equals_python_and_the_plain_path(int_lane, seed, dispatch, monkeypatch) -> None:
    case = _case(seed)
    fast, plain = _both(monkeypatch, lambda: _outcome(int_lane, dispatch=dispatch, **case))
    assert fast == plain and fast[0] != "error", fast
    n = 8 * dispatch[0]
    assert np.frombuffer(fast[1]["(0, 1)"], np.uint32)[:n].tolist() == _want(case, n)


def test_the_lanes_are_taken(int_lane, monkeypatch) -> None:
    """The kernel's uniform integer ops are planned into the Python-int lane (some results kept only as Python
    ints, a loop condition read from one), and its three straight loops run without walk, the one every
    invocation is in compiled whole (compile_loop)."""
    plans: list = []
    plan = block_compiler._plan_lane
    monkeypatch.setattr(block_compiler, "_plan_lane", lambda ex, body, term: plans.append(plan(ex, body, term))
                        or plans[-1])
    straight: list = []
    run_straight = executor.Executor.run_straight_loop

    def counted(self, frame, chain, *a):
        straight.append(chain[0].label)
        return run_straight(self, frame, chain, *a)
    monkeypatch.setattr(executor.Executor, "run_straight_loop", counted)
    loops = _compiled_loops(monkeypatch)
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    _outcome(int_lane, dispatch=(1, 1, 1), **_case(1))
    lane_ops = [entry for lane, _ in plans for entry in lane.values()]
    assert sum(not escapes for _, escapes, _, _ in lane_ops) >= 10
    assert sum(escapes for _, escapes, _, _ in lane_ops) >= 3
    assert any(cond for _, cond in plans)
    assert len(set(straight)) == 3
    assert len(loops) == 3   # each compiled once; only the fourth loop makes whole trips with every invocation


@pytest.mark.parametrize("seed", [1, 4])
def test_step_limit_anywhere_in_the_lanes(int_lane, seed, monkeypatch) -> None:
    case = _case(seed, n_spec=2)
    total = _outcome(int_lane, **case)[0]
    assert isinstance(total, int) and total > 200
    for limit in [*range(1, 120), *range(120, total, 29), total - 1]:
        fast, plain = _both(monkeypatch, lambda limit=limit: _outcome(int_lane, max_steps=limit, **case))
        assert fast == plain and fast[0] == "error", limit
    fast, plain = _both(monkeypatch, lambda: _outcome(int_lane, max_steps=total, **case))
    assert fast == plain and fast[0] == total


def test_straight_chain_finds_the_inner_loop_only() -> None:
    from spvcoop.interp.program import Program
    prog = Program(load_shader(str(GEMM_TILED)))
    (fn,) = prog.functions.values()
    headers = [b for b in fn.blocks.values() if b.loop is not None]
    chains = {h.label: executor.straight_chain(fn.blocks, h) for h in headers}
    assert len(headers) == 3
    straight = [c for c in chains.values() if c is not None]
    assert len(straight) == 1   # the K loop: header, condition, body, continue target; not the tile loops
    blocks, c_at, labels = straight[0]
    assert len(blocks) == 4 and c_at == 3 and labels == {b.label for b in blocks}


_WIDTH_CAPS = {8: "Int8", 16: "Int16", 32: None, 64: "Int64"}


def _edges(w: int, rng) -> list[int]:
    """Bit patterns at the edges of a w-bit range, and two random ones."""
    return [0, 1, (1 << (w - 1)) - 1, 1 << (w - 1), (1 << w) - 1, *(int(x) for x in rng.integers(0, 1 << w, 2,
                                                                                                  dtype=np.uint64))]


def _lane_module(w: int, seed: int) -> tuple[str, int]:
    """Every op of the Python-int lane on constants of width w, with every signedness of operands and result,
    and each result fed into a second op (an operand the lane holds as a Python int); each result stored zero-
    extended to 64 bits, a block for each pair of constants. (text, number of results)"""
    rng = np.random.default_rng(seed)
    vals = _edges(w, rng)
    pairs = [(vals[i], vals[j]) for i in range(len(vals)) for j in range(len(vals)) if (i * 7 + j * 3 + w) % 4 == 0]
    caps = "\n".join(f"OpCapability {c}" for c in {_WIDTH_CAPS[w], "Int64"} if c)
    head = f"""OpCapability Shader
{caps}
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %out
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %rt ArrayStride 8
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%u = OpTypeInt {w} 0
%s = OpTypeInt {w} 1
{"" if w == 64 else "%u64 = OpTypeInt 64 0"}
%rt = OpTypeRuntimeArray %u64
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%pu64 = OpTypePointer StorageBuffer %u64
%out = OpVariable %pblk StorageBuffer
{"" if w == 32 else "%s32 = OpTypeInt 32 1"}
%c0 = OpConstant %s32 0
%one = OpConstant %u64 1
%zero = OpConstant %u64 0
"""
    consts = sorted({v for p in pairs for v in p})
    head += "".join(f"%k{v} = OpConstant %u {v}\n" for v in consts)
    body = ["%main = OpFunction %void None %fn", "%entry = OpLabel"]
    body += [f"%ks{v} = OpBitcast %s %k{v}" for v in consts]   # the same bits as a signed value (a (1,) array)
    n = 0

    def store(res: str, typ: str) -> None:
        nonlocal n
        if typ == "bool":
            body.append(f"%w{n} = OpSelect %u64 {res} %one %zero")
        elif w == 64:
            body.append(f"%w{n} = OpBitcast %u64 {res}")
        else:
            body.append(f"%w{n} = OpUConvert %u64 {res}")
        body.append(f"%p{n} = OpAccessChain %pu64 %out %c0 %i{n}")
        head_consts.append(f"%i{n} = OpConstant %s32 {n}")
        body.append(f"OpStore %p{n} %w{n}")
        n += 1

    head_consts: list[str] = []
    binary = ["OpIAdd", "OpISub", "OpIMul", "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor"]
    compare = ["OpIEqual", "OpINotEqual", "OpSLessThan", "OpSLessThanEqual", "OpSGreaterThan",
               "OpSGreaterThanEqual", "OpULessThan", "OpULessThanEqual", "OpUGreaterThan", "OpUGreaterThanEqual"]
    r = 0
    for j, (a, b) in enumerate(pairs):
        # a block per pair (a few hundred instructions: under block_compiler.MAX_COMPILED)
        body += [f"OpBranch %pair{j}", f"%pair{j} = OpLabel"]
        for ta in "us":
            for tb in "us":
                x, y = f"%k{'s' if ta == 's' else ''}{a}", f"%k{'s' if tb == 's' else ''}{b}"
                for op in binary:
                    for tr in "us":
                        body.append(f"%r{r} = {op} %{tr} {x} {y}")
                        # the result as an operand again: the Python int the lane keeps
                        body.append(f"%r{r + 1} = {binary[(binary.index(op) + 2) % 6]} %{tr} %r{r} {y}")
                        store(f"%r{r + 1}", tr)
                        body.append(f"%r{r + 2} = {compare[(r // 3) % 10]} %bool %r{r} {x}")
                        store(f"%r{r + 2}", "bool")
                        r += 3
                for op in compare:
                    body.append(f"%r{r} = {op} %bool {x} {y}")
                    store(f"%r{r}", "bool")
                    r += 1
    body += ["OpReturn", "OpFunctionEnd"]
    text = head + "\n".join(head_consts) + "\n" + "\n".join(body) + "\n"
    if w == 64:
        text = text.replace("%u64", "%u")
    if w == 32:
        text = text.replace("%s32", "%s")
    return text, n


@pytest.mark.parametrize("w", [8, 16, 32, 64])
def test_every_lane_op_on_edge_values_equals_the_plain_path(w, monkeypatch) -> None:
    """Each op in both signednesses of operands and result, compared with the ufuncs of the plain path (which
    test_fast_paths and the interpreter's own tests hold to SPIR-V's rules)."""
    text, n = _lane_module(w, seed=w)
    module = load_shader(text, "lanes.spvasm")
    plans: list = []
    plan = block_compiler._plan_lane
    monkeypatch.setattr(block_compiler, "_plan_lane", lambda ex, body, term: plans.append(plan(ex, body, term))
                        or plans[-1])
    fast, plain = _both(monkeypatch, lambda: _outcome(module, buffers={"0:0": np.zeros(n, np.uint64)}))
    assert fast == plain and fast[0] != "error", fast
    got = np.frombuffer(fast[1]["(0, 0)"], np.uint64)
    assert len(got) == n and len(set(got.tolist())) > 20
    lane = [entry for lane, _ in plans for entry in lane.values()]
    assert len(lane) >= n   # every op above but the conversions and stores


KILL_IN_A_LOOP = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %lid
OpExecutionMode %main LocalSize 4 1 1
OpDecorate %lid BuiltIn LocalInvocationId
OpDecorate %rt ArrayStride 4
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%u = OpTypeInt 32 0
%v3 = OpTypeVector %u 3
%pin = OpTypePointer Input %v3
%lid = OpVariable %pin Input
%rt = OpTypeRuntimeArray %u
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%pu = OpTypePointer StorageBuffer %u
%out = OpVariable %pblk StorageBuffer
%pfu = OpTypePointer Function %u
%c0 = OpConstant %u 0
%c1 = OpConstant %u 1
%c3 = OpConstant %u 3
%c10 = OpConstant %u 10
%fnu = OpTypeFunction %void %u
%kill = OpFunction %void None %fnu
%t = OpFunctionParameter %u
%ke = OpLabel
%id = OpLoad %v3 %lid
%x = OpCompositeExtract %u %id 0
%odd = OpBitwiseAnd %u %x %c1
%isodd = OpIEqual %bool %odd %c1
%is3 = OpIEqual %bool %t %c3
%both = OpLogicalAnd %bool %isodd %is3
OpSelectionMerge %kr None
OpBranchConditional %both %kk %kr
%kk = OpLabel
OpKill
%kr = OpLabel
OpReturn
OpFunctionEnd
%main = OpFunction %void None %fn
%e = OpLabel
%i = OpVariable %pfu Function
%acc = OpVariable %pfu Function
OpStore %i %c0
OpStore %acc %c0
OpBranch %h
%h = OpLabel
OpLoopMerge %m %cont None
OpBranch %cond
%cond = OpLabel
%iv = OpLoad %u %i
%lt = OpULessThan %bool %iv %c10
OpBranchConditional %lt %body %m
%body = OpLabel
%iv2 = OpLoad %u %i
%r = OpFunctionCall %void %kill %iv2
%a = OpLoad %u %acc
%a2 = OpIAdd %u %a %iv2
OpStore %acc %a2
%idb = OpLoad %v3 %lid
%xb = OpCompositeExtract %u %idb 0
%pb = OpAccessChain %pu %out %c0 %xb
OpStore %pb %a2
OpBranch %cont
%cont = OpLabel
%iv3 = OpLoad %u %i
%in = OpIAdd %u %iv3 %c1
OpStore %i %in
OpBranch %h
%m = OpLabel
OpReturn
OpFunctionEnd
"""


def test_an_invocation_killed_inside_a_compiled_loop(monkeypatch) -> None:
    """OpKill in a function called from a loop every invocation is in (a module run without validation: compute
    shaders have no OpKill): the compiled trips stop there and the walk goes on without the killed invocations."""
    module = load_shader(KILL_IN_A_LOOP, "kill.spvasm")
    fast, plain = _both(monkeypatch, lambda: _outcome(module, validate=False, buffers={"0:0": np.zeros(4, np.uint32)}))
    assert fast == plain and fast[0] != "error", fast
    assert np.frombuffer(fast[1]["(0, 0)"], np.uint32).tolist() == [45, 6, 45, 6]   # the odd ones were killed in trip 3


@pytest.fixture(scope="module")
def int_lane_opt(tmp_path_factory):
    """int_lane.comp after `spirv-opt -O`: loop counters and sums in phis, ifs as selects."""
    from spvcoop.core.reference_tools import require_tool
    spv = compile_glsl(INT_LANE, tmp_path_factory.mktemp("lanes") / "int_lane_opt.spv")
    r = require_tool("spirv-opt").run("-O", str(spv), "-o", str(spv))
    assert r.returncode == 0, r.stderr
    return load_shader(str(spv))


@pytest.mark.parametrize("seed", [1, 5])
def test_optimised_loops_with_phis(int_lane_opt, seed, monkeypatch) -> None:
    """The optimised kernel's straight loops have phis in their headers: their trips are compiled too, taking
    each phi from the one predecessor; same bytes, steps and errors as the plain path, and Python's results."""
    loops = _compiled_loops(monkeypatch)
    case = _case(seed)
    fast, plain = _both(monkeypatch, lambda: _outcome(int_lane_opt, dispatch=(1, 1, 1), **case))
    assert fast == plain and fast[0] != "error", fast
    assert np.frombuffer(fast[1]["(0, 1)"], np.uint32)[:8].tolist() == _want(case, 8)
    assert loops and all(chain[0].phis for chain in loops)
    total = fast[0]
    for limit in [*range(1, 60), *range(60, total, 23)]:
        fast, plain = _both(monkeypatch, lambda limit=limit: _outcome(int_lane_opt, max_steps=limit, dispatch=(1, 1, 1),
                                                                       **case))
        assert fast == plain and fast[0] == "error", limit


PHI_LOOP = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %rt ArrayStride 4
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%u = OpTypeInt 32 0
%rt = OpTypeRuntimeArray %u
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%pu = OpTypePointer StorageBuffer %u
%out = OpVariable %pblk StorageBuffer
%c0 = OpConstant %u 0
%c1 = OpConstant %u 1
%c3 = OpConstant %u 3
%c20 = OpConstant %u 20
%main = OpFunction %void None %fn
%e = OpLabel
OpBranch %oh
%oh = OpLabel
%o = OpPhi %u %c0 %e %on %ocont
%oacc = OpPhi %u %c1 %e %acc %ocont
OpLoopMerge %om %ocont None
OpBranch %ocond
%ocond = OpLabel
%olt = OpULessThan %bool %o %c3
OpBranchConditional %olt %obody %om
%obody = OpLabel
OpBranch %h
%h = OpLabel
%iv = OpPhi %u %o %obody INCOMING
%acc = OpPhi %u %oacc %obody %acc2 %cont
OpLoopMerge %m %cont None
OpBranch %cond
%cond = OpLabel
%lt = OpULessThan %bool %iv %c20
OpBranchConditional %lt %body %m
%body = OpLabel
%t = OpIMul %u %acc %c3
%acc2 = OpIAdd %u %t %iv
OpBranch %cont
%cont = OpLabel
%in = OpIAdd %u %iv %c1
OpBranch %h
%m = OpLabel
OpBranch %ocont
%ocont = OpLabel
%on = OpIAdd %u %o %c1
OpBranch %oh
%om = OpLabel
%p = OpAccessChain %pu %out %c0 %c0
OpStore %p %oacc
OpReturn
OpFunctionEnd
"""


@pytest.mark.parametrize("incoming", ["%in %cont", ""], ids=["whole", "missing"])
def test_a_header_phi_in_a_compiled_loop(incoming, monkeypatch) -> None:
    """Loop counters and sums in header phis: an inner loop entered three times by an outer one (its compiled trips
    entered from the preheader and from the latch); without the latch's pair (a module run without validation) the
    same fault at the same phi as the plain path."""
    module = load_shader(PHI_LOOP.replace("INCOMING", incoming), "phi.spvasm")
    loops = _compiled_loops(monkeypatch)
    fast, plain = _both(monkeypatch, lambda: _outcome(module, validate=False, buffers={"0:0": np.zeros(1, np.uint32)}))
    assert fast == plain
    assert len(loops) == 1 and len(loops[0][0].phis) == 2   # compiled once, on the fast run, with its two phis
    if incoming:
        acc = 1
        for o in range(3):
            for i in range(o, 20):
                acc = (acc * 3 + i) & M32
        assert np.frombuffer(fast[1]["(0, 0)"], np.uint32).tolist() == [acc]
    else:
        assert fast[0] == "error" and "no incoming value for predecessor cont" in fast[1][0], fast


def test_blocks_and_loops_too_large_to_compile_run_block_by_block(monkeypatch) -> None:
    """A loop body over MAX_COMPILED instructions stays on the plain path and the loop's trips are not compiled
    whole (Python's compiler needs ~100 KB a generated instruction: a 20,000-instruction body took 2.9 GB); a
    smaller one is compiled. Same results either way."""
    def module(n: int):
        body = "\n".join(f"%x{i + 1} = OpIAdd %u %x{i} %c1" for i in range(n))
        text = PHI_LOOP.replace("INCOMING", "%in %cont").replace(
            "%t = OpIMul %u %acc %c3\n%acc2 = OpIAdd %u %t %iv",
            f"%x0 = OpIMul %u %acc %c3\n{body}\n%acc2 = OpIAdd %u %x{n} %iv")
        return load_shader(text, "big.spvasm")

    compiled: list = []
    compile_body = block_compiler.compile_body
    monkeypatch.setattr(block_compiler, "compile_body", lambda ex, body, *a: compiled.append(len(body))
                        or compile_body(ex, body, *a))
    loops = _compiled_loops(monkeypatch)
    results = []
    for n, cap in ((30, 40), (60, 40), (30, 34)):
        monkeypatch.setattr(block_compiler, "MAX_COMPILED", cap)
        compiled.clear()
        loops.clear()
        fast, plain = _both(monkeypatch, lambda n=n: _outcome(module(n), validate=False,
                                                              buffers={"0:0": np.zeros(1, np.uint32)}))
        assert fast == plain and fast[0] != "error", fast
        results.append((max(compiled), len(loops)))
        acc = 1
        for o in range(3):
            for i in range(o, 20):
                acc = (acc * 3 + n + i) & M32
        assert np.frombuffer(fast[1]["(0, 0)"], np.uint32).tolist() == [acc]
    # the body block has n + 2 instructions, the whole trip 2 phis + n + 4 body instructions + 4 branches: n = 30
    # under 40 both compiled; n = 60 neither; n = 30 under 34 the block but not the trip
    assert results[0] == (32, 1)
    assert results[2] == (32, 0)
    assert results[1][0] < 40 and results[1][1] == 0


def test_a_long_straight_chain_is_found_without_comparing_blocks(monkeypatch) -> None:
    """A hostile loop of 3,000 straight blocks: straight_chain keeps the labels it has seen in a set (it used to
    ask `block in chain`, comparing Block records field by field: quadratic, 15 s for 5,000 blocks)."""
    from spvcoop.interp.program import Block, Program
    n = 3000
    blocks = "\n".join(f"%b{i} = OpLabel\nOpBranch %b{i + 1}" for i in range(n))
    text = PHI_LOOP.replace("INCOMING", "%in %cont").replace("OpBranchConditional %lt %body %m",
                                                               "OpBranchConditional %lt %b0 %m")
    text = text.replace("%body = OpLabel\n", f"{blocks}\n%b{n} = OpLabel\n")
    prog = Program(load_shader(text, "chain.spvasm"))
    (fn,) = prog.functions.values()
    inner = next(b for b in fn.blocks.values() if b.loop is not None and b.phis and
                 prog.name_of(b.label) == "h")
    compared = [0]
    eq = Block.__eq__

    def counting_eq(self, other):
        compared[0] += 1
        return eq(self, other)
    monkeypatch.setattr(Block, "__eq__", counting_eq)
    found = executor.straight_chain(fn.blocks, inner)
    assert found is not None and len(found[0]) == n + 4   # header, condition, the n + 1 blocks, continue target
    assert compared[0] == 0


def test_generated_code_has_its_lines_in_tracebacks(int_lane, monkeypatch) -> None:
    """Every generated function (compiled blocks and loop trips) is registered with linecache under a file name of
    its own, naming the block or loop, with a comment per SPIR-V instruction (issue 33: readable generated code):
    a traceback through it shows the line, and two functions never share a name."""
    import linecache
    import traceback
    made: list = []
    load = block_compiler._load
    monkeypatch.setattr(block_compiler, "_load", lambda *a: made.append(load(*a)) or made[-1])
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    _outcome(int_lane, dispatch=(1, 1, 1), **_case(1))
    names = [fn.__code__.co_filename for fn in made]
    assert len(made) >= 3 and len(set(names)) == len(names)
    assert all(n.startswith(f"<spvcoop compiled {fn.__name__} %") for n, fn in zip(names, made, strict=True))
    sources = ["".join(linecache.getlines(n)) for n in names]
    assert all(src.startswith(f"def {fn.__name__}(") for src, fn in zip(sources, made, strict=True))
    assert any(re.search(r"# %\d+ = OpI(Add|Mul|Sub) %\d+ %\d+ %\d+\n", src) for src in sources)
    # a fault raised inside the generated code shows the generated line in the traceback
    fn = made[0]
    try:
        fn(None, None, None, None) if fn.__name__ == "block" else fn(None, None, None, None, None)
    except Exception as e:  # noqa: BLE001 - any error raised inside the generated function
        frames = traceback.extract_tb(e.__traceback__)
    assert frames[-1].filename == names[0] and frames[-1].line
    _assert_descriptive(sources)


def test_compiled_blocks_are_registered_too(monkeypatch) -> None:
    """The same for compile_body's blocks (a kernel without a loop every invocation runs whole)."""
    import linecache
    made: list = []
    load = block_compiler._load
    monkeypatch.setattr(block_compiler, "_load", lambda *a: made.append(load(*a)) or made[-1])
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    saxpy = load_shader(str(ROOT / "samples" / "saxpy" / "saxpy.spvasm"))
    _outcome(saxpy, dispatch=(1, 1, 1), buffers={"x": np.ones(4, np.float32), "y": np.ones(4, np.float32)},
             push_constants={"a": 2.0, "n": 4})
    blocks = [fn for fn in made if fn.__name__ == "block"]
    assert blocks
    sources = []
    for fn in blocks:
        name = fn.__code__.co_filename
        assert name.startswith("<spvcoop compiled block %") and linecache.getlines(name)
        sources.append("".join(linecache.getlines(name)))
    # each instruction's code starts with its comment (a block of only a branch has none)
    assert any(re.search(r"# %\d+ = OpLoad %\d+ %\d+\n *current = \d+\n", src) for src in sources)
    _assert_descriptive(sources)


def _assert_descriptive(sources: list[str]) -> None:
    """Every name the generated code uses (parameters, locals, its namespace's constants) says what it holds: none
    of the one- and two-letter names it had (ex, s, ms, i, v, c, p, q12, I3, F3 ...) (issue 33 item 5)."""
    import ast
    short = set()
    for src in sources:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Name):
                name = node.id
            elif isinstance(node, ast.arg):
                name = node.arg
            else:
                continue
            if len(name.rstrip("0123456789_")) < 4:
                short.add(name)
    assert not short, sorted(short)


def test_linecache_keeps_only_the_latest_generated_sources(monkeypatch) -> None:
    """A long process (a test session, a fuzz campaign) compiles thousands of functions: linecache keeps the
    latest MAX_REGISTERED sources, not all."""
    import linecache
    monkeypatch.setattr(block_compiler, "MAX_REGISTERED", 3)
    fns = [block_compiler._load([f"def f{i}():", f"    return {i}"], {}, f"f{i}", f"test {i}") for i in range(5)]
    kept = [bool(linecache.getlines(fn.__code__.co_filename)) for fn in fns]
    assert kept == [False, False, True, True, True] and [fn() for fn in fns] == [0, 1, 2, 3, 4]


def test_a_later_run_reuses_the_compiled_code(int_lane, monkeypatch) -> None:
    """Generated sources are compiled once per process (block_compiler._compiled): a second run of the same module
    compiles nothing, gives the same outcome, and its functions show their lines in tracebacks, also after
    linecache let go of them (issue 33: compile() was ~6 ms of each run of the tensor GEMM)."""
    import builtins
    import collections
    import linecache
    monkeypatch.setattr(block_compiler, "_compiled", collections.OrderedDict())
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    compiled: list = []
    monkeypatch.setattr(block_compiler, "compile", lambda *a: compiled.append(a[1]) or builtins.compile(*a),
                        raising=False)
    made: list = []
    load = block_compiler._load
    monkeypatch.setattr(block_compiler, "_load", lambda *a: made.append(load(*a)) or made[-1])
    first = _outcome(int_lane, dispatch=(1, 1, 1), **_case(1))
    assert compiled and len(set(compiled)) == len(compiled)
    names = [fn.__code__.co_filename for fn in made]
    for n in names:
        linecache.cache.pop(n, None)   # (as when MAX_REGISTERED newer sources pushed them out)
    again, made[:] = len(compiled), []
    assert _outcome(int_lane, dispatch=(1, 1, 1), **_case(1)) == first
    assert len(compiled) == again and [fn.__code__.co_filename for fn in made] == names
    assert all(linecache.getlines(n) for n in names)

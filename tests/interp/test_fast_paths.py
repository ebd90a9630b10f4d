"""The interpreter's fast paths (spvcoop/interp/fastpaths.py's table; compiled blocks: block_compiler.py) against
the plain path: every sample, kernel and test shader run both ways gives the same bytes, the same steps, the same
errors; the step limit stops at the same instruction; a trace is the same text. Each row of the table, turned off
alone (its environment variable, and the run option), gives the same as with it, and is taken when on."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from spvcoop.cli import main as cli
from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import block_compiler, fastpaths, run
from spvcoop.loader import load_shader

from conftest import REPO, TESTS, compile_glsl

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

ROOT = REPO
SPECS = sorted(p for p in [*(ROOT / "samples").rglob("run*.yaml"), *(TESTS / "kernels").rglob("run*.yaml"),
                           *(TESTS / "kernels_spvasm").rglob("run*.yaml")])
SICOMPAT = sorted(p for p in (TESTS / "data" / "sicompat").iterdir() if (p / "shader.spvasm").exists())
GLSL = sorted((TESTS / "glsl" / "interp").glob("*.comp"))
SPVASM = sorted((TESTS / "data").glob("*.spvasm"))
LOOP = ROOT / "bench" / "shaders" / "gemm_tiled.spvasm"


def _both(monkeypatch, fn):
    """fn() with the fast paths (every block compiled on its first execution), then without any (each run
    gives its own notes: no process-wide state; the plain runs are checked to have had no fast path)."""
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    monkeypatch.delenv(fastpaths.ENV_ALL, raising=False)
    fast = fn()
    monkeypatch.setenv(fastpaths.ENV_ALL, "1")
    made = _fast_runs(monkeypatch)
    plain = fn()
    assert not any(made), "a fast path was on in a plain run"
    monkeypatch.setattr(fastpaths, "for_run", made.for_run)
    return fast, plain


def _cli_outputs(argv: list[str], out: Path, capsys) -> tuple[int, dict, str]:
    out.mkdir()
    rc = cli([*argv, "-o", str(out) + "/"])
    err = capsys.readouterr().err
    return rc, {p.name: p.read_bytes() for p in sorted(out.iterdir())}, err


def test_the_suite_is_found() -> None:
    assert len(SPECS) >= 20 and len(SICOMPAT) >= 5 and len(GLSL) >= 15


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
def test_run_specs_fast_equals_plain(spec, tmp_path, monkeypatch, capsys) -> None:
    n = iter(range(2))
    fast, plain = _both(monkeypatch, lambda: _cli_outputs([
        "run", str(spec)], tmp_path / f"o{next(n)}", capsys))
    assert fast[0] == plain[0] == 0, fast[2] + plain[2]
    assert fast[1] and fast[1] == plain[1]
    assert fast[2] == plain[2]


@pytest.mark.parametrize("case", SICOMPAT, ids=lambda p: p.name)
def test_sicompat_cases_fast_equals_plain(case, tmp_path, monkeypatch, capsys) -> None:
    inp = next(p for p in case.iterdir() if p.stem == "in")
    n = iter(range(2))
    fast, plain = _both(monkeypatch, lambda: _cli_outputs([
        "run", str(case / "shader.spvasm"), "--input", str(inp)], tmp_path / f"o{next(n)}", capsys))
    assert fast == plain


def _outcome(module, **kw):
    """Every buffer's bytes, the step count and the warnings and notes, or the error text."""
    try:
        res = run(module, **kw)
    except SpvError as e:
        return "error", [f"{d.headline()} {d.span} {[n.message for n in d.notes]}" for d in e.diagnostics]
    return res.steps, {str(k): res.raw(k) for k in res.buffers}, \
        [f"{d.headline()} {d.span} {[n.message for n in d.notes]}" for d in res.diagnostics]


@pytest.mark.parametrize("src", GLSL, ids=lambda p: p.name)
def test_glsl_shaders_fast_equals_plain(src, tmp_path, monkeypatch) -> None:
    """The test shaders with zero-filled buffers over a few workgroups (what they compute does not
    matter here, only that both paths compute the same)."""
    module = load_shader(str(compile_glsl(src, tmp_path / (src.stem + ".spv"))))
    fast, plain = _both(monkeypatch, lambda: _outcome(module, dispatch=(3, 2, 1)))
    assert fast == plain


@pytest.mark.parametrize("src", SPVASM, ids=lambda p: p.name)
def test_spvasm_shaders_fast_equals_plain(src, monkeypatch) -> None:
    module = load_shader(str(src))
    fast, plain = _both(monkeypatch, lambda: _outcome(module, dispatch=(2, 1, 1)))
    assert fast == plain


def _tiled(n=32):
    rng = np.random.default_rng(3)
    return dict(dispatch=(1, 1, 1), spec_constants={0: n, 1: n, 2: n},
                buffers={"a": rng.standard_normal((n, n)).astype(np.float16),
                         "b": rng.standard_normal((n, n)).astype(np.float16),
                         "c0": rng.standard_normal((n, n)).astype(np.float32),
                         "c": np.zeros(n * n, np.float32)})


def test_loop_gemm_fast_equals_plain_and_numpy(monkeypatch) -> None:
    module = load_shader(str(LOOP))
    kw = _tiled()
    fast, plain = _both(monkeypatch, lambda: _outcome(module, **kw))
    assert fast == plain and fast[0] > 300
    c = np.frombuffer(fast[1]["c"], np.float32).reshape(32, 32)
    want = kw["buffers"]["a"].astype(np.float32) @ kw["buffers"]["b"].astype(np.float32) + kw["buffers"]["c0"]
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("limit", [1, 7, 40, 41, 333, 500])
def test_step_limit_stops_at_the_same_instruction(limit, monkeypatch) -> None:
    module = load_shader(str(LOOP))
    fast, plain = _both(monkeypatch, lambda: _outcome(module, max_steps=limit, **_tiled()))
    assert fast == plain and fast[0] == "error"
    assert f"step limit of {limit}" in fast[1][0]


def test_trace_is_the_same(monkeypatch) -> None:
    module = load_shader(str(LOOP))

    def traced():
        out = io.StringIO()
        run(module, trace=5, trace_out=out, **_tiled(16))
        return out.getvalue()
    fast, plain = _both(monkeypatch, traced)
    assert fast == plain and fast.count("\n") > 100


def test_a_fault_is_located_the_same(tmp_path, monkeypatch, capsys) -> None:
    """An out-of-bounds matrix load inside the loop: the same message at the same instruction."""
    module = load_shader(str(LOOP))
    kw = _tiled()
    kw["buffers"]["a"] = kw["buffers"]["a"][:20]
    fast, plain = _both(monkeypatch, lambda: _outcome(module, **kw))
    assert fast == plain and fast[0] == "error" and "out of bounds" in fast[1][0]


def test_run_config_switch(monkeypatch) -> None:
    """One mechanism per row: the run option (True, False or names) and SPVCOOP_NO_FAST_<NAME>, with
    SPVCOOP_NO_FAST_PATHS for all; an observer (debugger, coverage, --nonfinite) keeps those below its hooks."""
    from spvcoop.interp.config import ConfigError, RunConfig
    for p in fastpaths.PATHS:
        monkeypatch.delenv(p.env, raising=False)
    monkeypatch.delenv(fastpaths.ENV_ALL, raising=False)
    every = frozenset(fastpaths.NAMES)
    assert fastpaths.for_run(RunConfig()).on == every
    assert fastpaths.for_run(RunConfig(fast_paths=False)) is None
    assert fastpaths.for_run(RunConfig(fast_paths="chains, tensor")).on == {"chains", "tensor"}
    assert fastpaths.for_run(RunConfig(fast_paths=["loops"])).loops
    assert fastpaths.for_run(RunConfig(nonfinite=True)).on == fastpaths.UNDER_OBSERVER
    with pytest.raises(ConfigError, match=r"names an unknown fast path 'chain' \(did you mean 'chains'\?\); known: "):
        RunConfig(fast_paths="chain")
    monkeypatch.setenv("SPVCOOP_NO_FAST_MATRIX_MEMORY", "1")
    assert fastpaths.for_run(RunConfig()).on == every - {"matrix_memory"}
    monkeypatch.setenv(fastpaths.ENV_ALL, "1")
    assert fastpaths.for_run(RunConfig()) is None


def test_the_table_is_one_row_per_path() -> None:
    """Names are the FastPaths attributes, the switch is derived from the name, the test named exists and says
    which path it compares."""
    assert len(set(fastpaths.NAMES)) == len(fastpaths.PATHS)
    flags = {k for k, v in fastpaths.FastPaths.__annotations__.items() if v == "bool"}
    assert flags == set(fastpaths.NAMES), "FastPaths' `name: bool` lines and the rows of PATHS differ"
    fp = fastpaths.FastPaths(frozenset({"tensor"}))
    for p in fastpaths.PATHS:
        assert p.name.isidentifier() and getattr(fp, p.name) is (p.name == "tensor")
        assert p.env == "SPVCOOP_NO_FAST_" + p.name.upper()
        assert (ROOT / p.test).is_file(), p.test
    assert "SPVCOOP_NO_FAST_TENSOR" in (ROOT / "docs" / "fast-paths.md").read_text(encoding="utf-8")


def test_a_muladd_operand_is_widened_in_c_order() -> None:
    """np.matmul sums a transposed operand in another order (the last bits of an f32 result differ): the tensor
    fast path's tiles of a transposed view and the plain path's copies held the same values in different layouts,
    and tests/kernels/wg_attention gave different bytes. The widened operands are C-ordered whatever the layout."""
    from spvcoop.interp.coopmat.math import _widen
    x = np.random.default_rng(5).standard_normal((2, 16, 16)).astype(np.float16)
    col_major = np.ascontiguousarray(x.transpose(0, 2, 1)).transpose(0, 2, 1)
    for acc in (np.float32, np.float64):
        w = _widen(col_major, acc)
        assert w.flags.c_contiguous and np.array_equal(w, x.astype(acc))
    assert _widen(np.asfortranarray(x[0].astype(np.float32)), np.float32).flags.c_contiguous


class _Made(list):
    """The FastPaths object of each run made (None for a run without fast paths); `for_run` the function that was
    wrapped."""
    def __init__(self, for_run) -> None:
        super().__init__()
        self.for_run = for_run


def _fast_runs(monkeypatch) -> _Made:
    """The FastPaths object of each run made from here on (None for a run without fast paths)."""
    made = _Made(fastpaths.for_run)
    monkeypatch.setattr(fastpaths, "for_run", lambda config: made.append(made.for_run(config)) or made[-1])
    return made


def _workloads() -> dict:
    """name -> a run's outcome (_outcome): between them they take every fast path."""
    loop = load_shader(str(LOOP))
    wg = load_shader(str(TESTS / "data" / "coopmat2" / "wg_gemm.spvasm"))
    rng = np.random.default_rng(4)
    M, N, K = 50, 40, 70
    wg_kw = dict(dispatch=(2, 2, 1), spec_constants={0: M, 1: N, 2: K},
                 buffers={0: rng.standard_normal(M * K).astype(np.float16),
                          1: rng.standard_normal(K * N).astype(np.float16), 2: np.zeros(M * N, np.float32)})
    # whole-dispatch GEMMs whose workgroups share tiles (shared_tiles; tensor_groups: per-workgroup slices)
    wg64 = load_shader(str(ROOT / "bench" / "shaders" / "wg_tensor_gemm64.spv"))
    khr = load_shader(str(ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm"))
    n = 320
    A, B = rng.standard_normal((2, n, n)).astype(np.float16)
    wg64_kw = dict(dispatch=(5, 5, 1), spec_constants={0: n, 1: n, 2: n},
                   buffers={"a": A, "b": B, "d": np.zeros(n * n, np.float32)})
    k = 128
    khr_kw = dict(dispatch=(k // 16, k // 16, 1), spec_constants={0: k, 1: k},
                  buffers={"a": A[:k, :k].copy(), "b": B[:k, :k].copy(), "c0": rng.standard_normal((k, k)).astype(
                      np.float32), "c": np.zeros(k * k, np.float32)})
    return {"gemm_tiled": lambda: _outcome(loop, **_tiled()),
            "gemm_tiled_tensorcore": lambda: _outcome(loop, coop_numerics="nvidia-tensorcore", **_tiled()),
            "wg_tensor_gemm": lambda: _outcome(wg, **wg_kw),
            "wg_tensor_gemm64": lambda: _outcome(wg64, **wg64_kw),
            "khr_gemm": lambda: _outcome(khr, **khr_kw)}


@pytest.mark.parametrize("path", fastpaths.PATHS, ids=lambda p: p.name)
def test_each_path_off_alone_gives_the_same_and_is_taken(path, monkeypatch) -> None:
    from spvcoop.numerics import intsum
    if path.name == "int32_kernel" and intsum.KERNEL is None:
        pytest.skip("the compiled kernel is not built here (test_numerics_intsum says whether it should be)")
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    for p in fastpaths.PATHS:
        monkeypatch.delenv(p.env, raising=False)
    monkeypatch.delenv(fastpaths.ENV_ALL, raising=False)
    made = _fast_runs(monkeypatch)
    took = []
    for name, fn in _workloads().items():
        made.clear()
        fast = fn()
        assert fast[0] != "error", (name, fast)
        if not any(path.name in fp.taken for fp in made if fp is not None):
            continue
        took.append(name)
        monkeypatch.setenv(path.env, "1")
        made.clear()
        assert fn() == fast, name
        assert made and all(fp is None or path.name not in fp.on and path.name not in fp.taken for fp in made)
        monkeypatch.delenv(path.env)
    assert took, f"no workload takes the fast path {path.name}"


def test_the_run_option_turns_one_path_off(monkeypatch) -> None:
    """fast_paths= the names of all but one: the same outcome, that one not taken."""
    made = _fast_runs(monkeypatch)
    module = load_shader(str(LOOP))
    fast = _outcome(module, coop_numerics="nvidia-tensorcore", **_tiled())
    assert made[-1].taken >= {"muladd", "int32_muladd", "chains", "matrix_memory", "loops"}
    for name in ("muladd", "int32_muladd", "int32_kernel"):
        assert _outcome(module, coop_numerics="nvidia-tensorcore", fast_paths=set(fastpaths.NAMES) - {name},
                        **_tiled()) == fast
        assert name not in made[-1].taken


def test_an_op_the_compiler_does_not_know_falls_back(monkeypatch) -> None:
    """An op missing from the table goes through exec_inst in both paths: the same error."""
    from spvcoop.interp import families
    real = families.dispatcher_for

    def without_imul(module):
        d = real(module)
        ops = dict(d.ops)
        ops.pop("OpIMul")
        d2 = type(d)(ops, d.ext_ops, d.kinds, d.families)
        return d2
    monkeypatch.setattr("spvcoop.interp.runner.dispatcher_for", without_imul)
    module = load_shader(str(LOOP))
    fast, plain = _both(monkeypatch, lambda: _outcome(module, **_tiled()))
    assert fast == plain and fast[0] == "error" and "unsupported instruction OpIMul" in fast[1][0]


def test_a_value_of_a_block_left_early_keeps_its_lanes(monkeypatch) -> None:
    """Invocation i leaves the loop after i + 1 trips; the header's value it uses afterwards is from its own
    last trip (the compiled block assigns under the mask, as the plain path does)."""
    module = load_shader(str(TESTS / "data" / "divergent_loop.spvasm"))
    fast, plain = _both(monkeypatch, lambda: _outcome(module, buffers={"o": np.zeros(8, np.uint32)}))
    assert fast == plain
    assert np.frombuffer(fast[1]["(0, 0)"], np.uint32).tolist() == [i * 3 + 1 for i in range(8)]


def test_blocks_are_compiled_after_some_executions(monkeypatch) -> None:
    """With the default threshold a loop's blocks are compiled part way through: the result is the same."""
    calls = []
    real = block_compiler.compile_body
    monkeypatch.setattr(block_compiler, "compile_body",
                        lambda ex, body, *rest: calls.append(len(body)) or real(ex, body, *rest))
    module = load_shader(str(LOOP))
    monkeypatch.delenv(fastpaths.ENV_ALL, raising=False)
    fast = _outcome(module, **_tiled(64))
    assert calls, "no block was compiled"
    monkeypatch.setenv(fastpaths.ENV_ALL, "1")
    assert _outcome(module, **_tiled(64)) == fast


# ---- single-dispatch runs: one workgroup, where one subgroup holds every matrix (coopmat's single-group paths) --
COOPMAT_GLSL = sorted((TESTS / "glsl" / "coopmat").glob("*.comp"))
TILE_LOOP = TESTS / "glsl" / "coopmat" / "khr_tile_loop.comp"
LOOP_EXITS = TESTS / "glsl" / "interp" / "loop_exits.comp"


def _random_buffers(src: Path, nbytes: int = 8192) -> dict:
    """Every binding the GLSL source declares filled with small float16 values (as bytes): loads read data, not
    zeros, and f32 reads of them are finite."""
    import re
    rng = np.random.default_rng(7)
    out = {}
    for b in sorted({int(m) for m in re.findall(r"binding\s*=\s*(\d+)", src.read_text())}):
        out[f"0:{b}"] = rng.uniform(-2, 2, nbytes // 2).astype(np.float16).view(np.uint8).copy()
    return out


@pytest.mark.parametrize("src", COOPMAT_GLSL + GLSL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_glsl_shaders_one_workgroup_fast_equals_plain(src, tmp_path, monkeypatch) -> None:
    """Every coopmat and interpreter test shader over ONE workgroup with data in its buffers: where a matrix
    type's scope instance is the only one, loads and stores take the single-group path (or, for anything it
    does not handle, the general one); bytes, steps and errors are those of the plain path."""
    module = load_shader(str(compile_glsl(src, tmp_path / (src.stem + ".spv"))))
    bufs = _random_buffers(src)
    fast, plain = _both(monkeypatch, lambda: _outcome(module, dispatch=(1, 1, 1),
                                                      buffers={k: v.copy() for k, v in bufs.items()}))
    assert fast == plain


def _single_window_hits(monkeypatch) -> list:
    """Count the loads/stores the single-group path served (to show the tests above really use it)."""
    from spvcoop.interp.coopmat import memory as cm
    hits: list = []
    real = cm._single_window

    def counting(*a):
        w = real(*a)
        hits.append(w is not None)
        return w
    monkeypatch.setattr(cm, "_single_window", counting)
    planned = cm._LoadPlan.window   # a load whose stride and layout are run constants takes its plan's window

    def counting_plan(*a):
        w = planned(*a)
        hits.append(w is not None)
        return w
    monkeypatch.setattr(cm._LoadPlan, "window", counting_plan)
    return hits


def _tile_loop_case(tiles=3, stride_b=16, skew=0):
    rng = np.random.default_rng(11)
    return dict(dispatch=(1, 1, 1), spec_constants={0: tiles, 1: stride_b, 2: skew},
                buffers={"0:0": rng.uniform(-2, 2, 320 * tiles).astype(np.float16),
                         "0:1": rng.uniform(-2, 2, 256 * tiles).astype(np.float16),
                         "0:2": np.zeros(384 * tiles, np.float32)})


def test_tile_loop_single_subgroup_path_equals_plain_and_numpy(tmp_path, monkeypatch) -> None:
    module = load_shader(str(compile_glsl(TILE_LOOP, tmp_path / "tile_loop.spv")))
    hits = _single_window_hits(monkeypatch)
    case = _tile_loop_case()
    fast, plain = _both(monkeypatch, lambda: _outcome(module, **case))
    assert fast == plain and fast[0] != "error"
    assert sum(hits) >= 5 * 3, "the single-subgroup path was not taken"
    a, b = case["buffers"]["0:0"].astype(np.float32), case["buffers"]["0:1"].astype(np.float32)
    c = np.frombuffer(fast[1]["(0, 2)"], np.float32)
    acc = np.zeros((16, 16), np.float32)
    for t in range(3):
        A = a[t * 320: t * 320 + 16 * 20].reshape(16, 20)[:, :16].T   # column-major, stride 20
        B = b[t * 256: t * 256 + 256].reshape(16, 16)
        acc = acc + A @ B
        np.testing.assert_allclose(c[t * 384: t * 384 + 16 * 24].reshape(16, 24)[:, :16], acc, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("stride_b, skew, what", [(8, 0, "rows overlap"), (16, 1, "differs within subgroup")])
def test_tile_loop_warnings_and_errors_are_the_plain_paths(stride_b, skew, what, tmp_path, monkeypatch, capsys):
    """A stride under a row (a warning) and a pointer that is not uniform in the subgroup (an error): the
    single-subgroup path leaves both to the general one, which says the same as on the plain path."""
    module = load_shader(str(compile_glsl(TILE_LOOP, tmp_path / "tile_loop.spv")))

    def outcome():
        res = _outcome(module, **_tile_loop_case(stride_b=stride_b, skew=skew))
        return res, capsys.readouterr().err
    fast, plain = _both(monkeypatch, outcome)
    assert fast == plain
    assert what in str(fast)


TWO_BUFFERS = TESTS / "data" / "tile_plans" / "two_buffers.spvasm"


def _plan_hits(monkeypatch) -> dict:
    """What the per-run plans (issue 26) served, per kind: the access chains', loads' (with the memory's storage
    class) and MulAdds' results that were not None (to show the tests below really use them)."""
    from spvcoop.interp import ops_memory
    from spvcoop.interp.coopmat import math as cmath, memory as cm
    hits: dict = {"chain": 0, "load": [], "muladd": 0}
    chain, window, apply = ops_memory._planned_chain, cm._LoadPlan.window, cmath._F16Plan.apply

    def counting_chain(*a):
        q = chain(*a)
        hits["chain"] += q is not None
        return q

    def counting_window(*a):
        got = window(*a)
        if got is not None:
            hits["load"].append(got[1].mem.storage)
        return got

    def counting_apply(*a):
        d = apply(*a)
        hits["muladd"] += d is not None
        return d
    monkeypatch.setattr(ops_memory, "_planned_chain", counting_chain)
    monkeypatch.setattr(cm._LoadPlan, "window", counting_window)
    monkeypatch.setattr(cmath._F16Plan, "apply", counting_apply)
    return hits


def _two_buffers_case(tiles: int, stride: int, bits: bool = False, short: int = 0) -> dict:
    """Buffers for two_buffers.spvasm (its header): f16 values in [-2, 2), or (bits) any 16-bit patterns (NaNs,
    infinities, subnormals); `short` elements fewer in buffer 0 than the last trip reads."""
    rng = np.random.default_rng(17 + stride)
    n0 = (tiles - 1) * 16 + 15 * stride + 16 - short
    n1 = max(tiles * 256, (tiles - 1) * 16 + 8 + 15 * stride + 16)
    h0, h1 = ((rng.integers(0, 1 << 16, n, dtype=np.uint16).view(np.float16) if bits else
               rng.uniform(-2, 2, n).astype(np.float16)) for n in (n0, n1))
    return dict(dispatch=(1, 1, 1), spec_constants={0: tiles, 1: stride},
                buffers={"0:0": h0, "0:1": h1, "0:2": np.zeros(tiles * 256, np.float32)})


def _two_buffers_want(case: dict) -> list:
    tiles, stride = case["spec_constants"][0], case["spec_constants"][1]
    f0, f1 = (case["buffers"][k].astype(np.float32) for k in ("0:0", "0:1"))
    acc, out = np.zeros((16, 16), np.float32), []
    for t in range(tiles):
        b = f1[t * 256: t * 256 + 256].reshape(16, 16)
        a0 = np.stack([f0[t * 16 + r * stride: t * 16 + r * stride + 16] for r in range(16)])
        a1 = np.stack([f1[t * 16 + 8 + r * stride: t * 16 + 8 + r * stride + 16] for r in range(16)])
        acc = acc + a0 @ b + a1 @ b
        out.append(acc)
    return out


def test_tile_plans_follow_the_buffer_and_the_runs_spec_constants(monkeypatch) -> None:
    """One access chain and one load (inside a function, through a pointer parameter) read buffer 0 and buffer 1
    in turn, with a spec-constant stride; the same module runs again with another stride. Plans are per run and
    follow the pointer: every run gives the plain path's bytes and numpy's product, and the plans served it."""
    module = load_shader(str(TWO_BUFFERS))
    hits = _plan_hits(monkeypatch)
    for tiles, stride in ((4, 16), (3, 40), (4, 16)):
        case = _two_buffers_case(tiles, stride)
        fast, plain = _both(monkeypatch, lambda case=case: _outcome(module, **case))
        assert fast == plain and fast[0] != "error"
        c = np.frombuffer(fast[1]["(0, 2)"], np.float32)
        for t, want in enumerate(_two_buffers_want(case)):
            np.testing.assert_allclose(c[t * 256: t * 256 + 256].reshape(16, 16), want, rtol=1e-5, atol=1e-4)
    trips = 4 + 3 + 4
    # every MulAdd but each run's first, whose C is the constant 0 matrix (not loaded: the general path's)
    assert hits["chain"] == 4 * trips and hits["load"] == ["StorageBuffer"] * 3 * trips and \
        hits["muladd"] == 2 * trips - 3, hits


def test_tile_plans_muladd_bit_patterns_are_the_plain_paths(monkeypatch) -> None:
    """Every 16-bit pattern may come in (NaNs with payloads, infinities, subnormals): the planned MulAdd's bytes
    are the general path's."""
    module = load_shader(str(TWO_BUFFERS))
    hits = _plan_hits(monkeypatch)
    case = _two_buffers_case(6, 24, bits=True)
    with np.errstate(all="ignore"):
        fast, plain = _both(monkeypatch, lambda: _outcome(module, **case))
    assert fast == plain and fast[0] != "error"
    c = np.frombuffer(fast[1]["(0, 2)"], np.float32)
    assert np.isnan(c).any() and np.isfinite(c).any()
    assert hits["muladd"] == 2 * 6 - 1   # all but the first, whose C is a constant


def test_tile_plans_leave_an_out_of_bounds_load_to_the_general_path(monkeypatch) -> None:
    """Buffer 0 ends 1 element before the last trip's tile: the trips before go through the plans, the last
    load reports the plain path's located error."""
    module = load_shader(str(TWO_BUFFERS))
    hits = _plan_hits(monkeypatch)
    fast, plain = _both(monkeypatch, lambda: _outcome(module, **_two_buffers_case(3, 16, short=1)))
    assert fast == plain and fast[0] == "error"
    assert "out of bounds" in str(fast[1]) and "'h0'" in str(fast[1])
    assert hits["load"] and hits["chain"] and hits["muladd"]


def test_tile_plans_serve_the_workgroup_tile_and_the_races_are_the_plain_paths(tmp_path, monkeypatch) -> None:
    """khr_tile_loop.comp stages its accumulator through Workgroup memory: the planned loads from there and from
    the buffers record the same accesses for the race detector (no race: barriers order them); the same with a
    stride that makes B's rows overlap (a warning)."""
    module = load_shader(str(compile_glsl(TILE_LOOP, tmp_path / "tile_loop.spv")))
    hits = _plan_hits(monkeypatch)
    for stride_b in (16, 8):
        fast, plain = _both(monkeypatch, lambda s=stride_b: _outcome(module, races=True,
                                                                        **_tile_loop_case(stride_b=s)))
        assert fast == plain and fast[0] != "error"
    assert hits["load"].count("Workgroup") == 2 * 3 and hits["load"].count("StorageBuffer") == 3 * 2 + 3


def _loop_exits_case():
    rng = np.random.default_rng(5)
    return dict(buffers={"0:0": np.zeros(64, np.uint32), "0:1": rng.integers(0, 1000, 64).astype(np.uint32)})


def _loop_exits_want(v: np.ndarray, n: int) -> list:
    """loop_exits.comp in Python, invocation by invocation."""
    out = []
    for id_ in range(n):
        acc, done = 0, False
        for i in range(20):
            if i == 3:
                continue
            for j in range(6):
                if j > id_ % 4:
                    break
                if (i + j + id_) & 3 == 1:
                    continue
                acc = (acc + int(v[(i * 7 + j + id_) % 64])) & 0xFFFFFFFF
            acc = acc ^ i if i % 3 == 0 else (acc + 5) & 0xFFFFFFFF if i % 3 == 1 else (acc * 3) & 0xFFFFFFFF
            if id_ == 5 and i == 11:
                out.append(acc)
                done = True
                break
            if acc > int(v[i]) * 4000 + 100000:
                break
        if done:
            continue
        k = 0
        while True:
            k += 1 + (id_ & 1)
            if k * k > 30 + id_:
                break
        out.append((acc + k) & 0xFFFFFFFF)
    return out


@pytest.mark.parametrize("dispatch", [(1, 1, 1), (3, 1, 1)])
def test_loop_exits_fast_equals_plain_and_python(dispatch, tmp_path, monkeypatch) -> None:
    module = load_shader(str(compile_glsl(LOOP_EXITS, tmp_path / "loop_exits.spv")))
    case = _loop_exits_case()
    fast, plain = _both(monkeypatch, lambda: _outcome(module, dispatch=dispatch, **case))
    assert fast == plain and fast[0] != "error"
    n = 8 * dispatch[0]
    got = np.frombuffer(fast[1]["(0, 0)"], np.uint32)[:n].tolist()
    assert got == _loop_exits_want(case["buffers"]["0:1"], n)


def test_step_limit_anywhere_in_loops_with_exits(tmp_path, monkeypatch) -> None:
    """The step limit at every step of the first trips (block bodies, terminators, loop headers, the early
    return) and then every 37th: the same error at the same instruction on both paths."""
    module = load_shader(str(compile_glsl(LOOP_EXITS, tmp_path / "loop_exits.spv")))
    total = _outcome(module, **_loop_exits_case())[0]
    assert isinstance(total, int) and total > 400
    for limit in [*range(1, 160), *range(160, total, 37), total - 1]:
        fast, plain = _both(monkeypatch, lambda limit=limit: _outcome(module, max_steps=limit, **_loop_exits_case()))
        assert fast == plain and fast[0] == "error", limit
    fast, plain = _both(monkeypatch, lambda: _outcome(module, max_steps=total, **_loop_exits_case()))
    assert fast == plain and fast[0] == total


def test_progress_is_reported_at_the_same_steps(monkeypatch) -> None:
    """RunConfig.progress: compiled blocks report it where the plain path does, at the first branch at or past
    each multiple of 1024 steps (once it came only where a branch landed exactly on one: never, in a loop of
    even period)."""
    module = load_shader(str(LOOP))

    def calls():
        seen: list = []
        run(module, progress=seen.append, max_steps=10**6, **_tiled(128))
        return seen
    fast, plain = _both(monkeypatch, calls)
    assert fast == plain and len(fast) >= 8
    # one report per 1024 steps, each within one loop trip of its multiple
    assert [s // 1024 for s in fast] == list(range(1, len(fast) + 1))
    assert all(s % 1024 < 64 for s in fast)


def test_whole_dispatch_gemm_widens_each_shared_tile_once(monkeypatch) -> None:
    """The KHR GEMM over (n/16)^2 workgroups: each A and B tile is read by n/16 workgroups; with the fast path
    (coopmat/memory.py's shared loads) MulAdd widens each distinct f16 tile once, and the result is the plain
    path's, bit for bit."""
    from spvcoop.interp.coopmat import math as coop_math
    n = 128
    rng = np.random.default_rng(26)
    a, b = rng.standard_normal((2, n, n)).astype(np.float16)
    module = load_shader(str(ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm"))
    widened: list[int] = []
    real = coop_math._widen

    def counting(x, acc):
        widened.append(x.shape[0])
        return real(x, acc)
    monkeypatch.setattr(coop_math, "_widen", counting)

    def once():
        widened.clear()
        res = run(module, dispatch=(n // 16, n // 16, 1), spec_constants={0: n, 1: n},
                  buffers={"a": a, "b": b, "c0": np.zeros((n, n), np.float32), "c": np.zeros(n * n, np.float32)})
        return bytes(np.asarray(res.buffers["c"]).view(np.uint8)), sorted(set(widened))
    (fast, fast_sizes), (plain, plain_sizes) = _both(monkeypatch, once)
    assert fast == plain
    assert fast_sizes == [n // 16] and plain_sizes == [(n // 16) ** 2]
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(np.frombuffer(fast, np.float32).reshape(n, n), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("bits", [False, True])
def test_tile_plans_muladd_under_a_numerics_model_is_the_plain_paths(bits, monkeypatch) -> None:
    """Under --coop-numerics nvidia-tensorcore the MulAdd's plan (coopmat/math._ModelPlan) hands each one-tile
    MulAdd to the model, which computes it on its few-tile path (numerics/fewtiles.py) unless an input is inf or
    NaN: the bytes are the plain path's, every 16-bit pattern included."""
    from spvcoop.interp.coopmat import math as cmath
    from spvcoop.numerics import fewtiles
    module = load_shader(str(TWO_BUFFERS))
    served: list = []
    apply = cmath._ModelPlan.apply
    monkeypatch.setattr(cmath._ModelPlan, "apply", lambda *a: served.append(apply(*a)) or served[-1])
    case = _two_buffers_case(5, 24, bits=bits)
    before = fewtiles.taken[0]
    with np.errstate(all="ignore"):
        fast, plain = _both(monkeypatch, lambda: _outcome(module, coop_numerics="nvidia-tensorcore", **case))
    assert fast == plain and fast[0] != "error"
    assert sum(d is not None for d in served) == 2 * 5 - 1   # all but the first, whose C is a constant
    if not bits:   # every MulAdd of the fast run; the plain one (int32_muladd off too) takes the float64 path
        assert fewtiles.taken[0] - before == 2 * 5


SHARED_TILES_GLSL = """#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer BA { float16_t a[]; };
layout(binding = 1) readonly buffer BB { float16_t b[]; };
layout(binding = 2) buffer BD { float d[]; };
layout(binding = 3) buffer BO { float16_t o[]; };
#define RM gl_CooperativeMatrixLayoutRowMajor
#define CM gl_CooperativeMatrixLayoutColumnMajor
void main() {
    uint w = gl_WorkGroupID.x;   // 64 workgroups of one subgroup: tile w / 8 and w % 8 of A and B
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a1;   // (one per declaration: glslang 16 gives
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a2;   // the later names of a list Use -1)
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a3;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b1;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b2;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b3;
    coopMatLoad(a1, a, (w / 8) * 256, 16, RM);
    coopMatLoad(b1, b, (w % 8) * 256, 16, RM);
    coopMatLoad(a2, a, (w % 8) * 256, 16, CM);     // instance j = ib * na + ia, transposed tiles
    coopMatLoad(b2, b, (w / 8) * 256, 16, RM);
    coopMatLoad(a3, a, (w % 4) * 256, 16, RM);     // 4 x 8 tile pairs for 64 instances: no grid
    coopMatLoad(b3, b, 2048 + w * 256, 16, RM);    // one tile per instance: not shared
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.5);
    c = coopMatMulAdd(a1, b1, c);
    c = coopMatMulAdd(a2, b2, c);
    c = coopMatMulAdd(a3, b1, c);
    c = coopMatMulAdd(a1, b3, c);
    coopMatStore(c, d, w * 256, 16, RM);
    coopMatStore(a3, o, w * 256, 16, RM);          // shared tiles read by a store ...
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> h;
    coopMatLoad(h, a, (w % 8) * 256, 16, CM);
    h = h + h;                                     // ... and by element-wise arithmetic
    coopMatStore(h, o, (64 + w) * 256, 16, RM);
}
"""


def test_shared_tiles_products_and_copies_are_the_general_paths(tmp_path, monkeypatch) -> None:
    """The fast path `shared_tiles` alone off (issue 33): loads whose 64 scope instances share tiles, multiplied
    in grid order (j = ia * nb + ib and j = ib * na + ia), in no grid order, with an operand that is not shared,
    and read by a store and by element-wise arithmetic (the copies made when first read): the same bytes, steps
    and notes, and the path was taken."""
    src = tmp_path / "shared_tiles.comp"
    src.write_text(SHARED_TILES_GLSL)
    module = load_shader(str(compile_glsl(src, tmp_path / "shared_tiles.spv")))
    rng = np.random.default_rng(33)
    a, b = (rng.standard_normal(n * 256) for n in (8, 72))
    kw = dict(dispatch=(64, 1, 1), buffers={0: a.astype(np.float16), 1: b.astype(np.float16),
                                            2: np.zeros(64 * 256, np.float32), 3: np.zeros(128 * 256, np.float16)})
    made = _fast_runs(monkeypatch)
    fast = _outcome(module, **kw)
    assert fast[0] != "error", fast
    assert {"shared_tiles", "matrix_memory"} <= made[-1].taken
    plain = _outcome(module, fast_paths=set(fastpaths.NAMES) - {"shared_tiles"}, **kw)
    assert "shared_tiles" not in made[-1].taken
    assert fast == plain
    d = np.frombuffer(fast[1]["d"], np.float32).reshape(64, 16, 16)
    A, B = (x.astype(np.float16).astype(np.float64).reshape(-1, 16, 16) for x in (a, b))
    w = np.arange(64)
    want = 0.5 + A[w // 8] @ B[w % 8] + A[w % 8].transpose(0, 2, 1) @ B[w // 8] + A[w % 4] @ B[w % 8] + \
        A[w // 8] @ B[8 + w]
    np.testing.assert_allclose(d, want, rtol=1e-5, atol=1e-4)

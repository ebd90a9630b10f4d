"""The interpreter's fast path (compiled blocks, spvcoop/interp/block_compiler.py) against the plain one:
every sample, kernel and test shader run both ways gives the same bytes, the same steps, the same
errors; the step limit stops at the same instruction; a trace is the same text."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from spvcoop.cli import main as cli
from spvcoop.diagnostics import SpvError
from spvcoop.interp import block_compiler, run
from spvcoop.interp.runner import load_shader

from conftest import compile_glsl

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
SPECS = sorted(p for p in [*(ROOT / "samples").rglob("run*.yaml"), *(TESTS / "kernels").rglob("run*.yaml"),
                           *(TESTS / "kernels_spvasm").rglob("run*.yaml")])
SICOMPAT = sorted(p for p in (TESTS / "data" / "sicompat").iterdir() if (p / "shader.spvasm").exists())
GLSL = sorted((TESTS / "glsl" / "interp").glob("*.comp"))
SPVASM = sorted((TESTS / "data").glob("*.spvasm"))
LOOP = ROOT / "bench" / "shaders" / "gemm_tiled.spvasm"


def _both(monkeypatch, fn):
    """fn() with the fast path (every block compiled on its first execution), then without it (notes
    printed once per process are printed by both)."""
    from spvcoop.interp import runner
    monkeypatch.setattr(block_compiler, "COMPILE_AFTER", 0)
    monkeypatch.delenv(block_compiler.DISABLE_ENV, raising=False)
    runner._noted.clear()
    fast = fn()
    monkeypatch.setenv(block_compiler.DISABLE_ENV, "1")
    runner._noted.clear()
    plain = fn()
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
    """Every buffer's bytes and the step count, or the error text."""
    try:
        res = run(module, **kw)
    except SpvError as e:
        return "error", [f"{d.headline()} {d.span} {[n.message for n in d.notes]}" for d in e.diagnostics]
    return res.steps, {str(k): res.raw(k) for k in res.buffers}


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
    from spvcoop.interp.config import RunConfig
    monkeypatch.delenv(block_compiler.DISABLE_ENV, raising=False)
    assert block_compiler.enabled(RunConfig()) and not block_compiler.enabled(RunConfig(fast_paths=False))
    monkeypatch.setenv(block_compiler.DISABLE_ENV, "1")
    assert not block_compiler.enabled(RunConfig())


def test_an_op_the_compiler_does_not_know_falls_back(monkeypatch) -> None:
    """An op missing from the table goes through exec_inst in both paths: the same error."""
    from spvcoop.interp import families
    real = families.default_dispatcher

    def without_imul():
        d = real()
        ops = dict(d.ops)
        ops.pop("OpIMul")
        d2 = type(d)(ops, d.ext_ops, d.kinds, d.families)
        return d2
    monkeypatch.setattr("spvcoop.interp.runner.default_dispatcher", without_imul)
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
    monkeypatch.setattr(block_compiler, "compile_body", lambda ex, body, *rest: calls.append(len(body)) or real(ex, body, *rest))
    module = load_shader(str(LOOP))
    monkeypatch.delenv(block_compiler.DISABLE_ENV, raising=False)
    fast = _outcome(module, **_tiled(64))
    assert calls, "no block was compiled"
    monkeypatch.setenv(block_compiler.DISABLE_ENV, "1")
    assert _outcome(module, **_tiled(64)) == fast

"""SPV_QCOM_cooperative_matrix_conversion in the interpreter: row i (A, accumulator) / column i (B) of a matrix
to and from invocation i's array, packed u32 arrays, OpExtractSubArrayQCOM and OpBitCastArrayQCOM.
Module: tests/data/qcom/qcom_convert.spvasm (hand-written, its GLSL-like meaning in its comment), valid for
spirv-val and for spvcoop's validator (runs validate first). Expected values: numpy, computed here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spvcoop
from conftest import DATA, run_tool

SHADER = DATA / "qcom" / "qcom_convert.spvasm"


def test_module_is_valid(tmp_path: Path) -> None:
    spv = tmp_path / "q.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(SHADER), "-o", str(spv)).returncode == 0
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stderr


def _inputs(seed: int = 4):
    rng = np.random.default_rng(seed)
    RA = rng.standard_normal((32, 16)).astype(np.float16)            # row t of A from invocation t (16..31 ignored)
    Bm = rng.standard_normal((16, 16)).astype(np.float16)            # B[k, n]
    PB = np.zeros((32, 8), np.uint32)
    PB[:16] = np.ascontiguousarray(Bm.T).view(np.uint32)             # column t of B, two halves per uint
    PB[16:] = 0xFFFFFFFF                                             # ignored invocations: NaN halves if used
    RC = rng.standard_normal((32, 16)).astype(np.float32)
    return RA, Bm, PB, RC


def _run(shader: Path, layout: str, RA, PB, RC):
    bufs = {0: RA, 1: PB, 2: RC, 3: np.zeros(256, np.float32), 4: np.zeros((32, 16), np.float32),
            5: np.zeros((32, 8), np.uint32), 6: np.zeros((32, 8), np.float32), 7: np.zeros((32, 16), np.uint32),
            8: np.zeros((32, 16), np.float16)}
    return spvcoop.run(str(shader), dispatch=(1, 1, 1), layout=layout, buffers=bufs)


@pytest.mark.parametrize("layout", ["nvidia", "striped", "shuffled"])
def test_construct_muladd_extract(layout: str) -> None:
    """The mapping is the extension's, not the layout model's: every model gives the same results."""
    RA, Bm, PB, RC = _inputs()
    res = _run(SHADER, layout, RA, PB, RC)
    exact = RA[:16].astype(np.float64) @ Bm.astype(np.float64) + RC[:16]
    D = res[3].reshape(16, 16)
    assert np.abs(D - exact).max() <= np.abs(exact).max() * 2.0 ** -20
    rows = res[4].reshape(32, 16)
    assert (rows[:16] == D).all()                                    # row t of D to invocation t
    assert (rows[16:] == 0).all()                                    # no row 16..31: undefined (zeros here)
    assert (res[5].reshape(32, 8)[:16] == RA[:16].view(np.uint32)).all()   # A's rows packed into uints
    assert (res[8].reshape(32, 16)[:16] == Bm.T).all()                      # B's columns


def test_sub_array_and_bitcast_array() -> None:
    RA, Bm, PB, RC = _inputs(9)
    res = _run(SHADER, "nvidia", RA, PB, RC)
    rows = res[4].reshape(32, 16)
    start = (np.arange(32) & 1) * 8                                  # per-invocation start index
    want = np.stack([rows[t, start[t]:start[t] + 8] for t in range(32)])
    assert (res[6].reshape(32, 8) == want).all()
    assert (res[7].reshape(32, 16) == rows.view(np.uint32)).all()


def test_sub_array_outside_the_source_is_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.spvasm"
    text = SHADER.read_text()
    assert "%start = OpIMul %i32 %oddi %i8" in text
    bad.write_text(text.replace("%start = OpIMul %i32 %oddi %i8", "%start = OpIAdd %i32 %oddi %i8"))
    RA, Bm, PB, RC = _inputs()
    with pytest.raises(spvcoop.SpvError) as info:
        _run(bad, "nvidia", RA, PB, RC)
    d = info.value.diagnostics[0]
    assert "start index 9 with 8 components is outside the 16-component source array" in d.message
    assert d.span is not None and d.span.line > 0

"""bfloat16 cooperative matrices: held as float32 values (exact), stored as 16-bit patterns,
rounded to nearest even when a result is bfloat16. Module: tests/data/bf16_gemm.spvasm (hand-written
assembly, as glslang 13.1 has no bfloat16 GLSL), validated by spirv-val in the test."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spvcoop
from conftest import DATA, run_tool

SHADER = DATA / "bf16_gemm.spvasm"


def bf16_value(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns -> float32 (the upper half of an f32)."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16_round_reference(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, round to nearest even, written with Python integers."""
    out = []
    for u in np.atleast_1d(np.asarray(x, np.float32)).view(np.uint32).tolist():
        hi, lo = u >> 16, u & 0xFFFF
        if lo > 0x8000 or (lo == 0x8000 and hi & 1):
            hi += 1
        out.append(hi)
    return np.array(out, np.uint16)


def test_rounding_reference_is_right() -> None:
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even one (1.0)
    assert bf16_round_reference(np.float32(1 + 2 ** -8))[0] == 0x3F80
    assert bf16_round_reference(np.float32(1 + 3 * 2 ** -8))[0] == 0x3F82
    assert bf16_round_reference(np.float32(-2.0))[0] == 0xC000


def test_module_is_valid(tmp_path: Path) -> None:
    spv = tmp_path / "m.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(SHADER), "-o", str(spv)).returncode == 0
    assert run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv)).returncode == 0


def _run(layout: str, A, B, C):
    return spvcoop.run(str(SHADER), dispatch=(1, 1, 1), layout=layout,
                       buffers={0: A, 1: B, 2: C, 3: np.zeros(256, np.float32), 4: np.zeros(256, np.uint16),
                                5: np.zeros(256, np.uint16)})


@pytest.mark.parametrize("layout", ["nvidia", "striped", "shuffled"])
def test_bf16_muladd_load_store_convert(layout: str) -> None:
    rng = np.random.default_rng(11)
    A = bf16_round_reference(rng.standard_normal(256).astype(np.float32))
    B = bf16_round_reference(rng.standard_normal(256).astype(np.float32))
    C = rng.standard_normal(256).astype(np.float32)
    res = _run(layout, A, B, C)
    # products of bf16 values are exact in f32; the sum is in f32
    ref = bf16_value(A).reshape(16, 16).astype(np.float64) @ bf16_value(B).reshape(16, 16) + C.reshape(16, 16)
    np.testing.assert_allclose(res[3].reshape(16, 16), ref, rtol=1e-5, atol=1e-5)
    assert (res[4] == A).all()                                # bf16 store of a bf16 load: the same bits
    assert (res[5] == bf16_round_reference(res[3])).all()    # OpFConvert f32 -> bf16 rounds to nearest even


GPU = DATA / "h100-vulkan" / "coopmat" / "bf16_gemm"


def test_matches_the_h100_bit_for_bit_with_tensorcore_numerics() -> None:
    """The same module and inputs on an H100 (tests/data/h100-vulkan/coopmat/bf16_gemm): with
    --coop-numerics nvidia-tensorcore every output bit agrees, including OpFConvert f32 -> bf16, which
    the H100 does toward zero; the default IEEE rule is within an ulp of f32 and rounds to nearest."""
    A = np.fromfile(GPU / "a.bin", np.uint16)
    B = np.fromfile(GPU / "b.bin", np.uint16)
    C = np.fromfile(GPU / "c.bin", np.float32)
    bufs = {0: A, 1: B, 2: C, 3: np.zeros(256, np.float32), 4: np.zeros(256, np.uint16), 5: np.zeros(256, np.uint16)}
    res = spvcoop.run(str(SHADER), dispatch=(1, 1, 1), layout="nvidia", buffers=bufs,
                      coop_numerics="nvidia-tensorcore")
    assert (res[3].view(np.uint32) == np.fromfile(GPU / "d.bin", np.uint32)).all()
    assert (res[4] == np.fromfile(GPU / "a_stored.bin", np.uint16)).all()
    assert (res[5] == np.fromfile(GPU / "d_bf16.bin", np.uint16)).all()
    ieee = _run("nvidia", A, B, C)
    np.testing.assert_allclose(ieee[3], np.fromfile(GPU / "d.bin", np.float32), rtol=0, atol=2e-6)


def test_bf16_scalar_constant_runs_unvalidated() -> None:
    """bf16 scalars are values now (ml_dtypes' bfloat16; they used to be refused): the bf16 OpConstant
    0x1.02p+0 scales the bf16 matrix (OpMatrixTimesScalar, run unvalidated since SPV_KHR_bfloat16 does not
    allow it), computed in f32 and rounded once to nearest even."""
    bufs = {i: np.zeros(256, np.uint16 if i in (0, 1, 4, 5) else np.float32) for i in range(6)}
    rng = np.random.default_rng(5)
    bufs[0] = bf16_round_reference(rng.standard_normal(256).astype(np.float32))
    bufs[1] = bf16_round_reference(rng.standard_normal(256).astype(np.float32))
    res = spvcoop.run(str(DATA / "bf16_scaled.spvasm"), dispatch=(1, 1, 1), layout="nvidia", validate=False,
                      buffers=bufs)
    db = bf16_value(bf16_round_reference(res[3]))
    assert (res[5] == bf16_round_reference(db * np.float32(1 + 2 ** -7))).all()


def test_bf16_arithmetic_is_rejected_before_running() -> None:
    with pytest.raises(spvcoop.SpvError, match=r"coopmat.arith.encoding|does not support BFloat16KHR"):
        spvcoop.run(str(DATA / "bf16_scaled.spvasm"), dispatch=(1, 1, 1), layout="nvidia",
                    buffers={i: np.zeros(256, np.uint16 if i in (0, 1, 4, 5) else np.float32) for i in range(6)})

"""The interpreter against bf16 kernels run on an H100 (tests/data/h100-vulkan/bf16, see its README):
layouts through element access, scalar and matrix conversions, bf16 x bf16 -> f32 MulAdd."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import spvcoop
from conftest import DATA, run_tool

GPU = DATA / "h100-vulkan" / "bf16"
KERNELS = ("bf16_layouts", "bf16_convert", "bf16_gemm_f32", "bf16_gemm_f16")


def _case(name: str):
    z = np.load(GPU / f"{name}.npz")
    ins = sorted((int(k[2:]), z[k]) for k in z.files if k.startswith("in"))
    outs = sorted((int(k[3:]), z[k]) for k in z.files if k.startswith("gpu"))
    return [a for _, a in ins], dict(outs)


def _run(name: str, numerics: str):
    ins, gpu = _case(name)
    bufs = {i: a for i, a in enumerate(ins)}
    bufs.update({k: np.zeros_like(v) for k, v in gpu.items()})
    res = spvcoop.run(str(GPU / f"{name}.spvasm"), dispatch=(1, 1, 1), layout="nvidia", buffers=bufs,
                      coop_numerics=numerics)
    return ins, gpu, {k: np.asarray(res[k]).view(np.uint8) for k in gpu}


def _bf16(raw: np.ndarray) -> np.ndarray:
    return raw.view(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)


def _upper_half(x: np.ndarray) -> np.ndarray:
    """f32 -> bf16 toward zero, by integer arithmetic on the pattern (independent of the interpreter)."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize("name", KERNELS)
def test_kernels_are_valid(tmp_path: Path, name: str) -> None:
    spv = tmp_path / "k.spv"
    made = run_tool("spirv-as", "--target-env", "vulkan1.3", str(GPU / f"{name}.spvasm"), "-o", str(spv))
    assert made.returncode == 0
    assert run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv)).returncode == 0


def test_h100_bf16_layouts_are_the_nvidia_model() -> None:
    """The GPU's own element map (int(m[i]) = 16r + c) equals the `nvidia` layout model's, for A and B."""
    from spvcoop.layouts import load_model
    _, gpu = _case("bf16_layouts")
    out = gpu[2].view(np.uint32)
    assert (out[:32] == 8).all()
    model = load_model("nvidia")
    for base, use in ((32, "a"), (288, "b")):
        lay = model.layout("bf16", 16, 16, use, 32)
        want = lay.row * 16 + lay.col                       # (32, 8): element i of invocation p
        assert (out[base:base + 256].reshape(32, 8) == want).all(), use
    # the bits and the f32 value of each element say the same
    a = out[32:288].astype(np.float32)
    assert (out[544:800] == a.astype(ml_dtypes.bfloat16).view(np.uint16)).all()
    assert (out[800:1056].view(np.float32) == out[288:544].astype(np.float32)).all()


@pytest.mark.parametrize("numerics", ["ieee", "nvidia-tensorcore"])
def test_bf16_element_access_matches_the_h100_bit_for_bit(numerics: str) -> None:
    _, gpu, ours = _run("bf16_layouts", numerics)
    assert (ours[2] == gpu[2]).all()


def test_h100_narrows_to_bf16_toward_zero() -> None:
    """What the data says, checked without the interpreter: every f32 -> bf16 is the upper half of the f32,
    i32 -> bf16 is i32 -> f32 (nearest even) and then the upper half."""
    ins, gpu = _case("bf16_convert")
    f32, i32 = ins[0].view(np.float32), ins[3].view(np.int32)
    assert (gpu[4].view(np.uint16) == _upper_half(f32)).all()
    assert (gpu[9].view(np.uint16) == _upper_half(i32.astype(np.float32))).all()
    # and nearest even would differ at many of them (ties and above-half cases are in the inputs)
    assert (gpu[4].view(np.uint16) != f32.astype(ml_dtypes.bfloat16).view(np.uint16)).sum() > 50


def test_scalar_conversions_match_the_h100_with_tensorcore_numerics() -> None:
    """Bit for bit, NaNs included: the H100 makes NaNs from f16 0x7FFF in bf16, and bf16 NaNs 0x7FFF in f16, as
    the model's ordinary-code rules do (issue 36); the IEEE rules keep the quiet payload (SPIR-V leaves it open)."""
    ins, gpu, ours = _run("bf16_convert", "nvidia-tensorcore")
    _, _, ieee = _run("bf16_convert", "ieee")
    for k, dt in ((4, ml_dtypes.bfloat16), (5, np.float32), (6, ml_dtypes.bfloat16), (7, np.float16),
                  (8, np.int32), (9, ml_dtypes.bfloat16)):
        bits = f"u{np.dtype(dt).itemsize}"
        differ = gpu[k].view(bits) != ours[k].view(bits)
        assert not differ.any(), (k, int(differ.sum()))
        if k in (6, 7):
            nan = np.isnan(gpu[k].view(dt).astype(np.float32))
            assert nan.sum() and (gpu[k].view(bits)[nan] == 0x7FFF).all()
            assert (ieee[k].view(bits) != gpu[k].view(bits)).any(), k


def test_scalar_conversions_round_to_nearest_even_by_default() -> None:
    ins, gpu, ours = _run("bf16_convert", "ieee")
    f32, bf, f16, i32 = ins[0].view(np.float32), ins[1], ins[2].view(np.float16), ins[3].view(np.int32)
    with np.errstate(invalid="ignore", over="ignore"):
        assert (ours[4].view(np.uint16) == f32.astype(ml_dtypes.bfloat16).view(np.uint16)).all()
        assert (ours[5].view(np.float32).view(np.uint32) == (bf.view(np.uint16).astype(np.uint32) << 16)).all()
        assert (ours[6].view(np.uint16) == f16.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)).all()
        assert (ours[9].view(np.uint16) == i32.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)).all()
    b = _bf16(bf)
    fin = np.isfinite(b) & (np.abs(b) < 2**31)
    want = np.trunc(b[fin].astype(np.float64)).astype(np.int64)
    assert (ours[8].view(np.int32)[fin] == want).all()


def test_bf16_muladd_and_matrix_conversions_match_the_h100() -> None:
    """D = A*B + C (K = 32), H = f16(D), G = bf16(D): bit for bit under nvidia-tensorcore. E = bf16(H) differs
    where the driver skipped the f16 rounding (it computes bf16(D), a fold SPIR-V does not allow): the GPU's E
    is G, ours is the upper half of H; F = f32(E) follows."""
    ins, gpu, ours = _run("bf16_gemm_f32", "nvidia-tensorcore")
    for k in (3, 4, 7):
        assert (ours[k] == gpu[k]).all(), k
    D, H = gpu[3].view(np.float32), gpu[4].view(np.float16)
    assert (gpu[5] == gpu[7]).all() and (gpu[7].view(np.uint16) == _upper_half(D)).all()
    assert (ours[5].view(np.uint16) == _upper_half(H.astype(np.float32))).all()
    differ = ours[5].view(np.uint16) != gpu[5].view(np.uint16)
    assert differ.sum() == 15 and (_upper_half(D) != _upper_half(H.astype(np.float32)))[differ].all()
    assert (ours[6].view(np.float32) == _bf16(ours[5])).all()


def test_bf16_muladd_ieee_rule_is_close_to_the_h100() -> None:
    ins, gpu, ours = _run("bf16_gemm_f32", "ieee")
    A, B = _bf16(ins[0]).reshape(16, 32).astype(np.float64), _bf16(ins[1]).reshape(32, 16).astype(np.float64)
    C = ins[2].view(np.float32).reshape(16, 16).astype(np.float64)
    exact = A[:, 16:] @ B[16:] + (A[:, :16] @ B[:16] + C)
    d = ours[3].view(np.float32).reshape(16, 16)
    assert np.abs(d - exact).max() <= np.abs(exact).max() * 2.0 ** -22   # two f32 roundings of sums
    np.testing.assert_allclose(d, gpu[3].view(np.float32).reshape(16, 16), rtol=2e-6, atol=1e-5)

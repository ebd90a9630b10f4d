"""The interpreter against outputs of the real H100 driver (tests/data/h100-vulkan/coopmat, measured with vkrun):
integer GEMMs and the layout-dependent sample bit for bit under --layout nvidia; f16 GEMMs bit for bit with the
nvidia-tensorcore numerics, and measurably not with the IEEE rule (so the emulation is what makes them match)."""
from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from spvcoop.core.reference_tools import find_tool
from conftest import REPO, TESTS

pytestmark = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")

ROOT = REPO
DATA = TESTS / "data" / "h100-vulkan" / "coopmat"
CASES = json.loads((DATA / "cases.json").read_text())
FLOAT_GEMMS = ["sample_nv_gemm", "sample_khr_gemm", "nv_f16_acc", "nv_f16_acc_2", "khr_f16_acc", "nv_colmajor_strides",
               "stress_wide_f32acc", "stress_big_c0", "stress_wide_f16acc", "stress_cancel_16x8x8",
               "khr_functions_arrays", "khr_shared_staged"]


@functools.cache
def _module(shader: str):
    from spvcoop.interp import compile_glsl
    return compile_glsl(str(ROOT / shader))


def _run(name: str, numerics: str):
    from spvcoop.interp import run
    c = CASES[name]
    data = np.load(DATA / f"{name}.npz")
    n = len([k for k in data.files if k.startswith("in")])
    res = run(_module(c["shader"]), dispatch=tuple(c["dispatch"]), buffers={i: data[f"in{i}"] for i in range(n)},
              spec_constants={int(k): v for k, v in c["spec"].items()}, layout="nvidia", coop_numerics=numerics)
    return res, data, c["outputs"]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_bit_identical_to_h100_with_tensorcore_numerics(name):
    res, data, outs = _run(name, "nvidia-tensorcore")
    for i in outs:
        want = data[f"gpu{i}"]
        got = np.frombuffer(res.raw(i), want.dtype)[:want.size].reshape(want.shape)
        assert np.array_equal(_bits(got), _bits(want)), f"{name} buf{i}: {int((got != want).sum())} differ"


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if n not in FLOAT_GEMMS])
def test_integer_and_layout_outputs_bit_identical_with_ieee_numerics(name):
    res, data, outs = _run(name, "ieee")
    for i in outs:
        want = data[f"gpu{i}"]
        assert np.array_equal(np.frombuffer(res.raw(i), want.dtype)[:want.size], want.reshape(-1))


def test_ieee_rule_differs_from_the_tensor_cores():
    """The IEEE rule is close (a few f32 ulp) but not bit-identical: the emulation is needed for that."""
    res, data, outs = _run("sample_nv_gemm", "ieee")
    want = data["gpu2"]
    got = np.frombuffer(res.raw(2), np.float32).reshape(want.shape)
    assert (got != want).sum() > 100
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def tensorcore_muladd(A, B, C, rdt):
    from spvcoop.numerics.model import NVIDIA_TENSORCORE, muladd
    return muladd(NVIDIA_TENSORCORE, A, B, C, rdt, "f16", "f16")


def test_tensorcore_rule_on_zeros_and_tiny_values():
    A = np.zeros((1, 16, 16), np.float16)
    B = np.ones((1, 16, 16), np.float16)
    C = np.zeros((1, 16, 16), np.float32)
    assert not tensorcore_muladd(A, B, C, np.dtype(np.float32)).any()
    A[0, 0, 0] = B[0, 0, 0] = np.float16(2.0 ** -24)  # smallest subnormal: the product 2^-48 is kept
    D = tensorcore_muladd(A, B, C, np.dtype(np.float32))
    assert D[0, 0, 0] == np.float32(2.0 ** -48) and D[0, 0, 1] == np.float32(2.0 ** -24)
    # 1 + 2^-30: the small term sits 30 bits below the alignment exponent and is truncated away
    A[0, 0, 0], B[0, 0, 0], A[0, 0, 1], B[0, 1, 0] = 1, 1, np.float16(2.0 ** -15), np.float16(2.0 ** -15)
    assert tensorcore_muladd(A, B, C, np.dtype(np.float32))[0, 0, 0] == 1.0

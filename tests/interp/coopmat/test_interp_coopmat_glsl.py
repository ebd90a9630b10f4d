"""Cooperative-matrix GLSL shaders (tests/glsl/coopmat, their header comments say what they compute) run by the
interpreter and compared with numpy references computed here, under several layout models."""
from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from spvcoop.core.reference_tools import find_tool
from conftest import TESTS

pytestmark = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")

HERE = TESTS
GLSL = HERE / "glsl" / "coopmat"
H100 = json.loads((HERE / "data" / "h100-vulkan" / "layouts.json").read_text())
# models that define the 16x16 / 16x8 f16, f32 and 8-bit types these shaders use at subgroup size 32
MODELS = ["nvidia", "striped", "shuffled"]


@functools.cache
def module(name: str):
    from spvcoop.interp import compile_glsl
    return compile_glsl(str(GLSL / f"{name}.comp"))


def run(name, dispatch, buffers, layout="nvidia", **kw):
    from spvcoop.interp import run as interp_run
    return interp_run(module(name), dispatch=dispatch, buffers=buffers, layout=layout, **kw)


def f16(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float16)


def ref_f16_gemm(A, B, acc_dtype, tk, C=None):
    """A K-loop of MulAdds with the documented rule: products/sums in f32, one rounding per MulAdd."""
    M, K = A.shape
    acc = np.zeros((M, B.shape[1]), acc_dtype) if C is None else C.astype(acc_dtype)
    for k in range(0, K, tk):
        acc = (A[:, k:k + tk].astype(np.float32) @ B[k:k + tk].astype(np.float32) + acc.astype(np.float32)) \
            .astype(acc_dtype)
    return acc


# ---- layout dumps: the interpreter under --layout nvidia reproduces the H100 measurements ----------------
def _check_dump(out, lens, sections):
    for sec, (key, value_of) in enumerate(sections):
        e = H100[key]
        assert lens[sec] == e["length"][0], key
        for t in range(32):
            got = out[sec * 1024 + t * 32: sec * 1024 + t * 32 + e["length"][t]]
            want = [value_of(r, c) for r, c in e["map"][t]]
            assert got.tolist() == want, (key, t)
        # slots past length() untouched
        assert (out[sec * 1024 + e["length"][0]: sec * 1024 + 32] == -1).all()


def test_nv_layout_dump_matches_h100():
    res = run("nv_layout_dump", (1, 1, 1), {0: np.arange(256).astype(np.float16), 1: np.arange(128, dtype=np.float32),
                                            2: np.arange(256, dtype=np.int32), 3: np.full(3 * 1024, -1, np.float32),
                                            4: np.zeros(3, np.uint32)})
    _check_dump(res[3], res[4], [("nv_f16_16x16", lambda r, c: r * 16 + c), ("nv_f32_16x8", lambda r, c: r * 8 + c),
                                 ("nv_s32_16x16", lambda r, c: r * 16 + c)])


def test_khr_layout_dump_matches_h100():
    res = run("khr_layout_dump", (1, 1, 1), {0: np.arange(256).astype(np.float16), 1: np.arange(256, dtype=np.float32),
                                             2: (np.arange(512) % 256).astype(np.uint8),
                                             3: np.full(4 * 1024, -1, np.float32), 4: np.zeros(4, np.uint32)})
    _check_dump(res[3], res[4], [("khr_f16_16x16_A", lambda r, c: r * 16 + c),
                                 ("khr_f16_16x8_B", lambda r, c: c * 16 + r),
                                 ("khr_f32_16x16_C", lambda r, c: r * 16 + c),
                                 ("khr_u8_16x32_A", lambda r, c: (r * 32 + c) % 256)])


def test_layout_dump_differs_under_other_models():
    """The dump is not portable: under `striped` it shows a different view (the check can fail)."""
    res = run("nv_layout_dump", (1, 1, 1), {0: np.arange(256).astype(np.float16), 1: np.arange(128, dtype=np.float32),
                                            2: np.arange(256, dtype=np.int32), 3: np.full(3 * 1024, -1, np.float32),
                                            4: np.zeros(3, np.uint32)}, layout="striped")
    # striped: element i of invocation p is linear index p + 32 i
    assert res[3][32 * 1 + 1] == 1 + 32 * 1
    with pytest.raises(AssertionError):
        _check_dump(res[3], res[4], [("nv_f16_16x16", lambda r, c: r * 16 + c)])


# ---- GEMMs ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", MODELS)
def test_nv_gemm_f16_f32(layout):
    rng = np.random.default_rng(1)
    A, B = f16(rng, 64, 64), f16(rng, 64, 64)
    res = run("nv_gemm_f16_f32", (4, 4, 1), {0: A, 1: B, 2: np.zeros(4096, np.float32)}, layout)
    np.testing.assert_allclose(res[2].reshape(64, 64), ref_f16_gemm(A, B, np.float32, 16), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layout", MODELS)
def test_khr_gemm_f16_f32_four_subgroups(layout):
    rng = np.random.default_rng(2)
    A, B, C0 = f16(rng, 128, 128), f16(rng, 128, 128), rng.standard_normal((128, 128)).astype(np.float32)
    res = run("khr_gemm_f16_f32", (4, 4, 1), {0: A, 1: B, 2: C0, 3: np.zeros(128 * 128, np.float32)}, layout)
    np.testing.assert_allclose(res[3].reshape(128, 128), ref_f16_gemm(A, B, np.float32, 16, C0), rtol=1e-5, atol=1e-4)


def test_nv_gemm_f16_f16():
    rng = np.random.default_rng(3)
    A, B = f16(rng, 32, 64, scale=0.5), f16(rng, 64, 32, scale=0.5)
    res = run("nv_gemm_f16_f16_16x8x16", (4, 2, 1), {0: A, 1: B, 2: np.zeros(1024, np.float16)})
    want = ref_f16_gemm(A, B, np.float16, 16)
    np.testing.assert_allclose(res[2].reshape(32, 32).astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_khr_gemm_f16_f16():
    rng = np.random.default_rng(4)
    A, B = f16(rng, 32, 32, scale=0.5), f16(rng, 32, 16, scale=0.5)
    res = run("khr_gemm_f16_f16_16x8x8", (2, 2, 1), {0: A, 1: B, 2: np.zeros(512, np.float16)}, "striped")
    want = ref_f16_gemm(A, B, np.float16, 8)
    np.testing.assert_allclose(res[2].reshape(32, 16).astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("layout", MODELS)
def test_nv_gemm_s8_s32_exact(layout):
    rng = np.random.default_rng(5)
    A = rng.integers(-128, 128, (32, 64), dtype=np.int8)
    B = rng.integers(-128, 128, (64, 32), dtype=np.int8)
    res = run("nv_gemm_s8_s32", (2, 2, 1), {0: A, 1: B, 2: np.zeros(1024, np.int32)}, layout)
    assert np.array_equal(res[2].reshape(32, 32), A.astype(np.int64) @ B.astype(np.int64))


def test_khr_gemm_s8_s32_colmajor_b():
    rng = np.random.default_rng(6)
    A = rng.integers(-128, 128, (48, 128), dtype=np.int8)
    B = rng.integers(-128, 128, (128, 32), dtype=np.int8)
    res = run("khr_gemm_s8_s32", (2, 3, 1), {0: A, 1: np.ascontiguousarray(B.T), 2: np.zeros(48 * 32, np.int32)})
    assert np.array_equal(res[2].reshape(48, 32), A.astype(np.int64) @ B.astype(np.int64))


def test_nv_gemm_u8_u32_wraps():
    rng = np.random.default_rng(7)
    A = rng.integers(0, 256, (16, 96), dtype=np.uint8)
    B = rng.integers(0, 256, (96, 24), dtype=np.uint8)
    C = rng.integers(2**32 - 3_000_000, 2**32, (16, 24), dtype=np.uint64).astype(np.uint32)
    res = run("nv_gemm_u8_u32_16x8x32", (3, 1, 1), {0: A, 1: B, 2: C.copy()})
    want = (A.astype(np.uint64) @ B.astype(np.uint64) + C) % 2**32
    assert (A.astype(np.uint64) @ B.astype(np.uint64) + C).max() >= 2**32  # the test really wraps
    assert np.array_equal(res[2].reshape(16, 24), want.astype(np.uint32))


def test_khr_gemm_u8_u32_wraps():
    rng = np.random.default_rng(8)
    A = rng.integers(0, 256, (32, 64), dtype=np.uint8)
    B = rng.integers(0, 256, (64, 16), dtype=np.uint8)
    C = rng.integers(2**32 - 2_000_000, 2**32, (32, 16), dtype=np.uint64).astype(np.uint32)
    res = run("khr_gemm_u8_u32_16x8x32", (2, 2, 1), {0: A, 1: B, 2: C, 3: np.zeros(512, np.uint32)}, "shuffled")
    want = (A.astype(np.uint64) @ B.astype(np.uint64) + C) % 2**32
    assert np.array_equal(res[3].reshape(32, 16), want.astype(np.uint32))


@pytest.mark.parametrize("name", ["nv_shared_staged_gemm", "khr_shared_staged_gemm"])
@pytest.mark.parametrize("layout", ["nvidia", "shuffled"])
def test_shared_staged_gemm_uvec4(name, layout):
    rng = np.random.default_rng(9)
    A, B = f16(rng, 64, 64), f16(rng, 64, 64)
    Bin = B if name.startswith("nv") else np.ascontiguousarray(B.T)
    res = run(name, (2, 2, 1), {0: A.view(np.uint32).reshape(-1, 4), 1: Bin.view(np.uint32).reshape(-1, 4),
                                2: np.zeros(4096, np.float32)}, layout)
    np.testing.assert_allclose(res[2].reshape(64, 64), ref_f16_gemm(A, B, np.float32, 16), rtol=1e-5, atol=1e-5)


def test_nv_colmajor_odd_strides_offsets():
    rng = np.random.default_rng(10)
    a, b = f16(rng, 308), f16(rng, 334)
    d0 = rng.standard_normal(276).astype(np.float32)
    res = run("nv_colmajor_strides", (1, 1, 1), {0: a, 1: b, 2: d0.copy(), 3: {"strideB": 21, "strideD": 17}})
    r, k = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    A = a[7 + k * 19 + r]
    B = b[3 + r * 21 + k]  # B(k, n): here r is k, k is n
    D = A.astype(np.float32) @ B.astype(np.float32)
    want = d0.copy()
    want[5 + k * 17 + r] = D[r, k]
    np.testing.assert_allclose(res[2], want, rtol=1e-5, atol=1e-5)


def test_khr_colmajor_odd_strides_offsets_headers():
    rng = np.random.default_rng(11)
    a, b, c = f16(rng, 272), f16(rng, 252), rng.standard_normal(144).astype(np.float32)
    d0 = rng.standard_normal(182).astype(np.float32)
    res = run("khr_colmajor_strides", (1, 1, 1), {0: {"hdrA": [1, 2, 3, 4], "a": a.tolist()}, 1: b, 2: c,
                                                  3: {"hdrD": 7, "d": d0.tolist()}})
    A = np.array([[a[1 + k * 17 + r] for k in range(16)] for r in range(16)], np.float32)
    B = np.array([[b[5 + n * 33 + k] for n in range(8)] for k in range(16)], np.float32)
    C = np.array([[c[2 + n * 18 + r] for n in range(8)] for r in range(16)], np.float32)
    want = d0.copy()
    D = A @ B + C
    for r in range(16):
        for n in range(8):
            want[9 + r * 11 + n] = D[r, n]
    got = res.values(3)
    np.testing.assert_allclose(np.array(got["d"], np.float32), want, rtol=1e-5, atol=1e-5)
    assert got["hdrD"] == 7


@pytest.mark.parametrize("layout", MODELS)
def test_nv_buffer_reference(layout):
    rng = np.random.default_rng(12)
    W = 3
    A, B, C = f16(rng, W, 16, 16), f16(rng, 16, 8), f16(rng, W, 16, 8)
    res = run("nv_buffer_reference", (W, 1, 1),
              {"bufA": A, "bufB": B, "bufC": C, "bufD": np.zeros((W, 16, 8), np.float16)},
              layout, push_constants={"a": "&bufA", "b": "&bufB", "c": "&bufC", "d": "&bufD"})
    want = np.stack([ref_f16_gemm(A[w], B, np.float16, 16, C[w]) for w in range(W)])
    np.testing.assert_allclose(res["bufD"].astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_khr_buffer_reference():
    rng = np.random.default_rng(13)
    A, B = f16(rng, 32, 32), f16(rng, 32, 32)
    res = run("khr_buffer_reference", (2, 2, 1), {"bufA": A, "bufB": B, "bufC": np.zeros((32, 32), np.float32),
                                                  0: {"a": "&bufA", "b": "&bufB", "c": "&bufC", "M": 32, "N": 32,
                                                      "K": 32}})
    np.testing.assert_allclose(res["bufC"], ref_f16_gemm(A, B, np.float32, 16), rtol=1e-5, atol=1e-5)

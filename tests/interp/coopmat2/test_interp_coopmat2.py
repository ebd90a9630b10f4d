"""SPV_NV_cooperative_matrix2 + SPV_NV_tensor_addressing in the interpreter: every op against numpy or the
extension text's pseudo-code transcribed in tests/coopmat2_reference.py. Modules: tests/data/coopmat2/*.spvasm
(hand-written: glslang 13.1 cannot compile GL_NV_cooperative_matrix2), each validated by spirv-val here."""
from __future__ import annotations

import numpy as np
import pytest

import spvcoop
from conftest import DATA, run_tool
import coopmat2_reference as ref

KERNELS = DATA / "coopmat2"
f32 = np.float32


@pytest.mark.parametrize("name", ["reduce", "reduce_wg", "perelem", "loadtensor", "wg_gemm", "tensor2",
                                  "decode"])
def test_modules_are_valid(name, tmp_path):
    spv = tmp_path / "m.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(KERNELS / f"{name}.spvasm"), "-o",
                    str(spv)).returncode == 0
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()


# ---- Reduce ---------------------------------------------------------------------------------------------
def _reduce_run(x32, x16):
    bufs = {0: x32, 1: np.zeros(1024, f32), 2: np.zeros(1024, f32), 3: np.zeros(256, f32), 4: np.zeros(256, f32),
            5: np.zeros(1024, f32), 6: x16, 7: np.zeros(1024, np.float16), 8: np.zeros(1024, np.float16),
            9: np.zeros(256, np.float16), 10: np.zeros(256, f32), 11: np.zeros(256, f32)}
    return spvcoop.run(str(KERNELS / "reduce.spvasm"), dispatch=(1, 1, 1), buffers=bufs)


def _add(dtype):
    return lambda a, b: dtype(dtype(a) + dtype(b))


def test_reduce_row_column_2x2_all_and_max():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(1024) * np.exp2(rng.integers(-12, 13, 1024))).astype(f32)
    h = (rng.standard_normal(1024) * np.exp2(rng.integers(-6, 7, 1024))).astype(np.float16)
    r = _reduce_run(x, h)
    X, H = x.reshape(32, 32), h.reshape(32, 32)
    add32, add16 = _add(f32), _add(np.float16)
    rows = np.array([ref.h100_reduce(X[i], add32, ref.ROW_BITS) for i in range(32)], f32)
    cols = np.array([ref.h100_reduce(X[:, j], add32, ref.COLUMN_BITS) for j in range(32)], f32)
    assert (r[1].reshape(32, 32) == rows[:, None]).all()
    assert (r[2].reshape(32, 32) == cols[None, :]).all()
    quad = np.array([[add32(add32(X[2 * i, 2 * j], X[2 * i, 2 * j + 1]),
                            add32(X[2 * i + 1, 2 * j], X[2 * i + 1, 2 * j + 1]))
                      for j in range(16)] for i in range(16)], f32)
    assert (r[3].reshape(16, 16) == quad).all()
    # Row|Column: 8x8 blocks added, then a tree (measured, tests/numerics/test_gpu_ext_numerics.py); the 16x16 result
    # holds the total everywhere
    assert (r[4].reshape(16, 16) == np.array(ref.h100_reduce_all(X, add32), f32)[:16, :16]).all()
    assert (r[5].reshape(32, 32) == X.max(axis=1, keepdims=True)).all()  # max is exact in any order
    Y = X[:16, :16]
    row_sums = np.array([ref.h100_reduce(Y[i], add32, ref.ROW_BITS) for i in range(16)], f32)
    col_sums = np.array([ref.h100_reduce(Y[:, j], add32, ref.COLUMN_BITS) for j in range(16)], f32)
    assert (r[10].reshape(16, 16) == row_sums[:, None]).all()
    assert (r[11].reshape(16, 16) == col_sums[None, :]).all()
    hrows = np.array([ref.h100_reduce(H[i], add16, ref.ROW_BITS) for i in range(32)], np.float16)
    assert (r[7].reshape(32, 32) == hrows[:, None]).all()
    hcols = np.array([ref.h100_reduce(H[:, j], add16, ref.COLUMN_BITS) for j in range(32)], np.float16)
    assert (r[8].reshape(32, 32) == hcols[None, :]).all()
    # the f16 sums round after every step: against the exact sums they are close, not equal
    assert np.allclose(r[7].reshape(32, 32)[:, 0], H.astype(np.float64).sum(axis=1), rtol=0.02, atol=0.5)


def test_reduce_of_integers_is_exact_in_any_order():
    x = np.arange(1024, dtype=f32) - 300  # sums of small integers are exact in f32: the order cannot show
    r = _reduce_run(x, np.zeros(1024, np.float16))
    X = x.reshape(32, 32).astype(np.float64)
    assert (r[1].reshape(32, 32) == X.sum(axis=1, keepdims=True)).all()
    assert (r[2].reshape(32, 32) == X.sum(axis=0, keepdims=True)).all()
    assert (r[3].reshape(16, 16) == X.reshape(16, 2, 16, 2).sum(axis=(1, 3))).all()
    assert (r[4] == X.sum()).all()


def test_workgroup_scope_reduce():
    rng = np.random.default_rng(9)
    x = (rng.standard_normal(4096) * np.exp2(rng.integers(-12, 13, 4096))).astype(f32)
    r = spvcoop.run(str(KERNELS / "reduce_wg.spvasm"), dispatch=(1, 1, 1),
                    buffers={0: x, 1: np.zeros(4096, f32), 2: np.zeros(4096, f32), 3: np.zeros(1024, f32),
                             4: np.zeros(1024, f32)})
    X, add32 = x.reshape(64, 64), _add(f32)
    # 4 subgroups: each row (column) in two halves, one per pair of subgroups (measured on the H100)
    rows = np.array([ref.h100_reduce(X[i], add32, ref.ROW_BITS, parts=2) for i in range(64)], f32)
    cols = np.array([ref.h100_reduce(X[:, j], add32, ref.COLUMN_BITS, parts=2) for j in range(64)], f32)
    assert (r[1].reshape(64, 64) == rows[:, None]).all()
    assert (r[2].reshape(64, 64) == cols[None, :]).all()
    quad = np.array([[add32(add32(X[2 * i, 2 * j], X[2 * i, 2 * j + 1]),
                            add32(X[2 * i + 1, 2 * j], X[2 * i + 1, 2 * j + 1]))
                      for j in range(32)] for i in range(32)], f32)
    assert (r[3].reshape(32, 32) == quad).all()
    # Row|Column of the 64x64 into a 32x32 result: the 2x2 quarters of the 4 subgroups (measured, as above)
    assert (r[4].reshape(32, 32) == np.array(ref.h100_reduce_all(X, add32, (2, 2)), f32)[:32, :32]).all()


# ---- PerElementOp, Transpose, ConvertNV, Use-changing FConvert -------------------------------------------------
def test_per_element_transpose_and_use_conversions():
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal(256).astype(f32), rng.standard_normal(256).astype(f32)
    s = np.array([0.7071067811865476, 0, 0, 0], f32)
    h = rng.standard_normal(256).astype(np.float16)
    bufs = {0: x, 1: y, 2: s, 3: np.zeros(256, f32), 4: h, 5: np.zeros(256, np.float16), 6: np.zeros(256, np.float16),
            7: np.zeros(256, np.float16)}
    r = spvcoop.run(str(KERNELS / "perelem.spvasm"), dispatch=(1, 1, 1), buffers=bufs)
    rc = np.arange(256).astype(f32)  # row * 16 + col, the row and column each call is given
    assert (r[3] == ((x * s[0]).astype(f32) + y).astype(f32) - rc).all()
    assert (r[5].reshape(16, 16) == h.reshape(16, 16).T).all()
    assert (r[6] == h).all()
    assert (r[7] == x.astype(np.float16)).all()


# ---- tensor layouts and views ----------------------------------------------------------------------------
MODES = ["Undefined", "Constant", "ClampToEdge", "Repeat", "RepeatMirrored"]
CLAMP_F32 = 0xC0F00000  # -7.5


def _loadtensor_run(T, X, H, pre=-9.0):
    bufs = {0: T, **{i: np.zeros(512, f32) for i in range(1, 6)}, 6: np.zeros(256, f32), 7: X,
            8: np.full(143, pre, f32), 9: np.full(143, pre, f32), 10: H, 11: np.zeros(256, np.float16)}
    return spvcoop.run(str(KERNELS / "loadtensor.spvasm"), dispatch=(1, 1, 1), buffers=bufs)


@pytest.fixture(scope="module")
def tensor_case():
    T = (np.arange(143) * 1.25 + 1).astype(f32)
    X = (np.arange(256) + 500).astype(f32)
    H = (np.arange(143) * 0.5 - 20).astype(np.float16)
    return T, X, H, _loadtensor_run(T, X, H)


@pytest.mark.parametrize("k,mode", list(enumerate(MODES)))
def test_load_tensor_clamp_modes(tensor_case, k, mode):
    T, X, H, r = tensor_case
    t = ref.layout([13, 11], mode, clamp_value=CLAMP_F32)
    neg = np.full((16, 16), -1, f32)
    if mode == "Undefined":
        slices = [t, ref.sliced(t, 1, 8, 2, 8)]
    else:
        slices = [ref.sliced(t, -3, 16, -2, 16), ref.sliced(t, -20, 16, 5, 16)]
    for i, s in enumerate(slices):
        want = ref.load(T, s, None, 16, 16, neg)
        assert (r[k + 1][256 * i:256 * (i + 1)].reshape(16, 16) == want).all(), (mode, i)


def test_load_tensor_through_a_permuting_clipped_view(tensor_case):
    T, X, H, r = tensor_case
    t = ref.sliced(ref.layout([13, 11], "Constant", clamp_value=CLAMP_F32), -3, 16, -2, 16)
    v = ref.view(perm=[1, 0], clip=(1, 10, 2, 12))
    want = ref.load(T, t, v, 16, 16, np.full((16, 16), -1, f32))
    assert (r[6].reshape(16, 16) == want).all()
    assert (r[6].reshape(16, 16)[0] == -1).all()  # row 0 is outside the clip region: Object's elements stay


def test_store_tensor_drops_clamped_and_clipped_elements(tensor_case):
    T, X, H, r = tensor_case
    M = X.reshape(16, 16)
    t = ref.sliced(ref.layout([13, 11], "Constant", clamp_value=CLAMP_F32), -3, 16, -2, 16)
    assert (r[8] == ref.store(np.full(143, -9, f32), t, None, M)).all()
    t3 = ref.layout([13, 11], "Repeat", clamp_value=CLAMP_F32)  # a store never wraps: only Undefined differs
    v = ref.view(perm=[1, 0], clip=(2, 5, 3, 7))
    assert (r[9] == ref.store(np.full(143, -9, f32), t3, v, M)).all()


def test_clamp_value_gives_its_low_bits_to_16_bit_components(tensor_case):
    T, X, H, r = tensor_case
    t = ref.sliced(ref.layout([13, 11], "Constant", clamp_value=0x12345678), -3, 16, -2, 16)
    want = ref.load(H, t, None, 16, 16, np.full((16, 16), -1, np.float16))
    assert (r[11].reshape(16, 16) == want).all()
    assert r[11][0].view(np.uint16) == 0x5678


# ---- Workgroup scope ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mnk,dispatch", [((50, 40, 70), (2, 2, 1)), ((32, 64, 32), (2, 1, 1)), ((7, 9, 5), (1, 1, 1))])
def test_workgroup_scope_gemm_with_clamped_edges(mnk, dispatch):
    M, N, K = mnk
    rng = np.random.default_rng(M * N * K)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    r = spvcoop.run(str(KERNELS / "wg_gemm.spvasm"), dispatch=dispatch, spec_constants={0: M, 1: N, 2: K},
                    buffers={0: A.ravel(), 1: B.ravel(), 2: np.full(M * N, -1, f32)})
    want = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(r[2].reshape(M, N), want, rtol=1e-5, atol=1e-5)


def test_view_with_dimensions_mirror_of_size_one_and_block_size():
    T = (np.arange(512) * 0.25).astype(f32)
    r = spvcoop.run(str(KERNELS / "tensor2.spvasm"), dispatch=(1, 1, 1),
                    buffers={0: T, 1: np.zeros(256, f32), 2: np.zeros(256, f32), 3: np.zeros(256, f32)})
    neg = np.full((16, 16), -1, f32)
    # the GLSL extension's space_to_depth example: an 8 x 8 x 4 HWC tensor viewed as 4 x 2 x 4 x 2 x 4, permuted
    v = ref.view(dims=[4, 2, 4, 2, 4], perm=[0, 2, 1, 3, 4])
    assert (r[1].reshape(16, 16) == ref.load(T, ref.layout([8, 8, 4]), v, 16, 16, neg)).all()
    H, W, C = 8, 8, 4
    s2d = T[:H * W * C].reshape(H // 2, 2, W // 2, 2, C).transpose(0, 2, 1, 3, 4).reshape(16, 16)
    assert (r[1].reshape(16, 16) == s2d).all()  # and it is what numpy calls that transform
    # RepeatMirrored over a dimension of one: the extension's c smod (2D-2) divides by zero; the H100 reads 0 for
    # every element (tests/data/h100-vulkan/coopmat2/tensor2), and so does the interpreter
    assert (r[2] == 0).all()
    # a block size without a decode function: strides count blocks, the element at blockCoord . stride
    assert (r[3].reshape(16, 16) == ref.load(T, ref.layout([16, 32], block=[1, 2]), None, 16, 16, neg)).all()


def test_decode_function_gets_a_pointer_to_the_block_and_both_coordinates():
    Hs = (np.arange(512) % 97 * 0.5).astype(np.float16)
    r = spvcoop.run(str(KERNELS / "decode.spvasm"), dispatch=(1, 1, 1), buffers={0: Hs, 1: np.zeros(256, np.float16)})
    blocks = Hs.reshape(16, 16, 2)  # 16 rows of 16 blocks of two float16_t
    want = np.array([[blocks[i, (j + 6) // 2, (j + 6) % 2] + np.float16(i) for j in range(16)] for i in range(16)],
                    np.float16)
    assert (r[1].reshape(16, 16) == want).all()


def test_workgroup_scope_sample_under_an_explicit_layout_model():
    """No model describes Workgroup-scope matrices per invocation; a shader that never observes that view runs under
    any --layout (it failed under 'nvidia' before, found by `run --device vulkan --compare --layout nvidia`)."""
    d = DATA.parent.parent / "samples" / "coopmat2" / "tensor_gemm"
    want = np.load(d / "expected_c.npy")
    for layout in ("nvidia", "striped"):
        r = spvcoop.run(str(d / "gemm.spvasm"), dispatch=(2, 2, 1), layout=layout, spec_constants={0: 50, 1: 40, 2: 70},
                        buffers={0: np.load(d / "in_a.npy"), 1: np.load(d / "in_b.npy"), 2: np.zeros(2000, f32)})
        np.testing.assert_allclose(r[2].reshape(want.shape), want, rtol=1e-5, atol=1e-5)

"""The int32 fast path of the MulAdd numerics (spvcoop/numerics/intsum.py) against the general path
(muladd(..., fast=False)), over random models of the family and every distribution the fit uses, and both
against an exact reference (Python fractions) of nvidia-tensorcore. The fast path's loops run compiled
(intsum.KERNEL, spvcoop/numerics/_intsum_kernel.c) and in numpy: the `loops` fixture runs a test with each."""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from spvcoop.numerics import fewtiles, intsum
from spvcoop.numerics import model as model_mod
from spvcoop.numerics.model import NVIDIA_TENSORCORE, MulAddModel, muladd
from spvcoop.numerics.tiles import FLOAT_DISTRIBUTIONS, make_tiles

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow


def _counting(monkeypatch, name: str) -> list:
    """intsum.<name> wrapped: the list gets, per call, whether it computed a result (not None)."""
    taken: list = []
    real = getattr(intsum, name)

    def counting(*args):
        r = real(*args)
        taken.append(r is not None)
        return r
    monkeypatch.setattr(intsum, name, counting)
    return taken


@pytest.fixture(params=["compiled", "numpy"])
def loops(request, monkeypatch):
    """The fast path with its compiled loops, then with its numpy loops (intsum.KERNEL None)."""
    if request.param == "numpy":
        monkeypatch.setattr(intsum, "KERNEL", None)
    elif intsum.KERNEL is None:
        pytest.skip("the compiled kernel is not built here (test_the_kernel_is_built says whether it should be)")
    return request.param


@pytest.fixture
def fast_chunks(monkeypatch):
    """Counts the chunks the fast path computed (not handed back to the general path)."""
    return _counting(monkeypatch, "chunk")


def _random_model(rng) -> MulAddModel:
    """A model of the family that the fast path takes (align max, truncation, int32-sized sums)."""
    block = int(rng.choice([1, 2, 4, 8, 16, 32]))
    bits = int(rng.integers(1, 31 - 2 - (block - 1).bit_length() + 1))
    pick = lambda *opts: opts[int(rng.integers(len(opts)))]   # noqa: E731
    return MulAddModel(bits=bits, block=block, exact_products=pick(True, False),
                       subnormal_inputs=pick("stored", "true"), final=pick("rtz", "rne"),
                       f16_result=pick("direct", "via-f32"), overflow=pick("saturate", "inf"),
                       zero_sign=pick("ieee", "positive"), nan_f32=pick(None, 0x7FFFFFFF, 0x7FC00001),
                       nan_f16=pick(None, 0x7FFF, 0x7E01))


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    diff = np.flatnonzero(a.view(f"u{a.itemsize}") != b.view(f"u{b.itemsize}"))
    assert diff.size == 0, f"{diff.size} results differ, first at {np.unravel_index(diff[0], a.shape)}: " \
                           f"{a.flat[diff[0]]!r} vs {b.flat[diff[0]]!r}"


SHAPES = [(16, 16, 16), (5, 7, 20), (16, 8, 33), (3, 1, 17), (1, 9, 2)]   # M, N, K: odd sizes, K past a block


@pytest.mark.parametrize("dist", FLOAT_DISTRIBUTIONS)
@pytest.mark.parametrize("seed", range(4))
def test_fast_path_matches_general_path(dist, seed, fast_chunks, loops):
    rng = np.random.default_rng(1000 + seed)
    models = [NVIDIA_TENSORCORE] + [_random_model(rng) for _ in range(3)]
    for model in models:
        for M, N, K in SHAPES:
            A, B, C = make_tiles("f16", "f16", "f32", M, N, K, dist, 300, int(rng.integers(1 << 30)))  # 3 chunks
            for rdt in (np.float32, np.float16):
                with np.errstate(over="ignore"):
                    c = C if rdt == np.float32 else C.astype(np.float16)
                _same(muladd(model, A, B, c, rdt), muladd(model, A, B, c, rdt, fast=False))
    # it is the fast path that was compared (overflow: inputs and f16 accumulators beyond f16 are inf, and
    # those chunks go to the general path)
    if dist == "overflow":
        assert any(fast_chunks)
    elif dist != "infnan":
        assert sum(fast_chunks) > len(fast_chunks) // 2


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("dist", ["normal", "wide", "subnormal", "overflow"])
def test_fast_path_matches_general_path_fp8(fmt, dist, fast_chunks, loops):
    rng = np.random.default_rng(7)
    dt = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}[fmt]
    for model in (NVIDIA_TENSORCORE, _random_model(rng), _random_model(rng)):
        A, B, C = make_tiles("f16", "f16", "f32", 16, 16, 32, dist, 200, int(rng.integers(1 << 30)))
        big = float(ml_dtypes.finfo(dt).max)   # in range (e4m3 has no infinity: beyond it is NaN)
        A8, B8 = (np.clip(x.astype(np.float32), -big, big).astype(dt).astype(np.float32) for x in (A, B))
        for rdt in (np.float32, np.float16):
            _same(muladd(model, A8, B8, C, rdt, fmt, fmt), muladd(model, A8, B8, C, rdt, fmt, fmt, fast=False))
    assert any(fast_chunks)


def test_models_outside_the_fast_path_are_unchanged_by_it():
    """bf16, rounding drops, no alignment and too many bits for int32 all stay on the general path."""
    rng = np.random.default_rng(3)
    A, B, C = make_tiles("f16", "f16", "f32", 16, 16, 16, "wide", 20, 3)
    assert not intsum.applies(NVIDIA_TENSORCORE, "bf16", "f16")
    for model in (NVIDIA_TENSORCORE.with_(drop="round"), NVIDIA_TENSORCORE.with_(align="none"),
                  NVIDIA_TENSORCORE.with_(bits=28)):
        assert not intsum.applies(model, "f16", "f16")
        _same(muladd(model, A, B, C, np.float32), muladd(model, A, B, C, np.float32, fast=False))
    Ab, Bb, Cb = make_tiles("bf16", "bf16", "f32", 16, 16, 16, "normal", 20, int(rng.integers(100)))
    _same(muladd(NVIDIA_TENSORCORE, Ab, Bb, Cb, np.float32, "bf16", "bf16"),
          muladd(NVIDIA_TENSORCORE, Ab, Bb, Cb, np.float32, "bf16", "bf16", fast=False))


def test_threads_give_the_same_results(monkeypatch, loops):
    A, B, C = make_tiles("f16", "f16", "f32", 16, 16, 16, "normal", 1000, 11)
    one = muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
    monkeypatch.setattr(model_mod, "_POOL", None)
    monkeypatch.setattr(model_mod, "_workers", lambda: 3)
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), one)
    model_mod._POOL.shutdown()


def test_results_are_not_the_work_arrays():
    """The fast path reuses its arrays from call to call; a result handed out must not change afterwards."""
    A, B, C = make_tiles("f16", "f16", "f32", 16, 16, 16, "normal", 64, 5)
    first = muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
    kept = first.copy()
    muladd(NVIDIA_TENSORCORE, B, A, -C, np.float32)
    _same(first, kept)


def _dyadic_tiles(rng, n, M, N, K, shift_a=0, shift_b=0, c_extra=None):
    """Small integers (zeros among them) times powers of 2: tiles whose products all lie on the kept grid."""
    A = (rng.integers(-40, 41, (n, M, K)) * 2.0 ** shift_a).astype(np.float16)
    B = (rng.integers(-40, 41, (n, K, N)) * 2.0 ** shift_b).astype(np.float16)
    C = (rng.integers(-5000, 5001, (n, M, N)) * 2.0 ** (shift_a + shift_b)).astype(np.float32)
    if c_extra is not None:
        C[rng.integers(n), 0, 0] = c_extra
    return A, B, C


@pytest.fixture
def shortcuts(monkeypatch):
    """Counts the chunks the exact shortcut (intsum.on_grid) computed. The shortcut is tried on chunks only: the
    tests that use this fixture send their few-tile calls there too, not to numerics/fewtiles.py."""
    monkeypatch.setattr(fewtiles, "MAX_TILES", 0)
    return _counting(monkeypatch, "on_grid")


@pytest.mark.parametrize("seed", range(6))
def test_exact_shortcut_matches_general_path(seed, shortcuts):
    rng = np.random.default_rng(50 + seed)
    for model in (NVIDIA_TENSORCORE, _random_model(rng), _random_model(rng)):
        for M, N, K in [(16, 16, 16), (5, 7, 11), (16, 8, 33)]:
            shifts = [(0, 0), (-6, -9), (3, 5), (-20, 4)]
            for sa, sb in shifts:
                A, B, C = _dyadic_tiles(rng, 200, M, N, K, sa, sb)
                for rdt in (np.float32, np.float16):
                    with np.errstate(over="ignore"):
                        c = C if rdt == np.float32 else C.astype(np.float16)
                    _same(muladd(model, A, B, c, rdt), muladd(model, A, B, c, rdt, fast=False))
    assert any(shortcuts) and not all(shortcuts)   # taken where K <= block and the bits allow, not elsewhere


@pytest.mark.parametrize("extra", [1e-40, 2.0 ** -30, 0.1, np.inf, np.nan, 3.0e38])
def test_exact_shortcut_declines_off_grid_inputs(extra, shortcuts):
    """One value off the grid (or inf/NaN, or one huge accumulator raising the bound) in a chunk of integers."""
    rng = np.random.default_rng(8)
    A, B, C = _dyadic_tiles(rng, 130, 16, 16, 16, c_extra=extra)
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=False))
    assert False in shortcuts                         # the chunk with the extra value
    first = len(shortcuts)
    A2, B2, C2 = _dyadic_tiles(rng, 130, 16, 16, 16)
    A2[129, 3, 3] = np.float16(0.1)                   # a fraction in the last tile: the first tile's test passes
    _same(muladd(NVIDIA_TENSORCORE, A2, B2, C2, np.float32),
          muladd(NVIDIA_TENSORCORE, A2, B2, C2, np.float32, fast=False))
    assert shortcuts[first:] == [True, False]         # chunks of 128 tiles: the second one has the fraction


def test_exact_shortcut_at_the_grid_boundary(shortcuts):
    """Products up to 2^30 put the kept grid at 2^5 (25 bits): inputs on 2^2 and 2^3 take the shortcut; one input
    on 2^1 makes a product with bits below the grid, which the model drops and the shortcut must not keep."""
    rng = np.random.default_rng(12)
    A = (4 * rng.integers(-100, 101, (2, 16, 16))).astype(np.float16)
    B = (8 * rng.integers(-100, 101, (2, 16, 16))).astype(np.float16)
    A[:, :, 0] = 2.0 ** 15
    B[:, 0, :] = 2.0 ** 15
    C = np.zeros((2, 16, 16), np.float32)
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=False))
    A[1, 5, 3], B[1, 3, 7] = 6, 24                   # 6 x 24 = 144: 16 of it lies below 2^5
    exact = (A.astype(np.float64) @ B.astype(np.float64))[1, 5, 7]
    general = muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=False)
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), general)
    assert general[1, 5, 7] < exact                   # the drop did remove something
    assert shortcuts == [True, False]


def test_exact_shortcut_gives_no_negative_zero(shortcuts):
    """-0 x 0 + -0 sums to +0 in the general path (an int32 sum plus C's term); so it must in the shortcut."""
    rng = np.random.default_rng(13)
    A, B, C = _dyadic_tiles(rng, 2, 16, 16, 16)
    A[1], B[1], C[1] = -0.0, 0.0, -0.0
    model = NVIDIA_TENSORCORE.with_(zero_sign="ieee")
    r = muladd(model, A, B, C, np.float32)
    _same(r, muladd(model, A, B, C, np.float32, fast=False))
    assert shortcuts == [True] and not np.signbit(r[1]).any()


def test_exact_shortcut_takes_integer_data_and_not_normal_data(shortcuts):
    rng = np.random.default_rng(9)
    A, B, C = _dyadic_tiles(rng, 128, 16, 16, 16)
    muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
    A, B, C = make_tiles("f16", "f16", "f32", 16, 16, 16, "normal", 128, 9)
    muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
    assert shortcuts == [True, False]


# ---- an exact reference of nvidia-tensorcore --------------------------------------------------------------

def _exponent(x: float, emin: int) -> int:
    return max(math.frexp(x)[1] - 1, emin)


def _f32_toward_zero(v: Fraction) -> np.float32:
    """v rounded toward zero to float32; from 2^128 on infinity; a zero result +0 (zero_sign 'positive')."""
    f = float(v)                       # exact: v is an integer below 2^33 times a power of 2
    if abs(f) >= 2.0 ** 128:
        return np.float32(math.copysign(math.inf, f))
    with np.errstate(over="ignore"):
        x = np.float32(f)
    if abs(float(x)) > abs(f):
        x = np.nextafter(x, np.float32(0))
    return np.float32(0) if x == 0 else x


def _reference(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """The docstring of numerics/model.py, in fractions: per block of 16 k, every nonzero product's exponent the
    sum of its inputs' (stored: at least -14), the accumulator's its own; all of them kept to 25 bits below the
    largest, truncated toward zero, summed exactly, rounded toward zero to f32."""
    G, M, K = A.shape
    N = B.shape[-1]
    D = np.empty((G, M, N), np.float32)
    for g in range(G):
        for m in range(M):
            for n in range(N):
                c = float(C[g, m, n])
                for k0 in range(0, K, 16):
                    terms = [(Fraction(float(A[g, m, k])) * Fraction(float(B[g, k, n])),
                              _exponent(float(A[g, m, k]), -14) + _exponent(float(B[g, k, n]), -14))
                             for k in range(k0, min(K, k0 + 16)) if A[g, m, k] != 0 and B[g, k, n] != 0]
                    if c != 0:
                        terms.append((Fraction(c), _exponent(c, -100000)))
                    if not terms:
                        c = 0.0
                        continue
                    scale = Fraction(2) ** (25 - max(e for _, e in terms))
                    kept = sum(int(p * scale) for p, _ in terms)       # int() truncates a Fraction toward zero
                    c = float(_f32_toward_zero(kept / scale))
                D[g, m, n] = c
    return D


@pytest.mark.parametrize("dist", ["normal", "wide", "cancel", "subnormal", "overflow", "dyadic"])
def test_both_paths_match_an_exact_reference(dist, loops):
    if dist == "dyadic":
        A, B, C = _dyadic_tiles(np.random.default_rng(21), 6, 5, 3, 16, -3, 2)
    else:
        A, B, C = make_tiles("f16", "f16", "f32", 5, 3, 37, dist, 6, 21)
    expected = _reference(A, B, C)
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), expected)
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=False), expected)


@pytest.mark.parametrize("c", [1e-33, -3e-30, 2.0 ** -102, 2.0 ** -103, 1e-40, -2.0 ** -149, 1e-20, 0.0])
def test_all_products_zero_keep_the_accumulator(c, loops):
    """0 x 0 + C = C: the accumulator alone sets the alignment and keeps its 24 bits (it came back scaled by
    2^(127 - shift) below 2^-102 before 2026-11-25)."""
    A = np.zeros((130, 16, 16), np.float16)
    A[1] = 1.0                                        # one tile with products, so chunks differ
    B = np.full((130, 16, 16), 3e4, np.float16)       # zero times large: still zero, whatever B's exponent
    C = np.full((130, 16, 16), c, np.float32)
    expected = np.full_like(C, c)
    expected[1] = _reference(A[1:2], B[1:2], C[1:2])[0]
    for fast in (True, False):
        _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=fast), expected)
        _same(muladd(NVIDIA_TENSORCORE, A, A, C, np.float32, fast=fast), np.where(A[:, :, :1] == 1, 16 + C, C))


def test_the_kernel_is_built():
    """setup.py builds the kernel optionally: where a C compiler is found, a failed build must not pass unseen."""
    import shutil
    import sysconfig
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) here: the numpy loops run")
    assert intsum.KERNEL is not None, f"{cc} is here but spvcoop.numerics._intsum_kernel was not built"


def _kernel():
    if intsum.KERNEL is None:
        pytest.skip("the compiled kernel is not built here")
    return intsum.KERNEL


def test_f16_decode_matches_numpy_on_every_float16():
    """Every float16 bit pattern: the float32 values bit for bit, the exponents and flags as numpy's loops give
    them, for stored and true subnormal exponents."""
    k = _kernel()
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    finite = h[np.isfinite(h)]
    for stored in (True, False):
        x32, e = np.empty(h.shape, np.float32), np.empty(h.shape, np.int8)
        flags = k.f16_decode(h, -14, stored, intsum.ZERO_EXP, x32, e)
        assert flags == 3                                   # an inf or NaN, and a zero
        _same(x32, h.astype(np.float32))
        f32, fe = np.empty(finite.shape, np.float32), np.empty(finite.shape, np.int8)
        assert k.f16_decode(finite, -14, stored, intsum.ZERO_EXP, f32, fe) == 2
        expected, ok, zero = intsum._exponents(finite.astype(np.float32), -14, stored, "test")
        assert ok and zero
        _same(fe, expected)
        assert k.f32_exponents(f32, -14, stored, intsum.ZERO_EXP, fe) == 2
        _same(fe, expected)
        assert k.f16_decode(finite[finite != 0], -14, stored, intsum.ZERO_EXP, f32[:-2], fe[:-2]) == 0


@pytest.mark.parametrize("call", [
    lambda k, f, i: k.block_sum(f(2, 3, 4), f(2, 4, 5), f(2, 3, 5), 2, 3, 4, 5, 0, 4, i(2, 3, 6)),   # out too small
    lambda k, f, i: k.block_sum(f(2, 3, 4), f(2, 4, 5), f(2, 3, 5), 2, 3, 4, 5, 0, 5, i(2, 3, 5)),   # k1 > K
    lambda k, f, i: k.block_sum(f(2, 3, 4), f(2, 4, 5), f(2, 3, 5), 2, 3, 4, 5, 3, 2, i(2, 3, 5)),   # k1 < k0
    lambda k, f, i: k.block_sum(f(2, 3, 4), f(2, 4, 5), f(2, 3, 5), 2, 3, 4, -5, 0, 4, i(2, 3, 5)),  # N < 0
    lambda k, f, i: k.block_emax(np.zeros(24, np.int8), np.zeros(40, np.int8), 2, 3, 4, 5, 0, 0,
                                 np.zeros(30, np.int8)),                                             # empty k range
    lambda k, f, i: k.block_emax(np.zeros(24, np.int8), np.zeros(39, np.int8), 2, 3, 4, 5, 0, 4,
                                 np.zeros(30, np.int8)),                                             # b too small
    lambda k, f, i: k.block_sum(f(1), f(1), f(1), 2 ** 40, 2 ** 20, 2 ** 20, 1, 0, 1, i(1)),   # counts overflow
    lambda k, f, i: k.block_sum(f(1), f(1), f(1), 2 ** 62, 2, 1, 1, 0, 1, i(1)),
    lambda k, f, i: k.f16_decode(np.zeros(3, np.uint8), -14, 1, -64, f(1, 1, 1), np.zeros(1, np.int8)),
    lambda k, f, i: k.f32_exponents(f(1, 1, 2), -14, 1, -64, np.zeros(3, np.int8)),
])
def test_kernel_refuses_buffers_that_do_not_fit(call):
    """The kernel checks every buffer's size against the dimensions it is given, so a caller's mistake is an
    exception, never a read or write outside a buffer."""
    k = _kernel()
    f = lambda *shape: np.zeros(shape, np.float32)   # noqa: E731
    i = lambda *shape: np.zeros(shape, np.int32)     # noqa: E731
    with pytest.raises(ValueError):
        call(k, f, i)


def test_kernel_refuses_read_only_outputs():
    k = _kernel()
    out = np.zeros((1, 1, 1), np.int32)
    out.flags.writeable = False
    with pytest.raises((TypeError, BufferError, ValueError)):
        k.block_sum(np.ones((1, 1, 1), np.float32), np.ones((1, 1, 1), np.float32), np.ones((1, 1, 1), np.float32),
                    1, 1, 1, 1, 0, 1, out)


def test_one_tile_takes_one_shortcut_pass_and_no_broadcast(shortcuts, monkeypatch):
    """A MulAdd of one tile (an interpreter's loop over tiles, one scope instance): operands of the same shape are
    not broadcast, and the exact shortcut tests the tile once (its first-tile pass is the whole chunk); results
    are the general path's, and the same as with C broadcast from (M, N)."""
    rng = np.random.default_rng(21)
    passes: list = []
    multiples = intsum._multiples

    def counting(*a):
        passes.append(1)
        return multiples(*a)
    monkeypatch.setattr(intsum, "_multiples", counting)
    tiles = [_dyadic_tiles(rng, 1, 16, 16, 16, sa, sb) for sa, sb in ((0, 0), (-6, -9), (3, 5))]
    tiles.append(tuple(rng.standard_normal((1, *s)).astype(dt) for s, dt in
                       (((16, 16), np.float16), ((16, 16), np.float16), ((16, 16), np.float32))))
    a, b, c = _dyadic_tiles(rng, 1, 16, 16, 16)
    a[0, 2, 2] = np.inf
    tiles.append((a, b, c))
    for A, B, C in tiles:
        before = len(passes)
        fast = muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
        assert len(passes) - before <= 3   # A's, B's and C's grid test, once
        _same(fast, muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=False))
        _same(fast, muladd(NVIDIA_TENSORCORE, A, B, C[0], np.float32))
    assert shortcuts[:6] == [True] * 6 and False in shortcuts   # the grid tiles, twice each; not the others
    broadcasts: list = []
    real = np.broadcast_shapes
    monkeypatch.setattr(np, "broadcast_shapes", lambda *s: broadcasts.append(s) or real(*s))
    A, B, C = tiles[0]
    muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
    assert not broadcasts
    muladd(NVIDIA_TENSORCORE, A, B, C[0], np.float32)
    assert broadcasts

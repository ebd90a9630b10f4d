"""The few-tile MulAdd path (spvcoop/numerics/fewtiles.py: one to MAX_TILES f16 tiles per call, as a kernel looping
over tiles in one subgroup makes them) against the general path (muladd(..., fast=False)) byte for byte, on seeded
random and adversarial tiles, under nvidia-tensorcore and variations of it; with its compiled block
(intsum.KERNEL.block_fold) and in numpy. Each comparison also checks that the path was taken (fewtiles.taken),
so that a comparison of the general path with itself cannot pass for one."""
from __future__ import annotations

import numpy as np
import pytest

from spvcoop.numerics import fewtiles, intsum
from spvcoop.numerics.model import NVIDIA_TENSORCORE, muladd

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

MODELS = [NVIDIA_TENSORCORE, NVIDIA_TENSORCORE.with_(overflow="saturate"),
          NVIDIA_TENSORCORE.with_(zero_sign="ieee"), NVIDIA_TENSORCORE.with_(f16_result="via-f32"),
          NVIDIA_TENSORCORE.with_(final="rne", nan_f32=None), NVIDIA_TENSORCORE.with_(subnormal_inputs="true"),
          NVIDIA_TENSORCORE.with_(bits=20, block=8), NVIDIA_TENSORCORE.with_(bits=24, block=32)]
SHAPES = [(16, 16, 16), (16, 16, 32), (5, 11, 7), (16, 48, 20), (8, 16, 32)]   # M, K, N
# the kinds whose every call the path must compute (the others may give it an inf or NaN accumulator, or one below
# 2^(bits - 126) where all products are zero, as a later block's C: the general path's)
MUST_TAKE = ("normal", "zeros", "cancel", "f16_ties")
KINDS = ("normal", "spread", "zeros", "cancel", "c_tiny", "c_huge", "c_bits", "f16_ties", "special")


@pytest.fixture(params=["compiled", "numpy"])
def loops(request, monkeypatch):
    """The path with the compiled block, then in numpy (intsum.KERNEL None)."""
    if request.param == "numpy":
        monkeypatch.setattr(intsum, "KERNEL", None)
    elif intsum.KERNEL is None:
        pytest.skip("the compiled kernel is not built here (test_numerics_intsum.py says whether it should be)")
    return request.param


def _finite_f16(rng, shape) -> np.ndarray:
    """Any finite float16 bit pattern: zeros, subnormals, the whole exponent range."""
    bits = rng.integers(0, 0x7C00, shape, dtype=np.uint16) | (rng.integers(0, 2, shape, dtype=np.uint16) << 15)
    return bits.view(np.float16)


def _tiles(rng, kind: str, G: int, M: int, K: int, N: int):
    """A (G, M, K), B (G, K, N) float16 and C (G, M, N) float32 of one kind of data."""
    def normal(shape, spread=3):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-spread, spread + 1, shape)).astype(np.float16)
    A, B = normal((G, M, K)), normal((G, K, N))
    C = (rng.standard_normal((G, M, N)) * 4).astype(np.float32)
    if kind == "spread":
        A, B = _finite_f16(rng, A.shape), _finite_f16(rng, B.shape)
        C = (rng.standard_normal(C.shape) * 2.0 ** rng.integers(-60, 40, C.shape)).astype(np.float32)
    elif kind == "zeros":
        A[rng.random(A.shape) < 0.4] = 0
        B[rng.random(B.shape) < 0.4] = -0.0
        A[:, 0] = 0                     # a row of products all zero
        C[rng.random(C.shape) < 0.5] = rng.choice([0.0, -0.0])
    elif kind == "cancel":              # sums that cancel exactly or to a few bits: zero signs, tiny results
        A[:, :, K // 2:2 * (K // 2)] = A[:, :, :K // 2]
        B[:, K // 2:2 * (K // 2)] = -B[:, :K // 2]
        C = np.where(rng.random(C.shape) < 0.5, 0.0, 2.0 ** rng.integers(-30, -10, C.shape)).astype(np.float32)
        C *= rng.choice([-1, 1], C.shape)
    elif kind == "c_tiny":              # f32 subnormal accumulators; all-zero products in some tiles and rows
        C = (rng.uniform(-1, 1, C.shape) * 2.0 ** -126).astype(np.float32)
        C[rng.random(C.shape) < 0.5] = 0
        A[:, : M // 2] = 0
        if rng.random() < 0.5:
            C[:, : M // 2] = 0          # so the rows with no products have C 0 only: the path keeps them
    elif kind == "c_huge":              # f32 overflow (inf or saturate), f16 results beyond 65504
        C = (rng.choice([-1, 1], C.shape) * rng.uniform(1, 2, C.shape) * 2.0 ** rng.integers(14, 128, C.shape)
             ).astype(np.float32)
        A, B = normal(A.shape, 14), normal(B.shape, 14)
    elif kind == "c_bits":              # any finite f32 pattern
        bits = rng.integers(0, 1 << 32, C.shape, dtype=np.uint64).astype(np.uint32)
        bits[(bits & 0x7F800000) == 0x7F800000] &= 0xBF7FFFFF
        C = bits.view(np.float32)
    elif kind == "f16_ties":            # sums at float16 rounding boundaries near zero: 2^-25 and its multiples
        A = np.where(rng.random(A.shape) < 0.8, 0, rng.choice([-1, 1], A.shape) * 2.0 ** -12).astype(np.float16)
        B = np.where(rng.random(B.shape) < 0.5, 0, rng.choice([-1, 1, 3], B.shape) * 2.0 ** -13).astype(np.float16)
        C = (rng.integers(-3, 4, C.shape) * 2.0 ** -26).astype(np.float32)
    elif kind == "special":             # an inf or NaN somewhere: the general path's (declined)
        x = [A, B, C][rng.integers(3)]
        x[tuple(rng.integers(0, s) for s in x.shape)] = rng.choice([np.inf, -np.inf, np.nan])
    return A, B, C


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), np.argwhere(a.view(f"u{a.itemsize}") != b.view(f"u{b.itemsize}"))[:5]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.muladd_params().items()
                                                                  if v != getattr(NVIDIA_TENSORCORE, k)) or "nvidia")
def test_few_tiles_match_the_general_path(model, loops) -> None:
    rng = np.random.default_rng(2026 + MODELS.index(model))
    calls = took = 0
    for kind in KINDS:
        for i, (M, K, N) in enumerate(SHAPES):
            G = (1, 2, 3, 4, fewtiles.MAX_TILES)[(i + len(kind)) % 5]
            A, B, C = _tiles(rng, kind, G, M, K, N)
            for rdt, cdt in ((np.float32, np.float32), (np.float16, np.float16), (np.float16, np.float32)):
                # as float16: the finite values kept finite
                c = C if cdt is np.float32 else np.where(np.isfinite(C), np.clip(C, -65504, 65504), C).astype(cdt)
                before = fewtiles.taken[0]
                with np.errstate(all="ignore"):
                    general = muladd(model, A, B, c, rdt, fast=False)
                fast = muladd(model, A, B, c, rdt)     # no numpy warnings from the path: the tests fail on them
                _same(fast, general)
                calls += 1
                took += fewtiles.taken[0] - before
                if kind == "special":
                    assert fewtiles.taken[0] == before
                elif kind in MUST_TAKE:
                    assert fewtiles.taken[0] == before + 1, (kind, M, K, N, np.dtype(rdt).name)
    assert took >= calls // 2


def test_declined_blocks_go_to_the_general_path(loops) -> None:
    """An inf or NaN input, or a nonzero f32-subnormal accumulator where every product is zero (its scale would
    leave float32): None from the path, the general path's result from muladd."""
    rng = np.random.default_rng(3)
    for where, value in (("A", np.inf), ("B", np.nan), ("C", -np.inf), ("C", np.nan), ("C", 1e-40)):
        A, B, C = _tiles(rng, "normal", 1, 16, 16, 16)
        if value == 1e-40:
            A[0, 3] = 0
        {"A": A, "B": B, "C": C}[where][0, 3, 5] = value
        got = fewtiles.muladd(NVIDIA_TENSORCORE, A, B, C, np.dtype(np.float32), intsum.KERNEL)
        assert got is None
        with np.errstate(all="ignore"):
            _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), muladd(NVIDIA_TENSORCORE, A, B, C, np.float32,
                                                                         fast=False))


def test_many_tiles_do_not_take_the_path() -> None:
    rng = np.random.default_rng(4)
    A, B, C = _tiles(rng, "normal", fewtiles.MAX_TILES + 1, 16, 16, 16)
    before = fewtiles.taken[0]
    _same(muladd(NVIDIA_TENSORCORE, A, B, C, np.float32), muladd(NVIDIA_TENSORCORE, A, B, C, np.float32, fast=False))
    assert fewtiles.taken[0] == before
    # one tile of them alone does, with the same bits
    _same(muladd(NVIDIA_TENSORCORE, A[:1], B[:1], C[:1], np.float32),
          muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)[:1])
    assert fewtiles.taken[0] == before + 1


def test_the_compiled_block_checks_its_arguments() -> None:
    """Sizes that do not fit the dimensions, a read-only output, a mode or bits out of range: errors, no crash."""
    k = intsum.KERNEL
    if k is None:
        pytest.skip("the compiled kernel is not built here")
    f, e, s = np.ones((1, 4, 4), np.float32), np.zeros((1, 4, 4), np.int8), np.zeros((1, 4, 4), np.float64)
    assert k.block_fold(f, f, e, e, f.copy(), 1, 4, 4, 4, 0, 4, 25, 1, s) == 0
    for args in ((f, f, e, e, f.copy(), 1, 4, 4, 5, 0, 4, 25, 1, s),      # N does not fit
                 (f, f, e, e, f.copy(), 1, 4, 4, 4, 0, 5, 25, 1, s),      # k1 beyond K
                 (f, f, e, e, f.copy(), 1, 4, 4, 4, 2, 2, 25, 1, s),      # no k
                 (f, f, e, e, f.copy(), 1, 4, 4, 4, 0, 4, 25, 4, s),      # mode
                 (f, f, e, e, f.copy(), 1, 4, 4, 4, 0, 4, 30, 1, s),      # bits
                 (f, f, e, e, f.copy(), 1, 4, 4, 4, 0, 4, 25, 1, s[:, :2])):
        with pytest.raises(ValueError):
            k.block_fold(*args)
    ro = f.copy()
    ro.flags.writeable = False
    with pytest.raises((TypeError, BufferError, ValueError)):
        k.block_fold(f, f, e, e, ro, 1, 4, 4, 4, 0, 4, 25, 1, s)


def test_views_in_any_memory_order(loops) -> None:
    """Transposed and strided operands (the path copies them into its own contiguous arrays)."""
    rng = np.random.default_rng(6)
    A, B, C = _tiles(rng, "normal", 2, 16, 32, 16)
    views = (A[:, :, ::2], np.swapaxes(B, 1, 2)[:, :16, :].copy().transpose(0, 2, 1)[:, ::2],
             np.asfortranarray(C))
    before = fewtiles.taken[0]
    for rdt in (np.float32, np.float16):
        _same(muladd(NVIDIA_TENSORCORE, *views, rdt), muladd(NVIDIA_TENSORCORE, *views, rdt, fast=False))
    assert fewtiles.taken[0] == before + 2

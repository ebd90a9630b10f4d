"""The int32 path of numerics.intsum for a MulAdd of a few tiles (up to MAX_TILES; a kernel that loops over
tiles in one subgroup calls the model with ONE 16x16x16 tile per MulAdd): the same arithmetic, without the
per-call machinery that pays off only over many tiles (chunks, the thread pool, the work arrays, moving the
tiles last, the exact shortcut's tests).

For f16 A and B only (the tiles' own order, (G, M, K) and (G, K, N)), where intsum.applies. Per block, as
intsum._aligned: the largest product exponent sum and C's exponent field give each element's alignment
exponent e; every term is truncated 2^(e - bits) below it (each scaled float32 product cast to int32) and
summed in int32; C's scaled term is added in float64 and the sum scaled back (exact: integers below 2^32, a
power-of-2 scale in float32's normal range). With the compiled kernel that is one call per block
(KERNEL.block_fold), which also rounds an f32 result toward zero as intsum._f32_toward_zero does; in numpy,
_block_numpy and intsum._f32_toward_zero. An f16 result (rounded to nearest even from the sum, `f16_result:
direct`) is a float16 cast of the sum: the sum is finite and never -0 (an int32 sum plus C's term), so
finish_block's NaN step has nothing to do and its zero-sign step ('positive') is every zero made +0 (the kernel
zeroes the sums that round to zero; in numpy, adding +0). Other roundings go to rounding.finish_block.
tests/numerics/test_numerics_fewtiles.py compares it with the general path byte for byte.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from . import intsum
from .rounding import finish_block

EMIN_F16 = -14   # model.EMIN["f16"] (model.py imports this module)
# up to this many tiles per call: 16x16x16 tiles, f16 -> f32 (tcfast, 2-core machine): 1 tile 8 us here against
# 52 us on intsum's chunks, 4: 14 / 60, 32: 75 / 108, 64: 145 / 167, 128: 456 / 278 us
MAX_TILES = 32
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
# how many MulAdds this path has computed (the tests check that it is taken)
taken = [0]


def applies(model, A: np.ndarray, B: np.ndarray, a_format: str, b_format: str, C: np.ndarray) -> bool:
    """Whether muladd() takes these operands: float16 A (G, M, K), B (G, K, N) and C (G, M, N) of any float
    dtype, 1 <= G <= MAX_TILES, K > 0, under a model intsum.applies to."""
    if A.dtype != _F16 or B.dtype != _F16 or a_format != "f16" or b_format != "f16" or A.ndim != 3 or \
            B.ndim != 3 or C.ndim != 3 or C.dtype.kind != "f":
        return False
    G, M, K = A.shape
    return (0 < G <= MAX_TILES and K > 0 and B.shape[:2] == (G, K) and C.shape == (G, M, B.shape[2])
            and intsum.applies(model, a_format, b_format))


def _decode(x: np.ndarray, emin: int, stored: bool, kernel) -> tuple[np.ndarray, np.ndarray, int]:
    """float16 x as float32, its exponents as int8 (intsum._exponents' values) and the kernel's flags (bit 0: an
    inf or NaN, bit 1: a zero)."""
    x32 = np.empty(x.shape, np.float32)
    e = np.empty(x.shape, np.int8)
    if kernel is not None:
        return x32, e, kernel.f16_decode(np.ascontiguousarray(x), emin, stored, intsum.ZERO_EXP, x32, e)
    np.copyto(x32, x)
    field = (x32.view(np.int32) >> 23) & 0xFF
    if (field == 0xFF).any():
        return x32, e, 1
    zero = field == 0
    ex = field - 127
    if stored:
        np.maximum(ex, emin, out=ex)
    np.putmask(ex, zero, intsum.ZERO_EXP)
    np.copyto(e, ex, casting="unsafe")
    return x32, e, 2 if zero.any() else 0


def _block_numpy(a32, b32, ea, eb, c, k0: int, k1: int, bits: int, zeros: bool) -> np.ndarray | None:
    """One block's scaled exact sums s (G, M, N) float64 (KERNEL.block_fold in numpy), or None."""
    emax = np.maximum.reduce(ea[:, :, k0:k1, None] + eb[:, None, k0:k1, :], axis=2)   # int8: fits (intsum)
    if zeros:
        np.putmask(emax, emax < intsum.LOWEST_SUM, np.int8(-128))    # all products zero: below every C
    e = np.maximum(emax, ((c.view(np.int32) >> 23) & 0xFF) - 127)
    if int(e.max()) == 128:
        return None              # C inf or NaN
    lowest = bits - 126          # below it, 2^(bits - e) leaves float32's normal range
    if int(e.min()) < lowest:
        if ((e < lowest) & (c != 0)).any():
            return None
        np.maximum(e, lowest, out=e)
    scale = ((127 + bits - e) << 23).view(np.float32)     # 2^(bits - e), exact
    t = a32[:, :, k0:k1, None] * b32[:, None, k0:k1, :]
    t *= scale[:, :, None, :]
    si = np.add.reduce(t, axis=2, dtype=np.int32)     # each term cast (truncated toward zero), summed in int32
    s = np.add(si, np.trunc(c * scale), dtype=np.float64)
    s /= scale                   # exact: integers below 2^32, a power-of-2 scale
    return s


def muladd(model, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt: np.dtype,
           kernel=intsum.KERNEL) -> np.ndarray | None:
    """D = A x B + C under `model` for float16 A (G, M, K), B (G, K, N) and float32 C (G, M, N) (applies()
    says when): the result (G, M, N) in rdt, or None where the general path must do it (intsum.chunk's cases:
    an input inf or NaN, a block whose scale leaves float32's range). `kernel`: the compiled loops, or None
    for numpy (the tests run both)."""
    stored = model.subnormal_inputs == "stored"
    bits = model.bits
    fold = getattr(kernel, "block_fold", None)    # None: no compiler at install (or a build from before it)
    if fold is None:
        kernel = None
    a32, ea, flags_a = _decode(A, EMIN_F16, stored, kernel)
    if flags_a & 1:
        return None
    b32, eb, flags_b = _decode(B, EMIN_F16, stored, kernel)
    if flags_b & 1:
        return None
    zeros = bool((flags_a | flags_b) & 2)
    G, M, K = A.shape
    N = B.shape[-1]
    c = np.array(C, np.float32, order="C")    # every block's accumulator is f32 (a copy: it is overwritten)
    f32_rtz = model.final == "rtz" and rdt == _F32
    f16_direct = rdt == _F16 and model.f16_result == "direct"
    # the kernel's rounding into c: f32 results toward zero with overflow to infinity (1) or saturating (2)
    # or (3) float16 results, every sum that rounds to zero in float16 made +0 (zero_sign 'positive')
    positive = model.zero_sign == "positive"
    mode = (1 if model.overflow == "inf" else 2) if f32_rtz else 3 if f16_direct and positive else 0
    s = np.empty((G, M, N), np.float64)
    for k0 in range(0, K, model.block):
        k1 = min(K, k0 + model.block)
        last = k1 == K
        if fold is not None:
            flags = fold(a32, b32, ea, eb, c, G, M, K, N, k0, k1, bits, mode, s)
            if flags & 1:
                return None
            if f32_rtz:        # c holds the block's result
                if last:
                    taken[0] += 1
                    return c
                continue
            big = flags & 2
        else:
            with np.errstate(all="ignore"):
                s1 = _block_numpy(a32, b32, ea, eb, c, k0, k1, bits, zeros)
            if s1 is None:
                return None
            s, big = s1, 2
            if f32_rtz:
                with np.errstate(all="ignore"):
                    intsum._f32_toward_zero(s, model, out=c)
                if last:
                    taken[0] += 1
                    return c
                continue
        if f16_direct:
            if big:      # beyond float16's range: the cast gives infinity, and numpy would warn
                with np.errstate(all="ignore"):
                    r = s.astype(np.float16)
            else:
                r = s.astype(np.float16)
            if positive and fold is None:
                r += np.float16(0)
            if last:
                taken[0] += 1
                return r
            np.copyto(c, r)
        else:
            with np.errstate(all="ignore"):
                c2, r2 = finish_block(model, s, rdt, last)
            if last:
                taken[0] += 1
                return r2
            np.copyto(c, cast(np.ndarray, c2), casting="same_kind")   # not last: c2 is set
    raise AssertionError("unreachable: K > 0")

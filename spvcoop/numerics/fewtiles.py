"""The int32 path of numerics.intsum for a MulAdd of a few tiles (a kernel that loops over tiles in one subgroup
calls the model with ONE 16x16x16 tile per MulAdd): the same arithmetic, without the per-call machinery that
pays off only over many tiles (chunks, the thread pool, the work arrays, moving the tiles last, the exact
shortcut's tests).

For f16 A and B only (the tiles' own order, (G, M, K) and (G, K, N)), where intsum.applies. Per block, as
intsum._aligned: the largest product exponent sum and C's exponent field give each element's alignment
exponent e; every term is truncated 2^(e - bits) below it (the compiled loops, or numpy, cast each scaled
float32 product to int32) and summed in int32; C's scaled term is added in float64 and the sum scaled back
(here a division by the scale: exact, a power of 2 in float32's normal range, as intsum's multiply by its
inverse is). f32 results are rounded by intsum._f32_toward_zero, everything else by rounding.finish_block, except
the measured f16 rounding (direct, nearest even) done inline: the sum is finite and never -0 (an int32 sum plus
C's term), so finish_block's zero-sign and NaN steps reduce to adding +0 (-0 + +0 is +0) and nothing.
tests/test_numerics_fewtiles.py compares it with the general path byte for byte.
"""
from __future__ import annotations

import numpy as np

from . import intsum
from .rounding import finish_block

EMIN_F16 = -14   # model.EMIN["f16"] (model.py imports this module)
MAX_TILES = 4   # up to this many tiles per call; beyond, intsum's chunks cost less per tile (measured)
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
# how many MulAdds this path has computed (the tests check that it is taken)
taken = [0]


def applies(model, A: np.ndarray, B: np.ndarray, a_format: str, b_format: str) -> bool:
    """Whether muladd() takes these operands: float16 A (G, M, K) and B (G, K, N) with 1 <= G <= MAX_TILES, K > 0
    (model.muladd has checked C and the other dimensions)."""
    return (A.dtype == _F16 and B.dtype == _F16 and a_format == "f16" and b_format == "f16" and A.ndim == 3
            and 0 < A.shape[0] <= MAX_TILES and 0 < A.shape[2] == B.shape[1]
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


def muladd(model, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt: np.dtype, kernel=intsum.KERNEL):
    """D = A x B + C under `model` for float16 A (G, M, K), B (G, K, N) and float32 C (G, M, N) (applies()
    says when): the result (G, M, N) in rdt, or None where the general path must do it (intsum.chunk's cases:
    an input inf or NaN, a block whose scale leaves float32's range). `kernel`: the compiled loops, or None
    for numpy (the tests run both)."""
    stored = model.subnormal_inputs == "stored"
    bits = model.bits
    a32, ea, flags_a = _decode(A, EMIN_F16, stored, kernel)
    if flags_a & 1:
        return None
    b32, eb, flags_b = _decode(B, EMIN_F16, stored, kernel)
    if flags_b & 1:
        return None
    zeros = (flags_a | flags_b) & 2
    G, M, K = A.shape
    N = B.shape[-1]
    c = np.array(C, np.float32)     # every block's accumulator is f32 (a copy: it is overwritten)
    emax = np.empty((G, M, N), np.int8)
    si = np.empty((G, M, N), np.int32)
    lowest = bits - 126   # below it, 2^(bits - e) leaves float32's normal range
    # (254 + bits) << 23 may pass 2^31: as int32 it wraps, and so does the subtraction, to the right field
    top = np.uint32((254 + bits) << 23).view(np.int32)
    low, span = bits << 23, (253 - bits) << 23
    f32_rtz = model.final == "rtz" and rdt == _F32
    f16_direct = rdt == _F16 and model.f16_result == "direct"
    for k0 in range(0, K, model.block):
        k1 = min(K, k0 + model.block)
        if kernel is not None:
            kernel.block_emax(ea, eb, G, M, K, N, k0, k1, emax)
        else:
            np.maximum.reduce(ea[:, :, k0:k1, None] + eb[:, None, k0:k1, :], axis=2, out=emax)
        if zeros:
            np.putmask(emax, emax < intsum.LOWEST_SUM, np.int8(-128))    # all products zero: below every C
        # alignment exponents as float32 exponent fields in place (e + 127 << 23): max(emax + 127, C's field)
        field = np.add(emax, 127, dtype=np.int32)
        field <<= 23
        np.maximum(field, c.view(np.int32) & 0x7F800000, out=field)
        scale_bits = top - field     # 2^(bits - e): field 127 + bits - e, exact
        # one test for both rare cases: C inf or NaN (field 255: scale field bits - 1), or e below `lowest`
        # (2^(bits - e) beyond float32's normal range: scale field above 253)
        if int((scale_bits - low).view(np.uint32).max()) > span:
            e = (field >> 23) - 127
            if int(e.max()) == 128:
                return None
            if ((e < lowest) & (c != 0)).any():
                return None
            np.minimum(scale_bits, 253 << 23, out=scale_bits)
        scale = scale_bits.view(np.float32)
        if kernel is not None:
            kernel.block_sum(a32, b32, scale, G, M, K, N, k0, k1, si)
        else:
            t = a32[:, :, k0:k1, None] * b32[:, None, k0:k1, :]
            t *= scale[:, :, None, :]
            np.add.reduce(t, axis=2, dtype=np.int32, out=si)
        c *= scale
        s = np.add(si, np.trunc(c, out=c), dtype=np.float64)
        s /= scale                 # exact: integers below 2^32, a power-of-2 scale
        last = k1 == K
        if f32_rtz:
            intsum._f32_toward_zero(s, model, out=c)
            if last:
                taken[0] += 1
                return c
        elif f16_direct:
            r = s.astype(np.float16)
            if model.zero_sign == "positive":
                r += np.float16(0)
            if last:
                taken[0] += 1
                return r
            np.copyto(c, r)
        else:
            c2, r2 = finish_block(model, s, rdt, last)
            if last:
                taken[0] += 1
                return r2
            np.copyto(c, c2, casting="same_kind")
    raise AssertionError("unreachable: K > 0")

"""The steps after a MulAdd block's exact sum (numerics.model): rounding it to f32 or f16, the sign of a sum
that rounds to zero, NaN bit patterns; and 2.0**e from its bits. Shared by the general path (model.py) and the
int32 path (intsum.py), so both round alike by construction."""
from __future__ import annotations

import numpy as np


def pow2(e: np.ndarray, dtype) -> np.ndarray:
    """2.0**e built from its bits (np.ldexp is several times slower), e clipped to the normal range."""
    if dtype == np.float32:
        return ((e.clip(-126, 127).astype(np.int32) + 127) << 23).view(np.float32)
    return ((e.clip(-1022, 1023).astype(np.int64) + 1023) << 52).view(np.float64)


def zero_sign(r: np.ndarray, s: np.ndarray, model) -> np.ndarray:
    """Under zero_sign 'positive', a nonzero sum that rounded to zero gives +0."""
    if model.zero_sign == "positive":
        r = np.where((r == 0) & (s != 0), r.dtype.type(0), r)
    return r


def to_f32(s: np.ndarray, model) -> np.ndarray:
    f = s.astype(np.float32)                  # nearest even
    if model.final == "rtz":
        # rounded away from zero: one step back toward zero (the magnitude's bits minus one)
        away = np.abs(f) > np.abs(s)
        u = f.view(np.uint32)
        u -= away.astype(np.uint32)
        if model.overflow == "inf":
            big = np.abs(s) >= 2.0 ** 128
            f[big] = np.copysign(np.inf, s[big]).astype(np.float32)
    return f


def nan_bits(x: np.ndarray, bits: int | None) -> np.ndarray:
    if bits is None:
        return x
    nan = np.isnan(x)
    if nan.any():
        u = x.view(f"u{x.dtype.itemsize}").copy()
        u[nan] = bits
        x = u.view(x.dtype)
    return x


def finish_block(model, s: np.ndarray, rdt: np.dtype, last: bool) -> tuple[np.ndarray | None, np.ndarray | None]:
    """A block's exact sum s (float64) rounded: (the next block's accumulator as float64, None), or for the last
    block (None, the result in rdt)."""
    if rdt == np.float16 and model.f16_result == "direct":
        # an f16 result is rounded to f16 after every block, not only the last (measured: a Workgroup-scope
        # f16 x f16 + f16 MulAdd with K = 32 on an H200 matches only so, 65,536 of 65,536)
        r16 = nan_bits(zero_sign(s.astype(np.float16), s, model), model.nan_f16)
        return (None, r16) if last else (r16.astype(np.float64), None)
    c = zero_sign(to_f32(s, model), s, model).astype(np.float64)
    if not last:
        return c, None
    r = c.astype(np.float32)
    if rdt == np.float16:
        return None, nan_bits(zero_sign(r.astype(np.float16), c, model), model.nan_f16)
    return None, nan_bits(r, model.nan_f32)


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, dt) -> np.ndarray:
    """a * b + c rounded once to dt (float32 or float16): the product is exact in float64, the sum is rounded to
    odd in float64 (the TwoSum error decides), which rounds correctly to any format of at most 51 bits."""
    with np.errstate(all="ignore"):
        p = np.asarray(a, np.float64) * np.asarray(b, np.float64)
        c64 = np.asarray(c, np.float64)
        s = p + c64
        bb = s - p
        err = (p - (s - bb)) + (c64 - bb)
        ok = np.isfinite(s) & (err != 0)
        if ok.any():
            bits = s.view(np.int64).copy()
            toward_zero = ok & ((err < 0) != (s < 0))       # the exact value lies between s and zero
            bits -= toward_zero.astype(np.int64)              # one f64 step toward zero (s is never 0 here)
            bits |= ok.astype(np.int64)                       # round to odd
            s = bits.view(np.float64)
        return s.astype(dt)



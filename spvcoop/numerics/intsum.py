"""The fast path of numerics.model.muladd: alignment to the largest exponent with truncation, summed in int32.

It computes what the general path (model._chunk) computes for these models and inputs, with fewer passes over
the data: exponents as int16 from the float32 bits (inputs whose every value is a normal float32: f16 and the
FP8 formats, not bf16), the block's largest exponent by an int16 max over k, and per product one multiply,
one scale, one cast (truncation toward zero) and one int32 add on (M, N, tiles) arrays, tiles last so every
step runs over contiguous rows. tests/test_numerics_intsum.py compares it with the general path.
"""
from __future__ import annotations

import numpy as np

from .rounding import finish_block, pow2

FORMATS = ("f16", "e4m3", "e5m2")   # every value a normal float32: its exponent is its float32 exponent field
ZERO_EXP = -10000   # a zero input: every product with it lies below -1000, where the general path clips too


def applies(model, a_format: str, b_format: str) -> bool:
    # every truncated term is below 2^(bits + 2) (a product of two values below 2^(e+1)), so a block's sum of
    # them fits int32 when bits + 2 + log2(block) <= 31 (the general path's condition for its int32 sum)
    return (model.align == "max" and model.drop == "truncate" and a_format in FORMATS and b_format in FORMATS
            and model.bits + 2 + (model.block - 1).bit_length() <= 31)


def _exponents(x: np.ndarray, emin: int, stored: bool) -> tuple[np.ndarray, bool]:
    """floor(log2|x|) as int16 for float32 x whose nonzero values are all normal; zeros ZERO_EXP; subnormal
    inputs of the format at emin when `stored`. Also whether every value is finite."""
    field = (x.view(np.uint32) >> 23).astype(np.int16)
    field &= 0xFF
    e = field - np.int16(127)
    if stored:
        np.maximum(e, np.int16(emin), out=e)
    np.putmask(e, field == 0, np.int16(ZERO_EXP))
    return e, not (field == 0xFF).any()


def _c_exponents(c: np.ndarray) -> np.ndarray:
    """The accumulator's exponents (float64 c): the true ones (f32 subnormals too), zeros -30000, inf/NaN 0."""
    field = ((c.view(np.uint64) >> np.uint64(52)).astype(np.int32)) & 0x7FF
    e = field - 1023
    np.putmask(e, field == 0, -30000)      # c holds f32 values: a zero field is a zero
    np.putmask(e, field == 0x7FF, 0)
    return e


def chunk(model, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt: np.dtype, emin_a: int, emin_b: int):
    """G tiles: A (G, M, K), B (G, K, N), C (G, M, N), any float dtypes holding the values; the result (M, N, G)
    in rdt, or None where an input is inf or NaN (the general path handles those)."""
    stored = model.subnormal_inputs == "stored"
    At = A.transpose(1, 2, 0).astype(np.float32, order="C")      # (M, K, G): convert and move tiles last in one pass
    eA, finite_a = _exponents(At, emin_a, stored)
    if not finite_a:
        return None
    Bt = B.transpose(1, 2, 0).astype(np.float32, order="C")      # (K, N, G)
    eB, finite_b = _exponents(Bt, emin_b, stored)
    if not finite_b:
        return None
    c = C.transpose(1, 2, 0).astype(np.float64, order="C")       # (M, N, G)
    K = At.shape[1]
    t = np.empty(c.shape, np.float32)
    ti = np.empty(c.shape, np.int32)
    si = np.empty(c.shape, np.int32)
    emax = np.empty(c.shape, np.int16)
    esum = np.empty(c.shape, np.int16)
    for k0 in range(0, K, model.block):
        k1 = min(K, k0 + model.block)
        np.add(eA[:, k0, None, :], eB[None, k0], out=emax)
        for k in range(k0 + 1, k1):
            np.add(eA[:, k, None, :], eB[None, k], out=esum)
            np.maximum(emax, esum, out=emax)
        e = np.maximum(emax, _c_exponents(c))
        shift = model.bits - e.clip(-1000, 1000)
        # terms become integers after the drop: scale by 2^shift (exact: a power of 2, in range for these inputs)
        scale = pow2(shift, np.float32)
        for k in range(k0, k1):
            np.multiply(At[:, k, None, :], Bt[None, k], out=t)
            t *= scale
            if k == k0:
                np.copyto(si, t, casting="unsafe")     # the cast truncates toward zero
            else:
                np.copyto(ti, t, casting="unsafe")
                si += ti
        s = si.astype(np.float64)
        c *= scale
        s += np.trunc(c, out=c)
        s *= pow2(-shift, np.float64)                  # exact: integers below 2^32, power-of-2 scale
        c, r = finish_block(model, s, rdt, k1 == K)
    return r

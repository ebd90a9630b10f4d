"""The fast path of numerics.model.muladd: alignment to the largest exponent with truncation, summed in int32.

It computes what the general path (model._chunk) computes for these models and inputs, with fewer passes over
the data: the tiles moved last so every step runs over contiguous rows, exponents as int8 from the float32
bits (inputs whose every value is a normal float32: f16 and the FP8 formats, not bf16), the block's largest
exponent by an int8 max, and per block one broadcast multiply, one scale and one add.reduce with dtype int32
(each term cast, so truncated toward zero, then summed). Chunks of integer-like data whose terms all lie on the
kept grid take one float64 matmul instead (on_grid). tests/numerics/test_numerics_intsum.py compares all of it with the
general path and with an exact reference.
"""
from __future__ import annotations

import threading
from typing import cast

import numpy as np

from .rounding import finish_block

try:    # the compiled loops over every product (setup.py builds them where a C compiler is found)
    from . import _intsum_kernel as KERNEL
except ImportError:
    KERNEL = None  # type: ignore[assignment]  # no compiler at install: the numpy loops (KERNEL is None)

FORMATS = ("f16", "e4m3", "e5m2")   # every value a normal float32: its exponent is its float32 exponent field
ZERO_EXP = -64   # a zero input (int8): a product with it sums to at most -64 + 15, below every nonzero one (>= -48)
KSTEP = 16   # k per call: the (M, k, N, tiles) work arrays stay a few MiB
LOWEST_SUM = -48   # the smallest exponent sum of two nonzero inputs (f16's true subnormal exponent -24, twice)


def applies(model, a_format: str, b_format: str) -> bool:
    # every truncated term is below 2^(bits + 2) (a product of two values below 2^(e+1)), so a block's sum of
    # them fits int32 when bits + 2 + log2(block) <= 31 (the general path's condition for its int32 sum)
    return (model.align == "max" and model.drop == "truncate" and a_format in FORMATS and b_format in FORMATS
            and model.bits + 2 + (model.block - 1).bit_length() <= 31)


class _Workspace(threading.local):
    """Each thread's arrays, reused from chunk to chunk (fresh ones of this size come from mmap, and their page
    faults cost about as much as the arithmetic), each starting a 4 KiB page. Arrays streamed side by side then
    meet at equal indices; with the offsets malloc gave (80 bytes apart), the scale multiply ran 6x slower: its
    loads waited on stores 64 elements back, at addresses equal modulo 4096 (4K aliasing)."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: tuple, dtype) -> np.ndarray:
        a = self.arrays.get(name)
        if a is None or a.shape != shape or a.dtype != dtype:
            dtype = np.dtype(dtype)
            n = int(np.prod(shape)) * dtype.itemsize
            raw = np.empty(n + 4096, np.uint8)
            start = -raw.ctypes.data % 4096
            a = self.arrays[name] = raw[start:start + n].view(dtype).reshape(shape)
        return a


_WORK = _Workspace()


def _fields(x: np.ndarray, name: str) -> np.ndarray:
    """float32 x's exponent fields minus the bias, as int16 (a zero or subnormal gives -127, inf/NaN 128)."""
    u = _WORK.get("bits", x.shape, np.uint32)
    np.right_shift(x.view(np.uint32), 23, out=u)
    e = _WORK.get(name, x.shape, np.int16)
    np.copyto(e, u, casting="unsafe")
    e &= 0xFF
    e -= 127
    return e


def _exponents(x: np.ndarray, emin: int, stored: bool, name: str) -> tuple[np.ndarray, bool, bool]:
    """floor(log2|x|) as int8 for float32 x whose nonzero values are all normal; zeros ZERO_EXP; subnormal
    inputs of the format at emin when `stored`. Also whether every value is finite, and whether any is zero."""
    u = _WORK.get("bits", x.shape, np.uint32)
    np.right_shift(x.view(np.uint32), 23, out=u)
    e = _WORK.get(name, x.shape, np.int8)
    np.copyto(e, u, casting="unsafe")    # the low 8 bits: the exponent field, as int8 (128..255 wrap around)
    e -= np.int8(127)                     # so the field minus the bias, with inf/NaN's 128 wrapped to -128
    lowest = int(e.min())
    if lowest == -128:
        return e, False, False
    zero = lowest == -127
    if zero:
        is_zero = e == -127
    if stored:
        np.maximum(e, np.int8(emin), out=e)
    if zero:
        np.putmask(e, is_zero, np.int8(ZERO_EXP))
    return e, True, zero


class _NumpyLoops:
    """The loops in numpy, tiles last: A (M, K, G), B (K, N, G), C and the result (M, N, G), so that every numpy
    call runs over contiguous rows of tiles."""

    @staticmethod
    def accumulator(x: np.ndarray, name: str) -> np.ndarray:
        """(G, R, S) of any float dtype as float32 (R, S, G): converted and moved in one pass."""
        out = _WORK.get(name, x.shape[1:] + x.shape[:1], np.float32)
        np.copyto(out, x.transpose(1, 2, 0), casting="unsafe")   # float64 input: rounded, as np.asarray(x, f32) does
        return out

    @classmethod
    def operand(cls, x: np.ndarray, name: str, emin: int, stored: bool):
        """x as float32 in this order, its exponents (_exponents), whether all are finite, whether any is zero."""
        x32 = cls.accumulator(x, name)
        return (x32, *_exponents(x32, emin, stored, "e" + name))

    @staticmethod
    def dims(At: np.ndarray, Bt: np.ndarray) -> tuple[int, int, int, int]:
        """G, M, K, N."""
        return At.shape[2], At.shape[0], At.shape[1], Bt.shape[1]

    @staticmethod
    def block_emax(eA, eB, dims: tuple[int, int, int, int], k0: int, k1: int, out: np.ndarray) -> None:
        _block_emax(eA, eB, k0, k1, out)

    @staticmethod
    def block_sum(At, Bt, scale32, dims: tuple[int, int, int, int], k0: int, k1: int, out: np.ndarray) -> None:
        _block_sum(At, Bt, scale32, k0, k1, out)

    @staticmethod
    def result(r: np.ndarray) -> np.ndarray:
        return r.transpose(2, 0, 1)


class _CompiledLoops:
    """The loops in KERNEL, in the tiles' own order: A (G, M, K), B (G, K, N), C and the result (G, M, N)."""

    @staticmethod
    def accumulator(x: np.ndarray, name: str) -> np.ndarray:
        out = _WORK.get(name, x.shape, np.float32)
        np.copyto(out, x, casting="unsafe")
        return out

    @classmethod
    def operand(cls, x: np.ndarray, name: str, emin: int, stored: bool):
        e = _WORK.get("e" + name, x.shape, np.int8)
        if x.dtype == np.float16:
            x32 = _WORK.get(name, x.shape, np.float32)
            flags = KERNEL.f16_decode(np.ascontiguousarray(x), emin, stored, ZERO_EXP, x32, e)
        else:
            x32 = cls.accumulator(x, name)
            flags = KERNEL.f32_exponents(x32, emin, stored, ZERO_EXP, e)
        return x32, e, not flags & 1, bool(flags & 2)

    @staticmethod
    def dims(At: np.ndarray, Bt: np.ndarray) -> tuple[int, int, int, int]:
        return At.shape + Bt.shape[2:]

    @staticmethod
    def block_emax(eA, eB, dims: tuple[int, int, int, int], k0: int, k1: int, out: np.ndarray) -> None:
        KERNEL.block_emax(eA, eB, *dims, k0, k1, out)

    @staticmethod
    def block_sum(At, Bt, scale32, dims: tuple[int, int, int, int], k0: int, k1: int, out: np.ndarray) -> None:
        KERNEL.block_sum(At, Bt, scale32, *dims, k0, k1, out)

    @staticmethod
    def result(r: np.ndarray) -> np.ndarray:
        return r


def chunk(model, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt: np.dtype, emin_a: int, emin_b: int,
          kernel=KERNEL):
    """G tiles: A (G, M, K), B (G, K, N), C (G, M, N), any float dtypes holding the values; the result (G, M, N)
    in rdt, or None where the general path must do it: an input inf or NaN, or a block whose scale leaves
    float32's range (all products zero and a nonzero accumulator below 2^(bits - 126)). The result is a view of
    this thread's work arrays: copy it out before the thread's next chunk. `kernel`: KERNEL for the compiled
    loops, None for numpy's."""
    layout = _NumpyLoops if kernel is None or KERNEL is None else _CompiledLoops
    r = _aligned(model, A, B, C, rdt, emin_a, emin_b, layout)
    return None if r is None else layout.result(r)


def _aligned(model, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt: np.dtype, emin_a: int, emin_b: int, layout):
    """chunk() by alignment, truncation and int32 sums, on arrays in the layout's order; the result or None."""
    stored = model.subnormal_inputs == "stored"
    bits = model.bits
    At, eA, finite_a, zero_a = layout.operand(A, "A", emin_a, stored)
    if not finite_a:
        return None
    Bt, eB, finite_b, zero_b = layout.operand(B, "B", emin_b, stored)
    if not finite_b:
        return None
    c = layout.accumulator(C, "C")       # every block's accumulator is f32
    dims = layout.dims(At, Bt)        # G, M, K, N
    K = dims[2]
    w = _WORK
    si = w.get("si", c.shape, np.int32)
    emax = w.get("emax", c.shape, np.int8)
    e = w.get("e", c.shape, np.int16)
    e16 = w.get("e16", c.shape, np.int16)
    scale = w.get("scale", c.shape, np.int32)
    back = w.get("back", c.shape, np.int32)
    s = w.get("s", c.shape, np.float64)
    for k0 in range(0, K, model.block):
        k1 = min(K, k0 + model.block)
        layout.block_emax(eA, eB, dims, k0, k1, emax)
        if zero_a or zero_b:
            np.putmask(emax, emax < LOWEST_SUM, np.int8(-128))    # all products zero: below every accumulator
        ec = _fields(c, "ec")
        if int(ec.max()) == 128:
            return None
        np.maximum(emax, ec, out=e)
        if int(e.min()) < bits - 126:        # 2^(bits - e) beyond float32: fine where c is 0, else the general path
            if ((e < bits - 126) & (c != 0)).any():
                return None
            np.maximum(e, np.int16(bits - 126), out=e)
        # terms become integers after the drop: scale by 2^(bits - e), exact (a power of 2 in float32's range)
        np.subtract(np.int16(127 + bits), e, out=e16)
        np.copyto(scale, e16)
        scale <<= 23
        scale32 = scale.view(np.float32)
        np.subtract(np.int32(254 << 23), scale, out=back)   # 2^(e - bits): exponent field 254 minus scale's
        layout.block_sum(At, Bt, scale32, dims, k0, k1, si)
        np.copyto(s, si)
        c *= scale32
        s += np.trunc(c, out=c)
        s *= back.view(np.float32)                      # exact: integers below 2^32, power-of-2 scale
        last = k1 == K
        if model.final == "rtz" and rdt == np.float32:
            _f32_toward_zero(s, model, out=c)          # finite and no NaN: nan_f32 has nothing to replace
            if last:
                return c
        else:
            c2, r = finish_block(model, s, rdt, last)
            if last:
                return r
            np.copyto(c, cast(np.ndarray, c2), casting="same_kind")   # not last: c2 is set
    raise AssertionError("unreachable: K > 0")


def _block_emax(eA: np.ndarray, eB: np.ndarray, k0: int, k1: int, emax: np.ndarray) -> None:
    """emax (M, N, G) = the largest eA (M, K, G) + eB (K, N, G) over k in [k0, k1), int8: KERNEL.block_emax in
    numpy. Up to KSTEP k per call, (M, k, N, G): one broadcast over k instead of a call per k is the faster loop."""
    M, _, G = eA.shape
    N = eB.shape[1]
    for j0 in range(k0, k1, KSTEP):
        j1 = min(k1, j0 + KSTEP)
        esum = _WORK.get("esum", (M, j1 - j0, N, G), np.int8)
        np.add(eA[:, j0:j1, None, :], eB[None, j0:j1], out=esum)
        if j0 == k0:
            np.maximum.reduce(esum, axis=1, out=emax)
        else:
            np.maximum(emax, np.maximum.reduce(esum, axis=1), out=emax)


def _block_sum(At: np.ndarray, Bt: np.ndarray, scale32: np.ndarray, k0: int, k1: int, si: np.ndarray) -> None:
    """si (M, N, G) = the sum over k in [k0, k1) of At (M, K, G) times Bt (K, N, G) times scale32 (M, N, G), each
    term in float32 cast to int32 (truncated toward zero), summed in int32: KERNEL.block_sum in numpy. Partial
    sums fit as the whole does."""
    M, _, G = At.shape
    N = Bt.shape[1]
    for j0 in range(k0, k1, KSTEP):
        j1 = min(k1, j0 + KSTEP)
        t = _WORK.get("t", (M, j1 - j0, N, G), np.float32)
        np.multiply(At[:, j0:j1, None, :], Bt[None, j0:j1], out=t)
        np.multiply(t, scale32[:, None], out=t)
        if j0 == k0:
            np.add.reduce(t, axis=1, dtype=np.int32, out=si)
        else:
            si += np.add.reduce(t, axis=1, dtype=np.int32)


_Magnitude = tuple[type[np.unsignedinteger], np.unsignedinteger]
_MAGNITUDE: dict[int, _Magnitude] = {2: (np.uint16, np.uint16(0x7FFF)), 4: (np.uint32, np.uint32(0x7FFFFFFF))}


def _max_exponent(x: np.ndarray, field_bits: int, bias: int) -> int:
    """An upper bound of floor(log2|x|) over float x from its largest exponent field (subnormals as the
    smallest normal's: above their stored and their true exponent alike; inf/NaN give the all-ones field's
    exponent, above any finite one); -10000 where x is all zero."""
    udt, mask = _MAGNITUDE[x.dtype.itemsize]
    magnitude = int(np.bitwise_and(x.view(udt), mask).max(initial=0))
    return max(magnitude >> field_bits, 1) - bias if magnitude else -10000


def _multiples(x: np.ndarray, lsb: int, work: np.ndarray) -> bool:
    """Whether every value of finite float x is a multiple of 2^lsb (x times 2^-lsb is exact: x holds float16
    values, or 2^-lsb >= 1)."""
    np.multiply(x, x.dtype.type(2.0 ** -lsb), out=work)
    return not (work - np.trunc(work)).any()


def grid_applies(model, A: np.ndarray, B: np.ndarray) -> bool:
    """Whether on_grid can take these tiles: float16 A and B, one block."""
    return A.shape[-1] <= model.block and A.dtype == np.float16 and B.dtype == np.float16


def on_grid(model, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt: np.dtype):
    """The exact shortcut, for one block (K <= block) of float16 A and B: the result (G, M, N), or None where it
    does not apply.

    Let U bound every element's alignment exponent e from above (the chunk's largest product exponent sum, or
    C's largest exponent). If every A is a multiple of 2^la, every B of 2^lb with la + lb = U - bits, and every
    C of 2^(U - bits), then every product (a multiple of 2^(la + lb)) and C are multiples of 2^(e - bits): each
    term lies on the kept grid and the drop removes nothing, so the model's sum is the exact sum. All terms are
    multiples of 2^(U - bits) below 2^(U + 13) in magnitude (K <= 1024), so every partial sum is an integer
    below 2^(bits + 13) <= 2^42 times 2^(U - bits): a float64 matmul (any order, any FMA) is exact. Adding +0.0
    turns a -0 sum into +0, as the general path's sum (an int32 sum plus C's term) never is -0. A nonzero sum
    is at least 2^(U - bits) in magnitude: from 2^-126 on, no float32 subnormal results.

    The first tile is tried alone first, on its own (lower) bound: failing there, it fails the chunk's too (a
    chunk of one tile: once, the two would be the same)."""
    if not grid_applies(model, A, B):
        return None
    w = _WORK
    for part in ((slice(0, 1), slice(None)) if A.shape[0] > 1 else (slice(None),)):
        a, b, c = A[part], B[part], C[part]
        ua, ub, uc = _max_exponent(a, 10, 15), _max_exponent(b, 10, 15), _max_exponent(c, 23, 127)
        if ua >= 16 or ub >= 16 or uc >= 128:
            return None                 # inf or NaN
        U = max(ua + ub, uc)
        if U < -9000:
            if part.stop is None:
                return None             # all zero: nothing to gain
            continue
        grid = U - model.bits
        la = grid // 2
        tag = "grid" if part.stop is None else "grid1"     # own arrays for the first tile: no reallocation
        a32 = w.get(tag + "_a", a.shape, np.float32)
        b32 = w.get(tag + "_b", b.shape, np.float32)
        c64 = w.get(tag + "_c", c.shape, np.float64)
        np.copyto(a32, a)
        np.copyto(b32, b)
        np.copyto(c64, c)
        if not (_multiples(a32, la, w.get(tag + "_ya", a.shape, np.float32))
                and _multiples(b32, grid - la, w.get(tag + "_yb", b.shape, np.float32))
                and _multiples(c64, grid, w.get(tag + "_yc", c.shape, np.float64))):
            return None
    s = w.get("grid_s", C.shape, np.float64)
    np.matmul(a32.astype(np.float64), b32.astype(np.float64), out=s)
    s += c64
    s += 0.0
    if model.final == "rtz" and rdt == np.float32 and grid >= -126:
        return _f32_toward_zero(s, model, out=w.get("grid_r", C.shape, np.float32))
    return finish_block(model, s, rdt, True)[1]


def _f32_toward_zero(s: np.ndarray, model, out: np.ndarray) -> np.ndarray:
    """float64 s, finite, each 0 or at least 2^-126 in magnitude (no float32 subnormals), rounded toward zero to
    float32 into out: clearing the 29 float64 significand bits float32 lacks truncates the magnitude, and the
    cast is then exact, or infinity from 2^128 on (overflow 'inf'; 'saturate': the largest finite value)."""
    s.view(np.uint64)[...] &= np.uint64(~((1 << 29) - 1) & 0xFFFFFFFFFFFFFFFF)
    np.copyto(out, s, casting="same_kind")
    if model.overflow == "saturate":
        big = np.isinf(out)
        if big.any():
            out[big] = np.copysign(np.finfo(np.float32).max, out[big])
    return out

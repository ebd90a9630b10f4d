"""The H100's special-function unit and the code its Vulkan compiler builds from it, as measured (issue 36;
tests/data/h100-vulkan/float-model, docs/interpreter-coopmat.md "Float code under nvidia-tensorcore").

Tables (tables/h100_functions.npz, made by tests/data/h100-vulkan/float-model/make_tables.py from exhaustive runs):
- f32 `1/x` for every mantissa (x in [1, 2)): 1/x of any x is the entry of its mantissa scaled by 2^-e;
- f32 `exp2(x)` for x in [1, 2): 2 P(f) for every 23-bit fraction f. exp2 of any x takes x in fixed point with 23
  fraction bits (|x| truncated; a negative x one's-complemented, F = -trunc(|x| 2^23) - 1, except whole
  numbers, which are exact), then 2^(F >> 23) P(F mod 2^23) (checked exhaustively on [0.5, 1) and [-1, -0.5));
- f32 `sqrt(x)` and `inversesqrt(x)` for x in [1, 4): the entry of x's mantissa and exponent parity scaled by
  2^(e div 2) (resp. its inverse);
- f32 `log2(x)` for x in [1, 2) and [0.5, 1): L(m) and N(m) (every mantissa). log2 of m 2^e is e + L(m)
  rounded toward zero for e >= 0, e + 1 + N(m) rounded toward zero for e < 0 (the unit keeps bits of log2 of
  the mantissa that L rounds away, and log2(0.5) is -1 + 2^-23: N is not L - 1); checked exhaustively for e = 1,
  -2, -10 and -100; `log(x)` = log2(x) * ln(2) and `pow(x, y)` = exp2(y * log2(x)), each step rounded;
- f32 `sin` of the first quadrant, S[r] for 2^23 steps r of 2^-25 turn. sin and cos of any x take t = x / (2 pi)
  as x * 0.15915494 rounded toward zero, then k = the fraction of |t| in steps of 2^-25 (cos: k + 2^23); of
  quadrant q = k div 2^23 and r = k mod 2^23 the value is S[r] (q even) or S[2^23 - 1 - r] (q odd), negated
  for q >= 2, and sin takes t's sign (checked over [4, 8), [-2, -1), [2, 4) and [2^63, 2^64) exhaustively);
- f16: every one of the 65,536 inputs of 1/x, inversesqrt, sqrt, exp2, log2, exp, log, sin, cos and tanh (H100),
  and of asin, acos, atan, asinh, acosh and atanh (H200, the same chip: tests/data/h100-vulkan/float-model).
Built from them (measured on 16,384 scalar inputs each): f32 `x / y` = x * rcp(y) (one f32 multiply); f16
`x / y` = x * rcp16(y) in f16; f32 `exp(x)` = exp2(x * log2(e)) with the product rounded to f32. Measured on the
H200 (funcs.comp, 40,960 inputs each; f16 over every input): `tan` = sin * rcp(cos) (f32; f16 with the f16 tables
in f16), `sinh` / `cosh` = (exp(x) -/+ exp(-x)) * 0.5 in f32 (f16: the f32 rule, converted), f32 `atanh` =
0.5 log1p(2 |x| rcp(1 - |x|)) with a log1p of its own (atanh_f32: every f32 of [2^-6, 1)), f32 asin, acos, atan,
atan2, asinh and acosh as the driver's own code computes them (read from its shader cache: asin_f32 ...),
`round` = roundEven,
`sign(NaN)` = 0, `degrees` / `radians` one multiply by the constant rounded to the type.
Every function takes operands already flushed by the caller and returns values before the caller's flush and NaN
pattern (compiled_floats.CodeFloats finishes them)."""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from .rounding import fma

TABLES = Path(__file__).resolve().parent / "tables" / "h100_functions.npz"
# the f16 functions measured over every input (GLSL.std.450 names, and 1/x as "rcp")
F16_TABLES = {"rcp": "rcp", "InverseSqrt": "rsqrt", "Sqrt": "sqrt", "Exp2": "exp2", "Log2": "log2", "Exp": "exp",
              "Log": "log", "Sin": "sin", "Cos": "cos", "Tanh": "tanh"}
F16_TABLES.update({"Asin": "asin", "Acos": "acos", "Atan": "atan", "Asinh": "asinh", "Acosh": "acosh",
                   "Atanh": "atanh"})
# the f32 functions not reproduced (the IEEE result stands): none since the driver's own code was read (below)
F32_NOT_REPRODUCED: tuple[str, ...] = ()
_LOG2E = np.float32(1.4426950408889634)
_LN2 = np.float32(0.6931471805599453)
_TINY = np.float32(np.finfo(np.float32).tiny)


@cache
def _table(name: str) -> np.ndarray:
    """One table, read and decoded when first used (a run that only divides reads only `rcp`): f32 ones as float32
    (`ex2` as P(f), exp2 of the fraction alone: exact halves), f16 ones (`h_<function>`) as float16; the f32
    lookups widen what they index to float64."""
    with np.load(TABLES) as z:
        if name.startswith("h_"):
            return z[name].view(np.float16)
        bits = np.concatenate([z[f"{name}_first"].astype(np.int64), z[f"{name}_diff"].astype(np.int64)])
    out = np.cumsum(bits).astype(np.uint32).view(np.float32)
    return out / np.float32(2) if name == "ex2" else out


def _parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32), u & np.uint32(0x7FFFFF)


def rcp_f32(x: np.ndarray) -> np.ndarray:
    """The H100's f32 1/x (MUFU.RCP) of flushed operands; subnormal results are the caller's to flush."""
    x = np.asarray(x, np.float32)
    e, m = _parts(x)
    with np.errstate(all="ignore"):
        r = np.ldexp(_table("rcp")[m].astype(np.float64), 127 - e) * np.where(np.signbit(x), -1.0, 1.0)
        r = np.where(e == 0, np.copysign(np.inf, x), r)            # zero (subnormals are flushed first)
        r = np.where(e == 255, np.where(np.isnan(x), np.nan, np.copysign(0.0, x)), r)
    return r.astype(np.float32)


def divide(x: np.ndarray, y: np.ndarray, dt: np.dtype) -> np.ndarray:
    """OpFDiv as the H100's compiler builds it: f32 x * rcp(y); f16 x * rcp16(y) rounded in f16."""
    with np.errstate(all="ignore"):
        if dt == np.float16:
            return (np.asarray(x, np.float16) * f16_function("rcp", y)).astype(np.float16)
        r = rcp_f32(y)   # MUFU.RCP's own result is flushed (x / 2^127 is 0)
        r = np.where(np.abs(r) < _TINY, np.copysign(np.float32(0), r), r)
        return (np.asarray(x, np.float32) * r).astype(np.float32)


def ex2_f32(x: np.ndarray) -> np.ndarray:
    """The H100's f32 exp2 (MUFU.EX2) of flushed operands."""
    x = np.asarray(x, np.float32)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        a = np.minimum(np.abs(np.nan_to_num(x64)), 1e4)       # beyond +-1e4 the result is 0 or inf anyway
        F = np.trunc(a * 2.0 ** 23).astype(np.int64)
        whole = F & ((1 << 23) - 1) == 0
        F = np.where(x64 < 0, np.where(whole, -F, -F - 1), F)
        r = np.ldexp(_table("ex2")[F & ((1 << 23) - 1)].astype(np.float64), (F >> 23).clip(-400, 400).astype(np.int32))
        r = np.where(np.isnan(x), np.nan, r)
    return r.astype(np.float32)


def exp_f32(x: np.ndarray) -> np.ndarray:
    """GLSL exp: exp2(x * log2(e)), the product rounded to f32 and flushed."""
    with np.errstate(all="ignore"):
        p = np.asarray(x, np.float32) * _LOG2E
    return ex2_f32(np.where(np.abs(p) < _TINY, np.float32(0), p))


def _root(x: np.ndarray, name: str, sign: int) -> np.ndarray:
    x = np.asarray(x, np.float32)
    e, m = _parts(x)
    k = np.floor_divide(e - 127, 2)
    idx = ((e - 127 - 2 * k).astype(np.int64) << 23) | m.astype(np.int64)
    with np.errstate(all="ignore"):
        r = np.ldexp(_table(name)[idx].astype(np.float64), sign * k)
        if sign > 0:    # sqrt: 0 -> 0 of the same sign, +inf -> +inf
            r = np.where(e == 0, x, np.where(np.isposinf(x), np.inf, r))
        else:           # inversesqrt: 0 -> inf of the same sign, +inf -> 0
            r = np.where(e == 0, np.copysign(np.inf, x), np.where(np.isposinf(x), 0.0, r))
        r = np.where(np.signbit(x) & (e != 0) | np.isnan(x), np.nan, r)
    return r.astype(np.float32)


def sqrt_f32(x: np.ndarray) -> np.ndarray:
    return _root(x, "sqrt", 1)


def rsqrt_f32(x: np.ndarray) -> np.ndarray:
    return _root(x, "rsqrt", -1)


def _toward_zero(v: np.ndarray) -> np.ndarray:
    """float64 values rounded to f32 toward zero."""
    r = v.astype(np.float32)
    over = np.isfinite(v) & (np.abs(r.astype(np.float64)) > np.abs(v))
    return np.where(over, np.nextafter(r, np.float32(0)), r)


def lg2_f32(x: np.ndarray) -> np.ndarray:
    """The H100's f32 log2 (MUFU.LG2) of flushed operands."""
    x = np.asarray(x, np.float32)
    e, m = _parts(x)
    k = e.astype(np.int64) - 127
    with np.errstate(all="ignore"):
        r = _toward_zero(np.where(k >= 0, k + _table("lg2")[m].astype(np.float64),
                                  k + 1 + _table("lg2n")[m].astype(np.float64)))
        r = np.where(e == 0, np.float32(-np.inf), r)
        r = np.where(np.signbit(x) & (e != 0), np.float32(np.nan), r)
        r = np.where(np.isposinf(x), np.float32(np.inf), np.where(np.isnan(x), np.float32(np.nan), r))
    return r.astype(np.float32)


_TURN = np.float32(0.15915494309189535)   # 1 / (2 pi)


def _sincos(x: np.ndarray, cos: bool) -> np.ndarray:
    """The H100's f32 sin / cos (MUFU.SIN / MUFU.COS after x * 1/(2 pi) rounded toward zero) of flushed x."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        t = _toward_zero(x.astype(np.float64) * np.float64(_TURN)).astype(np.float64)
        a = np.abs(np.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0))
        k = np.floor((a - np.floor(a)) * 2.0 ** 25).astype(np.int64) + ((1 << 23) if cos else 0)
        q, r = (k >> 23) & 3, k & ((1 << 23) - 1)
        S = _table("sin")
        v = np.where(q & 1, S[(1 << 23) - 1 - r], S[r])
        v = np.where(q >= 2, -v, v)
        if not cos:
            v = np.where(np.signbit(t), -v, v)
        v = np.where(np.isfinite(x), v, np.nan)
    return v.astype(np.float32)


def sin_f32(x: np.ndarray) -> np.ndarray:
    return _sincos(x, False)


def cos_f32(x: np.ndarray) -> np.ndarray:
    return _sincos(x, True)


# tanh below 0.6: x + x^3 P(x^2), P of degree 3 by Horner in f32 fma steps; the coefficients are the f32 patterns
# that reproduce the H200's tanh of every f32 in [2^-4, 0.6) and 2^20 patterns from 2^-8 and 2^-12 (28,940,698
# inputs, tests/data/h100-vulkan/float-model/ranges_more.npz): fitted by least squares, then searched ulp by ulp
_TANH_P = np.array([0xBEAAA9ED, 0x3E085941, 0xBD563CAE, 0x3C80F082], np.uint32).view(np.float32)


def _tanh_small(ax: np.ndarray) -> np.ndarray:
    """|x| < 0.6: s = x * x; t = fma(fma(fma(c3, s, c2), s, c1), s, c0) * s; fma(t, x, x) (x >= 0 here)."""
    s = _flush32((ax * ax).astype(np.float32))
    t = np.full(ax.shape, _TANH_P[3], np.float32)
    for c in _TANH_P[2::-1]:
        t = _flush32(fma(t, s, np.full(ax.shape, c, np.float32), np.float32))
    t = _flush32((t * s).astype(np.float32))
    return fma(t, ax, ax, np.float32)


def tanh_f32(x: np.ndarray) -> np.ndarray:
    """GLSL tanh: for |x| >= 0.6, 1 - 2 / (exp(2 |x|) + 1) with the unit's exp2 and rcp (fma(-2, rcp(e + 1), 1)),
    x's sign (measured: every such input of the probe); below 0.6 a polynomial (_tanh_small: every input of
    [2^-4, 0.6) measured)."""
    x = np.asarray(x, np.float32)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        e = ex2_f32(_flush32(ax * np.float32(2 * 1.4426950408889634)))
        e = _flush32((e + np.float32(1)).astype(np.float32))
        # fma(-2, r, 1): -2 r + 1 is exact in float64 (r has 24 bits, |r| <= 1), so one rounding to f32
        big = (np.float64(-2) * _flush32(rcp_f32(e)).astype(np.float64) + 1.0).astype(np.float32)
        r = np.where((ax >= np.float32(0.6)) | np.isnan(x), big, _tanh_small(ax))
    return np.copysign(r, x).astype(np.float32)


# log1p(u) = k ln 2 + f + f^2 Q(f) (Q by Horner in f32 fma steps, its constant -0.5), f the reduced argument: the
# coefficients of the H200's f32 atanh, which match CUDA's atanhf (sm_90, nvcc -ftz=true) bit for bit on every f32 of
# [2^-6, 1) (tests/data/h100-vulkan/float-model README, "Sixth run"); the first is the f32 pattern, the others exact
_LOG1P_Q = np.array([-0.04534861445426941, 0.10546888411045074463, -0.13229703903198242188, 0.14491446316242218018,
                     -0.16641564667224884033, 0.19988867640495300293, -0.25000196695327758789,
                     0.33333510160446166992, -0.5], np.float32)
_LN2_F32 = np.float32(0.69314718246459960938)


def _fma32(a, b, c) -> np.ndarray:
    return _flush32(fma(np.asarray(a, np.float32), np.asarray(b, np.float32), np.asarray(c, np.float32), np.float32))


def _log1p_f32(u: np.ndarray) -> np.ndarray:
    """log(1 + u) of f32 u >= -1 as the H200 computes it inside atanh: k from the exponent of u + 1 rounded toward
    zero (3/4 subtracted first), the integer scaling of u's bits by 2^-k, f = u 2^-k + 2^-k - 1,
    then fma(k, ln 2, fma(f, f Q(f), f)); +inf, NaN and u < -1 give u * inf + inf (inf, NaN, NaN), -0 gives -0."""
    u = np.asarray(u, np.float32)
    bits = u.view(np.uint32).astype(np.int64)
    with np.errstate(all="ignore"):
        t = _toward_zero(u.astype(np.float64) + 1.0).astype(np.float32)
        e = (t.view(np.uint32).astype(np.int64) - 0x3F400000) & 0xFF800000
        e = np.where(e >= 1 << 31, e - (1 << 32), e)                      # the exponent step, signed, in bits
        m = ((bits - e) & 0xFFFFFFFF).astype(np.uint32).view(np.float32)  # u 2^-k
        s = _fma32(((0x40800000 - e) & 0xFFFFFFFF).astype(np.uint32).view(np.float32), 0.25, -1.0)   # 2^-k - 1
        f = _flush32((m + s).astype(np.float32))
        k = _flush32((e.astype(np.float32) * np.float32(2.0 ** -23)).astype(np.float32))
        q = np.full(u.shape, _LOG1P_Q[0], np.float32)
        for c in _LOG1P_Q[1:]:
            q = _fma32(f, q, c)
        r = _fma32(k, _LN2_F32, _fma32(f, _flush32((f * q).astype(np.float32)), f))
        special = bits >= 0x7F800000                         # +inf, NaN, and every negative u (sign bit set)
        beyond = bits.astype(np.uint32).view(np.int32) >= -0x407FFFFF   # +inf, NaN and u < -1 (not -1 <= u <= -0)
        r = np.where(special & beyond, u * np.float32(np.inf) + np.float32(np.inf), r)   # inf, NaN, NaN
        r = np.where(special & (u == 0), np.float32(-0.0), r)
    return r.astype(np.float32)


def atanh_f32(x: np.ndarray) -> np.ndarray:
    """GLSL atanh: 0.5 log1p(2 |x| / (1 - |x|)) with x's sign, the quotient |x| * (2 rcp(1 - |x|)) (the unit's
    rcp), _log1p_f32; |x| > 2^126 takes log1p(-2) (NaN)."""
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        r = _flush32(rcp_f32(_flush32((np.float32(1) - a).astype(np.float32))))
        u = _flush32((a * _flush32((r + r).astype(np.float32))).astype(np.float32))
        u = np.where(a > np.float32(8.50705917302346158658e+37), np.float32(-2), u)
        return _flush32((np.copysign(np.float32(0.5), x) * _log1p_f32(u)).astype(np.float32))


# ---- the inverse trigonometric and hyperbolic functions, as the driver compiles them --------------------------
# Read from the H200's Vulkan driver's own code for range_more.comp (its shader cache, disassembled: the README of
# tests/data/h100-vulkan/float-model, "Seventh run") and checked bit for bit against every f32 of the fifth run's
# binades ([2^-6, 4) or [2^-6, 1); acosh [1, 4)) and funcs.npz. Each step is one f32 instruction, flushed.
_ASIN_P = np.array([0x3D53F941, 0x3C94D2E9, 0x3D3F841F, 0x3D994929, 0x3E2AAB94], np.uint32).view(np.float32)
_ATAN_Q = (np.float32(11.33538818359375), np.float32(28.84246826171875), np.float32(19.6966705322265625))
_ATAN_P = (np.uint32(0x3F52C7EA).view(np.float32), np.float32(-5.6748671531677246094),
           np.float32(-6.5655550956726074219))
_HALF_PI, _PI = np.float32(1.5707963705062866211), np.float32(3.1415927410125732422)
# acosh beyond 2^23: log(d) + ln 2 with a log of its own (k from the bits less 0x3f2aaaab; R(f) by Horner)
_LOG_R = np.array([0x3E055027, 0x3E1039F6, 0xBDF8CDCC, 0x3E0F2955, 0xBE2AD8B9, 0x3E4CED0B, 0xBE7FFF22,
                   0x3EAAAA78, 0xBF000000], np.uint32).view(np.float32)


def _mul32(a, b) -> np.ndarray:
    return _flush32((np.asarray(a, np.float32) * np.asarray(b, np.float32)).astype(np.float32))


def _add32(a, b) -> np.ndarray:
    return _flush32((np.asarray(a, np.float32) + np.asarray(b, np.float32)).astype(np.float32))


def _with_sign(r: np.ndarray, x: np.ndarray) -> np.ndarray:
    """r (>= 0) with x's sign bit OR-ed in, NaN left as it is."""
    return np.where(np.isnan(r), r, np.copysign(r, x)).astype(np.float32)


def _asin_core(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """t = |x|, or sqrt((1 - |x|) * 0.5) (the unit's sqrt) above 0.57; fma(t, s P(s), t), s = t * t."""
    a = np.abs(x)
    big = a > np.float32(0.57)
    with np.errstate(all="ignore"):
        t = np.where(big, _flush32(sqrt_f32(_mul32(_add32(np.float32(1), -a), np.float32(0.5)))), a)
        s = _mul32(t, t)
        p = np.full(x.shape, _ASIN_P[0], np.float32)
        for c in _ASIN_P[1:]:
            p = _fma32(s, p, c)
        return _fma32(t, _mul32(s, p), t), big


def asin_f32(x: np.ndarray) -> np.ndarray:
    """GLSL asin: _asin_core, above 0.57 fma(r, -2, pi/2); x's sign."""
    x = np.asarray(x, np.float32)
    r, big = _asin_core(x)
    with np.errstate(all="ignore"):
        return _with_sign(np.where(big, _fma32(r, -2.0, _HALF_PI), r), x)


def acos_f32(x: np.ndarray) -> np.ndarray:
    """GLSL acos: _asin_core; 2 r above 0.57, else pi/2 - r; pi - that for x < 0."""
    x = np.asarray(x, np.float32)
    r, big = _asin_core(x)
    with np.errstate(all="ignore"):
        o = np.where(big, _mul32(r, 2.0), _add32(_HALF_PI, -r))
        return np.where(x < 0, _add32(_PI, -o), o).astype(np.float32)


def _atan_ratio(t: np.ndarray) -> np.ndarray:
    """atan(t) for 0 <= t <= 1: fma(t (s P(s)), rcp(Q(s)), t), s = t * t, P and Q of degree 2 and 3."""
    with np.errstate(all="ignore"):
        s = _mul32(t, t)
        q = _fma32(s, _fma32(s, _add32(s, _ATAN_Q[0]), _ATAN_Q[1]), _ATAN_Q[2])
        p = _fma32(s, _fma32(s, -_ATAN_P[0], _ATAN_P[1]), _ATAN_P[2])
        return _fma32(_mul32(t, _mul32(s, p)), _flush32(rcp_f32(q)), t)


def atan_f32(x: np.ndarray) -> np.ndarray:
    """GLSL atan(x): above 1, pi/2 - _atan_ratio(rcp(|x|)); x's sign."""
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    big = a > 1
    with np.errstate(all="ignore"):
        r = _atan_ratio(np.where(big, _flush32(rcp_f32(a)), a))
        return _with_sign(np.where(big, _add32(_HALF_PI, -r), r), x)


def atan2_f32(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """GLSL atan(y, x): both scaled by 1/16 when the larger magnitude is >= 16; both 0: 0 or pi (x's sign bit)
    with y's sign; both infinite: pi/4 or 3 pi/4 with y's sign; else _atan_ratio(min * rcp(max)), pi/2 - that when
    |y| > |x|, pi - that when x's sign bit is set, y's sign; NaN when either is."""
    y, x = np.asarray(y, np.float32), np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(y), np.abs(x)) >= 16
        y = np.where(scale, _mul32(y, 0.0625), y)
        x = np.where(scale, _mul32(x, 0.0625), x)
        ay, ax = np.abs(y), np.abs(x)
        r = _atan_ratio(_mul32(np.minimum(ay, ax), _flush32(rcp_f32(np.maximum(ay, ax)))))
        r = np.where(ay > ax, _add32(_HALF_PI, -r), r)
        r = np.where(np.signbit(x), _add32(_PI, -r), r)
        r = np.where(np.isnan(ay + ax), np.float32(np.nan), np.copysign(r, y))
        zero = (ay == 0) & (ax == 0)
        r = np.where(zero, np.copysign(np.where(np.signbit(x), _PI, np.float32(0)), y), r)
        inf = np.isinf(ay) & np.isinf(ax)
        r = np.where(inf, np.copysign(np.where(np.signbit(x), np.float32(2.3561945), np.float32(0.78539819)), y), r)
    return r.astype(np.float32)


def atan2_f16(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """GLSL atan(y, x) of f16: both scaled by 1/16 in f16 when the larger magnitude is >= 16 (subnormal results
    lose bits), then atan2_f32 of them widened, converted to f16 (the driver's code)."""
    y, x = np.asarray(y, np.float16), np.asarray(x, np.float16)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(y), np.abs(x)) >= 16
        y = np.where(scale, y * np.float16(0.0625), y).astype(np.float16)
        x = np.where(scale, x * np.float16(0.0625), x).astype(np.float16)
        return atan2_f32(y.astype(np.float32), x.astype(np.float32)).astype(np.float16)


def asinh_f32(x: np.ndarray) -> np.ndarray:
    """GLSL asinh: log1p(fma(|x|, rcp(sqrt(fma(r, r, 1)) + r), |x|)), r = rcp(|x|) (_log1p_f32); above 2^126
    lg2(|x|) * ln 2 + ln 2; x's sign."""
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        huge = _add32(_mul32(lg2_f32(a), _LN2_F32), _LN2_F32)
        r = _flush32(rcp_f32(a))
        q = _flush32(rcp_f32(_add32(_flush32(sqrt_f32(_fma32(r, r, 1.0))), r)))
        v = _log1p_f32(_fma32(a, q, a))
        return _with_sign(np.where(a > np.float32(8.50705917302346158658e+37), huge, v), x)


def _log_big(d: np.ndarray) -> np.ndarray:
    """log(d) + ln 2 as acosh computes it beyond 2^23 (subnormal d scaled by 2^23 first; 0: -inf)."""
    with np.errstate(all="ignore"):
        sub = d < np.float32(np.finfo(np.float32).tiny)
        m = np.where(sub, (d * np.float32(8388608)).astype(np.float32), d)
        bits = m.view(np.uint32).astype(np.int64)
        e = (bits - 0x3F2AAAAB) & 0xFF800000
        e = np.where(e >= 1 << 31, e - (1 << 32), e)
        f = _add32(((bits - e) & 0xFFFFFFFF).astype(np.uint32).view(np.float32), -1.0)
        p = _fma32(f, -_LOG_R[0], _LOG_R[1])
        for c in _LOG_R[2:]:
            p = _fma32(f, p, c)
        k = _fma32(e.astype(np.float32), np.float32(2.0 ** -23), np.where(sub, np.float32(-23), np.float32(0)))
        r = _fma32(k, _LN2_F32, _fma32(f, _mul32(f, p), f))
        r = np.where(m.view(np.uint32) > 0x7F7FFFFF, m * np.float32(np.inf) + np.float32(np.inf), r)
        return np.where(m != 0, _add32(r, _LN2_F32), np.float32(-np.inf)).astype(np.float32)


def acosh_f32(x: np.ndarray) -> np.ndarray:
    """GLSL acosh: d = x - 1; log1p(d + sqrt(d + x * d)) (the product rounded toward zero; _log1p_f32), or for
    d > 2^23 (and negative d, NaN: compared as bits) _log_big(d)."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        d = _add32(x, -1.0)
        w = _flush32(_toward_zero(x.astype(np.float64) * d.astype(np.float64)).astype(np.float32))
        small = _log1p_f32(_add32(d, _flush32(sqrt_f32(_add32(d, w)))))
        return np.where(d.view(np.uint32) > 0x4B000000, _log_big(d), small).astype(np.float32)


def _flush32(v: np.ndarray) -> np.ndarray:
    return np.where(np.abs(v) < _TINY, np.copysign(np.float32(0), v), v).astype(np.float32)


def log_f32(x: np.ndarray) -> np.ndarray:
    """GLSL log: log2(x) * ln(2), rounded to f32."""
    with np.errstate(all="ignore"):
        return (lg2_f32(x) * _LN2).astype(np.float32)


def _f16_toward_zero(v: np.ndarray) -> np.ndarray:
    """f32 values to f16 rounded toward zero (infinities and NaN kept; finite values beyond the range give 65504)."""
    v = np.asarray(v, np.float32)
    with np.errstate(all="ignore"):
        h = v.astype(np.float16)
        over = np.isfinite(v) & (np.abs(h.astype(np.float32)) > np.abs(v))
        return np.where(over, np.nextafter(h, np.float16(0)), h).astype(np.float16)


def pow_h100(x: np.ndarray, y: np.ndarray, flush) -> np.ndarray:
    """GLSL pow as the H100 computes it: exp2(y * log2(x)). f32: the product rounded (and flushed: `flush`) in f32
    (measured: exact where log2 is). f16: the unit's f32 log2 of x converted to f16 toward zero, times y in f16
    (rounded to nearest), then the f16 exp2 (the unit's f32 exp2 converted toward zero: the f16 table); every f16
    x of 9 runs at fixed y or x and the 16,384 of the scalar probe (the H200: tests/data/h100-vulkan/float-model
    f16_more.npz, pow16.npz)."""
    dt = np.asarray(x).dtype
    with np.errstate(all="ignore"):
        if dt == np.float16:
            lg = _f16_toward_zero(_flush32(lg2_f32(np.asarray(x).astype(np.float32))))
            return f16_function("exp2", (np.asarray(y, np.float16) * lg).astype(np.float16))
        return ex2_f32(flush((np.asarray(y, np.float32) * flush(lg2_f32(x))).astype(np.float32)))


def f16_function(name: str, x: np.ndarray) -> np.ndarray:
    """An f16 function by table lookup (name: a key of F16_TABLES' values, e.g. "exp2")."""
    x = np.asarray(x, np.float16)
    return _table(f"h_{name}")[x.view(np.uint16)]


def tan_f32(x: np.ndarray) -> np.ndarray:
    """GLSL tan: sin(x) * rcp(cos(x)), each step flushed."""
    with np.errstate(all="ignore"):
        return (_flush32(sin_f32(x)) * _flush32(rcp_f32(_flush32(cos_f32(x))))).astype(np.float32)


def _sinh_cosh(x: np.ndarray, sign: float) -> np.ndarray:
    """GLSL sinh / cosh: (exp(x) - / + exp(-x)) * 0.5, each step rounded to f32 and flushed."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        e = _flush32(exp_f32(x))
        en = _flush32(exp_f32(-x))
        return (_flush32((e + np.float32(sign) * en).astype(np.float32)) * np.float32(0.5)).astype(np.float32)


def sinh_f32(x: np.ndarray) -> np.ndarray:
    return _sinh_cosh(x, -1.0)


def cosh_f32(x: np.ndarray) -> np.ndarray:
    return _sinh_cosh(x, 1.0)


def _sign(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), x.dtype.type(0), np.sign(x)).astype(x.dtype)


def _by_constant(c: float):
    """degrees, radians: one multiply by the constant rounded to the operand's type."""
    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return (x * x.dtype.type(c)).astype(x.dtype)
    return run


F32 = {"Exp2": ex2_f32, "Exp": exp_f32, "Sqrt": sqrt_f32, "InverseSqrt": rsqrt_f32, "Log2": lg2_f32, "Log": log_f32,
       "Sin": sin_f32, "Cos": cos_f32, "Tanh": tanh_f32, "Tan": tan_f32, "Sinh": sinh_f32, "Cosh": cosh_f32,
       "Atanh": atanh_f32, "Asin": asin_f32, "Acos": acos_f32, "Atan": atan_f32, "Asinh": asinh_f32,
       "Acosh": acosh_f32}
# the same in f32 and f16 (plain arithmetic or exact)
BOTH = {"Round": np.rint, "FSign": _sign, "Degrees": _by_constant(180 / np.pi), "Radians": _by_constant(np.pi / 180)}


def _tan_f16(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (f16_function("sin", x) * f16_function("rcp", f16_function("cos", x))).astype(np.float16)


# f16 ones built from others: tan with the f16 tables in f16, sinh / cosh the f32 rule converted (every input)
F16 = {"Tan": _tan_f16, "Sinh": lambda x: sinh_f32(x.astype(np.float32)).astype(np.float16),
       "Cosh": lambda x: cosh_f32(x.astype(np.float32)).astype(np.float16)}


def glsl_function(name: str, x: np.ndarray) -> np.ndarray | None:
    """A GLSL.std.450 function of one float operand as the H100 computes it, or None where not reproduced."""
    dt = np.asarray(x).dtype
    if name in BOTH and dt in (np.float32, np.float16):
        return BOTH[name](np.asarray(x))
    if dt == np.float16 and name in F16_TABLES:
        return f16_function(F16_TABLES[name], x)
    if dt == np.float16 and name in F16:
        return F16[name](x)
    if dt == np.float32 and name in F32:
        return F32[name](x)
    return None


# ---- what the model does not reproduce -----------------------------------------------------------------------
# GLSL.std.450 instructions whose H100 results the model does not reproduce, per float width, measured on
# tests/data/h100-vulkan/float-model (scalar.npz, funcs.npz; sizes in docs/interpreter-coopmat.md): faceforward
# where the driver factorises the dot product; refract with a run-time eta (its
# code was read for a constant eta only, which the model reproduces)
NOT_REPRODUCED_BY_WIDTH = {32: frozenset(F32_NOT_REPRODUCED) | {"Refract", "FaceForward"},
                           16: frozenset({"Refract", "FaceForward"})}
NOT_REPRODUCED = NOT_REPRODUCED_BY_WIDTH[32] | NOT_REPRODUCED_BY_WIDTH[16]
# reproduced for 2x2, 3x3 and 4x4 matrices, f32 and f16 (measured: funcs.npz, det.npz)
MATRIX_FUNCTIONS = frozenset({"Determinant", "MatrixInverse"})
# --compare-interpreter's documented model tolerance for outputs of modules that use them: |interpreter - device|
# <= TOLERANCE * max(|device|, 1), both finite or the same non-finite value (docs/interpreter-coopmat.md); f16
# outputs TOLERANCE_F16 (about two f16 ulps)
TOLERANCE = 2.0 ** -16
TOLERANCE_F16 = 2.0 ** -9


def not_reproduced(module) -> list[str]:
    """The GLSL.std.450 instructions of a module (spvcoop.core Module) that the H100 model does not reproduce (for
    the float width they compute in)."""
    from ..core.spirv_grammar import load
    sets = {i.result_id for i in module.instructions if i.opname == "OpExtInstImport"
            and i.operands and i.operands[0].value == "GLSL.std.450"}
    if not sets:
        return []
    ext = load().ext_set("GLSL.std.450")
    types = {i.result_id: i for i in module.instructions if i.opname.startswith("OpType")}
    used = set()
    for i in module.instructions:
        if i.opname == "OpExtInst" and i.operands[0].value in sets:
            inst = ext.by_opcode.get(i.operands[1].value)   # type: ignore[union-attr]
            if inst is None:
                continue
            width = _float_width(types, i.result_type)
            if inst.opname in (NOT_REPRODUCED_BY_WIDTH.get(width, NOT_REPRODUCED) if width else NOT_REPRODUCED):
                used.add(inst.opname)
    return sorted(used)


def _float_width(types: dict, type_id) -> int | None:
    """The component width of a float scalar, vector or matrix type (None for others)."""
    t = types.get(type_id)
    while t is not None and t.opname in ("OpTypeVector", "OpTypeMatrix"):
        t = types.get(t.operands[0].value)
    return t.operands[0].value if t is not None and t.opname == "OpTypeFloat" else None


def within_tolerance(interp: np.ndarray, device: np.ndarray) -> bool:
    """Whether every element of two float arrays agrees within TOLERANCE (non-finite values bit for bit)."""
    tol = TOLERANCE_F16 if np.float16 in (np.asarray(interp).dtype, np.asarray(device).dtype) else TOLERANCE
    a = np.asarray(interp, np.float64).ravel()
    b = np.asarray(device, np.float64).ravel()
    fin = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(np.isnan(a[~fin]), np.isnan(b[~fin])) or \
            not np.array_equal(np.nan_to_num(a[~fin], nan=0.0), np.nan_to_num(b[~fin], nan=0.0)):
        return False
    return bool((np.abs(a[fin] - b[fin]) <= tol * np.maximum(np.abs(b[fin]), 1.0)).all())

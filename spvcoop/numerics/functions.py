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
- f16: every one of the 65,536 inputs of 1/x, inversesqrt, sqrt, exp2, log2, exp, log, sin, cos and tanh.
Built from them (measured on 16,384 scalar inputs each): f32 `x / y` = x * rcp(y) (one f32 multiply); f16
`x / y` = x * rcp16(y) in f16; f32 `exp(x)` = exp2(x * log2(e)) with the product rounded to f32.
Every function takes operands already flushed by the caller and returns values before the caller's flush and NaN
pattern (compiled_floats.CodeFloats finishes them)."""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

TABLES = Path(__file__).resolve().parent / "tables" / "h100_functions.npz"
# the f16 functions measured over every input (GLSL.std.450 names, and 1/x as "rcp")
F16_TABLES = {"rcp": "rcp", "InverseSqrt": "rsqrt", "Sqrt": "sqrt", "Exp2": "exp2", "Log2": "log2", "Exp": "exp",
              "Log": "log", "Sin": "sin", "Cos": "cos", "Tanh": "tanh"}
# the f32 functions reproduced: Exp2, Exp, Sqrt, InverseSqrt, Log2, Log, Sin, Cos (others keep the IEEE result:
# see F32_NOT_REPRODUCED)
F32_NOT_REPRODUCED = ("Tan", "Tanh", "Asin", "Acos", "Atan", "Atan2", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")
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


def tanh_f32(x: np.ndarray) -> np.ndarray:
    """GLSL tanh: for |x| >= 0.6, 1 - 2 / (exp(2 |x|) + 1) with the unit's exp2 and rcp (fma(-2, rcp(e + 1), 1)),
    x's sign (measured: every such input of the probe); below 0.6 a polynomial not identified: the IEEE tanh
    rounded (not reproduced, within 2 ulp)."""
    x = np.asarray(x, np.float32)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        e = ex2_f32(_flush32(ax * np.float32(2 * 1.4426950408889634)))
        e = _flush32((e + np.float32(1)).astype(np.float32))
        # fma(-2, r, 1): -2 r + 1 is exact in float64 (r has 24 bits, |r| <= 1), so one rounding to f32
        big = (np.float64(-2) * _flush32(rcp_f32(e)).astype(np.float64) + 1.0).astype(np.float32)
        small = np.tanh(ax.astype(np.float64)).astype(np.float32)
        r = np.where((ax >= np.float32(0.6)) | np.isnan(x), big, small)
    return np.copysign(r, x).astype(np.float32)


def _flush32(v: np.ndarray) -> np.ndarray:
    return np.where(np.abs(v) < _TINY, np.copysign(np.float32(0), v), v).astype(np.float32)


def log_f32(x: np.ndarray) -> np.ndarray:
    """GLSL log: log2(x) * ln(2), rounded to f32."""
    with np.errstate(all="ignore"):
        return (lg2_f32(x) * _LN2).astype(np.float32)


def pow_h100(x: np.ndarray, y: np.ndarray, flush) -> np.ndarray:
    """GLSL pow as the H100 computes it: exp2(y * log2(x)), the product rounded (and flushed: `flush`) in the
    operands' type (f32 measured: exact where log2 is; f16 with the f16 tables: 88% of the probe)."""
    dt = np.asarray(x).dtype
    with np.errstate(all="ignore"):
        if dt == np.float16:
            return f16_function("exp2", (y * f16_function("log2", x)).astype(np.float16))
        return ex2_f32(flush((np.asarray(y, np.float32) * flush(lg2_f32(x))).astype(np.float32)))


def f16_function(name: str, x: np.ndarray) -> np.ndarray:
    """An f16 function by table lookup (name: a key of F16_TABLES' values, e.g. "exp2")."""
    x = np.asarray(x, np.float16)
    return _table(f"h_{name}")[x.view(np.uint16)]


F32 = {"Exp2": ex2_f32, "Exp": exp_f32, "Sqrt": sqrt_f32, "InverseSqrt": rsqrt_f32, "Log2": lg2_f32, "Log": log_f32,
       "Sin": sin_f32, "Cos": cos_f32, "Tanh": tanh_f32}


def glsl_function(name: str, x: np.ndarray) -> np.ndarray | None:
    """A GLSL.std.450 function of one float operand as the H100 computes it, or None where not reproduced."""
    dt = np.asarray(x).dtype
    if dt == np.float16 and name in F16_TABLES:
        return f16_function(F16_TABLES[name], x)
    if dt == np.float32 and name in F32:
        return F32[name](x)
    return None


# ---- what the model does not reproduce -----------------------------------------------------------------------
# GLSL.std.450 instructions whose H100 results the model does not reproduce (f32; f16 ones are tables but Pow and
# SmoothStep), measured on tests/data/h100-vulkan/float-model/scalar.npz: tanh of |x| < 0.6 within 2 ulp; the
# others not measured
NOT_REPRODUCED = frozenset(F32_NOT_REPRODUCED) | {"SmoothStep", "Pow"}   # f16 smoothstep and pow
# --compare-interpreter's documented model tolerance for outputs of modules that use them: |interpreter - device|
# <= TOLERANCE * max(|device|, 1), both finite or the same non-finite value (docs/interpreter-coopmat.md)
TOLERANCE = 2.0 ** -16


def not_reproduced(module) -> list[str]:
    """The GLSL.std.450 instructions of a module (spvcoop.core Module) that the H100 model does not reproduce."""
    from ..core.spirv_grammar import load
    sets = {i.result_id for i in module.instructions if i.opname == "OpExtInstImport"
            and i.operands and i.operands[0].value == "GLSL.std.450"}
    if not sets:
        return []
    ext = load().ext_set("GLSL.std.450")
    used = set()
    for i in module.instructions:
        if i.opname == "OpExtInst" and i.operands[0].value in sets:
            inst = ext.by_opcode.get(i.operands[1].value)   # type: ignore[union-attr]
            if inst is not None and inst.opname in NOT_REPRODUCED:
                used.add(inst.opname)
    return sorted(used)


def within_tolerance(interp: np.ndarray, device: np.ndarray) -> bool:
    """Whether every element of two float arrays agrees within TOLERANCE (non-finite values bit for bit)."""
    a = np.asarray(interp, np.float64).ravel()
    b = np.asarray(device, np.float64).ravel()
    fin = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(np.isnan(a[~fin]), np.isnan(b[~fin])) or \
            not np.array_equal(np.nan_to_num(a[~fin], nan=0.0), np.nan_to_num(b[~fin], nan=0.0)):
        return False
    return bool((np.abs(a[fin] - b[fin]) <= TOLERANCE * np.maximum(np.abs(b[fin]), 1.0)).all())

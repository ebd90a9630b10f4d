"""Floats with an FP Encoding (SPV_KHR_bfloat16, SPV_EXT_float8): their numpy types and conversions.

The values are ml_dtypes' numpy types (bfloat16, float8_e4m3fn, float8_e5m2): their bit patterns are the
SPIR-V encodings, and their casts round to nearest even. What SPIR-V adds on top, here:
- SPV_KHR_bfloat16: a conversion to or from bfloat16 goes through IEEE binary32 (an f64 or an integer is
  rounded to f32 first, then to bf16: two roundings, as the extension says).
- SPV_EXT_float8: out-of-range values and infinities become NaN (E4M3, which has no infinity) or
  infinity (E5M2); with the SaturatedToLargestFloat8NormalConversionEXT decoration they become the
  largest finite value of their sign. NaN stays NaN. A conversion from f64 is rounded once (ml_dtypes
  would round through f32: rounded to odd first, which makes the second rounding exact).
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from ..core.literals import ENCODED_FLOATS as ENCODED_FLOAT_NAMES

# ml_dtypes is imported on first use (`_load`): a run without these encodings never pays for it. Functions
# here call _load() before touching the names it sets; other modules reach them as attributes
# (`encodings.BF16`), which module __getattr__ answers.
_LAZY = ("BF16", "E4M3", "E5M2", "FP8", "ENCODED_FLOATS", "ml_dtypes")
SHORT_NAMES = ENCODED_FLOAT_NAMES   # FP Encoding enumerant -> bf16 / e4m3 / e5m2
DTYPE_NAMES = ("bfloat16", "float8_e4m3fn", "float8_e5m2")   # ml_dtypes' names (run-spec dtypes)
SATURATE = "SaturatedToLargestFloat8NormalConversionEXT"
if TYPE_CHECKING:   # what _load sets, for the checkers only: at run time they stay unset until _load
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
    E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
    E5M2 = np.dtype(ml_dtypes.float8_e5m2)
    FP8 = (E4M3, E5M2)
    ENCODED_FLOATS = {"BFloat16KHR": BF16, "Float8E4M3EXT": E4M3, "Float8E5M2EXT": E5M2}


def _load() -> None:
    g = globals()
    if "BF16" in g:
        return
    import ml_dtypes
    bf16 = np.dtype(ml_dtypes.bfloat16)
    e4m3 = np.dtype(ml_dtypes.float8_e4m3fn)   # OCP E4M3: no infinities, NaN = S.1111.111
    e5m2 = np.dtype(ml_dtypes.float8_e5m2)
    g.update(ml_dtypes=ml_dtypes, E4M3=e4m3, E5M2=e5m2, FP8=(e4m3, e5m2),
             ENCODED_FLOATS={"BFloat16KHR": bf16, "Float8E4M3EXT": e4m3, "Float8E5M2EXT": e5m2})
    g["BF16"] = bf16   # last: its presence says everything is set


def __getattr__(name: str):
    if name in _LAZY:
        _load()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def dtype(name: str) -> np.dtype:
    """np.dtype(name), also for ml_dtypes' names (which numpy knows only once ml_dtypes is imported)."""
    if name in DTYPE_NAMES:
        _load()
    return np.dtype(name)


def is_encoded(dt: np.dtype) -> bool:
    # no value can have one of ml_dtypes' types before ml_dtypes is imported
    if "ml_dtypes" not in sys.modules:
        return False
    _load()
    return dt in (BF16, E4M3, E5M2)


def is_float(dt: np.dtype) -> bool:
    """IEEE halves/floats/doubles and the encoded floats (ml_dtypes' kinds are 'V' or 'f')."""
    return dt.kind == "f" or is_encoded(dt)


def largest(dt: np.dtype) -> float:
    _load()
    return float(ml_dtypes.finfo(dt).max)


def _to_odd_f32(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounded to odd (toward zero, low bit set when inexact): rounding that to a format of at
    most 22 significand bits gives the correctly rounded result of x."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        away = np.isfinite(x) & (np.abs(f.astype(np.float64)) > np.abs(x))
        f = np.where(away, np.nextafter(f, np.float32(0)), f)
        inexact = np.isfinite(x) & (f.astype(np.float64) != x)
    bits = f.view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(np.float32)


def convert(x: np.ndarray, dt: np.dtype, saturate: bool = False, bf16_truncate: bool = False) -> np.ndarray:
    """A float or integer array converted to float type dt with SPIR-V's rules (see the module text); bf16
    rounded to nearest even, or toward zero with bf16_truncate (both allowed by SPV_KHR_bfloat16)."""
    x = np.asarray(x)
    if not is_encoded(dt):
        return x.astype(dt)
    _load()
    if x.dtype == dt:
        return x
    if x.dtype.kind in "iub":
        x = x.astype(np.float64).astype(np.float32)   # an integer as f32 first (the extensions convert via f32)
    elif dt == BF16 or x.dtype != np.float64:
        x = x.astype(np.float32)                       # exact from f16/bf16/fp8; f64 -> f32 rounds (bf16)
    else:
        x = _to_odd_f32(x)                             # FP8 from f64: one rounding in the end
    if bf16_truncate and dt == BF16:
        return bf16_toward_zero(x)
    with np.errstate(over="ignore", invalid="ignore"):
        out = x.astype(dt)
    if saturate and dt in FP8:
        big = ~np.isfinite(out.astype(np.float32)) & ~np.isnan(x)
        if big.any():
            out = np.where(big, np.where(x < 0, -largest(dt), largest(dt)).astype(dt), out)
    return out


def bf16_toward_zero(x: np.ndarray) -> np.ndarray:
    """f32 -> bf16 as the H100 converts (--coop-numerics nvidia-tensorcore): the upper half of the f32 pattern,
    NaNs included (measured, tests/data/h100-vulkan/ext-numerics/cvt.npz: a NaN whose payload lies in the lower
    half becomes an infinity, 0x7f800001 -> 0x7f80; a signalling NaN stays signalling, 0x7fa00000 -> 0x7fa0)."""
    _load()
    f = np.ascontiguousarray(x, dtype=np.float32)
    return (f.view(np.uint32) >> 16).astype(np.uint16).view(BF16)


def bits_dtype(dt: np.dtype) -> np.dtype:
    """The unsigned integer type of the same width (bit patterns)."""
    return np.dtype(f"u{dt.itemsize}")

"""The plain value checks of run specs, expectation and input files (no pydantic: the run path of a
shader with an input file uses them alone; `runspec_schema` builds the pydantic models from them)."""
from __future__ import annotations

import math

from ..schema import short as _short
from ..yamlio import MiB

SPEC_KEYS = {"shader", "entry_point", "dispatch", "subgroup_size", "spec_constants", "push_constants", "buffers",
             "outputs", "max_steps"}
SOURCE_KEYS = ("data", "file", "random", "zeros", "arange")
DATA_KEYS = set(SOURCE_KEYS) | {"dtype", "shape"}
DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool", "bfloat16", "float8_e4m3fn", "float8_e5m2")   # the last three: ml_dtypes' names
DEFAULT_MAX_FILE_BYTES = 256 * MiB
MAX_DISPATCH_DIM = 2**31 - 1
MAX_DISPATCH_WORKGROUPS = 2**32 - 1   # the product; the interpreter's memory budget bounds what really runs


def _yaml_float(v):
    """YAML 1.1 reads `1e-5` (no dot) as a string: accept numeric strings where a number is wanted."""
    if isinstance(v, str):
        try:
            return float(v.replace("_", ""))
        except ValueError:
            return v
    return v


def _finite(v: float) -> float:
    if not math.isfinite(v):
        raise ValueError("must be a finite number")
    return v


def _dtype(v):
    if not isinstance(v, str) or v not in DTYPES:
        raise ValueError(f"unknown dtype {_short(v)} (one of: {', '.join(DTYPES)})")
    return v


def _pow2(v: int) -> int:
    if not 1 <= v <= 128 or v & (v - 1):
        raise ValueError(f"must be a power of two from 1 to 128, got {v}")
    return v


def _dispatch(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    return v


def _dispatch_product(v: list[int]) -> tuple[int, int, int]:
    d = tuple((list(v) + [1, 1])[:3])
    if d[0] * d[1] * d[2] > MAX_DISPATCH_WORKGROUPS:
        raise ValueError(f"dispatch of {d[0] * d[1] * d[2]} workgroups is over {MAX_DISPATCH_WORKGROUPS}")
    return d  # type: ignore[return-value]


def _key(v):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ValueError(f"a key must be a name or a number, got {_short(v)}")
    if isinstance(v, int) and not 0 <= v < 2**32:
        raise ValueError(f"id {v} is out of range 0..2^32-1")
    return v


def _spec_value(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        if not -2**63 <= v < 2**64:
            raise ValueError(f"{v} does not fit 64 bits")
        return v
    v = _yaml_float(v)
    if isinstance(v, float):
        return _finite(v)
    raise ValueError(f"a specialization constant is a boolean or a number, got {_short(v)}")


def _data_value(v):
    if isinstance(v, str) and v.startswith("&"):   # a buffer's device address
        return v
    if isinstance(v, (dict, list, int, float, str)) or v is None:
        return v
    raise ValueError(f"unsupported value {_short(v)}")


def _no_source(v):
    raise ValueError(f"give exactly one of {', '.join(SOURCE_KEYS)} (with optional dtype and shape)")


def _entry_kind(v) -> str:
    if not isinstance(v, dict):
        return "<inline>"
    present = [k for k in SOURCE_KEYS if k in v]
    if len(present) == 1:
        return f"<{present[0]}>"
    if present or "dtype" in v or "shape" in v:
        return "<bad>"
    return "<inline>"  # a structure given by member names


def _none_is_empty(v):
    return {} if v is None else v

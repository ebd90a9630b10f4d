"""The plain value checks of run specs, expectation and input files (no pydantic: the run path of a
shader with an input file uses them alone; `runspec_schema` builds the pydantic models from them)."""
from __future__ import annotations

import math

from ..core.schema import short as _short
from ..core.yamlio import LDict, LList, MiB
from ..interp.options import SPEC_KEYS as OPTION_KEYS

# the spec's own keys, then one per run option that has a spec key (interp/options.py declares them)
SPEC_KEYS = {"shader", "dispatch", "spec_constants", "push_constants", "buffers", "outputs"} | set(OPTION_KEYS)
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


# ---- plain forms: what the pydantic schema would accept unchanged, checked without it (start-up) -------
# Conservative by design: anything unusual (other types, random entries, tolerances) answers None/False and
# goes to the schema, which also reports every violation; tests/runspec/test_runspec_plain.py compares both.
_MAX_INT64 = 2**63 - 1


def _is_int(v) -> bool:
    return type(v) is int


def _plain_key(k) -> bool:
    return (type(k) is str or (type(k) is int and 0 <= k < 2**32))


def _plain_name(v) -> bool:
    return type(v) is str and 1 <= len(v) <= 4096


def _plain_data(v) -> bool:
    try:
        _data_value(v)
    except ValueError:
        return False
    return True


def _plain_dict(v) -> bool:
    return type(v) in (dict, LDict) and all(_plain_key(k) for k in v)


def _plain_ints(v, low: int, high: int, max_len: int) -> bool:
    return type(v) in (list, LList) and len(v) <= max_len and all(_is_int(x) and low <= x <= high for x in v)


def plain_entry(entry, expected: bool = False) -> bool:
    """Whether the buffer-entry schema (of a spec, or of an expectation file) accepts `entry` as it is."""
    kind = _entry_kind(entry)
    if kind == "<inline>":
        return _plain_data(entry)
    if kind in ("<bad>", "<random>") or expected:
        return False
    source = kind[1:-1]
    if any(k not in (source, "dtype", "shape") for k in entry):
        return False
    dtype, shape = entry.get("dtype"), entry.get("shape")
    if not (dtype is None or (type(dtype) is str and dtype in DTYPES)):
        return False
    if not (shape is None or _plain_ints(shape, 1, _MAX_INT64, 8)):
        return False
    v = entry[source]
    if source == "data":
        return _plain_data(v)
    if source == "file":
        return _plain_name(v)
    return _is_int(v) and 0 <= v <= 2**48      # zeros, arange


def plain_spec(raw) -> dict | None:
    """The run spec's checked fields, as the schema's model gives them, when every value is of a plain valid
    form; None sends the spec to the schema. The run options given are under "run_options" (spec key ->
    checked value), each checked by its declaration's check, as the schema does."""
    if type(raw) not in (dict, LDict) or any(k not in SPEC_KEYS for k in raw):
        return None
    shader = raw.get("shader")
    if not _plain_name(shader):
        return None
    dispatch = _dispatch(raw.get("dispatch", [1, 1, 1]))
    if not (_plain_ints(dispatch, 1, MAX_DISPATCH_DIM, 3) and dispatch):
        return None
    outputs = raw.get("outputs")
    spec_constants = _none_is_empty(raw.get("spec_constants"))
    buffers = _none_is_empty(raw.get("buffers"))
    if not ((outputs is None or (type(outputs) in (list, LList) and all(_plain_key(k) for k in outputs)))
            and _plain_dict(spec_constants) and _plain_dict(buffers) and _plain_data(raw.get("push_constants"))
            and all(plain_entry(e) for e in buffers.values())):
        return None
    try:
        dispatch = _dispatch_product(dispatch)
        spec_constants = {k: _spec_value(v) for k, v in spec_constants.items()}
        options = {k: OPTION_KEYS[k].convert(raw[k]) for k in OPTION_KEYS if raw.get(k) is not None}
    except ValueError:
        return None
    return {"shader": shader, "dispatch": dispatch, "spec_constants": spec_constants, "buffers": list(buffers),
            "outputs": outputs and list(outputs), "run_options": options}

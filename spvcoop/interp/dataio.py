"""Buffer contents between the user's form (numpy arrays, nested lists and dicts by member name) and bytes."""
from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError, UnmatchedName, did_you_mean
from .memory import Memory, Pointer, load, store
from .types import Type


class Address(str):
    """A reference to the device address of a named buffer (written '&name' in YAML)."""


LARGE = 1000  # elements of a decoded array above which the list keeps its typed array (NumList)
BATCH = 32    # elements of an array from which data is converted and stored as one numpy array


class NumList(list):
    """A decoded array of numbers: a plain list of its values, with the typed numpy array they came
    from in `array` (so writers can format them in one go; runspec.spec registers it with PyYAML)."""

    def __init__(self, values, array: np.ndarray):
        super().__init__(values)
        self.array = array


class _Batch:
    """The values of every element of an array of scalars or vectors: one array of shape (n, ...)."""

    def __init__(self, arr: np.ndarray):
        self.arr = arr

    def __len__(self) -> int:
        return len(self.arr)


def _err(msg: str, source: str) -> SpvError:
    return SpvError(Diagnostic("error", msg, source=source))


def to_value(t: Type, v, where: str, source: str, addresses: dict[str, int]):
    """User data -> interpreter value of one invocation (shape (1, ...))."""
    k = t.kind
    if k in ("int", "float", "bool", "vector", "matrix"):
        if isinstance(v, str) and v.startswith("&") or isinstance(v, Address):
            name = v[1:] if v.startswith("&") else str(v)
            if name not in addresses:
                raise _err(f"{where}: no buffer named '{name}' has a device address", source)
            v = addresses[name]
        try:
            a = np.asarray(v, dtype=np.float64 if t.scalar.kind == "float" else None)
            if t.scalar.kind == "float" and isinstance(v, str):
                a = np.asarray(float(v))
            shape = {"vector": (t.count,), "matrix": (t.count, t.elem.count if t.elem else 0)}.get(k, ())
            if a.shape != shape:
                raise ValueError(f"expected shape {shape or 'scalar'}, got {a.shape or 'scalar'}")
            if t.scalar.kind == "int":
                a = _integral(a, t.scalar.width)
                if t.scalar.width < 64:
                    a = a & ((1 << t.scalar.width) - 1)
                return a.astype(f"u{t.scalar.width // 8}").view(t.dtype)[None]
            return a.astype(t.dtype)[None]
        except (ValueError, TypeError, OverflowError) as e:
            shown = repr(v) if len(repr(v)) <= 60 else repr(v)[:60] + "..."
            raise _err(f"{where}: value {shown} does not fit type {t.describe()}: {e}", source) from None
    if k == "pointer":
        p = to_value_u64(v, where, source, addresses)
        return Pointer(None, p, t.elem)  # type: ignore[arg-type]
    if k == "struct":
        if isinstance(v, dict):
            extra = [k for k in v if k not in t.member_names]
            if extra:  # before any missing member: a misspelt name is reported as itself
                raise UnmatchedName(Diagnostic(
                    "error", f"{where}: {t.describe()} has no member '{extra[0]}'"
                    f"{did_you_mean(str(extra[0]), t.member_names)} (members: {', '.join(t.member_names)})",
                    source=source), "", _steps(where) + (extra[0],))
            vals = []
            for i, m in enumerate(t.members):
                name = t.member_names[i]
                if name not in v:
                    if m.kind == "runtime_array":
                        vals.append(())
                        continue
                    raise _err(f"{where}: missing member '{name}' of {t.describe()}", source)
                vals.append(to_value(m, v[name], f"{where}.{name}", source, addresses))
            return tuple(vals)
        if isinstance(v, (list, tuple)) and len(v) == len(t.members):
            return tuple(to_value(m, x, f"{where}[{i}]", source, addresses)
                         for i, (m, x) in enumerate(zip(t.members, v, strict=False)))
        raise _err(f"{where}: expected a mapping of members for {t.describe()}", source)
    if k in ("array", "runtime_array"):
        et = cast(Type, t.elem)   # an array's element type
        if isinstance(v, np.ndarray):
            batch = _leaf_batch(et, v)
            if batch is not None and (k == "runtime_array" or len(batch) == t.count):
                return _Batch(batch)
            v = list(v)
        if not isinstance(v, (list, tuple)):
            raise _err(f"{where}: expected a list for {t.describe()}", source)
        if k == "array" and len(v) != t.count:
            raise _err(f"{where}: expected {t.count} elements for {t.describe()}, got {len(v)}", source)
        batch = _leaf_batch(et, v)
        if batch is not None:
            return _Batch(batch)
        return tuple(to_value(et, x, f"{where}[{i}]", source, addresses) for i, x in enumerate(v))
    raise _err(f"{where}: cannot give data for type {t.describe()}", source)


def _steps(where: str) -> tuple:
    """The member names and indexes after the first name of a place ('pc.inner[2]' -> ('inner', 2))."""
    import re
    rest = re.split(r"(?=[.\[])", where, maxsplit=1)
    steps = re.findall(r"\.([^.\[\]]+)|\[(\d+)\]", rest[1] if len(rest) > 1 else "")
    return tuple(name if name else int(index) for name, index in steps)


def _leaf_batch(e: Type, v) -> np.ndarray | None:
    """Every element of v for scalar or vector type e at once, exactly the values to_value gives one by
    one (shape (n,) or (n, count), dtype e.dtype); None where the per-element path must decide (and
    report, at the element): short lists, anything but plain numbers, a value that does not fit."""
    if e.kind not in ("int", "float", "vector") or len(v) < BATCH:
        return None
    try:
        if e.scalar.kind not in ("int", "float"):
            return None
        dt = e.dtype
        shape = (len(v), e.count) if e.kind == "vector" else (len(v),)
        a = getattr(v, "array", None)          # a long YAML list of numbers keeps its parsed array
        if a is None and isinstance(v, np.ndarray):
            a = v if v.dtype.kind in "iuf" else None
        if a is None:
            flat = v
            if e.kind == "vector":
                if not all(isinstance(x, list) and len(x) == e.count for x in v):
                    return None
                flat = [y for x in v for y in x]
            kinds = set(map(type, flat))
            if kinds == {int}:
                a = np.array(flat, np.int64)     # OverflowError beyond 64 bits: the per-element path
            elif kinds <= {int, float} and (kinds == {float} or e.scalar.kind == "float"):
                a = np.array(flat, np.float64)
            else:
                return None
            if a.size != np.prod(shape):
                return None
            a = a.reshape(shape)
        if a.shape != shape or a.dtype.kind not in "iuf":
            return None
        if e.scalar.kind == "float":
            if a.dtype.kind == "u" and a.dtype.itemsize == 8:
                return None
            return a.astype(np.float64).astype(dt)   # as to_value: through float64
        w = e.scalar.width
        if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and int(a.max()) >= 2**63:
            return None
        a = _integral(a, w)
        if w < 64:
            a = a & ((1 << w) - 1)
        return a.astype(f"u{w // 8}").view(dt)
    except (ValueError, TypeError, OverflowError):
        return None


def _integral(a: np.ndarray, width: int) -> np.ndarray:
    """User numbers for an integer type of `width` bits: finite, whole, within -2^(w-1)..2^w-1
    (negative values wrap, as two's complement); anything else is a ValueError, not a wrong value."""
    if a.dtype.kind == "O":
        if not all(isinstance(x, int) for x in a.reshape(-1)):
            raise ValueError("expected integers")
        if a.size and not all(-(1 << (width - 1)) <= x < (1 << width) for x in a.reshape(-1)):
            raise ValueError(f"out of range for {width} bits")
        return np.array([x & ((1 << 64) - 1) for x in a.reshape(-1)], np.uint64).reshape(a.shape)
    if a.dtype.kind == "f":
        if not np.isfinite(a).all():
            raise ValueError("not a finite number")
        if (a != np.round(a)).any():
            raise ValueError("not a whole number")
    elif a.dtype.kind not in "biu":
        raise ValueError("expected integers")
    if a.size and (float(a.min()) < -(2.0 ** (width - 1)) or float(a.max()) > 2.0 ** width - 1):
        raise ValueError(f"out of range for {width} bits")
    if a.dtype.kind == "u":
        return a
    if a.dtype.kind == "f":
        return np.where(a >= 2.0**63, a - 2.0**64, a).astype(np.int64)
    return a.astype(np.int64)


def to_value_u64(v, where, source, addresses) -> np.ndarray:
    if isinstance(v, str):
        name = v[1:] if v.startswith("&") else v
        if name not in addresses:
            raise _err(f"{where}: no buffer named '{name}' has a device address", source)
        v = addresses[name]
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not -2**63 <= int(v) < 2**64:
        raise _err(f"{where}: a pointer value is an integer address (0 to 2^64-1) or '&buffer', got "
                   f"{repr(v)[:60]}", source)
    return np.array([int(v) & (2**64 - 1)], dtype=np.uint64).view(np.int64)


def byte_size(t: Type, value) -> int:
    """Size of a block holding value (its runtime array sized by the data)."""
    if t.kind == "struct" and t.members and t.members[-1].kind == "runtime_array":
        i = len(t.members) - 1
        n = len(value[i]) if isinstance(value, tuple) else 0
        return t.member_offset(i) + n * t.members[i].array_stride()
    if t.kind == "runtime_array":
        return len(value) * t.array_stride()
    return t.size()


def encode(t: Type, data, where: str, source: str, addresses: dict[str, int]) -> bytes:
    value = to_value(t, data, where, source, addresses)
    size = byte_size(t, value)
    mem = Memory(where, "encode", size)
    _store_value(Pointer(mem, np.zeros(1, np.int64), t), t, value)
    return mem.bytes()


def _store_value(ptr: Pointer, t: Type, value) -> None:
    one = np.ones(1, bool)
    if isinstance(value, _Batch):
        s, e = t.array_stride(), cast(Type, t.elem)
        n = len(value)
        if n:
            store(ptr.moved(np.arange(n, dtype=np.int64) * s, e, unit=s), e, value.arr, np.ones(n, bool))
    elif t.kind == "runtime_array" or t.kind == "array":
        s, e = t.array_stride(), cast(Type, t.elem)
        for i, x in enumerate(value):
            _store_value(ptr.moved(i * s, e), e, x)
    elif t.kind == "struct":
        for i, m in enumerate(t.members):
            ml = t.member_matrix_layout(i, m) if _holds_matrix(m) else None
            _store_value(ptr.moved(t.member_offset(i), m, ml), m, value[i])
    elif t.kind == "pointer":
        from .memory import write_scalar
        write_scalar(ptr.mem, ptr.off, ptr.base, np.dtype(np.uint64), value.off.astype(np.uint64), one)
    else:
        store(ptr, t, value, one)


def _holds_matrix(t: Type) -> bool:
    while t.kind in ("array", "runtime_array"):
        t = cast(Type, t.elem)
    return t.kind == "matrix"


def exact(a: np.ndarray):
    """Numbers as Python values, exactly (an f32 0.9 is 0.8999999761581421; runspec.numtext.short_floats
    gives the shortest text that reads back)."""
    return a.tolist()


def decode(t: Type, data: bytes, name: str = "buffer", leaf: Callable[[np.ndarray], object] = exact):
    """Bytes -> nested Python lists/dicts keyed by member names (runtime arrays sized by the data); `leaf`
    turns an array of numbers into Python values."""
    mem = Memory(name, "decode", len(data), data=data)
    return _decode(Pointer(mem, np.zeros(1, np.int64), t), t, len(data), leaf)


def _decode(ptr: Pointer, t: Type, limit: int, leaf: Callable[[np.ndarray], object]):
    one = np.ones(1, bool)
    if t.kind == "struct":
        out = {}
        for i, m in enumerate(t.members):
            ml = t.member_matrix_layout(i, m) if _holds_matrix(m) else None
            out[t.member_names[i]] = _decode(ptr.moved(t.member_offset(i), m, ml), m, limit, leaf)
        return out
    if t.kind in ("array", "runtime_array"):
        s = t.array_stride()
        start = int(ptr.off[0])
        n = t.count if t.kind == "array" else max(0, (limit - start) // s if s else 0)
        e = cast(Type, t.elem)
        if n >= BATCH and e.kind in ("int", "float", "bool", "vector", "matrix"):
            v = load(ptr.moved(np.arange(n, dtype=np.int64) * s, e, unit=s), e, np.ones(n, bool))
            values = leaf(v)
            return NumList(values, v) if n > LARGE else values
        return [_decode(ptr.moved(i * s, e), e, limit, leaf) for i in range(n)]
    if t.kind == "pointer":
        from .memory import read_scalar
        return int(read_scalar(ptr.mem, ptr.off, 0, np.dtype(np.uint64), one)[0])
    v = load(ptr, t, one)
    return leaf(v[0])


def as_array(t: Type, data: bytes, like: np.ndarray | None = None) -> np.ndarray:
    """A buffer as a numpy array: the shape/dtype of the input array, or its runtime/fixed array's elements."""
    raw = np.frombuffer(data, dtype=np.uint8).copy()
    if like is not None:
        n = like.nbytes
        if len(raw) >= n and like.dtype.itemsize and len(raw) % like.dtype.itemsize == 0:
            return raw[:n].view(like.dtype).reshape(like.shape) if n else raw[:0].view(like.dtype)
    inner = t.members[-1] if t.kind == "struct" and len(t.members) == 1 else None
    if inner is not None and inner.kind in ("array", "runtime_array") and t.member_offset(0) == 0:
        e = cast(Type, inner.elem)
        if e.kind in ("int", "float") or (e.kind == "vector" and cast(Type, e.elem).kind in ("int", "float")):
            comp = e.scalar_size()
            width = e.count if e.kind == "vector" else 1
            if inner.array_stride() == comp * width:
                usable = len(raw) - len(raw) % inner.array_stride()
                arr = raw[:usable].view(e.dtype)
                return arr.reshape(-1, width) if width > 1 else arr
            # padded vectors (std140/std430 vec3): strided view
            n = len(raw) // inner.array_stride()
            rows = raw[:n * inner.array_stride()].reshape(n, inner.array_stride())[:, :comp * width]
            arr = np.ascontiguousarray(rows).view(e.dtype)
            return arr.reshape(n, width) if width > 1 else arr.reshape(n)
    return raw


def element_type(t: Type | None) -> Type | None:
    """The element type of a block that is one array of scalars or vectors (what a numpy array's values fill)."""
    if t is None or t.kind != "struct" or len(t.members) != 1:
        return None
    arr = t.members[0]
    if arr.kind not in ("array", "runtime_array") or arr.elem is None or arr.elem.kind not in ("int", "float",
                                                                                                "vector"):
        return None
    return arr.elem if arr.elem.scalar.kind in ("int", "float") else None


def bit_patterns(src: np.dtype, dt: np.dtype, raw_bytes: bool = True) -> bool:
    """Whether data of dtype src is bytes or encodings rather than numbers: uint8 data for wider elements (a
    buffer's raw bytes, as np.frombuffer gives them), and unsigned integers of a bfloat16 / FP8 width (the form
    such values take where numpy has no dtype for them). raw_bytes=False: uint8 data is numbers (a run spec's
    `dtype: uint8` says so)."""
    from .encodings import is_encoded
    if raw_bytes and src == np.uint8 and dt.itemsize > 1:
        return True
    return src.kind == "u" and src.itemsize == dt.itemsize and is_encoded(dt)


def exact_cast(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """a's values as dtype dt, where every one is exactly the same number in dt; otherwise a ValueError that
    names the first value that is not (float64 0.1 has no float32, int32 16777217 has no float32, 2.5 no int)."""
    if a.dtype == dt:
        return a
    from .encodings import is_encoded
    src_num = a.dtype.kind in "biuf" or is_encoded(a.dtype)
    dst_float = dt.kind == "f" or is_encoded(dt)
    if not src_num or not (dst_float or dt.kind in "iu"):
        raise ValueError(f"{a.dtype} data cannot be converted to {dt}")
    with np.errstate(all="ignore"):
        src = a.astype(np.float64) if a.dtype.kind not in "iub" else a
        if dt.kind in "iu":
            info = np.iinfo(dt)
            if a.dtype.kind in "iub":
                bad = (a < info.min) | (a > info.max) if a.dtype.kind != "b" else np.zeros(a.shape, bool)
            else:
                bad = ~np.isfinite(src) | (src != np.round(src)) | (src < info.min) | (src > info.max)
            out = a.astype(dt) if not bad.any() else None
        else:
            out = a.astype(dt)
            back = out.astype(np.float64)
            if a.dtype.kind in "iub":
                bad = back != a.astype(np.float64)
                big = np.abs(a.astype(np.float64)) >= 2.0 ** 53   # float64 itself rounds these: compare as ints
                for i in np.flatnonzero(big & ~bad):
                    bad.flat[i] = int(back.flat[i]) != int(a.flat[i])
            else:
                bad = ~((back == src) | (np.isnan(back) & np.isnan(src)))
    if bad.any():
        pos = np.unravel_index(int(np.flatnonzero(bad)[0]), a.shape)
        at = "".join(f"[{int(p)}]" for p in pos)
        v = a[pos].item() if a.dtype.kind in "biuf" else float(a[pos])
        what = "no whole value" if dt.kind in "iu" and a.dtype.kind not in "iub" and np.isfinite(float(v)) and \
            float(v) != round(float(v)) else "no exact value"
        raise ValueError(f"value {v!r} at index {at} ({a.dtype}) has {what} in {dt}, the shader's element type")
    return out  # type: ignore[return-value]


def by_value(data: np.ndarray, t, where: str, source: str) -> np.ndarray:
    """An array for a block of one array, in the element type's dtype: converted by value where every value is
    exact there, refused otherwise (its bytes reinterpreted would be silently wrong numbers)."""
    e = element_type(t)
    if e is None or data.dtype == e.dtype or bit_patterns(data.dtype, e.dtype):
        return data
    try:
        return exact_cast(data, e.dtype)
    except ValueError as err:
        raise SpvError(Diagnostic("error", f"buffer '{where}': {err}; convert the data, or pass its bytes to "
                                  "have them taken as they are", source=source)) from None


def view_bytes(t: Type, data, where: str, source: str, addresses: dict[str, int]) -> tuple[bytes, np.ndarray | None]:
    """The bytes `data` puts in a buffer read through block type t, and the array they came from (None for other
    data): bytes as they are, a numpy array by value (by_value), lists and dicts by the type (a list for a block of
    one member fills that member). The one conversion of both backends (interp/runner.py, gpu/runner.py)."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data), None
    if isinstance(data, np.ndarray):
        data = by_value(data, t, where, source)
        return np.ascontiguousarray(data).tobytes(), data
    if isinstance(data, (list, tuple)) and t.kind == "struct" and len(t.members) == 1:
        data = {t.member_names[0]: list(data)}
    return encode(t, data, where, source, addresses), None

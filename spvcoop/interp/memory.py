"""Memory: byte arrays, pointers as (memory, byte offset per invocation), typed loads and stores.

Every variable lives in a `Memory` (a uint8 numpy array). Per-invocation
storage (Function, Private) and per-workgroup storage (Workgroup) are one
Memory holding all copies side by side; a pointer's `base` is the start of the
copy each invocation owns, so out-of-bounds checks stay per copy. Buffers with
device addresses (PhysicalStorageBuffer) live in a `DeviceMemory`, where a
pointer's offset is the 64-bit address itself.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core.records import Record
from .fault import Fault
from .types import Type

ADDRESS_SHIFT = 40  # device address = (buffer number + 1) << 40 | byte offset


class Memory:
    robust = False   # robustBufferAccess (runner: buffers and push constants of such a run): out of bounds reads 0

    def __init__(self, name: str, storage: str, region: int, copies: int = 1, data: bytes | None = None):
        self.name = name
        self.storage = storage
        self.region = region                  # bytes of one copy
        self.copies = copies
        total = region * copies
        self.data = np.zeros(-(-max(total, 1) // 8) * 8 + 8, dtype=np.uint8)
        if data is not None:
            self.data[:len(data)] = np.frombuffer(data, dtype=np.uint8)
        self.address = 0                      # device address when bound as a buffer with one
        self.written: np.ndarray | None = None  # per-copy 'was written' flags (uninitialised-read check)
        self.side: dict = {}  # what op families keep with a variable (coopmat: the absent lanes' copies)

    def bytes(self) -> bytes:
        return self.data[:self.region * self.copies].tobytes()


class DeviceMemory:
    """All buffers that have a device address: a pointer offset is an address."""

    def __init__(self) -> None:
        self.buffers: list[Memory] = []
        self.name = "PhysicalStorageBuffer"
        self.storage = "PhysicalStorageBuffer"

    def add(self, mem: Memory) -> int:
        self.buffers.append(mem)
        mem.address = len(self.buffers) << ADDRESS_SHIFT
        return mem.address


class Register:
    """A Function/Private variable only ever loaded and stored whole: held as a value, not in memory."""
    __slots__ = ("name", "value", "written")

    def __init__(self, name: str, value, written: np.ndarray | None):
        self.name = name
        self.value = value
        self.written = written  # per-invocation 'stored to' flags; None once every invocation has stored


class RegisterView:
    """An access chain into a Register (e.g. gl_GlobalInvocationID.x): loads pick components of its value."""
    __slots__ = ("reg", "indices")

    def __init__(self, reg: Register, indices: list):
        self.reg = reg
        self.indices = indices

    def get(self):
        v = self.reg.value
        for i in self.indices:
            if isinstance(i, int):
                v = v[:, i]
            else:
                n = max(v.shape[0], i.shape[0])
                v = np.broadcast_to(v, (n,) + v.shape[1:])[np.arange(n), np.broadcast_to(i, (n,))]
        return v


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Pointer(Record):
    """A pointer value: a memory, per-invocation byte offsets, its pointee type and layout facts."""

    mem: Memory | DeviceMemory
    off: np.ndarray            # int64 byte offsets (or addresses), shape (N,) or (1,)
    type: Type                 # pointee type
    base: np.ndarray | int     # start of the copy each invocation owns
    matrix: tuple[int, int] | None  # (matrix stride, row major) when pointee holds matrices
    vstride: int | None        # component stride of a vector that is a row-major matrix column
    align: int                 # a power of two known to divide every offset (1: unknown)
    _fields = ("mem", "off", "type", "base", "matrix", "vstride", "align")
    __eq__ = object.__eq__     # compared by identity
    __hash__ = object.__hash__  # type: ignore[assignment]  # Record sets None (hash by value); pointers hash by id

    def __init__(self, mem: Memory | DeviceMemory, off: np.ndarray, type: Type, base: np.ndarray | int = 0,
                 matrix: tuple[int, int] | None = None, vstride: int | None = None, align: int = 1) -> None:
        self.mem = mem
        self.off = off
        self.type = type
        self.base = base
        self.matrix = matrix
        self.vstride = vstride
        self.align = align

    def moved(self, delta, t: Type, matrix=None, vstride=None, unit: int | None = None) -> Pointer:
        """The pointer `delta` bytes further; `unit` is what delta is a multiple of (for alignment)."""
        if unit is None:
            unit = int(delta) if isinstance(delta, (int, np.integer)) else 1
        align = min(self.align, unit & -unit) if unit else self.align
        return Pointer(self.mem, self.off + delta, t, self.base, matrix if matrix is not None else self.matrix,
                       vstride, max(align, 1))


def _check(mem: Memory, off: np.ndarray, base, n: int, mask: np.ndarray, what: str) -> np.ndarray | None:
    """A fault at the first invocation whose access leaves the memory; for a robust memory (robustBufferAccess)
    instead the invocations whose access does (None: none), which read zero and whose stores are dropped."""
    if isinstance(base, int) and base == 0 and off.min() >= 0 and off.max() + n <= mem.region:
        return None
    rel = off - base
    bad = (rel < 0) | (rel + n > mem.region)
    if mask is not None:
        bad = bad & mask
    if bad.any():
        if mem.robust:
            return np.broadcast_to(bad, mask.shape) if mask is not None else bad
        lanes = np.flatnonzero(np.broadcast_to(bad, mask.shape if mask is not None else bad.shape))
        lane = int(lanes[0])
        o = int(np.broadcast_to(rel, bad.shape)[lane] if np.ndim(rel) else rel)
        raise Fault(f"out-of-bounds {what} of {n} bytes at byte offset {o} of '{mem.name}' "
                    f"({mem.storage}, {mem.region} bytes)", lanes)
    return None


def _split_device(ptr: Pointer, mask: np.ndarray):
    """Yield (memory, local offsets, lane mask) for each buffer a device pointer touches."""
    dev: DeviceMemory = ptr.mem  # type: ignore[assignment]
    addr = np.broadcast_to(ptr.off, mask.shape)
    which = addr >> ADDRESS_SHIFT
    for k in np.unique(which[mask]):
        k = int(k)
        if k < 1 or k > len(dev.buffers):
            lanes = np.flatnonzero(mask & (which == k))
            raise Fault(f"address 0x{int(addr[lanes[0]]):x} is not inside any buffer with a device address",
                        lanes)
        yield dev.buffers[k - 1], addr - (k << ADDRESS_SHIFT), mask & (which == k)


def read_scalar(mem, off: np.ndarray, base, dtype: np.dtype, mask: np.ndarray, count: int = 1,
                step: int | None = None, align: int = 1) -> np.ndarray:
    """Read `count` values of dtype per invocation at off, off+step, ... -> (N,) or (N, count)."""
    w = dtype.itemsize if dtype != np.bool_ else 1
    step = w if step is None else step
    n = (count - 1) * step + w
    if isinstance(mem, DeviceMemory):
        out = np.zeros((mask.shape[0], count) if count > 1 else mask.shape[0],
                       dtype=dtype if dtype != np.bool_ else np.uint8)
        for m, loc, sub in _split_device(Pointer(mem, off, None), mask):  # type: ignore[arg-type]
            out[sub] = read_scalar(m, loc, 0, dtype, sub, count, step)[sub]
        return out
    outside = _check(mem, off, base, n, mask, "load")
    off = np.broadcast_to(off, mask.shape)
    lim = mem.data.nbytes - n
    if off.min() < 0 or off.max() > lim:
        off = np.clip(off, 0, lim)
    st = np.dtype(np.uint8) if dtype == np.bool_ else dtype
    if w > 1 and (step % w or (align % w and (off % w).any())):
        idx = off[:, None] + np.arange(count)[None, :] * step
        raw = mem.data[idx[..., None] + np.arange(w)].view(st)[..., 0]
        res = raw if count > 1 else raw[:, 0]
    else:
        view = mem.data.view(st)
        q = off // w
        if count > 1:
            q = q[:, None] + np.arange(count)[None, :] * (step // w)
        res = view[q]
    if outside is not None:   # robustBufferAccess: what lies outside the buffer reads as zero
        res[outside] = 0
    return res != 0 if dtype == np.bool_ else res


def write_scalar(mem, off: np.ndarray, base, dtype: np.dtype, value: np.ndarray, mask: np.ndarray,
                 count: int = 1, step: int | None = None, all_active: bool = False, align: int = 1) -> None:
    w = dtype.itemsize if dtype != np.bool_ else 1
    step = w if step is None else step
    n = (count - 1) * step + w
    N = mask.shape[0]
    st = np.dtype(np.uint8) if dtype == np.bool_ else dtype
    value = np.broadcast_to(np.asarray(value).astype(st, copy=False), (N, count) if count > 1 else (N,))
    if isinstance(mem, DeviceMemory):
        for m, loc, sub in _split_device(Pointer(mem, off, None), mask):  # type: ignore[arg-type]
            write_scalar(m, loc, 0, dtype, value, sub, count, step)
        return
    outside = _check(mem, off, base, n, mask, "store")
    if outside is not None:   # robustBufferAccess: stores outside the buffer are dropped
        mask, all_active = mask & ~outside, False
        if not mask.any():
            return
    off = np.broadcast_to(off, (N,))
    if not all_active:
        off = off[mask]
        value = value[mask]
    if w > 1 and (step % w or (align % w and (off % w).any())):
        idx = off[:, None] + np.arange(count)[None, :] * step
        raw = np.ascontiguousarray(value.reshape(len(off), count)).view(np.uint8).reshape(len(off), count, w)
        mem.data[idx[..., None] + np.arange(w)] = raw
        return
    view = mem.data.view(st)
    q = off // w
    if count > 1:
        q = q[:, None] + np.arange(count)[None, :] * (step // w)
    view[q] = value


def load(ptr: Pointer, t: Type, mask: np.ndarray, device: DeviceMemory | None = None):
    """Load a value of type t (the pointee, or a part of it) -> numpy array or tuple."""
    k = t.kind
    if k in ("int", "float", "bool"):
        return read_scalar(ptr.mem, ptr.off, ptr.base, t.dtype, mask, align=ptr.align)
    if k == "vector":
        return read_scalar(ptr.mem, ptr.off, ptr.base, t.dtype, mask, t.count, ptr.vstride, ptr.align)
    if k == "matrix":
        col = cast(Type, t.elem)   # a matrix's column type
        stride, rm = ptr.matrix or (col.size(), False)
        cols = []
        for c in range(t.count):
            if rm:
                cols.append(read_scalar(ptr.mem, ptr.off + c * t.scalar_size(), ptr.base, t.dtype, mask,
                                        col.count, stride))
            else:
                cols.append(read_scalar(ptr.mem, ptr.off + c * stride, ptr.base, t.dtype, mask, col.count))
        return np.stack(cols, axis=1)
    if k == "array":
        s, e = t.array_stride(), cast(Type, t.elem)
        return tuple(load(ptr.moved(i * s, e), e, mask, device) for i in range(t.count))
    if k == "struct":
        out = []
        for i, m in enumerate(t.members):
            ml = t.member_matrix_layout(i, m) if _holds_matrix(m) else None
            out.append(load(ptr.moved(t.member_offset(i), m, ml), m, mask, device))
        return tuple(out)
    if k == "pointer":
        addr = read_scalar(ptr.mem, ptr.off, ptr.base, np.dtype(np.uint64), mask)
        return Pointer(device, addr.astype(np.int64), t.elem, 0)  # type: ignore[arg-type]
    raise Fault(f"cannot load a value of type {t.describe()}")


def store(ptr: Pointer, t: Type, value, mask: np.ndarray, all_active: bool = False) -> None:
    k = t.kind
    if k in ("int", "float", "bool"):
        write_scalar(ptr.mem, ptr.off, ptr.base, t.dtype, value, mask, all_active=all_active, align=ptr.align)
    elif k == "vector":
        write_scalar(ptr.mem, ptr.off, ptr.base, t.dtype, value, mask, t.count, ptr.vstride, all_active, ptr.align)
    elif k == "matrix":
        col_t = cast(Type, t.elem)   # a matrix's column type
        stride, rm = ptr.matrix or (col_t.size(), False)
        value = np.asarray(value)
        for c in range(t.count):
            col = value[:, c]
            if rm:
                write_scalar(ptr.mem, ptr.off + c * t.scalar_size(), ptr.base, t.dtype, col, mask,
                             col_t.count, stride, all_active)
            else:
                write_scalar(ptr.mem, ptr.off + c * stride, ptr.base, t.dtype, col, mask, col_t.count,
                             None, all_active)
    elif k == "array":
        s, e = t.array_stride(), cast(Type, t.elem)
        for i in range(t.count):
            store(ptr.moved(i * s, e), e, value[i], mask, all_active)
    elif k == "struct":
        for i, m in enumerate(t.members):
            ml = t.member_matrix_layout(i, m) if _holds_matrix(m) else None
            store(ptr.moved(t.member_offset(i), m, ml), m, value[i], mask, all_active)
    elif k == "pointer":
        addr = np.asarray(value.off).astype(np.uint64)
        write_scalar(ptr.mem, ptr.off, ptr.base, np.dtype(np.uint64), addr, mask, all_active=all_active)
    else:
        raise Fault(f"cannot store a value of type {t.describe()}")


def _holds_matrix(t: Type) -> bool:
    while t.kind in ("array", "runtime_array"):
        t = t.elem  # type: ignore[assignment]
    return t.kind == "matrix"

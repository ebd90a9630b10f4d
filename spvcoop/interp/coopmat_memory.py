"""OpCooperativeMatrixLoad/Store NV and KHR: gathers and scatters of whole logical matrices.

Element (r, c) of a row-major matrix is at byte `ptr + r * stride * P + c * E`,
column-major `ptr + c * stride * P + r * E`, where P is the size of the pointee
type (the stride counts pointee elements, e.g. uvec4 for a uvec4 shared array
holding f16 data) and E the size of the component type (the elements of one
row or column are contiguous). Pointer, stride and major-ness must be the same
for all invocations of the scope instance; every element must lie inside the
buffer or Workgroup array.
"""
from __future__ import annotations

import numpy as np

from .coopmat import CoopInfo, CoopMat, active_groups, coop_info, coop_val, first_lanes, uniform, warn
from .memory import ADDRESS_SHIFT, DeviceMemory, Fault, Pointer
from .program import enum_name
from .registry import op


def _operands(ex, frame, inst, store: bool):
    """(pointer, object id or None, stride id or None, column major id or layout id, is_khr, memory operands)."""
    ops = inst.operands
    i = 2 if store else 1
    if inst.opname.endswith("NV"):
        return ops[0].value, (ops[1].value if store else None), ops[i].value, ops[i + 1].value, False
    stride = ops[i + 1].value if len(ops) > i + 1 and ops[i + 1].kind == "IdRef" else None
    return ops[0].value, (ops[1].value if store else None), stride, ops[i].value, True


def _geometry(ex, frame, inst, info: CoopInfo, mask, store: bool):
    """Per active scope instance: byte addresses (g, rows, cols) of every element, and the memory."""
    ptr_id, _, stride_id, major_id, khr = _operands(ex, frame, inst, store)
    ptr = ex.val(frame, ptr_id)
    if not isinstance(ptr, Pointer):
        raise Fault("the Pointer operand is not a pointer")
    gmask = active_groups(ex, info, mask, inst.opname)
    groups, lanes = first_lanes(info, gmask, mask)
    if len(groups) == 0:
        return ptr, groups, None, None
    off = uniform(info, np.asarray(ptr.off).reshape(-1), groups, lanes, mask, "the Pointer operand (byte offset)")
    major = uniform(info, ex.val(frame, major_id), groups, lanes, mask,
                    "the ColumnMajor operand" if not khr else "the MemoryLayout operand")
    if khr:
        names = {int(v): (enum_name("CooperativeMatrixLayout", int(v)) if int(v) in (0, 1, 4202, 4203) else str(v))
                 for v in np.unique(major)}
        for v, n in names.items():
            if n not in ("RowMajorKHR", "ColumnMajorKHR"):
                raise Fault(f"memory layout {n} is not supported (RowMajorKHR or ColumnMajorKHR)")
        col_major = major.astype(np.int64) == 1
    else:
        col_major = major.astype(bool)
    P = ptr.type.size() if ptr.type is not None and ptr.type.kind not in ("runtime_array",) else info.itemsize
    P = max(P, 1)
    E = info.itemsize
    if stride_id is not None:
        stride = uniform(info, ex.val(frame, stride_id), groups, lanes, mask, "the Stride operand").astype(np.int64)
    else:  # KHR without Stride: tightly packed rows (or columns)
        stride = np.where(col_major, info.rows, info.cols) * E // P
    line = np.where(col_major, info.rows, info.cols) * E  # bytes one row (column) needs
    if (stride * P < line).any():
        warn(ex, inst, f"stride {int(stride[np.flatnonzero(stride * P < line)[0]])} x {P} bytes is smaller than a "
                       f"{'column' if col_major.any() else 'row'} of {int(line.max())} bytes: rows overlap")
    r = np.arange(info.rows, dtype=np.int64)[None, :, None]
    c = np.arange(info.cols, dtype=np.int64)[None, None, :]
    st = (stride * P)[:, None, None]
    cm = col_major[:, None, None]
    addr = off.astype(np.int64)[:, None, None] + np.where(cm, c * st + r * E, r * st + c * E)
    base = np.asarray(ptr.base)
    base = np.broadcast_to(base, mask.shape)[lanes] if base.ndim else np.full(len(groups), int(base))
    return ptr, groups, addr, base


def _locate(ptr: Pointer, info: CoopInfo, addr: np.ndarray, base: np.ndarray, groups, what: str):
    """(memory per group, byte offsets into memory.data) after the bounds check."""
    E = info.itemsize
    mem = ptr.mem
    if isinstance(mem, DeviceMemory):
        k = addr >> ADDRESS_SHIFT
        kg = k[:, 0, 0]
        mems = []
        for j, kk in enumerate(kg):
            kk = int(kk)
            if kk < 1 or kk > len(mem.buffers):
                raise Fault(f"{what}: address 0x{int(addr[j, 0, 0]):x} is not inside any buffer with a device address")
            mems.append(mem.buffers[kk - 1])
        rel = addr - (k << ADDRESS_SHIFT)
        region = np.array([m.region for m in mems])[:, None, None]
        bad = (k != kg[:, None, None]) | (rel < 0) | (rel + E > region)
        names = [m.name for m in mems]
        loc = rel
    else:
        rel = addr - base[:, None, None]
        region = mem.region
        bad = (rel < 0) | (rel + E > region)
        mems = None
        names = [mem.name] * len(groups)
        loc = addr
    if bad.any():
        j, r, c = (int(x) for x in np.argwhere(bad)[0])
        size = mems[j].region if mems else mem.region
        storage = mems[j].storage if mems else mem.storage
        raise Fault(f"{what} out of bounds in {info.scope.lower()} {int(groups[j])}: element (row {r}, col {c}) "
                    f"is at byte offset {int(rel[j, r, c])} of '{names[j]}' ({storage}, {size} bytes); "
                    f"{int(bad[j].sum())} of {info.rows * info.cols} elements are outside")
    return mems, loc


def _gather(data: np.ndarray, loc: np.ndarray, dtype: np.dtype) -> np.ndarray:
    E = dtype.itemsize
    if not (loc % E).any():
        return data.view(dtype)[loc // E]
    raw = data[loc[..., None] + np.arange(E)]
    return np.ascontiguousarray(raw).view(dtype)[..., 0]


def _scatter(data: np.ndarray, loc: np.ndarray, values: np.ndarray) -> None:
    E = values.dtype.itemsize
    if not (loc % E).any():
        data.view(values.dtype)[loc // E] = values
        return
    data[loc[..., None] + np.arange(E)] = np.ascontiguousarray(values)[..., None].view(np.uint8)


@op("OpCooperativeMatrixLoadNV", "OpCooperativeMatrixLoadKHR")
def coop_load(ex, frame, inst, mask):
    info = coop_info(ex, ex.rtype(inst))
    ptr, groups, addr, base = _geometry(ex, frame, inst, info, mask, False)
    out = np.zeros((info.num_groups, info.rows, info.cols), info.dtype)
    if addr is None:
        return CoopMat(info, out)
    mems, loc = _locate(ptr, info, addr, base, groups, "load")
    if mems is None:
        out[groups] = _gather(ptr.mem.data, loc, info.dtype)
    else:
        for j, m in enumerate(mems):
            out[groups[j]] = _gather(m.data, loc[j], info.dtype)
    return CoopMat(info, out)


@op("OpCooperativeMatrixStoreNV", "OpCooperativeMatrixStoreKHR")
def coop_store(ex, frame, inst, mask):
    v = coop_val(ex, frame, inst.operands[1].value)
    info = v.info
    ptr, groups, addr, base = _geometry(ex, frame, inst, info, mask, True)
    if addr is None:
        return None
    mems, loc = _locate(ptr, info, addr, base, groups, "store")
    vals = v.full()[groups]
    if mems is None:
        _scatter(ptr.mem.data, loc, vals)
    else:
        for j, m in enumerate(mems):
            _scatter(m.data, loc[j], vals[j])
    return None

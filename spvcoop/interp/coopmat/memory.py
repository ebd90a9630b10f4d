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

from typing import cast

import numpy as np

from ...core.spirv_grammar import load as load_grammar
from ..dispatch import OpSet
from ..fault import Fault
from ..memory import ADDRESS_SHIFT, DeviceMemory, Memory, Pointer
from ..program import enum_name
from ..races import READ, WRITE, watched
from .core import CoopInfo, CoopMat, active_groups, coop_info, coop_val, first_lanes, uniform, warn

OPS = OpSet()


_COLUMN_MAJOR = load_grammar().operand_kinds["CooperativeMatrixLayout"].by_name["ColumnMajorKHR"].value
_ROW_MAJOR = load_grammar().operand_kinds["CooperativeMatrixLayout"].by_name["RowMajorKHR"].value


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
        return ptr, groups, None
    off = uniform(info, np.asarray(ptr.off).reshape(-1), groups, lanes, mask, "the Pointer operand (byte offset)")
    major = uniform(info, ex.val(frame, major_id), groups, lanes, mask,
                    "the ColumnMajor operand" if not khr else "the MemoryLayout operand")
    if khr:
        for v in np.unique(major):
            n = enum_name("CooperativeMatrixLayout", int(v))
            if n not in ("RowMajorKHR", "ColumnMajorKHR"):
                raise Fault(f"memory layout {n} is not supported (RowMajorKHR or ColumnMajorKHR)")
        col_major = major.astype(np.int64) == _COLUMN_MAJOR
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
    base = np.asarray(ptr.base)
    base = np.broadcast_to(base, mask.shape)[lanes] if base.ndim else np.full(len(groups), int(base))
    return ptr, groups, Geometry(off.astype(np.int64), (stride * P).astype(np.int64), col_major, base)


class Geometry:
    """Where one matrix per active scope instance lives: start byte, row (column) pitch in bytes, major-ness."""

    def __init__(self, off: np.ndarray, pitch: np.ndarray, col_major: np.ndarray, base: np.ndarray):
        self.off, self.pitch, self.col_major, self.base = off, pitch, col_major, base

    def addresses(self, info: CoopInfo) -> np.ndarray:
        """(g, rows, cols) byte address of every element."""
        r = np.arange(info.rows, dtype=np.int64)[None, :, None]
        c = np.arange(info.cols, dtype=np.int64)[None, None, :]
        st = self.pitch[:, None, None]
        E = info.itemsize
        return self.off[:, None, None] + np.where(self.col_major[:, None, None], c * st + r * E, r * st + c * E)

    def last(self, info: CoopInfo) -> np.ndarray:
        """Byte distance from the first element to the last one (non-negative pitches)."""
        E = info.itemsize
        return np.where(self.col_major, (info.cols - 1) * self.pitch + (info.rows - 1) * E,
                        (info.rows - 1) * self.pitch + (info.cols - 1) * E)


def _locate(ptr: Pointer, info: CoopInfo, geo: Geometry, groups, what: str):
    """(memories per group or None, byte offsets of the first element into memory.data) after the bounds check."""
    E = info.itemsize
    mem = ptr.mem
    mems = None
    if isinstance(mem, DeviceMemory):
        k = geo.off >> ADDRESS_SHIFT
        mems = []
        for j, kk in enumerate(k):
            kk = int(kk)
            if kk < 1 or kk > len(mem.buffers):
                raise Fault(f"{what}: address 0x{int(geo.off[j]):x} is not inside any buffer with a device address")
            mems.append(mem.buffers[kk - 1])
        start = geo.off - (k << ADDRESS_SHIFT)
        rel0 = start
        region = np.array([m.region for m in mems])
    else:
        start = geo.off
        rel0 = geo.off - geo.base
        region = np.full(len(groups), mem.region)
    # The addresses are affine in (row, col), so the extremes of each matrix are at its corners:
    # the bounds check needs four addresses per matrix, and the details only the first bad one.
    E = info.itemsize
    R, C = info.rows - 1, info.cols - 1
    step_r = np.where(geo.col_major, E, geo.pitch)
    step_c = np.where(geo.col_major, geo.pitch, E)
    corners = [rel0 + a * step_r + b * step_c for a in (0, R) for b in (0, C)]
    low = np.minimum.reduce(corners)
    high = np.maximum.reduce(corners)
    bad_g = (low < 0) | (high + E > region)
    if bad_g.any():
        j = int(np.flatnonzero(bad_g)[0])
        one = Geometry(geo.off[j:j + 1], geo.pitch[j:j + 1], geo.col_major[j:j + 1], geo.base)
        rel = (rel0[j] - geo.off[j]) + one.addresses(info)[0]
        bad = (rel < 0) | (rel + E > region[j])
        r, c = (int(x) for x in np.argwhere(bad)[0])
        m = mems[j] if mems else cast(Memory, mem)
        raise Fault(f"{what} out of bounds in {info.scope.lower()} {int(groups[j])}: element (row {r}, col {c}) "
                    f"is at byte offset {int(rel[r, c])} of '{m.name}' ({m.storage}, {m.region} bytes); "
                    f"{int(bad.sum())} of {info.rows * info.cols} elements are outside")
    return mems, start


def _window(data: np.ndarray, info: CoopInfo, geo: Geometry, idx: slice | np.ndarray):
    """A strided (g, rows, cols) view of the matrices at start bytes geo.off[idx] when they share pitch and major-ness
    and everything is aligned; None otherwise."""
    E = info.itemsize
    pitch, cm = geo.pitch[idx], geo.col_major[idx]
    starts = geo.off[idx] if not isinstance(idx, slice) else geo.off
    if len(pitch) == 0 or (pitch != pitch[0]).any() or (cm != cm[0]).any() or pitch[0] % E or (starts % E).any():
        return None
    view = data.view(f"u{E}")  # bit patterns: as_strided cannot rebuild ml_dtypes' types (bf16, FP8)
    st = int(pitch[0])
    rs, cs = (E, st) if cm[0] else (st, E)
    extent = (info.rows - 1) * rs + (info.cols - 1) * cs + E
    n = (view.nbytes - extent) // E + 1
    if n <= 0:
        return None
    win = np.lib.stride_tricks.as_strided(view, shape=(n, info.rows, info.cols), strides=(E, rs, cs))
    return win, starts // E


# Scope instances from which a load looks for repeated tiles (a whole-dispatch GEMM's workgroups read each A and
# B tile many times): below it np.unique costs more than the gather it saves.
SHARED_MIN = 64


def _gather_shared(data: np.ndarray, info: CoopInfo, geo: Geometry, start: np.ndarray, lazy: bool) -> CoopMat:
    """A load of every scope instance from one memory: where instances read the same tiles, each distinct tile is
    read once and copied to the instances that share it (lazy: when something reads them, CoopMat.of_tiles), and
    the tiles go with the values (CoopMat.shared) for MulAdd to widen once."""
    if len(start) >= SHARED_MIN:
        w = _window(data, info, geo, slice(None))
        if w is not None:
            uniq, index = np.unique(w[1], return_inverse=True)
            if 2 * len(uniq) <= len(index):
                tiles = info.from_storage(w[0][uniq].view(info.storage_dtype))
                return CoopMat.of_tiles(info, tiles, index.reshape(-1), lazy)
    return CoopMat(info, _gather(data, info, geo, start, slice(None)))


def _gather(data: np.ndarray, info: CoopInfo, geo: Geometry, start: np.ndarray, idx) -> np.ndarray:
    g = Geometry(start[idx], geo.pitch[idx], geo.col_major[idx], geo.base[idx])
    w = _window(data, info, g, slice(None))
    if w is not None:
        return info.from_storage(w[0][w[1]].view(info.storage_dtype))
    loc = g.addresses(info)
    E = info.itemsize
    if not (loc % E).any():
        return info.from_storage(data.view(info.storage_dtype)[loc // E])
    raw = np.ascontiguousarray(data[loc[..., None] + np.arange(E)]).view(info.storage_dtype)[..., 0]
    return info.from_storage(raw)


def _scatter(data: np.ndarray, info: CoopInfo, geo: Geometry, start: np.ndarray, idx, values: np.ndarray) -> None:
    g = Geometry(start[idx], geo.pitch[idx], geo.col_major[idx], geo.base[idx])
    values = info.to_storage(values)
    w = _window(data, info, g, slice(None))
    if w is not None:
        w[0][w[1]] = np.asarray(values).view(w[0].dtype)
        return
    loc = g.addresses(info)
    E = info.itemsize
    if not (loc % E).any():
        data.view(info.storage_dtype)[loc // E] = values
        return
    data[loc[..., None] + np.arange(E)] = np.ascontiguousarray(values)[..., None].view(np.uint8)


def _one_value(v):
    """The int every invocation holds in v ((1,) or (N,) array), or None when they differ (or v is no array)."""
    if type(v) is not np.ndarray or v.dtype.kind not in "iub":
        return None
    if v.shape != (1,) and (v.ndim != 1 or not v.shape[0] or not (v == v[0]).all()):
        return None
    return int(v[0].item())


def _single_window(ex, frame, inst, info: CoopInfo, mask, store: bool):
    """The matrix's (1, rows, cols) view into memory for the common case of a loop over tiles: one scope instance
    in the whole dispatch, every invocation active, an ordinary memory (not device addresses), pointer, stride
    and layout the same for every invocation, rows that do not overlap and every element in bounds. Scalar
    checks instead of the per-group arrays of _geometry/_locate; None sends every other case (and every error
    or warning) to the general path, which then reports it. The view is of the memory's bytes: loads copy.
    (Invocations killed earlier need no care: every invocation's operands are compared, not only the live ones',
    and a mask that is all true is all true for the live ones too.)"""
    fp = ex.fast
    if fp is None or not fp.matrix_memory or (mask is not ex.every and not mask.all()) or info.num_groups != 1:
        return None
    seen = fp.windows
    static = seen.get(inst.index)
    if static is None:   # per run: the instruction's operand ids and the matrix type's sizes
        ptr_id, _, stride_id, major_id, khr = _operands(ex, frame, inst, store)
        # the view's dtype: the values' own where memory holds them as they are, else the bit patterns
        wdt = info.dtype if info.storage is None else info.window_dtype
        static = seen[inst.index] = (ptr_id, stride_id, major_id, khr, info.itemsize, info.rows, info.cols, wdt, {})
    ptr_id, stride_id, major_id, khr, E, R, C, wdt, sizes = static
    ptr = ex.val(frame, ptr_id)
    if type(ptr) is not Pointer or type(ptr.mem) is DeviceMemory:
        return None
    off = _one_value(ptr.off)
    major = _one_value(ex.val(frame, major_id))
    base = ptr.base
    base = int(base) if type(base) is int or np.ndim(base) == 0 else _one_value(np.asarray(base).reshape(-1))
    if off is None or major is None or base is None:
        return None
    if khr:
        if major == _COLUMN_MAJOR:
            col_major = True
        elif major == _ROW_MAJOR:
            col_major = False
        else:
            return None
    else:
        col_major = bool(major)
    pt = ptr.type
    P = sizes.get(pt)   # the pointee's size, as _geometry computes it
    if P is None:
        P = sizes[pt] = max(pt.size() if pt is not None and pt.kind != "runtime_array" else E, 1)
    if stride_id is not None:
        stride = _one_value(ex.val(frame, stride_id))
        # the general path's uniform() keeps the operand's own integer type; a 32-bit value that is negative as
        # signed (or huge as unsigned) is left to it
        if stride is None or stride < 0 or stride >= 1 << 31:
            return None
    else:
        stride = (R if col_major else C) * E // P
    pitch = stride * P
    if col_major:
        if pitch < R * E:
            return None   # overlapping columns: the general path warns
        step_r, step_c = E, pitch
    else:
        if pitch < C * E:
            return None
        step_r, step_c = pitch, E
    rel0 = off - base
    mem = cast(Memory, ptr.mem)   # not a DeviceMemory (returned above)
    if rel0 < 0 or rel0 + (R - 1) * step_r + (C - 1) * step_c + E > mem.region:
        return None   # out of bounds: the general path reports the first bad element
    return np.ndarray((1, R, C), wdt, mem.data, off, (0, step_r, step_c))


class _LoadPlan:
    """_single_window's scalar facts for a load whose Stride and MemoryLayout are run constants (constants or spec
    constants), worked out once per run and instruction: what is left per call is the pointer's offset and the
    bounds check. Valid for one pointee type (`src`; it gives the stride's unit). Per memory, a strided view of
    all its tiles (`tiles`): a tile is then one slice of it."""
    __slots__ = ("info", "ptr_id", "src", "wdt", "E", "strides", "extent", "tiles", "race")

    def __init__(self, info: CoopInfo, ptr_id: int, src, wdt: np.dtype, strides: tuple[int, int], extent: int,
                 race: tuple | None) -> None:
        self.info, self.ptr_id, self.src, self.wdt = info, ptr_id, src, wdt
        self.E, self.strides, self.extent = info.itemsize, strides, extent
        self.tiles: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.race = race

    @staticmethod
    def make(ex, frame, inst) -> _LoadPlan | None:
        """None unless _single_window would take this load with these operands in every call of the run (and
        then the plan gives its window): one scope instance, an ordinary memory, run-constant stride and layout
        that it accepts."""
        info = coop_info(ex, ex.rtype(inst))
        if info.num_groups != 1:
            return None
        ptr_id, _, stride_id, major_id, khr = _operands(ex, frame, inst, False)
        ptr = frame.vals.get(ptr_id, ex.gvals.get(ptr_id))   # (an undefined one: the general path's error)
        if type(ptr) is not Pointer or type(ptr.mem) is DeviceMemory:
            return None
        major = _one_value(ex.gvals.get(major_id))
        if major is None:
            return None
        if khr:
            if major not in (_COLUMN_MAJOR, _ROW_MAJOR):
                return None
            col_major = major == _COLUMN_MAJOR
        else:
            col_major = bool(major)
        E, R, C = info.itemsize, info.rows, info.cols
        pt = ptr.type
        P = max(pt.size() if pt is not None and pt.kind != "runtime_array" else E, 1)
        if stride_id is not None:
            stride = _one_value(ex.gvals.get(stride_id))
            if stride is None or stride < 0 or stride >= 1 << 31:
                return None
        else:
            stride = (R if col_major else C) * E // P
        pitch = stride * P
        if pitch < (R if col_major else C) * E:
            return None
        step_r, step_c = (E, pitch) if col_major else (pitch, E)
        race = None
        if ex.races is not None:   # _single_races's facts, from the window's strides as it reads them
            width, count, step = (C * E, R, step_r) if step_c == E else (R * E, C, step_c)
            race = (width, count, step, ex.races.scope_agents(None, info.scope))
        wdt = info.dtype if info.storage is None else info.window_dtype
        return _LoadPlan(info, ptr_id, pt, wdt, (step_r, step_c), (R - 1) * step_r + (C - 1) * step_c + E, race)

    def window(self, ex, frame, mask) -> tuple[np.ndarray, Pointer] | None:
        """(_single_window's (1, rows, cols) view, the pointer) or None: then _single_window and the general
        path take the call."""
        if mask is not ex.every and not mask.all():
            return None
        ptr = frame.vals.get(self.ptr_id)
        if ptr is None:
            ptr = ex.gvals.get(self.ptr_id)
        if type(ptr) is not Pointer or ptr.type is not self.src:
            return None
        mem = ptr.mem
        if type(mem) is DeviceMemory:
            return None
        off = ptr.off
        off = off.item() if type(off) is np.ndarray and off.shape == (1,) and off.dtype.kind in "iu" \
            else _one_value(off)
        base = ptr.base
        base = base if type(base) is int else \
            int(base) if np.ndim(base) == 0 else _one_value(np.asarray(base).reshape(-1))
        if off is None or base is None:
            return None
        rel0 = off - base
        mem = cast(Memory, mem)
        if rel0 < 0 or rel0 + self.extent > mem.region:
            return None   # out of bounds: the general path reports it
        E = self.E
        k, r = divmod(off, E)
        if not r:
            t = self.tiles.get(id(mem))
            if t is None or t[0] is not mem.data:
                view = mem.data.view(self.wdt)
                n = (view.nbytes - self.extent) // E + 1
                info = self.info
                t = self.tiles[id(mem)] = (mem.data, np.lib.stride_tricks.as_strided(
                    view, (max(n, 0), info.rows, info.cols), (E, *self.strides), writeable=False))
            if k < len(t[1]):
                return t[1][k:k + 1], ptr
        info = self.info
        return np.ndarray((1, info.rows, info.cols), self.wdt, mem.data, off, (0, *self.strides)), ptr




@OPS.op("OpCooperativeMatrixLoadNV", "OpCooperativeMatrixLoadKHR")
def coop_load(ex, frame, inst, mask):
    fp = ex.fast
    if fp is not None and fp.matrix_memory:
        plan = fp.plans.get(inst.index)
        if plan is None:
            plan = fp.plan(inst, _LoadPlan.make, ex, frame, inst)
        if plan:
            got = plan.window(ex, frame, mask)
            if got is not None:
                fp.taken.add("matrix_memory")
                win, ptr = got
                info = plan.info
                if plan.race is not None and lane_mode(ex, ptr.mem):
                    lane_races(ex, inst, info, ptr.mem, np.zeros(1, np.int64), ptr.off[:1],
                               np.array([plan.strides[0]]), np.array([plan.strides[1]]), READ)
                elif plan.race is not None:
                    width, count, step, agents = plan.race
                    off = ptr.off
                    ex.races.access(READ, ptr.mem, off if off.shape == (1,) else off[:1], agents, inst, width,
                                    count, step)
                return CoopMat(info, win.copy() if info.storage is None else
                               info.from_storage(win.view(info.storage).copy()))
    info = coop_info(ex, ex.rtype(inst))
    win = _single_window(ex, frame, inst, info, mask, False)
    if win is not None:
        fp.taken.add("matrix_memory")   # (_single_window is None without fp)
        if ex.races is not None:
            _single_races(ex, frame, inst, info, win, READ)
        return CoopMat(info, win.copy() if info.storage is None else info.from_storage(win.view(info.storage).copy()))
    ptr, groups, geo = _geometry(ex, frame, inst, info, mask, False)
    if geo is None:
        return CoopMat(info, np.zeros((info.num_groups, info.rows, info.cols), info.dtype))
    mems, start = _locate(ptr, info, geo, groups, "load")
    if ex.races is not None:
        _races(ex, inst, info, ptr, geo, mask, READ)
    if mems is None and fp is not None and fp.matrix_memory and len(groups) == info.num_groups:
        fp.taken.add("matrix_memory")
        return _gather_shared(ptr.mem.data, info, Geometry(start, geo.pitch, geo.col_major, geo.base), start,
                              fp.shared_tiles)
    elif mems is None:
        vals = _gather(ptr.mem.data, info, geo, start, slice(None))
    else:
        vals = np.stack([_gather(m.data, info, geo, start, [j])[0] for j, m in enumerate(mems)])
    if len(groups) == info.num_groups:
        return CoopMat(info, vals)
    out = np.zeros((info.num_groups, info.rows, info.cols), info.dtype)
    out[groups] = vals
    return CoopMat(info, out)


@OPS.op("OpCooperativeMatrixStoreNV", "OpCooperativeMatrixStoreKHR")
def coop_store(ex, frame, inst, mask):
    v = coop_val(ex, frame, inst.operands[1].value)
    info = v.info
    win = _single_window(ex, frame, inst, info, mask, True)
    if win is not None:
        ex.fast.taken.add("matrix_memory")
        # as _scatter writes a window: the bit patterns of the stored values (win holds values or bit patterns)
        win.view(info.window_dtype)[...] = np.asarray(info.to_storage(v.full())).view(info.window_dtype)
        if ex.races is not None:
            _single_races(ex, frame, inst, info, win, WRITE)
        return None
    ptr, groups, geo = _geometry(ex, frame, inst, info, mask, True)
    if geo is None:
        return None
    mems, start = _locate(ptr, info, geo, groups, "store")
    if ex.races is not None:
        _races(ex, inst, info, ptr, geo, mask, WRITE)
    vals = v.full()[groups]
    if mems is None:
        _scatter(ptr.mem.data, info, geo, start, slice(None), vals)
    else:
        for j, m in enumerate(mems):
            _scatter(m.data, info, geo, start, [j], vals[j:j + 1])
    return None


def _races(ex, inst, info: CoopInfo, ptr: Pointer, geo: Geometry, mask, kind: str) -> None:
    """The race detector's record of a load/store (interp/races.py): each active scope instance touches its
    matrix's rows (columns), `pitch` bytes apart; one call per distinct pitch and major-ness."""
    if not watched(ptr.mem):
        return
    rec = ex.races
    groups, lanes = first_lanes(info, active_groups(ex, info, mask, inst.opname), mask)
    E = info.itemsize
    if lane_mode(ex, ptr.mem):
        cm = geo.col_major.astype(bool)
        lane_races(ex, inst, info, ptr.mem, groups, geo.off, np.where(cm, E, geo.pitch), np.where(cm, geo.pitch, E),
                   kind)
        return
    agents = rec.scope_agents(lanes, info.scope)
    fp = ex.fast
    tiles = fp is not None and fp.race_tiles
    for pitch in np.unique(geo.pitch):
        for cm in np.unique(geo.col_major):
            sel = (geo.pitch == pitch) & (geo.col_major == cm)
            width, count = (info.rows * E, info.cols) if cm else (info.cols * E, info.rows)
            rec.access(kind, ptr.mem, geo.off[sel], agents[sel], inst, width, count, int(pitch), tiles=tiles)


def _single_races(ex, frame, inst, info: CoopInfo, win: np.ndarray, kind: str) -> None:
    """The same for _single_window's one scope instance (lane 0 is its first): the window's rows or columns."""
    rec = ex.races
    key = (inst.index, win.strides)
    facts = rec.cache.get(key)   # per instruction and window shape: the same in every trip of a loop
    if facts is None:
        _, rs, cs = win.strides
        E = info.itemsize
        width, count, step = (info.cols * E, info.rows, rs) if cs == E else (info.rows * E, info.cols, cs)
        facts = rec.cache[key] = (ex.fast.windows[inst.index][0], width, count, step,
                                  rec.scope_agents(None, info.scope))
    ptr_id, width, count, step, agents = facts
    ptr = ex.val(frame, ptr_id)   # as _single_window found it
    if lane_mode(ex, ptr.mem):
        _, rs, cs = win.strides
        lane_races(ex, inst, info, ptr.mem, np.zeros(1, np.int64), ptr.off[:1], np.array([rs]), np.array([cs]), kind)
        return
    rec.access(kind, ptr.mem, ptr.off[:1], agents, inst, width, count, step)


# ---- per-lane records under an explicit layout model (issue 37) --------------------------------------------------
def lane_mode(ex, mem) -> bool:
    """Record a matrix load or store per invocation, as the layout model spreads the elements? For Workgroup
    memory (where matrices are staged and read back element by element) under a model the run names
    (`--layout NAME`, each model of `--layout all` and `portability`): what that vendor's hardware does. Otherwise
    a load or store is the scope instance's as a whole (races.py), whatever the layout: an element-by-element
    record of every tile a GEMM reads from its buffers would cost 30 times the run."""
    return ex.config.layout_model is not None and getattr(mem, "storage", None) == "Workgroup"


def _owners(ex, info: CoopInfo, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(element, position) pairs: which position of a scope instance touches which element (row-major index) under
    the layout: every copy of a replicated element for a load, its first holder for a store."""
    key = ("coopmat.owners", id(info), kind)
    got = ex.races.cache.get(key)
    if got is None:
        flat = info.layout().flat
        p, i = np.nonzero(flat >= 0)
        e = flat[p, i].astype(np.int64)
        order = np.lexsort((p, e))
        e, p = e[order], p[order]
        if kind == WRITE:
            first = np.r_[True, e[1:] != e[:-1]]
            e, p = e[first], p[first]
        got = ex.races.cache[key] = (e, p.astype(np.int64))
    return got


def lane_races(ex, inst, info: CoopInfo, mem, groups: np.ndarray, off: np.ndarray, step_r: np.ndarray,
               step_c: np.ndarray, kind: str) -> None:
    """The race detector's record of a load/store of scope instances `groups` (matrix g at byte off[g], element
    (r, c) at off + r * step_r + c * step_c) as accesses by the invocations the layout gives each element to; an
    element of an absent lane (a partial subgroup) counts as the instance's first invocation's."""
    if not watched(mem):
        return
    rec = ex.races
    e, p = _owners(ex, info, kind)
    G = info.num_groups
    key = ("coopmat.lane_at", id(info))
    lane_at = rec.cache.get(key)
    if lane_at is None:   # (instance, position) -> invocation
        lane_at = np.full((G, info.scope_size), -1, np.int64)
        lane_at[info.group, info.position] = np.arange(info.group.shape[0])
        first = lane_at.max(axis=1, initial=-1)
        for g in range(G):   # absent positions: the instance's first invocation
            row = lane_at[g]
            present = row[row >= 0]
            row[row < 0] = present.min() if len(present) else first[g]
        rec.cache[key] = lane_at
    r, c = e // info.cols, e % info.cols
    groups = np.asarray(groups, np.int64)
    start = (np.asarray(off, np.int64)[:, None] + r[None, :] * np.asarray(step_r, np.int64)[:, None]
             + c[None, :] * np.asarray(step_c, np.int64)[:, None]).reshape(-1)
    agents = lane_at[groups[:, None], p[None, :]].reshape(-1).astype(rec.adt)
    rec.access(kind, mem, start, agents, inst, info.itemsize)

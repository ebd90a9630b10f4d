"""OpCooperativeMatrixLoadTensorNV / StoreTensorNV: whole logical matrices through tensor layouts and views.

Element (row, col) is at byte `Pointer + index * E` (E: the component size), index from addressing.py. Every
operand must be the same for the whole scope instance. A load keeps Object's element where the view's clip
region excludes it and gives the layout's clamp value (its low E bytes) where Constant mode clamps it; a store
skips both. Out of range under clamp mode Undefined, and any element outside its buffer, stops the run with the
element and its byte offset. With a DecodeFunc the function is called once per loaded element with a
PhysicalStorageBuffer pointer to `Pointer + index * P` (P: the size of its pointee) and the block coordinate and
coordinate in block, and returns the element.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..dispatch import OpSet
from ..fault import Fault
from ..memory import ADDRESS_SHIFT, DeviceMemory, Pointer
from ..races import READ, WRITE, watched
from ..undefined import undefined_lanes
from ..coopmat.core import CoopInfo, CoopMat, active_groups, coop_info, coop_val, first_lanes, uniform
from . import tiles as fast
from .addressing import Addresses, tensor_addresses
from .core import TensorLayout, TensorView, call_elements, tensor_val

OPS = OpSet()

_VIEW, _DECODE = 0x1, 0x2


def _addressing_operands(inst):
    """(view id or None, decode function id or None) from the Tensor Addressing Operands."""
    ops = inst.operands
    for i, o in enumerate(ops):
        if o.kind == "TensorAddressingOperands":
            rest = [x.value for x in ops[i + 1:]]
            view = rest.pop(0) if o.value & _VIEW and rest else None
            decode = rest.pop(0) if o.value & _DECODE and rest else None
            return view, decode
    return None, None


class _Where:
    """Per active scope instance: the memory, the element-0 index into its bytes, and its bounds."""

    def __init__(self, ex, ptr, info: CoopInfo, groups, lanes, mask):
        if not isinstance(ptr, Pointer):
            raise Fault("the Pointer operand is not a pointer")
        off = uniform(info, np.asarray(ptr.off).reshape(-1), groups, lanes, mask,
                      "the Pointer operand (byte offset)").astype(np.int64)
        mem = ptr.mem
        if isinstance(mem, DeviceMemory):
            k = off >> ADDRESS_SHIFT
            self.mems = []
            for j, kk in enumerate(k.tolist()):
                if kk < 1 or kk > len(mem.buffers):
                    raise Fault(f"address 0x{int(off[j]):x} is not inside any buffer with a device address")
                self.mems.append(mem.buffers[kk - 1])
            self.start = off - (k << ADDRESS_SHIFT)
            self.rel = self.start
        else:
            base = np.asarray(ptr.base)
            base = np.broadcast_to(base, mask.shape)[lanes] if base.ndim else np.full(len(groups), int(base))
            self.mems = [mem] * len(groups)
            self.start = off
            self.rel = off - base
        self.ptr = ptr

    def sub(self, pos: np.ndarray) -> _Where:
        """The same for the scope instances at positions `pos`."""
        w = object.__new__(_Where)
        w.mems = [self.mems[int(j)] for j in pos]
        w.start, w.rel, w.ptr = self.start[pos], self.rel[pos], self.ptr
        return w

    def one_memory(self):
        """The memory every scope instance reaches, or None."""
        m = self.mems[0]
        if not isinstance(self.ptr.mem, DeviceMemory):
            return m   # an ordinary memory: the same for all (__init__)
        return m if all(x is m for x in self.mems) else None

    def check(self, info: CoopInfo, a: Addresses, groups, dims: np.ndarray, what: str) -> None:
        E = info.itemsize
        if a.undefined.any():
            j, r, c = (int(x) for x in np.argwhere(a.undefined)[0])
            d, x = int(a.bad_dim[j, r, c]), int(a.bad_coord[j, r, c])
            raise Fault(f"{what} out of range in {info.scope.lower()} {int(groups[j])}: element (row {r}, col {c}) "
                        f"has tensor coordinate {x} in dimension {d}, outside 0..{int(dims[j, d]) - 1}, under "
                        f"clamp mode Undefined; {int(a.undefined[j].sum())} of {info.rows * info.cols} elements are "
                        f"out of range")
        region = np.array([m.region for m in self.mems], np.int64)[:, None, None]
        rel = self.rel[:, None, None] + a.index * E
        bad = a.access & ((rel < 0) | (rel + E > region))
        if bad.any():
            j, r, c = (int(x) for x in np.argwhere(bad)[0])
            m = self.mems[j]
            raise Fault(f"{what} out of bounds in {info.scope.lower()} {int(groups[j])}: element (row {r}, col {c}) "
                        f"is tensor element {int(a.index[j, r, c])}, at byte offset {int(rel[j, r, c])} of "
                        f"'{m.name}' ({m.storage}, {m.region} bytes); {int(bad[j].sum())} of "
                        f"{info.rows * info.cols} elements are outside")


@dataclass
class _Access:
    """One LoadTensor/StoreTensor for its active scope instances: where, which elements, the layout's fields.
    The elements are either `a` (per element, addressing.py: the plain path) or `tiles` (tiles.py: whole tiles
    of the interior scope instances, and per-element addresses of the edge ones)."""
    groups: np.ndarray      # (g,) active scope instances
    lanes: np.ndarray       # (g,) the first active invocation of each
    where: _Where
    a: Addresses | None
    layout: dict            # the layout's fields, (g, ...) each
    decode_id: int | None
    tiles: fast.Tiles | None = None


def _prepare(ex, frame, inst, mask, info: CoopInfo, store: bool) -> _Access | None:
    gmask = active_groups(ex, info, mask, inst.opname)
    groups, lanes = first_lanes(info, gmask, mask)
    if len(groups) == 0:
        return None
    layout = tensor_val(ex, frame, inst.operands[2].value, TensorLayout)
    view_id, decode_id = _addressing_operands(inst)
    g = layout.grouped
    if g is not None and g.N == ex.N and ex.virtual_lanes is None:
        L = None   # per workgroup (tensor.py's _grouped_slice): the same in every invocation of each (below)
    else:
        g = None
        L = {k: np.asarray(uniform(info, v, groups, lanes, mask, f"the TensorLayout operand ({k})"))
             for k, v in layout.fields.items()}
    vt = V = None
    if view_id is not None:
        view = tensor_val(ex, frame, view_id, TensorView)
        vt = view.type
        V = {k: np.asarray(uniform(info, v, groups, lanes, mask, f"the TensorView operand ({k})"))
             for k, v in view.fields.items()}
    where = _Where(ex, ex.val(frame, inst.operands[0].value), info, groups, lanes, mask)
    n = len(groups) * info.rows * info.cols  # the addressing's int64 arrays per element: checked, not kept
    ex.budget.reserve(n * 8 * (12 + 4 * layout.type.dims), f"tensor addressing of {n:,} elements", inst, keep=False)
    what = "store" if store else "load"
    key = None
    if g is not None:
        key = _trip_key(ex, inst, info, layout.type, g, lanes, vt, V, where, store) if decode_id is None else None
        if key is not None:
            tr = cast(dict, ex.fast.trips).get(inst.index)   # (_trip_key is None without the fast paths)
            moved = tr.moved(g.moved[1]) if tr is not None and tr.key == key else None
            if moved is not None:
                ex.fast.taken.update(("tensor", "tensor_groups"))
                return _Access(groups, lanes, where, None, g.per(lanes, ("clamp_value",)), decode_id, moved)
        L = g.per(lanes)
    assert L is not None
    tiles = _tiles(ex, info, layout.type, L, vt, V, where, groups, store, what) if decode_id is None else None
    if tiles is not None:
        if key is not None:
            assert g is not None and g.moved is not None
            ex.fast.trips[inst.index] = fast.trip(
                tiles, key, g.moved[1], L["offset"], layout.type, L, vt, V, info.rows, info.cols, store, where.start,
                where.rel, where.mems[0].region, info.itemsize, ex.fast.tile_probes)
        return _Access(groups, lanes, where, None, L, decode_id, tiles)
    a = tensor_addresses(layout.type, L, vt, V, info.rows, info.cols, store)
    where.check(info, a, groups, L["dim"], what)
    return _Access(groups, lanes, where, a, L, decode_id)


def _trip_key(ex, inst, info: CoopInfo, lt, g, lanes, vt, V, where: _Where, store: bool) -> tuple | None:
    """What a plan of a grouped layout's access holds for, but for a row for all of the offsets (tiles.Trip): the
    same instances, the same fixed offset rows (the same arrays), the same other fields and view (one row each),
    the same memory at the same pointer; None where its plans are not kept (not one row each, no fast paths)."""
    fp = ex.fast
    if fp is None or not fp.tensor or not fp.tensor_groups or g.moved is None:
        return None
    start, rel = where.start, where.rel
    s0, r0 = int(start[0]), int(rel[0])
    if (start != s0).any() or (rel != r0).any() or where.one_memory() is None:
        return None
    rows = g.rows
    if any(v.shape[0] != 1 for k, v in rows.items() if k != "offset") or \
            (V is not None and any(v.strides[0] for v in V.values())):
        return None
    fixed = g.moved[0]
    return (id(lanes), tuple((j, id(c)) for j, c in fixed), lt, vt, info.rows, info.cols, info.itemsize, store,
            id(where.mems[0]), s0, r0,
            *(rows[k].tobytes() for k in sorted(rows) if k != "offset"),
            *(() if V is None else (V[k][0].tobytes() for k in sorted(V))),
            lanes, fixed, where.mems[0])   # (the objects whose ids the key holds, kept alive with it)


def _tiles(ex, info: CoopInfo, lt, L: dict, vt, V, where: _Where, groups, store: bool, what: str):
    """The fast path's plan (tiles.py), or None: the plain path, which also reports every fault."""
    fp = ex.fast
    if fp is None or not fp.tensor:
        return None
    mem = where.one_memory()
    if mem is None or info.itemsize > 8:
        return None
    try:
        t = fast.plan(lt, L, vt, V, info.rows, info.cols, store, where.start, where.rel, mem.region, info.itemsize,
                      fp.tile_probes)
        if t is not None and t.edge_a is not None:
            where.sub(t.edge).check(info, t.edge_a, groups[t.edge], L["dim"][t.edge], what)
    except Fault:
        return None
    if t is not None:
        fp.taken.add("tensor")
    return t


def _by_memory(where: _Where, j: np.ndarray):
    """(memory, positions) pairs: the accessed elements (positions into np.nonzero's arrays, ascending) grouped by
    the memory their scope instance reaches -- one numpy gather or scatter per buffer, not one pass over every
    element per scope instance (that was quadratic in the number of workgroups)."""
    ids: dict[int, int] = {}
    key = np.array([ids.setdefault(id(m), len(ids)) for m in where.mems], np.int64)[j]
    order = np.argsort(key, kind="stable")
    for run in np.split(order, np.flatnonzero(np.diff(key[order])) + 1):
        if len(run):
            yield where.mems[j[run[0]]], run


def _gather(where: _Where, info: CoopInfo, a: Addresses) -> np.ndarray:
    """(k,) element values of the accessed elements, in np.nonzero(a.access) order."""
    E = info.itemsize
    j, r, c = np.nonzero(a.access)
    out = np.zeros(len(j), info.storage_dtype)
    addr = where.start[j] + a.index[j, r, c] * E
    for mem, run in _by_memory(where, j):
        out[run] = np.ascontiguousarray(mem.data[addr[run, None] + np.arange(E)]).view(info.storage_dtype)[:, 0]
    return info.from_storage(out)


def _clamp_values(info: CoopInfo, clamp: np.ndarray) -> np.ndarray:
    """(g,) the clamp value's low E bytes as the component type."""
    E = info.itemsize
    bits = (clamp.astype(np.int64) & ((1 << (8 * E)) - 1)).astype(f"u{E}")
    return info.from_storage(bits.view(info.storage_dtype))


@OPS.op("OpCooperativeMatrixLoadTensorNV")
def load_tensor(ex, frame, inst, mask):
    info = coop_info(ex, ex.rtype(inst))
    obj = coop_val(ex, frame, inst.operands[1].value)
    acc = _prepare(ex, frame, inst, mask, info, False)
    if acc is None:
        return CoopMat(info, np.zeros((info.num_groups, info.rows, info.cols), info.dtype))
    if acc.tiles is not None:
        vals = _load_tiles(ex, acc, acc.tiles, info, obj)
    else:
        a = acc.a
        assert a is not None
        vals = np.array(obj.full()[acc.groups], dtype=info.dtype)
        if acc.decode_id is not None:
            vals[a.access] = _decode(ex, inst, acc, info)
        else:
            vals[a.access] = _gather(acc.where, info, a)
        _clamped(info, a, vals, acc.layout["clamp_value"])
    if ex.races is not None and acc.decode_id is None:   # (a decode function's own loads are recorded as they run)
        _races(ex, inst, info, acc, READ)
    _keeps_undefined(ex, frame, inst, info, acc, mask)
    if type(vals) is CoopMat:   # shared tiles (every active instance interior)
        if len(acc.groups) == info.num_groups:
            return vals
        vals = vals.data
    if len(acc.groups) == info.num_groups:
        return CoopMat(info, vals)
    out = np.array(obj.full(), dtype=info.dtype)
    out[acc.groups] = vals
    return CoopMat(info, out)


def _clamped(info: CoopInfo, a: Addresses, vals: np.ndarray, clamp_value: np.ndarray) -> None:
    """The elements a load does not read: the clamp value (Constant mode), 0 (RepeatMirrored over one)."""
    if a.constant.any():
        cv = np.broadcast_to(_clamp_values(info, clamp_value)[:, None, None], vals.shape)
        vals[a.constant] = cv[a.constant]
    vals[a.zero] = 0


def _flat(mem, info: CoopInfo) -> np.ndarray:
    """The buffer's bytes as elements' bit patterns (its data is a multiple of 8 bytes long): unsigned integers,
    as coopmat/memory.py's windows, since as_strided may not keep ml_dtypes' types (bf16, FP8)."""
    return mem.data.view(info.window_dtype)


def _values(info: CoopInfo, bits: np.ndarray) -> np.ndarray:
    """Bit patterns read from memory as the component's values."""
    return info.from_storage(bits.view(info.storage_dtype))


def _load_tiles(ex, acc: _Access, t: fast.Tiles, info: CoopInfo, obj) -> np.ndarray | CoopMat:
    """(g, R, C) what the load gives, interior tiles gathered whole, edge instances per element; or the matrix
    itself, carrying its tiles (CoopMat.shared), when every instance is interior and they share tiles."""
    flat = _flat(acc.where.mems[0], info)
    if len(t.interior) == len(acc.groups) and t.inside is None:   # every element read: Object is not needed
        sh = fast.gather_shared(t, flat)
        if sh is not None:
            fp = ex.fast
            return CoopMat.of_tiles(info, np.array(_values(info, sh[0]), dtype=info.dtype), sh[1],
                                    fp is not None and fp.shared_tiles)
        return np.array(_values(info, fast.gather(t, flat)), dtype=info.dtype)
    vals = np.array(obj.full()[acc.groups], dtype=info.dtype)
    if len(t.interior):
        got = _values(info, fast.gather(t, flat))
        vals[t.interior] = got if t.inside is None else np.where(t.inside, got, vals[t.interior])
    if t.masked is not None:
        assert t.valid is not None and t.mindex is not None
        got = _values(info, flat[t.mindex])
        cv = _clamp_values(info, acc.layout["clamp_value"][t.masked])[:, None, None]
        inside = t.inside if t.inside is not None else True
        vals[t.masked] = np.where(t.valid, got, np.where(inside, cv, vals[t.masked]))
    if t.edge_a is not None:
        ea = t.edge_a
        sub = vals[t.edge]
        sub[ea.access] = _gather(acc.where.sub(t.edge), info, ea)
        _clamped(info, ea, sub, acc.layout["clamp_value"][t.edge])
        vals[t.edge] = sub
    return vals


def _kept(acc: _Access, info: CoopInfo) -> np.ndarray:
    """(g, R, C) the elements a load keeps from Object (outside the view's clip region)."""
    if acc.tiles is None:
        a = acc.a
        assert a is not None
        return ~(a.access | a.constant | a.zero)
    t = acc.tiles
    kept = np.zeros((len(acc.groups), info.rows, info.cols), bool)
    if t.inside is not None:
        kept[t.interior] = ~t.inside
        if t.masked is not None:
            kept[t.masked] = ~t.inside
    if t.edge_a is not None:
        ea = t.edge_a
        kept[t.edge] = ~(ea.access | ea.constant | ea.zero)
    return kept


def _keeps_undefined(ex, frame, inst, info: CoopInfo, acc: _Access, mask) -> None:
    """An undefined Object (a load of a matrix variable nothing was stored to, undefined.py) is fine where the load
    overwrites its elements; an element it keeps (outside the view's clip region) would be undefined."""
    undef = undefined_lanes(frame, inst.operands[1].value)
    if undef is None:
        return
    kept = _kept(acc, info)
    hit = np.zeros(info.num_groups, bool)
    hit[info.group[np.flatnonzero(np.broadcast_to(undef, mask.shape) & mask)]] = True
    bad = hit[acc.groups][:, None, None] & kept
    if bad.any():
        j, r, c = (int(x) for x in np.argwhere(bad)[0])
        raise Fault(f"the Object operand is undefined (a load of a matrix variable nothing was stored to) and the "
                    f"load keeps its element (row {r}, col {c}) in {info.scope.lower()} {int(acc.groups[j])} (outside "
                    f"the view's clip region): {int(bad[j].sum())} of {info.rows * info.cols} elements would be "
                    f"undefined; store to the variable first (e.g. initialise the matrix)")


def _decode(ex, inst, acc: _Access, info: CoopInfo) -> np.ndarray:
    """Call the decode function for every accessed element (in np.nonzero(a.access) order)."""
    decode_id, where, a, lanes = acc.decode_id, acc.where, acc.a, acc.lanes
    assert a is not None   # decode functions take the plain path
    fn = ex.prog.functions.get(decode_id)
    if fn is None:
        raise Fault(f"DecodeFunc {ex.prog.name_of(decode_id)} is not a function")
    ptype = ex.types.get(fn.params[0].result_type) if fn.params else None
    if ptype is None or ptype.kind != "pointer" or ptype.elem is None:
        raise Fault(f"the first parameter of DecodeFunc {ex.prog.name_of(decode_id)} is not a pointer")
    P = max(ptype.elem.size(), 1)
    j, r, c = np.nonzero(a.access)
    addr = where.start[j] + a.index[j, r, c] * P
    for m, run in _by_memory(where, j):
        if not m.address:
            ex.device.add(m)  # a StorageBuffer reached through the decode function's PhysicalStorageBuffer pointer
        addr[run] += m.address
    ptr = Pointer(ex.device, addr, ptype.elem, 0, None, None, P & -P)
    D = a.block_coord.shape[-1]
    bc = tuple(a.block_coord[j, r, c, d].astype(np.uint32) for d in range(D))
    ib = tuple(a.in_block[j, r, c, d].astype(np.uint32) for d in range(D))
    v = call_elements(ex, inst, fn, [ptr, bc, ib], lanes[j])
    return info.rounded(np.asarray(v).astype(info.dtype))


@OPS.op("OpCooperativeMatrixStoreTensorNV")
def store_tensor(ex, frame, inst, mask):
    v = coop_val(ex, frame, inst.operands[1].value)
    info = v.info
    acc = _prepare(ex, frame, inst, mask, info, True)
    if acc is None:
        return None
    vals = info.to_storage(np.asarray(v.full()[acc.groups]))
    if acc.tiles is not None:
        _store_tiles(acc, acc.tiles, info, vals)
    else:
        assert acc.a is not None
        _scatter(acc.where, info, acc.a, vals)
    if ex.races is not None:
        _races(ex, inst, info, acc, WRITE)
    return None


def _races(ex, inst, info: CoopInfo, acc: _Access, kind: str) -> None:
    """The race detector's record (interp/races.py) of the elements read or written, each by its scope instance:
    whole tiles whose rows (columns) are contiguous as runs of bytes, anything else element by element."""
    rec = ex.races
    E = info.itemsize
    agents = rec.scope_agents(acc.lanes, info.scope)
    t = acc.tiles
    if t is not None:
        mem = acc.where.mems[0]   # the tile path reaches one memory (tiles.py)
        if not watched(mem):
            return
        R, C = info.rows, info.cols
        rs, cs = t.affine if t.affine is not None and t.inside is None else (0, 0)
        first = (t.base + int(t.template[0, 0])) * E
        fp = ex.fast
        tiles = fp is not None and fp.race_tiles
        if len(t.interior) and cs == 1 and rs >= C:     # interior tiles: runs of rows (columns), one call
            rec.access(kind, mem, first, agents[t.interior], inst, C * E, R, rs * E, tiles=tiles)
        elif len(t.interior) and rs == 1 and cs >= R:
            rec.access(kind, mem, first, agents[t.interior], inst, R * E, C, cs * E, tiles=tiles)
        elif len(t.interior):
            ix = t.base[:, None, None] + t.template[None]
            sel = np.broadcast_to(t.inside if t.inside is not None else True, ix.shape)
            pos = np.broadcast_to(t.interior[:, None, None], ix.shape)[sel]
            rec.access(kind, mem, ix[sel] * E, agents[pos], inst, E)
        if t.masked is not None and t.mindex is not None and t.valid is not None:   # tiles across the edge
            pos = np.broadcast_to(t.masked[:, None, None], t.valid.shape)[t.valid]
            rec.access(kind, mem, t.mindex[t.valid] * E, agents[pos], inst, E)
        if t.edge_a is not None and t.estart is not None:   # the others, per element
            j, r, c = np.nonzero(t.edge_a.access)
            rec.access(kind, mem, (t.estart[j] + t.edge_a.index[j, r, c]) * E, agents[t.edge[j]], inst, E)
        return
    a = acc.a
    assert a is not None
    j, r, c = np.nonzero(a.access)
    addr = acc.where.start[j] + a.index[j, r, c] * E
    for mem, run in _by_memory(acc.where, j):
        if watched(mem):
            rec.access(kind, mem, addr[run], agents[j[run]], inst, E)


def _scatter(where: _Where, info: CoopInfo, a: Addresses, vals: np.ndarray) -> None:
    """Write the accessed elements of (g, R, C) values, per element, in np.nonzero order."""
    E = info.itemsize
    j, r, c = np.nonzero(a.access)
    addr = where.start[j] + a.index[j, r, c] * E
    raw = np.ascontiguousarray(vals[j, r, c].astype(info.storage_dtype)).view(np.uint8).reshape(len(j), E)
    for mem, run in _by_memory(where, j):
        mem.data[(addr[run, None] + np.arange(E)).reshape(-1)] = raw[run].reshape(-1)


def _store_tiles(acc: _Access, t: fast.Tiles, info: CoopInfo, vals: np.ndarray) -> None:
    """Interior tiles written whole, edge instances per element; runs of each in scope-instance order, so that
    where two instances write one element the later one wins, as on the plain path."""
    flat = _flat(acc.where.mems[0], info)
    values = vals   # as the plain path takes them (its _scatter converts them to the storage type itself)
    vals = vals.astype(info.storage_dtype, copy=False).view(info.window_dtype)   # bit patterns, as `flat`
    if t.edge_a is None and t.masked is None:
        fast.scatter(t, flat, vals if len(t.interior) == len(vals) else vals[t.interior])
        return
    kind = np.zeros(len(acc.groups), np.int8)   # 0 interior, 1 masked, 2 edge
    kind[t.edge] = 2
    if t.masked is not None:
        kind[t.masked] = 1
    cuts = np.flatnonzero(np.diff(kind)) + 1
    for run in np.split(np.arange(len(acc.groups)), cuts):
        if kind[run[0]] == 0:
            fast.scatter(fast.part(t, np.searchsorted(t.interior, run)), flat, vals[run])
        elif kind[run[0]] == 1:
            assert t.masked is not None and t.valid is not None and t.mindex is not None
            k = np.searchsorted(t.masked, run)
            flat[t.mindex[k][t.valid[k]]] = vals[run][t.valid[k]]
        else:
            ea = t.edge_a
            assert ea is not None
            k = np.searchsorted(t.edge, run)
            sub = Addresses(*(getattr(ea, f)[k] for f in Addresses.__dataclass_fields__))
            _scatter(acc.where.sub(run), info, sub, values[run])

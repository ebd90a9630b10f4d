"""Matrices as values: null values, composites, Function variables, OpSelect/OpCopyObject and Length.

The core's OpVariable/OpLoad/OpStore/OpCompositeConstruct stay in charge of
everything else: each extension here handles the instructions whose types hold a
cooperative matrix (`when=`) and hands the rest to the core op (`base`). The
`HOOKS` tell the core's null values, composites and access chains what to do with
a "coopmat" value. A Function variable holding a
matrix that is indexed (`m[i]` in GLSL: an access chain) lives in memory as
each invocation's own view: `length` components per invocation, in layout order.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..dispatch import KindHooks, OpSet
from ..fault import Fault
from ..memory import Memory, Pointer, load, read_scalar, store, write_scalar
from ..types import Type
from ..ops_memory import mark_written, unwritten
from ..undefined import defined, read_undefined
from ..values import select
from .core import (CoopMat, Lazy, absent_lanes, active_groups, coop_info, coop_val, ensure_sizes, first_lanes,
                   holds_coopmat, lanes_to_matrix, pointer_holds_coopmat, realize, result_holds_coopmat,
                   result_is_coopmat, uniform)

OPS = OpSet()


@OPS.extends("OpVariable", when=result_holds_coopmat)
def _variable(ex, frame, inst, mask, base):
    ensure_sizes(ex)
    return base(ex, frame, inst, mask)


def _prepare_global_variable(ex, t) -> None:
    """Private variables are allocated before the run: give matrix types their sizes first."""
    if holds_coopmat(t):
        ensure_sizes(ex)


@OPS.extends("OpLoad", when=pointer_holds_coopmat)
def _load(ex, frame, inst, mask, base):
    ptr = ex.arg(frame, inst, 0)
    if not isinstance(ptr, Pointer) or ptr.type is None or not holds_coopmat(ptr.type):
        return base(ex, frame, inst, mask)  # a matrix variable held as a value (memory.Register)
    bad = unwritten(ptr, mask)
    if bad is not None:
        read_undefined(ex, frame, inst, ptr.mem.name, bad)
    else:
        defined(frame, inst)
    return _load_value(ex, ptr, ptr.type, mask)


_load.registers_unchanged = True   # block_compiler may do what the op does for a Register itself


def _read_views(mem, off, base, info, mask) -> np.ndarray:
    """(n, L) views from a matrix variable: L components per copy at `off` (read_scalar gives (n,) for L = 1)."""
    raw = read_scalar(mem, off, base, info.storage_dtype, mask, info.length)
    return info.from_storage(raw).reshape(mask.shape[0], info.length)


def _write_views(mem, off, base, info, views: np.ndarray, mask) -> None:
    """Write (n, L) views into a matrix variable (write_scalar takes (n,) for L = 1)."""
    L = info.length
    vals = info.to_storage(np.asarray(views)).reshape((-1, L) if L > 1 else (-1,))
    write_scalar(mem, off, base, info.storage_dtype, vals, mask, L)


# A matrix variable in memory holds one view per invocation; the views of the absent lanes of partial
# subgroups (core.absent_lanes) are kept beside it, in `mem.side["coopmat.absent"]`: one copy of the
# variable per absent lane, at the offset the subgroup's present invocations use.
def _absent_place(ex, ptr: Pointer, info, ab, groups_on: np.ndarray, mask):
    """(side memory or None, offsets, bases, partial subgroups) for the partial subgroups in groups_on."""
    js = np.flatnonzero(groups_on[ab.groups])
    mem = ptr.mem
    if not len(js) or not isinstance(mem, Memory) or mem.storage not in ("Function", "Private"):
        return None, None, None, None
    groups = ab.groups[js]
    g_act, first = first_lanes(info, None, mask)
    lane = first[np.searchsorted(g_act, groups)]
    rel = (np.broadcast_to(ptr.off, mask.shape)[lane] - np.broadcast_to(np.asarray(ptr.base), mask.shape)[lane])
    copy = js[:, None] * ab.count + np.arange(ab.count)[None, :]
    base = (copy * mem.region).reshape(-1)
    return mem, base + np.repeat(rel, ab.count), base, groups


def _absent_side(ex, mem: Memory, ab) -> Memory:
    side = mem.side.get("coopmat.absent")
    if side is None:
        side = Memory(f"{mem.name} (absent lanes)", mem.storage, mem.region, len(ab.groups) * ab.count)
        mem.side["coopmat.absent"] = side
    return side


def _load_value(ex, ptr: Pointer, t, mask):
    """A value of type t (a matrix, or an array/struct holding matrices) from a Function variable."""
    if t.kind == "coopmat":
        info = coop_info(ex, t)
        L = info.length
        vals = _read_views(ptr.mem, ptr.off, ptr.base, info, mask)
        lanes = np.zeros((info.num_groups, info.scope_size, L), info.dtype)
        m = mask & ex.alive
        lanes[info.group[m], info.position[m]] = vals[m]
        ab = absent_lanes(ex, info)
        if ab is not None:
            on = np.bincount(info.group[m], minlength=info.num_groups) > 0
            mem, off, base, groups = _absent_place(ex, ptr, info, ab, on, mask)
            side = mem.side.get("coopmat.absent") if mem is not None else None
            if side is not None:
                views = _read_views(side, off, base, info, np.ones(len(off), bool))
                lanes[groups, ab.first:] = views.reshape(len(groups), ab.count, L)
        weak = None
        if not m.all():  # lanes outside the mask read nothing: their copies of replicated elements yield
            weak = np.ones(lanes.shape[:2], bool)
            weak[info.group[m], info.position[m]] = False
        return CoopMat(info, lanes_to_matrix(info, lanes, weak))
    if t.kind == "array":
        s = t.array_stride()
        return tuple(_load_value(ex, ptr.moved(i * s, t.elem), t.elem, mask) for i in range(t.count))
    if t.kind == "struct":
        return tuple(_load_value(ex, ptr.moved(t.member_offset(i), m), m, mask) for i, m in enumerate(t.members))
    return load(ptr, t, mask, ex.device)


def _store_value(ex, ptr: Pointer, t, value, mask) -> None:
    if t.kind == "coopmat":
        v = realize(ex, value)
        if not isinstance(v, CoopMat):
            raise Fault("storing something that is not a cooperative matrix into a matrix variable")
        info = v.info
        _write_views(ptr.mem, ptr.off, ptr.base, info, v.per_invocation(), mask)
        ab = absent_lanes(ex, info)
        if ab is not None:  # the absent lanes store with the first invocation of their subgroup
            on = np.zeros(info.num_groups, bool)
            on[ab.groups] = ab.follow(mask)
            mem, off, base, groups = _absent_place(ex, ptr, info, ab, on, mask)
            if mem is not None:
                views = v.lanes()[groups][:, ab.first:].reshape(len(off), info.length)
                _write_views(_absent_side(ex, mem, ab), off, base, info, views, np.ones(len(off), bool))
    elif t.kind == "array":
        s = t.array_stride()
        for i in range(t.count):
            _store_value(ex, ptr.moved(i * s, t.elem), t.elem, value[i], mask)
    elif t.kind == "struct":
        for i, m in enumerate(t.members):
            _store_value(ex, ptr.moved(t.member_offset(i), m), m, value[i], mask)
    else:
        store(ptr, t, value, mask)


@OPS.extends("OpStore", when=pointer_holds_coopmat)
def _store(ex, frame, inst, mask, base):
    ptr = ex.arg(frame, inst, 0)
    if not isinstance(ptr, Pointer) or ptr.type is None or not holds_coopmat(ptr.type):
        return base(ex, frame, inst, mask)  # a matrix variable held as a value (memory.Register)
    mark_written(ex, frame, inst, ptr, mask)   # first: it refuses an undefined value for a buffer
    _store_value(ex, ptr, ptr.type, ex.arg(frame, inst, 1), mask)
    return None


_store.registers_unchanged = True


@OPS.extends("OpCompositeConstruct", when=result_is_coopmat)
def _construct(ex, frame, inst, mask, base):
    t = ex.rtype(inst)
    info = coop_info(ex, t)
    active_groups(ex, info, mask, inst.opname)   # tangled: the whole scope instance or none of it (issue 37)
    if len(inst.operands) != 1:
        raise Fault(f"a cooperative matrix is constructed from exactly one scalar, got {len(inst.operands)}")
    s = np.asarray(ex.arg(frame, inst, 0)).astype(info.dtype)
    if s.shape[0] == 1:
        return CoopMat(info, np.full((1, info.rows, info.cols), s[0], info.dtype))
    groups, lanes = first_lanes(info, None, mask)
    per = uniform(info, s, groups, lanes, mask, "the scalar a matrix is constructed from")
    data = np.zeros((info.num_groups, info.rows, info.cols), info.dtype)
    data[groups] = per[:, None, None]
    return CoopMat(info, data)


@OPS.extends("OpCopyObject", when=result_is_coopmat)
def _copy(ex, frame, inst, mask, base):
    active_groups(ex, coop_info(ex, ex.rtype(inst)), mask, inst.opname)
    return realize(ex, ex.arg(frame, inst, 0))


@OPS.extends("OpSelect", when=result_is_coopmat)
def _select(ex, frame, inst, mask, base):
    active_groups(ex, coop_info(ex, ex.rtype(inst)), mask, inst.opname)
    c = np.asarray(ex.arg(frame, inst, 0))
    a = coop_val(ex, frame, inst.operands[1].value)
    b = coop_val(ex, frame, inst.operands[2].value)
    return select(np.broadcast_to(c, mask.shape), a, b)


def _matrix_composite(ex, inst):
    """The type of the matrix an OpCompositeExtract / OpCompositeInsert takes or makes, or None."""
    i = 1 if inst.opname == "OpCompositeInsert" else 0
    for t in (ex.type_of_id(inst.operands[i].value) if len(inst.operands) > i else None,
              ex.types.get(inst.result_type)):
        if t is not None and t.kind == "coopmat":
            return t
    return None


@OPS.extends("OpCompositeExtract", "OpCompositeInsert", when=lambda ex, inst: _matrix_composite(ex, inst) is not None)
def _composite_tangled(ex, frame, inst, mask, base):
    """An instruction with a matrix operand or result is tangled (SPV_KHR_cooperative_matrix revision 9): the whole
    scope instance executes it or none of it. The element access itself is the core op's (through HOOKS)."""
    active_groups(ex, coop_info(ex, _matrix_composite(ex, inst)), mask, inst.opname)
    return base(ex, frame, inst, mask)


# ---- hooks for the core's null values, composites and access chains -----------------------------
def _zeros(t, n=1):
    info = t.extra.get("coop")
    if info is None:  # before the run's lanes exist (OpConstantNull): a lazy zero, resolved on use
        return Lazy(t, np.zeros((), t.elem.dtype))
    return CoopMat(info, np.zeros((1, info.rows, info.cols), info.dtype))


def _construct_constant(t, parts):
    if len(parts) != 1:
        raise Fault(f"a cooperative matrix is constructed from exactly one scalar, got {len(parts)}")
    p = np.asarray(parts[0])
    if p.shape[0] != 1:
        raise Fault("per-invocation construct of a cooperative matrix needs the executor")  # handled by the op
    return Lazy(t, p.reshape(-1)[0].astype(t.elem.dtype))


def _extract(v, t, i):
    if isinstance(v, Lazy):
        return np.array([v.scalar]), t.elem
    L = v.info.length
    if not 0 <= i < L:
        raise Fault(f"element index {i} is out of range: {v.info.describe()} has length {L} under layout "
                    f"'{v.info.layout().model}'")
    vals = v.per_invocation()[:, i]
    if v.info.storage is not None:  # bf16 / FP8 elements: the scalar type's own values (exact)
        vals = vals.astype(v.info.storage)
    return vals, t.elem


def _insert(v, t, i, rest, obj):
    if rest:
        raise Fault("cannot index into a cooperative-matrix element")
    if isinstance(v, Lazy):
        raise Fault("OpCompositeInsert into a constant matrix before the run started")
    info = v.info
    L = info.length
    if not 0 <= i < L:
        raise Fault(f"element index {i} is out of range: {info.describe()} has length {L} under layout "
                    f"'{info.layout().model}'")
    lanes = np.array(v.lanes())
    lanes[info.group, info.position, i] = np.broadcast_to(np.asarray(obj).astype(info.dtype), info.group.shape)
    return CoopMat(info, pl=lanes)


def _chain(ex, frame, ptr: Pointer, o, mask):
    info = coop_info(ex, ptr.type)
    idx = np.asarray(ex.val(frame, o.value)).astype(np.int64)
    L = info.length
    bad = np.broadcast_to((idx < 0) | (idx >= L), mask.shape) & mask
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise Fault(f"element index {int(np.broadcast_to(idx, mask.shape)[lane])} is out of range: "
                    f"{info.describe()} has length {L} under layout '{info.layout().model}'", np.flatnonzero(bad))
    return ptr.moved(idx * info.itemsize, cast(Type, ptr.type.elem), unit=info.itemsize)


HOOKS = KindHooks("coopmat", zeros=_zeros, construct=_construct_constant, extract=_extract, insert=_insert,
                  access_chain=_chain, prepare_variable=_prepare_global_variable)


# ---- length ------------------------------------------------------------------------------
@OPS.op("OpCooperativeMatrixLengthNV", "OpCooperativeMatrixLengthKHR")
def length(ex, frame, inst, mask):
    t = ex.types[inst.operands[0].value]
    return np.array([coop_info(ex, t).length], dtype=ex.rtype(inst).dtype)

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

import numpy as np

from ..dispatch import KindHooks, OpSet
from ..fault import Fault
from ..memory import Pointer, load, read_scalar, store, write_scalar
from ..values import select
from .core import (CoopMat, Lazy, coop_info, coop_val, ensure_sizes, first_lanes, from_lanes, holds_coopmat,
                   pointer_holds_coopmat, realize, result_holds_coopmat, result_is_coopmat, uniform)

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
    mem = ptr.mem
    if getattr(mem, "written", None) is not None and mem.storage in ("Function", "Private"):
        copy = np.broadcast_to(np.asarray(ptr.base) // mem.region, mask.shape)
        bad = mask & ~mem.written[copy]
        if bad.any():
            raise Fault(f"'{mem.name}' is read before anything was stored to it", np.flatnonzero(bad))
    return _load_value(ex, ptr, ptr.type, mask)


def _load_value(ex, ptr: Pointer, t, mask):
    """A value of type t (a matrix, or an array/struct holding matrices) from a Function variable."""
    if t.kind == "coopmat":
        info = coop_info(ex, t)
        L = info.length
        vals = info.from_storage(read_scalar(ptr.mem, ptr.off, ptr.base, info.storage_dtype, mask, L)
                                 ).reshape(mask.shape[0], L)
        lanes = np.zeros((info.num_groups, info.scope_size, L), info.dtype)
        m = mask & ex.alive
        lanes[info.group[m], info.position[m]] = vals[m]
        return CoopMat(info, from_lanes(info.layout(), lanes))
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
        write_scalar(ptr.mem, ptr.off, ptr.base, v.info.storage_dtype, v.info.to_storage(v.per_invocation()), mask,
                     v.info.length)
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
    _store_value(ex, ptr, ptr.type, ex.arg(frame, inst, 1), mask)
    mem = ptr.mem
    if getattr(mem, "written", None) is not None:
        copy = np.broadcast_to(np.asarray(ptr.base) // mem.region, mask.shape)
        mem.written[copy[mask]] = True
    return None


@OPS.extends("OpCompositeConstruct", when=result_is_coopmat)
def _construct(ex, frame, inst, mask, base):
    t = ex.rtype(inst)
    info = coop_info(ex, t)
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
    return realize(ex, ex.arg(frame, inst, 0))


@OPS.extends("OpSelect", when=result_is_coopmat)
def _select(ex, frame, inst, mask, base):
    c = np.asarray(ex.arg(frame, inst, 0))
    a = coop_val(ex, frame, inst.operands[1].value)
    b = coop_val(ex, frame, inst.operands[2].value)
    return select(np.broadcast_to(c, mask.shape), a, b)


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
    return v.per_invocation()[:, i], t.elem


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
    return ptr.moved(idx * info.itemsize, ptr.type.elem, unit=info.itemsize)


HOOKS = KindHooks("coopmat", zeros=_zeros, construct=_construct_constant, extract=_extract, insert=_insert,
                  access_chain=_chain, prepare_variable=_prepare_global_variable)


# ---- length ------------------------------------------------------------------------------
@OPS.op("OpCooperativeMatrixLengthNV", "OpCooperativeMatrixLengthKHR")
def length(ex, frame, inst, mask):
    t = ex.types[inst.operands[0].value]
    return np.array([coop_info(ex, t).length], dtype=ex.rtype(inst).dtype)

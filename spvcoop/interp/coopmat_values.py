"""Matrices in Function variables and as composite constituents: the core's ops, extended for coopmat.

The core's OpVariable/OpLoad/OpStore/OpCompositeConstruct stay in charge of
everything else; each wrapper here looks at the type first and hands over to the
original op when no cooperative matrix is involved. A Function variable holding a
matrix that is indexed (`m[i]` in GLSL: an access chain) lives in memory as
each invocation's own view: `length` components per invocation, in layout order.
"""
from __future__ import annotations

import numpy as np

from .coopmat import CoopMat, coop_info, coop_val, ensure_sizes, first_lanes, from_lanes, realize, uniform
from .memory import Fault, Pointer, load, read_scalar, store, write_scalar
from .registry import OPS


def _holds_coopmat(t) -> bool:
    hit = t.extra.get("holds_coopmat")
    if hit is None:
        k = t.kind
        if k == "coopmat":
            hit = True
        elif k in ("array", "runtime_array", "pointer"):
            hit = t.elem is not None and _holds_coopmat(t.elem)
        elif k == "struct":
            hit = any(_holds_coopmat(m) for m in t.members)
        else:
            hit = False
        t.extra["holds_coopmat"] = hit
    return hit


def _wrap(name: str, coop_fn):
    orig = OPS[name]

    def wrapped(ex, frame, inst, mask):
        r = coop_fn(ex, frame, inst, mask)
        return orig(ex, frame, inst, mask) if r is NotImplemented else r
    wrapped.__name__ = f"coopmat_{orig.__name__}"
    wrapped.__wrapped__ = orig  # type: ignore[attr-defined]
    OPS[name] = wrapped


def _variable(ex, frame, inst, mask):
    if _holds_coopmat(ex.rtype(inst)):
        ensure_sizes(ex)
    return NotImplemented


def _prepare_global_variable(ex, t) -> None:
    """Private variables are allocated before the run: give matrix types their sizes first."""
    if _holds_coopmat(t):
        ensure_sizes(ex)


OPS["prepare:variable"] = _prepare_global_variable


def _load(ex, frame, inst, mask):
    ptr = ex.arg(frame, inst, 0)
    if not isinstance(ptr, Pointer) or ptr.type is None or not _holds_coopmat(ptr.type):
        return NotImplemented
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


def _store(ex, frame, inst, mask):
    ptr = ex.arg(frame, inst, 0)
    if not isinstance(ptr, Pointer) or ptr.type is None or not _holds_coopmat(ptr.type):
        return NotImplemented
    _store_value(ex, ptr, ptr.type, ex.arg(frame, inst, 1), mask)
    mem = ptr.mem
    if getattr(mem, "written", None) is not None:
        copy = np.broadcast_to(np.asarray(ptr.base) // mem.region, mask.shape)
        mem.written[copy[mask]] = True
    return None


def _construct(ex, frame, inst, mask):
    t = ex.rtype(inst)
    if t.kind != "coopmat":
        return NotImplemented
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


def _copy(ex, frame, inst, mask):
    if ex.rtype(inst).kind != "coopmat":
        return NotImplemented
    return realize(ex, ex.arg(frame, inst, 0))


def _select(ex, frame, inst, mask):
    if ex.rtype(inst).kind != "coopmat":
        return NotImplemented
    from .values import select
    c = np.asarray(ex.arg(frame, inst, 0))
    a = coop_val(ex, frame, inst.operands[1].value)
    b = coop_val(ex, frame, inst.operands[2].value)
    return select(np.broadcast_to(c, mask.shape), a, b)


_wrap("OpSelect", _select)
_wrap("OpVariable", _variable)
_wrap("OpLoad", _load)
_wrap("OpStore", _store)
_wrap("OpCompositeConstruct", _construct)
_wrap("OpCopyObject", _copy)

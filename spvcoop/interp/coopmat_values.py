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
from .memory import Fault, Pointer, read_scalar, write_scalar
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


def _load(ex, frame, inst, mask):
    ptr = ex.arg(frame, inst, 0)
    if not isinstance(ptr, Pointer) or ptr.type is None or ptr.type.kind != "coopmat":
        return NotImplemented
    info = coop_info(ex, ptr.type)
    mem = ptr.mem
    if getattr(mem, "written", None) is not None and mem.storage in ("Function", "Private"):
        copy = np.broadcast_to(np.asarray(ptr.base) // mem.region, mask.shape)
        bad = mask & ~mem.written[copy]
        if bad.any():
            raise Fault(f"'{mem.name}' is read before anything was stored to it", np.flatnonzero(bad))
    L = info.length
    vals = read_scalar(mem, ptr.off, ptr.base, info.dtype, mask, L).reshape(mask.shape[0], L)
    lanes = np.zeros((info.num_groups, info.scope_size, L), info.dtype)
    m = mask & ex.alive
    lanes[info.group[m], info.position[m]] = vals[m]
    return CoopMat(info, from_lanes(info.layout(), lanes))


def _store(ex, frame, inst, mask):
    ptr = ex.arg(frame, inst, 0)
    if not isinstance(ptr, Pointer) or ptr.type is None or ptr.type.kind != "coopmat":
        return NotImplemented
    v = coop_val(ex, frame, inst.operands[1].value)
    info = v.info
    write_scalar(ptr.mem, ptr.off, ptr.base, info.dtype, v.per_invocation(), mask, info.length)
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


_wrap("OpVariable", _variable)
_wrap("OpLoad", _load)
_wrap("OpStore", _store)
_wrap("OpCompositeConstruct", _construct)
_wrap("OpCopyObject", _copy)

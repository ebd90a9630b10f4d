"""Atomics: invocations touching the same address are serialised in invocation order.

Each invocation gets the value its own operation saw. Adds use a segmented
prefix sum (one numpy pass whatever the contention); the other operations
run one 'rank' at a time: round r applies the r-th invocation of every
address at once, so the Python work grows with the worst contention only.
"""
from __future__ import annotations

import numpy as np

from .memory import Pointer, load, store
from .ops_arith import as_int, to_type
from .dispatch import OpSet
from .program import enum_name
from .races import ATOMIC, ATOMIC_READ, atomic_sync, pointer_access, watched

OPS = OpSet()

UPDATE = {
    "OpAtomicIAdd": lambda old, v, s: old + v,
    "OpAtomicISub": lambda old, v, s: old - v,
    "OpAtomicFAddEXT": lambda old, v, s: old + v,
    "OpAtomicAnd": lambda old, v, s: old & v,
    "OpAtomicOr": lambda old, v, s: old | v,
    "OpAtomicXor": lambda old, v, s: old ^ v,
    "OpAtomicSMin": lambda old, v, s: np.minimum(as_int(old, True), as_int(v, True)).view(old.dtype),
    "OpAtomicSMax": lambda old, v, s: np.maximum(as_int(old, True), as_int(v, True)).view(old.dtype),
    "OpAtomicUMin": lambda old, v, s: np.minimum(as_int(old, False), as_int(v, False)).view(old.dtype),
    "OpAtomicUMax": lambda old, v, s: np.maximum(as_int(old, False), as_int(v, False)).view(old.dtype),
    "OpAtomicFMinEXT": lambda old, v, s: np.fmin(old, v),
    "OpAtomicFMaxEXT": lambda old, v, s: np.fmax(old, v),
    "OpAtomicExchange": lambda old, v, s: v,
    "OpAtomicIIncrement": lambda old, v, s: old + np.ones_like(old),
    "OpAtomicIDecrement": lambda old, v, s: old - np.ones_like(old),
}


def _sub(p: Pointer, lanes: np.ndarray, n: int) -> Pointer:
    off = np.broadcast_to(p.off, (n,))[lanes]
    base = np.broadcast_to(p.base, (n,))[lanes] if np.ndim(p.base) else p.base
    return Pointer(p.mem, off, p.type, base, p.matrix, p.vstride)


def _addresses(p: Pointer, mask: np.ndarray) -> np.ndarray:
    key = np.broadcast_to(p.off, mask.shape).astype(np.int64)
    if not isinstance(p.base, int):  # different copies may share offsets: make keys unique per memory copy
        key = key  # offsets already include the copy's base
    return key


def atomic(ex, frame, inst, mask, value, cmp=None):
    p: Pointer = ex.arg(frame, inst, 0)
    t = ex.rtype(inst) if inst.result_type is not None else p.type
    lanes = np.flatnonzero(mask)
    result = np.zeros(mask.shape[0], dtype=t.dtype)
    if not len(lanes):
        return result
    keys = _addresses(p, mask)[lanes]
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    starts = np.r_[True, sk[1:] != sk[:-1]]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(sk)), 0))
    rank = np.arange(len(sk)) - group_start
    ordered_lanes = lanes[order]
    v = None if value is None else np.broadcast_to(to_type(value, t), mask.shape)
    name = inst.opname
    if name in ("OpAtomicIAdd", "OpAtomicISub") and t.dtype.kind in "iu":
        firsts = ordered_lanes[starts]
        fp = _sub(p, firsts, mask.shape[0])
        old = load(fp, t, np.ones(len(firsts), bool))
        contrib = v[ordered_lanes].astype(np.int64)
        if name == "OpAtomicISub":
            contrib = -contrib
        csum = np.cumsum(contrib)
        excl = csum - contrib
        seg = excl - excl[group_start]
        gi = np.cumsum(starts) - 1
        seen = (old.astype(np.int64)[gi] + seg).astype(t.dtype)
        result[ordered_lanes] = seen
        total = np.add.reduceat(contrib, np.flatnonzero(starts))
        store(fp, t, (old.astype(np.int64) + total).astype(t.dtype), np.ones(len(firsts), bool))
        return result
    for r in range(int(rank.max()) + 1):
        these = ordered_lanes[rank == r]
        sp = _sub(p, these, mask.shape[0])
        ones = np.ones(len(these), bool)
        old = load(sp, t, ones)
        result[these] = old
        if name == "OpAtomicLoad":
            continue
        if name == "OpAtomicStore":
            new = v[these]
        elif name == "OpAtomicCompareExchange":
            c = np.broadcast_to(to_type(cmp, t), mask.shape)[these]
            new = np.where(old == c, v[these], old)
        else:
            new = UPDATE[name](old, None if v is None else v[these], None)
        store(sp, t, np.asarray(new).astype(t.dtype), ones)
    return result


def _recorded(ex, frame, inst, mask, result, kind: str = ATOMIC):
    """The atomic's access for the race detector (races.py: atomics never race with atomics), then its result."""
    if ex.races is not None:
        p = ex.arg(frame, inst, 0)
        if isinstance(p, Pointer) and watched(p.mem):
            pointer_access(ex.races, kind, p, p.type, mask, inst)
            ops = inst.operands   # pointer, Scope, Semantics (OpAtomicCompareExchange: Equal, Unequal), ...
            sem = _constant(ex, frame, ops[2].value)
            if inst.opname == "OpAtomicCompareExchange":
                sem |= _constant(ex, frame, ops[3].value)
            atomic_sync(ex.races, kind, p, mask, enum_name("Scope", _constant(ex, frame, ops[1].value)), sem)
    return result


def _constant(ex, frame, id_) -> int:
    return int(np.asarray(ex.val(frame, id_)).reshape(-1)[0])


@OPS.op(*UPDATE)
def atomic_rmw(ex, frame, inst, mask):
    value = ex.arg(frame, inst, 3) if len(inst.operands) > 3 else None
    return _recorded(ex, frame, inst, mask, atomic(ex, frame, inst, mask, value))


@OPS.op("OpAtomicLoad")
def atomic_load(ex, frame, inst, mask):
    return _recorded(ex, frame, inst, mask, atomic(ex, frame, inst, mask, None), ATOMIC_READ)


@OPS.op("OpAtomicStore")
def atomic_store(ex, frame, inst, mask):
    atomic(ex, frame, inst, mask, ex.arg(frame, inst, 3))
    return _recorded(ex, frame, inst, mask, None)


@OPS.op("OpAtomicCompareExchange")
def atomic_cmpxchg(ex, frame, inst, mask):
    # operands: pointer, scope, equal semantics, unequal semantics, value, comparator
    old = atomic(ex, frame, inst, mask, ex.arg(frame, inst, 4), ex.arg(frame, inst, 5))
    return _recorded(ex, frame, inst, mask, old)

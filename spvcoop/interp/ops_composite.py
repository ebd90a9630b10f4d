"""Composites: construct, extract, insert, shuffles, copies, undef."""
from __future__ import annotations

import numpy as np

from .fault import Fault
from .dispatch import Dispatcher, OpSet
from .values import value_bytes, zeros

OPS = OpSet()


def _n(*xs) -> int:
    return max((x.shape[0] for x in xs if isinstance(x, np.ndarray)), default=1)


def construct(t, parts: list, hooks: Dispatcher):
    if t.kind == "vector":
        n = _n(*parts)
        cols = [np.broadcast_to(p.reshape(p.shape[0], -1), (n, p.reshape(p.shape[0], -1).shape[1]))
                for p in map(np.asarray, parts)]
        return np.concatenate(cols, axis=1).astype(t.dtype, copy=False)
    if t.kind == "matrix":
        n = _n(*parts)
        return np.stack([np.broadcast_to(p, (n,) + p.shape[1:]) for p in parts], axis=1)
    if t.kind in ("struct", "array"):
        return tuple(parts)
    kind = hooks.kind(t.kind)
    if kind is not None and kind.construct is not None:
        return kind.construct(t, parts)
    raise Fault(f"cannot construct a value of type {t.describe()}")


@OPS.op("OpCompositeConstruct")
def composite_construct(ex, frame, inst, mask):
    return construct(ex.rtype(inst), [ex.val(frame, o.value) for o in inst.operands], ex.dispatcher)


def _in_range(t, i: int) -> None:
    n = len(t.members) if t.kind == "struct" else t.count if t.kind in ("vector", "matrix", "array") else None
    if n is not None and not 0 <= i < n:
        raise Fault(f"index {i} is out of range for {t.describe()} ({n} elements)")


def extract(v, t, idx: list[int], hooks: Dispatcher):
    for i in idx:
        _in_range(t, i)
        if isinstance(v, tuple):
            v, t = v[i], (t.members[i] if t.kind == "struct" else t.elem)
        elif t.kind in ("vector", "matrix"):
            v, t = v[:, i], t.elem
        else:
            kind = hooks.kind(t.kind)
            if kind is None or kind.extract is None:
                raise Fault(f"cannot extract from a value of type {t.describe()}")
            v, t = kind.extract(v, t, i)
    return v


def insert(v, t, idx: list[int], obj, hooks: Dispatcher):
    if not idx:
        return obj
    i, rest = idx[0], idx[1:]
    _in_range(t, i)
    if isinstance(v, tuple):
        sub_t = t.members[i] if t.kind == "struct" else t.elem
        lst = list(v)
        lst[i] = insert(v[i], sub_t, rest, obj, hooks)
        return tuple(lst)
    if t.kind in ("vector", "matrix"):
        o = np.asarray(obj)
        n = max(v.shape[0], o.shape[0] if o.ndim else 1)
        out = np.array(np.broadcast_to(v, (n,) + v.shape[1:]))
        out[:, i] = insert(out[:, i], t.elem, rest, obj, hooks) if rest else o
        return out
    kind = hooks.kind(t.kind)
    if kind is None or kind.insert is None:
        raise Fault(f"cannot insert into a value of type {t.describe()}")
    return kind.insert(v, t, i, rest, obj)


@OPS.op("OpCompositeExtract")
def composite_extract(ex, frame, inst, mask):
    cid = inst.operands[0].value
    return extract(ex.val(frame, cid), ex.type_of_id(cid), [o.value for o in inst.operands[1:]], ex.dispatcher)


@OPS.op("OpCompositeInsert")
def composite_insert(ex, frame, inst, mask):
    obj = ex.arg(frame, inst, 0)
    comp = ex.arg(frame, inst, 1)
    return insert(comp, ex.rtype(inst), [o.value for o in inst.operands[2:]], obj, ex.dispatcher)


@OPS.op("OpVectorShuffle")
def vector_shuffle(ex, frame, inst, mask):
    a, b = np.asarray(ex.arg(frame, inst, 0)), np.asarray(ex.arg(frame, inst, 1))
    n = max(a.shape[0], b.shape[0])
    both = np.concatenate([np.broadcast_to(a, (n,) + a.shape[1:]), np.broadcast_to(b, (n,) + b.shape[1:])], axis=1)
    sel = [o.value if o.value != 0xFFFFFFFF else 0 for o in inst.operands[2:]]
    return both[:, sel]


@OPS.op("OpVectorExtractDynamic")
def vector_extract_dynamic(ex, frame, inst, mask):
    v = np.asarray(ex.arg(frame, inst, 0))
    i = np.asarray(ex.arg(frame, inst, 1)).astype(np.int64)
    n = max(v.shape[0], i.shape[0])
    v = np.broadcast_to(v, (n,) + v.shape[1:])
    i = np.broadcast_to(i, (n,))
    bad = ((i < 0) | (i >= v.shape[1])) & mask
    if bad.any():
        raise Fault(f"component index {int(i[np.flatnonzero(bad)[0]])} out of range for a "
                    f"{v.shape[1]}-component vector", np.flatnonzero(bad))
    return v[np.arange(n), np.clip(i, 0, v.shape[1] - 1)]


@OPS.op("OpVectorInsertDynamic")
def vector_insert_dynamic(ex, frame, inst, mask):
    v = np.asarray(ex.arg(frame, inst, 0))
    c = np.asarray(ex.arg(frame, inst, 1))
    i = np.asarray(ex.arg(frame, inst, 2)).astype(np.int64)
    n = max(v.shape[0], c.shape[0], i.shape[0])
    out = np.array(np.broadcast_to(v, (n,) + v.shape[1:]))
    i = np.clip(np.broadcast_to(i, (n,)), 0, v.shape[1] - 1)
    out[np.arange(n), i] = np.broadcast_to(c, (n,))
    return out


@OPS.op("OpCopyObject", "OpCopyLogical")
def copy_object(ex, frame, inst, mask):
    return ex.arg(frame, inst, 0)


@OPS.op("OpUndef")
def undef(ex, frame, inst, mask):
    t = ex.rtype(inst)
    ex.budget.reserve(value_bytes(t, 1), f"the undefined value of {t.describe()}", inst, keep=False)
    return zeros(t, ex.dispatcher)


@OPS.op("OpSizeOf")
def size_of(ex, frame, inst, mask):
    t = ex.type_of_id(inst.operands[0].value)
    return np.array([t.elem.size()], dtype=ex.rtype(inst).dtype)

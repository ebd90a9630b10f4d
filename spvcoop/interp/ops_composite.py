"""Composites: construct, extract, insert, shuffles, copies, undef."""
from __future__ import annotations

import numpy as np

from .memory import Fault
from .registry import OPS, op
from .values import zeros


def _n(*xs) -> int:
    return max((x.shape[0] for x in xs if isinstance(x, np.ndarray)), default=1)


def construct(t, parts: list):
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
    hook = OPS.get(f"construct:{t.kind}")
    if hook:
        return hook(t, parts)
    raise Fault(f"cannot construct a value of type {t.describe()}")


@op("OpCompositeConstruct")
def composite_construct(ex, frame, inst, mask):
    return construct(ex.rtype(inst), [ex.val(frame, o.value) for o in inst.operands])


def extract(v, t, idx: list[int]):
    for i in idx:
        if isinstance(v, tuple):
            v, t = v[i], (t.members[i] if t.kind == "struct" else t.elem)
        elif t.kind in ("vector", "matrix"):
            v, t = v[:, i], t.elem
        else:
            hook = OPS.get(f"extract:{t.kind}")
            if hook is None:
                raise Fault(f"cannot extract from a value of type {t.describe()}")
            v, t = hook(v, t, i)
    return v


def insert(v, t, idx: list[int], obj):
    if not idx:
        return obj
    i, rest = idx[0], idx[1:]
    if isinstance(v, tuple):
        sub_t = t.members[i] if t.kind == "struct" else t.elem
        lst = list(v)
        lst[i] = insert(v[i], sub_t, rest, obj)
        return tuple(lst)
    if t.kind in ("vector", "matrix"):
        o = np.asarray(obj)
        n = max(v.shape[0], o.shape[0] if o.ndim else 1)
        out = np.array(np.broadcast_to(v, (n,) + v.shape[1:]))
        out[:, i] = insert(out[:, i], t.elem, rest, obj) if rest else o
        return out
    hook = OPS.get(f"insert:{t.kind}")
    if hook is None:
        raise Fault(f"cannot insert into a value of type {t.describe()}")
    return hook(v, t, i, rest, obj)


@op("OpCompositeExtract")
def composite_extract(ex, frame, inst, mask):
    cid = inst.operands[0].value
    return extract(ex.val(frame, cid), ex.type_of_id(cid), [o.value for o in inst.operands[1:]])


@op("OpCompositeInsert")
def composite_insert(ex, frame, inst, mask):
    obj = ex.arg(frame, inst, 0)
    comp = ex.arg(frame, inst, 1)
    return insert(comp, ex.rtype(inst), [o.value for o in inst.operands[2:]], obj)


@op("OpVectorShuffle")
def vector_shuffle(ex, frame, inst, mask):
    a, b = np.asarray(ex.arg(frame, inst, 0)), np.asarray(ex.arg(frame, inst, 1))
    n = max(a.shape[0], b.shape[0])
    both = np.concatenate([np.broadcast_to(a, (n,) + a.shape[1:]), np.broadcast_to(b, (n,) + b.shape[1:])], axis=1)
    sel = [o.value if o.value != 0xFFFFFFFF else 0 for o in inst.operands[2:]]
    return both[:, sel]


@op("OpVectorExtractDynamic")
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


@op("OpVectorInsertDynamic")
def vector_insert_dynamic(ex, frame, inst, mask):
    v = np.asarray(ex.arg(frame, inst, 0))
    c = np.asarray(ex.arg(frame, inst, 1))
    i = np.asarray(ex.arg(frame, inst, 2)).astype(np.int64)
    n = max(v.shape[0], c.shape[0], i.shape[0])
    out = np.array(np.broadcast_to(v, (n,) + v.shape[1:]))
    i = np.clip(np.broadcast_to(i, (n,)), 0, v.shape[1] - 1)
    out[np.arange(n), i] = np.broadcast_to(c, (n,))
    return out


@op("OpCopyObject", "OpCopyLogical")
def copy_object(ex, frame, inst, mask):
    return ex.arg(frame, inst, 0)


@op("OpUndef")
def undef(ex, frame, inst, mask):
    return zeros(ex.rtype(inst))


@op("OpSizeOf")
def size_of(ex, frame, inst, mask):
    t = ex.type_of_id(inst.operands[0].value)
    return np.array([t.elem.size()], dtype=ex.rtype(inst).dtype)

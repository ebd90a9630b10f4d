"""Tensor layouts and views as values, and the per-element function calls of the coopmat2 ops.

A tensor layout (view) is opaque state that OpTensorLayout*/OpTensorView* instructions copy and update. It is
held as int64 arrays with one row per invocation ((N, D)) or one row for all ((1, D)), so the core's Phi,
Select, masked results and Function variables (held as values: program.OPAQUE_VALUE_KINDS) work on it through
`masked_select`. Arithmetic on the state is exact (no 32-bit wrap-around); the values an instruction sets are
read as the 32-bit integers they are (offsets signed, everything else unsigned).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..fault import Fault
from ..program import enum_name

MAX_DIM = 5
NO_CLIP = (0, 0xFFFFFFFF, 0, 0xFFFFFFFF)  # row offset, row span, column offset, column span


def u32(v) -> np.ndarray:
    """A 32-bit integer operand as its unsigned value (int64)."""
    a = np.asarray(v)
    return a.view(np.uint32).astype(np.int64) if a.dtype.itemsize == 4 else a.astype(np.int64)


def s32(v) -> np.ndarray:
    """A 32-bit integer operand as its signed value (int64)."""
    a = np.asarray(v)
    return a.view(np.int32).astype(np.int64) if a.dtype.itemsize == 4 else a.astype(np.int64)


def _const(ex, t, i: int, what: str) -> int:
    ids = t.extra["operand_ids"]
    v = ex.gvals.get(ids[i])
    if v is None:
        raise Fault(f"{what} of {ex.prog.name_of(t.id)} ({ex.prog.name_of(ids[i])}) is not a constant")
    return int(np.asarray(v).reshape(-1)[0])


@dataclass(frozen=True)
class LayoutType:
    dims: int
    clamp: str  # TensorClampMode name

    @staticmethod
    def of(ex, t) -> LayoutType:
        lt = t.extra.get("tensor_layout")
        if lt is None or lt[0] is not ex:
            d = _const(ex, t, 0, "Dim")
            if not 1 <= d <= MAX_DIM:
                raise Fault(f"tensor layout dimension {d} is outside 1..{MAX_DIM}")
            mode = _const(ex, t, 1, "ClampMode")
            try:
                name = enum_name("TensorClampMode", mode)
            except KeyError:
                raise Fault(f"tensor clamp mode {mode} is not one SPV_NV_tensor_addressing defines") from None
            lt = (ex, LayoutType(d, name))
            t.extra["tensor_layout"] = lt
        return lt[1]


@dataclass(frozen=True)
class ViewType:
    dims: int
    has_dimensions: bool
    permutation: tuple[int, ...]

    @staticmethod
    def of(ex, t) -> ViewType:
        vt = t.extra.get("tensor_view")
        if vt is None or vt[0] is not ex:
            d = _const(ex, t, 0, "Dim")
            if not 1 <= d <= MAX_DIM:
                raise Fault(f"tensor view dimension {d} is outside 1..{MAX_DIM}")
            has = bool(_const(ex, t, 1, "HasDimensions"))
            perm = tuple(_const(ex, t, 2 + i, f"p{i}") for i in range(len(t.extra["operand_ids"]) - 2))
            if sorted(perm) != list(range(d)):
                raise Fault(f"tensor view permutation {list(perm)} is not a permutation of 0..{d - 1}")
            vt = (ex, ViewType(d, has, perm))
            t.extra["tensor_view"] = vt
        return vt[1]


class Grouped:
    """A state's fields one row per workgroup (the fast path `tensor_groups`, interp/fastpaths.py): `rows`, each
    (W, ...) for the dispatch's W >= 2 workgroups or (1, ...) for all; workgroup w holds invocations w*S ..
    w*S+S-1 of the N the dispatch runs (runner._layout_lanes)."""
    __slots__ = ("rows", "S", "N", "moved")

    def __init__(self, rows: dict[str, np.ndarray], S: int, N: int, moved: tuple | None = None) -> None:
        self.rows, self.S, self.N = rows, S, N
        # (fixed, delta): the offsets as the per-workgroup operand rows `fixed` ((position, rows) pairs: the same
        # arrays while the operands are, trip after trip of a loop) plus one row for all, delta (D,); or None
        self.moved = moved

    def expand(self) -> dict[str, np.ndarray]:
        """The per-invocation fields the plain path holds: (N, ...) each, a field the same everywhere broadcast."""
        N, S = self.N, self.S
        return {k: np.repeat(v, S, axis=0) if v.shape[0] > 1 else np.broadcast_to(v, (N,) + v.shape[1:])
                for k, v in self.rows.items()}

    def per(self, lanes: np.ndarray, keys=None) -> dict[str, np.ndarray]:
        """The fields (those named by keys, else all) of the given invocations (what coopmat.core.uniform gives for
        every invocation's fields)."""
        W, n = self.N // self.S, len(lanes)
        # every workgroup in order (Workgroup-scope instances, all active): the rows themselves
        whole = n == W and bool(lanes[0] == 0) and (n == 1 or bool((np.diff(lanes) == self.S).all()))
        wg = None if whole else lanes // self.S
        rows = self.rows if keys is None else {k: self.rows[k] for k in keys}
        return {k: (v if wg is None else v[wg]) if v.shape[0] > 1 else np.broadcast_to(v[0], (n,) + v.shape[1:])
                for k, v in rows.items()}


class _State:
    """Per-invocation int64 fields; `n` rows (1: the same for every invocation). A state the fast path
    `tensor_groups` made holds them per workgroup (`grouped`) until something asks for `fields`."""
    __slots__ = ("type", "_fields", "grouped")

    def __init__(self, type_, fields: dict[str, np.ndarray] | None = None, grouped: Grouped | None = None):
        self.type = type_
        self._fields = fields
        self.grouped = grouped   # one of the two is set

    @property
    def fields(self) -> dict[str, np.ndarray]:
        f = self._fields
        if f is None:
            f = self._fields = cast(Grouped, self.grouped).expand()
        return f

    def __getattr__(self, name):
        if name in ("fields", "type", "_fields", "grouped"):
            raise AttributeError(name)
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def replaced(self, **new) -> _State:
        f = dict(self.fields)
        rows = max(a.shape[0] for a in [*f.values(), *new.values()])
        for k, v in new.items():
            f[k] = v
        f = {k: np.broadcast_to(v, (rows,) + v.shape[1:]) for k, v in f.items()}
        return type(self)(self.type, f)

    def masked_select(self, mask, old):
        if old is None or not isinstance(old, type(self)) or old is self:
            return self
        mask = np.asarray(mask)
        if mask.all():
            return self
        rows = max(mask.shape[0], *(a.shape[0] for a in self.fields.values()),
                   *(a.shape[0] for a in old.fields.values()))
        m = np.broadcast_to(mask.reshape(-1), (rows,))
        # the mask gets one axis per field axis: (rows, 1) for the (n, D) fields, (rows,) for clamp_value -- a
        # (rows, 1) mask against (n,) made an (n, n) clamp value (issue 22)
        return type(self)(self.type, {k: np.where(m.reshape((rows,) + (1,) * (v.ndim - 1)),
                                                  np.broadcast_to(v, (rows,) + v.shape[1:]),
                                                  np.broadcast_to(old.fields[k], (rows,) + v.shape[1:]))
                                      for k, v in self.fields.items()})

    def per(self, lanes: np.ndarray) -> dict[str, np.ndarray]:
        """The fields of the given invocations."""
        return {k: (v[lanes] if v.shape[0] > 1 else np.broadcast_to(v[0], (len(lanes),) + v.shape[1:]))
                for k, v in self.fields.items()}


class TensorLayout(_State):
    """Fields block, dim, stride, offset, span (each (n, D)) and clamp_value."""

    def __repr__(self) -> str:
        return f"<tensorLayoutNV<{self.type.dims}, {self.type.clamp}>>"


class TensorView(_State):
    """Fields vdim, vstride (each (n, D)) and clip ((n, 4))."""

    def __repr__(self) -> str:
        t = self.type
        return f"<tensorViewNV<{t.dims}, {t.has_dimensions}, {list(t.permutation)}>>"


def new_layout(lt: LayoutType) -> TensorLayout:
    """OpCreateTensorLayoutNV: block sizes one, everything else zero."""
    d = lt.dims
    z = np.zeros((1, d), np.int64)
    return TensorLayout(lt, {"block": np.ones((1, d), np.int64), "dim": z, "stride": z, "offset": z, "span": z,
                             "clamp_value": np.zeros((1,), np.int64)})


def new_view(vt: ViewType) -> TensorView:
    """OpCreateTensorViewNV: dimensions and strides zero, no clipping."""
    z = np.zeros((1, vt.dims), np.int64)
    return TensorView(vt, {"vdim": z, "vstride": z, "clip": np.array([NO_CLIP], np.int64)})


def tensor_val(ex, frame, id_, cls):
    v = ex.val(frame, id_)
    what = "tensor layout" if cls is TensorLayout else "tensor view"
    if not isinstance(v, cls):
        raise Fault(f"{ex.prog.name_of(id_)} is not a {what} value")
    if v.type is None:
        raise Fault(f"{ex.prog.name_of(id_)} is a null or undefined {what} (OpConstantNull, OpUndef); make one "
                    f"with OpCreate{'TensorLayout' if cls is TensorLayout else 'TensorView'}NV")
    return v


def operand_rows(ex, frame, ids) -> np.ndarray:
    """Scalar operands side by side: (n, len(ids)) int64 arrays of their unsigned 32-bit values."""
    cols = [u32(ex.val(frame, i)).reshape(-1) for i in ids]
    n = max(c.shape[0] for c in cols)
    return np.stack([np.broadcast_to(c, (n,)) for c in cols], axis=1)


# ---- functions the ops call per element --------------------------------------------------------------------
def callee(ex, inst, index: int):
    fn = ex.prog.functions.get(inst.operands[index].value)
    if fn is None:
        raise Fault(f"{ex.prog.name_of(inst.operands[index].value)} is not a function")
    return fn


def call_elements(ex, inst, fn, args: list, lanes: np.ndarray) -> np.ndarray:
    """Call `fn` once per element (virtual invocation); `lanes` (n,) is the real invocation each element's call
    sees the state of (the first active invocation of the element's scope instance)."""
    if len(lanes) == 0:
        return np.zeros(0)
    # the calls' arguments and the values inside: checked (not kept) against the memory budget
    ex.budget.reserve(len(lanes) * 16 * (len(args) + len(fn.params) + 4), f"calls of {ex.prog.name_of(fn.id)} for "
                      f"{len(lanes):,} elements", inst, keep=False)
    v = ex.call_per_element(fn, args, lanes, inst)
    if v is None:
        raise Fault(f"{ex.prog.name_of(fn.id)} returned no value")
    return np.broadcast_to(np.asarray(v), (len(lanes),) + np.shape(v)[1:])

"""Where did the NaN come from: the first instruction that made an inf or NaN from finite operands.

`first_nonfinite(ex, frame, inst, mask)`, called after `inst` ran, tells whether its result holds a non-finite
float in an active invocation whose float operands are all finite there (an f16 accumulator that overflows, a
0/0, an exp of a large value); the debugger's `catch nonfinite` stops there, and the run option `nonfinite`
(`Watch`, an observe.Observer) makes it the run's error, located at its GLSL line with its operands. Values that
only move a non-finite value along (loads, copies, phis, calls) are not where it came from and are not checked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.diagnostics import Diagnostic, Note
from .fault import FaultError
from .observe import Observer

if TYPE_CHECKING:
    from ..core.module import Instruction
    from .executor import Executor, Frame

# results that carry a value made elsewhere (memory, another function, another edge, no value at all)
MOVERS = frozenset({"OpLoad", "OpPhi", "OpFunctionCall", "OpUndef", "OpVariable", "OpCopyObject",
                    "OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixLoadTensorNV",
                    "OpAtomicLoad", "OpAtomicExchange", "OpAtomicCompareExchange", "OpAtomicFAddEXT",
                    "OpAtomicFMinEXT", "OpAtomicFMaxEXT", "OpSelect", "OpCompositeExtract", "OpCompositeConstruct",
                    "OpCompositeInsert", "OpVectorShuffle", "OpVectorExtractDynamic", "OpVectorInsertDynamic",
                    "OpBitcast", "OpSpecConstantOp"})


def _per_lane(v, n: int) -> np.ndarray | None:
    """A float value as (n, k) per invocation, or None (not a float value, or not one per invocation)."""
    if type(v).__name__ == "CoopMat":
        try:
            a = np.asarray(v.per_invocation())
        except Exception:  # noqa: BLE001 - a matrix whose lanes cannot be shown now is not checked
            return None
    elif isinstance(v, np.ndarray):
        a = v
    else:
        return None
    if a.dtype.kind != "f" or a.ndim == 0 or a.shape[0] not in (1, n):
        return None
    return np.broadcast_to(a.reshape(a.shape[0], -1), (n, int(np.prod(a.shape[1:], dtype=np.int64)) or 1))


def _name(ex: Executor, id_: int) -> str:
    name = ex.prog.name_of(id_)
    return "%" + name if name.isdigit() else name


def first_nonfinite(ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray) -> tuple[int, str] | None:
    """(the first invocation, a description) if `inst` (just run) made a non-finite value from finite operands."""
    rid = inst.result_id
    if rid is None or inst.opname in MOVERS:
        return None
    n = ex.N
    res = _per_lane(frame.vals.get(rid), n)
    if res is None:
        return None
    with np.errstate(all="ignore"):
        bad = ~np.isfinite(res).all(axis=1) & np.broadcast_to(mask, (n,))
        if not bad.any():
            return None
        operands: list[tuple[str, np.ndarray]] = []
        for op in inst.operands[2:] if inst.operands and inst.operands[0].kind == "IdResultType" else inst.operands:
            if not op.kind.startswith("Id") or not isinstance(op.value, int):
                continue
            v = frame.vals.get(op.value, ex.gvals.get(op.value))
            a = _per_lane(v, n)
            if a is not None:
                operands.append((_name(ex, op.value), a))
                bad &= np.isfinite(a).all(axis=1)
        if not operands or not bad.any():
            return None
        lane = int(np.flatnonzero(bad)[0])
        row = res[lane]
        k = int(np.flatnonzero(~np.isfinite(row))[0])
        what = f"{_name(ex, rid)} = {row[k]}" + (f" (element {k} of {row.shape[0]})" if row.shape[0] > 1 else "")
        parts = []
        for name, a in operands:
            r = a[lane]
            if r.shape[0] == 1:
                parts.append(f"{name} = {r[0]}")
            else:
                parts.append(f"{name}: {r.shape[0]} finite values, largest magnitude {np.max(np.abs(r))}")
    info = ex.lanes.info(lane) if ex.lanes.info else f"#{lane}"
    return lane, (f"{inst.opname} made {what} from finite operands ({'; '.join(parts)}) in invocation {info}")


class Watch(Observer):
    """The run option `nonfinite`: the first non-finite value made from finite operands ends the run with an error
    (rule interp.nonfinite) at its instruction."""

    def __init__(self) -> None:
        self.prev: tuple | None = None

    def instruction(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray) -> None:
        prev, self.prev = self.prev, (frame, inst, mask)
        if prev is not None:
            self.check(ex, *prev)

    def leave(self, ex: Executor, frame: Frame, fn) -> None:
        if self.prev is not None and self.prev[0] is frame:   # the function's last instruction
            prev, self.prev = self.prev, None
            self.check(ex, *prev)

    @staticmethod
    def check(ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray) -> None:
        found = first_nonfinite(ex, frame, inst, mask)
        if found is None:
            return
        notes: list[Note] = []
        span, source = ex.where(inst, notes)
        raise FaultError(Diagnostic("error", f"{found[1]} (the run option nonfinite reports the first one)", span,
                                    rule="interp.nonfinite", notes=notes, source=source), np.array([found[0]]))

"""Shape keys: what the per-instruction rules can see of an instruction, as a hashable key.

Large modules repeat the same instruction shapes (a load through the same kind of pointer,
a MulAdd of the same types) thousands of times. Per-instruction rules only look at global
ids (types, constants, variables), literal operands, and, for function-local values, their
defining opcode and type (for pointers: the access chain that made them). Two instructions
with the same key therefore get the same verdict, and a key found clean once is skipped
afterwards. Instructions outside functions are never cached (each is checked).
"""
from __future__ import annotations

from ..core.module import Instruction
from .index import ModuleIndex

# Local definitions whose own operands the rules follow (pointer provenance).
_FOLLOWED = frozenset({"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpCopyObject",
                       "OpUntypedAccessChainKHR", "OpUntypedInBoundsAccessChainKHR"})


ID_KINDS = frozenset({"IdRef", "IdScope", "IdMemorySemantics", "IdResultType", "IdResult"})


_GLOBAL_LIKE = frozenset({"OpFunction", "OpLabel"})


def id_values(inst: Instruction) -> list[int]:
    """The ids among an instruction's operands, without building Operand objects when the binary
    reader kept them as plain words (`pending_ids`)."""
    pending = getattr(inst, "pending_ids", None)
    ids = pending() if pending is not None else None
    if ids is not None:
        return ids
    return [o.as_int for o in inst.operands if o.kind in ID_KINDS]


class ShapeKeys:
    def __init__(self, ix: ModuleIndex) -> None:
        self.ix = ix
        fns = ix.functions
        self.first_function = fns[0].inst.index if fns else len(ix.module.instructions)
        self._shape: dict[int, object] = {}

    def shape(self, id_: int, depth: int = 0) -> object:
        memo = self._shape
        s = memo.get(id_)
        if s is not None:
            return s
        d = self.ix.defs.get(id_)
        if d is None or d.index < self.first_function or d.opname in _GLOBAL_LIKE or depth > 8:
            s = id_
        elif d.opname in _FOLLOWED:
            parts = []
            pending = getattr(d, "pending_ids", None)
            ids = pending() if pending is not None else None
            if ids is not None:
                for i in ids:
                    v = memo.get(i)
                    parts.append(v if v is not None else self.shape(i, depth + 1))
            else:
                for o in d.operands:
                    if o.kind in ID_KINDS:
                        i = o.as_int
                        v = memo.get(i)
                        parts.append(v if v is not None else self.shape(i, depth + 1))
                    else:
                        parts.append(o.value)
            s = (d.opname, d.result_type, tuple(parts))
        else:
            s = (d.opname, d.result_type)
        memo[id_] = s
        return s

    def key(self, inst: Instruction) -> tuple | None:
        if inst.index < self.first_function:
            return None
        memo = self._shape
        pending = getattr(inst, "pending_ids", None)
        ids = pending() if pending is not None else None
        parts = []
        if ids is not None:  # all operands are ids
            for v in ids:
                s = memo.get(v)
                parts.append(s if s is not None else self.shape(v))
        else:
            for o in inst.operands:
                if o.kind in ID_KINDS:
                    s = memo.get(o.as_int)
                    parts.append(s if s is not None else self.shape(o.as_int))
                else:
                    parts.append(o.value)
        return (inst.opname, inst.result_type, tuple(parts))

"""The one walk over the SPIR-V grammar that says which operand comes next.

An instruction's operands are its grammar's operand list with quantifiers (`?` optional, `*` any
number), where a Composite kind stands for its bases, an enumerant of a ValueEnum brings its
parameters, and every set bit of a BitEnum brings those of its enumerant, lowest bit first. The
assembler (spvcoop.asm.assembler, reading tokens) and the binary reader (spvcoop.binary.reader, reading words)
both ask this walk for the next operand to read and feed enum values back into it; only how a
single operand is read differs between them.
"""
from __future__ import annotations

from collections import deque

from .spirv_grammar import OperandKind, OperandSpec

_NO_PARAMETERS: tuple[OperandSpec, ...] = ()
_ONE_ID = OperandSpec("IdRef", "", "")


def enum_parameters(okind: OperandKind, value: int) -> tuple[OperandSpec, ...]:
    """The operands that follow an operand of a ValueEnum or BitEnum kind with this value:
    the enumerant's parameters, or for a mask those of each set bit, lowest bit first
    (unknown values and bits bring none)."""
    cache = okind.parameter_cache
    found = cache.get(value)
    if found is not None:
        return found
    if okind.category == "ValueEnum":
        e = okind.by_value.get(value)
        found = e.parameters if e is not None else _NO_PARAMETERS
    else:
        params: list[OperandSpec] = []
        bits = value
        while bits:
            low = bits & -bits
            e = okind.by_value.get(low)
            if e is not None:
                params.extend(e.parameters)
            bits ^= low
        found = tuple(params)
    if len(cache) < 4096:  # masks of hostile binaries must not grow the cache without end
        cache[value] = found
    return found


class OperandWalk:
    """The operand specs still expected by one instruction, in order.

    `next(more)` gives the next spec to read (`more`: does input remain?), or None when the
    instruction can end here. A spec it gives while `more` is False is required and missing: the
    caller reports it. Composite kinds never come out: their bases do. After reading an enum
    operand, the caller hands its value to `enum_value` so its parameters are expected next."""
    __slots__ = ("pending", "core_kinds", "ext_kinds")

    def __init__(self, specs, core_kinds: dict[str, OperandKind]):
        self.pending: deque[OperandSpec] = deque(specs)
        self.core_kinds = core_kinds
        self.ext_kinds: dict[str, OperandKind] | None = None  # an extended instruction set's kinds

    def kind(self, name: str) -> OperandKind | None:
        ext = self.ext_kinds
        if ext is not None:
            k = ext.get(name)
            if k is not None:
                return k
        return self.core_kinds.get(name)

    def next(self, more: bool) -> OperandSpec | None:
        pending = self.pending
        while pending:
            o = pending.popleft()
            q = o.quantifier
            if q:
                if not more:
                    continue
                if q == "*":
                    pending.appendleft(o)
            okind = self.kind(o.kind)
            if okind is not None and okind.category == "Composite":
                if q == "*" and okind.bases == ("IdRef", "IdRef"):
                    # SPIRV-Tools reads a list of id pairs as a list of ids: spirv-as and spirv-dis
                    # take an OpPhi with an odd number of ids (measured)
                    return _ONE_ID
                # its bases are each required once the pair has begun
                pending.extendleft(reversed(okind.base_specs))
                continue
            return o
        return None

    def enum_value(self, okind: OperandKind, value: int) -> None:
        params = enum_parameters(okind, value)
        if params:
            self.pending.extendleft(reversed(params))

    def insert(self, specs) -> None:
        """Expect these operands next (OpSpecConstantOp's operation's operands)."""
        self.pending.extendleft(reversed(tuple(specs)))

    def replace(self, specs, ext_kinds: dict[str, OperandKind] | None = None) -> None:
        """Expect only these operands from here on (an extended instruction's operands)."""
        self.pending.clear()
        self.pending.extend(specs)
        self.ext_kinds = ext_kinds

"""Folding OpSpecConstantOp integer and boolean operations as SPIR-V defines them.

Every value is a bit pattern of its type's width (1..64 bits; wider or absurd widths are not
folded). Arithmetic wraps modulo 2^width; operands are read as unsigned or signed where the
instruction says so; results SPIR-V leaves undefined (division by zero, signed INT_MIN / -1,
shift counts >= the width) are not folded (None), so no rule draws a conclusion from them.
Each fold is O(1) on at most 64-bit numbers, so folding a module is linear in its constants.
"""
from __future__ import annotations

from typing import NamedTuple
from collections.abc import Callable

MAX_WIDTH = 64  # widest integer the validator evaluates (OpConstant literals hold at most 2 words)


class Bits(NamedTuple):
    """A constant's bit pattern and the width of its type (bool: width 1)."""
    bits: int
    width: int

    @property
    def u(self) -> int:
        return self.bits

    @property
    def s(self) -> int:
        w = self.width
        return self.bits - (1 << w) if self.bits >> (w - 1) else self.bits


def bits_of(value: int, width: int) -> Bits:
    """`value` (any Python int) wrapped to `width` bits."""
    return Bits(value & ((1 << width) - 1), width)


def interpret(b: Bits, signed: bool) -> int:
    return b.s if signed else b.u


def _sdiv_ok(a: Bits, b: Bits) -> bool:
    """SDiv/SRem/SMod are undefined for a zero divisor and for INT_MIN / -1 (signed overflow)."""
    return b.u != 0 and not (b.s == -1 and a.s == -(1 << (a.width - 1)))


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _shift_ok(a: Bits, b: Bits) -> bool:
    return b.u < a.width  # "undefined if Shift is greater than or equal to the bit width of Base"


Fold = Callable[[list[Bits]], "int | None"]

# Opcode name (without "Op") -> (operand count, fold). The fold returns any Python int; the
# caller wraps it to the result type's width.
FOLDS: dict[str, tuple[int, Fold]] = {
    "IAdd": (2, lambda v: v[0].u + v[1].u),
    "ISub": (2, lambda v: v[0].u - v[1].u),
    "IMul": (2, lambda v: v[0].u * v[1].u),
    "UDiv": (2, lambda v: v[0].u // v[1].u if v[1].u else None),
    "UMod": (2, lambda v: v[0].u % v[1].u if v[1].u else None),
    "SDiv": (2, lambda v: _trunc_div(v[0].s, v[1].s) if _sdiv_ok(*v) else None),
    "SRem": (2, lambda v: v[0].s - v[1].s * _trunc_div(v[0].s, v[1].s) if _sdiv_ok(*v) else None),
    "SMod": (2, lambda v: v[0].s % v[1].s if _sdiv_ok(*v) else None),  # sign of the divisor
    "ShiftLeftLogical": (2, lambda v: v[0].u << v[1].u if _shift_ok(*v) else None),
    "ShiftRightLogical": (2, lambda v: v[0].u >> v[1].u if _shift_ok(*v) else None),
    "ShiftRightArithmetic": (2, lambda v: v[0].s >> v[1].u if _shift_ok(*v) else None),
    "BitwiseOr": (2, lambda v: v[0].u | v[1].u),
    "BitwiseAnd": (2, lambda v: v[0].u & v[1].u),
    "BitwiseXor": (2, lambda v: v[0].u ^ v[1].u),
    "Not": (1, lambda v: ~v[0].u),
    "SNegate": (1, lambda v: -v[0].s),
    "UConvert": (1, lambda v: v[0].u),   # zero-extend or truncate to the result width
    "SConvert": (1, lambda v: v[0].s),   # sign-extend or truncate
    "IEqual": (2, lambda v: int(v[0].u == v[1].u)),
    "INotEqual": (2, lambda v: int(v[0].u != v[1].u)),
    "ULessThan": (2, lambda v: int(v[0].u < v[1].u)),
    "UGreaterThan": (2, lambda v: int(v[0].u > v[1].u)),
    "ULessThanEqual": (2, lambda v: int(v[0].u <= v[1].u)),
    "UGreaterThanEqual": (2, lambda v: int(v[0].u >= v[1].u)),
    "SLessThan": (2, lambda v: int(v[0].s < v[1].s)),
    "SGreaterThan": (2, lambda v: int(v[0].s > v[1].s)),
    "SLessThanEqual": (2, lambda v: int(v[0].s <= v[1].s)),
    "SGreaterThanEqual": (2, lambda v: int(v[0].s >= v[1].s)),
    "LogicalAnd": (2, lambda v: int(bool(v[0].u) and bool(v[1].u))),
    "LogicalOr": (2, lambda v: int(bool(v[0].u) or bool(v[1].u))),
    "LogicalEqual": (2, lambda v: int(bool(v[0].u) == bool(v[1].u))),
    "LogicalNotEqual": (2, lambda v: int(bool(v[0].u) != bool(v[1].u))),
    "LogicalNot": (1, lambda v: int(not v[0].u)),
    "Select": (3, lambda v: v[1].u if v[0].u else v[2].u),
}


def fold(name: str, args: list[Bits], result_width: int) -> Bits | None:
    """The result of OpSpecConstantOp `name` on `args`, wrapped to `result_width` bits;
    None when the operation is not folded here or its result is undefined."""
    entry = FOLDS.get(name)
    if entry is None or len(args) != entry[0] or not 1 <= result_width <= MAX_WIDTH:
        return None
    res = entry[1](args)
    return None if res is None else bits_of(res, result_width)

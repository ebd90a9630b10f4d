"""The debugger's expressions and value text: `print EXPR`, breakpoint conditions, DAP `evaluate`.

An expression is C-like text over the shader's names (OpName, %ID, members `.m`, vector components and swizzles
`.xy`, elements `[i]`, arithmetic, bitwise and shift operators on integers, comparisons, && || !, true false).
It is read with Python's parser after a few rewrites, and only the node kinds listed here are evaluated, each
checked: every failure is a DebugError (one line for the user), never an exception of Python or numpy. The
bounds keep every command fast whatever it is given: MAX_EXPR_CHARS characters, MAX_DEPTH nested operations,
integers of at most MAX_INT_BITS bits, shift counts 0..MAX_SHIFT.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.diagnostics import did_you_mean, printable

MAX_EXPR_CHARS = 4096   # an expression longer than this is refused before it is parsed
MAX_DEPTH = 100         # nested brackets or operations (Python's parser gives up near 200 brackets)
MAX_INT_BITS = 128      # wider integer constants or results are refused (shader integers have 64 bits at most)
MAX_SHIFT = 127
MAX_ROWS = 64   # rows of a table or matrix shown before "..."
MAX_ITEMS = 32  # elements of a list shown before "..."


class DebugError(Exception):
    """A command that cannot be done: one line for the user."""


class Text(str):
    """A value shown as it is (not a number): '<not yet stored>'."""


def _shift_count(b) -> int:
    if not integral(b) or not 0 <= int(b) <= MAX_SHIFT:
        raise DebugError(f"a shift count must be an integer 0..{MAX_SHIFT}")
    return int(b)


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a // b if integral(a) and integral(b) else a / b, ast.Mod: lambda a, b: a % b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
    ast.LShift: lambda a, b: a << _shift_count(b), ast.RShift: lambda a, b: a >> _shift_count(b)}
_INTEGER_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
_NODES = (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Constant, ast.Attribute,
          ast.Subscript, ast.Load, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd, ast.Invert, *_BINOPS, *_CMPOPS)
COMPONENTS = {c: i for s in ("xyzw", "rgba", "stpq") for i, c in enumerate(s)}


def integral(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def short_path(path: str) -> str:
    """A source file's name as shown at a stop: its last component."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def shown(text: str, limit: int = 80) -> str:
    """An expression quoted in a message: printable, and cut at `limit` characters."""
    return printable(text if len(text) <= limit else text[:limit] + "...", False)


def parse_expr(text: str) -> ast.AST:
    """C-like text to a checked Python expression tree: && || ! true false, %ID names; bounded (module doc)."""
    if len(text) > MAX_EXPR_CHARS:
        raise DebugError(f"the expression is longer than {MAX_EXPR_CHARS} characters")
    depth = level = 0
    for c in text:   # brackets counted before the parser sees them (it recurses, and fails at ~200)
        level += (c in "([") - (c in ")]")
        depth = max(depth, level)
    if depth > MAX_DEPTH:
        raise DebugError(f"the expression has more than {MAX_DEPTH} nested brackets")
    t = re.sub(r"%(\w+)", r"__id_\1", text)
    t = t.replace("&&", " and ").replace("||", " or ")
    t = re.sub(r"!(?!=)", " not ", t)
    t = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", t))
    try:
        tree = ast.parse(t.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise DebugError(f"cannot read the expression '{shown(text)}'") from None
    # iterative (the tree may be deep: a long chain of unary minus has no brackets)
    todo: list[tuple[ast.AST, int]] = [(tree, 0)]
    while todo:
        node, d = todo.pop()
        if d > MAX_DEPTH:
            raise DebugError(f"the expression has more than {MAX_DEPTH} nested operations")
        if not isinstance(node, _NODES):
            raise DebugError(f"'{shown(text)}': only names, members, elements, numbers, arithmetic and comparisons")
        if isinstance(node, ast.Constant):
            v = node.value
            if not isinstance(v, (int, float, bool)):
                raise DebugError(f"'{shown(text)}': only numbers and true/false are constants; arithmetic and "
                                 "comparisons take numbers")
            if isinstance(v, int) and v.bit_length() > MAX_INT_BITS:
                raise DebugError(f"the integer constant has more than {MAX_INT_BITS} bits")
        todo.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return tree


class Evaluator:
    """Evaluates a parse_expr tree; `lookup(name)` gives a name's value in the invocation evaluated for."""

    def __init__(self, lookup: Callable[[str], Any]) -> None:
        self.lookup = lookup

    def eval(self, node: ast.AST):
        v = self._eval(node)
        if integral(v) and int(v).bit_length() > MAX_INT_BITS:
            raise DebugError(f"the integer result has more than {MAX_INT_BITS} bits")
        return v

    def _eval(self, node: ast.AST):
        if isinstance(node, ast.Expression):
            return self.eval(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            name = node.id
            return self.lookup("%" + name[5:] if name.startswith("__id_") else name)
        if isinstance(node, ast.Attribute):
            return self._member(self.eval(node.value), node.attr)
        if isinstance(node, ast.Subscript):
            base, i = self.eval(node.value), self.eval(node.slice)
            if not isinstance(base, list) or not integral(i):
                raise DebugError("[i] wants an array or vector and an integer")
            if not 0 <= int(i) < len(base):
                raise DebugError(f"index {int(i)} is outside 0..{len(base) - 1}")
            return base[int(i)]
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand)
            if isinstance(node.op, ast.Not):
                self._numbers(v)
                return not bool(v)
            self._numbers(v)
            if isinstance(node.op, ast.Invert):
                if not integral(v):
                    raise DebugError("~ takes integers")
                return ~v
            return self._checked(lambda: -v if isinstance(node.op, ast.USub) else +v)
        if isinstance(node, ast.BoolOp):
            for sub in node.values:   # C's short circuit: `i < n && a[i] > 0` reads a[i] only where i < n
                v = self.eval(sub)
                self._numbers(v)
                if bool(v) != isinstance(node.op, ast.And):
                    return not isinstance(node.op, ast.And)
            return isinstance(node.op, ast.And)
        if isinstance(node, ast.BinOp):
            a, b = self.eval(node.left), self.eval(node.right)
            self._numbers(a, b)
            if isinstance(node.op, _INTEGER_OPS) and not (integral(a) and integral(b)):
                raise DebugError("bitwise operators and shifts take integers")
            return self._checked(lambda: _BINOPS[type(node.op)](a, b))
        if isinstance(node, ast.Compare):
            left = self.eval(node.left)
            for op, right in zip(node.ops, node.comparators, strict=True):
                r = self.eval(right)
                self._numbers(left, r)
                if not bool(_CMPOPS[type(op)](left, r)):
                    return False
                left = r
            return True
        raise DebugError("unsupported expression")   # parse_expr refused it already

    @staticmethod
    def _member(base, attr: str):
        if isinstance(base, dict):
            if attr not in base:
                raise DebugError(f"no member '{attr}'{did_you_mean(attr, list(base))}")
            return base[attr]
        if isinstance(base, list) and attr in COMPONENTS and COMPONENTS[attr] < len(base):
            return base[COMPONENTS[attr]]
        if isinstance(base, list) and len(attr) <= 4 and all(c in COMPONENTS and COMPONENTS[c] < len(base)
                                                             for c in attr):   # a swizzle
            return [base[COMPONENTS[c]] for c in attr]
        raise DebugError(f"'.{shown(attr, 40)}' of a value that has no such member")

    @staticmethod
    def _checked(op: Callable[[], Any]):
        with np.errstate(all="ignore"):
            try:
                return op()
            except ZeroDivisionError:
                raise DebugError("division by zero") from None
            except OverflowError:
                raise DebugError(f"the integer result does not fit {MAX_INT_BITS} bits") from None
            except (TypeError, ValueError) as e:   # numpy's and Python's refusals of a pair of operand types
                raise DebugError(f"the operands do not fit the operator ({str(e)[:80]})") from None

    @staticmethod
    def _numbers(*vs) -> None:
        for v in vs:
            if isinstance(v, Text):
                raise DebugError(f"the value is {v}: arithmetic and comparisons take numbers")
            if isinstance(v, (dict, list, str)):
                raise DebugError("arithmetic and comparisons take numbers (pick a member or element)")
            if not isinstance(v, (int, float, bool, np.number, np.bool_)):
                raise DebugError("arithmetic and comparisons take numbers")


# ---- values as text ----------------------------------------------------------------------------
def at(v, lane: int):
    if isinstance(v, np.ndarray):
        return v[lane if v.ndim and v.shape[0] > 1 else 0] if v.ndim else v[()]
    if isinstance(v, tuple):
        return tuple(at(x, lane) for x in v)
    return v


def np_leaf(a):
    if isinstance(a, np.ndarray):
        return a[()] if a.ndim == 0 else [np_leaf(x) for x in a]
    return a


def structured(v, t):
    """One invocation's value as Python: structures as dicts by member name, arrays and vectors as lists."""
    if isinstance(v, tuple):
        if t is not None and t.kind == "struct":
            return {t.member_names[i]: structured(x, t.members[i]) for i, x in enumerate(v)}
        return [structured(x, getattr(t, "elem", None)) for x in v]
    if isinstance(v, np.ndarray):
        return np_leaf(v)
    return v


def fmt(v) -> str:
    if isinstance(v, Text):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {fmt(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        items = [fmt(x) for x in v[:MAX_ITEMS]]
        more = f", ... ({len(v)} elements)" if len(v) > MAX_ITEMS else ""
        return "[" + ", ".join(items) + more + "]"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (np.floating, float)):
        return str(v)
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    return str(v)


def grid(cells: list[list[str]]) -> str:
    rows = cells[:MAX_ROWS]
    width = max((len(c) for r in rows for c in r[:MAX_ITEMS]), default=1)
    out = [" ".join(c.rjust(width) for c in r[:MAX_ITEMS]) + (" ..." if len(r) > MAX_ITEMS else "") for r in rows]
    if len(cells) > MAX_ROWS:
        out.append(f"... {len(cells) - MAX_ROWS} more rows")
    return "\n".join(out)


def ranges(lanes: list[int]) -> str:
    """[0, 1, 2, 5] -> '#0-#2, #5'."""
    out: list[str] = []
    start = prev = None
    for x in [*lanes, None]:   # None: a sentinel that ends the last run
        if x is not None and prev is not None and x == prev + 1:
            prev = x
            continue
        if start is not None:
            out.append(f"#{start}" if start == prev else f"#{start}-#{prev}")
        start = prev = x
    return ", ".join(out) if out else "none"


_FORMATS = {"x": "x", "d": "d", "o": "o", "t": "b", "c": "c", "f": "f", "u": "d"}


def formatter(form: str) -> Callable[[object], str]:
    """print/FMT: x hex, d decimal, o octal, t binary, c character, f float (gdb's letters); integers only are
    reformatted, in their two's complement for negative values under x, o and t."""
    if not form:
        return fmt
    if form not in _FORMATS:
        raise DebugError(f"unknown format /{shown(form, 10)}: x, d, o, t, c, f")
    code = _FORMATS[form]

    def one(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float, np.floating)):
            return v
        if code == "f":
            return float(v)
        if isinstance(v, (float, np.floating)):
            return v
        n = int(v)
        bits = np.dtype(type(v)).itemsize * 8 if isinstance(v, np.integer) else 64
        if n < 0 and code in "xob":
            n &= (1 << bits) - 1
        if code == "c":
            return Text(repr(chr(n)) if 0 <= n < 0x110000 else str(n))
        return Text({"x": hex, "o": oct, "b": bin, "d": str}[code](n))

    def walk(v):
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return one(v)
    return lambda v: fmt(walk(v))


def triple(text: str, what: str) -> list[int]:
    try:
        parts = [int(x) for x in text.split(",")]
    except ValueError:
        parts = []
    if not 1 <= len(parts) <= 3 or any(abs(p) > 1 << 40 for p in parts):
        raise DebugError(f"{what} wants N (its index in the dispatch) or X,Y,Z (its global id)")
    return parts

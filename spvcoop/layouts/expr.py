"""A small, safe integer expression language for layout formulas.

Formulas such as ``((i & 2) << 2) + ((lane & 28) >> 2)`` are parsed with the lark
grammar ``expr.lark`` into a tree of closures that evaluate on numpy integer
arrays (one evaluation covers every (lane, i) at once). Nothing is ever passed
to Python's ``eval``: only the operators of the grammar and the functions in
``FUNCTIONS`` exist. ``/`` and ``%`` are floor division and modulo (integers
only); comparisons and ``&&``/``||``/``!`` give 0 or 1; ``c ? a : b`` selects.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Mapping
from typing import cast

import numpy as np

from .limits import MAX_EXPR_CHARS, MAX_EXPR_DEPTH

Value = "np.ndarray | int"


class ExprError(ValueError):
    """A syntax or evaluation error; `column` is 1-based inside the expression text."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.column = column


def _check_div(b):
    if np.any(np.asarray(b) == 0):
        raise ExprError("division by zero")
    return b


def _pow2(x):
    x = np.asarray(x)
    return ((x > 0) & ((x & (x - 1)) == 0)).astype(np.int64)


def _log2(x):
    x = np.asarray(x)
    if np.any(x <= 0):
        raise ExprError("log2 of a non-positive number")
    return np.floor(np.log2(x)).astype(np.int64)


def _cdiv(a, b):
    return -((-np.asarray(a)) // _check_div(b))


FUNCTIONS: dict[str, tuple[int, Callable]] = {
    "min": (2, np.minimum),
    "max": (2, np.maximum),
    "abs": (1, np.abs),
    "pow2": (1, _pow2),          # 1 when x is a power of two
    "log2": (1, _log2),          # floor(log2 x)
    "cdiv": (2, _cdiv),          # ceiling division
}

_BINARY: dict[str, Callable] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a // _check_div(b),
    "mod": lambda a, b: a % _check_div(b),
    "shl": lambda a, b: np.left_shift(a, b),
    "shr": lambda a, b: np.right_shift(a, b),
    "band": lambda a, b: a & b,
    "bor": lambda a, b: a | b,
    "bxor": lambda a, b: a ^ b,
    "eq": lambda a, b: (np.asarray(a) == b).astype(np.int64),
    "ne": lambda a, b: (np.asarray(a) != b).astype(np.int64),
    "lt": lambda a, b: (np.asarray(a) < b).astype(np.int64),
    "le": lambda a, b: (np.asarray(a) <= b).astype(np.int64),
    "gt": lambda a, b: (np.asarray(a) > b).astype(np.int64),
    "ge": lambda a, b: (np.asarray(a) >= b).astype(np.int64),
    "land": lambda a, b: ((np.asarray(a) != 0) & (np.asarray(b) != 0)).astype(np.int64),
    "lor": lambda a, b: ((np.asarray(a) != 0) | (np.asarray(b) != 0)).astype(np.int64),
}
_UNARY: dict[str, Callable] = {
    "neg": lambda a: -np.asarray(a),
    "inv": lambda a: ~np.asarray(a),
    "lnot": lambda a: (np.asarray(a) == 0).astype(np.int64),
}


@functools.lru_cache(maxsize=1)
def _parser():
    from lark import Lark
    from ..core.grammar_cache import load_lark
    text = Path(__file__).with_name("expr.lark").read_text()
    # building the LALR tables took a quarter of a second of every cooperative-matrix run: cached
    return load_lark("layout-expr", text, lambda: Lark(text, parser="lalr", maybe_placeholders=False,
                                                       propagate_positions=True))


@dataclass(frozen=True)
class Expr:
    """A compiled expression: `names` are its free variables."""
    text: str
    names: frozenset
    _fn: Callable

    def evaluate(self, env: Mapping[str, object]) -> np.ndarray:
        missing = sorted(n for n in self.names if n not in env)
        if missing:
            known = ", ".join(sorted(k for k in env if not k.startswith("#")))
            raise ExprError(f"unknown name '{missing[0]}' (known: {known})")
        # Python ints become int64, so that arithmetic wraps like the arrays instead of growing
        scope = {n: (np.int64(cast(int, env[n])) if type(env[n]) is int else env[n]) for n in self.names}
        with np.errstate(all="ignore"):
            return np.asarray(self._fn(scope), dtype=np.int64)


@functools.lru_cache(maxsize=4096)
def compile_expr(text: str) -> Expr:
    """Parse `text`; raise ExprError with the column of a syntax error."""
    from lark import Token, Tree
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    if not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_EXPR_CHARS:
        raise ExprError(f"expression of {len(text)} characters is longer than the limit of {MAX_EXPR_CHARS}",
                        MAX_EXPR_CHARS + 1)
    try:
        tree = _parser().parse(text)
    except UnexpectedToken as e:
        what = "end of expression" if e.token.type == "$END" else f"'{e.token}'"
        raise ExprError(f"syntax error: unexpected {what}", getattr(e, "column", None)) from None
    except UnexpectedCharacters as e:
        raise ExprError(f"syntax error: unexpected character '{text[cast(int, e.pos_in_stream)]}'", e.column) from None
    except UnexpectedInput as e:
        raise ExprError("syntax error", getattr(e, "column", None)) from None
    if isinstance(tree, Tree):
        _check_depth(tree)
    names: set[str] = set()

    def build(node) -> Callable:
        if isinstance(node, Token):  # only reached for a bare INT/NAME child
            raise ExprError(f"unexpected token '{node}'")
        kind = node.data
        ch = node.children
        if kind == "num":
            s = str(ch[0])
            # the length test comes first: int() of thousands of digits is slow (and refused)
            value = 2 ** 63 if len(s) > 24 else int(s, 16) if s[:2] in ("0x", "0X") else int(s, 10)
            if value >= 2 ** 63:
                shown = s if len(s) <= 24 else f"{s[:12]}... ({len(s)} characters)"
                raise ExprError(f"integer {shown} does not fit in 64 bits", getattr(ch[0], "column", None))
            value64 = np.int64(value)
            return lambda env: value64
        if kind == "var":
            name = str(ch[0])
            names.add(name)
            return lambda env: env[name]
        if kind == "call":
            fname = str(ch[0])
            args = [c for c in ch[1:] if c is not None]
            if fname not in FUNCTIONS:
                raise ExprError(f"unknown function '{fname}' (known: {', '.join(sorted(FUNCTIONS))})",
                                getattr(ch[0], "column", None))
            arity, fn = FUNCTIONS[fname]
            if len(args) != arity:
                raise ExprError(f"{fname}() takes {arity} argument(s), got {len(args)}", getattr(ch[0], "column", None))
            built = [build(a) for a in args]
            if arity == 1:
                a0 = built[0]
                return lambda env: fn(a0(env))
            a0, a1 = built
            return lambda env: fn(a0(env), a1(env))
        if kind == "cond":
            c, a, b = (build(x) for x in ch)
            return lambda env: np.where(np.asarray(c(env)) != 0, a(env), b(env))
        if kind in _BINARY:
            op = _BINARY[kind]
            a, b = build(ch[0]), build(ch[1])
            return lambda env: op(a(env), b(env))
        if kind in _UNARY:
            op = _UNARY[kind]
            a = build(ch[0])
            return lambda env: op(a(env))
        raise ExprError(f"unsupported construct '{kind}'")  # pragma: no cover

    fn = build(tree if isinstance(tree, Tree) else Tree("num", [tree]))
    return Expr(text, frozenset(names), fn)


def _check_depth(tree) -> None:
    """Refuse a syntax tree deeper than MAX_EXPR_DEPTH before the recursive build (iteratively)."""
    from lark import Tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EXPR_DEPTH:
            column = getattr(getattr(node, "meta", None), "column", None)
            raise ExprError(f"expression nests deeper than the limit of {MAX_EXPR_DEPTH} levels", column)
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))

"""The ways a layout can be written down, each turned into (row, col) arrays.

Every descriptor is parsed once when a model file is loaded (syntax and
structure errors then) and built per concrete type (R rows, C cols, S
invocations, component width `bits`). Building returns int64 arrays row, col of
shape (S, L) with -1 for padding; the caller validates coverage and range.

* table    explicit per-invocation lists of [row, col] or null
* formula  expressions over `lane` and `i` (see expr.py)
* iree     IREE MMASingleSubgroupLayout: outer / thread / tstrides / element per dim
* cute     CuTe thread-value layout "Shape:Stride" into a column-major (or row-major) index
* linear   Triton F2 linear layout: register and lane bases, combined by XOR
* striped  element i of invocation p is row-major index p + i*S (padding at the end)
* shuffled a seeded random bijection with the striped length
"""
from __future__ import annotations

import functools
import math
import reprlib
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from collections.abc import Callable

import numpy as np

from .expr import Expr, ExprError, compile_expr
from .limits import (DEFAULT_LIMITS, MAX_CUTE_CHARS, MAX_CUTE_DEPTH, MAX_INT, MAX_LINEAR_BASES, MAX_NAMES,
                     LayoutLimits)

Arrays = tuple[np.ndarray, np.ndarray]


class SpecError(ValueError):
    """A problem in a descriptor; `node` is the YAML value it is about (for its line)."""

    def __init__(self, message: str, node: Any = None, key: Any = None, column_offset: int | None = None):
        super().__init__(message)
        self.node = node
        self.key = key
        self.column_offset = column_offset


def _int(value: Any, what: str, node: Any, key: Any, minimum: int = 0, maximum: int = MAX_INT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise SpecError(f"{what} must be an integer in {minimum}..{maximum}, got {_short(value)}", node, key)
    return value


def _short(value: Any) -> str:
    """repr() of a value, cut short (a hostile file may hold huge numbers or lists)."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    text = reprlib.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _name(value: Any) -> str:
    """A key or name for a message: its text, cut short."""
    text = value if isinstance(value, str) else _short(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _limits(env: dict) -> LayoutLimits:
    return env.get("#limits") or DEFAULT_LIMITS


def _check_slots(env: dict, S: int, L: int) -> None:
    """Refuse an (S, L) layout over the slot budget before anything of that size is allocated."""
    why = _limits(env).slots_error(S, L)
    if why:
        raise SpecError(why)


def _expr(value: Any, what: str, node: Any, key: Any) -> Expr:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise SpecError(f"{what} must be an expression (string or integer), got {_short(value)}", node, key)
    try:
        return compile_expr(str(value))
    except ExprError as e:
        raise SpecError(f"{what}: {e}", node, key, e.column) from None


def _int_list(value: Any, n: int | None, what: str, node: Any, key: Any, minimum: int = 0) -> list[int]:
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise SpecError(f"{what} must be a list of {n or 'some'} integers, got {_short(value)}", node, key)
    return [_int(v, what, node, key, minimum) for v in value]


class Descriptor:
    kind = ""
    fixed_length: int | None = None   # known without a type (tables, linear, cute)

    def build(self, env: dict) -> Arrays:
        raise NotImplementedError


@dataclass
class Table(Descriptor):
    lanes: list[list[tuple[int, int] | None]]
    kind = "table"

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Table:
        if not isinstance(spec, list) or not spec:
            raise SpecError("table must be a non-empty list with one list per invocation", node, key)
        lanes = []
        for p, lane in enumerate(spec):
            if not isinstance(lane, list) or not lane:
                raise SpecError(f"table invocation {p}: expected a non-empty list of [row, col] or null",
                                spec, ("item", p))
            out: list[tuple[int, int] | None] = []
            for i, cell in enumerate(lane):
                if cell is None:
                    out.append(None)
                elif (isinstance(cell, list) and len(cell) == 2
                      and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_INT for x in cell)):
                    out.append((cell[0], cell[1]))
                else:
                    raise SpecError(f"table invocation {p} index {i}: expected [row, col] (integers in "
                                    f"0..{MAX_INT}) or null, got {_short(cell)}", lane, ("item", i))
            lanes.append(out)
        lengths = {len(x) for x in lanes}
        if len(lengths) != 1:
            bad = next(p for p, x in enumerate(lanes) if len(x) != len(lanes[0]))
            raise SpecError(f"table: every invocation must have the same length; invocation 0 has "
                            f"{len(lanes[0])} elements, invocation {bad} has {len(lanes[bad])}",
                            spec, ("item", bad))
        t = cls(lanes)
        t.fixed_length = len(lanes[0])
        return t

    def build(self, env: dict) -> Arrays:
        S = env["S"]
        if len(self.lanes) != S:
            raise SpecError(f"table has {len(self.lanes)} invocations but the subgroup size is {S}")
        _check_slots(env, S, len(self.lanes[0]))
        row = np.array([[-1 if x is None else x[0] for x in lane] for lane in self.lanes], dtype=np.int64)
        col = np.array([[-1 if x is None else x[1] for x in lane] for lane in self.lanes], dtype=np.int64)
        return row, col


@dataclass
class Formula(Descriptor):
    length: Expr
    vars: list[tuple[str, Expr]]
    row: Expr
    col: Expr
    pad: Expr | None
    kind = "formula"
    RESERVED = ("lane", "i", "R", "C", "S", "bits")

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Formula:
        if not isinstance(spec, dict):
            raise SpecError("formula must be a mapping with length, row, col (and optional vars, pad)", node, key)
        unknown = set(spec) - {"length", "vars", "row", "col", "pad"}
        if unknown:
            k = sorted(map(str, unknown))[0]
            raise SpecError(f"formula: unknown key '{k}' (known: length, vars, row, col, pad)", spec, k)
        for k in ("length", "row", "col"):
            if k not in spec:
                raise SpecError(f"formula: missing '{k}'", node, key)
        vars_ = []
        raw_vars = spec.get("vars") or {}
        if not isinstance(raw_vars, dict):
            raise SpecError("formula vars must be a mapping name: expression", spec, "vars")
        if len(raw_vars) > MAX_NAMES:   # each var is an S x L array
            raise SpecError(f"formula vars has {len(raw_vars)} names, more than the limit of {MAX_NAMES}", spec, "vars")
        for name, text in raw_vars.items():
            if not isinstance(name, str) or not name.isidentifier() or name in cls.RESERVED:
                raise SpecError(f"formula var name '{name}' is not allowed (reserved: {', '.join(cls.RESERVED)})",
                                raw_vars, name)
            vars_.append((name, _expr(text, f"var '{name}'", raw_vars, name)))
        pad = _expr(spec["pad"], "pad", spec, "pad") if "pad" in spec else None
        return cls(_expr(spec["length"], "length", spec, "length"), vars_,
                   _expr(spec["row"], "row", spec, "row"), _expr(spec["col"], "col", spec, "col"), pad)

    def build(self, env: dict) -> Arrays:
        scope = dict(env)
        try:
            length = int(np.asarray(self.length.evaluate(scope)).reshape(-1)[0])
        except ExprError as e:
            raise SpecError(f"length: {e}") from None
        S = env["S"]
        if length < 1:
            raise SpecError(f"length evaluates to {length}; it must be at least 1")
        _check_slots(env, S, length)
        scope["lane"] = np.arange(S, dtype=np.int64)[:, None]
        scope["i"] = np.arange(length, dtype=np.int64)[None, :]
        shape = (S, length)
        try:
            for name, var_expr in self.vars:
                scope[name] = var_expr.evaluate(scope)
            row = np.broadcast_to(self.row.evaluate(scope), shape).astype(np.int64)
            col = np.broadcast_to(self.col.evaluate(scope), shape).astype(np.int64)
            if self.pad is not None:
                scope["row"], scope["col"] = row, col
                pad = np.broadcast_to(self.pad.evaluate(scope), shape) != 0
                row = np.where(pad, -1, row)
                col = np.where(pad, -1, col)
        except ExprError as e:
            raise SpecError(str(e)) from None
        return row, col


@dataclass
class Iree(Descriptor):
    outer: list[int]
    thread: list[int]
    tstrides: list[int]
    element: list[int]
    kind = "iree"

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Iree:
        if not isinstance(spec, dict):
            raise SpecError("iree must be a mapping with outer, thread, tstrides, element", node, key)
        fields = {}
        for k in ("outer", "thread", "tstrides", "element"):
            if k not in spec:
                raise SpecError(f"iree: missing '{k}'", node, key)
            fields[k] = _int_list(spec[k], 2, f"iree {k}", spec, k, 0 if k == "tstrides" else 1)
        unknown = set(spec) - set(fields)
        if unknown:
            raise SpecError(f"iree: unknown key '{sorted(map(str, unknown))[0]}'", node, key)
        d = cls(**fields)
        d.fixed_length = d.outer[0] * d.outer[1] * d.element[0] * d.element[1]
        return d

    def build(self, env: dict) -> Arrays:
        R, C, S = env["R"], env["C"], env["S"]
        tile = [self.outer[d] * self.thread[d] * self.element[d] for d in (0, 1)]
        if tile != [R, C]:
            raise SpecError(f"iree outer*thread*element = {tile[0]}x{tile[1]}, but the matrix is {R}x{C}")
        ne = self.element[0] * self.element[1]
        length = self.outer[0] * self.outer[1] * ne
        _check_slots(env, S, length)
        lane = np.arange(S)[:, None]
        v = np.arange(length)[None, :]
        e, o = v % ne, v // ne
        elem = (e // self.element[1], e % self.element[1])
        out = (o // self.outer[1], o % self.outer[1])
        coord = []
        for d in (0, 1):
            vt = (lane // self.tstrides[d]) % self.thread[d] if self.tstrides[d] else np.zeros_like(lane)
            coord.append(out[d] * self.thread[d] * self.element[d] + vt * self.element[d] + elem[d])
        shape = (S, length)
        return (np.broadcast_to(coord[0], shape).astype(np.int64),
                np.broadcast_to(coord[1], shape).astype(np.int64))


@functools.lru_cache(maxsize=1)
def _cute_parser():
    from lark import Lark
    return Lark(Path(__file__).with_name("cute.lark").read_text(), parser="lalr")


class CuteError(ValueError):
    """A malformed CuTe layout; `column` is 1-based inside the layout text (or None)."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.column = column


def parse_cute(text: str) -> tuple[Any, Any]:
    """'Shape:Stride' -> (shape, stride) as nested tuples of ints (CuteError, a ValueError, when malformed).

    Length and nesting are checked before parsing, so that the recursive conversions below stay shallow."""
    from lark.exceptions import UnexpectedInput
    if len(text) > MAX_CUTE_CHARS:
        raise CuteError(f"layout of {len(text)} characters is longer than the limit of {MAX_CUTE_CHARS}",
                        MAX_CUTE_CHARS + 1)
    depth = 0
    for col, ch in enumerate(text, 1):
        depth += (ch == "(") - (ch == ")")
        if depth > MAX_CUTE_DEPTH:
            raise CuteError(f"layout nests deeper than the limit of {MAX_CUTE_DEPTH} parentheses", col)
    try:
        tree = _cute_parser().parse(text)
    except UnexpectedInput as e:
        column = getattr(e, "column", None)
        raise CuteError(f"malformed CuTe layout at column {column or '?'}", column) from None

    def conv(t):
        if t.data == "leaf":
            tok = t.children[0]
            value = MAX_INT + 1 if len(tok) > 10 else int(tok)
            if value > MAX_INT:
                shown = tok if len(tok) <= 24 else f"{tok[:12]}... ({len(tok)} digits)"
                raise CuteError(f"integer {shown} is larger than the limit of {MAX_INT}",
                                getattr(tok, "column", None))
            return value
        return tuple(conv(c) for c in t.children)
    shape, stride = (conv(c) for c in tree.children)
    if not _congruent(shape, stride):
        raise CuteError("shape and stride are not congruent (same nesting)")
    if _min_leaf(shape) < 1:
        raise CuteError("every shape must be at least 1")
    return shape, stride


def _min_leaf(shape: Any) -> int:
    return shape if isinstance(shape, int) else min(_min_leaf(s) for s in shape)


def _congruent(a: Any, b: Any) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int)
    return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b, strict=False))


def cute_size(shape: Any) -> int:
    """The number of coordinates of a shape (exact Python integers: numpy's product would wrap)."""
    if isinstance(shape, int):
        return shape
    return math.prod(cute_size(s) for s in shape)


def cute_apply(shape: Any, stride: Any, x: np.ndarray) -> np.ndarray:
    """Map 1-D coordinates x (< size) to offsets; the leftmost sub-mode varies fastest."""
    if isinstance(shape, int):
        return (x % shape) * stride if shape > 1 else np.zeros_like(x)
    total = np.zeros_like(x)
    for s, d in zip(shape, stride, strict=False):
        n = cute_size(s)
        total = total + cute_apply(s, d, x % n)
        x = x // n
    return total


@dataclass
class Cute(Descriptor):
    shape: Any
    stride: Any
    index: str
    thr_id: tuple[Any, Any] | None
    kind = "cute"

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Cute:
        if isinstance(spec, str):
            spec = {"layout": spec}
        if not isinstance(spec, dict) or "layout" not in spec:
            raise SpecError("cute must be a TV layout string '(thr,val):(stride)' or a mapping with 'layout'",
                            node, key)
        unknown = set(spec) - {"layout", "index", "thr_id"}
        if unknown:
            raise SpecError(f"cute: unknown key '{sorted(map(str, unknown))[0]}' (known: layout, index, thr_id)",
                            node, key)
        where = spec if hasattr(spec, "key_marks") else node
        if not isinstance(spec["layout"], str):
            raise SpecError(f"cute layout must be a string, got {_short(spec['layout'])}", where,
                            "layout" if where is spec else key)
        try:
            shape, stride = parse_cute(spec["layout"])
        except CuteError as e:
            raise SpecError(f"cute layout: {e}", where, "layout" if where is spec else key, e.column) from None
        if isinstance(shape, int) or len(shape) != 2:
            raise SpecError("cute layout must have two top modes: (thread, value)", where,
                            "layout" if where is spec else key)
        index = spec.get("index", "col_major")
        if index not in ("col_major", "row_major"):
            raise SpecError("cute index must be col_major (idx = row + R*col, CuTe's (m,k)) or row_major "
                            "(idx = col + C*row, CuTe's (n,k) for a K x N B)", where, "index")
        thr = None
        if spec.get("thr_id") is not None:
            if not isinstance(spec["thr_id"], str):
                raise SpecError(f"cute thr_id must be a string, got {_short(spec['thr_id'])}", where, "thr_id")
            try:
                thr = parse_cute(spec["thr_id"])
            except CuteError as e:
                raise SpecError(f"cute thr_id: {e}", where, "thr_id", e.column) from None
        d = cls(shape, stride, index, thr)
        d.fixed_length = cute_size(shape[1])
        return d

    def build(self, env: dict) -> Arrays:
        R, C, S = env["R"], env["C"], env["S"]
        T, L = cute_size(self.shape[0]), cute_size(self.shape[1])
        if T > S:
            raise SpecError(f"cute layout has {T} threads, more than the subgroup size {S}")
        _check_slots(env, S, L)
        t = np.arange(T)
        lane_of = cute_apply(*self.thr_id, t) if self.thr_id else t
        if lane_of.max() >= S or len(set(lane_of.tolist())) != T:
            raise SpecError(f"cute threads map to lanes {sorted(set(lane_of.tolist()))[:8]}...: they must be "
                            f"distinct and below the subgroup size {S}")
        idx = (cute_apply(self.shape[0], self.stride[0], t)[:, None]
               + cute_apply(self.shape[1], self.stride[1], np.arange(L))[None, :])
        if self.index == "col_major":
            r, c = idx % R, idx // R
        else:
            r, c = idx // C, idx % C
        row = np.full((S, L), -1, dtype=np.int64)
        col = np.full((S, L), -1, dtype=np.int64)
        row[lane_of] = r
        col[lane_of] = c
        return row, col


@dataclass
class Linear(Descriptor):
    register: list[tuple[int, int]]
    lane: list[tuple[int, int]]
    kind = "linear"

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Linear:
        if not isinstance(spec, dict) or "register" not in spec or "lane" not in spec:
            raise SpecError("linear must be a mapping with 'register' and 'lane' bases ([row, col] each)",
                            node, key)
        out: dict[str, list[tuple[int, int]]] = {}
        for k in ("register", "lane"):
            bases = spec[k]
            if not isinstance(bases, list):
                raise SpecError(f"linear {k} must be a list of [row, col] bases", spec, k)
            if len(bases) > MAX_LINEAR_BASES:
                raise SpecError(f"linear {k} has {len(bases)} bases, more than the limit of {MAX_LINEAR_BASES}",
                                spec, k)
            out[k] = [cast("tuple[int, int]", tuple(_int_list(b, 2, f"linear {k} basis", spec, k))) for b in bases]
        d = cls(out["register"], out["lane"])
        d.fixed_length = 1 << len(d.register)
        return d

    def build(self, env: dict) -> Arrays:
        S = env["S"]
        if (1 << len(self.lane)) != S:
            raise SpecError(f"linear layout has {len(self.lane)} lane bases (2^{len(self.lane)} lanes), "
                            f"but the subgroup size is {S}")
        L = 1 << len(self.register)
        _check_slots(env, S, L)
        row = np.zeros((S, L), dtype=np.int64)
        col = np.zeros((S, L), dtype=np.int64)
        for axis, bases, n in ((0, self.lane, S), (1, self.register, L)):
            idx = np.arange(n)
            for bit, (br, bc) in enumerate(bases):
                on = ((idx >> bit) & 1).astype(bool)
                sel = on[:, None] if axis == 0 else on[None, :]
                row ^= np.where(sel, br, 0)
                col ^= np.where(sel, bc, 0)
        return row, col


@dataclass
class Striped(Descriptor):
    kind = "striped"

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Striped:
        if spec not in (None, {}, True):
            raise SpecError("striped takes no parameters (write 'striped: {}')", node, key)
        return cls()

    def build(self, env: dict) -> Arrays:
        R, C, S = env["R"], env["C"], env["S"]
        L = -(-R * C // S)
        _check_slots(env, S, L)
        idx = np.arange(S)[:, None] + np.arange(L)[None, :] * S
        pad = idx >= R * C
        return np.where(pad, -1, idx // C), np.where(pad, -1, idx % C)


@dataclass
class Shuffled(Descriptor):
    seed: int
    kind = "shuffled"

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Shuffled:
        spec = spec or {}
        if not isinstance(spec, dict) or set(spec) - {"seed"}:
            raise SpecError("shuffled takes only 'seed' (write 'shuffled: {seed: 0}')", node, key)
        return cls(_int(spec.get("seed", 0), "shuffled seed", spec, "seed", maximum=(1 << 64) - 1))

    def build(self, env: dict) -> Arrays:
        R, C, S = env["R"], env["C"], env["S"]
        seed = env.get("#seed")
        seed = self.seed if seed is None else seed
        L = -(-R * C // S)
        _check_slots(env, S, L)
        tag = zlib.crc32(f"{env.get('#component')}/{R}x{C}/{env.get('#use')}/{S}".encode())
        perm = np.random.default_rng([int(seed) & 0xFFFFFFFF, tag]).permutation(S * L).reshape(S, L)
        pad = perm >= R * C
        return np.where(pad, -1, perm // C), np.where(pad, -1, perm % C)


@dataclass
class Random(Descriptor):
    """An adversarial layout: per type and subgroup size a seeded choice among a bijection (the shuffled
    layout), a replicated layout (every element in 2 or 4 slots, as RDNA3's A/B or PanVK's fp16 tiles) and a
    padded one (one slot more per invocation than needed), each with elements, copies and padding scattered
    at random. A kernel whose results agree under many seeds does not depend on any mapping."""
    seed: int
    kind = "random"
    VARIANTS = ("bijection", "replicated", "padded")

    @classmethod
    def parse(cls, spec: Any, node: Any, key: Any) -> Random:
        spec = spec or {}
        if not isinstance(spec, dict) or set(spec) - {"seed"}:
            raise SpecError("random takes only 'seed' (write 'random: {seed: 0}')", node, key)
        return cls(_int(spec.get("seed", 0), "random seed", spec, "seed", maximum=(1 << 64) - 1))

    @staticmethod
    def variant(seed: int, env: dict) -> tuple[str, int, np.random.Generator]:
        """(variant, copies per element, the generator that places them) for one type."""
        R, C, S = env["R"], env["C"], env["S"]
        tag = zlib.crc32(f"random/{env.get('#component')}/{R}x{C}/{env.get('#use')}/{S}".encode())
        rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, (int(seed) >> 32) & 0xFFFFFFFF, tag])
        name = Random.VARIANTS[int(rng.integers(len(Random.VARIANTS)))]
        copies = 1
        if name == "replicated":
            # copies only where they fit the slot budget (twice max_elements)
            fits = [k for k in (2, 4) if _limits(env).slots_error(S, -(-k * R * C // S)) is None]
            if not fits:
                return "bijection", 1, rng
            copies = fits[int(rng.integers(len(fits)))]
        return name, copies, rng

    def build(self, env: dict) -> Arrays:
        R, C, S = env["R"], env["C"], env["S"]
        seed = env.get("#seed")
        seed = self.seed if seed is None else seed
        name, copies, rng = self.variant(seed, env)
        L = -(-copies * R * C // S)
        if name == "padded" and _limits(env).slots_error(S, L + 1) is None:
            L += 1
        _check_slots(env, S, L)
        n = S * L
        # every element `copies` times, the rest padding (-1), in a random order
        ids = np.full(n, -1, dtype=np.int64)
        ids[:copies * R * C] = np.tile(np.arange(R * C), copies)
        ids = rng.permutation(ids).reshape(S, L)
        pad = ids < 0
        return np.where(pad, -1, ids // C), np.where(pad, -1, ids % C)


KINDS: dict[str, Callable[..., Descriptor]] = {
    "table": Table.parse, "formula": Formula.parse, "iree": Iree.parse, "cute": Cute.parse,
    "linear": Linear.parse, "striped": Striped.parse, "shuffled": Shuffled.parse, "random": Random.parse,
}

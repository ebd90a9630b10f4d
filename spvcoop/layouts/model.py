"""Layout models: a YAML file of entries, each saying which types it covers and how.

A model file::

    name: nvidia
    description: ...
    subgroup_size: 32            # default S (omit for models that work for any S)
    subgroup_sizes: [32]         # optional: the subgroup sizes the vendor runs (portability sweeps them)
    examples:                    # optional: types to list/diff when entries are open-ended
      - {component: f16, rows: 16, cols: 16, use: a}
    entries:
      - name: a-acc-rows         # used in error messages and `layout list`
        components: [f16, bf16]  # or 'any'
        rows: 16                 # int, list, 'any' or {multiple_of: 8}
        cols: [8, 16]
        use: [a, acc]            # a, b, acc, none (NV types), or 'any'
        subgroup_size: 32        # int, list or 'any' (default: the model's subgroup_size)
        let: {w: "bits == 8 ? 4 : 2"}   # constants over R, C, S, bits
        when: "C % (4 * w) == 0"        # extra condition over R, C, S, bits and let
        formula: {length: ..., row: ..., col: ...}   # or table / iree / cute / linear / striped / shuffled / random

The first entry that matches a type answers for it. Fixed-size entries are built
and checked (coverage, equal lengths, ranges) when the file is loaded; open-ended
ones when a type is first asked for. Every error names file:line and the entry.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import numpy as np

from ..core.diagnostics import Diagnostic
from .descriptors import KINDS, Descriptor, SpecError, _name, _short
from .expr import Expr, ExprError, compile_expr
from .layout import (COMPONENTS, Layout, LayoutError, UnknownModelName, UnreadableModel, check_component, check_int,
                     normalize_use)
from .limits import (DEFAULT_LIMITS, MAX_ENTRIES, MAX_ENUMERATED_TYPES, MAX_INT, MAX_LIST, MAX_NAMES,
                     MAX_WHEN_EVALS, LayoutLimits)
from .yamlloc import load_yaml, span_of

ENUM_LIMIT = 64   # open-ended ranges are enumerated up to this size for listing/diffing
Type = tuple[str, int, int, "str | None", int]   # component, rows, cols, use, subgroup size


@dataclass
class Sizes:
    """Which sizes match: a finite set, multiples of n, or anything."""
    values: tuple[int, ...] | None = None
    multiple_of: int | None = None

    def __contains__(self, n: int) -> bool:
        if self.values is not None:
            return n in self.values
        if self.multiple_of is not None:
            return n > 0 and n % self.multiple_of == 0
        return n > 0

    @property
    def finite(self) -> bool:
        return self.values is not None

    def enumerate(self) -> list[int]:
        if self.values is not None:
            return list(self.values)
        step = self.multiple_of or 1
        return [n for n in range(step, ENUM_LIMIT + 1, step) if self.multiple_of or n & (n - 1) == 0]

    def __str__(self) -> str:
        if self.values is not None:
            return "|".join(map(str, self.values))
        return f"k*{self.multiple_of}" if self.multiple_of else "any"


@dataclass
class Entry:
    name: str
    components: tuple[str, ...] | None
    rows: Sizes
    cols: Sizes
    uses: tuple | None          # None = any use (including none)
    sizes: Sizes                # subgroup sizes
    let: list[tuple[str, Expr]]
    when: Expr | None
    desc: Descriptor
    mark: Any
    source: str
    work: list = field(default_factory=lambda: [0], repr=False)   # 'when' evaluations, shared by a model's entries

    def constants(self, component: str, rows: int, cols: int, use: str | None, S: int) -> dict:
        # '#'-names are for descriptors (shuffled, random); expressions cannot name them
        env = {"R": rows, "C": cols, "S": S, "bits": COMPONENTS[component][0],
               "#component": component, "#use": use}
        for name, e in self.let:
            env[name] = int(np.asarray(e.evaluate(env)).reshape(-1)[0])
        return env

    def matches(self, component: str, rows: int, cols: int, use: str | None, S: int) -> bool:
        if self.components is not None and component not in self.components:
            return False
        if rows not in self.rows or cols not in self.cols or S not in self.sizes:
            return False
        if self.uses is not None and use not in self.uses:
            return False
        if self.when is not None:
            self.work[0] += len(self.let) + 1
            if self.work[0] > MAX_WHEN_EVALS:
                raise self.error(f"matching types against 'when' conditions took more than {MAX_WHEN_EVALS} "
                                 f"expression evaluations in this model (too many entries, let names or examples)")
            try:
                env = self.constants(component, rows, cols, use, S)
                return bool(np.asarray(self.when.evaluate(env)).reshape(-1)[0])
            except ExprError as e:
                raise self.error(f"'when' cannot be evaluated for {component} {rows}x{cols}: {e}") from None
        return True

    def error(self, message: str) -> LayoutError:
        return LayoutError(f"entry '{self.name}': {message}", self.source, span_of(self.mark))

    def describe(self) -> str:
        comps = ",".join(self.components) if self.components else "any component"
        uses = "any use" if self.uses is None else "use " + ",".join("none" if u is None else u for u in self.uses)
        s = f"{comps} {self.rows}x{self.cols} {uses} S={self.sizes}"
        if self.when is not None:
            s += f" when {self.when.text}"
        return f"{self.name}: {s} ({self.desc.kind})"

    def type_count(self) -> int:
        """How many combinations types() walks (0 when open-ended)."""
        if not (self.rows.finite and self.cols.finite and self.sizes.finite):
            return 0
        uses = len(self.uses) if self.uses is not None else 4
        return (len(self.components or COMPONENTS) * len(self.rows.values or ()) * len(self.cols.values or ()) * uses
                * len(self.sizes.values or ()))

    def types(self) -> Iterator[Type]:
        """Concrete types of a finite entry (nothing when rows, cols or S are open-ended)."""
        if not (self.rows.finite and self.cols.finite and self.sizes.finite):
            return
        comps = self.components or tuple(COMPONENTS)
        uses = self.uses if self.uses is not None else ("a", "b", "acc", None)
        for c in comps:
            for r in self.rows.enumerate():
                for k in self.cols.enumerate():
                    for u in uses:
                        for s in self.sizes.enumerate():
                            if self.matches(c, r, k, u, s):
                                yield (c, r, k, u, s)


@dataclass
class LayoutModel:
    """A named set of layouts for cooperative-matrix types (see the module docstring)."""
    name: str
    description: str
    default_subgroup_size: int | None
    entries: list[Entry]
    source: str
    examples: list[Type] = field(default_factory=list)
    seed: int | None = None
    limits: LayoutLimits = DEFAULT_LIMITS
    vendor_sizes: tuple[int, ...] | None = None   # the subgroup sizes its hardware runs (portability sweeps them)
    _cache: dict = field(default_factory=dict, repr=False)
    _built_slots: int = field(default=0, repr=False)   # work done by _build, bounded by the limits

    def _find(self, component: str, rows: int, cols: int, use: str | None, S: int) -> Entry | None:
        for e in self.entries:
            if e.matches(component, rows, cols, use, S):
                return e
        return None

    def _resolve(self, component: str, use: str | None, subgroup_size: int | None) -> tuple[str | None, int]:
        check_component(component)
        use = normalize_use(use)
        S = subgroup_size if subgroup_size is not None else self.default_subgroup_size
        if S is None:
            raise LayoutError(f"layout model '{self.name}' has no default subgroup size: give one", self.source)
        return use, check_int(S, "the subgroup size")

    def defines(self, component: str, rows: int, cols: int, use: str | None = None,
                subgroup_size: int | None = None) -> bool:
        """Whether layout() would answer for this type (no guessing)."""
        try:
            use, S = self._resolve(component, use, subgroup_size)
            rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
        except LayoutError:
            return False
        if self.limits.check_type(rows, cols, S) is not None:
            return False   # layout() would refuse it: over the size budget
        return self._find(component, rows, cols, use, S) is not None

    def layout(self, component: str, rows: int, cols: int, use: str | None = None,
               subgroup_size: int | None = None) -> Layout:
        """The layout of one type; LayoutError when the model does not define it."""
        use, S = self._resolve(component, use, subgroup_size)
        rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
        why = self.limits.check_type(rows, cols, S)
        if why:
            raise LayoutError(f"layout model '{self.name}': {why}", self.source)
        key = (component, rows, cols, use, S)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        entry = self._find(*key)
        if entry is None:
            what = f"{component} {rows}x{cols}" + (f" use {use}" if use else " (no use)") + f" at subgroup size {S}"
            listing = "; ".join(e.describe() for e in self.entries[:6])
            raise LayoutError(f"layout model '{self.name}' does not define {what}. It defines: {listing}",
                              self.source)
        return self._build(entry, key)

    def _build(self, entry: Entry, key: Type) -> Layout:
        """Build, check and cache one layout, counting the slots built against the model's work budget."""
        budget = self.limits.max_built_slots
        if self._built_slots > budget:
            raise entry.error(f"the layouts built for model '{self.name}' hold more than {budget} slots in all, "
                              f"the limit of 64 x --max-elements (max_elements in LayoutLimits)")
        out = build_entry(entry, *key, self.name, self.seed, self.limits)
        self._built_slots += out.row.size
        self._cache[key] = out
        return out

    def types(self) -> list[Type]:
        """Concrete types to list or diff: the finite entries' types, then the examples."""
        seen: dict[Type, None] = {}
        for e in self.entries:
            for t in e.types():
                if self.limits.check_type(t[1], t[2], t[4]) is None:
                    seen.setdefault(t, None)
        for t in self.examples:
            if self.defines(*t):
                seen.setdefault(t, None)
        return list(seen)


def build_entry(entry: Entry, component: str, rows: int, cols: int, use: str | None, S: int,
                model: str, seed: int | None = None, limits: LayoutLimits = DEFAULT_LIMITS) -> Layout:
    """Build and check one layout; any problem becomes a LayoutError at the entry's line."""
    what = f"{component} {rows}x{cols}" + (f" use {use}" if use else "") + f" S={S}"
    try:
        env = entry.constants(component, rows, cols, use, S)
        env["#seed"] = seed
        env["#limits"] = limits
        row, col = entry.desc.build(env)
    except (SpecError, ExprError) as e:
        raise entry.error(f"{what}: {e}") from None
    row = np.array(row, dtype=np.int64)   # own, contiguous copies, frozen: layouts are cached and shared
    col = np.array(col, dtype=np.int64)
    row.flags.writeable = col.flags.writeable = False
    lay = Layout(rows, cols, S, row, col, model, component, use)
    problems = lay.problems()
    if problems:
        raise entry.error(f"{what}: " + "; ".join(problems))
    return lay


# ---------------------------------------------------------------- loading

def _where(source: str, node: Any, key: Any = None, column_offset: int | None = None):
    mark = None
    if isinstance(key, tuple) and len(key) == 2 and key[0] == "item" and hasattr(node, "item_marks"):
        if 0 <= key[1] < len(node.item_marks):
            mark = node.item_marks[key[1]]
    elif key is not None and hasattr(node, "key_marks"):
        mark = node.key_marks.get(key)
    if mark is None:
        mark = getattr(node, "mark", None)
    span = span_of(mark)
    if span is not None and column_offset:
        # the expression's column inside a one-line scalar (quoted scalars start one column later)
        buf, ptr = getattr(mark, "buffer", None), getattr(mark, "pointer", None)
        quoted = int(buf is not None and ptr is not None and ptr < len(buf) and buf[ptr] in "\"'")
        col = span.col + column_offset - 1 + quoted
        span = span._replace(col=col, end_col=col + 1)
    return span


def _sizes(value: Any, what: str, where: tuple) -> Sizes:
    def ok(v):
        return isinstance(v, int) and not isinstance(v, bool) and v > 0
    if value is None or value == "any":
        return Sizes()
    values = [value] if ok(value) else value if isinstance(value, list) and value and all(map(ok, value)) else None
    if isinstance(value, dict) and set(value) == {"multiple_of"} and ok(value["multiple_of"]):
        values = [value["multiple_of"]]
    if values is None:
        raise SpecError(f"{what} must be a positive integer, a list of them, 'any' or {{multiple_of: n}}; "
                        f"got {_short(value)}", *where)
    if len(values) > MAX_LIST:
        raise SpecError(f"{what} lists {len(values)} values, more than the limit of {MAX_LIST}", *where)
    if max(values) > MAX_INT:   # sizes beyond the budgets are refused when asked for, not here
        raise SpecError(f"{what}: {_short(max(values))} is larger than {MAX_INT}", *where)
    if isinstance(value, dict):
        return Sizes(multiple_of=value["multiple_of"])
    return Sizes(tuple(values))


ENTRY_KEYS = {"name", "components", "component", "rows", "cols", "use", "subgroup_size", "let", "when",
              "description"}


def _parse_entry(raw: Any, n: int, entries_node: Any, source: str, default_S: int | None,
                 limits: LayoutLimits) -> Entry:
    if not isinstance(raw, dict):
        raise SpecError(f"entry {n} must be a mapping", entries_node, ("item", n))
    name = raw.get("name", f"#{n}")
    name = _name(name)
    kinds = [k for k in raw if k in KINDS]
    unknown = [k for k in raw if k not in KINDS and k not in ENTRY_KEYS]
    if unknown:
        from ..core.diagnostics import did_you_mean
        k = unknown[0]
        raise SpecError(f"entry '{name}': unknown key '{_name(k)}'"
                        f"{did_you_mean(str(k)[:80], list(KINDS) + sorted(ENTRY_KEYS))}", raw, k)
    if len(kinds) != 1:
        raise SpecError(f"entry '{name}' needs exactly one description ({', '.join(KINDS)}), "
                        f"found {len(kinds) or 'none'}", entries_node, ("item", n))
    components = _entry_components(raw, name)
    uses = _entry_uses(raw, name)
    sizes = _sizes(raw.get("subgroup_size", default_S if default_S is not None else "any"),
                   f"entry '{name}': subgroup_size", (raw, "subgroup_size"))
    rows = _sizes(raw.get("rows", "any"), f"entry '{name}': rows", (raw, "rows"))
    cols = _sizes(raw.get("cols", "any"), f"entry '{name}': cols", (raw, "cols"))
    let = _entry_let(raw, name)
    when = _entry_when(raw, name)
    kind = kinds[0]
    if kind == "table" and not (rows.finite and cols.finite and len(rows.values or ()) == 1
                                 and len(cols.values or ()) == 1):
        raise SpecError(f"entry '{name}': a table entry needs one fixed 'rows' and 'cols'", entries_node, ("item", n))
    try:
        desc = KINDS[kind](raw[kind], raw, kind)
    except SpecError as e:
        e.args = (f"entry '{name}': {e.args[0]}",)
        raise
    return Entry(name, components, rows, cols, uses, sizes, let, when, desc,
                 getattr(raw, "mark", None), source)


def _entry_components(raw: dict, name: str) -> tuple[str, ...] | None:
    """An entry's `components` (or `component`): None for 'any'."""
    comps = raw.get("components", raw.get("component", "any"))
    ckey = "components" if "components" in raw else "component"
    if comps == "any":
        return None
    if isinstance(comps, str):
        comps = [comps]
    if not isinstance(comps, list) or not comps:
        raise SpecError(f"entry '{name}': components must be a list of names or 'any'", raw, ckey)
    for c in comps:
        if not isinstance(c, str) or c not in COMPONENTS:
            from ..core.diagnostics import did_you_mean
            raise SpecError(f"entry '{name}': unknown component '{_name(c)}'"
                            f"{did_you_mean(str(c)[:80], COMPONENTS)} "
                            f"(known: {', '.join(COMPONENTS)})", raw, ckey)
    return tuple(comps)


def _entry_uses(raw: dict, name: str) -> tuple | None:
    """An entry's `use`: None for 'any'."""
    uses_raw = raw.get("use", "any")
    if uses_raw == "any":
        return None
    if not isinstance(uses_raw, list):
        uses_raw = [uses_raw]
    if not uses_raw:
        raise SpecError(f"entry '{name}': use must name at least one of a, b, acc, none (or be 'any')",
                        raw, "use")
    try:
        return tuple(normalize_use(u) for u in uses_raw)
    except LayoutError as e:
        raise SpecError(f"entry '{name}': {e.diagnostics[0].message}", raw, "use") from None


def _entry_let(raw: dict, name: str) -> list:
    """An entry's `let` names, each compiled: [(name, Expr)]."""
    let = []
    let_raw = raw.get("let") or {}
    if not isinstance(let_raw, dict):
        raise SpecError(f"entry '{name}': let must be a mapping name: expression", raw, "let")
    if len(let_raw) > MAX_NAMES:
        raise SpecError(f"entry '{name}': let has {len(let_raw)} names, more than the limit of {MAX_NAMES}", raw, "let")
    for k, v in let_raw.items():
        if not isinstance(k, str) or not k.isidentifier():
            raise SpecError(f"entry '{name}': let name {_short(k)} is not a name (letters, digits, _)",
                            let_raw, k)
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise SpecError(f"entry '{name}': let '{k}' must be an expression (string or integer), "
                            f"got {_short(v)}", let_raw, k)
        try:
            e = compile_expr(str(v))
        except ExprError as ex:
            raise SpecError(f"entry '{name}': let '{k}': {ex}", let_raw, k, ex.column) from None
        let.append((k, e))
    return let


def _entry_when(raw: dict, name: str) -> Expr | None:
    """An entry's `when` condition, compiled."""
    if "when" not in raw:
        return None
    if isinstance(raw["when"], bool) or not isinstance(raw["when"], (int, str)):
        raise SpecError(f"entry '{name}': when must be an expression (string or integer), "
                        f"got {_short(raw['when'])}", raw, "when")
    try:
        return compile_expr(str(raw["when"]))
    except ExprError as ex:
        raise SpecError(f"entry '{name}': when: {ex}", raw, "when", ex.column) from None


def parse_model(text: str, source: str, seed: int | None = None,
                limits: LayoutLimits | None = None) -> LayoutModel:
    """Parse and check a model file's text (errors: LayoutError at file:line). `limits`: size budgets."""
    try:
        data = load_yaml(text, source)
    except (ValueError, RecursionError) as e:
        # the YAML library's own limits (an integer of thousands of digits, deep nesting), unlocated
        why = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(";")[0]
        raise LayoutError(f"invalid YAML: {why}", source) from None
    try:
        return _parse_model(data, source, seed, limits or DEFAULT_LIMITS)
    except SpecError as e:
        raise LayoutError(Diagnostic("error", str(e.args[0]), _where(source, e.node, e.key, e.column_offset),
                                     source=source)) from None


def _parse_model(data: Any, source: str, seed: int | None, limits: LayoutLimits) -> LayoutModel:
    name, S = _model_header(data)
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise SpecError("the model needs a non-empty 'entries' list", data, "entries" if "entries" in data else None)
    if len(raw_entries) > MAX_ENTRIES:
        raise SpecError(f"the model has {len(raw_entries)} entries, more than the limit of {MAX_ENTRIES}", data,
                        "entries")
    entries = [_parse_entry(raw, n, raw_entries, source, S, limits) for n, raw in enumerate(raw_entries)]
    _count_types(entries, raw_entries)
    examples = _model_examples(data, S)
    description = data.get("description", "")
    description = description.strip() if isinstance(description, str) else _short(description)
    vendor = data.get("subgroup_sizes")
    vendor_sizes = None if vendor is None else \
        _sizes(vendor, "subgroup_sizes", (data, "subgroup_sizes")).values
    if vendor is not None and vendor_sizes is None:
        raise SpecError("subgroup_sizes must be a positive integer or a list of them", data, "subgroup_sizes")
    model = LayoutModel(name, description, S, entries, source, examples, seed, limits, vendor_sizes=vendor_sizes)
    _build_fixed_entries(model, entries, limits)
    return model


def _count_types(entries: list, raw_entries: list) -> None:
    """Share one work counter among the entries and bound the concrete types they list (`layout list`, `diff`)."""
    work = [0]
    for e in entries:
        e.work = work
    listed = 0
    for n, e in enumerate(entries):
        listed += e.type_count()
        if listed > MAX_ENUMERATED_TYPES:
            raise SpecError(f"the entries up to '{e.name}' list {listed} concrete types, more than the limit of "
                            f"{MAX_ENUMERATED_TYPES}", raw_entries, ("item", n))


def _model_header(data: Any) -> tuple[str, int | None]:
    """The top level of a model file: known keys, its name and default subgroup size."""
    if not isinstance(data, dict):
        raise SpecError("a layout model file must be a mapping with 'name' and 'entries'", data)
    unknown = set(data) - {"name", "description", "subgroup_size", "subgroup_sizes", "entries", "examples",
                           "sources"}
    if unknown:
        k = sorted(map(str, unknown))[0]
        raise SpecError(f"unknown top-level key '{k}' (known: name, description, subgroup_size, subgroup_sizes, "
                        f"entries, examples, sources)", data, k)
    name = data.get("name")
    if not isinstance(name, str) or not name or len(name) > 200:
        raise SpecError("the model needs a 'name' (a string of at most 200 characters)", data,
                        "name" if "name" in data else None)
    S = data.get("subgroup_size")
    if S is not None and (not isinstance(S, int) or isinstance(S, bool) or not 1 <= S <= MAX_INT):
        raise SpecError(f"subgroup_size must be an integer in 1..{MAX_INT}", data, "subgroup_size")
    return name, S


def _model_examples(data: dict, S: int | None) -> list:
    """`examples`: concrete types the model is shown with, [(component, rows, cols, use, subgroup size)]."""
    examples: list = []
    raw_examples = data.get("examples") or []
    if not isinstance(raw_examples, list):
        raise SpecError("examples must be a list", data, "examples")
    if len(raw_examples) > MAX_ENUMERATED_TYPES:
        raise SpecError(f"examples lists {len(raw_examples)} types, more than the limit of {MAX_ENUMERATED_TYPES}",
                        data, "examples")
    for n, ex in enumerate(raw_examples):
        def posint(v, maximum):
            return isinstance(v, int) and not isinstance(v, bool) and 0 < v <= maximum
        ok = (isinstance(ex, dict) and {"component", "rows", "cols"} <= set(ex)
              and isinstance(ex["component"], str) and ex["component"] in COMPONENTS
              and posint(ex["rows"], MAX_INT) and posint(ex["cols"], MAX_INT)
              and posint(ex.get("subgroup_size", S or 1), MAX_INT))
        if ok:
            try:
                use = normalize_use(ex.get("use"))
            except LayoutError:
                ok = False
        if not ok:
            raise SpecError(f"examples must be mappings with a known component, rows and cols in "
                            f"1..{MAX_INT} (and optional use, subgroup_size)", raw_examples, ("item", n))
        examples.append((ex["component"], ex["rows"], ex["cols"], use, ex.get("subgroup_size", S)))
    return examples


def _build_fixed_entries(model: LayoutModel, entries: list, limits: LayoutLimits) -> None:
    # Fixed-size entries are checked now, so a bad table or formula fails at load time
    # (types over the size budget are left for when they are asked for, and refused then).
    for e in entries:
        if e.rows.finite and e.cols.finite and e.sizes.finite:
            comps = e.components or ("f32",)
            uses = e.uses if e.uses is not None else (None,)
            for comp in comps:
                for r in e.rows.enumerate():
                    for c in e.cols.enumerate():
                        for s in e.sizes.enumerate():
                            if limits.check_type(r, c, s) is None and e.matches(comp, r, c, uses[0], s):
                                model._build(e, (comp, r, c, uses[0], s))


# ---------------------------------------------------------------- lookup

MODELS_DIR = Path(__file__).with_name("models")


def builtin_models() -> list[str]:
    """Names of the models shipped inside the package."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.yaml"))


SEEDED_MODELS = ("random", "shuffled")   # built-in models whose layouts come from a seed (NAME:SEED)


def _named_seed(name: str) -> tuple[str, int] | None:
    """("random", 7) for "random:7" (a built-in seeded model and a decimal seed), else None."""
    base, sep, seed = name.partition(":")
    if not sep or base not in SEEDED_MODELS or os.path.exists(name):   # (a file named random:7.yaml is a file)
        return None
    if not (seed.isascii() and seed.isdigit()) or len(seed) > 20 or int(seed) >= 1 << 64:
        raise UnknownModelName(f"'{name[:100]}': the seed after '{base}:' must be a decimal integer below 2^64")
    return base, int(seed)


def load_model(name_or_path: str, seed: int | None = None, limits: LayoutLimits | None = None) -> LayoutModel:
    """A built-in model by name, or a user's YAML file by path. `seed` feeds `shuffled` and `random`
    entries, and "random:7" / "shuffled:7" name a seeded built-in model; `limits` are the size budgets
    (see limits.py)."""
    from ..core.diagnostics import did_you_mean
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise LayoutError(f"a layout model is a name or a path, got {_short(name_or_path)}")
    name_or_path = os.fspath(name_or_path)
    named_seed = _named_seed(name_or_path)
    if named_seed is not None:   # random:7, shuffled:3: a seeded built-in model
        name_or_path, seed = named_seed
    p = Path(name_or_path)
    if name_or_path in builtin_models():
        p = MODELS_DIR / f"{name_or_path}.yaml"
        source = f"<builtin>/{p.name}"
    elif p.suffix in (".yaml", ".yml") or os.path.exists(p):  # (os.path: False for a name too long)
        source = str(name_or_path)
    else:
        raise UnknownModelName(f"unknown layout model '{name_or_path}'{did_you_mean(name_or_path, builtin_models())}; "
                          f"built-in models: {', '.join(builtin_models())} (or give a path to a .yaml file)")
    try:
        if not p.is_file():   # a device, a pipe or a directory: refused, never read
            raise UnreadableModel("cannot read layout model: not a regular file", str(name_or_path))
        cap = (limits or DEFAULT_LIMITS).max_model_bytes
        from ..core.files import read_bounded
        with open(p, "rb") as f:
            data = read_bounded(f, cap)
        if len(data) > cap:   # (YAML is parsed at about a megabyte per second)
            raise LayoutError(f"layout model file is larger than the limit of {cap} bytes (raise it with "
                              f"--max-model-bytes)", str(name_or_path))
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UnreadableModel(f"cannot read layout model: {getattr(e, 'strerror', None) or e}",
                              str(name_or_path)) from None
    return parse_model(text, source, seed, limits)

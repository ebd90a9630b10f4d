"""Rule registry: one small function per rule, with a stable id and the spec sentence.

A rule is `fn(ctx, inst)` registered for a list of opcode names (or `"*module*"`
for module-level rules, called once as `fn(ctx, None)`). It reports through
`ctx.report(...)`, which builds a Diagnostic pointing at the operand at fault.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..core.diagnostics import Diagnostic, Note
from ..core.module import Instruction, Operand, Span
from ..core.records import FrozenRecord
from .index import MALFORMED, ModuleIndex, Value  # noqa: F401  (MALFORMED re-exported)

MODULE = "*module*"



# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Rule(FrozenRecord):
    """A validator rule: its id, the opcodes it checks, the spec sentence, severity and check."""
    __slots__ = _fields = ("id", "opnames", "spec", "severity", "func", "source")
    id: str
    opnames: tuple[str, ...]
    spec: str          # the sentence (or VUID) the rule enforces
    severity: str      # "error" or "warning" (ambiguous spec text; see docs/divergences.md)
    func: Callable
    source: str        # where the sentence comes from, e.g. "SPV_KHR_cooperative_matrix"

    def __init__(self, id: str, opnames: tuple[str, ...], spec: str, severity: str, func: Callable,
                 source: str = "") -> None:
        _set = object.__setattr__
        _set(self, "id", id)
        _set(self, "opnames", opnames)
        _set(self, "spec", spec)
        _set(self, "severity", severity)
        _set(self, "func", func)
        _set(self, "source", source)


RULES: dict[str, Rule] = {}
BY_OPNAME: dict[str, list[Rule]] = {}


# The device-profile rules are checked by profiles.py, which is imported only when a profile is given (a
# run or a `val` without one never loads it); they are declared here so that RULES always lists them.
RULES["profile.type"] = Rule("profile.type", (), "The device must report a cooperative-matrix combination that "
                             "contains this type (VkCooperativeMatrixProperties*).", "error", None,  # type: ignore[arg-type]
                             "Vulkan VK_NV/KHR_cooperative_matrix")
RULES["profile.muladd"] = Rule("profile.muladd", (), "The M, N, K, component types, scope (and saturating "
                               "accumulation) of a MulAdd must match one combination the device reports.",
                               "error", None, "Vulkan VK_NV/KHR_cooperative_matrix")  # type: ignore[arg-type]


def rule(rule_id: str, opnames: Iterable[str] | str, spec: str, severity: str = "error",
         source: str = "") -> Callable[[Callable], Callable]:
    """Decorator: register `func` as rule `rule_id` for the given opcode names."""
    ops = (opnames,) if isinstance(opnames, str) else tuple(opnames)

    def deco(func: Callable) -> Callable:
        if rule_id in RULES:
            raise ValueError(f"duplicate rule id {rule_id}")
        r = Rule(rule_id, ops, spec, severity, func, source)
        RULES[rule_id] = r
        for op in ops:
            BY_OPNAME.setdefault(op, []).append(r)
        func.rule = r  # type: ignore[attr-defined]
        return func
    return deco


class Context:
    """What a rule sees: the index and a way to report."""

    def __init__(self, index: ModuleIndex) -> None:
        self.ix = index
        self.diagnostics: list[Diagnostic] = []
        self.current: Rule | None = None
        self.source = index.module.source

    # ---- locating ---------------------------------------------------------------------------
    def span_of(self, inst: Instruction | None, operand: int | Operand | None = None) -> Span | None:
        if inst is None:
            return None
        if isinstance(operand, int):
            operand = inst.operands[operand] if 0 <= operand < len(inst.operands) else None
        if operand is not None and operand.span is not None:
            return operand.span
        return inst.span

    def def_span(self, id_: int | None) -> Span | None:
        inst = self.ix.defs.get(id_) if id_ is not None else None
        return inst.span if inst is not None else None

    def note_def(self, id_: int | None, message: str) -> Note:
        """A note at the declaration of `id_`."""
        return Note(message, self.def_span(id_))

    # ---- reporting --------------------------------------------------------------------------
    def report(self, inst: Instruction | None, operand: int | Operand | None, message: str,
               notes: Iterable[Note] = (), severity: str | None = None,
               rule_id: str | None = None, spec_dependent: bool = False) -> None:
        """Report at `inst`'s operand. A finding that holds only for the default value of a
        spec constant is downgraded to a warning (the constant may be specialized)."""
        r = self.current
        sev = severity or (r.severity if r else "error")
        notes = list(notes)
        if spec_dependent and sev == "error":
            sev = "warning"
            notes.append(Note("this depends on the default value of a specialization constant; "
                              "pass --spec-const ID=VALUE to check the value you will use"))
        if r is not None and r.spec:
            src = f" ({r.source})" if r.source else ""
            notes.append(Note(f"rule{src}: {r.spec}"))
        d = Diagnostic(sev, message, self.span_of(inst, operand), rule_id or (r.id if r else None),
                       notes, self.source)
        if inst is not None:
            d.instruction_index = inst.index
        self.diagnostics.append(d)


def spec_dep(*values: Value | None) -> bool:
    """Whether any of the compared values came from an unpinned spec constant."""
    return any(v is not None and v.spec for v in values)

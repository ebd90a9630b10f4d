"""Rule registry: one small function per rule, with a stable id and the spec sentence.

A rule is `fn(ctx, inst)` registered for a list of opcode names (or `"*module*"`
for module-level rules, called once as `fn(ctx, None)`). It reports through
`ctx.report(...)`, which builds a Diagnostic pointing at the operand at fault.

What a rule author must know (the validator's written rules; the order is passes.py):

- **Where rules live.** A rule module is a pass: it must be listed in `passes.PASSES`, which fixes the
  order in which rules run (and so the order of findings on one instruction). Declaring a rule in a
  module that is not listed is an error.
- **Modules without a cooperative-matrix capability.** Module rules (`MODULE`) run in every module.
  A per-instruction rule runs in every module too, unless it declares `coopmat_only`: then, for the
  opcodes named there (`True`: all of its opcodes), it runs only in modules that declare
  CooperativeMatrixNV, CooperativeMatrixKHR or TensorAddressingNV (directly or through a capability
  that implies one). Declare it for rules on core opcodes (OpFAdd, OpVariable, OpCompositeExtract, ...)
  that can only be wrong about a cooperative matrix: a large shader without one then skips them. Think
  twice before declaring it on the extensions' own opcodes or types: a module may use those without the
  capability (structure.capability.opcode reports that) and their operands are then still checked.
- **The shape cache (shapes.py).** In function bodies, an instruction whose shape key was checked once
  and found clean is not checked again. The key holds the opcode, the result type, literal operands,
  global ids (types, constants, variables, functions, labels) as themselves, and for a function-local id
  only its defining opcode and result type (for access chains and OpCopyObject, recursively their
  operands). So a per-instruction rule may look at: the instruction's own operands and result type;
  anything the index says about global ids; and the defining opcode and type of local operands, or the
  access chain that made a local pointer. It must not look at anything else about a local value (which
  constant-valued local it is, its uses, its block or function, neighbouring instructions), nor keep
  state across instructions: two instructions of the same key must get the same verdict. Module rules
  are never cached. SPVCOOP_NO_SHAPE_CACHE=1 (or `validate(..., shape_cache=False)`) turns the cache off;
  tests/validator/test_validate_passes.py requires identical reports with and without it on every test module.
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
    __slots__ = _fields = ("id", "opnames", "spec", "severity", "func", "source", "coopmat_only")
    id: str
    opnames: tuple[str, ...]
    spec: str          # the sentence (or VUID) the rule enforces
    severity: str      # "error" or "warning" (ambiguous spec text; see docs/divergences.md)
    func: Callable
    source: str        # where the sentence comes from, e.g. "SPV_KHR_cooperative_matrix"
    coopmat_only: frozenset[str]  # opcodes checked only where a cooperative-matrix capability is declared

    def __init__(self, id: str, opnames: tuple[str, ...], spec: str, severity: str, func: Callable,
                 source: str = "", coopmat_only: frozenset[str] = frozenset()) -> None:
        _set = object.__setattr__
        _set(self, "id", id)
        _set(self, "opnames", opnames)
        _set(self, "spec", spec)
        _set(self, "severity", severity)
        _set(self, "func", func)
        _set(self, "source", source)
        _set(self, "coopmat_only", coopmat_only)


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


# Rules declared by each pass module, in declaration order; registered in passes.PASSES order by seal().
_DECLARED: dict[str, list[Rule]] = {}
_DECLARED_IDS: set[str] = set()
_SEALED: list[bool] = [False]


def rule(rule_id: str, opnames: Iterable[str] | str, spec: str, severity: str = "error",
         source: str = "", coopmat_only: bool | Iterable[str] = False) -> Callable[[Callable], Callable]:
    """Decorator: declare `func` as rule `rule_id` for the given opcode names. `coopmat_only`: the
    opcodes (True: all of them) on which it runs only in modules with a cooperative-matrix capability
    (see the module docstring). The rule is registered when passes.register() reaches its module."""
    ops = (opnames,) if isinstance(opnames, str) else tuple(opnames)
    gated = frozenset(ops if coopmat_only is True else () if coopmat_only is False else coopmat_only)
    if not gated <= set(ops) or (gated and MODULE in ops):
        raise ValueError(f"rule {rule_id}: coopmat_only names opcodes it is not registered for: "
                         f"{sorted(gated - set(ops)) or MODULE}")

    def deco(func: Callable) -> Callable:
        if _SEALED[0]:
            raise ValueError(f"rule {rule_id} is declared in {func.__module__} after the passes were registered: "
                             "list that module in spvcoop/validator/passes.py")
        if rule_id in RULES or rule_id in _DECLARED_IDS:
            raise ValueError(f"duplicate rule id {rule_id}")
        _DECLARED_IDS.add(rule_id)
        r = Rule(rule_id, ops, spec, severity, func, source, gated)
        _DECLARED.setdefault(func.__module__, []).append(r)
        func.rule = r  # type: ignore[attr-defined]
        return func
    return deco


def sealed() -> bool:
    return _SEALED[0]


def seal(passes: tuple[str, ...]) -> None:
    """Register the declared rules, pass by pass in the order given (called by passes.register)."""
    stray = sorted(set(_DECLARED) - set(passes))
    if stray:
        raise ValueError(f"rules declared in {', '.join(stray)}, which spvcoop/validator/passes.py does not list")
    for name in passes:
        for r in _DECLARED.get(name, ()):
            RULES[r.id] = r
            for op in r.opnames:
                BY_OPNAME.setdefault(op, []).append(r)
    _SEALED[0] = True


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

"""What a module says about itself, read in one pass and shared by the validator and the interpreter.

`ModuleFacts.of(module)` is built once per Module object and memoised (issue 33 item 4): the validator's
`ModuleIndex` (validator/index.py) and the interpreter's `Program` (interp/program.py) both take their shared
facts from it (definitions, OpName names, decorations by target, entry points, execution modes, capabilities,
extensions, the memory model, function spans) and keep only their own derived tables (the index: evaluated
constants, cooperative-matrix and tensor types; the Program: its Type objects, blocks, lines, checks).

The facts' tables are shared: readers never write them. They are kept while the module's instruction list is the
same list of the same length; code that edits an instruction in place (an operand's value) after the facts were
read gives the module a new list (`module.instructions = list(module.instructions)`), and the next reader builds
them anew.

Malformed instructions (built in code with too few operands) are skipped where a fact needs the missing operand,
as the validator's index did; the assembler and the binary reader never make them.
"""
from __future__ import annotations

import weakref

from .module import Instruction, Module
from .spirv_grammar import load as load_grammar

# The module-level instructions the facts record beyond definitions.
_MODULE_LEVEL = frozenset({
    "OpCapability", "OpExtension", "OpDecorate", "OpDecorateId", "OpMemberDecorate", "OpDecorateString",
    "OpEntryPoint", "OpExecutionMode", "OpExecutionModeId", "OpMemoryModel", "OpName", "OpTypeForwardPointer",
    "OpFunction", "OpFunctionEnd",
})
DECORATIONS = ("OpDecorate", "OpDecorateId", "OpMemberDecorate", "OpDecorateString")
_SPEC_ID = 1   # Decoration SpecId


class FunctionSpan:
    """One OpFunction and the instructions up to its OpFunctionEnd: `start` is the OpFunction's index in the module,
    `end` the OpFunctionEnd's, or, for a function that another OpFunction or the module's end cuts off, that
    position (and `ended` is False)."""
    __slots__ = ("inst", "start", "end", "ended")

    def __init__(self, inst: Instruction, start: int, end: int, ended: bool) -> None:
        self.inst = inst
        self.start = start
        self.end = end
        self.ended = ended

    def __repr__(self) -> str:
        return f"FunctionSpan(%{self.inst.result_id}, {self.start}..{self.end}{'' if self.ended else ', cut off'})"


class ModuleFacts:
    """The facts of one module's instruction list. Tables (all read-only for their readers):
    `defs` id -> its first defining instruction, `duplicates` (first, later) pairs of one id defined again,
    `names` id -> its first OpName, `renames` (id, name) of each later OpName of an id already named, in order,
    `decorations` target id -> OpDecorate/OpDecorateId/OpMemberDecorate/OpDecorateString instructions in order,
    `spec_ids` result id -> SpecId, `entry_points` OpEntryPoint instructions, `exec_modes` entry point id ->
    OpExecutionMode(Id) instructions, `capabilities` name (and each alias) -> its first OpCapability,
    `declared_caps` the declared capabilities and those they imply, `extensions` name -> first OpExtension,
    `addressing` and `memory_model` from OpMemoryModel, `forward_pointers` ids of OpTypeForwardPointer,
    `functions` one FunctionSpan per OpFunction in order, `bodies` function id -> its instructions."""

    __slots__ = ("instructions", "count", "defs", "duplicates", "names", "renames", "decorations", "spec_ids",
                 "entry_points", "exec_modes", "capabilities", "extensions", "addressing", "memory_model",
                 "forward_pointers", "functions", "_declared_caps", "_bodies")

    @classmethod
    def of(cls, module: Module) -> ModuleFacts:
        """The module's facts: built on the first call, then the same object while its instruction list is."""
        key = id(module)
        facts = _MEMO.get(key)
        insts = module.instructions
        if facts is not None and facts.instructions is insts and facts.count == len(insts):
            return facts
        if facts is None:
            weakref.finalize(module, _MEMO.pop, key, None)   # the id may be reused once the module is gone
        facts = _MEMO[key] = cls(insts)
        return facts

    def __init__(self, instructions: list[Instruction]) -> None:
        grammar = load_grammar()
        self.instructions = instructions
        self.count = len(instructions)
        defs: dict[int, Instruction] = {}
        self.defs = defs
        self.duplicates: list[tuple[Instruction, Instruction]] = []
        self.names: dict[int, str] = {}
        self.renames: list[tuple[int, str]] = []
        self.decorations: dict[int, list[Instruction]] = {}
        self.spec_ids: dict[int, int] = {}
        self.entry_points: list[Instruction] = []
        self.exec_modes: dict[int, list[Instruction]] = {}
        self.capabilities: dict[str, Instruction] = {}
        self.extensions: dict[str, Instruction] = {}
        self.addressing = "Logical"
        self.memory_model: str | None = None
        self.forward_pointers: set[int] = set()
        self.functions: list[FunctionSpan] = []
        self._declared_caps: set[str] | None = None
        self._bodies: dict[int, list[Instruction]] | None = None
        cap_kind = grammar.operand_kinds["Capability"]
        am_kind = grammar.operand_kinds["AddressingModel"]
        mm_kind = grammar.operand_kinds["MemoryModel"]
        fn: Instruction | None = None
        fn_start = 0
        for pos, inst in enumerate(instructions):
            rid = inst.result_id
            if rid is not None:
                if rid in defs:
                    self.duplicates.append((defs[rid], inst))
                else:
                    defs[rid] = inst
            op = inst.opname
            if op not in _MODULE_LEVEL:
                continue
            if op == "OpFunction":
                if fn is not None:
                    self.functions.append(FunctionSpan(fn, fn_start, pos, False))
                fn, fn_start = inst, pos
            elif op == "OpFunctionEnd":
                if fn is not None:
                    self.functions.append(FunctionSpan(fn, fn_start, pos, True))
                fn = None
            elif op in DECORATIONS and inst.operands:
                self.decorations.setdefault(inst.operands[0].as_int, []).append(inst)
                if op == "OpDecorate" and len(inst.operands) > 2 and inst.operands[1].value == _SPEC_ID:
                    self.spec_ids[inst.operands[0].as_int] = inst.operands[2].as_int
            elif op == "OpName" and inst.operands:
                target, name = inst.operands[0].as_int, str(inst.operands[1].value)
                if target in self.names:
                    self.renames.append((target, name))
                else:
                    self.names[target] = name
            elif op == "OpCapability" and inst.operands:
                e = cap_kind.by_value.get(inst.operands[0].as_int)
                if e is not None:
                    self.capabilities.setdefault(e.name, inst)
                    for alias in e.aliases:
                        self.capabilities.setdefault(alias, inst)
            elif op == "OpExtension" and inst.operands:
                self.extensions.setdefault(str(inst.operands[0].value), inst)
            elif op == "OpEntryPoint":
                self.entry_points.append(inst)
            elif op in ("OpExecutionMode", "OpExecutionModeId") and inst.operands:
                self.exec_modes.setdefault(inst.operands[0].as_int, []).append(inst)
            elif op == "OpMemoryModel" and len(inst.operands) >= 2:
                e = am_kind.by_value.get(inst.operands[0].as_int)
                self.addressing = e.name if e else "Logical"
                m = mm_kind.by_value.get(inst.operands[1].as_int)
                self.memory_model = m.name if m else None
            elif op == "OpTypeForwardPointer" and inst.operands:
                self.forward_pointers.add(inst.operands[0].as_int)
        if fn is not None:
            self.functions.append(FunctionSpan(fn, fn_start, len(instructions), False))

    @property
    def declared_caps(self) -> set[str]:
        """The declared capabilities and those they imply, transitively (grammar data); built on first use."""
        caps = self._declared_caps
        if caps is None:
            kind = load_grammar().operand_kinds["Capability"]
            caps = set(self.capabilities)
            stack = list(caps)
            while stack:
                e = kind.by_name.get(stack.pop())
                if e is None:
                    continue
                for dep in e.capabilities:
                    if dep not in caps:
                        caps.add(dep)
                        stack.append(dep)
            self._declared_caps = caps   # set when complete: threads validating one module share the facts
        return caps

    def body(self, span: FunctionSpan) -> list[Instruction]:
        """The instructions between a function's OpFunction and its end (neither included)."""
        return self.instructions[span.start + 1:span.end]

    @property
    def bodies(self) -> dict[int, list[Instruction]]:
        """Function id -> its instructions (an id of two OpFunctions: both bodies in turn); built on first use."""
        bodies = self._bodies
        if bodies is None:
            bodies = {}
            for span in self.functions:
                if span.inst.result_id is not None:
                    bodies.setdefault(span.inst.result_id, []).extend(self.body(span))
            self._bodies = bodies   # set when complete (see declared_caps)
        return bodies


# id(module) -> its facts; each entry leaves with its module (weakref.finalize in ModuleFacts.of)
_MEMO: dict[int, ModuleFacts] = {}

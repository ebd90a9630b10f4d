"""A module prepared for execution: types, decorations, names, functions split into blocks.

Construction also checks what the executor relies on (every id defined and of the right sort, types
built from types, blocks with terminators, branches to labels of the same function, calls of functions
with the right number of arguments, no recursion): a module that breaks it is a located SpvError here,
even when it was not validated first."""
from __future__ import annotations

import functools

from collections import defaultdict
from functools import cache
from typing import cast

from ..core.diagnostics import Diagnostic, SpvError
from ..core.facts import ModuleFacts
from ..core.literals import ENCODED_FLOATS, FLOAT_FORMATS
from ..core.module import Instruction, Module
from ..core.records import Record
from ..core.spirv_grammar import load as load_grammar
from .types import Type

CONSTANT_OPS = frozenset({
    "OpConstant", "OpConstantTrue", "OpConstantFalse", "OpConstantComposite", "OpConstantNull", "OpSpecConstant",
    "OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstantComposite", "OpSpecConstantOp", "OpUndef",
    "OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT"})
TERMINATORS = frozenset({"OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
                         "OpTerminateInvocation", "OpUnreachable"})
INT_WIDTHS = (8, 16, 32, 64)
FLOAT_WIDTHS = (16, 32, 64)  # other widths only with an FPEncoding (refused where used)
# what an id operand of an instruction in a function must name, by grammar operand name (default: a value)
_LABEL_OPERANDS = {"Target Label", "True Label", "False Label", "Default", "Merge Block", "Continue Target"}
_POINTER_OPERANDS = {"Pointer"}  # and an access chain's Base (OpBitFieldInsert's Base is an integer)
_DECODE_FUNC = 0x2  # TensorAddressingOperands bit whose parameter is a function


def function_operands(inst: Instruction) -> tuple[int, ...]:
    """Indices of the operands that name a function an instruction calls (SPV_NV_cooperative_matrix2: the
    combine, per-element and decode functions), besides OpFunctionCall's callee."""
    op = inst.opname
    if op == "OpCooperativeMatrixReduceNV":
        return (2,)
    if op == "OpCooperativeMatrixPerElementOpNV":
        return (1,)
    if op == "OpCooperativeMatrixLoadTensorNV":
        for i, o in enumerate(inst.operands):
            if o.kind == "TensorAddressingOperands" and o.as_int & _DECODE_FUNC and len(inst.operands) > i + 1:
                return (len(inst.operands) - 1,)
    return ()

TYPE_KINDS = {
    "OpTypeVoid": "void", "OpTypeBool": "bool", "OpTypeInt": "int", "OpTypeFloat": "float",
    "OpTypeVector": "vector", "OpTypeMatrix": "matrix", "OpTypeArray": "array",
    "OpTypeRuntimeArray": "runtime_array", "OpTypeStruct": "struct", "OpTypePointer": "pointer",
    "OpTypeForwardPointer": None, "OpTypeFunction": "function",
    "OpTypeCooperativeMatrixNV": "coopmat", "OpTypeCooperativeMatrixKHR": "coopmat",
    "OpTypeTensorLayoutNV": "tensor_layout", "OpTypeTensorViewNV": "tensor_view",  # opaque (interp/coopmat2)
}
OPAQUE_VALUE_KINDS = ("coopmat", "tensor_layout", "tensor_view")  # held as values by their op family
# annotations a Program takes from the module's facts (core/facts.py), not from its own walk
_FROM_FACTS = frozenset({"OpName", "OpDecorate", "OpDecorateId", "OpMemberDecorate", "OpEntryPoint",
                         "OpExecutionMode", "OpExecutionModeId"})


@cache
def _operand_names(opname: str) -> tuple[str, ...]:
    """Grammar names of an instruction's operands after its result type and id ('' past the fixed ones)."""
    spec = load_grammar().instructions.get(opname)
    return tuple(o.name for o in spec.operands if o.kind not in ("IdResultType", "IdResult")) if spec else ()


def enum_name(kind: str, value: int) -> str:
    e = load_grammar().operand_kinds[kind].by_value.get(value)
    return e.name if e else str(value)


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Block(Record):
    """A basic block: its label, phis, body, merge instruction and terminator."""

    label: int
    label_inst: Instruction
    phis: list[Instruction]
    body: list[Instruction]
    merge: Instruction | None
    term: Instruction | None
    _fields = ("label", "label_inst", "phis", "body", "merge", "term")

    def __init__(self, label: int, label_inst: Instruction, phis: list[Instruction] | None = None,
                 body: list[Instruction] | None = None, merge: Instruction | None = None,
                 term: Instruction | None = None) -> None:
        self.label = label
        self.label_inst = label_inst
        self.phis = [] if phis is None else phis
        self.body = [] if body is None else body
        self.merge = merge
        self.term = term

    @functools.cached_property
    def loop(self) -> tuple[int, int] | None:
        """(merge label, continue target) of a loop header, None for any other block (asked once per visit)."""
        m = self.merge
        if m is None or m.opname != "OpLoopMerge":
            return None
        return m.operands[0].as_int, m.operands[1].as_int


class Function(Record):
    """A SPIR-V function: its parameters, blocks, entry block and Function variables."""

    id: int
    inst: Instruction
    params: list[Instruction]
    blocks: dict[int, Block]
    entry: int
    variables: list[Instruction]
    _fields = ("id", "inst", "params", "blocks", "entry", "variables")

    def __init__(self, id: int, inst: Instruction, params: list[Instruction] | None = None,
                 blocks: dict[int, Block] | None = None, entry: int = 0,
                 variables: list[Instruction] | None = None) -> None:
        self.id = id
        self.inst = inst
        self.params = [] if params is None else params
        self.blocks = {} if blocks is None else blocks
        self.entry = entry
        self.variables = [] if variables is None else variables


class Program:
    def __init__(self, module: Module):
        self.module = module
        self.source = module.source
        self.names: dict[int, str] = {}
        self.member_names: dict[int, dict[int, str]] = defaultdict(dict)
        self.decorations: dict[int, dict[str, list]] = defaultdict(dict)
        self.member_decorations: dict[int, dict[int, dict[str, list]]] = defaultdict(lambda: defaultdict(dict))
        self.types: dict[int, Type] = {}
        # the facts the validator's index reads too (core/facts.py: built once per module, shared); a Program
        # takes the last definition of an id defined twice and the last OpName of an id named twice
        self.facts = facts = ModuleFacts.of(module)
        self.defs: dict[int, Instruction] = facts.defs
        if facts.duplicates:
            self.defs = dict(facts.defs)
            self.defs.update((cast(int, later.result_id), later) for _, later in facts.duplicates)
        self.globals: list[Instruction] = []     # constants, spec constants, undefs, variables in order
        self.functions: dict[int, Function] = {}
        self.entry_points: list[tuple[str, int, str, list[int]]] = []
        self.exec_modes: dict[int, list[tuple[str, list]]] = defaultdict(list)
        self.ext_imports: dict[int, str] = {}
        self.strings: dict[int, str] = {}
        self.sources: dict[str, str] = {}              # file name -> text (OpSource from glslang -g)
        self.lines: dict[int, tuple[str, int]] = {}    # instruction index -> (file, line) from OpLine
        self._from_facts()
        self._scan()

    # ---- diagnostics ------------------------------------------------------
    def error(self, message: str, inst: Instruction | None = None, notes=None) -> SpvError:
        return SpvError(Diagnostic("error", message, inst.span if inst else None, notes=notes or [],
                                   source=self.source))

    def name_of(self, id_: int) -> str:
        return self.names.get(id_) or self.module.id_names.get(id_) or f"%{id_}"

    # ---- scanning ---------------------------------------------------------
    def _from_facts(self) -> None:
        """Names, decorations (by name, the last of each), entry points and execution modes from the facts."""
        facts = self.facts
        self.names.update(facts.names)
        self.names.update(facts.renames)
        decs = sorted((inst for insts in facts.decorations.values() for inst in insts), key=lambda i: i.index)
        for inst in decs:  # in module order, as a walk over the module sees them
            op, ops = inst.opname, inst.operands
            if op in ("OpDecorate", "OpDecorateId"):
                self.decorations[ops[0].as_int][enum_name("Decoration", ops[1].as_int)] = [o.value for o in ops[2:]]
            elif op == "OpMemberDecorate":
                self.member_decorations[ops[0].as_int][ops[1].as_int][enum_name("Decoration", ops[2].as_int)] = \
                    [o.value for o in ops[3:]]
        for inst in facts.entry_points:
            ops = inst.operands
            self.entry_points.append((ops[2].as_str, ops[1].as_int, enum_name("ExecutionModel", ops[0].as_int),
                                      [o.as_int for o in ops[3:]]))
        for target, modes in facts.exec_modes.items():
            self.exec_modes[target] = [(enum_name("ExecutionMode", inst.operands[1].as_int),
                                        [o.value for o in inst.operands[2:]]) for inst in modes]

    def _scan(self) -> None:
        """One pass over the module: debug lines, then annotations and types, else the function structure."""
        fn: Function | None = None
        blk: Block | None = None
        line: tuple[str, int] | None = None
        for inst in self.module.instructions:
            line = self._track_line(inst, line)
            if not self._annotate(inst):
                fn, blk = self._structure(inst, fn, blk)
        if fn is not None:  # a truncated module
            where = blk.label_inst if blk is not None else fn.inst
            raise self.error(f"function {self.name_of(fn.id)} has no OpFunctionEnd"
                             + (f" (block {self.name_of(blk.label)} has no terminator)" if blk is not None else ""),
                             where)
        self._check_ids()
        self._finish_types()
        self._check_functions()
        self.registers = self._promotable()

    # ---- structural checks (what the executor relies on) -----------------------------------------

    def _track_line(self, inst: Instruction, line: tuple[str, int] | None) -> tuple[str, int] | None:
        """OpString/OpSource/OpLine: the (file, line) in force after `inst`, recorded for it."""
        op, ops = inst.opname, inst.operands
        if op == "OpString":
            self.strings[cast(int, inst.result_id)] = ops[0].as_str
        elif op == "OpSource" and len(ops) > 3:
            self.sources[self.strings.get(ops[2].as_int, "")] = ops[3].as_str
        elif op == "OpLine":
            line = (self.strings.get(ops[0].as_int, "?"), ops[1].as_int)
        elif op in ("OpNoLine", "OpFunctionEnd"):
            line = None
        if line is not None:
            self.lines[inst.index] = line
        if op in ("OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue"):
            line = None  # OpLine reaches the end of its block
        return line

    def _annotate(self, inst: Instruction) -> bool:
        """Names, decorations, entry points, execution modes, imports and types; False for anything else."""
        op, ops = inst.opname, inst.operands
        if op in _FROM_FACTS:
            pass   # read from the facts (_from_facts)
        elif op == "OpMemberName":
            self.member_names[ops[0].as_int][ops[1].as_int] = ops[2].as_str
        elif op == "OpExtInstImport":
            self.ext_imports[cast(int, inst.result_id)] = ops[0].as_str
        elif op in TYPE_KINDS:
            if TYPE_KINDS[op]:
                self._type(inst)
        else:
            return False
        return True

    def _structure(self, inst: Instruction, fn: Function | None,
                   blk: Block | None) -> tuple[Function | None, Block | None]:
        """Functions and their blocks (phis, merge, body, terminator), or a global: the (function, block) open
        after `inst`."""
        op = inst.opname
        if op == "OpFunction":
            fn = Function(cast(int, inst.result_id), inst)
            self.functions[fn.id] = fn
        elif op == "OpFunctionParameter" and fn is not None:
            fn.params.append(inst)
        elif op == "OpFunctionEnd":
            if fn is not None and blk is not None:
                raise self.error(f"block {self.name_of(blk.label)} has no terminator (OpBranch, OpReturn, ...)",
                                 blk.label_inst)
            fn, blk = None, None
        elif fn is None:
            if inst.result_id is not None and op not in ("OpString",):
                self.globals.append(inst)
        elif op == "OpLabel":
            if blk is not None:
                raise self.error(f"block {self.name_of(blk.label)} has no terminator (OpBranch, OpReturn, ...)",
                                 blk.label_inst)
            blk = Block(cast(int, inst.result_id), inst)
            if not fn.blocks:
                fn.entry = blk.label
            fn.blocks[blk.label] = blk
        elif blk is None:
            # non-semantic instructions may stand between blocks (Slang -g writes DebugNoScope after OpReturn):
            # nothing executes them, so they are left out
            if op not in ("OpLine", "OpNoLine", "OpNop", "OpFunctionParameter") and not self._non_semantic(inst):
                raise self.error(f"{op} is outside a block (after a terminator or before the first OpLabel)", inst)
        elif op == "OpPhi":
            blk.phis.append(inst)
        elif op in ("OpSelectionMerge", "OpLoopMerge"):
            blk.merge = inst
        elif op in TERMINATORS:
            blk.term = inst
            blk = None
        elif op == "OpVariable":
            fn.variables.append(inst)
        elif op not in ("OpLine", "OpNoLine", "OpNop"):
            blk.body.append(inst)
        return fn, blk
    def _sort(self, id_: int) -> str:
        d = self.defs.get(id_)
        if d is None:
            return "undefined"
        if d.opname.startswith("OpType"):
            return "type"
        if d.opname in ("OpLabel", "OpFunction", "OpExtInstImport"):
            return {"OpLabel": "label", "OpFunction": "function", "OpExtInstImport": "import"}[d.opname]
        return "value" if d.result_type is not None else "other"

    def _check_ids(self) -> None:
        """Every id operand is defined; result types are types; variables are pointers; constants are built
        from constants declared before them."""
        for inst in self.module.instructions:
            for o in inst.operands:
                if o.kind.startswith("Id") and o.value not in self.defs:
                    raise self.error(f"{self.name_of(o.as_int)} is not defined", inst)
            rt = inst.result_type
            if rt is not None:
                if self._sort(rt) != "type":
                    raise self.error(f"result type {self.name_of(rt)} is not a type", inst)
                if inst.opname == "OpVariable" and rt in self.types and self.types[rt].kind != "pointer":
                    raise self.error(f"the result type of OpVariable must be a pointer type, not "
                                     f"{self.name_of(rt)}", inst)
        for inst in self.globals:
            rt = inst.result_type   # None for a global without one (OpDecorationGroup)
            op, t = inst.opname, None if rt is None else self.types.get(rt)
            if op in ("OpConstant", "OpSpecConstant") and (t is None or t.kind not in ("int", "float")):
                raise self.error(f"{op} needs an integer or float type, not {self.name_of(cast(int, rt))}", inst)
            if op in ("OpConstantTrue", "OpConstantFalse", "OpSpecConstantTrue", "OpSpecConstantFalse") and \
                    (t is None or t.kind != "bool"):
                raise self.error(f"{op} needs a boolean type", inst)
            if op in CONSTANT_OPS and t is None:
                raise self.error(f"a constant of type {self.name_of(cast(int, rt))} is not supported", inst)
            if op in ("OpConstantComposite", "OpSpecConstantComposite", "OpConstantCompositeReplicateEXT",
                      "OpSpecConstantCompositeReplicateEXT", "OpVariable"):
                ids = [o.as_int for o in inst.operands if o.kind.startswith("Id")]
                for i in ids:
                    d = self.defs[i]
                    if not (d.opname in CONSTANT_OPS or d.opname == "OpVariable" and op == "OpVariable") or \
                            d.index > inst.index:
                        raise self.error(f"{self.name_of(i)} is not a constant declared before {op}", inst)
        for name, fid, _, _ in self.entry_points:
            if fid not in self.functions:
                raise self.error(f"entry point '{name}' names {self.name_of(fid)}, which is not a function",
                                 self.entry_inst(name))

    def value_bytes_per_invocation(self) -> int:
        """What the SSA values of all functions hold per invocation, at most (for the memory budget)."""
        total = 0
        for fn in self.functions.values():
            for blk in fn.blocks.values():
                for inst in [*blk.phis, *blk.body]:
                    t = self.types.get(inst.result_type) if inst.result_type is not None else None
                    total += t.size() if t is not None and t.kind in ("bool", "int", "float", "vector") else 8
        return total

    def entry_inst(self, name: str) -> Instruction | None:
        for inst in self.facts.entry_points:
            if inst.operands[2].value == name:
                return inst
        return None

    def _check_functions(self) -> None:
        """Operands of the right sort in function bodies, calls of functions, no recursion."""
        calls: dict[int, list[tuple[int, Instruction]]] = {}
        for fn in self.functions.values():
            calls[fn.id] = []
            ft = self.types.get(fn.inst.operands[1].as_int) if len(fn.inst.operands) > 1 else None
            if ft is None or ft.kind != "function":
                raise self.error("the function type operand of OpFunction is not an OpTypeFunction", fn.inst)
            for blk in fn.blocks.values():
                for inst in [*blk.phis, *blk.body, *([blk.merge] if blk.merge else []), cast(Instruction, blk.term)]:
                    self._check_operands(fn, inst)
                    for j in function_operands(inst):  # called by the op itself (coopmat2)
                        callee = self.functions.get(inst.operands[j].as_int)
                        if callee is not None and not callee.blocks:
                            raise self.error(f"{self.name_of(callee.id)} has no blocks (a declaration) and "
                                             f"cannot be called", inst)
                        if callee is not None:
                            calls[fn.id].append((callee.id, inst))
                    if inst.opname == "OpFunctionCall":
                        callee = self.functions[inst.operands[0].as_int]
                        if len(inst.operands) - 1 != len(callee.params):
                            raise self.error(f"{self.name_of(callee.id)} takes {len(callee.params)} argument(s), "
                                             f"the call passes {len(inst.operands) - 1}", inst)
                        if not callee.blocks:
                            raise self.error(f"{self.name_of(callee.id)} has no blocks (a declaration) and "
                                             f"cannot be called", inst)
                        calls[fn.id].append((callee.id, inst))
        for name, fid, _, _ in self.entry_points:
            if not self.functions[fid].blocks:
                raise self.error(f"entry point '{name}' has no blocks", self.entry_inst(name))
        self._check_recursion(calls)

    def _non_semantic(self, inst: Instruction) -> bool:
        """An extended instruction of a NonSemantic.* set: debug information, never executed."""
        return (inst.opname in ("OpExtInst", "OpExtInstWithForwardRefsKHR") and bool(inst.operands)
                and self.ext_imports.get(inst.operands[0].as_int, "").startswith("NonSemantic."))

    def _check_operands(self, fn: Function, inst: Instruction) -> None:
        op = inst.opname
        names = _operand_names(op)
        funcs = function_operands(inst)
        # NonSemantic.* instructions are not executed and may name any id (glslang -gV's
        # DebugFunctionDefinition names the function): only their set must be an import
        skip_rest = self._non_semantic(inst)
        for i, o in enumerate(inst.operands):
            if not o.kind.startswith("Id") or skip_rest and i > 0:
                continue
            name = names[i] if i < len(names) else ""
            if i in funcs:
                want = "function"
            elif op == "OpPhi":
                want = "label" if i % 2 else "value"
            elif op == "OpSwitch" and i >= 1 or name in _LABEL_OPERANDS:
                want = "label"
            elif op == "OpFunctionCall" and i == 0:
                want = "function"
            elif op == "OpExtInst" and i == 0:
                want = "import"
            elif "Type" in name:
                want = "type"
            else:
                want = "value"
            got = self._sort(o.as_int)
            if got != want:
                what = {"import": "an OpExtInstImport"}.get(want, f"a {want}")
                raise self.error(f"{self.name_of(o.as_int)} is not {what} (operand {i + 1} of {op})", inst)
            if want == "label" and o.value not in fn.blocks:
                raise self.error(f"{self.name_of(o.as_int)} is a label of another function, not of this function",
                                 inst)
            if want == "value" and (name in _POINTER_OPERANDS or name == "Base" and "AccessChain" in op):
                rt = self.defs[o.as_int].result_type
                t = None if rt is None else self.types.get(rt)
                if t is None or t.kind != "pointer":
                    raise self.error(f"{self.name_of(o.as_int)} is not a pointer (operand {i + 1} of {op})", inst)

    def statically_used(self, fn_id: int) -> set[int]:
        """Ids named by the instructions of a function and of every function it calls (Vulkan's "statically
        used": a variable outside this set needs no descriptor)."""
        ids: set[int] = set()
        seen: set[int] = set()
        todo = [fn_id]
        insts: list[Instruction | None]
        while todo:
            f = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            fn = self.functions[f]
            insts = list(fn.variables)
            for blk in fn.blocks.values():
                insts += [*blk.phis, *blk.body, *([blk.merge] if blk.merge else []), blk.term]
            for inst in insts:
                if inst is None:
                    continue
                ids.update(o.as_int for o in inst.operands if o.kind.startswith("Id"))
                if inst.opname == "OpFunctionCall":
                    todo.append(inst.operands[0].as_int)
                todo.extend(inst.operands[j].as_int for j in function_operands(inst))
        return ids

    def _check_recursion(self, calls: dict[int, list[tuple[int, Instruction]]]) -> None:
        """No recursion (Vulkan forbids it; calls are executed without a depth bound): a call-graph cycle is an
        error at the call that closes it."""
        state: dict[int, int] = {}

        def visit(f: int, path: list[int]) -> None:
            state[f] = 1
            for callee, inst in calls.get(f, ()):
                if state.get(callee) == 1:
                    cycle = path[path.index(callee):] + [callee]
                    raise self.error("recursion: " + " -> ".join(self.name_of(x) for x in cycle) +
                                     " (Vulkan forbids recursion: VUID-StandaloneSpirv-None-04634)", inst)
                if callee not in state:
                    visit(callee, path + [callee])
            state[f] = 2
        for f in calls:
            if f not in state:
                visit(f, [f])

    def _promotable(self) -> set[int]:
        """Function/Private variables of scalar, vector or matrix type used only by whole OpLoad/OpStore:
        they are held as plain values (a Register), not in memory, which is much faster."""
        ignore = {"OpName", "OpDecorate", "OpMemberDecorate", "OpEntryPoint", "OpDecorateId"}
        cands: set[int] = set()
        for inst in self.module.instructions:
            if inst.opname == "OpVariable":
                pt = self.types.get(cast(int, inst.result_type))   # an OpVariable has a result type and id
                if pt is not None and pt.storage in ("Function", "Private") and pt.elem is not None and \
                        pt.elem.kind in ("bool", "int", "float", "vector", "matrix", *OPAQUE_VALUE_KINDS):
                    cands.add(cast(int, inst.result_id))
        bad: set[int] = set()
        for inst in self.module.instructions:
            if inst.opname in ignore:
                continue
            for i, o in enumerate(inst.operands):
                if (o.kind.startswith("Id") and o.value in cands
                        and not (i == 0 and inst.opname in ("OpLoad", "OpStore"))):
                    bad.add(cast(int, o.value))   # one of cands
        return cands - bad

    def _type_of(self, inst: Instruction, id_: int, what: str) -> Type:
        """The type an operand of a type declaration names."""
        t = self.types.get(id_)
        if t is None:
            d = self.defs.get(id_)
            why = ("is not defined" if d is None else "is not a type" if not d.opname.startswith("OpType")
                   else "is declared after its use" if d.index > inst.index
                   else "is a type the interpreter does not model")
            raise self.error(f"{what} {self.name_of(id_)} {why}", inst)
        return t

    def _type(self, inst: Instruction) -> None:
        op, ops, tid = inst.opname, inst.operands, cast(int, inst.result_id)   # a type declaration has a result id
        t = Type(tid, cast(str, TYPE_KINDS[op]), opname=op)   # only the kinds the interpreter models come here
        if op == "OpTypeInt":
            t.width, t.signed = ops[0].as_int, bool(ops[1].value)
            if t.width not in INT_WIDTHS:
                raise self.error(f"integer width {t.width} is not supported "
                                 f"(widths: {', '.join(map(str, INT_WIDTHS))})",
                                 inst)
        elif op == "OpTypeFloat":
            t.width = ops[0].as_int
            if len(ops) > 1:
                enc = t.extra["encoding"] = enum_name("FPEncoding", ops[1].as_int)
                fmt = ENCODED_FLOATS.get(enc)
                # an encoding of another width (a module run with --no-validate): refused here, located,
                # before any buffer of it is sized
                if fmt is None or 1 + sum(FLOAT_FORMATS[fmt]) != t.width:
                    raise self.error(f"{t.width}-bit floats with encoding {enc} are not supported by the "
                                     "interpreter", inst)
            elif t.width not in FLOAT_WIDTHS:
                raise self.error(f"float width {t.width} is not supported (widths: "
                                 f"{', '.join(map(str, FLOAT_WIDTHS))}, or an FPEncoding)", inst)
        elif op in ("OpTypeVector", "OpTypeMatrix"):
            t.elem, t.count = self._type_of(inst, ops[0].as_int, "component type"), ops[1].as_int
            # what validation refuses and the interpreter cannot size (a module run with --no-validate)
            allowed = ("bool", "int", "float") if op == "OpTypeVector" else ("vector",)
            if t.elem.kind not in allowed or t.count < 2:
                raise self.error(f"{TYPE_KINDS[op]} of {t.count} x {t.elem.describe()}: the components must be "
                                 f"{' or '.join(allowed)} and at least 2", inst)
        elif op == "OpTypeArray":
            t.elem = self._type_of(inst, ops[0].as_int, "element type")
            n = self.defs.get(ops[1].as_int)
            if n is None or n.opname not in CONSTANT_OPS or n.index > inst.index:
                raise self.error(f"array length {self.name_of(ops[1].as_int)} is not a constant declared before "
                                 f"the array", inst)
            t.extra["length_id"] = ops[1].value
        elif op == "OpTypeRuntimeArray":
            t.elem = self._type_of(inst, ops[0].as_int, "element type")
        elif op == "OpTypeStruct":
            t.extra["member_ids"] = [o.value for o in ops]
        elif op == "OpTypePointer":
            t.storage = enum_name("StorageClass", ops[0].as_int)
            t.extra["pointee_id"] = ops[1].value
        elif op == "OpTypeFunction":
            t.extra["ids"] = [o.value for o in ops]
        elif t.kind == "coopmat":
            t.extra["operand_ids"] = [o.value for o in ops]
            t.elem = self._type_of(inst, ops[0].as_int, "component type")
        elif t.kind in ("tensor_layout", "tensor_view"):
            t.extra["operand_ids"] = [o.value for o in ops]
        self.types[tid] = t

    def _finish_types(self) -> None:
        """Resolve forward references (pointers to structs declared later) and decorations."""
        for tid, t in self.types.items():
            t.name = self.names.get(tid, "")
            dec = self.decorations.get(tid, {})
            if "ArrayStride" in dec:
                t.stride = dec["ArrayStride"][0]
            t.block = "Block" in dec or "BufferBlock" in dec
            if t.kind == "struct":
                t.members = [self._type_of(self.defs[tid], i, "member type") for i in t.extra["member_ids"]]
                md = self.member_decorations.get(tid, {})
                n = len(t.members)
                t.offsets = [md.get(i, {}).get("Offset", [None])[0] for i in range(n)]
                t.mat_strides = [md.get(i, {}).get("MatrixStride", [None])[0] for i in range(n)]
                t.row_major = ["RowMajor" in md.get(i, {}) for i in range(n)]
                names = self.member_names.get(tid, {})
                t.member_names = [names.get(i, f"m{i}") for i in range(n)]
            elif t.kind == "pointer":
                t.elem = self.types.get(t.extra["pointee_id"])
                d = self.defs.get(t.extra["pointee_id"])
                if t.elem is None and (d is None or not d.opname.startswith("OpType")):
                    raise self.error(f"pointee type {self.name_of(t.extra['pointee_id'])} is "
                                     f"{'not a type' if d is not None else 'not defined'}", self.defs[tid])
            elif t.kind == "function":
                ids = t.extra["ids"]
                t.elem = self._type_of(self.defs[tid], ids[0], "return type")
                t.members = [self._type_of(self.defs[tid], i, "parameter type") for i in ids[1:]]

    def source_note(self, inst: Instruction) -> str | None:
        """'file:line: text' of the high-level source (OpLine) an instruction came from, if known."""
        where = self.lines.get(inst.index)
        if where is None:
            return None
        text = self.sources.get(where[0])
        src = ""
        if text:
            lines = text.split("\n")
            if 0 < where[1] <= len(lines):
                src = ": " + lines[where[1] - 1].strip()
        return f"from {where[0]}:{where[1]}{src}"

    def builtin_of(self, id_: int) -> str | None:
        b = self.decorations.get(id_, {}).get("BuiltIn")
        return enum_name("BuiltIn", b[0]) if b else None

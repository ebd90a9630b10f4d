"""A module prepared for execution: types, decorations, names, functions split into blocks."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic, SpvError
from ..module import Instruction, Module
from ..spirv_grammar import load as load_grammar
from .types import Type

TYPE_KINDS = {
    "OpTypeVoid": "void", "OpTypeBool": "bool", "OpTypeInt": "int", "OpTypeFloat": "float",
    "OpTypeVector": "vector", "OpTypeMatrix": "matrix", "OpTypeArray": "array",
    "OpTypeRuntimeArray": "runtime_array", "OpTypeStruct": "struct", "OpTypePointer": "pointer",
    "OpTypeForwardPointer": None, "OpTypeFunction": "function",
    "OpTypeCooperativeMatrixNV": "coopmat", "OpTypeCooperativeMatrixKHR": "coopmat",
}


def enum_name(kind: str, value: int) -> str:
    e = load_grammar().operand_kinds[kind].by_value.get(value)
    return e.name if e else str(value)


@dataclass
class Block:
    label: int
    label_inst: Instruction
    phis: list[Instruction] = field(default_factory=list)
    body: list[Instruction] = field(default_factory=list)
    merge: Instruction | None = None
    term: Instruction | None = None


@dataclass
class Function:
    id: int
    inst: Instruction
    params: list[Instruction] = field(default_factory=list)
    blocks: dict[int, Block] = field(default_factory=dict)
    entry: int = 0
    variables: list[Instruction] = field(default_factory=list)


class Program:
    def __init__(self, module: Module):
        self.module = module
        self.source = module.source
        self.names: dict[int, str] = {}
        self.member_names: dict[int, dict[int, str]] = defaultdict(dict)
        self.decorations: dict[int, dict[str, list]] = defaultdict(dict)
        self.member_decorations: dict[int, dict[int, dict[str, list]]] = defaultdict(lambda: defaultdict(dict))
        self.types: dict[int, Type] = {}
        self.defs: dict[int, Instruction] = {}
        self.globals: list[Instruction] = []     # constants, spec constants, undefs, variables in order
        self.functions: dict[int, Function] = {}
        self.entry_points: list[tuple[str, int, str, list[int]]] = []
        self.exec_modes: dict[int, list[tuple[str, list]]] = defaultdict(list)
        self.ext_imports: dict[int, str] = {}
        self.strings: dict[int, str] = {}
        self.sources: dict[str, str] = {}              # file name -> text (OpSource from glslang -g)
        self.lines: dict[int, tuple[str, int]] = {}    # instruction index -> (file, line) from OpLine
        self._scan()

    # ---- diagnostics ------------------------------------------------------
    def error(self, message: str, inst: Instruction | None = None, notes=None) -> SpvError:
        return SpvError(Diagnostic("error", message, inst.span if inst else None, notes=notes or [],
                                   source=self.source))

    def name_of(self, id_: int) -> str:
        return self.names.get(id_) or self.module.id_names.get(id_) or f"%{id_}"

    # ---- scanning ---------------------------------------------------------
    def _scan(self) -> None:
        insts = self.module.instructions
        fn: Function | None = None
        blk: Block | None = None
        line: tuple[str, int] | None = None
        for inst in insts:
            op = inst.opname
            ops = inst.operands
            if op == "OpString":
                self.strings[inst.result_id] = ops[0].value
            elif op == "OpSource" and len(ops) > 3:
                self.sources[self.strings.get(ops[2].value, "")] = ops[3].value
            elif op == "OpLine":
                line = (self.strings.get(ops[0].value, "?"), ops[1].value)
            elif op in ("OpNoLine", "OpFunctionEnd"):
                line = None
            if line is not None:
                self.lines[inst.index] = line
            if op in ("OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue"):
                line = None  # OpLine reaches the end of its block
            if inst.result_id is not None:
                self.defs[inst.result_id] = inst
            if op == "OpName":
                self.names[ops[0].value] = ops[1].value
            elif op == "OpMemberName":
                self.member_names[ops[0].value][ops[1].value] = ops[2].value
            elif op in ("OpDecorate", "OpDecorateId"):
                self.decorations[ops[0].value][enum_name("Decoration", ops[1].value)] = [o.value for o in ops[2:]]
            elif op == "OpMemberDecorate":
                self.member_decorations[ops[0].value][ops[1].value][enum_name("Decoration", ops[2].value)] = \
                    [o.value for o in ops[3:]]
            elif op == "OpEntryPoint":
                self.entry_points.append((ops[2].value, ops[1].value, enum_name("ExecutionModel", ops[0].value),
                                          [o.value for o in ops[3:]]))
            elif op in ("OpExecutionMode", "OpExecutionModeId"):
                self.exec_modes[ops[0].value].append((enum_name("ExecutionMode", ops[1].value),
                                                      [o.value for o in ops[2:]]))
            elif op == "OpExtInstImport":
                self.ext_imports[inst.result_id] = ops[0].value
            elif op in TYPE_KINDS:
                if TYPE_KINDS[op]:
                    self._type(inst)
            elif op == "OpFunction":
                fn = Function(inst.result_id, inst)
                self.functions[inst.result_id] = fn
            elif op == "OpFunctionParameter" and fn is not None:
                fn.params.append(inst)
            elif op == "OpFunctionEnd":
                fn, blk = None, None
            elif fn is None:
                if inst.result_id is not None and op not in ("OpString",):
                    self.globals.append(inst)
            elif op == "OpLabel":
                blk = Block(inst.result_id, inst)
                if not fn.blocks:
                    fn.entry = inst.result_id
                fn.blocks[inst.result_id] = blk
            elif blk is None:
                continue
            elif op == "OpPhi":
                blk.phis.append(inst)
            elif op in ("OpSelectionMerge", "OpLoopMerge"):
                blk.merge = inst
            elif op in ("OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
                        "OpTerminateInvocation", "OpUnreachable"):
                blk.term = inst
            elif op == "OpVariable":
                fn.variables.append(inst)
            elif op in ("OpLine", "OpNoLine", "OpNop") or op.startswith("OpExtInst") and False:
                continue
            else:
                blk.body.append(inst)
        self._finish_types()
        self.registers = self._promotable()

    def _promotable(self) -> set[int]:
        """Function/Private variables of scalar, vector or matrix type used only by whole OpLoad/OpStore:
        they are held as plain values (a Register), not in memory, which is much faster."""
        ignore = {"OpName", "OpDecorate", "OpMemberDecorate", "OpEntryPoint", "OpDecorateId"}
        cands: set[int] = set()
        for inst in self.module.instructions:
            if inst.opname == "OpVariable":
                pt = self.types.get(inst.result_type)
                if pt is not None and pt.storage in ("Function", "Private") and pt.elem is not None and \
                        pt.elem.kind in ("bool", "int", "float", "vector", "matrix", "coopmat"):
                    cands.add(inst.result_id)
        bad: set[int] = set()
        for inst in self.module.instructions:
            if inst.opname in ignore:
                continue
            for i, o in enumerate(inst.operands):
                if o.kind.startswith("Id") and o.value in cands:
                    if not (i == 0 and inst.opname in ("OpLoad", "OpStore")):
                        bad.add(o.value)
        return cands - bad

    def _type(self, inst: Instruction) -> None:
        op, ops, tid = inst.opname, inst.operands, inst.result_id
        t = Type(tid, TYPE_KINDS[op], opname=op)
        if op == "OpTypeInt":
            t.width, t.signed = ops[0].value, bool(ops[1].value)
        elif op == "OpTypeFloat":
            t.width = ops[0].value
            if len(ops) > 1:
                t.extra["encoding"] = enum_name("FPEncoding", ops[1].value)
        elif op in ("OpTypeVector", "OpTypeMatrix"):
            t.elem, t.count = self.types[ops[0].value], ops[1].value
        elif op == "OpTypeArray":
            t.elem = self.types[ops[0].value]
            t.extra["length_id"] = ops[1].value
        elif op == "OpTypeRuntimeArray":
            t.elem = self.types[ops[0].value]
        elif op == "OpTypeStruct":
            t.extra["member_ids"] = [o.value for o in ops]
        elif op == "OpTypePointer":
            t.storage = enum_name("StorageClass", ops[0].value)
            t.extra["pointee_id"] = ops[1].value
        elif op == "OpTypeFunction":
            t.extra["ids"] = [o.value for o in ops]
        elif t.kind == "coopmat":
            t.extra["operand_ids"] = [o.value for o in ops]
            t.elem = self.types.get(ops[0].value)
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
                t.members = [self.types[i] for i in t.extra["member_ids"]]
                md = self.member_decorations.get(tid, {})
                n = len(t.members)
                t.offsets = [md.get(i, {}).get("Offset", [None])[0] for i in range(n)]
                t.mat_strides = [md.get(i, {}).get("MatrixStride", [None])[0] for i in range(n)]
                t.row_major = ["RowMajor" in md.get(i, {}) for i in range(n)]
                names = self.member_names.get(tid, {})
                t.member_names = [names.get(i, f"m{i}") for i in range(n)]
            elif t.kind == "pointer":
                t.elem = self.types.get(t.extra["pointee_id"])
            elif t.kind == "function":
                ids = t.extra["ids"]
                t.elem = self.types.get(ids[0])
                t.members = [self.types[i] for i in ids[1:]]

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

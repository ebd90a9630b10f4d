"""Module -> SPIR-V assembly text, identical to what spirv-dis (SPIRV-Tools 2025.5) prints.

Friendly names follow SPIRV-Tools' FriendlyNameMapper: OpName strings first, then
built-in variables, then names derived from types and constants (`%uint`,
`%_ptr_StorageBuffer_float`, `%uint_16`, ...), made unique with `_0`, `_1`, ...
"""
from __future__ import annotations

import functools
import re
from typing import cast

from .reader import _encoding, numeric_type
from ..core.literals import format_float
from .reader import IdsOnlyInstruction
from ..core.module import Header, Instruction, Module, Operand
from ..core.spirv_grammar import grammar_dir, load as load_grammar


# BuiltIn decoration -> friendly name (SPIRV-Tools' SaveBuiltInName); others get none from BuiltIn.
_BUILTIN_NAMES = {
    "Position": "gl_Position", "PointSize": "gl_PointSize", "ClipDistance": "gl_ClipDistance",
    "CullDistance": "gl_CullDistance", "VertexId": "gl_VertexID", "InstanceId": "gl_InstanceID",
    "PrimitiveId": "gl_PrimitiveID", "InvocationId": "gl_InvocationID", "Layer": "gl_Layer",
    "ViewportIndex": "gl_ViewportIndex", "TessLevelOuter": "gl_TessLevelOuter",
    "TessLevelInner": "gl_TessLevelInner", "TessCoord": "gl_TessCoord", "PatchVertices": "gl_PatchVertices",
    "FragCoord": "gl_FragCoord", "PointCoord": "gl_PointCoord", "FrontFacing": "gl_FrontFacing",
    "SampleId": "gl_SampleID", "SamplePosition": "gl_SamplePosition", "SampleMask": "gl_SampleMask",
    "FragDepth": "gl_FragDepth", "HelperInvocation": "gl_HelperInvocation",
    "NumWorkgroups": "gl_NumWorkGroups", "WorkgroupSize": "gl_WorkGroupSize", "WorkgroupId": "gl_WorkGroupID",
    "LocalInvocationId": "gl_LocalInvocationID", "GlobalInvocationId": "gl_GlobalInvocationID",
    "LocalInvocationIndex": "gl_LocalInvocationIndex", "WorkDim": "WorkDim", "GlobalSize": "GlobalSize",
    "EnqueuedWorkgroupSize": "EnqueuedWorkgroupSize", "GlobalOffset": "GlobalOffset",
    "GlobalLinearId": "GlobalLinearId", "SubgroupSize": "SubgroupSize", "SubgroupMaxSize": "SubgroupMaxSize",
    "NumSubgroups": "NumSubgroups", "NumEnqueuedSubgroups": "NumEnqueuedSubgroups", "SubgroupId": "SubgroupId",
    "SubgroupLocalInvocationId": "SubgroupLocalInvocationId", "VertexIndex": "gl_VertexIndex",
    "InstanceIndex": "gl_InstanceIndex", "BaseInstance": "gl_BaseInstance",
    "SubgroupEqMask": "SubgroupEqMaskKHR", "SubgroupGeMask": "SubgroupGeMaskKHR",
    "SubgroupGtMask": "SubgroupGtMaskKHR", "SubgroupLeMask": "SubgroupLeMaskKHR",
    "SubgroupLtMask": "SubgroupLtMaskKHR",
}
# The instructions that give names (everything else is named by its number).
_NAMING_OPCODES = frozenset({"OpName", "OpDecorate", "OpTypeInt", "OpTypeFloat", "OpTypeVector", "OpTypeMatrix",
                             "OpTypeArray", "OpTypeRuntimeArray", "OpTypePointer", "OpTypeUntypedPointerKHR",
                             "OpTypePipe", "OpTypeOpaque", "OpTypeStruct", "OpConstant",
                             "OpTypeVoid", "OpTypeBool", "OpTypeEvent", "OpTypeDeviceEvent", "OpTypeReserveId",
                             "OpTypeQueue", "OpTypePipeStorage", "OpTypeNamedBarrier", "OpConstantTrue",
                             "OpConstantFalse"})
_INT_ROOTS = {8: "char", 16: "short", 32: "int", 64: "long"}
_FLOAT_NAMES = {16: "half", 32: "float", 64: "double"}
_FLOAT_ENCODING_NAMES: dict[str | None, str] = {"BFloat16KHR": "bfloat16",
                                                "Float8E4M3EXT": "fp8e4m3", "Float8E5M2EXT": "fp8e5m2"}
_FIXED_TYPE_NAMES = {"OpTypeVoid": "void", "OpTypeBool": "bool", "OpTypeEvent": "Event",
                     "OpTypeDeviceEvent": "DeviceEvent", "OpTypeReserveId": "ReserveId",
                     "OpTypeQueue": "Queue", "OpTypePipeStorage": "PipeStorage",
                     "OpTypeNamedBarrier": "NamedBarrier", "OpConstantTrue": "true",
                     "OpConstantFalse": "false"}


@functools.lru_cache(maxsize=1)
def _generator_names() -> dict[int, str]:
    """Tool ids -> 'Vendor Tool' from SPIRV-Headers' spir-v.xml (as SPIRV-Tools embeds it)."""
    try:
        xml = (grammar_dir().parent / "spir-v.xml").read_text()
    except OSError:
        return {}
    # 'Vendor Tool', or the vendor alone where no tool is named ('Khronos' for 0, as spirv-dis
    # prints it); ids not listed print as Unknown(N)
    return {int(m.group(1)): m.group(2) + (f" {m.group(4)}" if m.group(4) is not None else "")
            for m in re.finditer(r'<id\s+value="(\d+)"\s+vendor="([^"]*)"(\s+tool="([^"]*)")?', xml)}


def generator_name(word: int) -> str:
    tool = word >> 16
    return _generator_names().get(tool, f"Unknown({tool})")


_INVALID_NAME_CHAR = re.compile(r"[^A-Za-z0-9_]")


def _sanitize(name: str) -> str:
    """Bytes other than [A-Za-z0-9_] become '_' (SPIRV-Tools' Sanitize walks the UTF-8 bytes: "é" is '__')."""
    if not name:
        return "_"
    return _INVALID_NAME_CHAR.sub("_", name.encode("utf-8", "surrogateescape").decode("latin-1"))


class FriendlyNames:
    """SPIRV-Tools' FriendlyNameMapper, instruction by instruction in binary order."""

    def __init__(self, module: Module):
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        g = load_grammar()
        self.storage = g.operand_kinds["StorageClass"].by_value
        self.access = g.operand_kinds["AccessQualifier"].by_value
        self.builtins = g.operand_kinds["BuiltIn"].by_value
        self.builtin_decoration = g.operand_kinds["Decoration"].by_name["BuiltIn"].value
        self.numeric: dict[int | None, tuple[str, int, bool] | None] = {}
        for inst in module.instructions:
            self.visit(inst)

    def save(self, id_: int, suggested: str) -> None:
        if id_ in self.names:
            return
        base = _sanitize(suggested)
        name = base
        if name in self.used:
            index = 0
            while f"{base}_{index}" in self.used:
                index += 1
            name = f"{base}_{index}"
        self.used.add(name)
        self.names[id_] = name

    def name(self, id_: int) -> str:
        return self.names.get(id_, str(id_))

    def visit(self, inst: Instruction) -> None:
        op = inst.opname
        rid = inst.result_id
        if op not in _NAMING_OPCODES:
            if rid is not None:
                self.save(rid, str(rid))
            return
        ops = inst.operands
        if op == "OpName" and len(ops) >= 2:
            self.save(ops[0].as_int, ops[1].as_str)
            return
        if op == "OpDecorate" and len(ops) >= 3 and ops[1].value == self.builtin_decoration:
            e = self.builtins.get(ops[2].as_int)
            if e is not None:
                for n in (e.name, *e.aliases):
                    if n in _BUILTIN_NAMES:
                        self.save(ops[0].as_int, _BUILTIN_NAMES[n])
                        break
            return
        if rid is None:
            return
        if op in _FIXED_TYPE_NAMES:
            self.save(rid, _FIXED_TYPE_NAMES[op])
        elif op == "OpTypeInt":
            width, signed = ops[0].as_int, ops[1].value
            self.numeric[rid] = numeric_type(inst)
            root = _INT_ROOTS.get(width)
            sign = ""
            if root is None:
                root, sign = str(width), "i"
            if signed == 0:
                sign = "u"
            self.save(rid, sign + root)
        elif op == "OpTypeFloat":
            width = ops[0].as_int
            encoding = _encoding(inst)
            self.numeric[rid] = numeric_type(inst)
            self.save(rid, _FLOAT_ENCODING_NAMES.get(encoding) or _FLOAT_NAMES.get(width, f"fp{width}"))
        elif op == "OpTypeVector":
            self.save(rid, f"v{ops[1].value}{self.name(ops[0].as_int)}")
        elif op == "OpTypeMatrix":
            self.save(rid, f"mat{ops[1].value}{self.name(ops[0].as_int)}")
        elif op == "OpTypeArray":
            self.save(rid, f"_arr_{self.name(ops[0].as_int)}_{self.name(ops[1].as_int)}")
        elif op == "OpTypeRuntimeArray":
            self.save(rid, f"_runtimearr_{self.name(ops[0].as_int)}")
        elif op == "OpTypePointer":
            sc = self.storage.get(ops[0].as_int)
            self.save(rid, f"_ptr_{sc.name if sc else ops[0].value}_{self.name(ops[1].as_int)}")
        elif op == "OpTypeUntypedPointerKHR":
            sc = self.storage.get(ops[0].as_int)
            self.save(rid, f"_ptr_{sc.name if sc else ops[0].value}")
        elif op == "OpTypePipe":
            aq = self.access.get(ops[0].as_int)
            self.save(rid, f"Pipe{aq.name if aq else ops[0].value}")
        elif op == "OpTypeOpaque":
            self.save(rid, "Opaque_" + _sanitize(ops[0].as_str))
        elif op == "OpTypeStruct":
            self.save(rid, f"_struct_{rid}")
        elif op == "OpConstant" and ops:
            text = format_number(ops[0], self.numeric.get(inst.result_type)).replace("-", "n")
            self.save(rid, f"{self.name(cast(int, inst.result_type))}_{text}")   # a constant has a type
        else:
            self.save(rid, str(rid))


def format_number(o: Operand, ntype: tuple[str, int, bool] | None) -> str:
    """A literal number as spirv-dis prints it, given the type it belongs to: from its words, as
    SPIRV-Tools does (measured): one word is an int32/uint32 (never masked to a narrower width:
    'OpTypeInt 3 0' with 0xffffffff prints 4294967295), a half, a float, or bf16/fp8 by its
    encoding (masked to 16 or 8 bits); two words an int64/uint64 or a double, whatever the width;
    other widths (float 8 without an encoding, 96-bit types) print nothing."""
    if ntype is None:
        return str(o.value)
    kind, width, signed = ntype
    words = o.words
    if len(words) == 1:
        w = words[0]
        if kind == "int":
            return str(w - (1 << 32) if signed and w >> 31 else w)
        if kind == "float":
            return format_float(w & 0xFFFF, 16) if width == 16 else format_float(w, 32) if width == 32 else ""
        return format_float(w & (0xFFFF if kind == "bf16" else 0xFF), width, kind)
    if len(words) == 2:
        v = words[0] | words[1] << 32
        if kind == "int":
            return str(v - (1 << 64) if signed and v >> 63 else v)
        return format_float(v, 64)
    return ""


def _escape(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _IdTexts(dict):
    """id -> '%name'; an id without a friendly name (or with --raw-id) prints as '%<number>'."""

    def __missing__(self, n: int) -> str:
        return f"%{n}"


class Disassembler:
    def __init__(self, module: Module, raw_ids: bool, id_texts: _IdTexts | None = None):
        """id_texts: id -> '%name' where the caller worked the names out (disassembler_fast)."""
        self.module = module
        self.g = load_grammar()
        if id_texts is None:
            names = None if raw_ids else FriendlyNames(module)
            # id -> '%name', made once: ids are most of what a disassembly prints
            id_texts = _IdTexts({} if names is None else {i: "%" + n for i, n in names.names.items()})
        self.id_texts = id_texts
        self.numeric: dict[int | None, tuple[str, int, bool] | None] = {}
        self.value_types: dict[int, int] = {}
        self.ext_sets: dict[int | None, str] = {}

    def id(self, n: int) -> str:
        return self.id_texts[n]

    def operand(self, inst: Instruction, o: Operand) -> str:
        kind = o.kind
        if kind.startswith("Id"):
            return self.id(o.value)  # type: ignore[arg-type]  # hot path: an Id kind holds an int (grammar), no per-operand check
        if kind == "LiteralString":
            return _escape(o.value)  # type: ignore[arg-type]  # hot path: a LiteralString holds a str
        if kind == "LiteralContextDependentNumber":
            return format_number(o, self.numeric.get(inst.result_type))
        if kind == "LiteralExtInstInteger":
            set_name = self.ext_sets.get(inst.operands[0].value)  # type: ignore[arg-type]  # hot path: an Id kind holds an int (grammar), no per-operand check
            ext = self.g.ext_set(set_name) if set_name else None
            spec = ext.by_opcode.get(o.value) if ext else None  # type: ignore[arg-type]  # hot path: an int literal
            return spec.opname if spec else str(o.value)
        if kind == "LiteralSpecConstantOpInteger":
            spec = self.g.by_opcode.get(o.value)  # type: ignore[arg-type]  # hot path: an int literal
            return spec.opname[2:] if spec else str(o.value)
        if kind in ("LiteralInteger", "LiteralFloat", "Raw"):
            if kind == "LiteralInteger" and inst.opname == "OpSwitch" and len(o.words) >= 1:
                sel_type = self.value_types.get(inst.operands[0].as_int)   # once per OpSwitch case
                return format_number(o, self.numeric.get(sel_type))
            if kind == "LiteralFloat":
                return format_float(o.value, 32)  # type: ignore[arg-type]  # hot path: LiteralFloat holds its word
            return str(o.value)
        okind = self.g.operand_kinds.get(kind)
        if okind is None:
            set_name = (self.ext_sets.get(inst.operands[0].value)  # type: ignore[arg-type]  # hot path: an Id
                        if inst.opname.startswith("OpExtInst") else None)
            ext = self.g.ext_set(set_name) if set_name else None
            okind = ext.operand_kinds.get(kind) if ext else None
        if okind is None:
            return str(o.value)
        if okind.category == "ValueEnum":
            e = okind.by_value.get(o.value)  # type: ignore[arg-type]  # hot path: an enumerant is an int
            return e.name if e else str(o.value)
        if okind.category == "BitEnum":
            if o.value == 0:
                e = okind.by_value.get(0)
                return e.name if e else "0"
            parts = []
            mask: int = o.value  # type: ignore[assignment]  # hot path: a mask is an int
            rest = mask
            for bit in range(32):
                if mask >> bit & 1:
                    e = okind.by_value.get(1 << bit)
                    if e is not None:
                        parts.append(e.name)
                        rest &= ~(1 << bit)
            if rest:
                parts.append(f"0x{rest:x}")
            return "|".join(parts)
        return str(o.value)

    def instruction(self, inst: Instruction, indent: bool) -> str:
        parts = []
        if inst.result_type is not None:
            parts.append(self.id(inst.result_type))
        ids = inst.pending_ids() if type(inst) is IdsOnlyInstruction else None
        if ids is not None:
            parts.extend(map(self.id_texts.__getitem__, ids))  # from the words: no Operand objects
        else:
            parts.extend(self.operand(inst, o) for o in inst.operands)
        body = inst.opname + ("" if not parts else " " + " ".join(parts))
        self.note(inst)
        if inst.result_id is not None:
            head = self.id(inst.result_id)
            if indent:
                head = head.rjust(12)
            return f"{head} = {body}"
        return (" " * 15 + body) if indent else body

    def note(self, inst: Instruction) -> None:
        op = inst.opname
        if inst.result_type is not None and inst.result_id is not None:
            self.value_types[inst.result_id] = inst.result_type
        if op in ("OpTypeInt", "OpTypeFloat"):
            self.numeric[inst.result_id] = numeric_type(inst)
        elif op == "OpExtInstImport":
            self.ext_sets[inst.result_id] = inst.operands[0].as_str


def _check_single_definitions(module: Module) -> None:
    """spirv-dis refuses a module that defines an id twice; so do we (friendly names need one)."""
    from ..core.diagnostics import Diagnostic, Note, SpvError
    seen: dict[int, Instruction] = {}
    for inst in module.instructions:
        rid = inst.result_id
        if rid is None:
            continue
        if rid in seen:
            first = seen[rid]
            raise SpvError(Diagnostic("error", f"Id {rid} is defined more than once", inst.span,
                                      notes=[Note("first defined here", first.span)], source=module.source,
                                      instruction_index=inst.index))
        seen[rid] = inst


def header_lines(h: Header) -> list[str]:
    """spirv-dis's header comment."""
    major, minor = h.version_tuple
    return ["; SPIR-V", f"; Version: {major}.{minor}",
            f"; Generator: {generator_name(h.generator)}; {h.generator & 0xFFFF}",
            f"; Bound: {h.bound}", f"; Schema: {h.schema}"]


def _has_raw_words(module: Module) -> bool:
    return any(o.kind == "Raw" for inst in module.instructions if type(inst) is not IdsOnlyInstruction
               for o in inst.operands)


def disassemble(module: Module, raw_ids: bool = False, header: bool = True, indent: bool = True) -> str:
    """The module as spirv-dis prints it (default flags), or with --raw-id/--no-header/--no-indent."""
    if _has_raw_words(module):
        # `!N` words from the assembler stand where the grammar wants other operands (a string, an id): the
        # words are what spirv-dis would read, so decode them as it would (a malformed result: SpvError)
        from .reader import read_binary
        module = read_binary(module.to_bytes(), module.source if isinstance(module.source, str) else "<module>")
    _check_single_definitions(module)
    d = Disassembler(module, raw_ids)
    lines = header_lines(module.header) if header else []
    texts = d.id_texts
    value_types = d.value_types
    append = lines.append
    for inst in module.instructions:
        pending = inst._pending if type(inst) is IdsOnlyInstruction else None
        if pending is None:
            append(d.instruction(inst, indent))
            continue
        # an instruction of ids only, printed straight from its words (most of a large module)
        rt, rid = inst.result_type, inst.result_id
        parts = [texts[rt]] if rt is not None else []
        parts.extend(map(texts.__getitem__, pending[1]))
        body = inst.opname + " " + " ".join(parts) if parts else inst.opname
        if rid is None:
            append(" " * 15 + body if indent else body)
            continue
        if rt is not None:
            value_types[rid] = rt
        head = texts[rid]
        append(f"{head.rjust(12) if indent else head} = {body}")
    return "\n".join(lines) + "\n"


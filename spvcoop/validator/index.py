"""The module index the rules read: definitions, types, constants, decorations, capabilities.

Built in one pass over the instructions (dicts only, nothing quadratic). Constant
values are evaluated lazily and memoised, including spec constants (default value,
or the value given with --spec-const) and OpSpecConstantOp where it folds.
"""
from __future__ import annotations

from ..core.facts import ModuleFacts
from ..core.literals import ENCODED_FLOATS
from ..core.module import Instruction, Module
from ..core.records import FrozenRecord, Record
from ..core.spirv_grammar import load as load_grammar
from .fold import FOLDS, MAX_WIDTH, Bits, bits_of, fold, interpret

COOPMAT_TYPES = ("OpTypeCooperativeMatrixNV", "OpTypeCooperativeMatrixKHR")
TENSOR_TYPES = ("OpTypeTensorLayoutNV", "OpTypeTensorViewNV")  # SPV_NV_tensor_addressing
CONSTANT_OPS = frozenset({
    "OpConstant", "OpConstantNull", "OpConstantTrue", "OpConstantFalse", "OpConstantComposite",
    "OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstantComposite",
    "OpSpecConstantOp", "OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT",
    "OpConstantSampler", "OpConstantFunctionPointerINTEL", "OpConstantSizeOfEXT",
})


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Value(FrozenRecord):
    """An evaluated constant. `spec` is True when it depends on a spec constant that
    was not pinned with --spec-const (so it may change at specialization time)."""
    __slots__ = _fields = ("value", "spec")
    value: int
    spec: bool

    def __init__(self, value: int, spec: bool = False) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "spec", spec)

    def __str__(self) -> str:
        return str(self.value)


class CoopMat(Record):
    """A cooperative-matrix type, with its operands evaluated where possible."""
    __slots__ = _fields = ("id", "flavour", "inst", "component", "scope", "rows", "cols", "use")
    id: int
    flavour: str             # "NV" or "KHR"
    inst: Instruction
    component: int           # component type id
    scope: Value | None
    rows: Value | None
    cols: Value | None
    use: Value | None        # None for NV

    def __init__(self, id: int, flavour: str, inst: Instruction, component: int, scope: Value | None,
                 rows: Value | None, cols: Value | None, use: Value | None) -> None:
        self.id = id
        self.flavour = flavour
        self.inst = inst
        self.component = component
        self.scope = scope
        self.rows = rows
        self.cols = cols
        self.use = use

    def shape(self) -> str:
        r = self.rows.value if self.rows else "?"
        c = self.cols.value if self.cols else "?"
        return f"{r}x{c}"


class Tensor(Record):
    """An OpTypeTensorLayoutNV or OpTypeTensorViewNV type, its operands evaluated where possible.
    Layouts have `clamp`; views `has_dims` and `perm` (one Value or None per permutation operand)."""
    __slots__ = _fields = ("id", "kind", "inst", "dim", "clamp", "has_dims", "perm")
    id: int
    kind: str                # "layout" or "view"
    inst: Instruction
    dim: Value | None
    clamp: Value | None
    has_dims: Value | None
    perm: tuple

    def __init__(self, id: int, kind: str, inst: Instruction, dim: Value | None, clamp: Value | None = None,
                 has_dims: Value | None = None, perm: tuple = ()) -> None:
        self.id = id
        self.kind = kind
        self.inst = inst
        self.dim = dim
        self.clamp = clamp
        self.has_dims = has_dims
        self.perm = perm


# CooperativeMatrixUse value -> name without the KHR suffix ("MatrixA", ...), from the grammar
USE_NAMES = {e.value: e.name.removesuffix("KHR")
             for e in load_grammar().operand_kinds["CooperativeMatrixUse"].enumerants}
USE_VALUES = {name: value for value, name in USE_NAMES.items()}

# What code reading a malformed module may raise: instructions with missing or absurd operands
# (modules built in code; the assembler and binary reader never make them). Rules, the name
# mapper and the instruction renderer catch exactly these and report `structure.malformed`
# (or fall back to plain numbers); anything else is a bug and propagates.
MALFORMED = (IndexError, AttributeError, TypeError, KeyError, ValueError, RecursionError)


class ModuleIndex:
    """Everything the rules look up, keyed by id."""

    def __init__(self, module: Module, target_env: str = "universal",
                 spec_constants: dict[int, int] | None = None) -> None:
        self.module = module
        self.grammar = load_grammar()
        self.target_env = target_env
        self.vulkan = target_env.startswith("vulkan")
        self.spec_overrides = dict(spec_constants or {})
        # the facts the interpreter's Program reads too (core/facts.py: built once per module, shared)
        facts = ModuleFacts.of(module)
        self.defs: dict[int, Instruction] = facts.defs
        self.duplicates: list[tuple[Instruction, Instruction]] = facts.duplicates
        self.capabilities: dict[str, Instruction] = facts.capabilities
        self.extensions: dict[str, Instruction] = facts.extensions
        self.decorations: dict[int, list[Instruction]] = facts.decorations
        self.spec_ids: dict[int, int] = facts.spec_ids          # result id -> SpecId
        self.entry_points: list[Instruction] = facts.entry_points
        self.exec_modes: dict[int, list[Instruction]] = facts.exec_modes
        self.addressing = facts.addressing
        self.memory_model = facts.memory_model
        self.forward_pointers: set[int] = facts.forward_pointers
        self.declared_caps: set[str] = facts.declared_caps   # with the ones declared capabilities imply
        self.functions = facts.functions
        self.module_facts = facts
        self._values: dict[int, Value | None] = {}
        self._coopmats: dict[int, CoopMat | None] = {}
        self._tensors: dict[int, Tensor | None] = {}
        # names as written in the text win over OpName; of several OpNames of one id, the first
        self._names: dict[int, str] = dict(module.id_names)
        for id_, name in facts.names.items():
            self._names.setdefault(id_, name)
        self._friendly_names: dict[int, str] | None = None
        self.version = module.header.version_tuple

    # ---- capabilities -------------------------------------------------------------------------
    def has_cap(self, name: str) -> bool:
        return name in self.declared_caps

    # ---- names --------------------------------------------------------------------------------
    def name(self, id_: int | None) -> str:
        """`%name` as written in the text (or OpName), else `%<number>`."""
        if id_ is None:
            return "<none>"
        n = self._names.get(id_)
        if n is None and self.module.text is None:
            n = self._friendly(id_)
        return f"%{n}" if n else f"%{id_}"

    def _friendly(self, id_: int) -> str | None:
        """For binaries: the name spirv-dis would print (built once, only when a finding needs it)."""
        if self._friendly_names is None:
            from ..binary.disassembler import FriendlyNames
            try:
                self._friendly_names = FriendlyNames(self.module).names
            except MALFORMED:  # a module built in code with missing operands: plain numbers
                self._friendly_names = {}
        n = self._friendly_names.get(id_)
        return None if n is None or n == str(id_) else n

    def scope_name(self, v: Value | int | None) -> str:
        """`Subgroup (3)` for a scope value."""
        if v is None:
            return "?"
        n = v.value if isinstance(v, Value) else v
        e = self.grammar.operand_kinds["Scope"].by_value.get(n)
        return f"{e.name} ({n})" if e else str(n)

    # ---- types --------------------------------------------------------------------------------
    def int_type(self, type_id: int | None) -> tuple[int, bool] | None:
        """(width, signed) of an OpTypeInt."""
        t = self.defs.get(type_id) if type_id is not None else None
        if t is None or t.opname != "OpTypeInt" or len(t.operands) < 2:
            return None
        return t.operands[0].as_int, bool(t.operands[1].value)

    def scalar_kind(self, type_id: int | None) -> tuple[str, int] | None:
        """('int'|'uint'|'float'|'bool', width) of a scalar type."""
        t = self.defs.get(type_id) if type_id is not None else None
        if t is None:
            return None
        if t.opname == "OpTypeInt" and len(t.operands) >= 2:
            return ("int" if t.operands[1].value else "uint"), t.operands[0].as_int
        if t.opname == "OpTypeFloat" and t.operands:
            return "float", t.operands[0].as_int
        if t.opname == "OpTypeBool":
            return "bool", 1
        return None

    def component_name(self, type_id: int) -> str | None:
        """Profile spelling of a component type: f16, f32, bf16, e4m3, e5m2, s8, u8, s32, ..."""
        sk = self.scalar_kind(type_id)
        if sk is None:
            return None
        kind, width = sk
        if kind == "float":
            t = self.defs[type_id]
            enc = self.grammar.operand_kinds["FPEncoding"].by_value.get(t.operands[1].as_int) \
                if len(t.operands) > 1 else None
            return ENCODED_FLOATS.get(enc.name, f"f{width}") if enc else f"f{width}"
        return ("s" if kind == "int" else "u") + str(width)

    def type_text(self, type_id: int | None, _outer: frozenset[int] = frozenset()) -> str:
        """A short human description of a type, e.g. `f16 16x8 MatrixA (KHR)`, `u32`, `ptr StorageBuffer f32`.
        A type that contains itself (only in an invalid module: an id used before its definition) shows as `...`
        where it recurs; `_outer`: the types being described around this one."""
        t = self.defs.get(type_id) if type_id is not None else None
        if t is None or type_id is None:
            return "?"
        if type_id in _outer:
            return "..."
        inner = _outer | {type_id}
        sk = self.scalar_kind(type_id)
        if sk is not None:
            kind, width = sk
            if kind == "bool":
                return "bool"
            enc = ""
            if kind == "float" and len(t.operands) > 1:
                e = self.grammar.operand_kinds["FPEncoding"].by_value.get(t.operands[1].as_int)
                enc = f" {e.name}" if e else ""
            return {"int": "i", "uint": "u", "float": "f"}[kind] + str(width) + enc
        cm = self.coopmat(type_id)
        if cm is not None:
            use = f" {USE_NAMES.get(cm.use.value, f'Use {cm.use.value}')}" if cm.use else (
                " Use ?" if cm.flavour == "KHR" else "")
            return f"{self.type_text(cm.component, inner)} {cm.shape()}{use} coopmat{cm.flavour}"
        if t.opname == "OpTypeVector":
            return f"{self.type_text(t.operands[0].as_int, inner)} vec{t.operands[1].value}"
        if t.opname == "OpTypePointer":
            sc = self.grammar.operand_kinds["StorageClass"].by_value.get(t.operands[0].as_int)
            return f"ptr {sc.name if sc else t.operands[0].value} {self.type_text(t.operands[1].as_int, inner)}"
        tt = self.tensor(type_id)
        if tt is not None:
            return f"tensor {tt.kind} of {tt.dim.value if tt.dim is not None else '?'} dimensions"
        return t.opname[6:].lower()

    def value_type_text(self, value_id: int | None) -> str:
        """The type of a value as text; says so when the id is a type or has no type."""
        d = self.defs.get(value_id) if value_id is not None else None
        if d is None:
            return "undefined"
        if d.opname.startswith("OpType"):
            return f"a type ({d.opname}), not a value"
        if d.result_type is None:
            return f"{d.opname} (no value)"
        return self.type_text(d.result_type)

    def coopmat(self, type_id: int | None) -> CoopMat | None:
        """The cooperative-matrix type with that id (memoised), else None."""
        if type_id is None:
            return None
        if type_id in self._coopmats:
            return self._coopmats[type_id]
        t = self.defs.get(type_id)
        cm = None
        if t is not None and t.opname in COOPMAT_TYPES and len(t.operands) >= 4:
            ops = t.operands
            cm = CoopMat(type_id, "NV" if t.opname.endswith("NV") else "KHR", t, ops[0].as_int,
                         self.int_value(ops[1].as_int), self.int_value(ops[2].as_int),
                         self.int_value(ops[3].as_int),
                         self.int_value(ops[4].as_int) if len(ops) > 4 else None)
        self._coopmats[type_id] = cm
        return cm

    def tensor(self, type_id: int | None) -> Tensor | None:
        """The tensor layout or view type with that id (memoised), else None."""
        if type_id is None:
            return None
        if type_id in self._tensors:
            return self._tensors[type_id]
        t = self.defs.get(type_id)
        tt = None
        if t is not None and t.opname in TENSOR_TYPES and len(t.operands) >= 2:
            ops = t.operands
            if t.opname == "OpTypeTensorLayoutNV":
                tt = Tensor(type_id, "layout", t, self.int_value(ops[0].as_int), clamp=self.int_value(ops[1].as_int))
            else:
                tt = Tensor(type_id, "view", t, self.int_value(ops[0].as_int), has_dims=self.int_value(ops[1].as_int),
                            perm=tuple(self.int_value(o.as_int) for o in ops[2:]))
        self._tensors[type_id] = tt
        return tt

    def tensor_of(self, value_id: int | None) -> Tensor | None:
        inst = self.defs.get(value_id) if value_id is not None else None
        return self.tensor(inst.result_type) if inst is not None else None

    def coopmat_of(self, value_id: int | None) -> CoopMat | None:
        inst = self.defs.get(value_id) if value_id is not None else None
        return self.coopmat(inst.result_type) if inst is not None else None

    def contains_coopmat(self, type_id: int, _seen: set[int] | None = None) -> bool:
        """Whether the type is or contains (arrays, structs, vectors) a cooperative matrix."""
        seen = _seen or set()
        if type_id in seen:
            return False
        seen.add(type_id)
        t = self.defs.get(type_id)
        if t is None:
            return False
        if t.opname in COOPMAT_TYPES:
            return True
        if t.opname in ("OpTypeArray", "OpTypeRuntimeArray", "OpTypeVector", "OpTypeMatrix"):
            return self.contains_coopmat(t.operands[0].as_int, seen)
        if t.opname == "OpTypeStruct":
            return any(self.contains_coopmat(o.as_int, seen) for o in t.operands)
        return False

    # ---- constants ----------------------------------------------------------------------------
    def is_constant_inst(self, id_: int | None) -> bool:
        inst = self.defs.get(id_) if id_ is not None else None
        return inst is not None and inst.opname in CONSTANT_OPS

    def int_value(self, id_: int | None) -> Value | None:
        """The integer (or bool as 0/1) value of a constant id, when it can be evaluated: in the
        width and signedness of its type (signed types give negative values)."""
        if id_ is None:
            return None
        values = self._values
        if id_ in values:
            return values[id_]
        # Depth-first with an explicit stack: a chain of any length costs one visit per constant
        # and no Python recursion. A node is "open" once its operands are pushed; an operand that
        # is still open is its own ancestor (a cycle): it is left unevaluated, so the fold gives None.
        stack = [id_]
        open_: set[int] = set()
        while stack:
            top = stack[-1]
            if top in values:
                stack.pop()
                continue
            if top not in open_:
                open_.add(top)
                stack.extend(d for d in self._operands_to_fold(top) if d not in values and d not in open_)
                continue
            values[top] = self._eval(top)
            stack.pop()
        return values[id_]

    def _num_type(self, type_id: int | None) -> tuple[int, bool] | None:
        """(width, signed) of an integer type (bool: (1, False)) the validator can evaluate."""
        t = self.defs.get(type_id) if type_id is not None else None
        if t is None:
            return None
        if t.opname == "OpTypeBool":
            return 1, False
        it = self.int_type(type_id)
        if it is None or not isinstance(it[0], int) or not 1 <= it[0] <= MAX_WIDTH:
            return None
        return it

    def _operands_to_fold(self, id_: int) -> list[int]:
        """The ids an OpSpecConstantOp we fold reads (none for anything else)."""
        inst = self.defs.get(id_)
        if inst is None or inst.opname != "OpSpecConstantOp" or not inst.operands:
            return []
        target = self.grammar.by_opcode.get(inst.operands[0].as_int)
        if target is None or target.opname[2:] not in FOLDS:
            return []
        return [o.as_int for o in inst.operands[1:] if o.is_id]

    def _value(self, bits: int, nt: tuple[int, bool], spec: bool = False) -> Value:
        b = bits_of(bits, nt[0])
        return Value(interpret(b, nt[1]), spec)

    def _eval(self, id_: int) -> Value | None:
        """One constant, its operands already evaluated (in self._values)."""
        inst = self.defs.get(id_)
        if inst is None:
            return None
        op = inst.opname
        nt = self._num_type(inst.result_type)
        if op in ("OpConstantTrue", "OpSpecConstantTrue", "OpConstantFalse", "OpSpecConstantFalse"):
            nt = (1, False)
        if op == "OpConstant":
            return self._value(_literal(inst), nt) if nt is not None and inst.operands else None
        if op == "OpConstantNull":
            return Value(0) if self.scalar_kind(inst.result_type) else None
        if op == "OpConstantTrue":
            return Value(1)
        if op == "OpConstantFalse":
            return Value(0)
        if op in ("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse"):
            if nt is None:
                return None
            sid = self.spec_ids.get(id_)
            if sid is not None and sid in self.spec_overrides:
                given = int(self.spec_overrides[sid])
                return self._value(int(given != 0) if nt[0] == 1 else given, nt)
            if op == "OpSpecConstant":
                return self._value(_literal(inst), nt, spec=True) if inst.operands else None
            return Value(1 if op == "OpSpecConstantTrue" else 0, spec=True)
        if op == "OpSpecConstantOp":
            return self._fold(inst, nt)
        return None

    def _fold(self, inst: Instruction, nt: tuple[int, bool] | None) -> Value | None:
        if nt is None or not inst.operands:
            return None  # a result type that is not an integer or bool: not folded
        target = self.grammar.by_opcode.get(inst.operands[0].as_int)
        if target is None:
            return None
        args: list[Bits] = []
        spec = False
        for o in inst.operands[1:]:
            v = self._values.get(o.as_int) if o.is_id else None
            at = self._num_type(self.defs[o.as_int].result_type) if v is not None else None
            if v is None or at is None:
                return None
            args.append(bits_of(v.value, at[0]))
            spec = spec or v.spec
        res = fold(target.opname[2:], args, nt[0])
        return None if res is None else Value(interpret(res, nt[1]), spec)


def _literal(inst: Instruction) -> int:
    """The bit pattern an OpConstant/OpSpecConstant literal holds, from its words (low word first)."""
    words = inst.operands[0].words
    return words[0] | (words[1] << 32 if len(words) > 1 else 0)

"""OpCooperativeMatrixLoad/Store/Length (rules 1D, 1E, 1F; L7-L10, L15)."""
from __future__ import annotations

from ..core.diagnostics import Note
from ..core.module import Instruction, Operand
from ..core.records import Record
from .registry import Context, rule

NV = "SPV_NV_cooperative_matrix"
KHR = "SPV_KHR_cooperative_matrix"
LOADS = ("OpCooperativeMatrixLoadNV", "OpCooperativeMatrixLoadKHR")
STORES = ("OpCooperativeMatrixStoreNV", "OpCooperativeMatrixStoreKHR")
LOAD_STORE = LOADS + STORES
LENGTHS = ("OpCooperativeMatrixLengthNV", "OpCooperativeMatrixLengthKHR")

LOGICAL_POINTER_OPS = frozenset({
    "OpVariable", "OpAccessChain", "OpInBoundsAccessChain", "OpFunctionParameter", "OpImageTexelPointer",
    "OpCopyObject", "OpUntypedVariableKHR", "OpUntypedAccessChainKHR", "OpUntypedInBoundsAccessChainKHR",
    "OpRawAccessChainNV",
})
VARIABLE_POINTER_OPS = frozenset({"OpSelect", "OpPhi", "OpFunctionCall", "OpPtrAccessChain",
                                  "OpUntypedPtrAccessChainKHR", "OpLoad", "OpConstantNull"})
LOADSTORE_CLASSES = ("Workgroup", "StorageBuffer", "PhysicalStorageBuffer")


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Access(Record):
    """The operands of one coopmat load/store, by meaning."""
    __slots__ = _fields = ("inst", "flavour", "is_load", "pointer", "obj", "stride", "layout", "mask", "mask_params")
    inst: Instruction
    flavour: str
    is_load: bool
    pointer: Operand
    obj: Operand | None          # store only
    stride: Operand | None
    layout: Operand | None       # NV: ColumnMajor; KHR: MemoryLayout
    mask: Operand | None         # MemoryAccess mask
    mask_params: list[Operand]

    def __init__(self, inst: Instruction, flavour: str, is_load: bool, pointer: Operand, obj: Operand | None,
                 stride: Operand | None, layout: Operand | None, mask: Operand | None,
                 mask_params: list[Operand]) -> None:
        self.inst = inst
        self.flavour = flavour
        self.is_load = is_load
        self.pointer = pointer
        self.obj = obj
        self.stride = stride
        self.layout = layout
        self.mask = mask
        self.mask_params = mask_params


def parse_access(inst: Instruction) -> Access | None:
    ops = inst.operands
    is_load = inst.opname in LOADS
    flavour = "NV" if inst.opname.endswith("NV") else "KHR"
    fixed = ops
    mask_i = next((i for i, o in enumerate(ops) if o.kind == "MemoryAccess"), None)
    if mask_i is not None:
        fixed = ops[:mask_i]
    mask = ops[mask_i] if mask_i is not None else None
    params = list(ops[mask_i + 1:]) if mask_i is not None else []
    if not fixed:
        return None
    pointer = fixed[0]
    i = 1
    obj = None
    if not is_load:
        if len(fixed) < 2:
            return None
        obj = fixed[1]
        i = 2
    rest = fixed[i:]
    if flavour == "NV":
        stride = rest[0] if len(rest) > 0 else None
        layout = rest[1] if len(rest) > 1 else None
    else:
        layout = rest[0] if len(rest) > 0 else None
        stride = rest[1] if len(rest) > 1 else None
    return Access(inst, flavour, is_load, pointer, obj, stride, layout, mask, params)


def _pointer_type(ctx: Context, a: Access) -> Instruction | None:
    d = ctx.ix.defs.get(a.pointer.as_int)
    return ctx.ix.defs.get(d.result_type) if d is not None and d.result_type is not None else None


def _storage_class(ctx: Context, ptype: Instruction | None) -> str | None:
    if ptype is None or ptype.opname not in ("OpTypePointer", "OpTypeUntypedPointerKHR"):
        return None
    e = ctx.ix.grammar.operand_kinds["StorageClass"].by_value.get(ptype.operands[0].as_int)
    return e.name if e else None


@rule("coopmat.load.result_type", LOADS,
      "Result Type is the type of the loaded object. It must be a cooperative matrix type.", source=f"{NV} / {KHR}")
def load_result_type(ctx: Context, inst) -> None:
    cm = ctx.ix.coopmat(inst.result_type)
    want = "NV" if inst.opname.endswith("NV") else "KHR"
    if cm is None or cm.flavour != want:
        got = ctx.ix.type_text(inst.result_type)
        ctx.report(inst, None, f"{inst.opname} result type {ctx.ix.name(inst.result_type)} ({got}) is not an "
                   f"OpTypeCooperativeMatrix{want}", [ctx.note_def(inst.result_type, "type declared here")])


@rule("coopmat.store.object_type", STORES,
      "Object is the object to store. Its type must be a cooperative matrix type.", source=f"{NV} / {KHR}")
def store_object_type(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None or a.obj is None:
        return
    d = ctx.ix.defs.get(a.obj.as_int)
    if d is None:
        return
    cm = ctx.ix.coopmat(d.result_type)
    if cm is None or cm.flavour != a.flavour:
        ctx.report(inst, a.obj, f"object {ctx.ix.name(a.obj.as_int)} has type {ctx.ix.value_type_text(a.obj.as_int)}, "
                   f"not an OpTypeCooperativeMatrix{a.flavour}", [ctx.note_def(a.obj.as_int, "object defined here")])


@rule("coopmat.pointer.type", LOAD_STORE,
      "Pointer is a pointer (with Logical addressing: a logical pointer, from OpVariable, OpAccessChain, "
      "OpFunctionParameter, ...; with VariablePointers also OpSelect, OpPhi, OpLoad, ...).", source=f"{NV} / {KHR}")
def pointer_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = parse_access(inst)
    if a is None:
        return
    d = ix.defs.get(a.pointer.as_int)
    if d is None:
        return
    pt = _pointer_type(ctx, a)
    ok_types = ("OpTypePointer",) if a.flavour == "NV" else ("OpTypePointer", "OpTypeUntypedPointerKHR")
    if pt is None or pt.opname not in ok_types:
        ctx.report(inst, a.pointer, f"pointer {ix.name(a.pointer.as_int)} has type "
                   f"{ix.type_text(d.result_type) if pt else d.opname}, not a pointer type",
                   [ctx.note_def(a.pointer.as_int, "defined here")])
        return
    if ix.addressing == "Logical":
        ok = d.opname in LOGICAL_POINTER_OPS or (
            (ix.has_cap("VariablePointers") or ix.has_cap("VariablePointersStorageBuffer"))
            and d.opname in VARIABLE_POINTER_OPS)
        if not ok:
            ctx.report(inst, a.pointer, f"pointer {ix.name(a.pointer.as_int)} comes from {d.opname}, which does not "
                       "yield a logical pointer (Logical addressing model)",
                       [ctx.note_def(a.pointer.as_int, "defined here")])


@rule("coopmat.pointer.storage_class", LOAD_STORE,
      "The storage class of Pointer must be Workgroup, StorageBuffer, or PhysicalStorageBuffer "
      "(NV: always; KHR: VUID-StandaloneSpirv-Pointer-08973, Vulkan environments).", source=f"{NV} / Vulkan")
def pointer_storage(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None or (a.flavour == "KHR" and not ctx.ix.vulkan):
        return
    pt = _pointer_type(ctx, a)
    sc = _storage_class(ctx, pt)
    if pt is not None and sc is not None and sc not in LOADSTORE_CLASSES:
        ctx.report(inst, a.pointer, f"pointer {ctx.ix.name(a.pointer.as_int)} is in {sc} storage; cooperative "
                   "matrix load/store needs Workgroup, StorageBuffer or PhysicalStorageBuffer",
                   [ctx.note_def(pt.result_id, f"pointer type {ctx.ix.name(pt.result_id)} declared here")])


@rule("coopmat.pointer.pointee", LOAD_STORE,
      "The type of the pointee of Pointer must be a numerical scalar or vector type.", source=f"{NV} / {KHR}")
def pointer_pointee(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = parse_access(inst)
    if a is None:
        return
    pt = _pointer_type(ctx, a)
    if pt is None or pt.opname != "OpTypePointer":
        return
    pointee = pt.operands[1].as_int
    t = ix.defs.get(pointee)
    if t is None:
        return
    elem = t.operands[0].as_int if t.opname == "OpTypeVector" else pointee
    if ix.scalar_kind(elem) is None or ix.scalar_kind(elem)[0] == "bool":  # type: ignore[index]
        ctx.report(inst, a.pointer, f"pointer {ix.name(a.pointer.as_int)} points at {ix.type_text(pointee)}; "
                   "it must point at a numerical scalar or vector (an element of the matrix data)",
                   [ctx.note_def(pointee, "pointee type declared here")])


@rule("coopmat.pointer.into_array", ["OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixStoreKHR"],
      "If the Shader capability was declared, Pointer must point into an array and any ArrayStride "
      "decoration on Pointer is ignored.", source=KHR)
def pointer_into_array(ctx: Context, inst) -> None:
    ix = ctx.ix
    if not ix.has_cap("Shader"):
        return
    a = parse_access(inst)
    if a is None:
        return
    bad = not_into_array(ctx, a.pointer.as_int)
    if bad is None:
        return
    if bad.startswith("a member"):
        bad += " (the last access-chain index does not select an array element)"
    ctx.report(inst, a.pointer, f"pointer {ix.name(a.pointer.as_int)} points at {bad}; with Shader it must "
               "point into an array", [ctx.note_def(a.pointer.as_int, "pointer defined here")])


def not_into_array(ctx: Context, pointer_id: int) -> str | None:
    """What a pointer certainly points at when that is not an array element ("a variable ...", "a member of
    an Struct"), or None where it does or cannot be told statically (parameters, phis, pointer arithmetic)."""
    ix = ctx.ix
    d = ix.defs.get(pointer_id)
    while d is not None and d.opname == "OpCopyObject":
        d = ix.defs.get(d.operands[0].as_int)
    if d is None:
        return None
    if d.opname == "OpVariable":
        return "a variable that is not an array element"
    if d.opname in ("OpAccessChain", "OpInBoundsAccessChain") and len(d.operands) >= 2:
        container = _last_step_container(ctx, d)
        if container is not None and container not in ("OpTypeArray", "OpTypeRuntimeArray"):
            return f"a member of an {container[6:]}"
    return None


def _last_step_container(ctx: Context, chain: Instruction) -> str | None:
    """The opcode of the type that the last index of an access chain indexes into."""
    ix = ctx.ix
    base = ix.defs.get(chain.operands[0].as_int)
    pt = ix.defs.get(base.result_type) if base is not None and base.result_type else None
    if pt is None or pt.opname != "OpTypePointer":
        return None
    t = ix.defs.get(pt.operands[1].as_int)
    indices = chain.operands[1:]
    for n, idx in enumerate(indices):
        if t is None:
            return None
        if n == len(indices) - 1:
            return t.opname
        if t.opname == "OpTypeStruct":
            v = ix.int_value(idx.as_int)
            if v is None or not (0 <= v.value < len(t.operands)):
                return None
            t = ix.defs.get(t.operands[v.value].as_int)
        elif t.opname in ("OpTypeArray", "OpTypeRuntimeArray", "OpTypeVector", "OpTypeMatrix"):
            t = ix.defs.get(t.operands[0].as_int)
        else:
            return None
    return None


@rule("coopmat.stride.type", LOAD_STORE,
      "Stride must be a scalar integer type.", source=f"{NV} / {KHR}")
def stride_type(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None or a.stride is None:
        return
    d = ctx.ix.defs.get(a.stride.as_int)
    if d is not None and ctx.ix.int_type(d.result_type) is None:
        ctx.report(inst, a.stride, f"stride {ctx.ix.name(a.stride.as_int)} has type "
                   f"{ctx.ix.type_text(d.result_type)}; it must be a scalar integer",
                   [ctx.note_def(a.stride.as_int, "defined here")])


@rule("coopmat.stride.positive", LOAD_STORE,
      "Stride must be greater than 0 when passed to OpCooperativeMatrixStoreKHR; a negative stride "
      "(signed type) is ambiguous in the spec and reported as a warning.", source=KHR)
def stride_positive(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None or a.stride is None:
        return
    v = ctx.ix.int_value(a.stride.as_int)
    if v is None:
        return
    if v.value == 0 and inst.opname == "OpCooperativeMatrixStoreKHR":
        ctx.report(inst, a.stride, "stride is 0; OpCooperativeMatrixStoreKHR needs a stride greater than 0",
                   [ctx.note_def(a.stride.as_int, "value defined here")], spec_dependent=v.spec)
    elif v.value < 0:
        ctx.report(inst, a.stride, f"stride is negative ({v.value})",
                   [ctx.note_def(a.stride.as_int, "value defined here")],
                   severity="warning")


def _layout_operand(ctx: Context, inst: Instruction) -> tuple[Access | None, Instruction | None]:
    """The access and the definition of its ColumnMajor (NV) / MemoryLayout (KHR) operand."""
    a = parse_access(inst)
    if a is None or a.layout is None:
        return a, None
    return a, ctx.ix.defs.get(a.layout.as_int)


@rule("coopmat.nv.column_major", ["OpCooperativeMatrixLoadNV", "OpCooperativeMatrixStoreNV"],
      "ColumnMajor indicates whether the values are arranged in column-major or row-major order. It must be "
      "a boolean constant instruction.", source=NV)
def column_major(ctx: Context, inst) -> None:
    ix = ctx.ix
    a, d = _layout_operand(ctx, inst)
    if a is None or a.layout is None or d is None:
        return
    t = ix.defs.get(d.result_type) if d.result_type is not None else None
    if t is None or t.opname != "OpTypeBool" or not ix.is_constant_inst(a.layout.as_int):
        ctx.report(inst, a.layout, f"ColumnMajor {ix.name(a.layout.as_int)} ({d.opname} of type "
                   f"{ix.type_text(d.result_type)}) must be a boolean constant instruction",
                   [ctx.note_def(a.layout.as_int, "defined here")])


@rule("coopmat.khr.layout", ["OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixStoreKHR"],
      "MemoryLayout specifies how matrix elements are laid out in memory. It must come from a 32-bit integer "
      "constant instruction whose value corresponds to a Cooperative Matrix Layout.", source=KHR)
def khr_layout(ctx: Context, inst) -> None:
    ix = ctx.ix
    a, d = _layout_operand(ctx, inst)
    if a is None or a.layout is None or d is None:
        return
    it = ix.int_type(d.result_type)
    note = [ctx.note_def(a.layout.as_int, "defined here")]
    if it is None or not ix.is_constant_inst(a.layout.as_int):
        ctx.report(inst, a.layout, f"MemoryLayout {ix.name(a.layout.as_int)} ({d.opname} of type "
                   f"{ix.type_text(d.result_type)}) must be an integer constant instruction", note)
        return
    if it[0] != 32:
        ctx.report(inst, a.layout, f"MemoryLayout {ix.name(a.layout.as_int)} is a {it[0]}-bit integer; it must be "
                   "32-bit", note)
    v = ix.int_value(a.layout.as_int)
    valid = ix.grammar.operand_kinds["CooperativeMatrixLayout"].by_value
    if v is not None and v.value not in valid:
        ctx.report(inst, a.layout, f"MemoryLayout value {v.value} is not a Cooperative Matrix Layout "
                   f"(valid: {', '.join(f'{e.name}={k}' for k, e in sorted(valid.items()))})", note,
                   spec_dependent=v.spec)


@rule("coopmat.khr.layout_stride", ["OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixStoreKHR"],
      "Stride is required for the RowMajorKHR and ColumnMajorKHR layouts (and the ARM blocked layouts).",
      source=KHR)
def khr_layout_needs_stride(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None or a.layout is None or a.stride is not None:
        return
    v = ctx.ix.int_value(a.layout.as_int)
    if v is not None and v.value in _layout_values(ctx, _STRIDED_LAYOUTS):
        name = ctx.ix.grammar.operand_kinds["CooperativeMatrixLayout"].by_value[v.value].name
        ctx.report(inst, a.layout, f"MemoryLayout {name} requires a Stride operand", spec_dependent=v.spec)


_ARM_LAYOUTS = ("RowBlockedInterleavedARM", "ColumnBlockedInterleavedARM")
_STRIDED_LAYOUTS = ("RowMajorKHR", "ColumnMajorKHR", *_ARM_LAYOUTS)


def _layout_values(ctx: Context, names: tuple[str, ...]) -> dict[int, str]:
    """Value -> name of these CooperativeMatrixLayout enumerants, from the grammar."""
    by_name = ctx.ix.grammar.operand_kinds["CooperativeMatrixLayout"].by_name
    return {by_name[n].value: n for n in names if n in by_name}


@rule("coopmat.khr.layout_arm", ["OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixStoreKHR"],
      "The RowBlockedInterleavedARM / ColumnBlockedInterleavedARM layouts need the CooperativeMatrixLayoutsARM "
      "capability and a constant Stride of 1, 2 or 4. With RowBlockedInterleavedARM the matrix's Rows must be "
      "a multiple of 4 and its Columns a multiple of 16 / sizeof(Component Type) times Stride "
      "(ColumnBlockedInterleavedARM: the same with Rows and Columns exchanged).",
      source="SPV_ARM_cooperative_matrix_layouts")
def khr_layout_arm(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = parse_access(inst)
    if a is None or a.layout is None:
        return
    v = ix.int_value(a.layout.as_int)
    layout = _layout_values(ctx, _ARM_LAYOUTS).get(v.value) if v is not None else None
    if layout is None:
        return
    if not ix.has_cap("CooperativeMatrixLayoutsARM"):
        ctx.report(inst, a.layout,
                   "the blocked-interleaved ARM layouts need the CooperativeMatrixLayoutsARM capability")
    if a.stride is None:
        return
    s = ix.int_value(a.stride.as_int)
    if s is None or not ix.is_constant_inst(a.stride.as_int):
        ctx.report(inst, a.stride, "with an ARM blocked layout, Stride must come from a constant instruction")
        return
    if s.value not in (1, 2, 4):
        ctx.report(inst, a.stride, f"with an ARM blocked layout, Stride must be 1, 2 or 4 (it is {s.value})")
        return
    cm = ix.coopmat(inst.result_type) if a.is_load else (ix.coopmat_of(a.obj.as_int) if a.obj else None)
    comp = ix.scalar_kind(cm.component) if cm is not None else None
    if cm is None or comp is None or cm.rows is None or cm.cols is None:
        return
    # blocks of 4 along one dimension and of (16 bytes / component size) * Stride along the other
    wide = 16 // max(1, comp[1] // 8) * s.value
    rows_need, cols_need = (4, wide) if layout == "RowBlockedInterleavedARM" else (wide, 4)
    for dim, size, need in (("Rows", cm.rows.value, rows_need), ("Columns", cm.cols.value, cols_need)):
        if size % need:
            ctx.report(inst, a.layout, f"{layout} with Stride {s.value} needs {dim} to be a multiple of {need}, "
                       f"but the matrix is {cm.shape()} ({ix.type_text(cm.id)})",
                       [ctx.note_def(cm.id, "matrix type defined here")], spec_dependent=cm.rows.spec or cm.cols.spec)


def _mask_names(ctx: Context, a: Access) -> set[str]:
    if a.mask is None:
        return set()
    kind = ctx.ix.grammar.operand_kinds["MemoryAccess"]
    mask = a.mask.as_int
    return {e.name for e in kind.enumerants if e.value and mask & e.value}


def _mask_param(ctx: Context, a: Access, bit_name: str) -> Operand | None:
    """The parameter operand belonging to a mask bit (parameters follow in bit order)."""
    kind = ctx.ix.grammar.operand_kinds["MemoryAccess"]
    i = 0
    for e in sorted(kind.enumerants, key=lambda e: e.value):
        if e.value and a.mask is not None and a.mask.as_int & e.value and e.parameters:
            for _p in e.parameters:
                if e.name == bit_name:
                    return a.mask_params[i] if i < len(a.mask_params) else None
                i += 1
    return None


@rule("coopmat.memaccess.load_store_bits", LOAD_STORE,
      "MakePointerAvailable cannot be used with a load; MakePointerVisible cannot be used with a store.",
      source="SPIR-V core 3.26 (Memory Operands)")
def memaccess_direction(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None:
        return
    names = _mask_names(ctx, a)
    bad = "MakePointerAvailable" if a.is_load else "MakePointerVisible"
    if bad in names:
        ctx.report(inst, a.mask, f"{bad} cannot be used with {inst.opname} "
                   f"(it is a {'load' if a.is_load else 'store'})")


@rule("coopmat.memaccess.nonprivate", LOAD_STORE,
      "NonPrivatePointer must be specified if MakePointerAvailable or MakePointerVisible is specified; "
      "NonPrivatePointer needs a pointer in Uniform, Workgroup, CrossWorkgroup, Generic, Image, StorageBuffer "
      "or PhysicalStorageBuffer storage.", source="SPIR-V core 3.26 (Memory Operands)")
def memaccess_nonprivate(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None:
        return
    names = _mask_names(ctx, a)
    for bit in ("MakePointerAvailable", "MakePointerVisible"):
        if bit in names and "NonPrivatePointer" not in names:
            ctx.report(inst, a.mask, f"{bit} requires NonPrivatePointer in the same memory operand")
    if "NonPrivatePointer" in names:
        sc = _storage_class(ctx, _pointer_type(ctx, a))
        if sc is not None and sc not in ("Uniform", "Workgroup", "CrossWorkgroup", "Generic", "Image",
                                         "StorageBuffer", "PhysicalStorageBuffer"):
            ctx.report(inst, a.mask, f"NonPrivatePointer is not allowed for a pointer in {sc} storage")


@rule("coopmat.memaccess.scope", LOAD_STORE,
      "The Scope <id> after MakePointerAvailable/MakePointerVisible must be a 32-bit integer constant "
      "(spec constant allowed with a cooperative-matrix capability) whose value is a valid Scope; Device scope "
      "with the Vulkan memory model needs VulkanMemoryModelDeviceScope.", source="SPIR-V core / Vulkan")
def memaccess_scope(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = parse_access(inst)
    if a is None:
        return
    for bit in ("MakePointerAvailable", "MakePointerVisible"):
        o = _mask_param(ctx, a, bit)
        if o is None:
            continue
        d = ix.defs.get(o.as_int)
        if d is None:
            continue
        it = ix.int_type(d.result_type)
        if it is None or it[0] != 32 or not ix.is_constant_inst(o.as_int):
            ctx.report(inst, o, f"the {bit} scope {ix.name(o.as_int)} must be a 32-bit integer constant",
                       [ctx.note_def(o.as_int, "defined here")])
            continue
        v = ix.int_value(o.as_int)
        if v is None:
            continue
        scopes = ix.grammar.operand_kinds["Scope"].by_value
        if v.value not in scopes:
            ctx.report(inst, o, f"the {bit} scope value {v.value} is not a valid Scope",
                       [ctx.note_def(o.as_int, "defined here")], spec_dependent=v.spec)
        elif scopes[v.value].name == "Device" and ix.memory_model == "Vulkan" \
                and not ix.has_cap("VulkanMemoryModelDeviceScope"):
            ctx.report(inst, o, "Device scope with the Vulkan memory model requires the "
                       "VulkanMemoryModelDeviceScope capability", [ctx.note_def(o.as_int, "defined here")])


def _largest_scalar_bytes(ctx: Context, type_id: int) -> int:
    ix = ctx.ix
    t = ix.defs.get(type_id)
    if t is None:
        return 0
    if t.opname in ("OpTypeInt", "OpTypeFloat"):
        return max(1, t.operands[0].as_int // 8)
    if t.opname in ("OpTypeVector", "OpTypeArray", "OpTypeRuntimeArray", "OpTypeMatrix"):
        return _largest_scalar_bytes(ctx, t.operands[0].as_int)
    if t.opname == "OpTypeStruct":
        return max((_largest_scalar_bytes(ctx, o.as_int) for o in t.operands), default=0)
    return 0


@rule("coopmat.memaccess.aligned", LOAD_STORE,
      "Aligned: the literal must be a power of two; for PhysicalStorageBuffer it must be at least the size "
      "of the largest scalar in the pointee (VUID-StandaloneSpirv-PhysicalStorageBuffer64-04708).",
      source="SPIR-V core / Vulkan")
def memaccess_aligned(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None:
        return
    o = _mask_param(ctx, a, "Aligned")
    if o is None:
        return
    n = o.value
    if not isinstance(n, int) or n <= 0 or n & (n - 1):
        ctx.report(inst, o, f"Aligned value {n} is not a power of two")
        return
    pt = _pointer_type(ctx, a)
    if _storage_class(ctx, pt) == "PhysicalStorageBuffer" and pt is not None and pt.opname == "OpTypePointer":
        size = _largest_scalar_bytes(ctx, pt.operands[1].as_int)
        if n < size:
            ctx.report(inst, o, f"Aligned value {n} is too small: the largest scalar in the pointee is {size} bytes")


@rule("coopmat.memaccess.psb_aligned", LOAD_STORE,
      "Memory accesses through a PhysicalStorageBuffer pointer must use Aligned "
      "(VUID-StandaloneSpirv-PhysicalStorageBuffer64-04708), also when no memory operand is written.",
      source="Vulkan / SPIR-V core")
def memaccess_psb_aligned(ctx: Context, inst) -> None:
    a = parse_access(inst)
    if a is None:
        return
    if _storage_class(ctx, _pointer_type(ctx, a)) != "PhysicalStorageBuffer":
        return
    if "Aligned" not in _mask_names(ctx, a):
        ctx.report(inst, a.mask if a.mask is not None else a.pointer,
                   "access through a PhysicalStorageBuffer pointer without the Aligned memory operand",
                   [Note("add a memory operand, e.g. 'Aligned 16'")])


# ---- Length ------------------------------------------------------------------------------------

def _check_length(ctx: Context, inst: Instruction, opname: str, type_op: Operand | None) -> None:
    ix = ctx.ix
    it = ix.int_type(inst.result_type)
    if it != (32, False):
        ctx.report(inst, None, f"result type of {opname} is {ix.type_text(inst.result_type)}; it must be a 32-bit "
                   "unsigned integer (OpTypeInt 32 0)", [ctx.note_def(inst.result_type, "type declared here")])
    if type_op is None:
        return
    want = "NV" if opname.endswith("NV") else "KHR"
    cm = ix.coopmat(type_op.as_int)
    if cm is None or cm.flavour != want:
        d = ix.defs.get(type_op.as_int)
        what = ("a value, not a type" if d is not None and not d.opname.startswith("OpType")
                else ix.type_text(type_op.as_int))
        ctx.report(inst, type_op, f"the Type operand {ix.name(type_op.as_int)} of {opname} is {what}; it must be an "
                   f"OpTypeCooperativeMatrix{want}", [ctx.note_def(type_op.as_int, "defined here")])


@rule("coopmat.length", LENGTHS + ("OpSpecConstantOp",),
      "Result Type must be an OpTypeInt with 32-bit Width and 0 Signedness. Type is a cooperative matrix "
      "type (of the instruction's flavour); also inside OpSpecConstantOp.", source=f"{NV} / {KHR}",
      coopmat_only=("OpSpecConstantOp",))
def length(ctx: Context, inst) -> None:
    if inst.opname == "OpSpecConstantOp":
        if not inst.operands:
            return
        target = ctx.ix.grammar.by_opcode.get(inst.operands[0].value)
        if target is None or target.opname not in LENGTHS:
            return
        _check_length(ctx, inst, target.opname, inst.operands[1] if len(inst.operands) > 1 else None)
        return
    _check_length(ctx, inst, inst.opname, inst.operands[0] if inst.operands else None)

"""OpCooperativeMatrixLoadTensorNV / OpCooperativeMatrixStoreTensorNV (SPV_NV_cooperative_matrix2):
matrix, pointer, tensor layout and view operands, memory operands, the DecodeFunc."""
from __future__ import annotations

from typing import cast

from ..core.diagnostics import Note
from ..core.module import Instruction
from .coopmat_memory import (LOADSTORE_CLASSES, LOGICAL_POINTER_OPS, VARIABLE_POINTER_OPS, _largest_scalar_bytes,
                             not_into_array)
from .coopmat2_tensor import Addressing, addressing_operands
from .coopmat_types import describe
from .registry import Context, rule

CM2 = "SPV_NV_cooperative_matrix2"
LOAD, STORE = "OpCooperativeMatrixLoadTensorNV", "OpCooperativeMatrixStoreTensorNV"
TENSOR_ACCESS = (LOAD, STORE)


def _matrix_type(ctx: Context, inst, a: Addressing):
    """The matrix type the instruction loads or stores."""
    if inst.opname == LOAD:
        return ctx.ix.coopmat(inst.result_type)
    return ctx.ix.coopmat_of(a.obj.as_int) if a.obj is not None else None


def _pointer_class(ctx: Context, a: Addressing) -> tuple[Instruction | None, str | None]:
    """(pointer type instruction, its storage class name)."""
    ix = ctx.ix
    d = ix.defs.get(a.pointer.as_int) if a.pointer is not None else None
    pt = ix.defs.get(d.result_type) if d is not None and d.result_type is not None else None
    if pt is None or pt.opname != "OpTypePointer":
        return pt, None
    e = ix.grammar.operand_kinds["StorageClass"].by_value.get(pt.operands[0].as_int)
    return pt, e.name if e else None


@rule("coopmat2.tensor_access.matrix", TENSOR_ACCESS,
      "OpCooperativeMatrixLoadTensorNV: 'Result Type' must be a cooperative matrix type. "
      "OpCooperativeMatrixStoreTensorNV: the type of 'Object' must be an OpTypeCooperativeMatrixKHR.", source=CM2)
def access_matrix(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = addressing_operands(inst)
    cm = _matrix_type(ctx, inst, a)
    if cm is not None and cm.flavour == "KHR":
        return
    if inst.opname == LOAD:
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is not an "
                   "OpTypeCooperativeMatrixKHR", [ctx.note_def(inst.result_type, "type declared here")])
    elif a.obj is not None and ix.defs.get(a.obj.as_int) is not None:
        ctx.report(inst, a.obj, f"Object {ix.name(a.obj.as_int)} has type {ix.value_type_text(a.obj.as_int)}, not an "
                   "OpTypeCooperativeMatrixKHR", [ctx.note_def(a.obj.as_int, "Object defined here")])


@rule("coopmat2.tensor_load.object", LOAD,
      "'Object' is a cooperative matrix object whose values are used for clipped loads. It must have the same "
      "type as 'Result Type'.", source=CM2)
def load_object(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = addressing_operands(inst)
    if a.obj is None:
        return
    d = ix.defs.get(a.obj.as_int)
    if d is not None and d.result_type != inst.result_type:
        ctx.report(inst, a.obj, f"Object {ix.name(a.obj.as_int)} has type {ix.value_type_text(a.obj.as_int)} but the "
                   f"result type is {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)})",
                   [ctx.note_def(a.obj.as_int, "Object defined here")])


@rule("coopmat2.tensor_access.pointer", TENSOR_ACCESS,
      "'Pointer' is a logical pointer (Logical addressing) of an OpTypePointer type whose storage class is "
      "Workgroup, StorageBuffer or PhysicalStorageBuffer.", source=f"{CM2} / SPIR-V core 2.16.1 / Vulkan")
def access_pointer(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = addressing_operands(inst)
    if a.pointer is None:
        return
    d = ix.defs.get(a.pointer.as_int)
    if d is None:
        return
    note = [ctx.note_def(a.pointer.as_int, "Pointer defined here")]
    pt, sc = _pointer_class(ctx, a)
    if pt is None or pt.opname != "OpTypePointer":
        ctx.report(inst, a.pointer, f"Pointer {ix.name(a.pointer.as_int)} has type "
                   f"{ix.value_type_text(a.pointer.as_int)}, not an OpTypePointer", note)
        return
    if ix.addressing == "Logical":
        variable = ix.has_cap("VariablePointers") or ix.has_cap("VariablePointersStorageBuffer")
        if not (d.opname in LOGICAL_POINTER_OPS or (variable and d.opname in VARIABLE_POINTER_OPS)):
            ctx.report(inst, a.pointer, f"Pointer {ix.name(a.pointer.as_int)} comes from {d.opname}, which does not "
                       "yield a logical pointer (Logical addressing model)", note)
    if sc is not None and sc not in LOADSTORE_CLASSES:
        ctx.report(inst, a.pointer, f"Pointer {ix.name(a.pointer.as_int)} is in {sc} storage; tensor loads and stores "
                   "need Workgroup, StorageBuffer or PhysicalStorageBuffer", note)


@rule("coopmat2.tensor_access.into_array", TENSOR_ACCESS,
      "If the Shader capability was declared, 'Pointer' must point into an array (reported when it certainly "
      "does not: a variable, or an access chain whose last index selects a struct member).", source=CM2)
def access_into_array(ctx: Context, inst) -> None:
    ix = ctx.ix
    if not ix.has_cap("Shader"):
        return
    a = addressing_operands(inst)
    if a.pointer is None:
        return
    bad = not_into_array(ctx, a.pointer.as_int)
    if bad is None:
        return
    ctx.report(inst, a.pointer, f"Pointer {ix.name(a.pointer.as_int)} points at {bad}; with Shader it must point into "
               "an array", [ctx.note_def(a.pointer.as_int, "Pointer defined here")])


@rule("coopmat2.tensor_access.layout_view", TENSOR_ACCESS,
      "'TensorLayout' is a tensor layout (OpTypeTensorLayoutNV); the TensorView operand is a tensor view "
      "(OpTypeTensorViewNV).", source=CM2)
def access_layout_view(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = addressing_operands(inst)
    for o, kind, what in ((a.layout, "layout", "TensorLayout"), (a.view, "view", "TensorView")):
        if o is None or ix.defs.get(o.as_int) is None:
            continue
        tt = ix.tensor_of(o.as_int)
        if tt is None or tt.kind != kind:
            ctx.report(inst, o, f"{what} {ix.name(o.as_int)} has type {ix.value_type_text(o.as_int)}, not an "
                       f"OpTypeTensor{kind.title()}NV", [ctx.note_def(o.as_int, "defined here")])


def _mask_names(ctx: Context, mask) -> set[str]:
    kind = ctx.ix.grammar.operand_kinds["MemoryAccess"]
    return {e.name for e in kind.enumerants if e.value and mask is not None and mask.value & e.value}


@rule("coopmat2.tensor_access.memory_operands", TENSOR_ACCESS,
      "MakePointerAvailable is not valid with OpCooperativeMatrixLoadTensorNV, MakePointerVisible not with "
      "OpCooperativeMatrixStoreTensorNV; NonPrivatePointer must be specified with either; Aligned is a power of two; "
      "accesses through a PhysicalStorageBuffer pointer must use Aligned, at least the size of the largest scalar "
      "pointed at (VUID-StandaloneSpirv-PhysicalStorageBuffer64-04708).", source=f"{CM2} / SPIR-V core 3.26 / Vulkan")
def access_memory_operands(ctx: Context, inst) -> None:
    a = addressing_operands(inst)
    names = _mask_names(ctx, a.memory)
    pt, sc = _pointer_class(ctx, a)
    if sc == "PhysicalStorageBuffer":
        if "Aligned" not in names:
            ctx.report(inst, a.memory, "access through a PhysicalStorageBuffer pointer without the Aligned memory "
                       "operand", [Note("e.g. 'Aligned 16'")])
        elif a.memory_params and isinstance(a.memory_params[0].value, int):
            size = _largest_scalar_bytes(ctx, cast(Instruction, pt).operands[1].as_int)  # sc set: pt is a pointer
            if 0 < a.memory_params[0].value < size:
                ctx.report(inst, a.memory_params[0], f"Aligned {a.memory_params[0].value} is smaller than the "
                           f"largest scalar pointed at ({size} bytes)")
    bad = "MakePointerAvailable" if inst.opname == LOAD else "MakePointerVisible"
    if bad in names:
        ctx.report(inst, a.memory, f"{bad} cannot be used with {inst.opname}")
    for bit in ("MakePointerAvailable", "MakePointerVisible"):
        if bit in names and "NonPrivatePointer" not in names:
            ctx.report(inst, a.memory, f"{bit} requires NonPrivatePointer in the same memory operand")
    if "Aligned" in names and a.memory_params:
        n = a.memory_params[0].value
        if not isinstance(n, int) or n <= 0 or n & (n - 1):
            ctx.report(inst, a.memory_params[0], f"Aligned value {n} is not a power of two")


@rule("coopmat2.tensor_access.decode_capability", TENSOR_ACCESS,
      "The DecodeFunc Tensor Addressing Operand needs the CooperativeMatrixBlockLoadsNV capability.", source=CM2)
def access_decode_capability(ctx: Context, inst) -> None:
    a = addressing_operands(inst)
    if a.mask is not None and a.mask.as_int & 2 and not ctx.ix.has_cap("CooperativeMatrixBlockLoadsNV"):
        ctx.report(inst, a.mask, "DecodeFunc needs the CooperativeMatrixBlockLoadsNV capability",
                   [Note("add 'OpCapability CooperativeMatrixBlockLoadsNV'")])


@rule("coopmat2.tensor_store.decode", STORE, "DecodeFunc is not allowed with OpCooperativeMatrixStoreTensorNV.",
      source=CM2)
def store_decode(ctx: Context, inst) -> None:
    a = addressing_operands(inst)
    if a.mask is not None and a.mask.as_int & 2:
        ctx.report(inst, a.mask, "OpCooperativeMatrixStoreTensorNV cannot take a DecodeFunc")


def _decode(ctx: Context, inst):
    """(the DecodeFunc operand, its OpFunction, its OpTypeFunction) for a load with a DecodeFunc."""
    a = addressing_operands(inst)
    o = a.decode
    f = ctx.ix.defs.get(o.as_int) if o is not None else None
    if f is None or f.opname != "OpFunction" or len(f.operands) < 2:
        return o, None, None, a
    ft = ctx.ix.defs.get(f.operands[1].as_int)
    return o, f, ft if ft is not None and ft.opname == "OpTypeFunction" else None, a


@rule("coopmat2.tensor_load.decode", LOAD,
      "DecodeFunc: the function's return type must match the component type of the result matrix type. The first "
      "parameter must be a pointer type with storage class PhysicalStorageBuffer. The second and third parameters "
      "must each be an array ... whose dimension matches the tensor dimension.", source=CM2)
def load_decode(ctx: Context, inst) -> None:
    ix = ctx.ix
    o, f, ft, a = _decode(ctx, inst)
    if o is None:
        return
    if f is None:
        if ix.defs.get(o.value) is not None:
            ctx.report(inst, o, f"DecodeFunc {ix.name(o.value)} is not an OpFunction",
                       [ctx.note_def(o.value, "defined here")])
        return
    cm = ix.coopmat(inst.result_type)
    if ft is None or cm is None:
        return
    note = [ctx.note_def(o.value, "DecodeFunc defined here")]
    types = [x.value for x in ft.operands]
    if types[0] != cm.component:
        ctx.report(inst, o, f"DecodeFunc returns {ix.type_text(types[0])}; it must return the matrix component type "
                   f"{ix.type_text(cm.component)}", note + [describe(ctx, cm, "Result")])
    if len(types) < 4:
        ctx.report(inst, o, f"DecodeFunc has {len(types) - 1} parameters; it needs three (pointer, blockCoord, "
                   "coordInBlock)", note)
        return
    p0 = ix.defs.get(types[1])
    sc = None
    if p0 is not None and p0.opname == "OpTypePointer":
        e = ix.grammar.operand_kinds["StorageClass"].by_value.get(p0.operands[0].as_int)
        sc = e.name if e else None
    if sc != "PhysicalStorageBuffer":
        ctx.report(inst, o, f"DecodeFunc's first parameter is {ix.type_text(types[1])}; it must be a "
                   "PhysicalStorageBuffer pointer", note)
    lay = ix.tensor_of(a.layout.value) if a.layout is not None else None
    for what, t in (("second", types[2]), ("third", types[3])):
        arr = ix.defs.get(t)
        if arr is None or arr.opname != "OpTypeArray":
            ctx.report(inst, o, f"DecodeFunc's {what} parameter is {ix.type_text(t)}; it must be an array of 32-bit "
                       "integers, one per tensor dimension", note)
            continue
        n = ix.int_value(arr.operands[1].as_int)
        if n is not None and lay is not None and lay.dim is not None and n.value != lay.dim.value:
            ctx.report(inst, o, f"DecodeFunc's {what} parameter is an array of {n.value}, but the tensor layout has "
                       f"{lay.dim.value} dimensions", note, spec_dependent=n.spec or lay.dim.spec)


@rule("coopmat2.tensor_load.decode_params", LOAD,
      "DecodeFunc is called with exactly three arguments: the second and third parameters 'must each be an array of "
      "32-bit integers'; no further parameter can receive a value.", source=CM2)
def load_decode_params(ctx: Context, inst) -> None:
    ix = ctx.ix
    o, f, ft, _ = _decode(ctx, inst)
    if ft is None:
        return
    types = [x.value for x in ft.operands]
    note = [ctx.note_def(o.value, "DecodeFunc defined here")]
    if len(types) > 4:
        ctx.report(inst, o, f"DecodeFunc has {len(types) - 1} parameters; it is called with three", note)
    for what, t in zip(("second", "third"), types[2:4], strict=False):
        arr = ix.defs.get(t)
        if arr is not None and arr.opname == "OpTypeArray":
            it = ix.int_type(arr.operands[0].as_int)
            if it is None or it[0] != 32:
                ctx.report(inst, o, f"DecodeFunc's {what} parameter is an array of "
                           f"{ix.type_text(arr.operands[0].as_int)}; it must be an array of 32-bit integers", note)


@rule("coopmat2.tensor_load.decode_pointer", LOAD,
      "If the Tensor Addressing Operands include DecodeFunc, then 'Pointer' must point to PhysicalStorageBuffer or "
      "StorageBuffer storage class.", source=CM2)
def load_decode_pointer(ctx: Context, inst) -> None:
    a = addressing_operands(inst)
    if a.decode is None or a.pointer is None:  # no pointer: no storage class to check
        return
    _, sc = _pointer_class(ctx, a)
    if sc is not None and sc not in ("PhysicalStorageBuffer", "StorageBuffer"):
        ctx.report(inst, a.pointer, f"Pointer is in {sc} storage; a load with a DecodeFunc needs PhysicalStorageBuffer "
                   "or StorageBuffer", [ctx.note_def(a.pointer.as_int, "Pointer defined here")])


_LAYOUT_COPIES = frozenset({"OpTensorLayoutSetDimensionNV", "OpTensorLayoutSetStrideNV", "OpTensorLayoutSliceNV",
                            "OpTensorLayoutSetClampValueNV", "OpTensorLayoutSetBlockSizeNV"})


@rule("coopmat2.tensor_store.block_size", STORE,
      "A block size larger than 1 must not be used with OpCooperativeMatrixStoreTensorNV (checked where the "
      "layout's OpTensorLayoutSetBlockSizeNV can be traced and its values are constants).", source=CM2)
def store_block_size(ctx: Context, inst) -> None:
    ix = ctx.ix
    a = addressing_operands(inst)
    d = ix.defs.get(a.layout.as_int) if a.layout is not None else None
    for _ in range(1000):  # a chain of copies: the last SetBlockSize before the store decides
        if d is None or d.opname not in _LAYOUT_COPIES or not d.operands:
            return
        if d.opname == "OpTensorLayoutSetBlockSizeNV":
            break
        d = ix.defs.get(d.operands[0].as_int)
    else:
        return
    for o in d.operands[1:]:
        v = ix.int_value(o.as_int)
        if v is not None and v.value > 1:
            ctx.report(inst, a.layout, f"the tensor layout stored through has block size {v.value} (set by "
                       f"{ix.name(d.result_id)}); stores need block size 1",
                       [Note("block size set here", o.span or d.span)], spec_dependent=v.spec)
            return

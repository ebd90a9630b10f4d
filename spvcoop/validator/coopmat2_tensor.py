"""SPV_NV_tensor_addressing: tensor layout and view types, and the instructions that make and
change tensor layouts and views (OpCreateTensorLayoutNV, OpTensorLayoutSet*NV, OpTensorLayoutSliceNV,
OpCreateTensorViewNV, OpTensorViewSet*NV)."""
from __future__ import annotations

from ..core.diagnostics import Note
from ..core.module import Instruction, Operand
from ..core.records import Record
from .index import TENSOR_TYPES, Tensor, Value
from .registry import MODULE, Context, rule

TA = "SPV_NV_tensor_addressing"
MAX_DIM = 5
CLAMP_MODES = "TensorClampMode"

LAYOUT_OPS = ("OpCreateTensorLayoutNV", "OpTensorLayoutSetDimensionNV", "OpTensorLayoutSetStrideNV",
              "OpTensorLayoutSliceNV", "OpTensorLayoutSetClampValueNV", "OpTensorLayoutSetBlockSizeNV")
VIEW_OPS = ("OpCreateTensorViewNV", "OpTensorViewSetDimensionNV", "OpTensorViewSetStrideNV", "OpTensorViewSetClipNV")
# Instructions that copy a layout/view (operand 0) and set values (the operands after it), with the
# number of values as a function of the type's Dim.
SETTERS = {
    "OpTensorLayoutSetDimensionNV": lambda d: d, "OpTensorLayoutSetStrideNV": lambda d: d,
    "OpTensorLayoutSetBlockSizeNV": lambda d: d, "OpTensorLayoutSliceNV": lambda d: 2 * d,
    "OpTensorLayoutSetClampValueNV": lambda d: 1,
    "OpTensorViewSetDimensionNV": lambda d: d, "OpTensorViewSetStrideNV": lambda d: d,
    "OpTensorViewSetClipNV": lambda d: 4,
}


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Addressing(Record):
    """The operands of OpCooperativeMatrixLoadTensorNV / StoreTensorNV, by meaning."""
    __slots__ = _fields = ("pointer", "obj", "layout", "memory", "memory_params", "mask", "view", "decode")
    pointer: Operand | None
    obj: Operand | None              # Load: Object (values for clipped elements); Store: the matrix stored
    layout: Operand | None
    memory: Operand | None           # the Memory Operand mask
    memory_params: list[Operand]
    mask: Operand | None             # the Tensor Addressing Operands mask
    view: Operand | None
    decode: Operand | None

    def __init__(self, pointer: Operand | None, obj: Operand | None, layout: Operand | None,
                 memory: Operand | None, memory_params: list[Operand], mask: Operand | None, view: Operand | None,
                 decode: Operand | None) -> None:
        self.pointer = pointer
        self.obj = obj
        self.layout = layout
        self.memory = memory
        self.memory_params = memory_params
        self.mask = mask
        self.view = view
        self.decode = decode


def addressing_operands(inst: Instruction) -> Addressing:
    """Split a tensor load/store into its operands (any may be missing in a malformed module)."""
    ops = inst.operands
    fixed = ops[:3]
    pointer, obj, layout = (list(fixed) + [None, None, None])[:3]
    mem_i = next((i for i, o in enumerate(ops) if o.kind == "MemoryAccess"), None)
    mask_i = next((i for i, o in enumerate(ops) if o.kind == "TensorAddressingOperands"), None)
    memory = ops[mem_i] if mem_i is not None else None
    params = list(ops[mem_i + 1:mask_i if mask_i is not None else len(ops)]) if mem_i is not None else []
    mask = ops[mask_i] if mask_i is not None else None
    view = decode = None
    if mask is not None:
        after = list(ops[mask_i + 1:])  # type: ignore[operator]
        if mask.as_int & 1 and after:
            view = after.pop(0)
        if mask.as_int & 2 and after:
            decode = after.pop(0)
    return Addressing(pointer, obj, layout, memory, params, mask, view, decode)


def _int32(ctx: Context, value_id: int) -> bool:
    d = ctx.ix.defs.get(value_id)
    it = ctx.ix.int_type(d.result_type) if d is not None else None
    return it is not None and it[0] == 32


def _operand_note(ctx: Context, value_id: int) -> list[Note]:
    return [ctx.note_def(value_id, f"{ctx.ix.name(value_id)} is defined here")]


# ---- the types -------------------------------------------------------------------------------------

@rule("coopmat2.tensor.type.dim", TENSOR_TYPES,
      "'Dim' is the number of dimensions in the tensor layout (view), and must be a constant instruction with "
      "scalar 32-bit integer type. The value must be greater than zero and less than or equal to 5.", source=TA)
def type_dim(ctx: Context, inst) -> None:
    ix = ctx.ix
    dim_id = inst.operands[0].value
    if not _int32(ctx, dim_id):
        ctx.report(inst, 0, f"Dim {ix.name(dim_id)} has type {ix.value_type_text(dim_id)}; it must be a 32-bit "
                   "integer", _operand_note(ctx, dim_id))
        return
    tt = ix.tensor(inst.result_id)
    if tt is not None and tt.dim is not None and not 1 <= tt.dim.value <= MAX_DIM:
        ctx.report(inst, 0, f"Dim is {tt.dim.value}; a tensor {tt.kind} has 1 to {MAX_DIM} dimensions",
                   _operand_note(ctx, dim_id), spec_dependent=tt.dim.spec)


@rule("coopmat2.tensor.type.constant", TENSOR_TYPES,
      "Dim, ClampMode, HasDimensions and p0 ... p<Dim-1> must each be a constant instruction.", source=TA)
def type_constant(ctx: Context, inst) -> None:
    ix = ctx.ix
    names = ("Dim", "ClampMode") if inst.opname == "OpTypeTensorLayoutNV" else ("Dim", "HasDimensions")
    for i, o in enumerate(inst.operands):
        d = ix.defs.get(o.value)
        if d is None or ix.is_constant_inst(o.value):
            continue
        what = names[i] if i < len(names) else f"p{i - 2}"
        ctx.report(inst, o, f"{what} {ix.name(o.value)} is defined by {d.opname}, not by a constant instruction",
                   _operand_note(ctx, o.value))


@rule("coopmat2.tensor.layout.clamp_mode", "OpTypeTensorLayoutNV",
      "'ClampMode' is a Tensor Clamp Mode which controls how out of bounds coordinates are treated, and must be "
      "a constant instruction with scalar 32-bit integer type.", source=TA)
def layout_clamp_mode(ctx: Context, inst) -> None:
    ix = ctx.ix
    if len(inst.operands) < 2:
        return
    cid = inst.operands[1].value
    if not _int32(ctx, cid):
        ctx.report(inst, 1, f"ClampMode {ix.name(cid)} has type {ix.value_type_text(cid)}; it must be a 32-bit "
                   "integer", _operand_note(ctx, cid))
        return
    v = ix.int_value(cid)
    modes = ix.grammar.operand_kinds[CLAMP_MODES].by_value
    if v is not None and v.value not in modes:
        ctx.report(inst, 1, f"ClampMode {v.value} is not a Tensor Clamp Mode (valid: "
                   f"{', '.join(f'{e.name}={k}' for k, e in sorted(modes.items()))})", _operand_note(ctx, cid),
                   spec_dependent=v.spec)


@rule("coopmat2.tensor.view.has_dimensions", "OpTypeTensorViewNV",
      "'HasDimensions' ... must be a constant instruction with scalar boolean type.", source=TA)
def view_has_dimensions(ctx: Context, inst) -> None:
    ix = ctx.ix
    if len(inst.operands) < 2:
        return
    hid = inst.operands[1].value
    d = ix.defs.get(hid)
    if d is not None and ix.scalar_kind(d.result_type) != ("bool", 1):
        ctx.report(inst, 1, f"HasDimensions {ix.name(hid)} has type {ix.value_type_text(hid)}; it must be a boolean",
                   _operand_note(ctx, hid))


@rule("coopmat2.tensor.view.permutation", "OpTypeTensorViewNV",
      "'p0' ... 'p<Dim-1>' ... must each be a constant instruction with scalar 32-bit integer type, and they must "
      "form a valid permutation of the range [0,Dim).", source=TA)
def view_permutation(ctx: Context, inst) -> None:
    ix = ctx.ix
    perm_ops = inst.operands[2:]
    for o in perm_ops:
        if not _int32(ctx, o.value):
            ctx.report(inst, o, f"permutation value {ix.name(o.value)} has type {ix.value_type_text(o.value)}; it "
                       "must be a 32-bit integer", _operand_note(ctx, o.value))
            return
    tt: Tensor | None = ix.tensor(inst.result_id)
    if tt is None:
        return
    n = len(perm_ops)
    seen: dict[int, int] = {}
    for i, (o, v) in enumerate(zip(perm_ops, tt.perm, strict=False)):
        if v is None:
            continue
        if not 0 <= v.value < n:
            ctx.report(inst, o, f"p{i} is {v.value}; with {n} permutation values each must be in [0, {n})",
                       _operand_note(ctx, o.value), spec_dependent=v.spec)
        elif v.value in seen:
            ctx.report(inst, o, f"p{i} repeats the value {v.value} of p{seen[v.value]}: the values do not form a "
                       "permutation", _operand_note(ctx, o.value), spec_dependent=v.spec)
        else:
            seen[v.value] = i
    if tt.dim is not None and tt.dim.value != n:
        ctx.report(inst, 0, f"the view has Dim {tt.dim.value} but {n} permutation values; it needs one per dimension",
                   _operand_note(ctx, inst.operands[0].value), spec_dependent=tt.dim.spec)


@rule("coopmat2.tensor.type.duplicate", MODULE,
      "It is invalid to declare multiple non-aggregate, non-pointer type <id>s having the same opcode and "
      "operand <id>s.", source="SPIR-V core 2.8")
def duplicate_tensor_types(ctx: Context, _inst) -> None:
    seen: dict[tuple, object] = {}
    for inst in ctx.ix.module.instructions:
        if inst.opname in TENSOR_TYPES:
            key = (inst.opname, tuple(o.value for o in inst.operands))
            first = seen.get(key)
            if first is None:
                seen[key] = inst
                continue
            ctx.report(inst, None, f"{ctx.ix.name(inst.result_id)} declares the same tensor type as "
                       f"{ctx.ix.name(first.result_id)}",  # type: ignore[attr-defined]
                       [ctx.note_def(first.result_id, "first declared here")])  # type: ignore[attr-defined]


# ---- the instructions ------------------------------------------------------------------------------

def _kind(opname: str) -> str:
    return "layout" if opname in LAYOUT_OPS else "view"


@rule("coopmat2.tensor.result_type", LAYOUT_OPS + VIEW_OPS,
      "'Result Type' must be OpTypeTensorLayoutNV (OpCreateTensorLayoutNV, OpTensorLayout*NV) or "
      "OpTypeTensorViewNV (OpCreateTensorViewNV, OpTensorView*NV).", source=TA)
def result_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    want = _kind(inst.opname)
    tt = ix.tensor(inst.result_type)
    if tt is None or tt.kind != want:
        ctx.report(inst, None, f"{inst.opname} result type {ix.name(inst.result_type)} "
                   f"({ix.type_text(inst.result_type)}) is not an OpTypeTensor{want.title()}NV",
                   [ctx.note_def(inst.result_type, "type declared here")])


@rule("coopmat2.tensor.source_type", tuple(SETTERS),
      "The type of 'TensorLayout' ('TensorView') must be 'Result Type'.", source=TA)
def source_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    if not inst.operands or ix.tensor(inst.result_type) is None:
        return
    src = inst.operands[0].value
    d = ix.defs.get(src)
    if d is not None and d.result_type != inst.result_type:
        what = "TensorLayout" if _kind(inst.opname) == "layout" else "TensorView"
        ctx.report(inst, 0, f"{what} {ix.name(src)} has type {ix.value_type_text(src)}; it must have the result "
                   f"type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)})",
                   [ctx.note_def(src, "defined here"), ctx.note_def(inst.result_type, "result type declared here")])


@rule("coopmat2.tensor.operand_count", tuple(SETTERS),
      "The number of Dim (Stride, BlockSize, Offset and Span) operands must match the dimension of 'Result "
      "Type' (OpTensorLayoutSliceNV: an Offset and a Span per dimension).", source=TA)
def operand_count(ctx: Context, inst) -> None:
    tt = ctx.ix.tensor(inst.result_type)
    if tt is None or tt.kind != _kind(inst.opname) or tt.dim is None:
        return
    want = SETTERS[inst.opname](tt.dim.value)
    got = len(inst.operands) - 1
    if got != want:
        at = inst.operands[want + 1] if got > want else None
        ctx.report(inst, at, f"{inst.opname} has {got} value operand{'s' if got != 1 else ''} but its {tt.dim.value}-"
                   f"dimensional result type needs {want}",
                   [ctx.note_def(tt.id, f"{ctx.ix.name(tt.id)} declared here")], spec_dependent=tt.dim.spec)


@rule("coopmat2.tensor.operand_int32", tuple(SETTERS),
      "The Dim (Stride, BlockSize, Offset, Span, Value, Clip) operands must each be a scalar 32-bit integer type.",
      source=TA)
def operand_int32(ctx: Context, inst) -> None:
    ix = ctx.ix
    for o in inst.operands[1:]:
        if ix.defs.get(o.value) is not None and not _int32(ctx, o.value):
            ctx.report(inst, o, f"operand {ix.name(o.value)} has type {ix.value_type_text(o.value)}; it must be a "
                       "32-bit integer", _operand_note(ctx, o.value))


def _traced_layout_values(ctx: Context, layout_id: int) -> tuple[list[Value | None] | None, list[Value | None] | None]:
    """(layoutDimension, blockSize) of a tensor layout value, followed back through the OpTensorLayout*NV
    copies to OpCreateTensorLayoutNV: one Value (or None) per dimension, or None where it cannot be traced
    (a phi, a parameter, a load)."""
    ix = ctx.ix
    dims: list[Value | None] | None = None
    blocks: list[Value | None] | None = None
    d = ix.defs.get(layout_id)
    for _ in range(1000):
        if d is None:
            return dims, blocks
        if d.opname == "OpCreateTensorLayoutNV":
            tt = ix.tensor(d.result_type)
            n = tt.dim.value if tt is not None and tt.dim is not None else None
            if n is not None and 1 <= n <= MAX_DIM:
                dims = dims if dims is not None else [Value(0)] * n   # initialized to zero ...
                blocks = blocks if blocks is not None else [Value(1)] * n  # ... and one
            return dims, blocks
        if d.opname not in SETTERS or not d.opname.startswith("OpTensorLayout") or not d.operands:
            return dims, blocks
        if d.opname == "OpTensorLayoutSetDimensionNV" and dims is None:
            dims = [ix.int_value(o.as_int) for o in d.operands[1:]]
        elif d.opname == "OpTensorLayoutSetBlockSizeNV" and blocks is None:
            blocks = [ix.int_value(o.as_int) for o in d.operands[1:]]
        if dims is not None and blocks is not None:
            return dims, blocks
        d = ix.defs.get(d.operands[0].as_int)
    return None, None


@rule("coopmat2.tensor.layout_stride", "OpTensorLayoutSetStrideNV",
      "'Stride<i>' must be at least 'Stride<i+1>' * ceiling(layoutDimension[i+1] / blockSize[i+1]) (checked where "
      "the strides, dimensions and block sizes are constants the layout can be traced to).", source=TA)
def layout_stride(ctx: Context, inst) -> None:
    ix = ctx.ix
    if not inst.operands:
        return
    strides = [ix.int_value(o.value) for o in inst.operands[1:]]
    dims, blocks = _traced_layout_values(ctx, inst.operands[0].value)
    if dims is None or blocks is None or not len(strides) == len(dims) == len(blocks):
        return
    for i in range(len(strides) - 1):
        s, s1, dim, blk = strides[i], strides[i + 1], dims[i + 1], blocks[i + 1]
        if s is None or s1 is None or dim is None or blk is None or blk.value <= 0 or dim.value < 0 or s1.value < 0:
            continue
        need = s1.value * -(-dim.value // blk.value)
        if s.value < need:
            ctx.report(inst, inst.operands[1 + i], f"Stride{i} is {s.value}, less than Stride{i + 1} ({s1.value}) "
                       f"times ceiling(dimension {dim.value} / block size {blk.value}) = {need}: rows of the layout "
                       "would overlap", [ctx.note_def(inst.operands[1 + i].value, "value defined here")],
                       spec_dependent=any(v.spec for v in (s, s1, dim, blk)))

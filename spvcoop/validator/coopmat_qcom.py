"""SPV_QCOM_cooperative_matrix_conversion: OpCompositeConstructCoopMatQCOM, OpCompositeExtractCoopMatQCOM,
OpExtractSubArrayQCOM and OpBitCastArrayQCOM (types, array lengths per invocation, sub-arrays).

Each invocation of the subgroup holds one row (Use A, Accumulator) or one column (Use B) of the
matrix as an array: its length is the matrix's Columns (Rows for B), or the same bits packed into
unsigned 32-bit integers. A and B rows/columns are always 256 bits long.
"""
from __future__ import annotations

from ..core.diagnostics import Note
from .coopmat_types import describe
from .index import CoopMat, Value
from .registry import Context, rule, spec_dep

QCOM = "SPV_QCOM_cooperative_matrix_conversion"
CONSTRUCT = "OpCompositeConstructCoopMatQCOM"
EXTRACT = "OpCompositeExtractCoopMatQCOM"
SUBARRAY = "OpExtractSubArrayQCOM"
BITCAST = "OpBitCastArrayQCOM"
USE_A, USE_B, USE_ACC = 0, 1, 2
SUBGROUP = 3
K_BITS = 256  # the length of an A row / B column, whatever the component type
# component types each Use allows (profile spellings: IEEE floats only, no bf16 / FP8)
_AB_COMPONENTS = ("s8", "u8", "f16", "f32")
_ACC_COMPONENTS = ("s32", "u32", "f16", "f32")
_ARRAY_ELEMENTS = ("s32", "u32", "f16", "f32")
_WIDTH = {"s8": 8, "u8": 8, "f16": 16, "f32": 32, "s32": 32, "u32": 32}


def _array(ctx: Context, type_id: int | None) -> tuple[int, Value | None] | None:
    """(element type id, length) of an OpTypeArray, else None."""
    t = ctx.ix.defs.get(type_id) if type_id is not None else None
    if t is None or t.opname != "OpTypeArray" or len(t.operands) < 2:
        return None
    return t.operands[0].as_int, ctx.ix.int_value(t.operands[1].as_int)


def _matrix_and_array(ctx: Context, inst) -> tuple[CoopMat | None, tuple[int, Value | None] | None]:
    """The KHR matrix and the per-invocation array of a construct / extract (None where not one)."""
    ix = ctx.ix
    d = ix.defs.get(inst.operands[0].value) if inst.operands else None
    other = d.result_type if d is not None else None
    mat_t, arr_t = (inst.result_type, other) if inst.opname == CONSTRUCT else (other, inst.result_type)
    cm = ix.coopmat(mat_t)
    if cm is not None and cm.flavour != "KHR":
        cm = None
    return cm, _array(ctx, arr_t)


@rule("qcom.construct.types", CONSTRUCT,
      "Result Type is the type of a cooperative matrix (OpTypeCooperativeMatrixKHR) being constructed and "
      "Source Array is the one-dimensional array (OpTypeArray) that is used to construct it.", source=QCOM,
      coopmat_only=True)
def construct_types(ctx: Context, inst) -> None:
    ix = ctx.ix
    cm = ix.coopmat(inst.result_type)
    if cm is None or cm.flavour != "KHR":
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is "
                   "not an OpTypeCooperativeMatrixKHR")
    src = inst.operands[0].value if inst.operands else None
    d = ix.defs.get(src) if src is not None else None
    if d is not None and _array(ctx, d.result_type) is None:
        ctx.report(inst, 0, f"Source Array {ix.name(src)} has type {ix.value_type_text(src)}, not an OpTypeArray",
                   [ctx.note_def(src, f"{ix.name(src)} is defined here")])


@rule("qcom.extract.types", EXTRACT,
      "Result Type is an OpTypeArray and Source CoopMat is a cooperative matrix (OpTypeCooperativeMatrixKHR) "
      "from which arrays for invocations in a subgroup are extracted.", source=QCOM, coopmat_only=True)
def extract_types(ctx: Context, inst) -> None:
    ix = ctx.ix
    if _array(ctx, inst.result_type) is None:
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is "
                   "not an OpTypeArray")
    src = inst.operands[0].value if inst.operands else None
    d = ix.defs.get(src) if src is not None else None
    cm = ix.coopmat(d.result_type) if d is not None else None
    if d is not None and (cm is None or cm.flavour != "KHR"):
        ctx.report(inst, 0, f"Source CoopMat {ix.name(src)} has type {ix.value_type_text(src)}, not an "
                   "OpTypeCooperativeMatrixKHR", [ctx.note_def(src, f"{ix.name(src)} is defined here")])


@rule("qcom.scope", (CONSTRUCT, EXTRACT),
      "The cooperative matrix constructed from (or extracted into) per-invocation arrays has Scope Subgroup.",
      source=QCOM, coopmat_only=True)
def scope_subgroup(ctx: Context, inst) -> None:
    cm, _ = _matrix_and_array(ctx, inst)
    if cm is None or cm.scope is None or cm.scope.value == SUBGROUP:
        return
    ctx.report(inst, None if inst.opname == CONSTRUCT else 0,
               f"the matrix has scope {ctx.ix.scope_name(cm.scope)}; {inst.opname} needs Subgroup (3)",
               [describe(ctx, cm, "the matrix", "scope")], spec_dependent=cm.scope.spec)


def _use(cm: CoopMat) -> int | None:
    """The matrix's Use when it is A, B or Accumulator (others: coopmat.type.use.value)."""
    return cm.use.value if cm.use is not None and cm.use.value in (USE_A, USE_B, USE_ACC) else None


@rule("qcom.component", (CONSTRUCT, EXTRACT),
      "With Use MatrixAKHR or MatrixBKHR the Component Type is an 8-bit OpTypeInt or an OpTypeFloat with the "
      "default IEEE 754 encoding (32-bit or 16-bit); with MatrixAccumulatorKHR a 32-bit OpTypeInt or such an "
      "OpTypeFloat.", source=QCOM, coopmat_only=True)
def component(ctx: Context, inst) -> None:
    cm, _ = _matrix_and_array(ctx, inst)
    use = _use(cm) if cm is not None else None
    if use is None:
        return
    allowed = _ACC_COMPONENTS if use == USE_ACC else _AB_COMPONENTS
    comp = ctx.ix.component_name(cm.component)  # type: ignore[union-attr]
    if comp not in allowed:
        ctx.report(inst, None if inst.opname == CONSTRUCT else 0,
                   f"{inst.opname} does not take a {ctx.ix.type_text(cm.id)} matrix: with this Use the "  # type: ignore[union-attr]
                   f"component type must be one of {', '.join(allowed)}",
                   [describe(ctx, cm, "the matrix")])  # type: ignore[arg-type]


@rule("qcom.k_size", (CONSTRUCT, EXTRACT),
      "With Use MatrixAKHR, Columns must be 8, 16, 32 and 32 for 32-bit float, 16-bit float, signed and unsigned "
      "8-bit integer components (with MatrixBKHR, Rows): each row (column) is 256 bits.", source=QCOM,
      coopmat_only=True)
def k_size(ctx: Context, inst) -> None:
    cm, _ = _matrix_and_array(ctx, inst)
    use = _use(cm) if cm is not None else None
    if use not in (USE_A, USE_B):
        return
    width = _WIDTH.get(ctx.ix.component_name(cm.component) or "")  # type: ignore[union-attr]
    dim, field, name = (cm.cols, "cols", "Columns") if use == USE_A else (cm.rows, "rows", "Rows")  # type: ignore[union-attr]
    if width is None or dim is None or dim.value * width == K_BITS:
        return
    ctx.report(inst, None if inst.opname == CONSTRUCT else 0,
               f"the matrix has {name} = {dim.value} of {width}-bit components ({dim.value * width} bits); "
               f"{inst.opname} needs {K_BITS // width} ({K_BITS} bits)",
               [describe(ctx, cm, "the matrix", field)], spec_dependent=dim.spec)  # type: ignore[arg-type]


def _row_length(ctx: Context, cm: CoopMat, packed: bool) -> tuple[int, Value] | None:
    """The array length one invocation holds: (length, the dimension it comes from); `packed` when the
    array holds unsigned 32-bit words."""
    use = _use(cm)
    dim = cm.rows if use == USE_B else cm.cols
    if use is None or dim is None:
        return None
    if not packed:
        return dim.value, dim
    if use in (USE_A, USE_B):
        return K_BITS // 32, dim
    comp = ctx.ix.component_name(cm.component)
    return (dim.value // 2 if comp == "f16" else dim.value), dim


@rule("qcom.construct.element", CONSTRUCT,
      "The Source Array's Element Type must be either the same as the Result Type's Component Type or unsigned "
      "32-bit OpTypeInt.", source=QCOM, coopmat_only=True)
def construct_element(ctx: Context, inst) -> None:
    cm, arr = _matrix_and_array(ctx, inst)
    if cm is None or arr is None or arr[0] == cm.component or ctx.ix.component_name(arr[0]) == "u32":
        return
    ix = ctx.ix
    ctx.report(inst, 0, f"the Source Array holds {ix.type_text(arr[0])}; it must hold the matrix component "
               f"type {ix.type_text(cm.component)} or u32", [describe(ctx, cm, "Result")])


@rule("qcom.construct.length", CONSTRUCT,
      "The Source Array's Length must be the Result Type's Columns (Rows for MatrixBKHR); for an unsigned 32-bit "
      "Element Type it must be 8 (MatrixAKHR, MatrixBKHR), Columns/2 (MatrixAccumulatorKHR of 16-bit floats) or "
      "Columns (MatrixAccumulatorKHR of 32-bit floats).", source=QCOM, coopmat_only=True)
def construct_length(ctx: Context, inst) -> None:
    cm, arr = _matrix_and_array(ctx, inst)
    if cm is None or arr is None or arr[1] is None:
        return
    packed = arr[0] != cm.component
    if packed and ctx.ix.component_name(arr[0]) != "u32":
        return  # qcom.construct.element
    _check_length(ctx, inst, cm, arr, packed, "Source Array", 0)


@rule("qcom.extract.result", EXTRACT,
      "Either the Result Type's Element Type is the Source CoopMat's Component Type and its Length the "
      "matrix's Columns (Rows for MatrixBKHR), or the Element Type is unsigned 32-bit OpTypeInt and the Length "
      "8 (MatrixAKHR, MatrixBKHR), Columns (MatrixAccumulatorKHR of 32-bit floats) or Columns/2 "
      "(MatrixAccumulatorKHR of 16-bit floats).", source=QCOM, coopmat_only=True)
def extract_result(ctx: Context, inst) -> None:
    cm, arr = _matrix_and_array(ctx, inst)
    if cm is None or arr is None:
        return
    ix = ctx.ix
    if arr[0] != cm.component and ctx.ix.component_name(arr[0]) != "u32":
        ctx.report(inst, None, f"the result array holds {ix.type_text(arr[0])}; it must hold the matrix component "
                   f"type {ix.type_text(cm.component)} or u32", [describe(ctx, cm, "Source CoopMat")])
        return
    if arr[1] is not None:
        _check_length(ctx, inst, cm, arr, arr[0] != cm.component, "result array", None)


def _check_length(ctx: Context, inst, cm: CoopMat, arr: tuple[int, Value | None], packed: bool,
                  what: str, operand: int | None) -> None:
    want = _row_length(ctx, cm, packed)
    length = arr[1]
    if want is None or length is None or length.value == want[0]:
        return
    use = _use(cm)
    part = "column" if use == USE_B else "row"
    how = (f"{want[0]} u32 words hold one {part}" if packed else
           f"one {part} of the {ctx.ix.type_text(cm.id)} matrix has {want[0]} elements")
    ctx.report(inst, operand, f"the {what} has length {length.value}; {how}",
               [describe(ctx, cm, "the matrix", "rows" if use == USE_B else "cols")],
               spec_dependent=spec_dep(length, want[1]))


@rule("qcom.subarray.types", SUBARRAY,
      "Result Type must be a one-dimensional array type whose element type is the same as the element type of "
      "Source Array, which must be a 32-bit OpTypeInt or an OpTypeFloat with the default IEEE 754 encoding "
      "(32-bit or 16-bit).", source=QCOM)
def subarray_types(ctx: Context, inst) -> None:
    ix = ctx.ix
    src = inst.operands[0].value if inst.operands else None
    d = ix.defs.get(src) if src is not None else None
    res, arr = _array(ctx, inst.result_type), _array(ctx, d.result_type) if d is not None else None
    if res is None or arr is None:
        bad = "result type" if res is None else "Source Array"
        ctx.report(inst, None if res is None else 0, f"the {bad} is not an OpTypeArray "
                   f"({ix.type_text(inst.result_type) if res is None else ix.value_type_text(src)})")
        return
    if res[0] != arr[0]:
        ctx.report(inst, 0, f"the result holds {ix.type_text(res[0])} but the Source Array holds "
                   f"{ix.type_text(arr[0])}")
    elif ctx.ix.component_name(arr[0]) not in _ARRAY_ELEMENTS:
        ctx.report(inst, 0, f"the arrays hold {ix.type_text(arr[0])}; {SUBARRAY} takes arrays of "
                   f"{', '.join(_ARRAY_ELEMENTS)}")


@rule("qcom.subarray.index", SUBARRAY, "Start Index is a signed 32-bit OpTypeInt value.", source=QCOM)
def subarray_index(ctx: Context, inst) -> None:
    ix = ctx.ix
    if len(inst.operands) < 2:
        return
    o = inst.operands[1]
    d = ix.defs.get(o.value)
    if d is None:
        return
    it = ix.int_type(d.result_type)
    if it != (32, True):
        ctx.report(inst, o, f"Start Index {ix.name(o.value)} has type {ix.value_type_text(o.value)}; it must be "
                   "a signed 32-bit integer (i32)", [ctx.note_def(o.value, f"{ix.name(o.value)} is defined here")])


@rule("qcom.subarray.bounds", SUBARRAY,
      "(Start Index + Result Type's Length) must not be greater than Source Array's Length (checked where the "
      "Start Index is a constant).", source=QCOM)
def subarray_bounds(ctx: Context, inst) -> None:
    ix = ctx.ix
    if len(inst.operands) < 2:
        return
    d = ix.defs.get(inst.operands[0].value)
    res, arr = _array(ctx, inst.result_type), _array(ctx, d.result_type) if d is not None else None
    start = ix.int_value(inst.operands[1].value) if ix.is_constant_inst(inst.operands[1].value) else None
    if res is None or arr is None or start is None or res[1] is None or arr[1] is None:
        return
    if start.value < 0 or start.value + res[1].value > arr[1].value:
        ctx.report(inst, 1, f"the sub-array [{start.value}, {start.value + res[1].value}) is not inside the "
                   f"Source Array of length {arr[1].value}",
                   [Note("the behaviour is undefined outside the source array")],
                   spec_dependent=spec_dep(start, res[1], arr[1]))


@rule("qcom.bitcast.types", BITCAST,
      "Result Type and Source Array must be one-dimensional arrays whose element type is either a 32-bit "
      "OpTypeInt or an OpTypeFloat with the default IEEE 754 encoding (32-bit or 16-bit).", source=QCOM)
def bitcast_types(ctx: Context, inst) -> None:
    ix = ctx.ix
    src = inst.operands[0].value if inst.operands else None
    d = ix.defs.get(src) if src is not None else None
    for what, tid, operand in (("result type", inst.result_type, None),
                               ("Source Array", d.result_type if d is not None else None, 0)):
        if tid is None:
            continue
        arr = _array(ctx, tid)
        if arr is None:
            ctx.report(inst, operand, f"the {what} ({ix.type_text(tid)}) is not an OpTypeArray")
        elif ctx.ix.component_name(arr[0]) not in _ARRAY_ELEMENTS:
            ctx.report(inst, operand, f"the {what} holds {ix.type_text(arr[0])}; {BITCAST} takes arrays of "
                       f"{', '.join(_ARRAY_ELEMENTS)}")


@rule("qcom.bitcast.size", BITCAST, "The size of Result Type must be equal to the size of the Source Array's type.",
      source=QCOM)
def bitcast_size(ctx: Context, inst) -> None:
    ix = ctx.ix
    d = ix.defs.get(inst.operands[0].value) if inst.operands else None
    res, arr = _array(ctx, inst.result_type), _array(ctx, d.result_type) if d is not None else None
    if res is None or arr is None or res[1] is None or arr[1] is None:
        return
    wr, ws = _WIDTH.get(ctx.ix.component_name(res[0]) or ""), _WIDTH.get(ctx.ix.component_name(arr[0]) or "")
    if wr is None or ws is None or wr * res[1].value == ws * arr[1].value:
        return
    ctx.report(inst, 0, f"the Source Array is {ws * arr[1].value} bits ({arr[1].value} x {ix.type_text(arr[0])}) "
               f"but the result is {wr * res[1].value} bits ({res[1].value} x {ix.type_text(res[0])})",
               spec_dependent=spec_dep(res[1], arr[1]))

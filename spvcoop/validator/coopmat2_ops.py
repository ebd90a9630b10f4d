"""SPV_NV_cooperative_matrix2 arithmetic, conversion and function instructions: OpCooperativeMatrixReduceNV,
OpCooperativeMatrixPerElementOpNV, OpCooperativeMatrixTransposeNV, OpCooperativeMatrixConvertNV; the SPIR-V
version the extensions need; what the callback functions may contain."""
from __future__ import annotations

from ..core.diagnostics import Note
from .coopmat_types import describe
from .index import USE_VALUES, CoopMat
from .coopmat2_tensor import addressing_operands
from .registry import MODULE, Context, rule, spec_dep

CM2 = "SPV_NV_cooperative_matrix2"
ACC, MAT_A, MAT_B = USE_VALUES["MatrixAccumulator"], USE_VALUES["MatrixA"], USE_VALUES["MatrixB"]
ROW, COLUMN, TWO_BY_TWO = 1, 2, 4
CM2_CAPS = ("CooperativeMatrixReductionsNV", "CooperativeMatrixConversionsNV",
            "CooperativeMatrixPerElementOperationsNV", "CooperativeMatrixTensorAddressingNV",
            "CooperativeMatrixBlockLoadsNV", "TensorAddressingNV")


@rule("coopmat2.version", MODULE, "This extension requires SPIR-V 1.6.",
      source=f"{CM2} / SPV_NV_tensor_addressing")
def spirv_version(ctx: Context, _inst) -> None:
    ix = ctx.ix
    if ix.version >= (1, 6):
        return
    for cap in CM2_CAPS:
        inst = ix.capabilities.get(cap)
        if inst is not None:
            ctx.report(inst, 0, f"capability {cap} needs SPIR-V 1.6, but the module is SPIR-V "
                       f"{ix.version[0]}.{ix.version[1]}", [Note("assemble with --target-env spv1.6 or vulkan1.3")])


def _khr(ctx: Context, type_id: int | None) -> CoopMat | None:
    cm = ctx.ix.coopmat(type_id)
    return cm if cm is not None and cm.flavour == "KHR" else None


def _func_type(ctx: Context, func_id: int):
    """(the OpFunction, its OpTypeFunction) or (None, None)."""
    f = ctx.ix.defs.get(func_id)
    if f is None or f.opname != "OpFunction" or len(f.operands) < 2:
        return None, None
    ft = ctx.ix.defs.get(f.operands[1].as_int)
    return (f, ft) if ft is not None and ft.opname == "OpTypeFunction" else (f, None)


def _use_name(v) -> str:
    return {ACC: "MatrixAccumulatorKHR", MAT_A: "MatrixAKHR", MAT_B: "MatrixBKHR"}.get(v.value, f"Use {v.value}")


# ---- Reduce ----------------------------------------------------------------------------------------

def _khr_of(ctx: Context, value_id: int) -> CoopMat | None:
    cm = ctx.ix.coopmat_of(value_id)
    return cm if cm is not None and cm.flavour == "KHR" else None


def _reduce_types(ctx: Context, inst) -> tuple[CoopMat | None, CoopMat | None]:
    return _khr(ctx, inst.result_type), _khr_of(ctx, inst.operands[0].value)


@rule("coopmat2.reduce.type", "OpCooperativeMatrixReduceNV",
      "'Result Type' must be an OpTypeCooperativeMatrixKHR type. The type of 'Matrix' must be an "
      "OpTypeCooperativeMatrixKHR with the same 'Component Type' as 'Result Type'.", source=CM2)
def reduce_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    res, mat = _reduce_types(ctx, inst)
    if res is None:
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is not "
                   "an OpTypeCooperativeMatrixKHR")
    m = inst.operands[0].value
    if mat is None:
        ctx.report(inst, 0, f"Matrix {ix.name(m)} has type {ix.value_type_text(m)}, not an OpTypeCooperativeMatrixKHR",
                   [ctx.note_def(m, "Matrix defined here")])
    if res is not None and mat is not None and res.component != mat.component:
        ctx.report(inst, 0, f"Matrix has {ix.type_text(mat.component)} components but the result type "
                   f"{ix.type_text(res.component)}", [describe(ctx, mat, "Matrix"), describe(ctx, res, "Result")])


@rule("coopmat2.reduce.use", "OpCooperativeMatrixReduceNV",
      "The type of 'Matrix' and 'Result Type' must each have 'Use' of MatrixAccumulatorKHR.", source=CM2)
def reduce_use(ctx: Context, inst) -> None:
    res, mat = _reduce_types(ctx, inst)
    for cm, role, at in ((res, "Result", None), (mat, "Matrix", 0)):
        if cm is not None and cm.use is not None and cm.use.value != ACC:
            ctx.report(inst, at, f"{role} has Use {_use_name(cm.use)}; OpCooperativeMatrixReduceNV needs "
                       "MatrixAccumulatorKHR", [describe(ctx, cm, role, "use")], spec_dependent=cm.use.spec)


@rule("coopmat2.reduce.scope", "OpCooperativeMatrixReduceNV",
      "The type of 'Matrix' and 'Result Type' ... must have matching 'Scope' (compared by value).", source=CM2)
def reduce_scope(ctx: Context, inst) -> None:
    res, mat = _reduce_types(ctx, inst)
    if res is None or mat is None or res.scope is None or mat.scope is None or res.scope.value == mat.scope.value:
        return
    ctx.report(inst, 0, f"Matrix has scope {ctx.ix.scope_name(mat.scope)} but the result type "
               f"{ctx.ix.scope_name(res.scope)}", [describe(ctx, mat, "Matrix", "scope"),
                                                    describe(ctx, res, "Result", "scope")],
               spec_dependent=spec_dep(res.scope, mat.scope))


@rule("coopmat2.reduce.mode", "OpCooperativeMatrixReduceNV",
      "It is invalid to combine 2x2 with Row or Column.", source=CM2)
def reduce_mode(ctx: Context, inst) -> None:
    mode = inst.operands[1].value
    if mode & TWO_BY_TWO and mode & (ROW | COLUMN):
        ctx.report(inst, 1, "Reduce combines 2x2 with Row or Column")


@rule("coopmat2.reduce.shape", "OpCooperativeMatrixReduceNV",
      "If 'Reduce' includes 2x2, the dimensions of 'Result Type' must be half of the dimensions of 'Matrix'. If "
      "'Reduce' equals Row, 'Result Type' must have the same number of rows as 'Matrix'; if it equals Column, the "
      "same number of columns. Row|Column allows any dimensions.", source=CM2)
def reduce_shape(ctx: Context, inst) -> None:
    res, mat = _reduce_types(ctx, inst)
    mode = inst.operands[1].value
    if res is None or mat is None:
        return
    notes = [describe(ctx, mat, "Matrix"), describe(ctx, res, "Result")]
    if mode & TWO_BY_TWO:
        for name, r, m in (("rows", res.rows, mat.rows), ("columns", res.cols, mat.cols)):
            if r is not None and m is not None and r.value != m.value // 2:
                ctx.report(inst, 1, f"a 2x2 reduction of a {mat.shape()} matrix gives {m.value // 2} {name}, but the "
                           f"result type has {r.value}", notes, spec_dependent=spec_dep(r, m))
    elif mode in (ROW, COLUMN):
        name, r, m = ("rows", res.rows, mat.rows) if mode == ROW else ("columns", res.cols, mat.cols)
        if r is not None and m is not None and r.value != m.value:
            ctx.report(inst, 1, f"a {'Row' if mode == ROW else 'Column'} reduction keeps the {name} ({m.value}) "
                       f"but the result type has {r.value}", notes, spec_dependent=spec_dep(r, m))


@rule("coopmat2.reduce.combine", "OpCooperativeMatrixReduceNV",
      "'CombineFunc' must be an OpFunction with two parameters whose types and result type all match the "
      "component type of 'Matrix'.", source=CM2)
def reduce_combine(ctx: Context, inst) -> None:
    ix = ctx.ix
    fid = inst.operands[2].value
    f, ft = _func_type(ctx, fid)
    if f is None:
        ctx.report(inst, 2, f"CombineFunc {ix.name(fid)} is not an OpFunction", [ctx.note_def(fid, "defined here")])
        return
    if ft is None:
        return
    note = [ctx.note_def(fid, "CombineFunc defined here")]
    types = [o.value for o in ft.operands]  # return type, then parameter types
    if len(types) != 3:
        ctx.report(inst, 2, f"CombineFunc {ix.name(fid)} has {len(types) - 1} parameters; it must have two", note)
        return
    _, mat = _reduce_types(ctx, inst)
    if mat is None:
        return
    for what, t in zip(("return type", "first parameter", "second parameter"), types, strict=False):
        if t != mat.component:
            ctx.report(inst, 2, f"CombineFunc's {what} is {ix.type_text(t)}; it must be the Matrix component type "
                       f"{ix.type_text(mat.component)}", note + [describe(ctx, mat, "Matrix")])


# ---- PerElementOp ----------------------------------------------------------------------------------

@rule("coopmat2.per_element.matrix", "OpCooperativeMatrixPerElementOpNV",
      "The type of 'Matrix' must be an OpTypeCooperativeMatrixKHR. 'Result Type' must match the type of 'Matrix'.",
      source=CM2)
def per_element_matrix(ctx: Context, inst) -> None:
    ix = ctx.ix
    m = inst.operands[0].value
    d = ix.defs.get(m)
    if d is None:
        return
    if _khr(ctx, d.result_type) is None:
        ctx.report(inst, 0, f"Matrix {ix.name(m)} has type {ix.value_type_text(m)}, not an "
                   "OpTypeCooperativeMatrixKHR", [ctx.note_def(m, "Matrix defined here")])
    elif d.result_type != inst.result_type:
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) differs "
                   f"from the type of Matrix, {ix.name(d.result_type)} ({ix.type_text(d.result_type)})",
                   [ctx.note_def(d.result_type, "Matrix type declared here")])


@rule("coopmat2.per_element.func", "OpCooperativeMatrixPerElementOpNV",
      "'Func' must be an OpFunction whose return type must match the component type of 'Matrix', whose first two "
      "parameters must be 32-bit integer types, whose third parameter type must match the component type of "
      "'Matrix', and which may have additional parameters.", source=CM2)
def per_element_func(ctx: Context, inst) -> None:
    ix = ctx.ix
    fid = inst.operands[1].value
    f, ft = _func_type(ctx, fid)
    if f is None:
        ctx.report(inst, 1, f"Func {ix.name(fid)} is not an OpFunction", [ctx.note_def(fid, "defined here")])
        return
    mat = _khr_of(ctx, inst.operands[0].value)
    if ft is None or mat is None:
        return
    note = [ctx.note_def(fid, "Func defined here"), describe(ctx, mat, "Matrix")]
    ret, params = ft.operands[0].value, [o.value for o in ft.operands[1:]]
    if ret != mat.component:
        ctx.report(inst, 1, f"Func returns {ix.type_text(ret)}; it must return the Matrix component type "
                   f"{ix.type_text(mat.component)}", note)
    if len(params) < 3:
        ctx.report(inst, 1, f"Func has {len(params)} parameters; it needs at least three (row, column, element)", note)
        return
    for i, what in ((0, "first (row)"), (1, "second (column)")):
        it = ix.int_type(params[i])
        if it is None or it[0] != 32:
            ctx.report(inst, 1, f"Func's {what} parameter is {ix.type_text(params[i])}; it must be a 32-bit integer",
                       note)
    if params[2] != mat.component:
        ctx.report(inst, 1, f"Func's third (element) parameter is {ix.type_text(params[2])}; it must be the Matrix "
                   f"component type {ix.type_text(mat.component)}", note)


@rule("coopmat2.per_element.operands", "OpCooperativeMatrixPerElementOpNV",
      "Any optional operands are passed in order as the remaining parameters of 'Func'; for an additional "
      "cooperative matrix operand the corresponding component is passed (so it has the shape of 'Matrix' and its "
      "component type is the parameter type). An additional cooperative matrix operand must have the type of "
      "'Matrix'.", source=CM2)
def per_element_operands(ctx: Context, inst) -> None:
    ix = ctx.ix
    f, ft = _func_type(ctx, inst.operands[1].value)
    if ft is None or len(ft.operands) < 4:
        return
    extra_params = [o.value for o in ft.operands[4:]]
    extra_ops = inst.operands[2:]
    note = [ctx.note_def(f.result_id, "Func defined here")]
    if len(extra_ops) != len(extra_params):
        ctx.report(inst, extra_ops[len(extra_params)] if len(extra_ops) > len(extra_params) else None,
                   f"{len(extra_ops)} additional operand{'s' if len(extra_ops) != 1 else ''} for a Func with "
                   f"{len(extra_params)} additional parameter{'s' if len(extra_params) != 1 else ''}", note)
    mat = ix.coopmat_of(inst.operands[0].value)
    for o, p in zip(extra_ops, extra_params, strict=False):
        d = ix.defs.get(o.value)
        if d is None:
            continue
        cm = ix.coopmat(d.result_type)
        if cm is None:
            if d.result_type != p:
                ctx.report(inst, o, f"operand {ix.name(o.value)} has type {ix.value_type_text(o.value)} but the "
                           f"matching parameter of Func has type {ix.type_text(p)}", note)
            continue
        if cm.component != p:
            ctx.report(inst, o, f"matrix operand {ix.name(o.value)} has {ix.type_text(cm.component)} components but "
                       f"the matching parameter of Func has type {ix.type_text(p)}",
                       note + [describe(ctx, cm, "operand")])
        if mat is not None and any(a is not None and b is not None and a.value != b.value
                                   for a, b in ((cm.rows, mat.rows), (cm.cols, mat.cols), (cm.scope, mat.scope))):
            ctx.report(inst, o, f"matrix operand {ix.name(o.value)} is {cm.shape()}, Matrix is {mat.shape()}: "
                       "not every element has a corresponding component",
                       [describe(ctx, cm, "operand"), describe(ctx, mat, "Matrix")],
                       spec_dependent=spec_dep(cm.rows, cm.cols, mat.rows, mat.cols))
            continue
        mt = ix.defs.get(inst.operands[0].value)
        if mat is not None and mt is not None and cm.component == p and d.result_type != mt.result_type:
            # same components and shape, another type (its Use): spirv-val does not check optional operands
            ctx.report(inst, o, f"matrix operand {ix.name(o.value)} has type {ix.value_type_text(o.value)}; it must "
                       f"have the type of Matrix, {ix.value_type_text(inst.operands[0].value)}",
                       [describe(ctx, cm, "operand"), describe(ctx, mat, "Matrix")])


# ---- Transpose and ConvertNV -----------------------------------------------------------------------

def _pair(ctx: Context, inst) -> tuple[CoopMat | None, CoopMat | None]:
    return ctx.ix.coopmat(inst.result_type), ctx.ix.coopmat_of(inst.operands[0].value)


CHANGE_USE = ("OpCooperativeMatrixTransposeNV", "OpCooperativeMatrixConvertNV")


@rule("coopmat2.change_use.type", CHANGE_USE,
      "'Result Type' must be an OpTypeCooperativeMatrixKHR; the type of 'Matrix' must be an "
      "OpTypeCooperativeMatrixKHR.", source=CM2)
def change_use_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    res, mat = _pair(ctx, inst)
    if res is None:
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is not "
                   "a cooperative matrix type")
    if mat is None:
        m = inst.operands[0].value
        ctx.report(inst, 0, f"Matrix {ix.name(m)} has type {ix.value_type_text(m)}, not a cooperative matrix type",
                   [ctx.note_def(m, "Matrix defined here")])


@rule("coopmat2.change_use.khr", CHANGE_USE,
      "'Result Type' must be an OpTypeCooperativeMatrixKHR; the type of 'Matrix' must be an "
      "OpTypeCooperativeMatrixKHR (SPV_NV_cooperative_matrix types have no Use to change).", source=CM2)
def change_use_khr(ctx: Context, inst) -> None:
    res, mat = _pair(ctx, inst)
    for cm, role, at in ((res, "Result", None), (mat, "Matrix", 0)):
        if cm is not None and cm.flavour != "KHR":
            ctx.report(inst, at, f"{role} is an OpTypeCooperativeMatrixNV; {inst.opname} takes "
                       "OpTypeCooperativeMatrixKHR types", [describe(ctx, cm, role)])


@rule("coopmat2.change_use.shape", CHANGE_USE,
      "OpCooperativeMatrixConvertNV: 'Matrix' has the same 'Component Type', 'Scope', 'Rows' and 'Columns' as "
      "'Result Type'. OpCooperativeMatrixTransposeNV: the same 'Scope', with 'Rows' and 'Columns' swapped.",
      source=CM2)
def change_use_shape(ctx: Context, inst) -> None:
    ix = ctx.ix
    res, mat = _pair(ctx, inst)
    if res is None or mat is None:
        return
    swap = inst.opname == "OpCooperativeMatrixTransposeNV"
    checks = [("scope", res.scope, mat.scope, "scope", "scope"),
              ("rows", res.rows, mat.cols if swap else mat.rows, "rows", "cols" if swap else "rows"),
              ("columns", res.cols, mat.rows if swap else mat.cols, "cols", "rows" if swap else "cols")]
    for name, a, b, fa, fb in checks:
        if a is None or b is None or a.value == b.value:
            continue
        mname = {"rows": "columns", "columns": "rows"}.get(name, name) if swap else name
        ctx.report(inst, 0, f"{inst.opname}: the result has {name} {a.value} but Matrix has {mname} {b.value}"
                   + (" (a transpose swaps rows and columns)" if swap and name != "scope" else ""),
                   [describe(ctx, mat, "Matrix", fb), describe(ctx, res, "Result", fa)], spec_dependent=spec_dep(a, b))
    if not swap and res.component != mat.component:
        ctx.report(inst, 0, f"OpCooperativeMatrixConvertNV keeps the component type, but Matrix has "
                   f"{ix.type_text(mat.component)} and the result {ix.type_text(res.component)} components; use "
                   "Op{F,S,U}Convert to change both", [describe(ctx, mat, "Matrix"), describe(ctx, res, "Result")])


@rule("coopmat2.change_use.use", CHANGE_USE,
      "OpCooperativeMatrixTransposeNV: the 'Use' of 'Result Type' must be MatrixBKHR. OpCooperativeMatrixConvertNV: "
      "a Use may change only from MatrixAccumulatorKHR to MatrixAKHR or MatrixBKHR.", source=CM2)
def change_use_use(ctx: Context, inst) -> None:
    res, mat = _pair(ctx, inst)
    if res is None or res.use is None:
        return
    if inst.opname == "OpCooperativeMatrixTransposeNV":
        if res.use.value != MAT_B:
            ctx.report(inst, None, f"the result has Use {_use_name(res.use)}; a transpose gives MatrixBKHR",
                       [describe(ctx, res, "Result", "use")], spec_dependent=res.use.spec)
        return
    if mat is None or mat.use is None or mat.use.value == res.use.value:
        return
    if not (mat.use.value == ACC and res.use.value in (MAT_A, MAT_B)):
        ctx.report(inst, 0, f"conversion from Use {_use_name(mat.use)} to {_use_name(res.use)}; only "
                   "MatrixAccumulatorKHR to MatrixAKHR or MatrixBKHR is allowed",
                   [describe(ctx, mat, "Matrix", "use"), describe(ctx, res, "Result", "use")],
                   spec_dependent=spec_dep(mat.use, res.use))


@rule("coopmat2.change_use.from_accumulator", CHANGE_USE,
      "The 'Use' of 'Matrix' must be MatrixAccumulatorKHR (and, OpCooperativeMatrixConvertNV, the 'Use' of "
      "'Result Type' MatrixAKHR or MatrixBKHR).", source=CM2)
def change_use_from_accumulator(ctx: Context, inst) -> None:
    res, mat = _pair(ctx, inst)
    if mat is not None and mat.use is not None and mat.use.value != ACC:
        ctx.report(inst, 0, f"Matrix has Use {_use_name(mat.use)}; {inst.opname} converts a MatrixAccumulatorKHR",
                   [describe(ctx, mat, "Matrix", "use")], spec_dependent=mat.use.spec)
    if inst.opname == "OpCooperativeMatrixConvertNV" and res is not None and res.use is not None \
            and res.use.value not in (MAT_A, MAT_B):
        ctx.report(inst, None, f"the result has Use {_use_name(res.use)}; OpCooperativeMatrixConvertNV gives "
                   "MatrixAKHR or MatrixBKHR", [describe(ctx, res, "Result", "use")], spec_dependent=res.use.spec)


@rule("coopmat2.transpose.component", "OpCooperativeMatrixTransposeNV",
      "OpCooperativeMatrixTransposeNV 'converts a cooperative matrix from MatrixAccumulatorKHR to MatrixBKHR and "
      "transposes the matrix'; it does not say whether the Component Type may change (warning).",
      severity="warning", source=CM2)
def transpose_component(ctx: Context, inst) -> None:
    res, mat = _pair(ctx, inst)
    if res is not None and mat is not None and res.component != mat.component:
        ctx.report(inst, 0, f"the transpose also changes the component type ({ctx.ix.type_text(mat.component)} to "
                   f"{ctx.ix.type_text(res.component)}); convert with Op{{F,S,U}}Convert first",
                   [describe(ctx, mat, "Matrix"), describe(ctx, res, "Result")])


# ---- the callbacks ---------------------------------------------------------------------------------

CALLBACK_OPERAND = {"OpCooperativeMatrixReduceNV": 2, "OpCooperativeMatrixPerElementOpNV": 1}
_TANGLED_PREFIXES = ("OpGroup", "OpSubgroup", "OpDPd", "OpFwidth", "OpCooperativeMatrix", "OpCooperativeVector")
_TANGLED = frozenset({"OpControlBarrier", "OpImageQueryLod", "OpTerminateInvocation", "OpKill",
                      "OpDemoteToHelperInvocation", "OpBeginInvocationInterlockEXT", "OpEndInvocationInterlockEXT"})


def _tangled(opname: str) -> bool:
    return (opname in _TANGLED or opname.startswith(_TANGLED_PREFIXES)
            or (opname.startswith("OpImage") and "ImplicitLod" in opname))


def tangled_in(ix, func_id: int):
    """(the first tangled instruction in `func_id` or a function it calls, the function holding it)."""
    bodies = ix.module_facts.bodies
    stack, seen = [func_id], set()
    while stack:
        fid = stack.pop()
        if fid in seen:
            continue
        seen.add(fid)
        for inst in bodies.get(fid, ()):
            if _tangled(inst.opname):
                return inst, fid
            if inst.opname == "OpFunctionCall" and inst.operands:
                stack.append(inst.operands[0].value)
    return None, None


@rule("coopmat2.callback.tangled", ("OpCooperativeMatrixReduceNV", "OpCooperativeMatrixPerElementOpNV",
                                    "OpCooperativeMatrixLoadTensorNV"),
      "In any function used as a DecodeFunc, Func or CombineFunc parameter, and any function called directly or "
      "indirectly by those functions, tangled instructions (barriers, group and subgroup operations, derivatives, "
      "implicit-LOD sampling, cooperative matrix instructions) are not allowed.", source=CM2)
def callback_tangled(ctx: Context, inst) -> None:
    ix = ctx.ix
    if inst.opname == "OpCooperativeMatrixLoadTensorNV":
        o = addressing_operands(inst).decode
    else:
        i = CALLBACK_OPERAND[inst.opname]
        o = inst.operands[i] if i < len(inst.operands) else None
    if o is None or ix.defs.get(o.as_int) is None or ix.defs[o.as_int].opname != "OpFunction":
        return
    bad, holder = tangled_in(ix, o.as_int)
    if bad is not None:
        where = "" if holder == o.value else f" (in {ix.name(holder)}, which it calls)"
        ctx.report(inst, o, f"callback {ix.name(o.as_int)} executes the tangled instruction {bad.opname}{where}",
                   [Note(f"{bad.opname} is here", bad.span)])

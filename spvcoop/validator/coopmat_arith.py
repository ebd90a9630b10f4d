"""MulAdd, element-wise arithmetic, MatrixTimesScalar, OpSelect and unsupported ops
(1G, 1H; L5, L6, L11-L13, S2, S3)."""
from __future__ import annotations

from .coopmat_types import describe
from .index import USE_NAMES, USE_VALUES, CoopMat
from .registry import MODULE, Context, rule, spec_dep

NV = "SPV_NV_cooperative_matrix"
KHR = "SPV_KHR_cooperative_matrix"
MULADDS = ("OpCooperativeMatrixMulAddNV", "OpCooperativeMatrixMulAddKHR")
ROLES = ("A", "B", "C")


def _muladd_types(ctx: Context, inst) -> dict[str, CoopMat | None]:
    ix = ctx.ix
    out: dict[str, CoopMat | None] = {"Result": ix.coopmat(inst.result_type)}
    for role, o in zip(ROLES, inst.operands[:3], strict=False):
        out[role] = ix.coopmat_of(o.value)
    return out


def _operand_index(role: str) -> int | None:
    return ROLES.index(role) if role in ROLES else None


@rule("coopmat.muladd.operand_type", MULADDS,
      "A, B, C and Result Type must be cooperative matrix types of the instruction's flavour.",
      source=f"{NV} / {KHR}")
def muladd_operand_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    want = "NV" if inst.opname.endswith("NV") else "KHR"
    types = _muladd_types(ctx, inst)
    for role, cm in types.items():
        if cm is not None and cm.flavour == want:
            continue
        if role == "Result":
            ctx.report(inst, None, f"result type {ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is "
                       f"not an OpTypeCooperativeMatrix{want}")
        else:
            o = inst.operands[_operand_index(role)]
            ctx.report(inst, o, f"{role} ({ix.name(o.value)}) has type {ix.value_type_text(o.value)}, not an "
                       f"OpTypeCooperativeMatrix{want}", [ctx.note_def(o.value, f"{role} defined here")])


_USE_WANT = {"A": USE_VALUES["MatrixA"], "B": USE_VALUES["MatrixB"], "C": USE_VALUES["MatrixAccumulator"],
             "Result": USE_VALUES["MatrixAccumulator"]}


@rule("coopmat.muladd.use", "OpCooperativeMatrixMulAddKHR",
      "A must have Use MatrixAKHR, B MatrixBKHR, C and Result Type MatrixAccumulatorKHR.", source=KHR)
def muladd_use(ctx: Context, inst) -> None:
    types = _muladd_types(ctx, inst)
    for role, cm in types.items():
        if cm is None or cm.flavour != "KHR" or cm.use is None:
            continue
        want = _USE_WANT[role]
        if cm.use.value != want:
            got = USE_NAMES.get(cm.use.value, str(cm.use.value))
            ctx.report(inst, _operand_index(role) if role != "Result" else None,
                       f"{role} has Use {got}; OpCooperativeMatrixMulAddKHR needs {USE_NAMES[want]}KHR for {role}",
                       [describe(ctx, cm, role)], spec_dependent=cm.use.spec)


def _dim_check(ctx: Context, inst, letter: str, pairs: list[tuple[str, str, CoopMat, str]]) -> None:
    """pairs: (role, 'rows'|'cols'|'scope', type, _); the value most roles agree on is the reference
    (ties: the first role), and every role that disagrees is reported at its operand."""
    vals = [(role, getattr(cm, attr), cm, attr) for role, attr, cm, _ in pairs]
    vals = [v for v in vals if v[1] is not None]
    if len(vals) < 2:
        return
    counts: dict[int, int] = {}
    for _, v, _, _ in vals:
        counts[v.value] = counts.get(v.value, 0) + 1
    best = max(counts.values())
    ref_role, ref, ref_cm, ref_attr = next(x for x in vals if counts[x[1].value] == best)
    agree = [r for r, v, _, _ in vals if v.value == ref.value]
    show = (lambda v: ctx.ix.scope_name(v)) if letter == "scope" else (lambda v: f"{letter}={v.value}")
    for role, v, cm, attr in vals:
        if v.value == ref.value:
            continue
        others = " and ".join(agree)
        what = "scopes differ" if letter == "scope" else f"{letter} mismatch"
        have = "has" if len(agree) == 1 else "have"
        mine = f"has scope {show(v)}" if letter == "scope" else f"is {cm.shape()} ({show(v)})"
        ctx.report(inst, _operand_index(role) if role != "Result" else None,
                   f"cooperative matrix {what}: {role} {mine} but {others} {have} {show(ref)}",
                   [describe(ctx, cm, role, attr), describe(ctx, ref_cm, ref_role, ref_attr)],
                   spec_dependent=spec_dep(ref, v))


@rule("coopmat.muladd.m", MULADDS, "A and C (and Result) must have M rows.", source=f"{NV} / {KHR}")
def muladd_m(ctx: Context, inst) -> None:
    t = _muladd_types(ctx, inst)
    pairs = [(r, "rows", t[r], "") for r in ("A", "C", "Result") if t[r] is not None]
    _dim_check(ctx, inst, "M", pairs)  # type: ignore[arg-type]


@rule("coopmat.muladd.n", MULADDS, "B and C (and Result) must have N columns.", source=f"{NV} / {KHR}")
def muladd_n(ctx: Context, inst) -> None:
    t = _muladd_types(ctx, inst)
    pairs = [(r, "cols", t[r], "") for r in ("B", "C", "Result") if t[r] is not None]
    _dim_check(ctx, inst, "N", pairs)  # type: ignore[arg-type]


@rule("coopmat.muladd.k", MULADDS, "A must have K columns and B must have K rows.", source=f"{NV} / {KHR}")
def muladd_k(ctx: Context, inst) -> None:
    t = _muladd_types(ctx, inst)
    a, b = t["A"], t["B"]
    if a is None or b is None or a.cols is None or b.rows is None:
        return
    if a.cols.value != b.rows.value:
        ctx.report(inst, 1, f"cooperative matrix K mismatch: A is {a.shape()} (K={a.cols.value}) "
                   f"but B is {b.shape()} (K={b.rows.value})",
                   [describe(ctx, a, "A", "cols"), describe(ctx, b, "B", "rows")],
                   spec_dependent=spec_dep(a.cols, b.rows))


@rule("coopmat.muladd.scope", MULADDS, "The matrices must all have the same scope.", source=f"{NV} / {KHR}")
def muladd_scope(ctx: Context, inst) -> None:
    t = _muladd_types(ctx, inst)
    _dim_check(ctx, inst, "scope", [(r, "scope", cm, "") for r in ("A", "B", "C", "Result")
                                    if (cm := t[r]) is not None])


_SIGNED_BITS = {1: "A", 2: "B", 4: "C", 8: "Result"}


@rule("coopmat.muladd.operands", "OpCooperativeMatrixMulAddKHR",
      "MatrixASignedComponentsKHR (B, C, Result likewise) can only be used when the type of the corresponding "
      "matrix is an integer type; SaturatingAccumulationKHR only makes sense for integer C/Result (warning).",
      source=KHR)
def muladd_operands(ctx: Context, inst) -> None:
    ix = ctx.ix
    mask = next((o for o in inst.operands[3:] if o.kind == "CooperativeMatrixOperands"), None)
    if mask is None or not mask.value:
        return
    t = _muladd_types(ctx, inst)
    for bit, role in _SIGNED_BITS.items():
        cm = t[role]
        if mask.value & bit and cm is not None:
            sk = ix.scalar_kind(cm.component)
            if sk is not None and sk[0] == "float":
                ctx.report(inst, mask, f"Matrix{role}SignedComponentsKHR is set but {role} has float components "
                           f"({ix.type_text(cm.id)})", [describe(ctx, cm, role)])
    c = t["C"]
    if mask.value & 16 and c is not None:
        sk = ix.scalar_kind(c.component)
        if sk is not None and sk[0] == "float":
            ctx.report(inst, mask, "SaturatingAccumulationKHR is set on a float accumulator",
                       [describe(ctx, c, "C")], severity="warning")


# ---- element-wise ---------------------------------------------------------------------------------

FLOAT_OPS = {"OpFAdd", "OpFSub", "OpFDiv", "OpFNegate", "OpFMul", "OpFmaKHR"}
SINT_OPS = {"OpIAdd", "OpISub", "OpSDiv", "OpSNegate", "OpIMul"}
UINT_OPS = {"OpUDiv"}
KHR_ONLY = {"OpFMul", "OpIMul", "OpFmaKHR"}
NEVER = {"OpFRem", "OpFMod", "OpSRem", "OpSMod", "OpUMod"}
ELEMENTWISE = FLOAT_OPS | SINT_OPS | UINT_OPS


@rule("coopmat.arith.opcode", tuple(sorted(ELEMENTWISE | NEVER)),
      "Arithmetic instructions OpFAdd, OpFSub, OpFDiv, OpFNegate, OpIAdd, OpISub, OpSDiv, OpUDiv, OpSNegate "
      "(KHR also OpFMul, OpIMul) operate on cooperative matrices of the matching component kind.",
      source=f"{NV} / {KHR}", coopmat_only=True)
def arith_opcode(ctx: Context, inst) -> None:
    ix = ctx.ix
    cm = ix.coopmat(inst.result_type)
    if cm is None:
        return
    if inst.opname in NEVER:
        ctx.report(inst, None, f"{inst.opname} is not allowed on cooperative matrices")
        return
    if inst.opname in KHR_ONLY and cm.flavour == "NV":
        ctx.report(inst, None, f"{inst.opname} is not allowed on NV cooperative matrices "
                   "(only SPV_KHR_cooperative_matrix allows it); use OpMatrixTimesScalar or a KHR type",
                   [describe(ctx, cm, "Result")])
        return
    sk = ix.scalar_kind(cm.component)
    if sk is None:
        return
    want = "float" if inst.opname in FLOAT_OPS else ("uint" if inst.opname in UINT_OPS else "int")
    ok = sk[0] == want or (want == "int" and sk[0] == "uint")
    if not ok:
        ctx.report(inst, None, f"{inst.opname} needs a {want} cooperative matrix but the result type is "
                   f"{ix.type_text(cm.id)}", [describe(ctx, cm, "Result")])


def _same_type(a: CoopMat, b: CoopMat) -> bool:
    """KHR: equal by value (like spirv-val); NV: the same type id (spec: types must match)."""
    if a.id == b.id:
        return True
    if a.flavour != b.flavour or a.flavour == "NV":
        return False
    return a.component == b.component and all(
        x is not None and y is not None and x.value == y.value
        for x, y in ((a.scope, b.scope), (a.rows, b.rows), (a.cols, b.cols), (a.use, b.use)))


@rule("coopmat.arith.operand_type", tuple(sorted(ELEMENTWISE | {"OpSelect"})),
      "Arithmetic instructions operate on a pair of cooperative matrices whose type must match the Result "
      "Type (same component type, scope, rows, columns and use).", source=f"{NV} / {KHR}", coopmat_only=True)
def arith_operand_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    res = ix.coopmat(inst.result_type)
    start = 1 if inst.opname == "OpSelect" else 0
    ops = inst.operands[start:]
    if res is None:
        for o in ops:
            cm = ix.coopmat_of(o.value)
            if cm is not None:
                ctx.report(inst, o, f"operand {ix.name(o.value)} is a cooperative matrix but the result type "
                           f"{ix.name(inst.result_type)} ({ix.type_text(inst.result_type)}) is not",
                           [describe(ctx, cm, "operand")])
        return
    seen: set[int] = set()
    for o in ops:
        d = ix.defs.get(o.value)
        if d is None or o.value in seen:
            continue
        seen.add(o.value)
        cm = ix.coopmat(d.result_type)
        if cm is None:
            ctx.report(inst, o, f"operand {ix.name(o.value)} has type {ix.value_type_text(o.value)}; it must have "
                       f"the result type {ix.type_text(res.id)}", [describe(ctx, res, "Result")])
        elif not _same_type(res, cm):
            ctx.report(inst, o, f"operand {ix.name(o.value)} has type {ix.name(cm.id)} ({ix.type_text(cm.id)}) but "
                       f"the result type is {ix.name(res.id)} ({ix.type_text(res.id)})",
                       [describe(ctx, cm, "operand"), describe(ctx, res, "Result")],
                       spec_dependent=spec_dep(cm.rows, cm.cols, cm.scope, cm.use))


@rule("coopmat.select.condition", "OpSelect",
      "OpSelect on composites (cooperative matrices are composites) needs SPIR-V 1.4 and a scalar boolean "
      "Condition.", source="SPIR-V core OpSelect", coopmat_only=True)
def select_condition(ctx: Context, inst) -> None:
    ix = ctx.ix
    if ix.coopmat(inst.result_type) is None or not inst.operands:
        return
    d = ix.defs.get(inst.operands[0].value)
    if d is not None and ix.scalar_kind(d.result_type) != ("bool", 1):
        ctx.report(inst, 0, f"condition {ix.name(inst.operands[0].value)} must be a scalar boolean to select a "
                   "cooperative matrix")
    if ix.version < (1, 4):
        ctx.report(inst, None, "OpSelect on a cooperative matrix (a composite) needs SPIR-V 1.4")


@rule("coopmat.matrix_times_scalar", "OpMatrixTimesScalar",
      "OpMatrixTimesScalar is allowed on cooperative matrices: Matrix must have the Result Type and Scalar "
      "the component type.", source=f"{NV} / {KHR}", coopmat_only=True)
def matrix_times_scalar(ctx: Context, inst) -> None:
    ix = ctx.ix
    res = ix.coopmat(inst.result_type)
    if res is None or len(inst.operands) < 2:
        return
    m, s = inst.operands[0], inst.operands[1]
    md = ix.defs.get(m.value)
    if md is not None:
        mcm = ix.coopmat(md.result_type)
        if mcm is None or not _same_type(res, mcm):
            ctx.report(inst, m, f"matrix operand {ix.name(m.value)} has type {ix.type_text(md.result_type)}; "
                       f"it must have the result type {ix.type_text(res.id)}", [describe(ctx, res, "Result")])
    sd = ix.defs.get(s.value)
    if sd is not None and sd.result_type != res.component:
        ctx.report(inst, s, f"scalar {ix.name(s.value)} has type {ix.type_text(sd.result_type)} but the matrix "
                   f"component type is {ix.type_text(res.component)}", [describe(ctx, res, "Result")])


@rule("coopmat.matrix_times_scalar.int", "OpMatrixTimesScalar",
      "OpMatrixTimesScalar is defined for floating-point matrices; the extensions only say 'allow cooperative "
      "matrix types', so integer cooperative matrices are ambiguous (warning).", severity="warning",
      source="SPIR-V core OpMatrixTimesScalar", coopmat_only=True)
def matrix_times_scalar_int(ctx: Context, inst) -> None:
    res = ctx.ix.coopmat(inst.result_type)
    if res is None:
        return
    sk = ctx.ix.scalar_kind(res.component)
    if sk is not None and sk[0] != "float":
        ctx.report(inst, None, f"OpMatrixTimesScalar on an integer cooperative matrix ({ctx.ix.type_text(res.id)})")


# Instructions that may take or produce cooperative-matrix values (everything else is rejected).
ALLOWED_WITH_COOPMAT = frozenset({
    "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixStoreNV", "OpCooperativeMatrixMulAddNV",
    "OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixStoreKHR", "OpCooperativeMatrixMulAddKHR",
    "OpPhi", "OpUndef", "OpConstantNull", "OpConstantComposite", "OpSpecConstantComposite",
    "OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT", "OpCompositeConstructReplicateEXT",
    "OpCompositeConstruct", "OpCompositeExtract", "OpCompositeInsert", "OpCopyObject", "OpCopyLogical",
    "OpFunctionCall", "OpFunctionParameter", "OpReturnValue", "OpFunction", "OpLoad", "OpStore", "OpSelect",
    "OpMatrixTimesScalar", "OpBitcast", "OpConvertFToU", "OpConvertFToS", "OpConvertSToF", "OpConvertUToF",
    "OpUConvert", "OpSConvert", "OpFConvert", "OpExtInst", "OpSpecConstantOp", "OpName",
    "OpDecorate", "OpMemberDecorate", "OpUntypedVariableKHR",
    "OpCompositeConstructCoopMatQCOM", "OpCompositeExtractCoopMatQCOM",  # coopmat_qcom.py checks them
}) | ELEMENTWISE | NEVER


_COOPMAT_TYPE_OPS = frozenset({"OpTypeCooperativeMatrixNV", "OpTypeCooperativeMatrixKHR"})
_ID_KINDS = frozenset({"IdRef", "IdScope", "IdMemorySemantics"})
# allowed, or unable to take a cooperative-matrix value at all (pointers, control flow)
_SKIP_UNSUPPORTED = ALLOWED_WITH_COOPMAT | {"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain",
                                           "OpLabel", "OpBranch", "OpReturn", "OpFunctionEnd", "OpVariable",
                                           "OpSelectionMerge", "OpLoopMerge", "OpLine", "OpNoLine"}


@rule("coopmat.op.unsupported", MODULE,
      "Only the instructions the extensions list (load/store/MulAdd, element-wise arithmetic, conversions, "
      "composite instructions, OpMatrixTimesScalar, ...) accept cooperative matrices.", source=f"{NV} / {KHR}")
def unsupported_ops(ctx: Context, _inst) -> None:
    ix = ctx.ix
    if not (ix.has_cap("CooperativeMatrixNV") or ix.has_cap("CooperativeMatrixKHR")):
        return
    insts = ix.module.instructions
    cm_types = {i.result_id for i in insts if i.opname in _COOPMAT_TYPE_OPS}
    cm_values = {i.result_id for i in insts if i.result_type in cm_types}
    for inst in [i for i in insts if i.opname not in _SKIP_UNSUPPORTED]:
        op = inst.opname
        if "CooperativeMatrix" in op or op.startswith("OpType") or op.startswith("OpDebug"):
            continue
        rt = inst.result_type
        bad = None
        if rt is None or rt not in cm_types:
            bad = next((o for o in inst.operands if o.value in cm_values and o.kind in _ID_KINDS), None)
            if bad is None:
                continue
        ctx.report(inst, bad, f"{op} does not accept cooperative matrices"
                   + (f" (operand {ix.name(bad.as_int)} is one)" if bad is not None else
                      f" (its result type {ix.name(rt)} is one)"))


_NO_ARITH_ENCODINGS = {0: "BFloat16KHR", 4214: "Float8E4M3EXT", 4215: "Float8E5M2EXT"}


@rule("coopmat.arith.encoding", tuple(sorted(FLOAT_OPS | {"OpFRem", "OpFMod", "OpMatrixTimesScalar",
                                                           "OpCooperativeMatrixMulAddNV"})),
      "Arithmetic instructions do not accept bfloat16 or FP8 components (only conversions, "
      "OpCooperativeMatrixMulAddKHR and copies do).", source="SPV_KHR_bfloat16 / SPV_EXT_float8",
      coopmat_only=FLOAT_OPS | {"OpFRem", "OpFMod", "OpMatrixTimesScalar"})  # the NV MulAdd: everywhere
def arith_encoding(ctx: Context, inst) -> None:
    ix = ctx.ix
    if inst.opname == "OpCooperativeMatrixMulAddNV":
        mats: list[tuple[str, CoopMat | None]] = [(r, cm) for r, cm in _muladd_types(ctx, inst).items()
                                                  if cm is not None]
    else:
        mats = [("Result", ix.coopmat(inst.result_type))]
    for role, cm in mats:
        if cm is None:
            continue
        t = ix.defs.get(cm.component)
        if t is None or t.opname != "OpTypeFloat" or len(t.operands) < 2:
            continue
        enc = _NO_ARITH_ENCODINGS.get(t.operands[1].as_int)
        if enc:
            ctx.report(inst, _operand_index(role) if role != "Result" else None,
                       f"{inst.opname} does not support {enc} components ({role}: {ix.type_text(cm.id)}); "
                       + ("use OpCooperativeMatrixMulAddKHR" if inst.opname.endswith("NV") else
                          "convert to f16/f32 first"), [describe(ctx, cm, role)])
            return

"""Conversions and OpBitcast on cooperative matrices (1I; L14)."""
from __future__ import annotations

from .coopmat_types import describe
from .index import USE_NAMES, CoopMat
from .registry import Context, rule, spec_dep

NV = "SPV_NV_cooperative_matrix"
KHR = "SPV_KHR_cooperative_matrix"

# opname -> (result component kinds, input component kinds)
CONVERSIONS = {
    "OpConvertFToU": (("uint", "int"), ("float",)), "OpConvertFToS": (("int", "uint"), ("float",)),
    "OpConvertSToF": (("float",), ("int", "uint")), "OpConvertUToF": (("float",), ("int", "uint")),
    "OpUConvert": (("uint", "int"), ("int", "uint")), "OpSConvert": (("int", "uint"), ("int", "uint")),
    "OpFConvert": (("float",), ("float",)),
}


def _pair(ctx: Context, inst) -> tuple[CoopMat | None, CoopMat | None, bool]:
    """(result coopmat, input coopmat, whether either side is one)."""
    ix = ctx.ix
    res = ix.coopmat(inst.result_type)
    src = ix.coopmat_of(inst.operands[0].value) if inst.operands else None
    return res, src, res is not None or src is not None


@rule("coopmat.convert.both", tuple(CONVERSIONS) + ("OpBitcast",),
      "Conversion instructions (and OpBitcast) convert a cooperative matrix into a cooperative matrix of the "
      "same flavour; a scalar or vector cannot be converted to or from one.", source=f"{NV} / {KHR}", coopmat_only=True)
def convert_both(ctx: Context, inst) -> None:
    res, src, any_cm = _pair(ctx, inst)
    if not any_cm:
        return
    ix = ctx.ix
    if res is None or src is None:
        d = ix.defs.get(inst.operands[0].value)
        ctx.report(inst, 0 if src is None else None,
                   f"{inst.opname} converts {ix.type_text(d.result_type) if d is not None else '?'} to "
                   f"{ix.type_text(inst.result_type)}: both sides must be cooperative matrices")
    elif res.flavour != src.flavour:
        ctx.report(inst, 0, f"{inst.opname} converts a {src.flavour} cooperative matrix to a {res.flavour} one",
                   [describe(ctx, src, "input"), describe(ctx, res, "Result")])


@rule("coopmat.convert.kinds", tuple(CONVERSIONS),
      "The component types of Result Type and the input must be of the kinds the conversion instruction "
      "names (e.g. OpConvertFToU: float to unsigned integer).", source="SPIR-V core conversion instructions",
      coopmat_only=True)
def convert_kinds(ctx: Context, inst) -> None:
    res, src, _ = _pair(ctx, inst)
    if res is None or src is None:
        return
    ix = ctx.ix
    want_res, want_src = CONVERSIONS[inst.opname]
    rk, sk = ix.scalar_kind(res.component), ix.scalar_kind(src.component)
    if rk is not None and rk[0] not in want_res:
        ctx.report(inst, None, f"{inst.opname} result component is {ix.type_text(res.component)}; expected "
                   f"{'/'.join(want_res[:1])}", [describe(ctx, res, "Result")])
    if sk is not None and sk[0] not in want_src:
        ctx.report(inst, 0, f"{inst.opname} input component is {ix.type_text(src.component)}; expected "
                   f"{'/'.join(want_src[:1])}", [describe(ctx, src, "input")])


def _shape_mismatch(ctx: Context, inst, res: CoopMat, src: CoopMat) -> None:
    for name, a, b in (("scope", res.scope, src.scope), ("rows", res.rows, src.rows),
                       ("columns", res.cols, src.cols), ("Use", res.use, src.use)):
        if a is None or b is None or a.value == b.value:
            continue
        fa = USE_NAMES.get(a.value, a.value) if name == "Use" else a.value
        fb = USE_NAMES.get(b.value, b.value) if name == "Use" else b.value
        ctx.report(inst, 0, f"{inst.opname}: {name} of the input ({fb}) differs from the result ({fa})",
                   [describe(ctx, src, "input"), describe(ctx, res, "Result")], spec_dependent=spec_dep(a, b))


@rule("coopmat.convert.shape", tuple(CONVERSIONS) + ("OpBitcast",),
      "Conversions between cooperative matrices keep Scope, Rows, Columns (and, KHR, Use).",
      source=f"{NV} / {KHR}", coopmat_only=True)
def convert_shape(ctx: Context, inst) -> None:
    res, src, _ = _pair(ctx, inst)
    if res is None or src is None or res.flavour != src.flavour:
        return
    # SPV_NV_cooperative_matrix2 lets conversions (not OpBitcast) turn an accumulator into an A or B matrix
    if res.flavour == "KHR" and inst.opname != "OpBitcast" and ctx.ix.has_cap("CooperativeMatrixConversionsNV") \
            and src.use and res.use \
            and src.use.value == 2 and res.use.value in (0, 1):
        res = CoopMat(res.id, res.flavour, res.inst, res.component, res.scope, res.rows, res.cols, src.use)
    _shape_mismatch(ctx, inst, res, src)


@rule("coopmat.convert.width", ("OpUConvert", "OpSConvert", "OpFConvert"),
      "OpUConvert/OpSConvert: the component widths must differ; OpFConvert: the component types must differ.",
      source="SPIR-V core conversion instructions", coopmat_only=True)
def convert_width(ctx: Context, inst) -> None:
    res, src, _ = _pair(ctx, inst)
    if res is None or src is None:
        return
    ix = ctx.ix
    if inst.opname == "OpFConvert":
        if res.component == src.component:
            ctx.report(inst, 0, f"OpFConvert between matrices of the same component type "
                       f"{ix.type_text(res.component)}", [describe(ctx, src, "input")])
        return
    rk, sk = ix.scalar_kind(res.component), ix.scalar_kind(src.component)
    if rk and sk and rk[1] == sk[1]:
        ctx.report(inst, 0, f"{inst.opname} between components of the same width ({rk[1]} bits); use OpBitcast "
                   "or no conversion", [describe(ctx, src, "input"), describe(ctx, res, "Result")])


@rule("coopmat.bitcast.width", "OpBitcast",
      "OpBitcast on cooperative matrices reinterprets each component: the component widths must be equal.",
      source=KHR, coopmat_only=True)
def bitcast_width(ctx: Context, inst) -> None:
    res, src, _ = _pair(ctx, inst)
    if res is None or src is None:
        return
    ix = ctx.ix
    rk, sk = ix.scalar_kind(res.component), ix.scalar_kind(src.component)
    if rk and sk and rk[1] != sk[1]:
        ctx.report(inst, 0, f"OpBitcast from {ix.type_text(src.component)} to {ix.type_text(res.component)} "
                   f"components: widths differ ({sk[1]} vs {rk[1]} bits)",
                   [describe(ctx, src, "input"), describe(ctx, res, "Result")])


@rule("coopmat.bitcast.integer", "OpBitcast",
      "KHR (Conversion Instructions): OpBitcast on cooperative matrices is allowed only when the Component "
      "Types are integer types with the same Width.", source=KHR, coopmat_only=True)
def bitcast_integer(ctx: Context, inst) -> None:
    res, src, _ = _pair(ctx, inst)
    if res is None or src is None or res.flavour != "KHR":
        return
    ix = ctx.ix
    rk, sk = ix.scalar_kind(res.component), ix.scalar_kind(src.component)
    if (rk and rk[0] == "float") or (sk and sk[0] == "float"):
        ctx.report(inst, 0, f"OpBitcast between {ix.type_text(src.component)} and {ix.type_text(res.component)} "
                   "components: SPV_KHR_cooperative_matrix allows OpBitcast only between integer components")


@rule("coopmat.bitcast.kind", "OpBitcast",
      "NV does not list OpBitcast among the instructions that accept cooperative matrices (drivers accept "
      "it; warning).", severity="warning", source="SPV_NV_cooperative_matrix", coopmat_only=True)
def bitcast_kind(ctx: Context, inst) -> None:
    res, src, _ = _pair(ctx, inst)
    if res is None or src is None or res.flavour != "NV":
        return
    ctx.report(inst, None, "SPV_NV_cooperative_matrix does not list OpBitcast among the instructions that "
               "accept cooperative matrices")


def _small_without_cap(ctx: Context, type_id: int) -> str | None:
    """'8-bit integer' etc. when the component needs Int8/Int16/Float16 and it is not declared."""
    sk = ctx.ix.scalar_kind(type_id)
    if sk is None:
        return None
    kind, width = sk
    if kind in ("int", "uint") and width in (8, 16) and not ctx.ix.has_cap(f"Int{width}"):
        return f"{width}-bit integer (no Int{width} capability)"
    if kind == "float" and width == 16 and not ctx.ix.has_cap("Float16"):
        t = ctx.ix.defs[type_id]
        if len(t.operands) < 2:  # bfloat16 has its own capability
            return "16-bit float (no Float16 capability)"
    return None


@rule("coopmat.convert.small_types", tuple(CONVERSIONS) + ("OpCompositeConstruct",),
      "With Shader, 8- and 16-bit types whose arithmetic capability (Int8, Int16, Float16) is not declared "
      "can only be used with width-only conversions (OpUConvert, OpSConvert, OpFConvert) and cannot be "
      "composed.", source="SPIR-V core / SPV_KHR_8bit_storage / SPV_KHR_16bit_storage", coopmat_only=True)
def convert_small_types(ctx: Context, inst) -> None:
    if not ctx.ix.has_cap("Shader") or inst.opname in ("OpUConvert", "OpSConvert", "OpFConvert"):
        return
    res, src, _ = _pair(ctx, inst)
    for cm, role, at in ((res, "result", None), (src, "input", 0)):
        if cm is None or (inst.opname == "OpCompositeConstruct" and role == "input"):
            continue
        why = _small_without_cap(ctx, cm.component)
        if why:
            ctx.report(inst, at, f"{inst.opname} {role} has {why} components; such types can only be used "
                       "with width-only conversions", [describe(ctx, cm, role)])

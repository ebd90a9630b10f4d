"""Composite construct/extract/insert and constant composites of cooperative matrices (1J)."""
from __future__ import annotations

from .coopmat_types import describe
from .registry import Context, rule

NV = "SPV_NV_cooperative_matrix"
KHR = "SPV_KHR_cooperative_matrix"
CONSTANT_COMPOSITES = ("OpConstantComposite", "OpSpecConstantComposite")


@rule("coopmat.construct", ("OpCompositeConstruct",) + CONSTANT_COMPOSITES,
      "OpCompositeConstruct (and constant composites) of a cooperative matrix take exactly one constituent, "
      "of the component type, which fills every element.", source=f"{NV} / {KHR}", coopmat_only=True)
def construct(ctx: Context, inst) -> None:
    ix = ctx.ix
    cm = ix.coopmat(inst.result_type)
    if cm is None:
        return
    if len(inst.operands) != 1:
        at = inst.operands[1] if len(inst.operands) > 1 else None
        ctx.report(inst, at, f"{inst.opname} of cooperative matrix {ix.name(cm.id)} has {len(inst.operands)} "
                   "constituents; it must have exactly one (the value of every element)",
                   [describe(ctx, cm, "Result")])
    for o in inst.operands[:1]:
        d = ix.defs.get(o.value)
        if d is None:
            continue
        if inst.opname in CONSTANT_COMPOSITES and not (ix.is_constant_inst(o.value) or d.opname == "OpUndef"):
            ctx.report(inst, o, f"constituent {ix.name(o.value)} of {inst.opname} is defined by {d.opname}, "
                       "not a constant or OpUndef", [ctx.note_def(o.value, "defined here")])
        elif d.result_type != cm.component:
            ctx.report(inst, o, f"constituent {ix.name(o.value)} has type {ix.type_text(d.result_type)} but the "
                       f"matrix component type is {ix.type_text(cm.component)}", [describe(ctx, cm, "Result")])


@rule("coopmat.construct.replicate", ("OpCompositeConstructReplicateEXT", "OpConstantCompositeReplicateEXT",
                                      "OpSpecConstantCompositeReplicateEXT"),
      "The replicated Value must have the component type of the cooperative matrix.",
      source="SPV_EXT_replicated_composites", coopmat_only=True)
def construct_replicate(ctx: Context, inst) -> None:
    ix = ctx.ix
    cm = ix.coopmat(inst.result_type)
    if cm is None or not inst.operands:
        return
    d = ix.defs.get(inst.operands[0].value)
    if d is not None and d.result_type != cm.component:
        ctx.report(inst, 0, f"value {ix.name(d.result_id)} has type {ix.type_text(d.result_type)} but the matrix "
                   f"component type is {ix.type_text(cm.component)}", [describe(ctx, cm, "Result")])


@rule("coopmat.extract_insert", ("OpCompositeExtract", "OpCompositeInsert"),
      "A cooperative matrix is a composite of its components: one index selects a component (of the "
      "component type); no further index may follow.", source=f"{NV} / {KHR}", coopmat_only=True)
def extract_insert(ctx: Context, inst) -> None:
    ix = ctx.ix
    if inst.opname == "OpCompositeExtract":
        comp_op, indices, value_type = inst.operands[0], inst.operands[1:], inst.result_type
    else:
        if len(inst.operands) < 2:
            return
        comp_op, indices = inst.operands[1], inst.operands[2:]
        od = ix.defs.get(inst.operands[0].value)
        value_type = od.result_type if od is not None else None
    cm = ix.coopmat_of(comp_op.value)
    if cm is None:
        return
    if not indices:
        return
    if len(indices) > 1:
        ctx.report(inst, indices[1], f"index {indices[1].value} goes past the component type "
                   f"{ix.type_text(cm.component)} of {ix.name(cm.id)} (a cooperative matrix takes one index)",
                   [describe(ctx, cm, "composite")])
        return
    if value_type is not None and value_type != cm.component:
        what = "result type" if inst.opname == "OpCompositeExtract" else "object type"
        ctx.report(inst, None if inst.opname == "OpCompositeExtract" else 0,
                   f"{what} {ix.type_text(value_type)} does not match the component type "
                   f"{ix.type_text(cm.component)} of {ix.name(cm.id)}", [describe(ctx, cm, "composite")])
    if inst.opname == "OpCompositeInsert" and inst.result_type != cm.id:
        ctx.report(inst, None, f"result type {ix.name(inst.result_type)} must be the composite's type "
                   f"{ix.name(cm.id)}", [describe(ctx, cm, "composite")])

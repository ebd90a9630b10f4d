"""Cooperative-matrix module gating, type declarations and variables (rules 1A, 1B, 1C; L1-L4, L16)."""
from __future__ import annotations

from ..core.diagnostics import Note
from .index import COOPMAT_TYPES, CoopMat
from .registry import MODULE, Context, rule

NV = "SPV_NV_cooperative_matrix"
KHR = "SPV_KHR_cooperative_matrix"
WORKGROUP, SUBGROUP = 2, 3
COOP_CAPS = ("CooperativeMatrixNV", "CooperativeMatrixKHR")


@rule("coopmat.version", MODULE, "This extension requires SPIR-V 1.3.", source=f"{NV} / {KHR}")
def spirv_version(ctx: Context, _inst) -> None:
    ix = ctx.ix
    for cap in COOP_CAPS:
        inst = ix.capabilities.get(cap)
        if inst is not None and ix.version < (1, 3):
            ctx.report(inst, 0, f"capability {cap} needs SPIR-V 1.3 or later, but the module is "
                       f"SPIR-V {ix.version[0]}.{ix.version[1]}",
                       [Note("assemble with --target-env spv1.3 or later (or vulkan1.1+)")])


@rule("coopmat.khr.vulkan_memory_model", MODULE,
      "If the Shader and CooperativeMatrixKHR capabilities are declared, the VulkanMemoryModel "
      "capability must also be declared.", source="SPIRV-Tools / Vulkan")
def khr_needs_vmm(ctx: Context, _inst) -> None:
    ix = ctx.ix
    inst = ix.capabilities.get("CooperativeMatrixKHR")
    if inst is not None and ix.has_cap("Shader") and not ix.has_cap("VulkanMemoryModel"):
        ctx.report(inst, 0, "CooperativeMatrixKHR with Shader needs the VulkanMemoryModel capability",
                   [Note("add 'OpCapability VulkanMemoryModel' and use 'OpMemoryModel Logical Vulkan'")])


@rule("coopmat.type.component", COOPMAT_TYPES,
      "Component Type is the type of each component in the matrix. It must be a scalar numerical type.",
      source=f"{NV} / {KHR}")
def component_type(ctx: Context, inst) -> None:
    ix = ctx.ix
    comp = inst.operands[0].value
    t = ix.defs.get(comp)
    if t is None or t.opname not in ("OpTypeInt", "OpTypeFloat"):
        what = t.opname if t is not None else "undefined"
        ctx.report(inst, 0, f"component type {ix.name(comp)} is not a scalar integer or float type "
                   f"(it is {ix.type_text(comp) if t is not None else what})",
                   [ctx.note_def(comp, f"{ix.name(comp)} is declared here")] if t is not None else [])


_ENCODING_CAPS = {0: "BFloat16CooperativeMatrixKHR", 4214: "Float8CooperativeMatrixEXT",
                  4215: "Float8CooperativeMatrixEXT"}


@rule("coopmat.type.component_capability", COOPMAT_TYPES,
      "Cooperative matrices of bfloat16 components need BFloat16CooperativeMatrixKHR; of FP8 "
      "components Float8CooperativeMatrixEXT.", source="SPV_KHR_bfloat16 / SPV_EXT_float8")
def component_capability(ctx: Context, inst) -> None:
    t = ctx.ix.defs.get(inst.operands[0].value)
    if t is None or t.opname != "OpTypeFloat" or len(t.operands) < 2:
        return
    cap = _ENCODING_CAPS.get(t.operands[1].as_int)
    if cap and not ctx.ix.has_cap(cap):
        ctx.report(inst, 0, f"a cooperative matrix of {ctx.ix.type_text(t.result_id)} components "
                   f"requires the {cap} capability")


_OPERAND_NAMES = ("Scope", "Rows", "Columns", "Use")


@rule("coopmat.type.constant", COOPMAT_TYPES,
      "Scope, Rows, Columns (and Use) must each be a constant instruction with scalar integer type.",
      source=f"{NV} / {KHR}")
def operands_constant(ctx: Context, inst) -> None:
    ix = ctx.ix
    for i, o in enumerate(inst.operands[1:5], start=1):
        what = _OPERAND_NAMES[i - 1]
        d = ix.defs.get(o.value)
        if d is None:
            continue  # reported by structure.id.defined
        if d.opname.startswith("OpType"):
            ctx.report(inst, o, f"{what} {ix.name(o.value)} is a type, not a constant")
        elif ix.int_type(d.result_type) is None:
            ctx.report(inst, o, f"{what} {ix.name(o.value)} has type {ix.type_text(d.result_type)}, "
                       "not a scalar integer type", [ctx.note_def(o.value, f"{ix.name(o.value)} is defined here")])
        elif not ix.is_constant_inst(o.value):
            ctx.report(inst, o, f"{what} {ix.name(o.value)} is defined by {d.opname}, "
                       "not by a constant instruction", [ctx.note_def(o.value, "defined here")])


@rule("coopmat.type.width32", COOPMAT_TYPES,
      "Scope, Rows, Columns and Use must be a constant instruction with scalar 32-bit integer type.",
      source=f"{KHR} (NV: Rows/Columns likewise)")
def operands_32bit(ctx: Context, inst) -> None:
    ix = ctx.ix
    for i, o in enumerate(inst.operands[1:5], start=1):
        d = ix.defs.get(o.value)
        it = ix.int_type(d.result_type) if d is not None else None
        if it is not None and it[0] != 32:
            ctx.report(inst, o, f"{_OPERAND_NAMES[i - 1]} {ix.name(o.value)} is a {it[0]}-bit integer; "
                       "it must be 32-bit", [ctx.note_def(o.value, f"{ix.name(o.value)} is defined here")])


@rule("coopmat.type.positive", COOPMAT_TYPES,
      "Rows and Columns are the number of rows and columns of the matrix (a positive count).",
      source=f"{NV} / {KHR}")
def dims_positive(ctx: Context, inst) -> None:
    cm = ctx.ix.coopmat(inst.result_id)
    if cm is None:
        return
    for i, v in ((2, cm.rows), (3, cm.cols)):
        if v is not None and v.value <= 0:
            ctx.report(inst, i, f"{_OPERAND_NAMES[i - 1]} is {v.value}; it must be at least 1",
                       [ctx.note_def(inst.operands[i].value, "value defined here")], spec_dependent=v.spec)


@rule("coopmat.type.scope.value", COOPMAT_TYPES,
      "Scope is the execution scope of the matrix; its value must be a Scope enumerant.",
      source=f"{NV} / {KHR}")
def scope_value(ctx: Context, inst) -> None:
    cm = ctx.ix.coopmat(inst.result_id)
    if cm is None or cm.scope is None:
        return
    names = ctx.ix.grammar.operand_kinds["Scope"].by_value
    if cm.scope.value not in names:
        ctx.report(inst, 1, f"Scope value {cm.scope.value} is not a valid Scope "
                   f"(valid: {', '.join(f'{e.name}={v}' for v, e in sorted(names.items()))})",
                   [ctx.note_def(inst.operands[1].value, "value defined here")], spec_dependent=cm.scope.spec)


@rule("coopmat.type.scope.vulkan", "OpTypeCooperativeMatrixKHR",
      "VUID-StandaloneSpirv-Scope-12243: the Scope of a cooperative matrix type must be Workgroup or "
      "Subgroup.", source="Vulkan (vulkan target environments only)")
def scope_vulkan(ctx: Context, inst) -> None:
    if not ctx.ix.vulkan:
        return
    cm = ctx.ix.coopmat(inst.result_id)
    if cm is None or cm.scope is None or cm.scope.value in (WORKGROUP, SUBGROUP):
        return
    ctx.report(inst, 1, f"Scope is {ctx.ix.scope_name(cm.scope)}; Vulkan allows only Workgroup (2) or Subgroup (3)",
               spec_dependent=cm.scope.spec)


@rule("coopmat.type.use.value", "OpTypeCooperativeMatrixKHR",
      "Use must be a constant instruction whose value corresponds to a Cooperative Matrix Use.",
      source=KHR)
def use_value(ctx: Context, inst) -> None:
    cm = ctx.ix.coopmat(inst.result_id)
    if cm is None or cm.use is None:
        return
    valid = ctx.ix.grammar.operand_kinds["CooperativeMatrixUse"].by_value
    if cm.use.value not in valid:
        ctx.report(inst, 4, f"Use value {cm.use.value} is not a Cooperative Matrix Use "
                   f"(valid: {', '.join(f'{e.name}={v}' for v, e in sorted(valid.items()))})",
                   [ctx.note_def(inst.operands[4].value, "value defined here")], spec_dependent=cm.use.spec)


@rule("coopmat.type.duplicate", MODULE,
      "It is invalid to declare multiple non-aggregate, non-pointer type <id>s having the same opcode "
      "and operand <id>s.", source="SPIR-V core 2.8")
def duplicate_types(ctx: Context, _inst) -> None:
    seen: dict[tuple, object] = {}
    for inst in ctx.ix.module.instructions:
        if inst.opname in COOPMAT_TYPES:
            key = (inst.opname, tuple(o.value for o in inst.operands))
            first = seen.get(key)
            if first is not None:
                ctx.report(inst, None, f"{ctx.ix.name(inst.result_id)} declares the same cooperative matrix "
                           f"type as {ctx.ix.name(first.result_id)}",  # type: ignore[attr-defined]
                           [ctx.note_def(first.result_id, "first declared here")])  # type: ignore[attr-defined]
            else:
                seen[key] = inst


@rule("coopmat.type.workgroup_localsize", COOPMAT_TYPES,
      "A cooperative matrix type with Workgroup scope requires every entry point to declare LocalSize or "
      "LocalSizeId (whose constants are defined before the type).", source="SPIRV-Tools / Vulkan")
def workgroup_localsize(ctx: Context, inst) -> None:
    ix = ctx.ix
    cm = ix.coopmat(inst.result_id)
    if cm is None or cm.scope is None or cm.scope.value != WORKGROUP:
        return
    for ep in ix.entry_points:
        fn = ep.operands[1].as_int
        modes = ix.exec_modes.get(fn, [])
        names = {ix.grammar.operand_kinds["ExecutionMode"].by_value.get(m.operands[1].as_int) for m in modes}
        names_s = {e.name for e in names if e is not None}
        if not names_s & {"LocalSize", "LocalSizeId"}:
            ctx.report(inst, 1, f"Workgroup-scope cooperative matrix {ix.name(inst.result_id)} used, but entry "
                       f"point {ix.name(fn)} declares neither LocalSize nor LocalSizeId",
                       [Note("entry point declared here", ep.span)], spec_dependent=cm.scope.spec)
            continue
        for m in modes:
            if m.opname == "OpExecutionModeId":
                for o in m.operands[2:]:
                    d = ix.defs.get(o.as_int)
                    if d is not None and d.index > inst.index:
                        ctx.report(inst, 1, f"Workgroup-scope cooperative matrix declared before the LocalSizeId "
                                   f"constant {ix.name(o.as_int)}", [Note("constant defined here", d.span)])


@rule("coopmat.variable.storage", ("OpVariable", "OpUntypedVariableKHR"),
      "Cooperative matrix types (or types containing them) can only be allocated in Function or Private "
      "storage classes or as function parameters.", source=f"{NV} / {KHR}", coopmat_only=True)
def variable_storage(ctx: Context, inst) -> None:
    ix = ctx.ix
    sc = inst.operands[0].value
    if inst.opname == "OpVariable":
        pt = ix.defs.get(inst.result_type)
        if pt is None or pt.opname != "OpTypePointer":
            return
        data = pt.operands[1].as_int
    else:
        if len(inst.operands) < 2:
            return
        data = inst.operands[1].as_int
    sc_e = ix.grammar.operand_kinds["StorageClass"].by_value.get(sc)
    if sc_e is None or sc_e.name in ("Function", "Private"):
        return
    if ix.contains_coopmat(data):
        ctx.report(inst, 0, f"variable {ix.name(inst.result_id)} of type {ix.type_text(data)} holds a cooperative "
                   f"matrix in {sc_e.name} storage; only Function or Private are allowed",
                   [ctx.note_def(data, "the type is declared here")])


@rule("coopmat.pointer_type.storage", "OpTypePointer",
      "Cooperative matrix types can only be allocated in Function or Private storage classes; a pointer to "
      "one in another storage class can never point at anything.", severity="warning",
      source=f"{NV} / {KHR}", coopmat_only=True)
def pointer_type_storage(ctx: Context, inst) -> None:
    ix = ctx.ix
    sc_e = ix.grammar.operand_kinds["StorageClass"].by_value.get(inst.operands[0].value)
    if sc_e is None or sc_e.name in ("Function", "Private"):
        return
    if ix.coopmat(inst.operands[1].value) is not None:
        ctx.report(inst, 0, f"pointer type {ix.name(inst.result_id)} points at a cooperative matrix in "
                   f"{sc_e.name} storage, where no cooperative matrix can live")


_FIELD_OPERAND = {"scope": 1, "rows": 2, "cols": 3, "use": 4}


def describe(ctx: Context, cm: CoopMat, role: str, field: str | None = None) -> Note:
    """A note at a coopmat type declaration giving its values; with `field` ('rows', 'cols',
    'scope', 'use') it points at that operand of the declaration."""
    scope = ""
    if cm.scope is not None:
        e = ctx.ix.grammar.operand_kinds["Scope"].by_value.get(cm.scope.value)
        scope = f", scope {e.name if e else cm.scope.value}"
    note = ctx.note_def(cm.id, f"{role} has type {ctx.ix.name(cm.id)} = {ctx.ix.type_text(cm.id)}{scope}")
    i = _FIELD_OPERAND.get(field or "")
    if i is not None and i < len(cm.inst.operands) and cm.inst.operands[i].span is not None:
        note.span = cm.inst.operands[i].span
    return note

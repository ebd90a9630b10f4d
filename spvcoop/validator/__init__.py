"""Validator for SPIR-V cooperative matrices (SPV_NV_cooperative_matrix, SPV_KHR_cooperative_matrix).

`validate(module)` returns every finding as a Diagnostic (errors and warnings), each
with a stable rule id, pointing at the operand at fault, with notes at the related
declarations. Rules live in small modules and register themselves by opcode name.
spirv-val (SPIRV-Tools) runs alongside for everything else; see spirv_val.py.
"""
from __future__ import annotations

from ..core.diagnostics import Diagnostic
from ..core.module import Module
from . import coopmat_arith, coopmat_composite, coopmat_convert, coopmat_memory, coopmat_types  # noqa: F401
from . import coopmat_qcom, float_encodings  # noqa: F401
from . import scopes, structure  # noqa: F401  (registers rules)
from . import coopmat2_memory, coopmat2_ops, coopmat2_tensor  # noqa: F401  (SPV_NV_cooperative_matrix2, tensors)
from .index import ModuleIndex
from .registry import BY_OPNAME, MALFORMED, MODULE, RULES, Context, Rule
from .shapes import ShapeKeys
from .spirv_val import DEFAULT_TIMEOUT as DEFAULT_SPIRV_VAL_TIMEOUT
from .spirv_val import SpirvValMissing, merge
from .spirv_val import finish as spirv_val_finish
from .spirv_val import start as spirv_val_start

__all__ = ["validate", "RULES", "Rule", "ModuleIndex", "TARGET_ENVS", "SpirvValMissing"]

_MALFORMED = MALFORMED  # reported as structure.malformed, never a traceback

# Opcodes whose rules run in every module (float encodings and decorations may appear without any
# cooperative-matrix capability); everything else only where a cooperative-matrix capability is.
_ALWAYS_CHECKED = frozenset({"OpCapability", "OpTypeFloat", "OpDecorate", "OpMemberDecorate", "OpDecorateId",
                             "OpDot", "OpBitCastArrayQCOM", "OpExtractSubArrayQCOM"})

TARGET_ENVS = ("universal", "spv1.0", "spv1.1", "spv1.2", "spv1.3", "spv1.4", "spv1.5", "spv1.6",
               "vulkan1.0", "vulkan1.1", "vulkan1.1spv1.4", "vulkan1.2", "vulkan1.3", "vulkan1.4")


def validate(module: Module, target_env: str = "universal", spec_constants: dict[int, int] | None = None,
             profile=None, *, spirv_val: bool = True,
             spirv_val_timeout: float = DEFAULT_SPIRV_VAL_TIMEOUT) -> list[Diagnostic]:
    """All findings for `module`, in instruction order: our cooperative-matrix rules and, with
    `spirv_val` (the default), SPIRV-Tools' spirv-val run on the module's binary for the same
    target environment, merged into one report (its findings have rule id "spirv-val"; one on an
    instruction we already report is folded into ours). `spec_constants` maps SpecId -> value
    (overriding defaults); `profile` is a device profile name, path or loaded Profile.
    Raises SpirvValMissing (an SpvError) when spirv-val is wanted but not installed."""
    err = validate_arg_error("validate", module, target_env, spec_constants, profile, spirv_val, spirv_val_timeout)
    if err is not None:
        raise err
    # spirv-val runs in the background while our rules run
    started = spirv_val_start(module, target_env, spirv_val_timeout) if spirv_val else None
    ix = ModuleIndex(module, target_env, spec_constants)
    diags = _coopmat_findings(module, ix, profile)
    if started is not None:
        diags = merge(diags, spirv_val_finish(started, module, ix))
    return diags


def validate_arg_error(function: str, module, target_env, spec_constants, profile, spirv_val,
                       spirv_val_timeout) -> Exception | None:
    """The TypeError (ValueError for the timeout) for validate()'s first wrong argument, or None."""
    from ..core.argcheck import arg_error, seconds_error
    return arg_error(function, (("module", module, "module"), ("target_env", target_env, "str"),
                                ("spec_constants", spec_constants, "mapping?"), ("profile", profile, "profile?"),
                                ("spirv_val", spirv_val, "bool"))) \
        or seconds_error(function, "spirv_val_timeout", spirv_val_timeout)


def _coopmat_findings(module: Module, ix: ModuleIndex, profile) -> list[Diagnostic]:
    ctx = Context(ix)
    has_coop = any(ix.has_cap(c) for c in ("CooperativeMatrixNV", "CooperativeMatrixKHR", "TensorAddressingNV"))
    by_op = BY_OPNAME
    for r in by_op.get(MODULE, ()):
        ctx.current = r
        try:
            r.func(ctx, None)
        except _MALFORMED as e:  # malformed module: say so, keep going
            ctx.report(None, None, f"cannot check rule {r.id}: the module is malformed ({e!r})",
                       severity="error", rule_id="structure.malformed")
    if not has_coop:
        # without a cooperative-matrix capability only the opcode-gating and float-encoding rules can
        # fire; keep the per-instruction loop to those opcodes (cheap for large non-coopmat modules)
        relevant = {op: rs for op, rs in by_op.items() if op != MODULE and "CooperativeMatrix" in op
                    or op in _ALWAYS_CHECKED or "Tensor" in op}
    else:
        relevant = {op: rs for op, rs in by_op.items() if op != MODULE}
    shapes = ShapeKeys(ix)
    clean: set[tuple] = set()
    diags = ctx.diagnostics
    for inst in module.instructions:
        rules = relevant.get(inst.opname)
        if not rules:
            continue
        key = shapes.key(inst)
        if key is not None:
            if key in clean:
                continue  # an instruction of the same shape was checked and found clean
            before = len(diags)
        for r in rules:
            ctx.current = r
            try:
                r.func(ctx, inst)
            except _MALFORMED as e:  # malformed: say so, keep going
                ctx.report(inst, None, f"cannot check rule {r.id} on this malformed {inst.opname} ({e})",
                           severity="error", rule_id="structure.malformed")
        if key is not None and len(diags) == before:
            clean.add(key)
    ctx.current = None
    if profile is not None:
        from .profiles import check_profile, load_profile
        prof = load_profile(profile) if not hasattr(profile, "combos") else profile
        try:
            check_profile(ctx, prof)
        except _MALFORMED as e:
            ctx.report(None, None, f"cannot check the device profile: the module is malformed ({e!r})",
                       severity="error", rule_id="structure.malformed")
    diags = ctx.diagnostics
    diags.sort(key=lambda d: (d.instruction_index if d.instruction_index is not None else -1))
    return diags

"""Validator for SPIR-V cooperative matrices (SPV_NV_cooperative_matrix, SPV_KHR_cooperative_matrix).

`validate(module)` returns every finding as a Diagnostic (errors and warnings), each
with a stable rule id, pointing at the operand at fault, with notes at the related
declarations. Rules live in small modules (the passes, listed in order in passes.py) and are
registered by opcode name; registry.py says what a rule author must know (which rules run in
modules without a cooperative-matrix capability, what the shape cache lets a rule look at).
spirv-val (SPIRV-Tools) runs alongside for everything else; see spirv_val.py.
"""
from __future__ import annotations

import os

from ..core.diagnostics import Diagnostic
from ..core.module import Module
from . import passes
from .index import ModuleIndex
from .registry import BY_OPNAME, MALFORMED, MODULE, RULES, Context, Rule
from .shapes import ShapeKeys
from .spirv_val import DEFAULT_TIMEOUT as DEFAULT_SPIRV_VAL_TIMEOUT
from .spirv_val import Run as SpirvValRun
from .spirv_val import SpirvValMissing, merge
from .spirv_val import adopt as spirv_val_adopt
from .spirv_val import finish as spirv_val_finish
from .spirv_val import start as spirv_val_start

__all__ = ["validate", "RULES", "Rule", "ModuleIndex", "TARGET_ENVS", "SpirvValMissing"]

passes.register()

_MALFORMED = MALFORMED  # reported as structure.malformed, never a traceback

# The capabilities that make a module a cooperative-matrix module (Rule.coopmat_only; see registry.py).
COOPMAT_CAPABILITIES = ("CooperativeMatrixNV", "CooperativeMatrixKHR", "TensorAddressingNV")
NO_SHAPE_CACHE_ENV = "SPVCOOP_NO_SHAPE_CACHE"

TARGET_ENVS = ("universal", "spv1.0", "spv1.1", "spv1.2", "spv1.3", "spv1.4", "spv1.5", "spv1.6",
               "vulkan1.0", "vulkan1.1", "vulkan1.1spv1.4", "vulkan1.2", "vulkan1.3", "vulkan1.4")


def validate(module: Module, target_env: str = "universal", spec_constants: dict[int, int] | None = None,
             profile=None, *, spirv_val: bool = True,
             spirv_val_timeout: float = DEFAULT_SPIRV_VAL_TIMEOUT,
             shape_cache: bool | None = None, spirv_val_run: SpirvValRun | None = None,
             spirv_val_options: tuple[str, ...] | list[str] = ()) -> list[Diagnostic]:
    """All findings for `module`, in instruction order: our cooperative-matrix rules and, with
    `spirv_val` (the default), SPIRV-Tools' spirv-val run on the module's binary for the same
    target environment, merged into one report (its findings have rule id "spirv-val"; one on an
    instruction we already report is folded into ours). `spec_constants` maps SpecId -> value
    (overriding defaults); `profile` is a device profile name, path or loaded Profile.
    `shape_cache=False` checks every instruction instead of once per shape (shapes.py); the default
    is on unless the environment sets SPVCOOP_NO_SHAPE_CACHE=1. The report is the same either way.
    `spirv_val_run`: spirv-val already started on the module's binary (spirv_val.start_binary, before
    the binary was read); it is used if it checks exactly what would be checked here, else replaced.
    `spirv_val_options`: spirv-val's own relaxing flags and limits (`--scalar-block-layout`,
    `--max-id-bound N`, ...: spirv_val.PASS_THROUGH_FLAGS/LIMITS), passed to it; ValueError for others.
    Raises SpirvValMissing (an SpvError) when spirv-val is wanted but not installed."""
    err = validate_arg_error("validate", module, target_env, spec_constants, profile, spirv_val, spirv_val_timeout)
    if err is not None:
        raise err
    from .spirv_val import check_options
    options = tuple(check_options(list(spirv_val_options)))
    # spirv-val runs in the background while our rules run (a child process: it does not hold the GIL)
    started = None
    if spirv_val:
        started = spirv_val_run if spirv_val_run is not None else \
            spirv_val_start(module, target_env, spirv_val_timeout, options)
    elif spirv_val_run is not None:
        spirv_val_run.cancel()
    ix = ModuleIndex(module, target_env, spec_constants)
    if shape_cache is None:
        shape_cache = os.environ.get(NO_SHAPE_CACHE_ENV, "") in ("", "0")
    diags = _coopmat_findings(module, ix, profile, shape_cache)
    if started is not None:
        if started is spirv_val_run:  # checked after our rules: spirv-val is usually still running
            started = spirv_val_adopt(spirv_val_run, module, target_env, spirv_val_timeout, options)
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


# opcode -> the rules to run on it, for modules with (True) and without (False) a cooperative-matrix capability
_RULES_BY_OP: dict[bool, dict[str, list[Rule]]] = {}


def rules_by_opcode(has_coopmat: bool) -> dict[str, list[Rule]]:
    """The per-instruction rules for each opcode, in pass order, in a module with or without a
    cooperative-matrix capability (rules declaring `coopmat_only` for an opcode drop out without)."""
    table = _RULES_BY_OP.get(has_coopmat)
    if table is None:
        table = {}
        for op, rs in BY_OPNAME.items():
            keep = [r for r in rs if has_coopmat or op not in r.coopmat_only]
            if op != MODULE and keep:
                table[op] = keep
        _RULES_BY_OP[has_coopmat] = table
    return table


def _coopmat_findings(module: Module, ix: ModuleIndex, profile, shape_cache: bool = True) -> list[Diagnostic]:
    ctx = Context(ix)
    has_coop = any(ix.has_cap(c) for c in COOPMAT_CAPABILITIES)
    for r in BY_OPNAME.get(MODULE, ()):
        ctx.current = r
        try:
            r.func(ctx, None)
        except _MALFORMED as e:  # malformed module: say so, keep going
            ctx.report(None, None, f"cannot check rule {r.id}: the module is malformed ({e!r})",
                       severity="error", rule_id="structure.malformed")
    relevant = rules_by_opcode(has_coop)
    shapes = ShapeKeys(ix) if shape_cache else None
    clean: set[tuple] = set()
    diags = ctx.diagnostics
    for inst in module.instructions:
        rules = relevant.get(inst.opname)
        if not rules:
            continue
        key = shapes.key(inst) if shapes is not None else None
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

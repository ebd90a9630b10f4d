"""Validation before `spvcoop run`: which findings stop a run and which are only shown.

`spvcoop val` reports every finding at its severity. A run is different: it must refuse modules
the interpreter cannot give a meaning to (undefined ids, bad types, broken control flow, anything
spirv-val rejects for structure), but real drivers run code that breaks rules that do not change
what it computes, and a user porting published kernels wants them to run. So, for a run only:
- findings of rules where spvcoop is stricter than spirv-val (docs/divergences.md, "Stricter
  than spirv-val") and that do not change the computation are warnings;
- spirv-val's "needs a newer SPIR-V version" findings (NVIDIA's 2019 samples are SPIR-V 1.0
  modules using 1.3 extensions; drivers run them) and "variable not listed as an interface" (SPIR-V
  1.4+ rule, often broken by hand-written modules) are warnings; because spirv-val stops at its
  first error, the module is then checked again as drivers read it (newer version, full
  interface lists), so that nothing behind such a finding is missed.
"""
from __future__ import annotations

import re

from ..core.diagnostics import Diagnostic, Note
from ..core.module import Module
from .spirv_val import RULE_ID as SPIRV_VAL

# Stricter-than-spirv-val rules whose findings leave the computation well defined.
RUN_WARNING_RULES = frozenset({
    "coopmat.version",                # a SPIR-V version requirement
    "coopmat.type.width32",           # Rows/Columns/Scope/Use given by 64-bit constants: same values
    "coopmat.type.scope.vulkan",      # a Vulkan environment rule about scopes
    "coopmat.muladd.operands",        # signedness flags on float matrices: ignored for floats
    "coopmat.memaccess.psb_aligned",  # an alignment promise the interpreter does not need
    "coopmat.pointer.into_array",     # a pointer into a non-array: the address is still defined
    "coopmat2.version",               # coopmat2 / tensor addressing in a module older than SPIR-V 1.6
    "coopmat2.tensor_access.into_array",  # as coopmat.pointer.into_array, for tensor loads and stores
    "qcom.subarray.index",            # an unsigned 32-bit Start Index: the same start when it fits
    "float.fp8.saturated_target",     # the saturating decoration where no FP8 conversion is: ignored
})  # (coopmat.length is not here: a Length of a type that is not a matrix has no meaning to run)

_VERSION_REQUIREMENT = re.compile(r"requires SPIR-V version (\d)\.(\d)|SPIR-V (\d)\.(\d) or later")

# The Vulkan environment of a module's SPIR-V version (what a driver of that version accepts).
_ENV_OF_VERSION = {(1, 0): "vulkan1.0", (1, 1): "vulkan1.1", (1, 2): "vulkan1.1", (1, 3): "vulkan1.1",
                   (1, 4): "vulkan1.1spv1.4", (1, 5): "vulkan1.2", (1, 6): "vulkan1.3"}

_NOTE = Note("an error for `spvcoop val`; drivers run such modules, so the run goes on")


def target_env_for(module: Module) -> str:
    return _ENV_OF_VERSION.get(module.header.version_tuple, "vulkan1.3")


def _as_warning(d: Diagnostic) -> Diagnostic:
    return d.replace(severity="warning", notes=[*d.notes, _NOTE])


def _version_needed(d: Diagnostic) -> tuple[int, int] | None:
    if d.rule != SPIRV_VAL:
        return None
    m = _VERSION_REQUIREMENT.search(d.message)
    if not m:
        return None
    major, minor = (int(x) for x in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    return major, minor


_INTERFACE = re.compile(r"is used by entry point .* but is not listed as an interface")
_FUNCTION_STORAGE = 7  # StorageClass Function


def _interface_incomplete(d: Diagnostic) -> bool:
    return d.rule == SPIRV_VAL and d.severity == "error" and bool(_INTERFACE.search(d.message))


def _benign(d: Diagnostic) -> bool:
    """A finding that drivers accept and that does not change what the module computes."""
    return d.severity == "error" and (d.rule in RUN_WARNING_RULES or _version_needed(d) is not None
                                      or _interface_incomplete(d))


def _repaired(module: Module, diags: list[Diagnostic]) -> Module | None:
    """The module as drivers read it, for checking what spirv-val's first error hid: a newer SPIR-V
    version where one is needed, every module-scope variable in the entry points' interfaces
    (hand-written SPIR-V 1.4+ often omits them). Instruction positions are kept, so findings on
    the repaired module point at the same instructions. None when there is nothing to repair."""
    needed = [v for v in map(_version_needed, diags) if v is not None]
    fill = any(map(_interface_incomplete, diags))
    if not needed and not fill:
        return None
    header = module.header
    if needed:
        version = max(max(needed), (1, 3), header.version_tuple)
        header = header.replace(version=(version[0] << 16) | (version[1] << 8))
    instructions = module.instructions
    if fill:
        from ..core.module import Instruction, Operand
        variables = [i.result_id for i in instructions if i.opname == "OpVariable" and i.operands
                     and i.operands[0].value != _FUNCTION_STORAGE and i.result_type is not None
                     and i.result_id is not None]
        fixed = []
        for inst in instructions:
            if inst.opname == "OpEntryPoint":
                listed = {o.as_int for o in inst.operands[3:]}
                extra = [Operand("IdRef", v, (v,)) for v in variables if v not in listed]
                inst = Instruction(inst.opname, inst.opcode, inst.result_type, inst.result_id,
                                   [*inst.operands, *extra], inst.span, inst.index)
            fixed.append(inst)
        instructions = fixed
    return Module(header, instructions, module.source, module.text, module.id_names)


def validate_for_run(module: Module, spec_constants: dict[int, int] | None = None, *,
                     spirv_val: bool = True, target_env: str | None = None,
                     spirv_val_options: tuple[str, ...] | list[str] = ()) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(errors that stop the run, findings to show as warnings) for `module`, validated for `target_env` (default:
    the Vulkan environment of its SPIR-V version) with spirv-val's `spirv_val_options` (the device features the
    run assumes: `--allow-localsizeid` for maintenance4, `--scalar-block-layout`, ...)."""
    from . import validate
    options = tuple(spirv_val_options)
    diags = validate(module, target_env or target_env_for(module), spec_constants, spirv_val=spirv_val,
                     spirv_val_options=options)
    seen = {(d.rule, d.message, d.span) for d in diags}
    checked = module
    for _ in range(3):  # spirv-val stops at its first error: repair what is benign and look again
        if not any(d.rule == SPIRV_VAL and _benign(d) for d in diags):
            break
        repaired = _repaired(checked, [d for d in diags if d.rule == SPIRV_VAL])
        if repaired is None:
            break
        checked = repaired
        again = [d for d in validate(checked, target_env or target_env_for(checked), spec_constants, spirv_val=True,
                                     spirv_val_options=options)
                 if d.rule == SPIRV_VAL and (d.rule, d.message, d.span) not in seen]
        seen.update((d.rule, d.message, d.span) for d in again)
        if not again:
            break
        diags = diags + again
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for d in diags:
        if d.severity != "error":
            warnings.append(d)
        elif _benign(d):
            warnings.append(_as_warning(d))
        else:
            errors.append(d)
    return errors, warnings


__all__ = ["validate_for_run", "target_env_for", "RUN_WARNING_RULES"]

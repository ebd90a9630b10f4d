"""Validation before `spvcoop run`: which findings stop a run and which are only shown.

`spvcoop val` reports every finding at its severity. A run is different: it must refuse modules
the interpreter cannot give a meaning to (undefined ids, bad types, broken control flow, anything
spirv-val rejects for structure), but real drivers run code that breaks rules that do not change
what it computes, and a user porting published kernels wants them to run. So, for a run only:
- findings of rules where spvcoop is stricter than spirv-val (docs/divergences.md, "Stricter
  than spirv-val") and that do not change the computation are warnings;
- spirv-val's "needs a newer SPIR-V version" findings (NVIDIA's 2019 samples are SPIR-V 1.0
  modules using 1.3 extensions; drivers run them) are warnings, and because spirv-val stops at its
  first error, the module is then checked again as SPIR-V 1.3 so that nothing behind it is missed.
"""
from __future__ import annotations

import dataclasses
import re

from ..diagnostics import Diagnostic, Note
from ..module import Module
from .spirv_val import RULE_ID as SPIRV_VAL

# Stricter-than-spirv-val rules whose findings leave the computation well defined.
RUN_WARNING_RULES = frozenset({
    "coopmat.version",                # a SPIR-V version requirement
    "coopmat.type.width32",           # Rows/Columns/Scope/Use given by 64-bit constants: same values
    "coopmat.type.scope.vulkan",      # a Vulkan environment rule about scopes
    "coopmat.muladd.operands",        # signedness flags on float matrices: ignored for floats
    "coopmat.memaccess.psb_aligned",  # an alignment promise the interpreter does not need
    "coopmat.pointer.into_array",     # a pointer into a non-array: the address is still defined
    "coopmat.length",                 # OpCooperativeMatrixLength's result type inside OpSpecConstantOp
})

_VERSION_REQUIREMENT = re.compile(r"requires SPIR-V version (\d)\.(\d)|SPIR-V (\d)\.(\d) or later")

# The Vulkan environment of a module's SPIR-V version (what a driver of that version accepts).
_ENV_OF_VERSION = {(1, 0): "vulkan1.0", (1, 1): "vulkan1.1", (1, 2): "vulkan1.1", (1, 3): "vulkan1.1",
                   (1, 4): "vulkan1.1spv1.4", (1, 5): "vulkan1.2", (1, 6): "vulkan1.3"}

_NOTE = Note("an error for `spvcoop val`; drivers run such modules, so the run goes on")


def target_env_for(module: Module) -> str:
    return _ENV_OF_VERSION.get(module.header.version_tuple, "vulkan1.3")


def _as_warning(d: Diagnostic) -> Diagnostic:
    return dataclasses.replace(d, severity="warning", notes=[*d.notes, _NOTE])


def _version_needed(d: Diagnostic) -> tuple[int, int] | None:
    if d.rule != SPIRV_VAL:
        return None
    m = _VERSION_REQUIREMENT.search(d.message)
    if not m:
        return None
    major, minor = (int(x) for x in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    return major, minor


def validate_for_run(module: Module, spec_constants: dict[int, int] | None = None, *,
                     spirv_val: bool = True) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(errors that stop the run, findings to show as warnings) for `module`."""
    from . import validate
    diags = validate(module, target_env_for(module), spec_constants, spirv_val=spirv_val)
    needed = [v for v in map(_version_needed, diags) if v is not None]
    if needed:
        version = max(max(needed), (1, 3))
        raised = Module(dataclasses.replace(module.header, version=(version[0] << 16) | (version[1] << 8)),
                        module.instructions, module.source, module.text, module.id_names)
        again = validate(raised, target_env_for(raised), spec_constants, spirv_val=True)
        seen = {(d.rule, d.message, d.span) for d in diags}
        diags = diags + [d for d in again if d.rule == SPIRV_VAL and (d.rule, d.message, d.span) not in seen]
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for d in diags:
        if d.severity != "error":
            warnings.append(d)
        elif d.rule in RUN_WARNING_RULES or _version_needed(d) is not None:
            warnings.append(_as_warning(d))
        else:
            errors.append(d)
    return errors, warnings


__all__ = ["validate_for_run", "target_env_for", "RUN_WARNING_RULES"]

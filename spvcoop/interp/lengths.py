"""Array lengths without a run: every OpTypeArray's length from its constant, specialization constants applied,
exactly as a run evaluates them (runner.executor_with_constants: OpSpecConstantOp expressions too). For the code that
sizes buffers without running the interpreter: the Vulkan runner (gpu/runner.py) and Amber's BUFFER_ARRAY
(runspec/amber_run.py). A length left unset would read as 0: a buffer sized wrong without a word."""
from __future__ import annotations

from ..core.diagnostics import Diagnostic
from .config import RunConfig
from .families import dispatcher_for
from .program import Program
from .runner import executor_with_constants


def set_array_lengths(prog: Program, spec_constants: dict | None = None,
                      subgroup_size: int | None = None) -> list[Diagnostic]:
    """Set the count of every array type of `prog`; the notes a run gives (spec ids the module does not declare).
    Refused as a run refuses it: a spec constant name the module lacks, a length that is not an integer."""
    config = RunConfig(subgroup_size=subgroup_size) if subgroup_size else RunConfig()
    diagnostics: list[Diagnostic] = []
    executor_with_constants(prog, config, dispatcher_for(prog.module), spec_constants, diagnostics)
    return diagnostics

"""Fault: a run-time error of one instruction, located by the executor."""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, Note, SpvError


class Fault(Exception):
    """A run-time error found while executing one instruction (turned into a diagnostic by the executor)."""

    def __init__(self, message: str, lanes: np.ndarray | None = None):
        super().__init__(message)
        self.message = message
        self.lanes = lanes


class FaultError(SpvError):
    """The located error of a Fault (Executor.fault_error): `lanes`, the invocations it happened in, for the
    debugger to select one (None where not known)."""

    def __init__(self, diagnostics: Diagnostic | list[Diagnostic], lanes: np.ndarray | None = None) -> None:
        super().__init__(diagnostics)
        self.lanes = lanes

    def __reduce__(self):   # picklable as what it is (a process pool hands errors back)
        return type(self), (self.diagnostics, self.lanes)


def locate(prog, inst, notes: list):
    """(span, file) of a diagnostic at `inst` of Program `prog`: the GLSL line (OpLine) when a binary has one, else
    the instruction (its source note appended to `notes`); (None, the module's file) for no instruction."""
    if inst is None:
        return None, prog.source
    hl = prog.lines.get(inst.index)
    if hl and (inst.span is None or not inst.span.line):
        from ..core.module import Span
        note = prog.source_note(inst)
        if note and ": " in note:
            notes.append(Note("  " + note.split(": ", 1)[1]))
        notes.append(Note(f"SPIR-V instruction at {prog.source}:{inst.span}" if inst.span else inst.opname))
        return Span(hl[1], 1), hl[0]
    hln = prog.source_note(inst)
    if hln:
        notes.append(Note(hln))
    return inst.span, prog.source

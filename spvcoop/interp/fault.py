"""Fault: a run-time error of one instruction, located by the executor."""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError


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

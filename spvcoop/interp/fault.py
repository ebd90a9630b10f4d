"""Fault: a run-time error of one instruction, located by the executor."""
from __future__ import annotations

import numpy as np


class Fault(Exception):
    """A run-time error found while executing one instruction (turned into a diagnostic by the executor)."""

    def __init__(self, message: str, lanes: np.ndarray | None = None):
        super().__init__(message)
        self.message = message
        self.lanes = lanes

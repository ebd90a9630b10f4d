"""The interpreter: run GLCompute shaders on the CPU, vectorized over the whole dispatch with numpy.

    from spvcoop.interp import run
    res = run("saxpy.comp", dispatch=(16, 1, 1), buffers={(0, 0): x, (0, 1): y}, push_constants={"a": 2.0})
    res[(0, 1)]  # numpy array

Execution model: see executor.py. Ops are registered by opcode name in registry.py.
"""
from __future__ import annotations

from .dataio import Address
from .runner import RunResult, compile_glsl, load_shader, run

__all__ = ["run", "RunResult", "Address", "load_shader", "compile_glsl"]

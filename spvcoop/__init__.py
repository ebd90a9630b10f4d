"""spvcoop: a Python toolkit for SPIR-V cooperative matrices.

Assembler and disassembler matching spirv-as/spirv-dis, a validator for
SPV_NV_cooperative_matrix and SPV_KHR_cooperative_matrix, layout models that say
which invocation holds which matrix element, and an interpreter for compute shaders.
"""
from __future__ import annotations

__version__ = "0.1.0"

from .diagnostics import Diagnostic, SpvError  # noqa: E402
from .module import Header, Instruction, Module, Operand, Span  # noqa: E402

__all__ = ["Diagnostic", "SpvError", "Header", "Instruction", "Module", "Operand", "Span",
           "assemble", "disassemble", "read_binary", "__version__"]


def assemble(text: str, source: str = "<input>", **options) -> Module:
    """Parse SPIR-V assembly text into a Module (see spvcoop.text.assemble)."""
    from .text import assemble as _assemble
    return _assemble(text, source, **options)


def disassemble(module: Module, **options) -> str:
    """Render a Module as spirv-dis would (see spvcoop.disassembler.disassemble)."""
    from .disassembler import disassemble as _dis
    return _dis(module, **options)


def read_binary(data: bytes, source: str = "<input>") -> Module:
    from .binary import read_binary as _read
    return _read(data, source)


def __getattr__(name: str):
    # Heavier entry points are imported on first use so that `spvcoop as` stays fast.
    if name == "run":
        from .interp import run
        return run
    if name == "validate":
        from .validate import validate
        return validate
    raise AttributeError(name)

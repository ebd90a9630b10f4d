"""spvcoop: a Python toolkit for SPIR-V cooperative matrices.

Assembler and disassembler matching spirv-as/spirv-dis, a validator for
SPV_NV_cooperative_matrix and SPV_KHR_cooperative_matrix, layout models that say
which invocation holds which matrix element, and an interpreter for compute shaders.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.diagnostics import Diagnostic, SpvError
from .core.module import Header, Instruction, Module, Operand, Span
from .core.version import __version__

__all__ = ["Diagnostic", "SpvError", "Header", "Instruction", "Module", "Operand", "Span",
           "assemble", "disassemble", "read_binary", "validate", "run", "__version__"]

if TYPE_CHECKING:
    from .api import run


def assemble(text: str, source: str = "<input>", target_env: str = "spv1.6",
             preserve_numeric_ids: bool = False) -> Module:
    """Parse SPIR-V assembly text into a Module, as spirv-as would (spvcoop.asm.assembler.assemble).
    Raises SpvError with file:line:col on bad input."""
    from .core.argcheck import arg_error
    err = arg_error("assemble", (("text", text, "str"), ("source", source, "str"), ("target_env", target_env, "str"),
                                 ("preserve_numeric_ids", preserve_numeric_ids, "bool")))
    if err is not None:
        raise err
    from .asm.assembler import assemble as _assemble
    return _assemble(text, source, target_env, preserve_numeric_ids)


def disassemble(module: Module, raw_ids: bool = False, header: bool = True, indent: bool = True) -> str:
    """Render a Module as spirv-dis would (spvcoop.binary.disassembler.disassemble)."""
    from .core.argcheck import arg_error
    err = arg_error("disassemble", (("module", module, "module"), ("raw_ids", raw_ids, "bool"),
                                    ("header", header, "bool"), ("indent", indent, "bool")))
    if err is not None:
        raise err
    from .binary.disassembler import disassemble as _dis
    return _dis(module, raw_ids=raw_ids, header=header, indent=indent)


def read_binary(data: bytes, source: str = "<input>") -> Module:
    """Decode a SPIR-V binary into a Module (raises SpvError on malformed input)."""
    from .core.argcheck import arg_error
    err = arg_error("read_binary", (("data", data, "bytes"), ("source", source, "str")))
    if err is not None:
        raise err
    from .binary.reader import read_binary as _read
    return _read(data, source)


def validate(module: Module, target_env: str = "universal", spec_constants: dict[int, int] | None = None,
             profile: Any = None, *, spirv_val: bool = True, spirv_val_timeout: float = 60.0) -> list[Diagnostic]:
    """All findings for `module`: spvcoop's cooperative-matrix rules merged with spirv-val's
    (spvcoop.validator.validate has the details)."""
    from .validator import validate as _validate, validate_arg_error
    err = validate_arg_error("validate", module, target_env, spec_constants, profile, spirv_val, spirv_val_timeout)
    if err is not None:
        raise err
    return _validate(module, target_env, spec_constants, profile, spirv_val=spirv_val,
                     spirv_val_timeout=spirv_val_timeout)


def __getattr__(name: str) -> Any:
    # spvcoop.run lives in api.py, loaded on first use: its docstring lists the run options of interp/options.py,
    # and importing the interpreter would cost every `spvcoop as` a tenth of a second (numpy)
    if name == "run":
        from .api import run
        globals()["run"] = run
        return run
    raise AttributeError(f"module 'spvcoop' has no attribute '{name}'")

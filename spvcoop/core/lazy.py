"""Package attributes loaded on first use (PEP 562).

A package whose public names pull in numpy (the interpreter, the layout models) exports them through
`lazy_getattr`, so that importing one light submodule of it (the run options, the layout size limits, which
every command's parser declares) does not import the heavy ones: `spvcoop --help`, `--version` and usage
errors start without numpy (issue 33).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_getattr(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name in `where` is imported from the (relative) module named
    there on first use and then kept in the package's namespace."""
    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(where[name], package)
        value = getattr(module, name)
        setattr(importlib.import_module(package), name, value)
        return value
    return __getattr__

"""The op registry: one function per opcode name (or per family), found by grepping the opcode name.

An op function is called as `fn(ex, frame, inst, mask)` and returns the
result value (or None). `ex` is the Executor (types, values, lane layout),
`mask` the boolean array of active invocations. Extended instruction sets
register by set name and instruction name. A new module (e.g.
spvcoop/interp/coopmat.py) adds its ops by importing this one and using
`@op("OpCooperativeMatrixMulAddKHR")`; `EXTENSION_MODULES` lists the modules
imported when the interpreter starts.
"""
from __future__ import annotations

from typing import Callable

OPS: dict[str, Callable] = {}
EXT_OPS: dict[str, dict[str, Callable]] = {}
# Hooks other modules may fill: access chain into a type kind (e.g. "coopmat"), select between values
ACCESS_CHAIN_HOOKS: dict[str, Callable] = {}

EXTENSION_MODULES = [
    "spvcoop.interp.ops_arith",
    "spvcoop.interp.ops_convert",
    "spvcoop.interp.ops_composite",
    "spvcoop.interp.ops_memory",
    "spvcoop.interp.ops_atomic",
    "spvcoop.interp.ops_subgroup",
    "spvcoop.interp.ops_glsl",
    "spvcoop.interp.coopmat",  # issue 6; skipped while it does not exist
]


def op(*names: str):
    def deco(fn: Callable) -> Callable:
        for n in names:
            OPS[n] = fn
        return fn
    return deco


def ext_op(set_name: str, *names: str):
    def deco(fn: Callable) -> Callable:
        table = EXT_OPS.setdefault(set_name, {})
        for n in names:
            table[n] = fn
        return fn
    return deco


_loaded = False


def load_extensions() -> None:
    global _loaded
    if _loaded:
        return
    import importlib
    for name in EXTENSION_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
    _loaded = True

"""The op families of the interpreter, in the order the dispatch table is built from them.

A family later in the list may extend an op of an earlier one for its own types (OpSet.extends); see
dispatch.py. A new extension (e.g. cooperative_matrix2) is a package like coopmat/ with a family.py
declaring its Family and its `__init__.py` declaring CAPABILITIES (the SPIR-V capabilities whose instructions
it implements), appended to `_EXTENSION_FAMILIES`.

The extension families are imported only for a module that uses them (`dispatcher_for`): a plain shader
never loads the cooperative-matrix code, its numerics or ml_dtypes, which is most of a short run's start-up
beyond numpy (BENCHMARKS.md, issue 14). Which instructions need them follows from the grammar: those that
a family's CAPABILITIES enable.
"""
from __future__ import annotations

import importlib
from functools import cache

from ..core.spirv_grammar import load as load_grammar
from . import ops_arith, ops_atomic, ops_composite, ops_convert, ops_glsl, ops_memory, ops_subgroup
from .dispatch import Dispatcher, Family, build

CORE = Family("core", (ops_arith.OPS, ops_convert.OPS, ops_composite.OPS, ops_memory.OPS, ops_atomic.OPS,
                       ops_subgroup.OPS, ops_glsl.OPS))
# the extension families' packages, in build order: each holds family.py (FAMILY) and declares CAPABILITIES
_EXTENSION_FAMILIES = (".coopmat", ".coopmat2")


def families() -> tuple[Family, ...]:
    """Every family, in build order (imports the extension families)."""
    return (CORE,) + tuple(importlib.import_module(m + ".family", __package__).FAMILY for m in _EXTENSION_FAMILIES)


@cache
def extension_capabilities() -> frozenset[str]:
    """The capabilities whose instructions the extension families implement (their packages' CAPABILITIES;
    importing a package imports none of its op modules)."""
    return frozenset(c for m in _EXTENSION_FAMILIES for c in importlib.import_module(m, __package__).CAPABILITIES)


@cache
def default_dispatcher() -> Dispatcher:
    """The table with every family, built (and checked) once."""
    return build(families())


@cache
def core_dispatcher() -> Dispatcher:
    """The table of the core family alone: for modules that use no extension family."""
    return build((CORE,))


def uses_extension_families(module) -> bool:
    """Does any instruction of `module` need an extension family: an op or type that one of the families'
    capabilities enables (the grammar says which)? (A capability declared alone changes no op's meaning: the
    ops and types are what the table must know.)"""
    caps = extension_capabilities()
    specs = load_grammar().instructions   # loaded already: the module was read with it
    for name in {inst.opname for inst in module.instructions}:
        spec = specs.get(name)
        if spec is not None and not caps.isdisjoint(spec.capabilities):
            return True
    return False


def dispatcher_for(module) -> Dispatcher:
    """The table a run of `module` needs: the core family alone when no extension family is used."""
    return default_dispatcher() if uses_extension_families(module) else core_dispatcher()

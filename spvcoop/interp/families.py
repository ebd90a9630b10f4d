"""The op families of the interpreter, in the order the dispatch table is built from them.

A family later in the list may extend an op of an earlier one for its own types (OpSet.extends); see
dispatch.py. A new extension (e.g. cooperative_matrix2) is a package like coopmat/ with a family.py
declaring its Family, appended to `_EXTENSION_FAMILIES`.

The extension families are imported only for a module that uses them (`dispatcher_for`): a plain shader
never loads the cooperative-matrix code, its numerics or ml_dtypes, which is most of a short run's start-up
beyond numpy (BENCHMARKS.md, issue 14).
"""
from __future__ import annotations

import importlib
from functools import cache

from . import ops_arith, ops_atomic, ops_composite, ops_convert, ops_glsl, ops_memory, ops_subgroup
from .dispatch import Dispatcher, Family, build

CORE = Family("core", (ops_arith.OPS, ops_convert.OPS, ops_composite.OPS, ops_memory.OPS, ops_atomic.OPS,
                       ops_subgroup.OPS, ops_glsl.OPS))
# (module holding FAMILY, in order); every op and type of these extensions has one of
# _EXTENSION_MARKS in its SPIR-V name (OpTypeCooperativeMatrixKHR, OpTensorLayoutSliceNV, OpBitCastArrayQCOM)
_EXTENSION_FAMILIES = (".coopmat.family", ".coopmat2.family")
_EXTENSION_MARKS = ("CooperativeMatrix", "Tensor", "QCOM")


def families() -> tuple[Family, ...]:
    """Every family, in build order (imports the extension families)."""
    return (CORE,) + tuple(importlib.import_module(m, __package__).FAMILY for m in _EXTENSION_FAMILIES)


@cache
def default_dispatcher() -> Dispatcher:
    """The table with every family, built (and checked) once."""
    return build(families())


@cache
def core_dispatcher() -> Dispatcher:
    """The table of the core family alone: for modules that use no extension family."""
    return build((CORE,))


def uses_extension_families(module) -> bool:
    """Does any instruction of `module` name an extension op or type (see _EXTENSION_MARKS)? (A capability
    alone changes no op's meaning: the ops and types are what the table must know.)"""
    marks = _EXTENSION_MARKS
    return any(m in name for name in {inst.opname for inst in module.instructions} for m in marks)


def dispatcher_for(module) -> Dispatcher:
    """The table a run of `module` needs: the core family alone when no extension family is used."""
    return default_dispatcher() if uses_extension_families(module) else core_dispatcher()

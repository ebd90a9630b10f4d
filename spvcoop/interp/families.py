"""The op families of the interpreter, in the order the dispatch table is built from them.

A family later in the list may extend an op of an earlier one for its own types (OpSet.extends); see
dispatch.py. A new extension (e.g. cooperative_matrix2) is a package like coopmat/ with a family.py
declaring its Family, appended here.
"""
from __future__ import annotations

from functools import cache

from . import ops_arith, ops_atomic, ops_composite, ops_convert, ops_glsl, ops_memory, ops_subgroup
from .coopmat.family import FAMILY as COOPMAT
from .coopmat2.family import FAMILY as COOPMAT2
from .dispatch import Dispatcher, Family, build

CORE = Family("core", (ops_arith.OPS, ops_convert.OPS, ops_composite.OPS, ops_memory.OPS, ops_atomic.OPS,
                       ops_subgroup.OPS, ops_glsl.OPS))
FAMILIES = (CORE, COOPMAT, COOPMAT2)


@cache
def default_dispatcher() -> Dispatcher:
    """The table every run uses, built (and checked) once."""
    return build(FAMILIES)

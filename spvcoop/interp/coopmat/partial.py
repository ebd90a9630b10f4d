"""The warning for cooperative matrices in a workgroup smaller than the subgroup (a partial subgroup).

Real drivers require full subgroups for cooperative matrices; the interpreter runs such a dispatch under the
rules of docs/interpreter-coopmat.md ("Partial subgroups"). Those rules are a definition, not what a GPU does, so
the run says so where the matrix type is declared.
"""
from __future__ import annotations

import numpy as np

from ...core.diagnostics import Diagnostic, Note
from ..fault import Fault
from ..program import enum_name
from .core import coop_info


def partial_subgroup_warnings(ex, prog) -> list[Diagnostic]:
    """One warning per Subgroup-scope cooperative-matrix type when the workgroup is smaller than the subgroup."""
    S, W = ex.lanes.subgroup_size, ex.lanes.wg_size
    if W >= S:
        return []
    out = []
    for t in prog.types.values():
        if t.kind != "coopmat":
            continue
        ids = t.extra.get("operand_ids", ())
        v = ex.gvals.get(ids[1]) if len(ids) > 1 else None
        if v is None or enum_name("Scope", int(np.asarray(v).reshape(-1)[0])) != "Subgroup":
            continue  # Workgroup-scope matrices have no absent lanes
        inst = prog.defs[t.id]
        notes: list = []
        span, source = ex.where(inst, notes)
        notes.append(Note("real drivers require full subgroups for cooperative matrices; see "
                          "docs/interpreter-coopmat.md, 'Partial subgroups'"))
        try:
            what = coop_info(ex, t).describe()
        except Fault:  # a type the layout model lacks: the run reports that where the matrix is used
            what = t.describe()
        named = prog.names.get(t.id)
        shown = f"'{named}'" if named else "%" + prog.name_of(t.id).lstrip("%")
        out.append(Diagnostic(
            "warning", f"cooperative matrix type {shown} ({what}) is used in a workgroup of {W} invocation"
            f"{'s' if W != 1 else ''}, smaller than the subgroup size {S}: lanes {W}..{S - 1} of the subgroup hold "
            "no invocation; whole-matrix operations (load, store, MulAdd) still move the elements the layout gives "
            "them, but element-wise writes (m[i] = ..., OpCompositeInsert) leave those elements unchanged",
            span, rule="interp.coopmat.partial-subgroup", notes=notes, source=source))
    return out

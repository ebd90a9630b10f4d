"""Undefined values: what a load of a Function or Private variable gives where nothing was stored to it yet.

SPIR-V makes such a load an undefined value, not an error; only a use of its bits can go wrong. The rule
spvcoop applies (README "What differs", docs/interpreter-coopmat.md):

- a load that reads never-stored bytes in an active invocation is allowed when every use of its result is one
  that passes the value on without reading it: the Value of an OpStore (into a Function or Private variable,
  which then stays "never stored" in those invocations) or the Object of OpCooperativeMatrixLoadTensorNV (whose
  elements the load overwrites; an element the load keeps, outside a view's clip region, is an error there);
- any other use (arithmetic, a comparison, a branch condition, a store to a buffer, a call argument, a phi...)
  makes the load itself an error naming that use -- before a value that could be anything is computed with.

Which values are undefined is known per frame: `frame.undef` maps the load's result id to the invocations whose
value is undefined and the variable's name (only loads put ids there, so the ops' fast paths pay nothing).
"""
from __future__ import annotations

import numpy as np

from .fault import Fault

# (opname, operand index) of the uses that pass a value on without reading its bits
PASSING_USES = frozenset({("OpStore", 1), ("OpCooperativeMatrixLoadTensorNV", 1)})


def _uses(ex) -> dict[int, list]:
    """Every id -> the (instruction, operand index) pairs that use it, over all functions (built once a run)."""
    uses = ex.family_state.get("undefined.uses")
    if uses is None:
        uses = {}
        for fn in ex.prog.functions.values():
            for blk in fn.blocks.values():
                for inst in [*blk.phis, *blk.body, *([blk.term] if blk.term is not None else [])]:
                    for i, o in enumerate(inst.operands):
                        if o.kind.startswith("Id"):
                            uses.setdefault(o.value, []).append((inst, i))
        ex.family_state["undefined.uses"] = uses
    return uses


def _at(ex, inst) -> str:
    line = ex.prog.lines.get(inst.index)
    if line:
        return f"{line[0]}:{line[1]}"
    return f"{ex.prog.source}:{inst.span}" if inst.span else f"instruction {inst.index}"


def read_undefined(ex, frame, inst, name: str, bad: np.ndarray) -> None:
    """`inst` (an OpLoad) read never-stored bytes of `name` in the invocations `bad`: record its result as
    undefined there, or raise where a use would read the value's bits."""
    reading = [(u, i) for u, i in _uses(ex).get(inst.result_id, []) if (u.opname, i) not in PASSING_USES]
    if reading:
        u, _ = reading[0]
        raise Fault(f"'{name}' is read before anything was stored to it, and {u.opname} at {_at(ex, u)} uses the "
                    f"loaded (undefined) value", np.flatnonzero(bad))
    if frame.undef is None:
        frame.undef = {}
    frame.undef[inst.result_id] = (bad, name)


def defined(frame, inst) -> None:
    """`inst`'s result is defined in every active invocation this time (a loop may run a load again)."""
    if frame.undef:
        frame.undef.pop(inst.result_id, None)


def undefined_lanes(frame, id_: int) -> np.ndarray | None:
    """The invocations in which the value `id_` is undefined (None: defined everywhere)."""
    u = frame.undef.get(id_) if frame.undef else None
    return None if u is None else u[0]


def undefined_store(frame, inst, mask, target: str, storage: str) -> None:
    """OpStore `inst` would write an undefined value into `target`, which is not a Function/Private variable whose
    stores spvcoop tracks: that reads the value's bits, an error."""
    u = frame.undef.get(inst.operands[1].value) if frame.undef else None
    if u is not None and (mask & u[0]).any():
        raise Fault(f"stores the value loaded from '{u[1]}', read before anything was stored to it (undefined), "
                    f"into '{target}' ({storage})", np.flatnonzero(mask & u[0]))

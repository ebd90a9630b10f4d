"""The one hook into the step loop: an Observer sees every block, instruction, branch and call of a run.

`run(..., observer=obs)` installs it on the run's Executor (`install`): the executor's `exec_block`,
`exec_inst`, `branch_edges` and `run_frame` are replaced *on that instance* by versions that call the observer
and then the originals, so a run without an observer executes exactly the code it did before (zero cost
when off: no per-instruction test). An observed run takes the instruction-at-a-time path (the compiled
blocks of block_compiler.py run a whole block without returning here), like --trace.

Used by the line coverage (devtools/coverage.py) and the debugger (devtools/debugger.py), which sit above the
engine. Instructions inside the functions that cooperative-matrix-2 instructions call per matrix element
(Executor.call_per_element, with virtual invocations) are not reported: their lanes are not the dispatch's
invocations.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.diagnostics import SpvError

if TYPE_CHECKING:
    from ..core.module import Instruction
    from .executor import Executor, Frame
    from .program import Block, Function, Program


class Observer:
    """Callbacks of an observed run; each default does nothing. `mask` (N,) bool: the active invocations.
    A callback may raise (an SpvError, say) to stop the run; it must not change the executor's state."""

    def attach(self, ex: Executor) -> None:
        """Called once, before anything executes (the lanes are laid out, the data bound)."""

    def block(self, ex: Executor, frame: Frame, blk: Block, mask: np.ndarray) -> None:
        """Before a block's phis and body run."""

    def instruction(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray) -> None:
        """Before an instruction executes (a function's OpVariables, body instructions and the terminator)."""

    def branch(self, ex: Executor, frame: Frame, term: Instruction, edges: list) -> None:
        """After a terminator: `edges` is [(target label, mask)] (target -1: the function returns)."""

    def enter(self, ex: Executor, frame: Frame, fn: Function, mask: np.ndarray) -> None:
        """A function call begins (the entry point's too); `frame` is the callee's."""

    def leave(self, ex: Executor, frame: Frame, fn: Function) -> None:
        """A function call has returned (or is unwound by an error)."""

    def fault(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray, error: Exception) -> None:
        """`inst` failed with `error` (an SpvError: a fault, a limit) and the run is about to end; the frames are
        still there (leave has not been called). The error is raised again when this returns."""


def install(ex: Executor, obs: Observer) -> None:
    """Route `ex`'s step loop through `obs` (see the module docstring). The executor was made for a run with an
    observer: its fast paths above the step loop's hooks are off (fastpaths.for_run)."""
    exec_block, exec_inst, branch_edges, run_frame = ex.exec_block, ex.exec_inst, ex.branch_edges, ex.run_frame

    def virtual() -> bool:
        return ex.virtual_lanes is not None

    reported: list[SpvError] = []   # the error reported: once, not again in each frame it unwinds

    def failed(frame, inst, mask, e: SpvError):
        if not virtual() and not (reported and reported[0] is e):
            reported[:] = [e]
            obs.fault(ex, frame, inst, mask, e)

    def observed_block(frame, blk, incoming, mask):
        if not virtual():
            obs.block(ex, frame, blk, mask)
        try:
            return exec_block(frame, blk, incoming, mask)
        except SpvError as e:   # a phi's fault (the body's are reported by observed_inst)
            failed(frame, blk.phis[0] if blk.phis else blk.label_inst, mask, e)
            raise

    def observed_inst(frame, inst, mask, full):
        if not virtual():
            obs.instruction(ex, frame, inst, mask)
        try:
            exec_inst(frame, inst, mask, full)
        except SpvError as e:
            failed(frame, inst, mask, e)
            raise

    def observed_edges(frame, blk, mask):
        term = blk.term
        if term is not None and not virtual():
            obs.instruction(ex, frame, term, mask)
        try:
            edges = branch_edges(frame, blk, mask)
        except SpvError as e:
            failed(frame, term or blk.label_inst, mask, e)
            raise
        if term is not None and not virtual():
            obs.branch(ex, frame, term, edges)
        return edges

    def observed_frame(frame, mask):
        seen = not virtual()
        if seen:
            obs.enter(ex, frame, frame.fn, mask)
        try:
            return run_frame(frame, mask)
        finally:
            if seen:
                obs.leave(ex, frame, frame.fn)

    ex.exec_block = observed_block      # type: ignore[method-assign]
    ex.exec_inst = observed_inst        # type: ignore[method-assign]
    ex.branch_edges = observed_edges    # type: ignore[method-assign]
    ex.run_frame = observed_frame       # type: ignore[method-assign]
    obs.attach(ex)


def source_line(prog: Program, inst: Instruction) -> tuple[str, int] | None:
    """(file, line) of an instruction: its OpLine (a .comp, or a module compiled with glslang -g), else, in a
    module without any OpLine, its line in the module's own assembly text, else None (a binary without debug
    lines; an instruction outside every OpLine of a module that has some)."""
    lines = prog.lines
    if lines:
        return lines.get(inst.index)
    span = inst.span
    if span is not None and span.line and prog.source:
        return prog.source, span.line
    return None


def source_path(file: str, module_source: str) -> str:
    """An OpLine file name as a path from here: one relative to where glslang ran is looked for beside the
    module first (samples/debug/tile.spvasm names 'tile.comp'), so that genhtml and editors find the source."""
    import os
    if os.path.isabs(file) or os.path.exists(file):
        return file
    beside = os.path.join(os.path.dirname(module_source), file)
    return beside if os.path.exists(beside) else file

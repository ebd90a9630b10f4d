"""The one hook into the step loop: an Observer sees every block, instruction, branch and call of a run.

`run(..., observer=obs)` gives it to the run's Executor (`Executor.observe`), whose slot `observers` then holds
an `Observers`: exec_block, branch_edges and run_frame each check the slot once (one test per block and call, none
per instruction) and hand an observed run over to it, which calls the observers around the executor's own steps
(`run_phis`, `exec_inst`, `terminator_edges`, `run_blocks`). An observed run takes the instruction-at-a-time path
(the compiled blocks of block_compiler.py run a whole block without returning here), like --trace. The run
option `nonfinite` is an observer too (nonfinite.Watch), inside the caller's: the caller's sees its error as a
fault.

Used by the line coverage (devtools/coverage.py) and the debugger (devtools/debugger.py), which sit above the
engine. Instructions inside the functions that cooperative-matrix-2 instructions call per matrix element
(Executor.call_per_element, with virtual invocations) are not reported: their lanes are not the dispatch's
invocations.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

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


class Observers:
    """An observed run's hook (Executor.observers): exec_block, branch_edges and run_frame hand over to it (one
    check each), and it calls the observers around the executor's own steps. Each observer wraps the ones inside
    it (`observers` is innermost first, as Executor.observe was given them): it sees a step before them and its
    branch and leave after them, and an error raised inside it (the step's, or an inner observer's callback) as a
    fault at that step, once (level: its place, the outermost 0)."""

    __slots__ = ("chain", "reported")

    def __init__(self, observers: list[Observer]) -> None:
        self.chain = tuple(reversed(observers))   # the outermost first
        # per observer, the error it was told of: once, not again in each frame the error unwinds
        self.reported: list[SpvError | None] = [None] * len(self.chain)

    def attach(self, ex: Executor) -> None:
        for obs in reversed(self.chain):   # the innermost first, as they were given
            obs.attach(ex)

    def failed(self, level: int, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray,
               e: SpvError) -> None:
        if ex.virtual_lanes is None and self.reported[level] is not e:
            self.reported[level] = e
            self.chain[level].fault(ex, frame, inst, mask, e)

    def block(self, ex: Executor, frame: Frame, blk: Block, incoming: list, mask: np.ndarray, level: int = 0) -> None:
        """exec_block observed: the block reported, then its phis and body an instruction at a time."""
        if level == len(self.chain):
            full = mask is ex.every or bool(mask.all())
            if blk.phis:
                ex.run_phis(frame, blk, incoming, mask, full)
            for inst in blk.body:
                self.instruction(ex, frame, inst, mask, full)
            return
        if ex.virtual_lanes is None:
            self.chain[level].block(ex, frame, blk, mask)
        try:
            self.block(ex, frame, blk, incoming, mask, level + 1)
        except SpvError as e:   # a phi's fault (the body's are reported by instruction), or an inner callback's
            self.failed(level, ex, frame, blk.phis[0] if blk.phis else blk.label_inst, mask, e)
            raise

    def instruction(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray, full: bool,
                    level: int = 0) -> None:
        """exec_inst observed."""
        if level == len(self.chain):
            ex.exec_inst(frame, inst, mask, full)
            return
        if ex.virtual_lanes is None:
            self.chain[level].instruction(ex, frame, inst, mask)
        try:
            self.instruction(ex, frame, inst, mask, full, level + 1)
        except SpvError as e:
            self.failed(level, ex, frame, inst, mask, e)
            raise

    def edges(self, ex: Executor, frame: Frame, blk: Block, mask: np.ndarray, level: int = 0) -> list:
        """branch_edges observed: the terminator reported as an instruction, then its edges as a branch."""
        if level == len(self.chain):
            return ex.terminator_edges(frame, blk, mask)
        obs = self.chain[level]
        term = blk.term
        seen = term is not None and ex.virtual_lanes is None
        if seen:
            obs.instruction(ex, frame, cast("Instruction", term), mask)
        try:
            edges = self.edges(ex, frame, blk, mask, level + 1)
        except SpvError as e:
            self.failed(level, ex, frame, term or blk.label_inst, mask, e)
            raise
        if seen:
            obs.branch(ex, frame, cast("Instruction", term), edges)
        return edges

    def frame(self, ex: Executor, frame: Frame, mask: np.ndarray, level: int = 0):
        """run_frame observed: the call entered, its variables an instruction at a time, its blocks, left."""
        if level == len(self.chain):
            for v in frame.fn.variables:
                self.instruction(ex, frame, v, mask, True)
            return ex.run_blocks(frame, mask)
        obs = self.chain[level]
        seen = ex.virtual_lanes is None
        if seen:
            obs.enter(ex, frame, frame.fn, mask)
        try:
            return self.frame(ex, frame, mask, level + 1)
        finally:
            if seen:
                obs.leave(ex, frame, frame.fn)


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

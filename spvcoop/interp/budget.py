"""Budget: what one run may spend (executed instructions, time, memory) and the rules that stop it.

The runner makes one Budget per run (from the run's RunConfig) and hands it to the Executor; every limit check
and its located error is written here once, and the three places that count steps call it:
- the plain path: `count(inst)` for each instruction it executes, `tick(inst)` for each terminator;
- the generated code of block_compiler.py keeps the count in a local (`steps`, read from and written back to
  `Budget.steps` where it enters and leaves, and around any op that may run other code) and calls `reached(steps,
  inst)` when the count passes a checkpoint: a body instruction when it passes `max_steps`, a terminator when it
  reaches `tick_at`. Which checkpoint means what (the step limit; the clock and progress) is decided in
  `reached`, not in the generated code.
The clock is read, and progress reported, only at terminators: at the first one at or past each multiple of
PROGRESS_EVERY steps (reading the clock per instruction would cost more than the instruction).
Memory: `reserve(nbytes, what, inst)` before allocating anything a run keeps or makes (lane state, buffers,
variables, large temporaries).
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..core.diagnostics import Diagnostic, SpvError

MAX_STEPS = 2**63 - 1  # no step limit
PROGRESS_EVERY = 1024  # the clock is read (and progress reported) this many steps apart, at a terminator


class Budget:
    """The counters of one run (steps, the step limit, the deadline, the next progress point, the memory in use)
    and the rules over them. `where(inst, notes)` -> (span, source) locates an error at an instruction."""

    __slots__ = ("config", "where", "steps", "max_steps", "invocations", "deadline", "next_progress", "tick_at",
                 "progress", "memory_used")

    def __init__(self, config: Any, where: Callable[[Any, list], tuple]) -> None:
        self.config = config
        self.where = where
        self.steps = 0
        # no step limit by default (the time limit stops endless loops); lowered by for_invocations when the work
        # limit is tighter
        self.max_steps = config.max_steps or MAX_STEPS
        self.invocations = 1
        self.deadline = time.monotonic() + config.max_time   # restarted by start_clock: execution only counts
        self.progress = config.progress
        self.next_progress = PROGRESS_EVERY
        # a terminator whose count reaches this calls reached(): past the step limit, or at a progress point
        self.tick_at = min(self.max_steps + 1, self.next_progress)
        self.memory_used = 0  # bytes reserved for the whole run (dispatch state, buffers, global variables)

    # ---- steps ---------------------------------------------------------------------
    def for_invocations(self, n: int) -> None:
        """The dispatch has n invocations: the work limit becomes a step limit for them (one check per step)."""
        c = self.config
        self.invocations = n
        self._set_max_steps(min(c.max_steps or MAX_STEPS, max(1, c.max_work // max(1, n))))

    def _set_max_steps(self, limit: int) -> None:
        self.max_steps = limit
        self.tick_at = min(limit + 1, self.next_progress)

    @contextlib.contextmanager
    def shared_with(self, n: int, real: int) -> Iterator[None]:
        """While n virtual invocations run in place of the dispatch's `real` ones (Executor.call_per_element):
        the work limit holds, so more of them may execute proportionally fewer instructions; restored after."""
        saved = self.max_steps, self.invocations
        if n > real:
            self._set_max_steps(self.steps + max(1, (saved[0] - self.steps) * max(real, 1) // n))
        self.invocations = n   # the work limit's message names the invocations running
        try:
            yield
        finally:
            self._set_max_steps(saved[0])
            self.invocations = saved[1]

    def count(self, inst) -> None:
        """One executed instruction that is not a terminator: the step limit."""
        self.steps += 1
        if self.steps > self.max_steps:
            self.limit_reached(inst)

    def tick(self, inst) -> None:
        """One executed terminator: the step limit, and the clock and progress at a progress point."""
        self.steps += 1
        if self.steps >= self.tick_at:
            self.reached(self.steps, inst, True)

    def reached(self, steps: int, inst, terminator: bool = False) -> None:
        """The count `steps` (generated code's local, now the run's) passed a checkpoint at `inst`: a body
        instruction past max_steps, or a terminator at tick_at. Raises the limit's error, or reads the clock and
        reports progress."""
        self.steps = steps
        if steps > self.max_steps:
            self.limit_reached(inst)
        if terminator and steps >= self.next_progress:
            self.check_clock(inst)
            if self.progress is not None:
                self.progress(steps)
            self.next_progress = (steps | (PROGRESS_EVERY - 1)) + 1
            self.tick_at = min(self.max_steps + 1, self.next_progress)

    # ---- time ------------------------------------------------------------------------
    def start_clock(self) -> None:
        """The time limit counts execution only: the clock starts when the entry point is called."""
        self.deadline = time.monotonic() + self.config.max_time

    def pause(self, seconds: float) -> None:
        """`seconds` spent outside the run (the debugger's prompt) do not count against the time limit."""
        self.deadline += seconds

    def check_clock(self, inst) -> None:
        if time.monotonic() > self.deadline:
            self.limit_reached(inst, timed_out=True)

    def limit_reached(self, inst, timed_out: bool = False) -> None:
        """The located error of a limit reached at `inst`, naming the option that raises it."""
        notes: list = []
        span, source = self.where(inst, notes)
        c = self.config
        if timed_out:
            message, rule = (f"time limit of {c.max_time:g} s reached at {inst.opname} after {self.steps:,} executed "
                             "instructions (an infinite loop?); raise it with max_time= (Python API) or --max-time "
                             "(spvcoop run)"), "interp.max-time"
        elif c.max_steps is None or self.max_steps < c.max_steps:
            message, rule = (f"work limit of {c.max_work} reached at {inst.opname}: {self.max_steps} instructions for "
                             f"{self.invocations} invocations; raise it with max_work= (Python API) or --max-work "
                             "(spvcoop run)"), "interp.max-work"
        else:
            message, rule = (f"step limit of {self.max_steps} executed instructions reached at {inst.opname} (an "
                             "infinite loop?); raise it with max_steps= (Python API) or --max-steps (spvcoop run)"
                             ), "interp.max-steps"
        raise SpvError(Diagnostic("error", message, span, rule=rule, notes=notes, source=source))

    # ---- memory ----------------------------------------------------------------------
    def reserve(self, nbytes: int, what: str, inst, keep: bool = True) -> None:
        """Check, before allocating, that `nbytes` more fit in the memory budget; `keep` counts them for the
        rest of the run (a Function variable or a temporary value is only checked). `inst`: where, or None."""
        limit = self.config.max_memory
        if self.memory_used + nbytes > limit:
            notes: list = []
            span, source = self.where(inst, notes)
            raise SpvError(Diagnostic(
                "error", f"memory budget of {_size(limit)} exceeded: {what} needs {_size(nbytes)} "
                f"({_size(self.memory_used)} already in use); raise it with max_memory= (Python API) or "
                f"--max-memory (spvcoop run)", span, rule="interp.max-memory", notes=notes, source=source))
        if keep:
            self.memory_used += nbytes


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{n} bytes"

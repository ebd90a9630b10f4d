"""The debugger's side of the run's thread: where to stop. `Hook`, an observe.Observer installed on the run, sees
each instruction and decides whether it is a stop (a step's end, a breakpoint whose condition, ignore count and
hit condition hold, a pause or quit asked for from another thread, a fault, a new data race, a caught non-finite
value); then it hands a `Stop` to the Debugger (debugger.py), which waits for the next run command."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.diagnostics import SpvError
from .debug_expr import DebugError, shown
from ..interp.observe import Observer, source_line

if TYPE_CHECKING:
    from ..core.module import Instruction
    from ..interp.executor import Executor, Frame
    from ..interp.program import Function

Line = tuple[str, int]
PAUSE_WITHIN = 10_000
Debugger = Any   # debugger.Debugger (which imports this module: not named here, no import circle)


class Breakpoint:
    """Where to stop: a source line, or an instruction (Instruction.index: `word N`, `%ID`, a function's entry).
    `hit_condition` (DAP's): 'N' or '>= N' (stop from the Nth hit on), '== N', '> N', '% N' (every Nth);
    `ignore`: hits to pass over (gdb); `log`: a logpoint's message ({EXPR} interpolated), which never stops."""
    __slots__ = ("number", "where", "line", "index", "condition", "hits", "enabled", "temporary", "hit_condition",
                 "ignore", "log")

    def __init__(self, number: int, where: str, line: Line | None, index: int | None, condition: str | None) -> None:
        self.number = number
        self.where = where           # as shown: 'br.comp:12', 'word 317', '%42', 'twice'
        self.line = line
        self.index = index
        self.condition = condition
        self.hits = 0
        self.enabled = True
        self.temporary = False
        self.hit_condition: str | None = None
        self.ignore = 0
        self.log: str | None = None

    def describe(self) -> str:
        text = f"{self.number}  {self.where}" + (f" if {self.condition}" if self.condition else "")
        extra = [x for x in ("disabled" if not self.enabled else "", "temporary" if self.temporary else "",
                             f"log '{self.log}'" if self.log is not None else "",
                             f"hit condition {self.hit_condition}" if self.hit_condition else "",
                             f"ignore next {self.ignore} hits" if self.ignore else "",
                             f"hit {self.hits} time{'s' if self.hits != 1 else ''}" if self.hits else "") if x]
        return text + (f"  ({'; '.join(extra)})" if extra else "")


def hit_condition_holds(text: str, hits: int) -> bool:
    """DAP's hitCondition after `hits` hits (counting this one): see Breakpoint."""
    t = text.replace(" ", "")
    op = next((o for o in (">=", "==", ">", "%") if t.startswith(o)), "")
    try:
        n = int(t[len(op):])
    except ValueError:
        raise DebugError(f"hit condition '{shown(text, 40)}': want N, >= N, == N, > N or % N") from None
    if not 0 <= n <= 1 << 62:
        raise DebugError(f"hit condition '{shown(text, 40)}': N out of range")
    return {"": hits >= n, ">=": hits >= n, "==": hits == n, ">": hits > n, "%": n > 0 and hits % n == 0}[op]


class Stop:
    """The state at a stop: the executor (read it only while stopped), the frame stack, the instruction about to
    run (for a fault, race or caught value: the one that did it) and the invocations active there; `error`, the
    SpvError of a fault or race stop; `note`, more to say (a condition that failed, a non-finite value)."""
    __slots__ = ("ex", "stack", "inst", "mask", "line", "reason", "error", "note")

    def __init__(self, ex: Executor, stack: list, inst: Instruction, mask: np.ndarray, line: Line | None,
                 reason: str, error: SpvError | None = None, note: str = "") -> None:
        self.ex, self.stack, self.inst, self.mask, self.line, self.reason = ex, stack, inst, mask, line, reason
        self.error, self.note = error, note


class Quit(BaseException):
    """Ends the run from inside the observer (BaseException: no handler of the interpreter takes it)."""


class Hook(Observer):
    """The observer in the run's thread: decides where to stop, then waits for the next command."""

    def __init__(self, dbg: Debugger) -> None:
        self.dbg = dbg
        self.stack: list[Frame] = []
        self.last: tuple[Line | None, Frame | None] = (None, None)
        self.prev: tuple[Frame, Instruction, np.ndarray] | None = None   # the instruction executed last
        self.races = 0
        self.pausing = 0   # instructions since a pause was asked for

    def enter(self, ex: Executor, frame: Frame, fn: Function, mask: np.ndarray) -> None:
        self.stack.append(frame)

    def leave(self, ex: Executor, frame: Frame, fn: Function) -> None:
        if self.stack and self.stack[-1] is frame:
            self.stack.pop()

    def fault(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray, error: Exception) -> None:
        d = self.dbg
        if "fault" not in d.catch or not isinstance(error, SpvError):
            return
        lanes = getattr(error, "lanes", None)
        if lanes is not None and len(lanes) and 0 <= int(lanes[0]) < ex.N:
            d.selected = int(lanes[0])
        stack = self.stack if self.stack and self.stack[-1] is frame else [*self.stack, frame]
        d.stopped(Stop(ex, list(stack), inst, mask, source_line(ex.prog, inst), "exception", error))

    def instruction(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray) -> None:
        d = self.dbg
        prev, self.prev = self.prev, (frame, inst, mask)
        if prev is not None and (d.catch or ex.races is not None):
            self._caught(ex, prev)
        ln = source_line(ex.prog, inst)
        new_line = ln is not None and (ln, frame) != self.last
        if ln is not None:
            self.last = (ln, frame)
        if d.interrupt is not None:   # from another thread (DAP's pause, disconnect)
            if d.interrupt == "quit":
                raise Quit
            # a pause stops where a source line begins (a value set there is not overwritten by the rest of its
            # statement), or after PAUSE_WITHIN instructions without one
            self.pausing += 1
            if new_line or self.pausing > PAUSE_WITHIN:
                d.interrupt, self.pausing = None, 0
                self._stop(ex, frame, inst, mask, ln, "pause")
                return
        depth = len(self.stack)
        sel = d.selected if d.selected < mask.shape[0] else 0
        mine = bool(mask[sel if mask.shape[0] > 1 else 0])
        mode, reason = d.mode, None
        # until: the next line past this one in this frame (a loop's back edge does not stop), or the caller's
        later = (mode == "until" and (depth < d.mode_depth or depth == d.mode_depth and ln is not None and
                                      d.mode_line is not None and ln[0] == d.mode_line[0] and ln[1] > d.mode_line[1]))
        if mine and (mode == "stepi" or new_line and (mode == "step" or later or mode == "next" and
                                                      depth <= d.mode_depth)):
            reason = "step"
        elif mode == "finish" and depth < d.mode_depth and mine:
            reason = "finish"
        note = ""
        if reason is None and d.breakpoints:
            for bp in list(d.breakpoints.values()):
                if not bp.enabled or not (bp.index == inst.index or bp.line is not None and new_line and bp.line == ln):
                    continue
                try:
                    lanes = d.condition_lanes(bp, ex, frame, mask, inst)
                except DebugError as e:   # gdb: an error in the condition stops there, saying so
                    lanes = [d.selected]
                    note = (f"error: the condition of breakpoint {bp.number} could not be evaluated: {e}; "
                            "stopped here ('condition N EXPR' changes it)")
                if not lanes:
                    continue
                bp.hits += 1
                if not note and bp.ignore:
                    bp.ignore -= 1
                    continue
                if not note and bp.hit_condition is not None and not hit_condition_holds(bp.hit_condition, bp.hits):
                    continue
                if bp.log is not None and not note:
                    d.log(bp, ex, frame, lanes)
                    continue
                if d.picked in lanes:   # the invocation the user picked, whenever it is among them
                    d.selected = d.picked
                elif d.selected not in lanes:
                    d.selected = lanes[0]
                reason = f"breakpoint {bp.number}"
                if bp.temporary:
                    del d.breakpoints[bp.number]
                break
        if reason is not None:
            self._stop(ex, frame, inst, mask, ln, reason, note=note)

    def _stop(self, ex, frame, inst, mask, ln, reason, error=None, note="") -> None:
        stack = self.stack if self.stack and self.stack[-1] is frame else [*self.stack, frame]
        self.dbg.stopped(Stop(ex, list(stack), inst, mask, ln, reason, error, note))

    def _caught(self, ex: Executor, prev: tuple) -> None:
        """After an instruction: a new data race (stop at it), a caught non-finite value."""
        d = self.dbg
        frame, inst, mask = prev
        rec = ex.races
        if rec is not None and len(rec.races) != self.races:
            self.races = len(rec.races)
            if "race" in d.catch:
                race = list(rec.races.values())[-1]
                d.selected = int(race.agents[1]) % ex.N if race.agents[1] >= 0 else d.selected
                err = SpvError(rec._diagnostic(race))
                self._stop(ex, frame, inst, mask, source_line(ex.prog, inst), "race", err)
        if "nonfinite" in d.catch and inst.result_id is not None:
            from ..interp.nonfinite import first_nonfinite
            found = first_nonfinite(ex, frame, inst, mask)
            if found is not None:
                lane, text = found
                d.selected = lane
                self._stop(ex, frame, inst, mask, source_line(ex.prog, inst), "nonfinite", note=text)

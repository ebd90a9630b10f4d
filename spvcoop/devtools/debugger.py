"""A gdb-like debugger for compute shaders: breakpoints, stepping, values per invocation, matrices by lane.

`Debugger(shader, inputs, options).execute("break 12")` returns a `Reply` (text for the user; the library never
prints). The run itself happens in a thread under an observe.Observer that, where it has to stop (a breakpoint,
the end of a step, a fault, a race, a caught non-finite value, a pause asked for from another thread), hands the
executor's state to the caller and waits for the next run command; while it waits, `print`, `matrix`,
`backtrace` and the like read that state. All invocations still run in lockstep: a stop is a point of the whole
dispatch, and the selected invocation only decides which values are shown (and where `step`/`next` stop: at the
next line the selected invocation executes).

A run that fails (an out-of-bounds access, an undefined value, a limit) stops where it failed, with the
invocation that failed selected (a post-mortem stop: every command works; the next run command ends the run with
its error). A data race stops where the detector sees its second access. Commands: `help`, and README
"Debugging a shader". Expressions and value text: debug_expr.py.
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import numpy as np

from ..core.diagnostics import SpvError, did_you_mean, printable
from .debug_expr import (MAX_ROWS, DebugError, Evaluator, Text, at, fmt, formatter, np_leaf, parse_expr, ranges,
                         shown, structured, triple)
from .debug_expr import short_path as _short
from .debug_run import Breakpoint, Hook, Quit, Stop
from ..interp.observe import source_line

if TYPE_CHECKING:
    import ast

    from ..core.module import Instruction, Module
    from ..interp.executor import Executor, Frame
    from ..interp.program import Program
    from ..interp.runner import RunResult

Line = tuple[str, int]
COMMANDS = ("break", "tbreak", "delete", "disable", "enable", "condition", "ignore", "info", "run", "continue",
            "step", "next", "stepi", "until", "advance", "finish", "invocation", "print", "display", "undisplay",
            "x", "matrix", "list", "backtrace", "frame", "up", "down", "catch", "quit", "help")
ALIASES = {"b": "break", "c": "continue", "s": "step", "n": "next", "si": "stepi", "p": "print", "bt": "backtrace",
           "where": "backtrace", "q": "quit", "r": "run", "d": "delete", "u": "until", "l": "list", "f": "frame",
           "i": "info", "cont": "continue"}
REPEATED = ("step", "next", "stepi", "until")   # an empty line repeats these (gdb)
MAX_DECODE = 4 << 20   # bytes of a buffer or variable a value is read from (its first 4 MiB)
MAX_LOG = 200          # logpoint messages a run sends before they are cut off
HELP = """\
break LOCATION [if EXPR]   LOCATION: LINE, FILE:LINE, FUNCTION, word N or %ID; tbreak: deleted at its first stop
delete|disable|enable [N...]; condition N [EXPR]; ignore N COUNT; info breakpoints|invocations|locals|args|frame|
  display|writer BUF[i]|catch
run (again after the end: a new run); continue; step; next; stepi; until [LINE]; advance LINE; finish
  (an empty line repeats step, next, stepi, until)
invocation N | X,Y,Z (global id) | local X,Y,Z [group X,Y,Z]: the invocation whose values are shown
print[/x|/d|/o|/t|/c|/f] EXPR [@all]; display EXPR (after every stop); undisplay [N]; x/COUNT[FMT] BUF[i]
matrix NAME [--lanes]; list [LINE|FUNCTION]; backtrace; frame [N]; up [N]; down [N]
catch nonfinite|fault|race|off: stop where an instruction makes inf/NaN from finite operands, at a fault, at a race
quit"""


class Reply:
    """What a command says (text, possibly empty) and whether it was refused (error)."""
    __slots__ = ("text", "error")

    def __init__(self, text: str = "", error: bool = False) -> None:
        self.text = text
        self.error = error


class Debugger:
    """One debug session of one run (and of the runs `run` starts again): `execute(command)` -> Reply; `state` is
    'not started', 'running', 'stopped' or 'exited', and after the run `result` (a RunResult) or `error` (the
    SpvError that ended it). `output` (settable) receives logpoint messages as the run goes."""

    def __init__(self, shader: Module | Program, inputs: dict, options: dict) -> None:
        from ..interp.program import Program
        # one Program for the session: the names and lines here, and every run (run() takes it as its shader)
        self.prog: Program = shader if isinstance(shader, Program) else Program(shader)
        self.module = self.prog.module
        self.inputs = inputs
        self.options = {k: v for k, v in options.items() if k not in ("trace", "observer")}
        self.breakpoints: dict[int, Breakpoint] = {}
        self.next_bp = 1
        self.selected = 0
        self.picked: int | None = None   # the invocation `invocation` picked: selected again wherever it is active
        self.frame_index = 0   # frame / up / down: 0 the innermost
        self.mode = "continue"
        self.mode_depth = 0
        self.mode_line: Line | None = None
        self.state = "not started"
        self.stop: Stop | None = None
        self.result: RunResult | None = None
        self.error: SpvError | None = None
        self.catch: set[str] = {"fault", "race"}
        self.displays: dict[int, str] = {}
        self.next_display = 1
        self.interrupt: str | None = None   # set from another thread: 'pause' or 'quit'
        self.output: Callable[[str], None] | None = None
        self.logged = 0
        self.last_command = ""
        self._events: queue.Queue = queue.Queue()
        self._commands: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._paused_at = 0.0
        self._by_name: dict[str, list[int]] = {}
        for i, n in self.prog.names.items():
            self._by_name.setdefault(n, []).append(i)
        self._code_lines: dict[str, set[int]] = {}
        self._first_line: dict[int, Line] = {}   # function id -> its first source line
        for fn in self.prog.functions.values():
            for blk in fn.blocks.values():
                for inst in [*fn.variables, *blk.phis, *blk.body, *([blk.term] if blk.term else [])]:
                    ln = source_line(self.prog, inst)
                    if ln is not None:
                        self._code_lines.setdefault(ln[0], set()).add(ln[1])
                        self._first_line.setdefault(fn.id, ln)

    # ---- the run's thread -----------------------------------------------------------------
    def stopped(self, stop: Stop) -> None:
        """In the run's thread: report the stop and wait for the next run command (or quit)."""
        self._paused_at = time.monotonic()
        self._events.put(("stopped", stop))
        command = self._commands.get()
        stop.ex.budget.pause(time.monotonic() - self._paused_at)   # time at the prompt is not run time
        if command == "quit":
            raise Quit

    def log(self, bp: Breakpoint, ex: Executor, frame: Frame, lanes: list[int]) -> None:
        """A logpoint's message, {EXPR} evaluated in its first invocation, to `output`."""
        import re
        self.logged += 1
        if self.output is None or self.logged > MAX_LOG:
            return
        lane = lanes[0]

        def value(m: re.Match) -> str:
            try:
                return fmt(self._eval(parse_expr(m.group(1)), ex, frame, lane))
            except DebugError as e:
                return f"<{e}>"
        text = re.sub(r"\{([^{}]*)\}", value, cast(str, bp.log))
        more = " (later messages are not shown)" if self.logged == MAX_LOG else ""
        self.output(printable(text) + more)

    def _target(self) -> None:
        from ..interp.runner import run
        try:
            res = run(self.prog, **self.inputs, **self.options, observer=Hook(self))
            self._events.put(("exited", res))
        except Quit:
            self._events.put(("quit", None))
        except SpvError as e:
            self._events.put(("error", e))
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread, which re-raises it
            self._events.put(("crash", e))

    def start(self, mode: str) -> None:
        """Go on (or begin) in `mode`; `wait` gives what comes of it."""
        if self.state == "exited":
            raise DebugError("the run has ended: 'run' starts it again, 'quit' ends the session")
        if self.state == "running":
            raise DebugError("the run is going on")
        self.mode = mode
        self.mode_depth = len(self.stop.stack) if self.stop is not None else 0
        self.mode_line = self.stop.line if self.stop is not None else None
        self.interrupt = None
        if self.state == "not started":
            self.state = "running"
            self._thread = threading.Thread(target=self._target, name="spvcoop-debug", daemon=True)
            self._thread.start()
        else:
            self.state = "running"
            self._commands.put(mode)

    def wait(self, timeout: float | None = None) -> str | None:
        """After `start`: the text of the stop or the end, or None if the run is still going after `timeout`."""
        try:
            kind, payload = self._events.get(timeout=timeout)
        except queue.Empty:
            return None
        if kind == "stopped":
            self.state, self.stop = "stopped", payload
            self.frame_index = 0
            picked = self.picked
            if picked is not None and payload.reason in ("step", "finish", "pause") and 0 <= picked < payload.ex.N \
                    and bool(np.broadcast_to(payload.mask, (payload.ex.N,))[picked]):
                self.selected = picked   # the pick holds across stops wherever it is active
            return self.describe_stop()
        self.state, self.stop = "exited", None
        if self._thread is not None:
            self._thread.join()
        if kind == "crash":
            raise payload
        if kind == "quit":
            return "[run ended]"
        if kind == "error":
            self.error = payload
            return "[run stopped with an error]"
        self.result = payload
        return f"[run exited normally after {payload.steps:,} instructions]"

    def _resume(self, mode: str) -> str:
        self.start(mode)
        return cast(str, self.wait())

    def close(self) -> None:
        """End the run if it is stopped or going on (quit)."""
        if self.state == "running":
            self.interrupt = "quit"
            while self.state == "running":
                self.wait()
        if self.state == "stopped":
            self._commands.put("quit")
            self._events.get()
            if self._thread is not None:
                self._thread.join()
            self.state, self.stop = "exited", None

    def restart(self) -> None:
        """A fresh run (breakpoints, displays and the selection stay)."""
        self.close()
        self.state, self.stop, self.result, self.error, self.logged = "not started", None, None, None, 0
        self._events, self._commands = queue.Queue(), queue.Queue()

    # ---- commands --------------------------------------------------------------------------
    def execute(self, line: str) -> Reply:
        if not line.strip():
            if self.last_command.split(None, 1)[:1] and ALIASES.get(self.last_command.split()[0],
                                                                     self.last_command.split()[0]) in REPEATED:
                line = self.last_command
            else:
                return Reply()
        words = line.strip().split(None, 1)
        head = words[0]
        fmt_suffix = ""
        if "/" in head and not head.startswith("/"):   # print/x, x/4x
            head, fmt_suffix = head.split("/", 1)
        name, rest = ALIASES.get(head, head), (words[1].strip() if len(words) > 1 else "")
        if name not in COMMANDS:
            shown_name = shown(words[0], 40)
            return Reply(f"error: unknown command '{shown_name}'{did_you_mean(words[0], COMMANDS)}; 'help' lists "
                         "them", True)
        self.last_command = line.strip()
        try:
            if fmt_suffix and name not in ("print", "x", "display"):
                raise DebugError(f"'{name}' takes no /FORMAT")
            if name in ("print", "x", "display"):
                return Reply(getattr(self, "cmd_" + name)(rest, fmt_suffix))
            return Reply(getattr(self, "cmd_" + name)(rest))
        except DebugError as e:
            return Reply(f"error: {e}", True)

    def cmd_help(self, rest: str) -> str:
        return HELP

    def cmd_run(self, rest: str) -> str:
        if self.state in ("stopped", "exited"):
            self.restart()
        return self._resume("continue")

    def cmd_continue(self, rest: str) -> str:
        return self._resume("continue")

    def cmd_step(self, rest: str) -> str:
        return self._resume("step")

    def cmd_next(self, rest: str) -> str:
        return self._resume("next")

    def cmd_stepi(self, rest: str) -> str:
        return self._resume("stepi")

    def cmd_until(self, rest: str) -> str:
        if rest:
            return self.cmd_advance(rest)
        self._need_stop()
        return self._resume("until")

    def cmd_advance(self, rest: str) -> str:
        if not rest:
            raise DebugError("advance wants a LOCATION")
        self._need_stop()
        bp = self._new_breakpoint(rest)[0]
        bp.temporary = True
        try:
            return self._resume("continue")
        finally:
            self.breakpoints.pop(bp.number, None)

    def cmd_finish(self, rest: str) -> str:
        if self.stop is None or len(self.stop.stack) < 2:
            raise DebugError("'finish' needs a stop inside a called function")
        return self._resume("finish")

    def cmd_quit(self, rest: str) -> str:
        self.close()
        return ""

    def cmd_catch(self, rest: str) -> str:
        what = rest.strip()
        kinds = ("nonfinite", "fault", "race")
        if what == "off":
            self.catch.clear()
        elif what in kinds:
            self.catch.add(what)
        elif what:
            raise DebugError(f"catch wants nonfinite, fault, race or off{did_you_mean(what, kinds)}")
        return "catching: " + (", ".join(k for k in kinds if k in self.catch) or "nothing")

    # ---- breakpoints ---------------------------------------------------------------------------
    def cmd_break(self, rest: str) -> str:
        bp, note = self._new_breakpoint(rest)
        return f"Breakpoint {bp.number} at {bp.where}{note}" + (f" if {bp.condition}" if bp.condition else "")

    def cmd_tbreak(self, rest: str) -> str:
        bp, note = self._new_breakpoint(rest)
        bp.temporary = True
        return f"Temporary breakpoint {bp.number} at {bp.where}{note}" + (f" if {bp.condition}" if bp.condition
                                                                             else "")

    def _new_breakpoint(self, rest: str) -> tuple[Breakpoint, str]:
        where, _, cond_text = rest.partition(" if ")
        where, cond = where.strip(), cond_text.strip() or None
        if not where:
            raise DebugError("break wants LINE, FILE:LINE, FUNCTION, word N or %ID")
        if cond is not None:
            parse_expr(cond)   # refused now, not at the first hit
        line, index, shown_at, note = self.location(where)
        bp = Breakpoint(self.next_bp, shown_at, line, index, cond)
        self.breakpoints[bp.number] = bp
        self.next_bp += 1
        return bp, note

    def location(self, where: str) -> tuple[Line | None, int | None, str, str]:
        """(source line, instruction index, as shown, a note) of a breakpoint location."""
        if where.startswith("word"):
            n = _int(where[4:].strip(), "break word N")
            return None, self._instruction_at_word(n), f"word {n}", ""
        if where.startswith("%"):
            return None, self._instruction_of(where).index, where, ""
        file, _, num = where.rpartition(":")
        if not num.strip().lstrip("+-").isdigit():
            fid = self._function_named(where)
            if fid is not None:
                entry = self._instruction_of(f"%{fid}")
                return None, entry.index, self._fn_name(fid), ""
            if not file:
                known = sorted({self._fn_name(f) for f in self.prog.functions})
                raise DebugError(f"no function '{shown(where, 60)}'{did_you_mean(where, known)} (break wants LINE, "
                                 "FILE:LINE, FUNCTION, word N or %ID)")
        n = _int(num, "break LINE")
        f = self._source_file(file)
        lines = self._code_lines.get(f, set())
        later = sorted(x for x in lines if x >= n)
        if not later:
            raise DebugError(f"no code at or after line {n} of {_short(f)}")
        note = f" (line {n} has no code)" if later[0] != n else ""
        return (f, later[0]), None, f"{_short(f)}:{later[0]}", note

    def _function_named(self, name: str) -> int | None:
        for fid in self.prog.functions:
            if name in (self._fn_name(fid), self.prog.name_of(fid)):
                return fid
        return None

    def _numbers(self, rest: str, what: str) -> list[Breakpoint]:
        if not rest:
            return list(self.breakpoints.values())
        out = []
        for w in rest.split():
            n = _int(w, what)
            if n not in self.breakpoints:
                raise DebugError(f"no breakpoint {n}")
            out.append(self.breakpoints[n])
        return out

    def cmd_delete(self, rest: str) -> str:
        bps = self._numbers(rest, "delete N")
        for b in bps:
            del self.breakpoints[b.number]
        return "deleted all breakpoints" if not rest else "deleted " + ", ".join(f"breakpoint {b.number}"
                                                                                 for b in bps)

    def cmd_disable(self, rest: str) -> str:
        for b in self._numbers(rest, "disable N"):
            b.enabled = False
        return ""

    def cmd_enable(self, rest: str) -> str:
        for b in self._numbers(rest, "enable N"):
            b.enabled = True
        return ""

    def cmd_condition(self, rest: str) -> str:
        num, _, cond = rest.partition(" ")
        bp = self._numbers(num, "condition N EXPR")[0] if num else None
        if bp is None:
            raise DebugError("condition wants N [EXPR]")
        if cond.strip():
            parse_expr(cond.strip())
        bp.condition = cond.strip() or None
        return (f"Breakpoint {bp.number} now stops if {bp.condition}" if bp.condition else
                f"Breakpoint {bp.number} now unconditional")

    def cmd_ignore(self, rest: str) -> str:
        parts = rest.split()
        if len(parts) != 2:
            raise DebugError("ignore wants N COUNT")
        bp = self._numbers(parts[0], "ignore N")[0]
        count = _int(parts[1], "ignore N COUNT")
        if not 0 <= count <= 1 << 62:
            raise DebugError("ignore: COUNT out of range")
        bp.ignore = count
        return f"Will ignore next {count} crossings of breakpoint {bp.number}."

    def _source_file(self, file: str) -> str:
        files = list(self._code_lines)
        if not files:
            raise DebugError("the module has no source lines (a binary without debug information: compile with "
                             "glslang -g); use break word N or %ID")
        if not file:
            if self.stop is not None and self.stop.line is not None:
                return self.stop.line[0]
            return files[0]
        for f in files:
            if f == file or f.endswith("/" + file) or _short(f) == _short(file):
                return f
        raise DebugError(f"no source file '{file}'{did_you_mean(file, [_short(f) for f in files])}")

    def _instruction_of(self, ref: str) -> Instruction:
        rid = self._id_of(ref)
        inst = self.prog.defs.get(rid)
        if inst is None:
            raise DebugError(f"no instruction defines {ref}")
        fn_ = self.prog.functions.get(rid)
        if fn_ is not None:   # a function: its entry block
            rid = fn_.entry
        for fn in self.prog.functions.values():
            blk = fn.blocks.get(rid)
            if blk is not None:   # a label: the block's first instruction
                return blk.body[0] if blk.body else cast("Instruction", blk.term)
        return inst

    def _instruction_at_word(self, n: int) -> int:
        word = 5
        for inst in self.module.instructions:
            if word == n:
                return inst.index
            word += len(inst.words())
            if word > n:
                break
        raise DebugError(f"no instruction starts at word {n}")

    def cmd_info(self, rest: str) -> str:
        what, _, arg = rest.strip().partition(" ")
        choices = ("breakpoints", "invocations", "locals", "args", "frame", "display", "writer", "catch")
        full = next((c for c in choices if what and c.startswith(what)), None)
        if full is None:
            raise DebugError(f"info wants one of {', '.join(choices)}{did_you_mean(what, choices)}")
        if full == "breakpoints":
            return "\n".join(b.describe() for b in self.breakpoints.values()) or "no breakpoints"
        if full == "display":
            return "\n".join(f"{n}: {e}" for n, e in self.displays.items()) or "no display expressions"
        if full == "catch":
            return self.cmd_catch("")
        stop = self._need_stop()
        if full == "invocations":
            active = np.flatnonzero(np.broadcast_to(stop.mask, (stop.ex.N,)))
            return (f"{len(active)} of {stop.ex.N} invocations active: {ranges(active.tolist())}\n"
                    f"selected: {self._describe_lane(self.selected)}")
        if full == "writer":
            from .debug_views import writer
            return writer(self, arg.strip())
        if full == "frame":
            name, ln = self.frames()[self.frame_index]
            return (f"frame #{self.frame_index}: {name}" + (f" at {_short(ln[0])}:{ln[1]}" if ln else "")
                    + f", {self._describe_lane(self.selected)}")
        rows = self.locals(self.frame_index, args_only=full == "args")
        return "\n".join(f"{name} = {text}" for name, text, _ in rows) or f"no named {full}"

    # ---- invocations -----------------------------------------------------------------------
    def cmd_invocation(self, rest: str) -> str:
        """invocation N | X,Y,Z (global id) | local X,Y,Z [group X,Y,Z] (default: the selected one's group)."""
        stop = self._need_stop()
        ex = stop.ex
        words = rest.replace(", ", ",").split()
        local = None
        if words[:1] == ["local"]:
            local = words[1] if len(words) > 1 else ""
            group = words[3] if len(words) > 3 and words[2] == "group" else None
            if len(words) not in (2, 4) or len(words) == 4 and group is None:
                raise DebugError("invocation local X,Y,Z [group X,Y,Z]")
            lane = self._lane_of_local(triple(local, "local"), triple(group, "group") if group else None)
        elif not rest.strip():   # which one is selected
            return f"selected {self._describe_lane(self.selected)}"
        else:
            parts = triple(rest.replace(" ", ""), "invocation")
            if len(parts) == 1:
                lane = parts[0]
            else:
                from ..interp.runner import _traced_lane
                try:
                    lane = int(cast(int, _traced_lane(tuple(parts), ex.lanes.wg_dims, ex.lanes.dispatch, ex.N)))
                except SpvError as e:
                    raise DebugError(e.diagnostics[0].message.replace("--trace ", "")) from None
        if not 0 <= lane < ex.N:
            raise DebugError(f"invocation {lane}: the dispatch has {ex.N} invocations")
        self.selected = self.picked = lane
        active = bool(np.broadcast_to(stop.mask, (ex.N,))[lane])
        return f"selected {self._describe_lane(lane)}" + ("" if active else " (not active at this point)")

    def _lane_of_local(self, local: list[int], group: list[int] | None) -> int:
        ex = self._need_stop().ex
        wg = [int(x) for x in (list(ex.lanes.wg_dims) + [1, 1])[:3]]
        loc = (local + [0, 0])[:3]
        if not all(0 <= loc[k] < wg[k] for k in range(3)):
            raise DebugError(f"local id {tuple(loc)} is outside the workgroup size {tuple(wg)}")
        W = wg[0] * wg[1] * wg[2]
        if group is None:
            g = self.selected // W if W else 0
        else:
            d = [int(x) for x in (list(ex.lanes.dispatch) + [1, 1])[:3]]
            gg = (group + [0, 0])[:3]
            if not all(0 <= gg[k] < d[k] for k in range(3)):
                raise DebugError(f"workgroup {tuple(gg)} is outside the dispatch {tuple(d)}")
            g = (gg[2] * d[1] + gg[1]) * d[0] + gg[0]
        return g * W + (loc[2] * wg[1] + loc[1]) * wg[0] + loc[0]

    def _describe_lane(self, lane: int) -> str:
        stop = self.stop
        info = stop.ex.lanes.info(lane) if stop is not None and stop.ex.lanes.info and 0 <= lane < stop.ex.N else ""
        return f"invocation {info}" if info else f"invocation #{lane}"

    # ---- values ----------------------------------------------------------------------------
    def cmd_print(self, rest: str, form: str = "") -> str:
        stop = self._need_stop()
        expr, at_all = rest, False
        if rest.endswith("@all"):
            expr, at_all = rest[:-4].strip(), True
        if not expr:
            raise DebugError("print wants a name or an expression")
        show = formatter(form)
        tree = parse_expr(expr)
        frame = self.current_frame()
        label = shown(expr, 200)
        if not at_all:
            return f"{label} = {show(self._eval(tree, stop.ex, frame, self.selected))}"
        from .debug_views import over_invocations
        return over_invocations(self, tree, show, label)

    def cmd_x(self, rest: str, form: str = "") -> str:
        """x/COUNT[FMT] EXPR: COUNT elements from EXPR (an element of an array: BUF[i]) on."""
        stop = self._need_stop()
        count_text = "".join(c for c in form if c.isdigit())
        count = int(count_text[:6]) if count_text else 1
        show = formatter("".join(c for c in form if not c.isdigit()))
        expr = rest.strip()
        if not expr.endswith("]") or "[" not in expr:
            raise DebugError("x wants an element: x/COUNT[FMT] NAME[i]")
        base_text, _, index_text = expr[:-1].rpartition("[")
        frame = self.current_frame()
        base = self._eval(parse_expr(base_text), stop.ex, frame, self.selected)
        i = self._eval(parse_expr(index_text), stop.ex, frame, self.selected)
        if not isinstance(base, list) or not isinstance(i, (int, np.integer)) or isinstance(i, (bool, np.bool_)):
            raise DebugError("x wants an array and an integer index")
        i = int(i)
        if not 0 <= i < len(base):
            raise DebugError(f"index {i} is outside 0..{len(base) - 1}")
        items = base[i:i + min(count, MAX_ROWS * 8)]
        out = []
        for k in range(0, len(items), 8):
            out.append(f"{shown(base_text, 60)}[{i + k}]: " + " ".join(show(v) for v in items[k:k + 8]))
        return "\n".join(out)

    def cmd_display(self, rest: str, form: str = "") -> str:
        if not rest.strip():
            return self._displays()
        parse_expr(rest.strip())
        text = (f"/{form} " if form else "") + rest.strip()
        self.displays[self.next_display] = text
        self.next_display += 1
        return self._displays(only=self.next_display - 1) if self.stop is not None else ""

    def cmd_undisplay(self, rest: str) -> str:
        if not rest:
            self.displays.clear()
            return ""
        for w in rest.split():
            if self.displays.pop(_int(w, "undisplay N"), None) is None:
                raise DebugError(f"no display {w}")
        return ""

    def _displays(self, only: int | None = None) -> str:
        out = []
        for n, text in self.displays.items():
            if only is not None and n != only or self.stop is None:
                continue
            form, expr = (text[1:].split(" ", 1) if text.startswith("/") else ("", text))
            try:
                out.append(f"{n}: {self.cmd_print(expr, form)}")
            except DebugError as e:
                out.append(f"{n}: {shown(expr, 80)}: <{e}>")
        return "\n".join(out)

    def condition_lanes(self, bp: Breakpoint, ex: Executor, frame: Frame, mask: np.ndarray,
                        inst: Instruction) -> list[int]:
        """The active invocations where bp's condition holds (all active ones without a condition)."""
        active = np.flatnonzero(np.broadcast_to(mask, (ex.N,)))
        if bp.condition is None:
            for pick in (self.picked, self.selected):
                if pick is not None and pick in active:
                    return [pick]
            return active[:1].tolist()
        tree = parse_expr(bp.condition)
        hits = []
        for k, lane in enumerate(active.tolist()):   # a DebugError goes to the hook: it stops there, saying so
            if k & 255 == 255:   # the run's time limit holds here too
                ex.budget.check_clock(inst)
            value = self._eval(tree, ex, frame, lane)
            if isinstance(value, (dict, list, str)):
                raise DebugError("a condition must be a number or a comparison")
            if bool(value):
                hits.append(lane)
        return hits

    def _eval(self, tree: ast.AST, ex: Executor, frame: Frame | None, lane: int):
        return Evaluator(lambda name: self._value_of(name, ex, frame, lane)).eval(tree)

    def _id_of(self, ref: str) -> int:
        body = ref[1:]
        if body.isdigit():
            return int(body)
        for i, n in self.module.id_names.items():
            if n == body:
                return i
        raise DebugError(f"no id {ref}")

    def _value_of(self, name: str, ex: Executor, frame: Frame | None, lane: int):
        """The value `name` (an OpName, '%ID', a block member or a built-in's name) has in one invocation."""
        vals = frame.vals if frame is not None else {}
        ids = [self._id_of(name)] if name.startswith("%") else self._by_name.get(name, [])
        for where in (vals, ex.gvals):
            for i in ids:
                if i in where:
                    return self._lane_value(ex, where[i], i, lane)
        for i, v in ex.gvals.items():   # a member of a block variable (glslang's anonymous instances)
            t = ex.type_of_id(i)
            pointee = t.elem if t is not None and t.kind == "pointer" else None
            if pointee is not None and pointee.kind == "struct" and name in pointee.member_names:
                whole = self._lane_value(ex, v, i, lane)
                if isinstance(whole, dict):
                    return whole[name]
        known = sorted({n for i, n in self.prog.names.items() if i in vals or i in ex.gvals})
        if ids:
            raise DebugError(f"'{name}' has no value at this point (not computed yet, or in another function)")
        raise DebugError(f"no name '{name}' here{did_you_mean(name, known)}")

    def _lane_value(self, ex: Executor, v, id_: int, lane: int):
        from ..interp.memory import Pointer, Register
        t = ex.type_of_id(id_)
        if isinstance(v, Register):
            if v.written is not None and not bool(np.broadcast_to(v.written, (ex.N,))[lane]):
                return Text("<not yet stored>")
            pointee = t.elem if t is not None and t.kind == "pointer" else None
            return structured(at(v.value, lane), pointee)
        if isinstance(v, Pointer):
            return self._pointee(v, lane)
        if type(v).__name__ == "CoopMat":
            return Text(f"{v!r}: 'matrix {self.prog.name_of(id_)}' shows it")
        return structured(at(v, lane), t)

    def _pointee(self, p, lane: int):
        from ..interp.dataio import decode
        from ..interp.memory import Memory
        mem = p.mem
        if not isinstance(mem, Memory):
            return Text(f"<pointer to device memory at {int(np.asarray(p.off).reshape(-1)[0])}>")
        off = np.asarray(p.off).reshape(-1)
        base = np.asarray(p.base).reshape(-1)
        o = int(off[lane if off.shape[0] > 1 else 0])
        b = int(base[lane if base.shape[0] > 1 else 0])
        end = min(b + mem.region, mem.data.shape[0])
        if not 0 <= o <= end:
            return Text("<pointer out of its variable>")
        end = min(end, o + MAX_DECODE)   # a bound on the time a command takes: elements past it are not shown
        try:
            return decode(p.type, mem.data[o:end].tobytes(), mem.name, leaf=np_leaf)
        except Exception as e:  # noqa: BLE001 - a type decode cannot show (bool in Function memory, say)
            return Text(f"<{p.type.describe()} not shown: {type(e).__name__}>")

    def locals(self, depth: int = 0, args_only: bool = False) -> list[tuple[str, str, list[str] | None]]:
        """(name, value text, a matrix's rows or None) of the named values of frame `depth` (0: innermost) in the
        selected invocation: parameters, variables, then named results in the order they were computed."""
        stop = self._need_stop()
        if not 0 <= depth < len(stop.stack):
            raise DebugError(f"no frame {depth}")
        frame = stop.stack[-1 - depth]
        fn = frame.fn
        ids = [cast(int, p.result_id) for p in fn.params]
        if not args_only:
            ids += [cast(int, v.result_id) for v in fn.variables]
            ids += [i for i in frame.vals if i not in ids]
        out: list[tuple[str, str, list[str] | None]] = []
        for i in ids:
            name = self.prog.names.get(i)
            if not name or i not in frame.vals:
                continue
            v = frame.vals[i]
            mat = self._matrix_value(stop.ex, v)
            if mat is not None:
                rows = self._matrix_rows(mat)
                out.append((name, f"{mat!r}", rows))
                continue
            try:
                out.append((name, fmt(self._lane_value(stop.ex, v, i, self.selected)), None))
            except Exception as e:  # noqa: BLE001 - one value that cannot be shown does not hide the others
                out.append((name, f"<not shown: {type(e).__name__}>", None))
        return out

    def globals(self) -> list[tuple[str, str, list[str] | None]]:
        """As `locals`, for the module's named global values (buffers, shared and private variables, built-ins)."""
        from .debug_views import global_values
        return global_values(self)

    def lane_elements(self, name: str, depth: int = 0) -> str:
        """Which elements of matrix `name` the selected invocation holds, and their values: '(r, c) = v, ...'."""
        from .debug_views import lane_elements
        return lane_elements(self, name, depth)

    def set_value(self, name: str, text: str, depth: int = 0) -> str:
        """Set a function's scalar value (a named result or a Function variable holding a scalar) in the selected
        invocation to the value of expression `text`; the value as shown."""
        from .debug_views import set_value
        return set_value(self, name, text, depth)

    def instruction_text(self, index: int) -> tuple[str, Line | None]:
        """An instruction as assembly text ('%x = OpIAdd %int %a %b') and its source line, by Instruction.index."""
        from ..interp.executor import _operand_text
        insts = self.module.instructions
        if not 0 <= index < len(insts):
            return "", None
        inst = insts[index]
        res = f"{self.prog.name_of(inst.result_id)} = " if inst.result_id is not None else ""
        words = ([self.prog.name_of(inst.result_type)] if inst.result_type is not None else []) + [
            _operand_text(self.prog, o) for o in inst.operands]
        return f"{res}{inst.opname} {' '.join(words)}".rstrip(), source_line(self.prog, inst)

    def frames(self) -> list[tuple[str, Line | None]]:
        """(function name, source line) of each frame at the stop, innermost first."""
        stop = self._need_stop()
        out: list[tuple[str, Line | None]] = []
        line = stop.line
        for frame in reversed(stop.stack):
            out.append((self._fn_name(frame.fn.id), line))
            line = source_line(self.prog, frame.call_inst) if frame.call_inst is not None else None
        return out

    def current_frame(self) -> Frame | None:
        """The frame `frame`/`up`/`down` selected (the innermost after each stop)."""
        stop = self._need_stop()
        if not stop.stack:
            return None
        return stop.stack[-1 - min(self.frame_index, len(stop.stack) - 1)]

    def _matrix_rows(self, mat) -> list[str]:
        stop = self._need_stop()
        g = int(np.broadcast_to(mat.info.group, (stop.ex.N,))[self.selected])
        return [fmt(np_leaf(row)) for row in mat.full()[g]]

    def cmd_matrix(self, rest: str) -> str:
        from .debug_views import matrix
        return matrix(self, rest)

    def _matrix_value(self, ex: Executor, v):
        from ..interp.memory import Pointer, Register, load
        if isinstance(v, Register):
            v = v.value
        elif isinstance(v, Pointer) and getattr(v.type, "kind", "") == "coopmat":
            try:
                v = load(v, v.type, np.ones(ex.N, bool), ex.device)
            except Exception:  # noqa: BLE001 - not loadable here: not shown as a matrix
                return None
        return v if type(v).__name__ == "CoopMat" else None

    # ---- frames and source ---------------------------------------------------------------------
    def cmd_backtrace(self, rest: str) -> str:
        return "\n".join(f"#{k}  {name}"
                         + (f" at {_short(ln[0])}:{ln[1]}" if ln else "")
                         for k, (name, ln) in enumerate(self.frames()))

    def cmd_frame(self, rest: str) -> str:
        frames = self.frames()
        if rest.strip():
            n = _int(rest.strip(), "frame N")
            if not 0 <= n < len(frames):
                raise DebugError(f"no frame {n} (frames 0..{len(frames) - 1})")
            self.frame_index = n
        name, ln = frames[self.frame_index]
        src = self.source_text(ln) if ln else None
        return (f"#{self.frame_index}  {name}" + (f" at {_short(ln[0])}:{ln[1]}" if ln else "")
                + (f"\n{ln[1]}\t{src}" if ln and src is not None else ""))

    def cmd_up(self, rest: str) -> str:
        n = _int(rest.strip(), "up N") if rest.strip() else 1
        last = len(self.frames()) - 1
        if self.frame_index >= last and n > 0:
            raise DebugError("already at the outermost frame")
        return self.cmd_frame(str(max(0, min(last, self.frame_index + n))))

    def cmd_down(self, rest: str) -> str:
        n = _int(rest.strip(), "down N") if rest.strip() else 1
        if self.frame_index == 0 and n > 0:
            raise DebugError("already at the innermost frame")
        return self.cmd_frame(str(max(0, min(len(self.frames()) - 1, self.frame_index - n))))

    def cmd_list(self, rest: str) -> str:
        """list [LINE | FILE:LINE | FUNCTION]: ten lines around it (around the stop without an argument)."""
        where = rest.strip()
        if where:
            line, index, _, _ = self.location(where)
            if line is None and index is not None:
                line = source_line(self.prog, self.prog.module.instructions[index]) if index < len(
                    self.prog.module.instructions) else None
            if line is None:
                raise DebugError(f"'{shown(where, 60)}' has no source line")
            if where.rpartition(":")[2].strip().isdigit():   # the line asked for, even one without code
                line = (line[0], _int(where.rpartition(":")[2].strip(), "list LINE"))
        elif self.stop is not None and self.stop.line is not None:
            line = self.frames()[self.frame_index][1] or self.stop.line
        else:
            files = list(self._code_lines)
            if not files:
                raise DebugError("the module has no source lines")
            line = (files[0], min(self._code_lines[files[0]]))
        text = self._source_lines(line[0])
        if text is None:
            raise DebugError(f"the text of {_short(line[0])} is not in the module (compile with glslang -g)")
        first = max(1, line[1] - 5)
        return "\n".join(f"{n}\t{printable(text[n - 1].rstrip(), False)}"
                         for n in range(first, min(len(text), first + 9) + 1))

    def completion_names(self) -> list[str]:
        """Words a prompt may complete besides the commands: the shader's names and functions, info's topics."""
        members = {n for names in self.prog.member_names.values() for n in names.values()}
        return sorted({*self._by_name, *members, *(self._fn_name(f) for f in self.prog.functions), "breakpoints",
                       "invocations", "locals", "args", "writer", "nonfinite", "--lanes"})

    def _fn_name(self, fid: int) -> str:
        """A function's name as written in the source: glslang's OpName 'twice(i1;' is 'twice'."""
        return self.prog.name_of(fid).split("(", 1)[0]

    def _need_stop(self) -> Stop:
        if self.stop is None:
            raise DebugError("the run is not stopped: 'run' starts it" if self.state == "not started"
                             else "the run is going on" if self.state == "running" else "the run has ended")
        return self.stop

    def describe_stop(self) -> str:
        stop = cast(Stop, self.stop)
        ex = stop.ex
        fn = self._fn_name(stop.stack[-1].fn.id) if stop.stack else "?"
        where = f"{_short(stop.line[0])}:{stop.line[1]}" if stop.line else f"instruction {stop.inst.index}"
        src = self.source_text(stop.line) if stop.line else ""
        n_active = int(np.count_nonzero(np.broadcast_to(stop.mask, (ex.N,))))
        active = f"({n_active} of {ex.N} invocations active; #{self.selected} selected)"
        if stop.reason.startswith("breakpoint"):
            head = f"Breakpoint {stop.reason.split()[1]}, {fn} at {where} {active}"
        elif stop.reason == "race" and stop.error is not None:
            from ..core.diagnostics import format_diagnostics
            head = (f"Stopped at a data race, {fn} at {where} ({self._describe_lane(self.selected)} selected; the "
                    f"run goes on, and ends with this error):\n{format_diagnostics(stop.error.diagnostics).rstrip()}")
        elif stop.reason == "exception" and stop.error is not None:
            from ..core.diagnostics import format_diagnostics
            head = (f"Stopped at an error, {fn} at {where} ({self._describe_lane(self.selected)} selected; the next "
                    f"run command ends the run):\n{format_diagnostics(stop.error.diagnostics).rstrip()}")
        elif stop.reason == "nonfinite":
            head = f"Caught a non-finite value, {fn} at {where} ({self._describe_lane(self.selected)} selected)"
        elif stop.reason == "pause":
            head = f"Paused, {fn} at {where} {active}"
        else:
            head = f"{fn} at {where}"
        out = [head]
        if stop.note:
            out.append(stop.note)
        if src is not None and stop.line:
            out.append(f"{stop.line[1]}\t{src}")
        if self.mode == "stepi":
            res = f"{self.prog.name_of(stop.inst.result_id)} = " if stop.inst.result_id is not None else ""
            out.append(f"=> {res}{stop.inst.opname}")
        shown_displays = self._displays()
        if shown_displays:
            out.append(shown_displays)
        return "\n".join(printable(x) for x in out)

    def _source_lines(self, file: str) -> list[str] | None:
        text = self.prog.sources.get(file)
        if text is None and file == self.prog.source and self.module.text:
            text = self.module.text
        return text.split("\n") if text is not None else None

    def source_text(self, line: Line) -> str | None:
        """The text of a source line, escaped for a terminal (it is the user's input: an ESC sequence in it would
        act on the terminal)."""
        lines = self._source_lines(line[0])
        if lines is None or not 0 < line[1] <= len(lines):
            return None
        return printable(lines[line[1] - 1].rstrip(), False)


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise DebugError(f"{what}: '{text}' is not a number") from None

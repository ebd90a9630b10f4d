"""A gdb-like debugger for compute shaders: breakpoints, stepping, values per invocation, matrices by lane.

`Debugger(shader, inputs, options).execute("break 12")` returns a `Reply` (text for the user; the library never
prints). The run itself happens in a thread under an observe.Observer that, where it has to stop (a breakpoint,
the end of a step), hands the executor's state to the caller and waits for the next run command; while it
waits, `print`, `matrix`, `backtrace` and the like read that state. All invocations still run in lockstep: a
stop is a point of the whole dispatch, and the selected invocation only decides which values are shown (and
where `step`/`next` stop: at the next line the selected invocation executes).

Commands (README, "Debugging a shader"): break LINE | FILE:LINE | word N | %ID [if EXPR], delete [N],
info breakpoints|invocations|locals, run, continue, step, next, stepi, finish, invocation N | X,Y,Z,
print EXPR [@all], matrix NAME [--lanes], backtrace, quit. EXPR is a C-like expression over the shader's names
(OpName, %ID, members `.m`, vector components `.x`, elements `[i]`, arithmetic, comparisons, && || !).
"""
from __future__ import annotations

import ast
import queue
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..core.diagnostics import SpvError, did_you_mean
from .observe import Observer, source_line

if TYPE_CHECKING:
    from ..core.module import Instruction, Module
    from .executor import Executor, Frame
    from .program import Function, Program
    from .runner import RunResult

Line = tuple[str, int]
COMMANDS = ("break", "delete", "info", "run", "continue", "step", "next", "stepi", "finish", "invocation",
            "print", "matrix", "backtrace", "quit", "help")
ALIASES = {"b": "break", "c": "continue", "s": "step", "n": "next", "si": "stepi", "p": "print", "bt": "backtrace",
           "where": "backtrace", "q": "quit", "r": "run", "d": "delete"}
MAX_ROWS = 64   # rows of a table or matrix shown before "..."
MAX_ITEMS = 32  # elements of a list shown before "..."


class DebugError(Exception):
    """A command that cannot be done: one line for the user."""


class Reply:
    """What a command says (text, possibly empty) and whether it was refused (error)."""
    __slots__ = ("text", "error")

    def __init__(self, text: str = "", error: bool = False) -> None:
        self.text = text
        self.error = error


class Breakpoint:
    __slots__ = ("number", "where", "line", "index", "condition", "hits", "text")

    def __init__(self, number: int, where: str, line: Line | None, index: int | None, condition: str | None,
                 text: str) -> None:
        self.number = number
        self.where = where           # as shown: 'br.comp:12', 'word 317', '%42'
        self.line = line             # a source-line breakpoint
        self.index = index           # an instruction breakpoint (Instruction.index)
        self.condition = condition
        self.hits = 0
        self.text = text


class Stop:
    """The state at a stop: the executor (read it only while stopped), the frame stack, the instruction about to
    run and the invocations active there."""
    __slots__ = ("ex", "stack", "inst", "mask", "line", "reason")

    def __init__(self, ex: Executor, stack: list, inst: Instruction, mask: np.ndarray, line: Line | None,
                 reason: str) -> None:
        self.ex, self.stack, self.inst, self.mask, self.line, self.reason = ex, stack, inst, mask, line, reason


class _Quit(BaseException):
    """Ends the run from inside the observer (BaseException: no handler of the interpreter takes it)."""


class _Hook(Observer):
    """The observer in the run's thread: decides where to stop, then waits for the next command."""

    def __init__(self, dbg: Debugger) -> None:
        self.dbg = dbg
        self.stack: list[Frame] = []
        self.last: tuple[Line | None, Frame | None] = (None, None)

    def enter(self, ex: Executor, frame: Frame, fn: Function, mask: np.ndarray) -> None:
        self.stack.append(frame)

    def leave(self, ex: Executor, frame: Frame, fn: Function) -> None:
        if self.stack and self.stack[-1] is frame:
            self.stack.pop()

    def instruction(self, ex: Executor, frame: Frame, inst: Instruction, mask: np.ndarray) -> None:
        d = self.dbg
        ln = source_line(ex.prog, inst)
        new_line = ln is not None and (ln, frame) != self.last
        if ln is not None:
            self.last = (ln, frame)
        depth = len(self.stack)
        sel = d.selected if d.selected < mask.shape[0] else 0
        mine = bool(mask[sel if mask.shape[0] > 1 else 0])
        mode, reason = d.mode, None
        if mine and (mode == "stepi" or new_line and (mode == "step" or mode == "next" and depth <= d.mode_depth)):
            reason = "step"
        elif mode == "finish" and depth < d.mode_depth and mine:
            reason = "finish"
        if reason is None and d.breakpoints:
            for bp in d.breakpoints.values():
                if (bp.index == inst.index) or (bp.line is not None and new_line and bp.line == ln):
                    lanes = d.condition_lanes(bp, ex, frame, mask)
                    if lanes:
                        bp.hits += 1
                        if d.selected not in lanes:
                            d.selected = lanes[0]
                        reason = f"breakpoint {bp.number}"
                        break
        if reason is not None:
            d.stopped(Stop(ex, list(self.stack), inst, mask, ln, reason))


class Debugger:
    """One debug session of one run: `execute(command)` -> Reply; `state` is 'not started', 'stopped' or
    'exited', and after the run `result` (a RunResult) or `error` (the SpvError that ended it)."""

    def __init__(self, shader: Module, inputs: dict, options: dict) -> None:
        from .program import Program
        self.module = shader
        self.inputs = inputs
        self.options = {k: v for k, v in options.items() if k not in ("trace", "observer")}
        self.prog: Program = Program(shader)
        self.breakpoints: dict[int, Breakpoint] = {}
        self.next_bp = 1
        self.selected = 0
        self.mode = "continue"
        self.mode_depth = 0
        self.state = "not started"
        self.stop: Stop | None = None
        self.result: RunResult | None = None
        self.error: SpvError | None = None
        self._events: queue.Queue = queue.Queue()
        self._commands: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._paused_at = 0.0
        self._by_name: dict[str, list[int]] = {}
        for i, n in self.prog.names.items():
            self._by_name.setdefault(n, []).append(i)
        self._code_lines: dict[str, set[int]] = {}
        for fn in self.prog.functions.values():
            for blk in fn.blocks.values():
                for inst in [*fn.variables, *blk.phis, *blk.body, *([blk.term] if blk.term else [])]:
                    ln = source_line(self.prog, inst)
                    if ln is not None:
                        self._code_lines.setdefault(ln[0], set()).add(ln[1])

    # ---- the run's thread -----------------------------------------------------------------
    def stopped(self, stop: Stop) -> None:
        """In the run's thread: report the stop and wait for the next run command (or quit)."""
        self._paused_at = time.monotonic()
        self._events.put(("stopped", stop))
        command = self._commands.get()
        stop.ex.deadline += time.monotonic() - self._paused_at   # time at the prompt is not run time
        if command == "quit":
            raise _Quit

    def _target(self) -> None:
        from .runner import run
        try:
            res = run(self.module, **self.inputs, **self.options, observer=_Hook(self))
            self._events.put(("exited", res))
        except _Quit:
            self._events.put(("quit", None))
        except SpvError as e:
            self._events.put(("error", e))
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread, which re-raises it
            self._events.put(("crash", e))

    def _resume(self, mode: str) -> str:
        if self.state == "exited":
            raise DebugError("the run has ended; 'quit' ends the session")
        self.mode = mode
        self.mode_depth = len(self.stop.stack) if self.stop is not None else 0
        if self.state == "not started":
            self.state = "running"
            self._thread = threading.Thread(target=self._target, name="spvcoop-debug", daemon=True)
            self._thread.start()
        else:
            self.state = "running"
            self._commands.put(mode)
        kind, payload = self._events.get()
        if kind == "stopped":
            self.state, self.stop = "stopped", payload
            return self.describe_stop()
        self.state, self.stop = "exited", None
        if self._thread is not None:
            self._thread.join()
        if kind == "crash":
            raise payload
        if kind == "error":
            self.error = payload
            return "[run stopped with an error]"
        self.result = payload
        return f"[run exited normally after {payload.steps:,} instructions]"

    def close(self) -> None:
        """End the run if it is stopped (quit)."""
        if self.state == "stopped":
            self._commands.put("quit")
            self._events.get()
            if self._thread is not None:
                self._thread.join()
            self.state, self.stop = "exited", None

    # ---- commands --------------------------------------------------------------------------
    def execute(self, line: str) -> Reply:
        words = line.strip().split(None, 1)
        if not words:
            return Reply()
        name, rest = ALIASES.get(words[0], words[0]), (words[1].strip() if len(words) > 1 else "")
        if name not in COMMANDS:
            return Reply(f"error: unknown command '{words[0]}'{did_you_mean(words[0], COMMANDS)}; 'help' lists "
                         "them", True)
        try:
            return Reply(getattr(self, "cmd_" + name)(rest))
        except DebugError as e:
            return Reply(f"error: {e}", True)

    def cmd_help(self, rest: str) -> str:
        return ("break LINE|FILE:LINE|word N|%ID [if EXPR]; delete [N]; info breakpoints|invocations|locals; "
                "run; continue; step; next; stepi; finish; invocation N|X,Y,Z; print EXPR [@all]; "
                "matrix NAME [--lanes]; backtrace; quit")

    def cmd_run(self, rest: str) -> str:
        if self.state != "not started":
            raise DebugError("the run has started already: 'continue'")
        return self._resume("continue")

    def cmd_continue(self, rest: str) -> str:
        return self._resume("continue")

    def cmd_step(self, rest: str) -> str:
        return self._resume("step")

    def cmd_next(self, rest: str) -> str:
        return self._resume("next")

    def cmd_stepi(self, rest: str) -> str:
        return self._resume("stepi")

    def cmd_finish(self, rest: str) -> str:
        if self.stop is None or len(self.stop.stack) < 2:
            raise DebugError("'finish' needs a stop inside a called function")
        return self._resume("finish")

    def cmd_quit(self, rest: str) -> str:
        self.close()
        return ""

    # ---- breakpoints ---------------------------------------------------------------------------
    def cmd_break(self, rest: str) -> str:
        where, _, cond_text = rest.partition(" if ")
        where, cond = where.strip(), cond_text.strip() or None
        if not where:
            raise DebugError("break wants LINE, FILE:LINE, word N or %ID")
        if cond is not None:
            _parse_expr(cond)   # refused now, not at the first hit
        line: Line | None = None
        index: int | None = None
        note = ""
        if where.startswith("word"):
            n = _int(where[4:].strip(), "break word N")
            index = self._instruction_at_word(n)
            shown = f"word {n}"
        elif where.startswith("%"):
            inst = self._instruction_of(where)
            index, shown = inst.index, where
        else:
            file, _, num = where.rpartition(":")
            n = _int(num, "break LINE")
            f = self._source_file(file)
            lines = self._code_lines.get(f, set())
            later = sorted(x for x in lines if x >= n)
            if not later:
                raise DebugError(f"no code at or after line {n} of {f}")
            if later[0] != n:
                note = f" (line {n} has no code)"
            line = (f, later[0])
            shown = f"{_short(f)}:{later[0]}"
        bp = Breakpoint(self.next_bp, shown, line, index, cond, rest)
        self.breakpoints[bp.number] = bp
        self.next_bp += 1
        return f"Breakpoint {bp.number} at {shown}{note}" + (f" if {cond}" if cond else "")

    def cmd_delete(self, rest: str) -> str:
        if not rest:
            self.breakpoints.clear()
            return "deleted all breakpoints"
        n = _int(rest, "delete N")
        if self.breakpoints.pop(n, None) is None:
            raise DebugError(f"no breakpoint {n}")
        return f"deleted breakpoint {n}"

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
        what = rest.split()[0] if rest else ""
        choices = ("breakpoints", "invocations", "locals")
        full = next((c for c in choices if what and c.startswith(what)), None)
        if full is None:
            raise DebugError(f"info wants one of {', '.join(choices)}{did_you_mean(what, choices)}")
        if full == "breakpoints":
            if not self.breakpoints:
                return "no breakpoints"
            return "\n".join(f"{b.number}  {b.where}" + (f" if {b.condition}" if b.condition else "")
                             + (f"  (hit {b.hits} time{'s' if b.hits != 1 else ''})" if b.hits else "")
                             for b in self.breakpoints.values())
        stop = self._need_stop()
        if full == "invocations":
            active = np.flatnonzero(np.broadcast_to(stop.mask, (stop.ex.N,)))
            return (f"{len(active)} of {stop.ex.N} invocations active: {_ranges(active.tolist())}\n"
                    f"selected: {self._describe_lane(self.selected)}")
        return self._locals(stop)

    # ---- invocations -----------------------------------------------------------------------
    def cmd_invocation(self, rest: str) -> str:
        stop = self._need_stop()
        ex = stop.ex
        try:
            parts = [int(x) for x in rest.replace(" ", "").split(",")] if rest else []
        except ValueError:
            parts = []
        if not 1 <= len(parts) <= 3:
            raise DebugError("invocation wants N (its index in the dispatch) or X,Y,Z (its global id)")
        if len(parts) == 1:
            lane = parts[0]
        else:
            from .runner import _traced_lane
            try:
                lane = int(cast(int, _traced_lane(tuple(parts), ex.wg_dims, ex.dispatch, ex.N)))
            except SpvError as e:
                raise DebugError(e.diagnostics[0].message.replace("--trace ", "")) from None
        if not 0 <= lane < ex.N:
            raise DebugError(f"invocation {lane}: the dispatch has {ex.N} invocations")
        self.selected = lane
        active = bool(np.broadcast_to(stop.mask, (ex.N,))[lane])
        return f"selected {self._describe_lane(lane)}" + ("" if active else " (not active at this point)")

    def _describe_lane(self, lane: int) -> str:
        stop = self.stop
        info = stop.ex.lane_info(lane) if stop is not None and stop.ex.lane_info else ""
        return f"invocation {info}" if info else f"invocation #{lane}"

    # ---- values ----------------------------------------------------------------------------
    def cmd_print(self, rest: str) -> str:
        stop = self._need_stop()
        expr, at_all = rest, False
        if rest.endswith("@all"):
            expr, at_all = rest[:-4].strip(), True
        if not expr:
            raise DebugError("print wants a name or an expression")
        tree = _parse_expr(expr)
        frame = stop.stack[-1] if stop.stack else None
        if not at_all:
            return f"{expr} = {_fmt(self._eval(tree, stop.ex, frame, self.selected))}"
        active = np.flatnonzero(np.broadcast_to(stop.mask, (stop.ex.N,))).tolist()
        rows: list[tuple[list[int], str]] = []
        for lane in active:
            text = _fmt(self._eval(tree, stop.ex, frame, lane))
            if rows and rows[-1][1] == text and rows[-1][0][-1] == lane - 1:
                rows[-1][0].append(lane)
            else:
                rows.append(([lane], text))
        # compact: runs of invocations with one value share an entry; entries fill lines of ~100 characters
        out = [f"{expr} over {len(active)} active invocation(s):"]
        line = ""
        for k, (lanes, text) in enumerate(rows):
            if k == MAX_ROWS * 4:
                out.append(f"{line}\n  ... {len(rows) - k} more")
                line = ""
                break
            entry = f"{_ranges(lanes)}: {text}"
            if line and len(line) + len(entry) + 2 > 100:
                out.append(line)
                line = ""
            line = f"{line}   {entry}" if line else f"  {entry}"
        if line:
            out.append(line)
        return "\n".join(out)

    def condition_lanes(self, bp: Breakpoint, ex: Executor, frame: Frame, mask: np.ndarray) -> list[int]:
        """The active invocations where bp's condition holds (all active ones without a condition)."""
        active = np.flatnonzero(np.broadcast_to(mask, (ex.N,)))
        if bp.condition is None:
            return active[:1].tolist() if self.selected not in active else [self.selected]
        tree = _parse_expr(bp.condition)
        hits = []
        for lane in active.tolist():
            try:
                if bool(self._eval(tree, ex, frame, lane)):
                    hits.append(lane)
            except DebugError:
                return []   # a name not defined here: the condition does not hold
        return hits

    def _eval(self, tree: ast.AST, ex: Executor, frame: Frame | None, lane: int):
        return _Evaluator(lambda name: self._value_of(name, ex, frame, lane)).eval(tree)

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
        from .memory import Pointer, Register
        t = ex.type_of_id(id_)
        if isinstance(v, Register):
            if v.written is not None and not bool(np.broadcast_to(v.written, (ex.N,))[lane]):
                return _Text("<not yet stored>")
            pointee = t.elem if t is not None and t.kind == "pointer" else None
            return _structured(_at(v.value, lane), pointee)
        if isinstance(v, Pointer):
            return self._pointee(v, lane)
        if type(v).__name__ == "CoopMat":
            return _Text(f"{v!r}: 'matrix {self.prog.name_of(id_)}' shows it")
        return _structured(_at(v, lane), t)

    def _pointee(self, p, lane: int):
        from .dataio import decode
        from .memory import Memory
        mem = p.mem
        if not isinstance(mem, Memory):
            return _Text(f"<pointer to device memory at {int(np.asarray(p.off).reshape(-1)[0])}>")
        off = np.asarray(p.off).reshape(-1)
        base = np.asarray(p.base).reshape(-1)
        o = int(off[lane if off.shape[0] > 1 else 0])
        b = int(base[lane if base.shape[0] > 1 else 0])
        end = min(b + mem.region, mem.data.shape[0])
        if not 0 <= o <= end:
            return _Text("<pointer out of its variable>")
        try:
            return decode(p.type, mem.data[o:end].tobytes(), mem.name, leaf=_np_leaf)
        except Exception as e:  # noqa: BLE001 - a type decode cannot show (bool in Function memory, say)
            return _Text(f"<{p.type.describe()} not shown: {type(e).__name__}>")

    def _locals(self, stop: Stop) -> str:
        out = [f"{name} = {text}" for name, text, _ in self.locals()]
        return "\n".join(out) if out else "no named locals"

    def locals(self, depth: int = 0) -> list[tuple[str, str, list[str] | None]]:
        """(name, value text, a matrix's rows or None) of the named values of frame `depth` (0: innermost) in the
        selected invocation: parameters, variables, then named results in the order they were computed."""
        stop = self._need_stop()
        if not 0 <= depth < len(stop.stack):
            raise DebugError(f"no frame {depth}")
        frame = stop.stack[-1 - depth]
        fn = frame.fn
        ids = [cast(int, p.result_id) for p in fn.params] + [cast(int, v.result_id) for v in fn.variables]
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
                out.append((name, _fmt(self._lane_value(stop.ex, v, i, self.selected)), None))
            except Exception as e:  # noqa: BLE001 - one value that cannot be shown does not hide the others
                out.append((name, f"<not shown: {type(e).__name__}>", None))
        return out

    def frames(self) -> list[tuple[str, Line | None]]:
        """(function name, source line) of each frame at the stop, innermost first."""
        stop = self._need_stop()
        out: list[tuple[str, Line | None]] = []
        line = stop.line
        for frame in reversed(stop.stack):
            out.append((self._fn_name(frame.fn.id), line))
            line = source_line(self.prog, frame.call_inst) if frame.call_inst is not None else None
        return out

    def _matrix_rows(self, mat) -> list[str]:
        stop = self._need_stop()
        g = int(np.broadcast_to(mat.info.group, (stop.ex.N,))[self.selected])
        return [_fmt(_np_leaf(row)) for row in mat.full()[g]]

    # ---- matrices ------------------------------------------------------------------------------
    def cmd_matrix(self, rest: str) -> str:
        stop = self._need_stop()
        words = rest.split()
        lanes = "--lanes" in words
        names = [w for w in words if w != "--lanes"]
        if len(names) != 1:
            raise DebugError("matrix wants one name (and --lanes)")
        name = names[0]
        frame = stop.stack[-1] if stop.stack else None
        mat = None
        ids = [self._id_of(name)] if name.startswith("%") else self._by_name.get(name, [])
        for where in ((frame.vals if frame else {}), stop.ex.gvals):
            for i in ids:
                if i in where:
                    mat = self._matrix_value(stop.ex, where[i])
                    break
            if mat is not None:
                break
        if mat is None:
            from .memory import Register
            held = [w.get(i) for w in ((frame.vals if frame else {}), stop.ex.gvals) for i in ids]
            if any(isinstance(r, Register) and r.value is None for r in held):
                raise DebugError(f"'{name}' holds no value yet (nothing was stored to it)")
            if not ids:
                self._value_of(name, stop.ex, frame, self.selected)  # the "no name ... did you mean" error
            raise DebugError(f"'{name}' is not a cooperative matrix (here)")
        info = mat.info
        g = int(np.broadcast_to(info.group, (stop.ex.N,))[self.selected])
        data = mat.full()[g]
        head = f"{name}: {info.describe()}, {info.scope.lower()} instance {g} (of invocation #{self.selected})"
        if not lanes:
            return head + "\n" + _grid([[_fmt(_np_leaf(x)) for x in row] for row in data])
        lay = info.layout()
        cells = [["-"] * info.cols for _ in range(info.rows)]
        for p in range(lay.row.shape[0]):
            for i in range(lay.row.shape[1]):
                r, c = int(lay.row[p, i]), int(lay.col[p, i])
                if r >= 0 and cells[r][c] == "-":
                    cells[r][c] = f"{p}:{i}"
        return (head + f"\nlayout {lay.model or 'model'}, {lay.length} elements per lane: LANE:INDEX holds each "
                "element\n" + _grid(cells))

    def _matrix_value(self, ex: Executor, v):
        from .memory import Pointer, Register, load
        if isinstance(v, Register):
            v = v.value
        elif isinstance(v, Pointer) and getattr(v.type, "kind", "") == "coopmat":
            try:
                v = load(v, v.type, np.ones(ex.N, bool), ex.device)
            except Exception:  # noqa: BLE001 - not loadable here: not shown as a matrix
                return None
        return v if type(v).__name__ == "CoopMat" else None

    # ---- frames ----------------------------------------------------------------------------------
    def cmd_backtrace(self, rest: str) -> str:
        return "\n".join(f"#{k}  {name}" + (f" at {_short(ln[0])}:{ln[1]}" if ln else "")
                         for k, (name, ln) in enumerate(self.frames()))

    def _fn_name(self, fid: int) -> str:
        """A function's name as written in the source: glslang's OpName 'twice(i1;' is 'twice'."""
        return self.prog.name_of(fid).split("(", 1)[0]

    def _need_stop(self) -> Stop:
        if self.stop is None:
            raise DebugError("the run is not stopped: 'run' starts it" if self.state == "not started"
                             else "the run has ended")
        return self.stop

    def describe_stop(self) -> str:
        stop = cast(Stop, self.stop)
        ex = stop.ex
        fn = self._fn_name(stop.stack[-1].fn.id) if stop.stack else "?"
        where = f"{_short(stop.line[0])}:{stop.line[1]}" if stop.line else f"instruction {stop.inst.index}"
        src = self.source_text(stop.line) if stop.line else ""
        n_active = int(np.count_nonzero(np.broadcast_to(stop.mask, (ex.N,))))
        if stop.reason.startswith("breakpoint"):
            head = (f"Breakpoint {stop.reason.split()[1]}, {fn} at {where} ({n_active} of {ex.N} invocations "
                    f"active; #{self.selected} selected)")
        else:
            head = f"{fn} at {where}"
        out = [head]
        if src is not None and stop.line:
            out.append(f"{stop.line[1]}\t{src}")
        if self.mode == "stepi":
            res = f"{self.prog.name_of(stop.inst.result_id)} = " if stop.inst.result_id is not None else ""
            out.append(f"=> {res}{stop.inst.opname}")
        return "\n".join(out)

    def source_text(self, line: Line) -> str | None:
        text = self.prog.sources.get(line[0])
        if text is None and line[0] == self.prog.source and self.module.text:
            text = self.module.text
        if text is None:
            return None
        lines = text.split("\n")
        return lines[line[1] - 1].rstrip() if 0 < line[1] <= len(lines) else None


# ---- expressions ---------------------------------------------------------------------------------
class _Text(str):
    """A value shown as it is (not a number): '<not yet stored>'."""


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a // b if _integral(a) and _integral(b) else a / b, ast.Mod: lambda a, b: a % b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
    ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
_COMPONENTS = {c: i for s in ("xyzw", "rgba", "stpq") for i, c in enumerate(s)}


def _integral(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _parse_expr(text: str) -> ast.AST:
    """C-like text to a Python expression tree: && || ! true false, %ID names."""
    t = re.sub(r"%(\w+)", r"__id_\1", text)
    t = t.replace("&&", " and ").replace("||", " or ")
    t = re.sub(r"!(?!=)", " not ", t)
    t = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", t))
    try:
        tree = ast.parse(t.strip(), mode="eval")
    except SyntaxError:
        raise DebugError(f"cannot read the expression '{text}'") from None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name,
                                 ast.Constant, ast.Attribute, ast.Subscript, ast.Load, ast.And, ast.Or, ast.Not,
                                 ast.USub, ast.UAdd, ast.Invert, *_BINOPS, *_CMPOPS)):
            raise DebugError(f"'{text}': only names, members, elements, numbers, arithmetic and comparisons")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, bool)):
            raise DebugError(f"'{text}': only numbers and true/false are constants")
    return tree


class _Evaluator:
    def __init__(self, lookup: Callable[[str], Any]) -> None:
        self.lookup = lookup

    def eval(self, node: ast.AST):
        if isinstance(node, ast.Expression):
            return self.eval(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            name = node.id
            return self.lookup("%" + name[5:] if name.startswith("__id_") else name)
        if isinstance(node, ast.Attribute):
            base = self.eval(node.value)
            if isinstance(base, dict):
                if node.attr not in base:
                    raise DebugError(f"no member '{node.attr}'{did_you_mean(node.attr, list(base))}")
                return base[node.attr]
            if isinstance(base, list) and node.attr in _COMPONENTS and _COMPONENTS[node.attr] < len(base):
                return base[_COMPONENTS[node.attr]]
            if isinstance(base, list) and all(c in _COMPONENTS for c in node.attr):   # a swizzle
                return [base[_COMPONENTS[c]] for c in node.attr if _COMPONENTS[c] < len(base)]
            raise DebugError(f"'.{node.attr}' of a value that has no such member")
        if isinstance(node, ast.Subscript):
            base, i = self.eval(node.value), self.eval(node.slice)
            if not isinstance(base, list) or not _integral(i):
                raise DebugError("[i] wants an array or vector and an integer")
            if not 0 <= int(i) < len(base):
                raise DebugError(f"index {int(i)} is outside 0..{len(base) - 1}")
            return base[int(i)]
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand)
            if isinstance(node.op, ast.Not):
                return not bool(v)
            return -v if isinstance(node.op, ast.USub) else ~v if isinstance(node.op, ast.Invert) else +v
        if isinstance(node, ast.BoolOp):
            vals = [bool(self.eval(v)) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.BinOp):
            a, b = self.eval(node.left), self.eval(node.right)
            self._numbers(a, b)
            with np.errstate(all="ignore"):
                try:
                    return _BINOPS[type(node.op)](a, b)
                except ZeroDivisionError:
                    raise DebugError("division by zero") from None
        if isinstance(node, ast.Compare):
            left = self.eval(node.left)
            for op, right in zip(node.ops, node.comparators, strict=True):
                r = self.eval(right)
                self._numbers(left, r)
                if not _CMPOPS[type(op)](left, r):
                    return False
                left = r
            return True
        raise DebugError("unsupported expression")   # _parse_expr refused it already

    @staticmethod
    def _numbers(*vs) -> None:
        for v in vs:
            if isinstance(v, (dict, list, str)):
                raise DebugError("arithmetic and comparisons take numbers (pick a member or element)")


# ---- values as text ----------------------------------------------------------------------------
def _at(v, lane: int):
    if isinstance(v, np.ndarray):
        return v[lane if v.ndim and v.shape[0] > 1 else 0] if v.ndim else v[()]
    if isinstance(v, tuple):
        return tuple(_at(x, lane) for x in v)
    return v


def _np_leaf(a):
    if isinstance(a, np.ndarray):
        return a[()] if a.ndim == 0 else [_np_leaf(x) for x in a]
    return a


def _structured(v, t):
    """One invocation's value as Python: structures as dicts by member name, arrays and vectors as lists."""
    if isinstance(v, tuple):
        if t is not None and t.kind == "struct":
            return {t.member_names[i]: _structured(x, t.members[i]) for i, x in enumerate(v)}
        return [_structured(x, getattr(t, "elem", None)) for x in v]
    if isinstance(v, np.ndarray):
        return _np_leaf(v)
    return v


def _fmt(v) -> str:
    if isinstance(v, _Text):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_fmt(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        items = [_fmt(x) for x in v[:MAX_ITEMS]]
        more = f", ... ({len(v)} elements)" if len(v) > MAX_ITEMS else ""
        return "[" + ", ".join(items) + more + "]"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (np.floating, float)):
        return str(v)
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    return str(v)


def _grid(cells: list[list[str]]) -> str:
    rows = cells[:MAX_ROWS]
    width = max((len(c) for r in rows for c in r[:MAX_ITEMS]), default=1)
    out = [" ".join(c.rjust(width) for c in r[:MAX_ITEMS]) + (" ..." if len(r) > MAX_ITEMS else "") for r in rows]
    if len(cells) > MAX_ROWS:
        out.append(f"... {len(cells) - MAX_ROWS} more rows")
    return "\n".join(out)


def _ranges(lanes: list[int]) -> str:
    """[0, 1, 2, 5] -> '#0-#2, #5'."""
    out: list[str] = []
    start = prev = None
    for x in [*lanes, None]:   # None: a sentinel that ends the last run
        if x is not None and prev is not None and x == prev + 1:
            prev = x
            continue
        if start is not None:
            out.append(f"#{start}" if start == prev else f"#{start}-#{prev}")
        start = prev = x
    return ", ".join(out) if out else "none"


def _short(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise DebugError(f"{what}: '{text}' is not a number") from None

"""`spvcoop dap`: the Debug Adapter Protocol on standard input/output (Content-Length framed JSON), so VS Code
and other DAP clients debug a compute shader at its GLSL source. The engine is spvcoop/devtools/debugger.py;
this module speaks the protocol only.

The session as VS Code drives it: initialize -> (initialized) -> launch, setBreakpoints, setFunctionBreakpoints,
setExceptionBreakpoints and configurationDone in any order (breakpoints set before launch are kept and verified
when it comes, with `breakpoint` events); the run starts once both launch and configurationDone have come. While
it runs, requests are still read: `pause` stops it at the next instruction, `terminate`/`disconnect` end it.
At a stop: threads (the active invocations, the selected one first), stackTrace (frame ids unique per thread),
scopes (Locals, Arguments, Globals: buffers, shared memory and built-ins), variables (a cooperative matrix expands
into its rows and into what the thread's lane holds), evaluate (expressions; in the Debug Console also the
debugger's commands: `matrix m --lanes`, `info writer flags[3]`, `invocation local 3,0,0`), setVariable (scalars
of a function's values), completions, exceptionInfo (a fault, a race, a caught non-finite value), disassemble
and instruction stepping (granularity "instruction": one SPIR-V instruction), continue, next, stepIn, stepOut,
restart. Every byte written to standard output is a framed message: text anything else would print there goes
out as an `output` event.
"""
from __future__ import annotations


import argparse
import json
import os
import queue
import sys
import threading
from typing import Any, BinaryIO

COMMANDS, HELP_ORDER = ("dap",), 70  # its commands, its place in --help (cli.py)

MAX_THREADS = 64    # invocations listed as threads (the selected one is always among them)
MAX_HEADER_LINE = 4096   # a header line is "Content-Length: N" or another short field; more is not a client
MAX_REF = 1 << 31        # ids and references a client sends back are ints below this
POLL_S = 0.02            # while the run goes on: how often requests are looked at
EXCEPTION_FILTERS: list[dict[str, Any]] = [
    {"filter": "fault", "label": "Faults and limits", "default": True,
     "description": "stop where an out-of-bounds access, an undefined value or a limit ends the run"},
    {"filter": "race", "label": "Data races", "default": True,
     "description": "stop where the race detector sees the second of two unordered accesses"},
    {"filter": "nonfinite", "label": "Non-finite values", "default": False,
     "description": "stop where an instruction makes an inf or NaN from finite operands"}]
# Debug Console words run as debugger commands (what neither resumes the run nor is usually a shader's name)
REPL_COMMANDS = ("matrix", "info", "invocation", "list", "backtrace", "bt", "x", "catch", "display", "undisplay",
                 "frame", "up", "down", "help", "print", "p")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dap", help="a Debug Adapter Protocol server on standard input/output (VS Code)",
                       description="Speak the Debug Adapter Protocol on standard input/output: launch a run spec or "
                                   "a shader (with the flags of `spvcoop run` in the launch arguments' \"args\") and "
                                   "debug it at its GLSL source. See README, 'Debugging a shader'.",
                       epilog="Example (an editor starts it; samples/debug/vscode/ wires VS Code):\n  spvcoop dap",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=dap_command)


def read_message(stream: BinaryIO) -> dict | None:
    """One framed message, or None at the end of the input."""
    length = None
    headers = False
    while True:
        line = stream.readline(MAX_HEADER_LINE + 1)
        if not line:
            if headers:   # a header block the input ended inside: not a clean end
                raise ProtocolError("the input ended inside a message header")
            return None
        if len(line) > MAX_HEADER_LINE:
            raise ProtocolError(f"a header line longer than {MAX_HEADER_LINE} bytes")
        line = line.strip()
        headers = headers or bool(line)
        if not line:
            if length is not None:
                break
            continue
        key, _, value = line.decode("ascii", "replace").partition(":")
        if key.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise ProtocolError(f"bad Content-Length '{value.strip()[:40]}'") from None
    if not 0 <= length <= 1 << 24:
        raise ProtocolError(f"Content-Length {length} out of range")
    body = stream.read(length)
    try:
        msg = json.loads(body)
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"not JSON: {str(e)[:80]}") from None
    if not isinstance(msg, dict):
        raise ProtocolError("a message must be a JSON object")
    return msg


class ProtocolError(Exception):
    pass


def _int_arg(a: dict, key: str, default: int | None = None) -> int:
    """An integer argument (an id, a reference, a line): a JSON number with no fraction, in range."""
    v = a.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < MAX_REF:
        raise ProtocolError(f"'{key}' must be an integer 0..{MAX_REF - 1}")
    return v


class Server:
    """One session: `handle(request)` answers it (and sends events); `poll()` while the run goes on."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.seq = 0
        self.lock = threading.Lock()
        self.dbg: Any = None
        self.launch_args: argparse.Namespace | None = None
        self.prepared: tuple | None = None
        self.stop_on_entry = False
        self.configured = False     # configurationDone came
        self.started = False        # the run was started (launch and configurationDone both came)
        self.done = False
        self.status = 0
        self.next_id = 1            # breakpoint ids given to the client
        self.pending: dict[str, list[tuple[int, dict]]] = {}   # source path -> breakpoints set before launch
        self.pending_functions: list[tuple[int, dict]] = []
        self.ids: dict[int, int] = {}    # client breakpoint id -> the debugger's breakpoint number
        self.catch: set[str] = {str(f["filter"]) for f in EXCEPTION_FILTERS if f["default"]}
        self.frames: dict[int, tuple[int, int]] = {}   # frame id -> (lane, depth), valid while stopped
        self.refs: dict[int, tuple] = {}               # variablesReference -> what it expands, while stopped
        self.reason: str | None = None                 # the reason of the next stop, when the client asked one

    # ---- wire --------------------------------------------------------------------------------
    def send(self, msg: dict) -> None:
        with self.lock:   # the run's logpoints may send from its thread
            self.seq += 1
            msg["seq"] = self.seq
            body = json.dumps(msg).encode()
            self.out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.out.flush()

    def respond(self, req: dict, body: dict | None = None, error: str | None = None) -> None:
        seq = req.get("seq", 0)
        msg = {"type": "response", "request_seq": seq if isinstance(seq, int) and not isinstance(seq, bool) else 0,
               "command": str(req.get("command", ""))[:100], "success": error is None}
        if error is not None:
            msg["message"] = error
            msg["body"] = {"error": {"id": 1, "format": error.replace("{", "(").replace("}", ")")}}
        elif body is not None:
            msg["body"] = body
        self.send(msg)

    def event(self, name: str, body: dict | None = None) -> None:
        self.send({"type": "event", "event": name, "body": body or {}})

    def output(self, text: str, category: str = "console") -> None:
        if text:
            self.event("output", {"category": category, "output": text if text.endswith("\n") else text + "\n"})

    # ---- requests ----------------------------------------------------------------------------
    def handle(self, req: dict) -> None:
        from ..core.diagnostics import SpvError, format_diagnostics
        from ..devtools.debugger import DebugError
        command = req.get("command")
        fn = (getattr(self, "req_" + command, None) if req.get("type") == "request" and isinstance(command, str)
              and command.isidentifier() else None)
        if fn is None:
            self.respond(req, error=f"unsupported request '{str(command)[:60]}'")
            return
        arguments = req.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            self.respond(req, error=f"'{command}': 'arguments' must be an object")
            return
        try:
            fn(req, arguments)
        except (DebugError, ProtocolError) as e:
            self.respond(req, error=str(e))
        except (TypeError, AttributeError, KeyError, ValueError, OverflowError, IndexError) as e:
            # a field of the wrong JSON type deep in the arguments (a client's mistake): an error response, the
            # session goes on
            self.respond(req, error=f"'{command}': malformed arguments ({type(e).__name__}: {str(e)[:100]})")
        except SpvError as e:   # a launch that cannot start: its diagnostics, as `spvcoop run` prints them
            self.output(format_diagnostics(e.diagnostics), "stderr")
            self.respond(req, error=e.diagnostics[0].headline() if e.diagnostics else "error")

    def req_initialize(self, req: dict, a: dict) -> None:
        self.respond(req, {
            "supportsConfigurationDoneRequest": True, "supportsConditionalBreakpoints": True,
            "supportsHitConditionalBreakpoints": True, "supportsLogPoints": True,
            "supportsFunctionBreakpoints": True, "supportsEvaluateForHovers": True,
            "supportsTerminateRequest": True, "supportsRestartRequest": True, "supportsSetVariable": True,
            "supportsExceptionInfoRequest": True, "exceptionBreakpointFilters": EXCEPTION_FILTERS,
            "supportsCompletionsRequest": True, "completionTriggerCharacters": ["."],
            "supportsDisassembleRequest": True, "supportsSteppingGranularity": True,
            "supportsInstructionBreakpoints": False, "supportsValueFormattingOptions": False,
            "supportTerminateDebuggee": True})
        self.event("initialized")

    def req_launch(self, req: dict, a: dict) -> None:
        from ..devtools.debugger import Debugger
        from .run import add_check_options, add_execution_options, prepare, run_defaults
        if self.dbg is not None:
            raise ProtocolError("launch: a program is launched already (one per session)")
        program = a.get("program")
        extra = a.get("args") or []
        if not isinstance(program, str) or not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
            raise ProtocolError("launch wants 'program' (a run spec or shader path) and 'args' (a list of strings)")
        cwd = a.get("cwd")
        if cwd is not None:
            if not isinstance(cwd, str) or not os.path.isdir(cwd):
                raise ProtocolError(f"launch: 'cwd' {json.dumps(cwd)[:200]} is not a directory")
            os.chdir(cwd)   # one session per adapter process: relative paths are the launch's
        p = _Parser(prog="spvcoop dap launch")
        add_execution_options(p, run_only=True)
        add_check_options(p)
        run_defaults(p)
        args = p.parse_args([program, *extra])
        self.prepared = prepare(args)
        prog, inputs, opts = self.prepared[:3]
        if opts.get("layout") == "all":
            raise ProtocolError("launch: --layout all runs every model; debug under one (--layout NAME)")
        self.launch_args = args
        dbg = self.dbg = Debugger(prog, inputs, opts)
        dbg.output = lambda text: self.output(text)   # logpoints, from the run's thread
        dbg.catch = set(self.catch)
        self.stop_on_entry = bool(a.get("stopOnEntry"))
        self.respond(req)
        for path, bps in self.pending.items():   # set before launch: verified now
            for cid, bp in bps:
                self.event("breakpoint", {"reason": "changed", "breakpoint": self._line_breakpoint(cid, path, bp)})
        for cid, bp in self.pending_functions:
            self.event("breakpoint", {"reason": "changed", "breakpoint": self._function_breakpoint(cid, bp)})
        self.pending.clear()
        self.pending_functions.clear()
        self._maybe_start()

    def req_setBreakpoints(self, req: dict, a: dict) -> None:
        source = a.get("source") or {}
        path = str(source.get("path") or source.get("name") or "")
        bps = a.get("breakpoints")
        if bps is None:
            bps = [{"line": n} for n in a.get("lines") or []]
        if not isinstance(bps, list) or not all(isinstance(b, dict) for b in bps):
            raise ProtocolError("setBreakpoints: 'breakpoints' must be a list of objects")
        if self.dbg is None:   # before launch: kept, verified when the program is known
            self.pending[path] = [(self._new_id(), bp) for bp in bps]
            self.respond(req, {"breakpoints": [{"id": cid, "verified": False, "line": bp.get("line"),
                                                "message": "verified when the program is launched"}
                                               for cid, bp in self.pending[path]]})
            return
        dbg = self.dbg
        file = self._file_of(path)
        for cid, n in list(self.ids.items()):
            b = dbg.breakpoints.get(n)
            if b is not None and b.line is not None and (file is None or b.line[0] == file):
                del dbg.breakpoints[n]
                del self.ids[cid]
        self.respond(req, {"breakpoints": [self._line_breakpoint(self._new_id(), path, bp) for bp in bps]})

    def req_setFunctionBreakpoints(self, req: dict, a: dict) -> None:
        bps = a.get("breakpoints") or []
        if not isinstance(bps, list) or not all(isinstance(b, dict) for b in bps):
            raise ProtocolError("setFunctionBreakpoints: 'breakpoints' must be a list of objects")
        if self.dbg is None:
            self.pending_functions = [(self._new_id(), bp) for bp in bps]
            self.respond(req, {"breakpoints": [{"id": cid, "verified": False} for cid, _ in self.pending_functions]})
            return
        for cid, n in list(self.ids.items()):
            b = self.dbg.breakpoints.get(n)
            if b is not None and b.line is None:
                del self.dbg.breakpoints[n]
                del self.ids[cid]
        self.respond(req, {"breakpoints": [self._function_breakpoint(self._new_id(), bp) for bp in bps]})

    def req_setExceptionBreakpoints(self, req: dict, a: dict) -> None:
        filters = a.get("filters") or []
        known = {str(f["filter"]) for f in EXCEPTION_FILTERS}
        if not isinstance(filters, list) or not all(isinstance(f, str) and f in known for f in filters):
            raise ProtocolError(f"setExceptionBreakpoints: 'filters' are among {', '.join(sorted(known))}")
        self.catch = set(filters)
        if self.dbg is not None:
            self.dbg.catch = set(filters)
        self.respond(req, {"breakpoints": [{"verified": True} for _ in filters]})

    def req_configurationDone(self, req: dict, a: dict) -> None:
        self.configured = True
        self.respond(req)
        self._maybe_start()

    def req_threads(self, req: dict, a: dict) -> None:
        import numpy as np
        dbg = self.dbg
        if dbg is None or dbg.stop is None:
            self.respond(req, {"threads": [{"id": 1, "name": "invocation #0"}]})
            return
        stop = dbg.stop
        active = np.flatnonzero(np.broadcast_to(stop.mask, (stop.ex.N,))).tolist()
        lanes = [dbg.selected] + [x for x in active if x != dbg.selected][:MAX_THREADS - 1]
        self.respond(req, {"threads": [{"id": lane + 1, "name": dbg._describe_lane(lane)} for lane in lanes]})

    def req_stackTrace(self, req: dict, a: dict) -> None:
        from ..interp.observe import source_path
        dbg = self._stopped()
        lane = self._lane(a)
        frames = []
        for k, (name, line) in enumerate(dbg.frames()):
            fid = self._frame_id(lane, k)
            f: dict = {"id": fid, "name": name, "line": line[1] if line else 0, "column": 1}
            if line:
                path = source_path(line[0], dbg.prog.source)
                f["source"] = {"name": _base(path), "path": _abs(path)}
            if k == 0:
                f["instructionPointerReference"] = str(dbg.stop.inst.index)
            frames.append(f)
        start = _int_arg(a, "startFrame", 0)
        levels = _int_arg(a, "levels", 0) or len(frames)
        self.respond(req, {"stackFrames": frames[start:start + levels], "totalFrames": len(frames)})

    def req_scopes(self, req: dict, a: dict) -> None:
        lane, depth = self._frame(a)
        self.respond(req, {"scopes": [
            {"name": "Locals", "presentationHint": "locals", "expensive": False,
             "variablesReference": self._ref(("locals", lane, depth))},
            {"name": "Arguments", "presentationHint": "arguments", "expensive": False,
             "variablesReference": self._ref(("args", lane, depth))},
            {"name": "Globals (buffers, shared, built-ins)", "expensive": False,
             "variablesReference": self._ref(("globals", lane))}]})

    def req_variables(self, req: dict, a: dict) -> None:
        dbg = self._stopped()
        ref = _int_arg(a, "variablesReference")
        what = self.refs.get(ref)
        if what is None:
            raise ProtocolError(f"no variablesReference {ref} at this stop")
        with _Selected(dbg, what[1]):
            if what[0] in ("locals", "args", "globals"):
                rows = dbg.globals() if what[0] == "globals" else dbg.locals(what[2], args_only=what[0] == "args")
                out = []
                for i, (name, text, mrows) in enumerate(rows):
                    child = self._ref(("matrix", what[1], what[0], what[2] if len(what) > 2 else 0, i)) if \
                        mrows is not None else 0
                    out.append({"name": name, "value": text, "variablesReference": child,
                                "evaluateName": name})
            else:   # a matrix: its rows, then what this thread's lane holds
                _, lane, scope, depth, index = what
                rows = dbg.globals() if scope == "globals" else dbg.locals(depth, args_only=scope == "args")
                if not 0 <= index < len(rows) or rows[index][2] is None:
                    raise ProtocolError("that matrix is not here any more")
                name = rows[index][0]
                out = [{"name": f"row {r}", "value": text, "variablesReference": 0}
                       for r, text in enumerate(rows[index][2] or [])]
                held = dbg.lane_elements(name, depth)
                out.append({"name": f"lane #{lane} holds", "value": held, "variablesReference": 0})
        self.respond(req, {"variables": out})

    def req_setVariable(self, req: dict, a: dict) -> None:
        dbg = self._stopped()
        ref = _int_arg(a, "variablesReference")
        what = self.refs.get(ref)
        if what is None or what[0] not in ("locals", "args"):
            raise ProtocolError("setVariable sets a function's values (Locals, Arguments)")
        name, value = a.get("name"), a.get("value")
        if not isinstance(name, str) or not isinstance(value, str):
            raise ProtocolError("setVariable wants 'name' and 'value' (strings)")
        with _Selected(dbg, what[1]):
            text = dbg.set_value(name, value, what[2])
        self.respond(req, {"value": text})

    def req_evaluate(self, req: dict, a: dict) -> None:
        dbg = self._need()
        expr = a.get("expression", "")
        if not isinstance(expr, str):
            raise ProtocolError("evaluate wants 'expression' (a string)")
        lane, depth = self._frame(a) if a.get("frameId") is not None else (dbg.selected, 0)
        word = expr.strip().split(None, 1)[:1]
        head = word[0].split("/", 1)[0] if word else ""
        # a debugger command: in any context where it cannot be an expression (`info writer flags[3]` in a watch),
        # and in the Debug Console a lone command word that is not one of the shader's names
        command = head in REPL_COMMANDS and (len(expr.split()) > 1 or "/" in word[0] or (
            a.get("context") == "repl" and head not in dbg._by_name))
        with _Selected(dbg, lane, depth):
            r = dbg.execute(expr if command else f"print {expr}")
        if r.error:
            raise ProtocolError(r.text.removeprefix("error: "))
        result = r.text if command else r.text.split(" = ", 1)[-1]
        self.respond(req, {"result": result, "variablesReference": 0})

    def req_completions(self, req: dict, a: dict) -> None:
        dbg = self._need()
        text = a.get("text", "")
        if not isinstance(text, str):
            raise ProtocolError("completions wants 'text' (a string)")
        col = _int_arg(a, "column", len(text) + 1) - 1
        before = text[:max(0, min(col, len(text)))]
        start = len(before)
        while start and (before[start - 1].isalnum() or before[start - 1] in "_%"):
            start -= 1
        stem = before[start:]
        words = sorted({w for w in [*REPL_COMMANDS, *dbg.completion_names()] if w.startswith(stem)})[:200]
        self.respond(req, {"targets": [{"label": w, "start": start, "length": len(stem)} for w in words]})

    def req_exceptionInfo(self, req: dict, a: dict) -> None:
        from ..core.diagnostics import format_diagnostics
        dbg = self._stopped()
        stop = dbg.stop
        if stop.reason == "nonfinite":
            self.respond(req, {"exceptionId": "nonfinite", "description": stop.note, "breakMode": "always"})
            return
        if stop.error is None:
            raise ProtocolError("the run is not stopped at an exception")
        d = stop.error.diagnostics[0]
        self.respond(req, {"exceptionId": d.rule or "error", "description": d.message, "breakMode": "always",
                           "details": {"message": format_diagnostics(stop.error.diagnostics).rstrip(),
                                       "typeName": d.rule or "error"}})

    def req_disassemble(self, req: dict, a: dict) -> None:
        dbg = self._need()
        ref = a.get("memoryReference")
        if not isinstance(ref, str) or not ref.isdigit() or len(ref) > 12:
            raise ProtocolError("disassemble wants a 'memoryReference' from a stack frame")
        offset = a.get("instructionOffset", 0)
        count = _int_arg(a, "instructionCount")
        if isinstance(offset, bool) or not isinstance(offset, int) or abs(offset) > MAX_REF:
            raise ProtocolError("'instructionOffset' must be an integer")
        count = min(count, 4096)
        first = int(ref) + offset
        out = []
        for i in range(first, first + count):
            text, line = dbg.instruction_text(i)
            entry: dict = {"address": str(i), "instruction": text}
            if line is not None:
                from ..interp.observe import source_path
                path = source_path(line[0], dbg.prog.source)
                entry.update(line=line[1], location={"name": _base(path), "path": _abs(path)})
            out.append(entry)
        self.respond(req, {"instructions": out})

    def req_continue(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req, {"allThreadsContinued": True})
        self._resume("continue")

    def req_next(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req)
        self._resume("stepi" if a.get("granularity") == "instruction" else "next")

    def req_stepIn(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req)
        self._resume("stepi" if a.get("granularity") == "instruction" else "step")

    def req_stepOut(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req)
        self._resume("finish" if self.dbg.stop is not None and len(self.dbg.stop.stack) > 1 else "next")

    def req_pause(self, req: dict, a: dict) -> None:
        dbg = self._need()
        if dbg.state == "running":
            dbg.interrupt = "pause"
        self.respond(req)

    def req_restart(self, req: dict, a: dict) -> None:
        dbg = self._need()
        dbg.restart()
        self.respond(req)
        if self.started:
            self.started = False
            self._maybe_start()

    def req_terminate(self, req: dict, a: dict) -> None:
        if self.dbg is not None:
            self.dbg.close()
        self.respond(req)
        self.event("terminated")

    def req_disconnect(self, req: dict, a: dict) -> None:
        if self.dbg is not None:
            self.dbg.close()
        self.respond(req)
        self.done = True

    # ---- the run --------------------------------------------------------------------------------
    def _maybe_start(self) -> None:
        if self.dbg is None or not self.configured or self.started:
            return
        self.started = True
        self._resume("step" if self.stop_on_entry else "continue", "entry" if self.stop_on_entry else None)

    def _resume(self, mode: str, reason: str | None = None) -> None:
        from ..devtools.debugger import DebugError
        self.frames.clear()
        self.refs.clear()
        try:
            self.dbg.start(mode)
        except DebugError as e:
            self.output(str(e), "stderr")
            return
        self.reason = reason

    def poll(self, timeout: float) -> None:
        """While the run goes on: its stop or end, as events (nothing if it is still going after `timeout`)."""
        dbg = self.dbg
        text = dbg.wait(timeout)
        if text is None:
            return
        if dbg.state == "stopped":
            stop = dbg.stop
            kinds = {"exception": "exception", "race": "exception", "nonfinite": "exception", "pause": "pause"}
            why = self.reason or kinds.get(stop.reason, "breakpoint" if stop.reason.startswith("breakpoint") else
                                           "step")
            self.reason = None
            body = {"reason": why, "threadId": dbg.selected + 1, "allThreadsStopped": True,
                    "description": text.split("\n")[0][:200]}
            if why == "exception":
                body["text"] = (stop.error.diagnostics[0].message if stop.error is not None and
                                stop.error.diagnostics else stop.note)[:500]
            ids = [cid for cid, n in self.ids.items() if stop.reason == f"breakpoint {n}"]
            if ids:
                body["hitBreakpointIds"] = ids
            if stop.note:
                self.output(stop.note, "console")
            self.event("stopped", body)
            return
        self.output(text)
        self.status = self._finish()
        self.event("exited", {"exitCode": self.status})
        self.event("terminated")

    def _finish(self) -> int:
        """The run's end: its error, or its outputs (and --check), as output events; the exit status."""
        import io

        from ..core.diagnostics import format_diagnostics
        from .run import _write_outputs
        dbg = self.dbg
        if dbg.error is not None:
            self.output(format_diagnostics(dbg.error.diagnostics), "stderr")
            return dbg.error.exit_status
        if dbg.result is None:   # ended by terminate/restart
            return 0
        prog, _, _, spec, run_spec, options = self.prepared  # type: ignore[misc]  # set by launch
        out, err = io.StringIO(), io.StringIO()
        saved = sys.stdout, sys.stderr   # the outputs (and --check's report) as `run` prints them, captured
        sys.stdout, sys.stderr = _TextBuffer(out), err
        try:
            status = _write_outputs(dbg.result, spec, run_spec, prog, self.launch_args, options)
        finally:
            sys.stdout, sys.stderr = saved
        self.output(format_diagnostics(dbg.result.diagnostics), "stderr")
        self.output(out.getvalue(), "stdout")
        self.output(err.getvalue(), "stderr")
        return status

    # ---- helpers -------------------------------------------------------------------------------
    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def _file_of(self, path: str) -> str | None:
        """The module's source file that is `path` (its full path, symlinks resolved), None if none is."""
        from ..interp.observe import source_path
        want = os.path.realpath(path) if path else ""
        for f in self.dbg._code_lines:
            if os.path.realpath(_abs(source_path(f, self.dbg.prog.source))) == want:
                return f
        return None

    def _line_breakpoint(self, cid: int, path: str, bp: dict) -> dict:
        line = bp.get("line")
        file = self._file_of(path)
        if file is None:
            return {"id": cid, "verified": False, "line": line,
                    "message": f"{_base(path)} is not a source of the launched module"}
        if isinstance(line, bool) or not isinstance(line, int):
            return {"id": cid, "verified": False, "message": "'line' must be an integer"}
        return self._add(cid, bp, f"{file}:{line}", line)

    def _function_breakpoint(self, cid: int, bp: dict) -> dict:
        name = bp.get("name")
        if not isinstance(name, str) or not name.strip() or ":" in name:
            return {"id": cid, "verified": False, "message": "a function breakpoint wants a function's name"}
        return self._add(cid, bp, name.strip(), None)

    def _add(self, cid: int, bp: dict, where: str, line: int | None) -> dict:
        from ..devtools.debug_run import hit_condition_holds
        from ..devtools.debugger import DebugError
        from ..devtools.debug_expr import parse_expr
        dbg = self.dbg
        cond, hit, log = bp.get("condition"), bp.get("hitCondition"), bp.get("logMessage")
        try:
            for x in (cond, hit, log):
                if x is not None and not isinstance(x, str):
                    raise DebugError("condition, hitCondition and logMessage are strings")
            if hit:
                hit_condition_holds(hit, 0)
            if cond:
                parse_expr(cond)
            b, note = dbg._new_breakpoint(where + (f" if {cond}" if cond else ""))
        except DebugError as e:
            return {"id": cid, "verified": False, "line": line, "message": str(e)}
        b.hit_condition = hit or None
        b.log = log if log else None
        self.ids[cid] = b.number
        out: dict = {"id": cid, "verified": True}
        if b.line is not None:
            out["line"] = b.line[1]
        if note:
            out["message"] = note.strip(" ()")
        return out

    def _need(self):
        if self.dbg is None:
            raise ProtocolError("no program: send 'launch' first")
        return self.dbg

    def _stopped(self):
        dbg = self._need()
        if dbg.stop is None:
            raise ProtocolError("the run is not stopped" if dbg.state != "exited" else "the run has ended")
        return dbg

    def _lane(self, a: dict) -> int:
        dbg = self._stopped()
        tid = _int_arg(a, "threadId", dbg.selected + 1)
        if not 1 <= tid <= dbg.stop.ex.N:
            raise ProtocolError(f"no thread {tid}")
        return tid - 1

    def _frame_id(self, lane: int, depth: int) -> int:
        for fid, v in self.frames.items():
            if v == (lane, depth):
                return fid
        fid = len(self.frames) + 1
        self.frames[fid] = (lane, depth)
        return fid

    def _frame(self, a: dict) -> tuple[int, int]:
        self._stopped()
        fid = _int_arg(a, "frameId")
        if fid not in self.frames:
            raise ProtocolError(f"no frame {fid} at this stop (stackTrace gives the frames)")
        return self.frames[fid]

    def _ref(self, what: tuple) -> int:
        for ref, v in self.refs.items():
            if v == what:
                return ref
        ref = len(self.refs) + 1
        self.refs[ref] = what
        return ref

    def _select(self, a: dict):
        dbg = self._need()
        tid = a.get("threadId")
        if isinstance(tid, int) and not isinstance(tid, bool) and dbg.stop is not None and 1 <= tid <= dbg.stop.ex.N:
            dbg.selected = dbg.picked = tid - 1   # stepping a thread picks its invocation (kept across stops)
        return dbg


class _Selected:
    """Within: the debugger's selected invocation (and frame) are a thread's (a request about thread T shows T's
    values), restored after unless the request was to select it."""

    def __init__(self, dbg, lane: int, depth: int = 0) -> None:
        self.dbg, self.lane, self.depth = dbg, lane, depth

    def __enter__(self) -> None:
        self.saved = self.dbg.selected, self.dbg.frame_index
        self.dbg.selected, self.dbg.frame_index = self.lane, self.depth

    def __exit__(self, *exc) -> None:
        lane, depth = self.dbg.selected, self.dbg.frame_index
        self.dbg.selected, self.dbg.frame_index = self.saved
        if lane != self.lane:   # the Debug Console's `invocation N`: the new selection stays
            self.dbg.selected = lane
        if depth != self.depth:
            self.dbg.frame_index = depth


class _TextBuffer:
    """A text stream with a .buffer taking bytes (what commands.common.write_output writes to)."""

    def __init__(self, text) -> None:
        self.text = text
        self.buffer = self

    def write(self, data) -> int:
        self.text.write(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)
        return len(data)

    def flush(self) -> None:
        pass


class _Events(_TextBuffer):
    """Standard output during the session: what anything writes there goes out as an output event (only framed
    messages may reach the client's stream)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.buffer = self
        self.pending = ""   # a line not ended yet (print writes the text, then its newline)

    def write(self, data) -> int:
        text = self.pending + (data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data))
        done, _, self.pending = text.rpartition("\n")
        if done or _:
            self.server.output(done + "\n", "stdout")
        return len(data)

    def flush(self) -> None:
        if self.pending:
            self.server.output(self.pending, "stdout")
            self.pending = ""

    def isatty(self) -> bool:
        return False


class _Parser(argparse.ArgumentParser):
    """Launch arguments: a bad flag (or --help) is an error response, not an exit or text on standard output."""

    def error(self, message: str):
        raise ProtocolError(f"launch: {message}")

    def print_help(self, file=None) -> None:
        raise ProtocolError("launch: 'args' are the flags of `spvcoop run` (`spvcoop run --help` lists them); "
                            "--help is not one")

    def print_usage(self, file=None) -> None:
        self.print_help()

    def exit(self, status: int = 0, message: str | None = None):
        raise ProtocolError(f"launch: {message or 'the arguments end the parse'}".strip())


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _abs(path: str) -> str:
    return os.path.abspath(path)


def _reader(stream: BinaryIO, inbox: queue.Queue) -> None:
    """The input thread: messages into `inbox`, then None (the end) or a ProtocolError."""
    while True:
        try:
            msg = read_message(stream)
        except ProtocolError as e:
            inbox.put(e)
            return
        inbox.put(msg)
        if msg is None:
            return


def dap_command(args: argparse.Namespace) -> int:
    """Serve one session on standard input/output; the exit status is the run's."""
    out = sys.stdout.buffer
    server = Server(out)
    saved = sys.stdout
    sys.stdout = _Events(server)   # a text stream enough for print()
    inbox: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(sys.stdin.buffer, inbox), name="spvcoop-dap-input", daemon=True).start()
    try:
        while not server.done:
            if server.dbg is not None and server.dbg.state == "running":
                server.poll(POLL_S)
                try:
                    msg = inbox.get_nowait()
                except queue.Empty:
                    continue
            else:
                msg = inbox.get()
            if isinstance(msg, ProtocolError):
                print(f"<stdin>: error: Debug Adapter Protocol: {msg}", file=sys.stderr)
                return 2
            if msg is None:
                break
            server.handle(msg)
    finally:
        if server.dbg is not None:
            server.dbg.close()
        sys.stdout.flush()
        sys.stdout = saved
    return server.status

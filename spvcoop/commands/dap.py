"""`spvcoop dap`: the Debug Adapter Protocol on standard input/output (Content-Length framed JSON), so VS Code
and other DAP clients debug a compute shader at its GLSL source. The engine is spvcoop/interp/debugger.py;
this module speaks the protocol only.

Requests: initialize, launch (arguments: `program`, a run spec or a shader; `args`, the flags of `spvcoop run`
such as ["--layout", "nvidia"]; `stopOnEntry`), setBreakpoints (with conditions), configurationDone, threads
(the active invocations, the selected one first), stackTrace, scopes, variables (a cooperative matrix expands
into its rows), evaluate, continue, next, stepIn, stepOut, disconnect. Events: initialized, stopped, output,
exited, terminated. One run at a time: a run command answers, then the run goes on to its next stop.
"""
from __future__ import annotations


import argparse
import json
import sys
from typing import Any, BinaryIO

COMMANDS, HELP_ORDER = ("dap",), 70  # its commands, its place in --help (cli.py)

MAX_THREADS = 64    # invocations listed as threads (the selected one is always among them)
MATRIX_REF = 1 << 20  # variablesReference of a matrix: MATRIX_REF + its index in the frame's locals


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dap", help="a Debug Adapter Protocol server on standard input/output (VS Code)",
                       description="Speak the Debug Adapter Protocol on standard input/output: launch a run spec or "
                                   "a shader (with the flags of `spvcoop run` in the launch arguments' \"args\") and "
                                   "debug it at its GLSL source. See README, 'Debugging a shader'.",
                       epilog="Example (an editor starts it; samples/debug/vscode/ wires VS Code):\n  spvcoop dap",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=dap_command)


MAX_HEADER_LINE = 4096   # a header line is "Content-Length: N" or another short field; more is not a client


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
    except ValueError as e:
        raise ProtocolError(f"not JSON: {e}") from None
    if not isinstance(msg, dict):
        raise ProtocolError("a message must be a JSON object")
    return msg


class ProtocolError(Exception):
    pass


class Server:
    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.seq = 0
        self.dbg: Any = None
        self.launch_args: argparse.Namespace | None = None
        self.prepared: tuple | None = None
        self.stop_on_entry = False
        self.done = False
        self.status = 0

    # ---- wire --------------------------------------------------------------------------------
    def send(self, msg: dict) -> None:
        self.seq += 1
        msg["seq"] = self.seq
        body = json.dumps(msg).encode()
        self.out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.out.flush()

    def respond(self, req: dict, body: dict | None = None, error: str | None = None) -> None:
        msg = {"type": "response", "request_seq": req.get("seq", 0), "command": req.get("command", ""),
               "success": error is None}
        if error is not None:
            msg["message"] = error
            msg["body"] = {"error": {"id": 1, "format": error}}
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
        from ..interp.debugger import DebugError
        command = req.get("command")
        fn = getattr(self, "req_" + str(command), None) if req.get("type") == "request" else None
        if fn is None:
            self.respond(req, error=f"unsupported request '{command}'")
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
        except (TypeError, AttributeError, KeyError, ValueError) as e:
            # a field of the wrong JSON type deep in the arguments (a client's mistake): an error response, the
            # session goes on
            self.respond(req, error=f"'{command}': malformed arguments ({type(e).__name__}: {e})")
        except SpvError as e:   # a launch that cannot start: its diagnostics, as `spvcoop run` prints them
            self.output(format_diagnostics(e.diagnostics), "stderr")
            self.respond(req, error=e.diagnostics[0].headline() if e.diagnostics else "error")

    def req_initialize(self, req: dict, a: dict) -> None:
        self.respond(req, {"supportsConfigurationDoneRequest": True, "supportsConditionalBreakpoints": True,
                           "supportsEvaluateForHovers": True, "supportsTerminateRequest": False})
        self.event("initialized")

    def req_launch(self, req: dict, a: dict) -> None:
        from ..interp.debugger import Debugger
        from .run import add_execution_options, prepare
        program = a.get("program")
        extra = a.get("args") or []
        if not isinstance(program, str) or not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
            raise ProtocolError("launch wants 'program' (a run spec or shader path) and 'args' (a list of strings)")
        p = _Parser(prog="spvcoop dap launch")
        add_execution_options(p, run_only=True)
        p.add_argument("--check", default=None)
        args = p.parse_args([program, *extra])
        args.__dict__.update(output=None, quiet=False, compare=None, rtol=None, atol=None,
                             max_text_values=4_000_000, template=None, coverage=None)
        self.launch_args = args
        self.prepared = prepare(args)
        module, inputs, opts = self.prepared[:3]
        self.dbg = Debugger(module, inputs, opts)
        self.stop_on_entry = bool(a.get("stopOnEntry"))
        self.respond(req)

    def req_setBreakpoints(self, req: dict, a: dict) -> None:
        dbg = self._need()
        path = str((a.get("source") or {}).get("path") or "")
        for n in [n for n, b in dbg.breakpoints.items() if b.line is not None and _same(b.line[0], path)]:
            del dbg.breakpoints[n]
        out = []
        for bp in a.get("breakpoints") or []:
            line, cond = bp.get("line"), bp.get("condition")
            r = dbg.execute(f"break {_base(path)}:{line}" + (f" if {cond}" if cond else ""))
            if r.error:
                out.append({"verified": False, "line": line, "message": r.text})
            else:
                b = dbg.breakpoints[dbg.next_bp - 1]
                out.append({"verified": True, "id": b.number, "line": b.line[1]})
        self.respond(req, {"breakpoints": out})

    def req_setExceptionBreakpoints(self, req: dict, a: dict) -> None:
        self.respond(req, {"breakpoints": []})

    def req_configurationDone(self, req: dict, a: dict) -> None:
        self._need()
        self.respond(req)
        self._resume("step" if self.stop_on_entry else "continue", "entry" if self.stop_on_entry else None)

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
        dbg = self._select(a)
        frames = []
        for k, (name, line) in enumerate(dbg.frames()):
            f: dict = {"id": k + 1, "name": name, "line": line[1] if line else 0, "column": 1}
            if line:
                path = source_path(line[0], dbg.prog.source)
                f["source"] = {"name": _base(path), "path": _abs(path)}
            frames.append(f)
        self.respond(req, {"stackFrames": frames, "totalFrames": len(frames)})

    def req_scopes(self, req: dict, a: dict) -> None:
        frame = int(a.get("frameId") or 1)
        self.respond(req, {"scopes": [{"name": "Locals", "variablesReference": frame, "expensive": False}]})

    def req_variables(self, req: dict, a: dict) -> None:
        dbg = self._need()
        ref = int(a.get("variablesReference") or 0)
        if ref >= MATRIX_REF:   # a matrix's rows: MATRIX_REF + frame * 4096 + index
            frame, index = divmod(ref - MATRIX_REF, 4096)
            _, _, rows = dbg.locals(frame - 1)[index]
            self.respond(req, {"variables": [{"name": f"row {r}", "value": text, "variablesReference": 0}
                                             for r, text in enumerate(rows or [])]})
            return
        out = []
        for i, (name, text, rows) in enumerate(dbg.locals(ref - 1)):
            out.append({"name": name, "value": text,
                        "variablesReference": MATRIX_REF + ref * 4096 + i if rows is not None else 0})
        self.respond(req, {"variables": out})

    def req_evaluate(self, req: dict, a: dict) -> None:
        dbg = self._need()
        r = dbg.execute(f"print {a.get('expression', '')}")
        if r.error:
            raise ProtocolError(r.text.removeprefix("error: "))
        self.respond(req, {"result": r.text.split(" = ", 1)[-1], "variablesReference": 0})

    def req_continue(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req, {"allThreadsContinued": True})
        self._resume("continue")

    def req_next(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req)
        self._resume("next")

    def req_stepIn(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req)
        self._resume("step")

    def req_stepOut(self, req: dict, a: dict) -> None:
        self._select(a)
        self.respond(req)
        self._resume("finish" if self.dbg.stop is not None and len(self.dbg.stop.stack) > 1 else "next")

    def req_disconnect(self, req: dict, a: dict) -> None:
        if self.dbg is not None:
            self.dbg.close()
        self.respond(req)
        self.done = True

    # ---- helpers -------------------------------------------------------------------------------
    def _need(self):
        if self.dbg is None:
            raise ProtocolError("no program: send 'launch' first")
        return self.dbg

    def _select(self, a: dict):
        dbg = self._need()
        tid = a.get("threadId")
        if isinstance(tid, int) and dbg.stop is not None and 1 <= tid <= dbg.stop.ex.N:
            dbg.selected = tid - 1
        return dbg

    def _resume(self, mode: str, reason: str | None = None) -> None:
        from ..interp.debugger import DebugError
        dbg = self.dbg
        try:
            text = dbg._resume(mode)
        except DebugError as e:
            self.output(str(e), "stderr")
            return
        if dbg.state == "stopped":
            why = reason or ("breakpoint" if dbg.stop.reason.startswith("breakpoint") else "step")
            self.event("stopped", {"reason": why, "threadId": dbg.selected + 1, "allThreadsStopped": True,
                                   "description": text.split("\n")[0]})
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
        module, _, _, spec, run_spec, options = self.prepared  # type: ignore[misc]  # set by launch
        out, err = io.StringIO(), io.StringIO()
        saved = sys.stdout, sys.stderr   # the outputs (and --check's report) as `run` prints them, captured
        sys.stdout, sys.stderr = _TextBuffer(out), err
        try:
            status = _write_outputs(dbg.result, spec, run_spec, module, self.launch_args, options)
        finally:
            sys.stdout, sys.stderr = saved
        self.output(format_diagnostics(dbg.result.diagnostics), "stderr")
        self.output(out.getvalue(), "stdout")
        self.output(err.getvalue(), "stderr")
        return status


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


class _Parser(argparse.ArgumentParser):
    """Launch arguments: a bad flag is an error response, not an exit."""

    def error(self, message: str):
        raise ProtocolError(f"launch: {message}")


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _abs(path: str) -> str:
    import os
    return os.path.abspath(path)


def _same(file: str, path: str) -> bool:
    return _base(file) == _base(path)


def dap_command(args: argparse.Namespace) -> int:
    """Serve one session on standard input/output; the exit status is the run's."""
    server = Server(sys.stdout.buffer)
    stdin = sys.stdin.buffer
    while not server.done:
        try:
            msg = read_message(stdin)
        except ProtocolError as e:
            print(f"<stdin>: error: Debug Adapter Protocol: {e}", file=sys.stderr)
            return 2
        if msg is None:
            break
        server.handle(msg)
    if server.dbg is not None:
        server.dbg.close()
    return server.status

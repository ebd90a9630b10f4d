"""`spvcoop debug`: run a shader under a gdb-like prompt that reads commands from standard input (a terminal, with
line editing, history and completion where Python's readline is there; or a script), `-x FILE` and `-ex CMD`; the
command engine is spvcoop/devtools/debugger.py, this module only reads lines and prints replies."""
from __future__ import annotations


import argparse
import sys
import contextlib

COMMANDS, HELP_ORDER = ("debug",), 60  # its commands, its place in --help (cli.py)

PROMPT = "(spvcoop) "
HISTORY = "~/.spvcoop_debug_history"


def register(sub: argparse._SubParsersAction) -> None:
    from .run import add_check_options, add_execution_options, run_defaults
    p = sub.add_parser(
        "debug", help="run a compute shader under a debugger (breakpoints, stepping, values per invocation)",
        description="Start SPEC (a run spec, or a shader with --input) under a gdb-like prompt reading commands "
                    "from standard input (after those of -ex and -x): break LOCATION [if EXPR], tbreak, delete, "
                    "disable, enable, condition, ignore, info breakpoints|invocations|locals|args|frame|writer, run, "
                    "continue, step, next, stepi, until, advance, finish, invocation N|X,Y,Z|local X,Y,Z, "
                    "print[/FMT] EXPR [@all], display, x/NF, matrix NAME [--lanes], list, backtrace, frame, up, "
                    "down, catch nonfinite|fault|race, quit ('help' lists them). A run that fails stops where it "
                    "failed. The exit status is the run's (0, or 1 for a run-time error or a failed --check); "
                    "reading commands from a script or -x/-ex, 2 if a command failed or the input ended while the "
                    "run was stopped (without 'quit').",
        epilog="Example:\n  spvcoop debug samples/debug/run.yaml < samples/debug/session.txt\n"
               "  spvcoop debug samples/debug/run.yaml -ex 'break 19' -ex run -ex 'print w' -ex quit",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_execution_options(p, run_only=True)
    add_check_options(p)
    p.add_argument("-ex", dest="ex", action="append", default=[], metavar="COMMAND",
                   help="run this debugger command first (repeatable, in order)")
    p.add_argument("-x", dest="script", metavar="FILE", help="run the commands of FILE (after -ex), then read "
                   "standard input")
    run_defaults(p)
    p.set_defaults(func=debug_command)


def debug_command(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics
    try:
        return _debug(args)
    except SpvError as e:
        print_diagnostics(e.diagnostics)
        return e.exit_status


def _lines(args: argparse.Namespace, interactive: bool):
    """(where, line) of each command: -ex, then -x FILE, then standard input (None: the end)."""
    for k, cmd in enumerate(args.ex, 1):
        yield f"-ex {k}", cmd, True
    if args.script:
        from ..core.files import read_input
        text = read_input(args.script, 1 << 20).decode("utf-8", "replace")
        for k, cmd in enumerate(text.splitlines(), 1):
            yield f"{args.script}:{k}", cmd, True
    number = 0
    while True:
        if interactive:
            try:
                line = input(PROMPT) + "\n"
            except EOFError:
                line = ""
            except KeyboardInterrupt:
                sys.stdout.write("\n")
                continue
        else:
            sys.stdout.write(PROMPT)
            sys.stdout.flush()
            line = sys.stdin.readline()
        number += 1
        if not line:
            return
        yield f"<stdin>:{number}", line, not interactive


def _readline(dbg):
    """Line editing, history and completion of command words and the shader's names, where readline exists and
    standard input is a terminal: the function that saves the history, or None (no terminal, no readline)."""
    if not sys.stdin.isatty():
        return None
    try:
        import readline
    except ImportError:
        return None
    import os

    from ..devtools.debugger import ALIASES, COMMANDS
    commands = sorted({*COMMANDS, *ALIASES})
    names = dbg.completion_names()
    matches: list[str] = []

    def complete(text: str, state: int):
        nonlocal matches
        if state == 0:
            first = not readline.get_line_buffer()[:readline.get_begidx()].strip()
            # the command word: a command, completed with its space as gdb does; later words: the shader's names
            matches = ([w + " " for w in commands if w.startswith(text)] if first else
                       [w for w in names if w.startswith(text)])
        return matches[state] if state < len(matches) else None
    readline.set_completer(complete)
    readline.set_completer_delims(" \t[].()+-*/&|!<>=,")
    readline.parse_and_bind("tab: complete")
    path = os.path.expanduser(HISTORY)
    with contextlib.suppress(OSError):
        readline.read_history_file(path)

    def save() -> None:   # at the session's end (the CLI may leave without running atexit handlers)
        with contextlib.suppress(OSError):
            readline.write_history_file(path)
    return save


def _debug(args: argparse.Namespace) -> int:
    from ..devtools.debugger import Debugger
    from .run import _write_outputs, prepare, show_diagnostics
    prog, inputs, opts, spec, run_spec, options = prepare(args)
    if opts.get("layout") == "all":
        from ..core.diagnostics import Diagnostic, InputError
        raise InputError(Diagnostic("error", "--layout all runs every model; debug under one (--layout NAME)",
                                    source="<command line>"))
    dbg = Debugger(prog, inputs, opts)
    dbg.output = lambda text: print(text, flush=True)   # logpoints
    save_history = _readline(dbg)
    interactive = save_history is not None
    status = 0
    failed = False
    reported = None   # the result (or error) whose end was reported: `run` may start another
    quit_ = False
    try:
        for where, line, echo in _lines(args, interactive):
            if echo:   # a script: show each command after the prompt, as a transcript
                if not where.startswith("<stdin>"):
                    sys.stdout.write(PROMPT)
                sys.stdout.write(line if line.endswith("\n") else line + "\n")
            reply = dbg.execute(line)
            sys.stdout.flush()
            if reply.error:   # located in the script: <stdin>:LINE:COL, -x FILE:LINE:COL, -ex N
                failed = True
                col = len(line) - len(line.lstrip()) + 1
                loc = f"{where}:{col}: " if echo and not where.startswith("-ex") else f"{where}: " if echo else ""
                print(f"{loc}{reply.text}", file=sys.stderr, flush=True)
            elif reply.text:
                print(reply.text, flush=True)
            ended = dbg.result if dbg.result is not None else dbg.error
            if ended is not None and ended is not reported:   # the run ended (not quit)
                reported = ended
                status = _finished(dbg, prog, spec, run_spec, args, options, show_diagnostics, _write_outputs)
            if line.split()[:1] in (["quit"], ["q"]):
                quit_ = True
                break
        else:
            sys.stdout.write("\n" if interactive else "")
    finally:
        stopped = dbg.state == "stopped"
        dbg.close()
        if save_history is not None:
            save_history()
    if interactive:
        return status
    if not quit_ and stopped:
        print("<stdin>: error: the commands ended while the run was stopped (end a script with 'continue' or "
              "'quit')", file=sys.stderr)
        return status or 2
    return status or (2 if failed else 0)


def _finished(dbg, prog, spec, run_spec, args, options, show_diagnostics, write_outputs) -> int:
    """The end of the run: its warnings, then its error or its outputs (and --check), as `spvcoop run` shows
    them; the run's exit status."""
    from .common import print_diagnostics
    sys.stdout.flush()
    if dbg.error is not None:
        diags = dbg.error.diagnostics
        show_diagnostics([d for d in diags if d.severity != "error"], prog.module)
        print_diagnostics([d for d in diags if d.severity == "error"] or diags)
        return dbg.error.exit_status
    show_diagnostics(dbg.result.diagnostics, prog.module)
    return write_outputs(dbg.result, spec, run_spec, prog, args, options)

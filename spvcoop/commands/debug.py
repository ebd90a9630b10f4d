"""`spvcoop debug`: run a shader under a gdb-like prompt that reads commands from standard input (a terminal or
a script); the command engine is spvcoop/interp/debugger.py, this module only reads lines and prints replies."""
from __future__ import annotations


import argparse
import sys

COMMANDS, HELP_ORDER = ("debug",), 60  # its commands, its place in --help (cli.py)

PROMPT = "(spvcoop) "


def register(sub: argparse._SubParsersAction) -> None:
    from .run import add_execution_options
    p = sub.add_parser(
        "debug", help="run a compute shader under a debugger (breakpoints, stepping, values per invocation)",
        description="Start SPEC (a run spec, or a shader with --input) under a prompt reading commands from "
                    "standard input: break LINE|FILE:LINE|word N|%%ID [if EXPR], delete, info "
                    "breakpoints|invocations|locals, run, continue, step, next, stepi, finish, invocation N|X,Y,Z, "
                    "print NAME [@all], matrix NAME [--lanes], backtrace, quit. The exit status is the run's "
                    "(0, or 1 for a run-time error or a failed --check).",
        epilog="Example:\n  spvcoop debug samples/debug/run.yaml < samples/debug/session.txt",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_execution_options(p, run_only=True)
    p.add_argument("--check", metavar="EXPECTED.yaml", help="compare the outputs at the end, as `spvcoop run` does")
    p.set_defaults(func=debug_command, output=None, quiet=False, compare=None, rtol=None, atol=None,
                   max_text_values=4_000_000, coverage=None, template=None)


def debug_command(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics
    try:
        return _debug(args)
    except SpvError as e:
        print_diagnostics(e.diagnostics)
        return e.exit_status


def _debug(args: argparse.Namespace) -> int:
    from ..interp.debugger import Debugger
    from .run import _write_outputs, prepare, show_diagnostics
    module, inputs, opts, spec, run_spec, options = prepare(args)
    if opts.get("layout") == "all":
        from ..core.diagnostics import Diagnostic, InputError
        raise InputError(Diagnostic("error", "--layout all runs every model; debug under one (--layout NAME)",
                                    source="<command line>"))
    dbg = Debugger(module, inputs, opts)
    echo = not sys.stdin.isatty()   # a script: show each command after the prompt, as a transcript
    status = 0
    reported = False
    number = 0
    try:
        while True:
            sys.stdout.write(PROMPT)
            sys.stdout.flush()
            line = sys.stdin.readline()
            number += 1
            if not line:
                sys.stdout.write("\n" if not echo else "")
                break
            if echo:
                sys.stdout.write(line if line.endswith("\n") else line + "\n")
            reply = dbg.execute(line)
            sys.stdout.flush()
            if reply.error:   # located in the script: <stdin>:LINE:COL
                where = f"<stdin>:{number}:{len(line) - len(line.lstrip()) + 1}: " if echo else ""
                print(f"{where}{reply.text}", file=sys.stderr, flush=True)
            elif reply.text:
                print(reply.text, flush=True)
            if (dbg.result is not None or dbg.error is not None) and not reported:   # the run ended (not quit)
                reported = True
                status = _finished(dbg, module, spec, run_spec, args, options, show_diagnostics, _write_outputs)
            if line.split()[:1] in (["quit"], ["q"]):
                break
    finally:
        dbg.close()
    return status


def _finished(dbg, module, spec, run_spec, args, options, show_diagnostics, write_outputs) -> int:
    """The end of the run: its warnings, then its error or its outputs (and --check), as `spvcoop run` shows
    them; the run's exit status."""
    from .common import print_diagnostics
    sys.stdout.flush()
    if dbg.error is not None:
        diags = dbg.error.diagnostics
        show_diagnostics([d for d in diags if d.severity != "error"], module)
        print_diagnostics([d for d in diags if d.severity == "error"] or diags)
        return dbg.error.exit_status
    show_diagnostics(dbg.result.diagnostics, module)
    return write_outputs(dbg.result, spec, run_spec, module, args, options)

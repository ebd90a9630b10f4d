"""The `spvcoop` command line: one subcommand per concern, each in its own module.

Each command module exposes `register(subparsers)`, which adds its parser and
sets `func` (args -> exit code). Imports inside the commands stay lazy so that
`spvcoop as` starts fast (numpy is never imported by the assembler).
"""
from __future__ import annotations

import argparse
import gc
import os
import importlib
import sys

# (module, doc) in the order `spvcoop --help` lists them.
COMMAND_MODULES = [
    "spvcoop.commands.asm",
    "spvcoop.commands.dis",
    "spvcoop.commands.val",
    "spvcoop.commands.layout",
    "spvcoop.commands.run",
    "spvcoop.commands.portability",
]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="spvcoop",
        description="SPIR-V cooperative matrices: assemble, disassemble, validate, show layouts, run shaders.",
        epilog="Run 'spvcoop COMMAND --help' for the options of one command.")
    from . import __version__
    p.add_argument("--version", action="version", version=f"spvcoop {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # that command is not built yet
                continue
            raise
        mod.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    # A module is millions of small acyclic objects; the cyclic collector would walk them
    # again and again (it doubled the assembler's time on large modules). Nothing we build
    # needs it, so a command runs without it.
    gc.disable()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("spvcoop: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


def entry() -> None:
    """The console script and `python -m spvcoop`: main(), then a quick exit. Freeing a large
    module object by object at interpreter shutdown took 0.4 s of `spvcoop as` on a
    250,000-instruction module; the process is ending, so the output streams are flushed and
    the rest is left to the operating system. (main() itself returns normally, for callers
    such as tests that run it in-process.)"""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        code = code or 1
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()

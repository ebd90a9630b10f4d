"""The `spvcoop` command line: one subcommand per concern, each in its own module.

Each command module exposes `register(subparsers)`, which adds its parser and
sets `func` (args -> exit code). Imports inside the commands stay lazy so that
`spvcoop as` starts fast (numpy is never imported by the assembler).
"""
from __future__ import annotations

import argparse
import gc
import importlib
import sys

# (module, doc) in the order `spvcoop --help` lists them.
COMMAND_MODULES = [
    "spvcoop.commands.asm",
    "spvcoop.commands.dis",
    "spvcoop.commands.val",
    "spvcoop.commands.layout",
    "spvcoop.commands.run",
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

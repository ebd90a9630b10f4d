"""The `spvcoop` command line: one subcommand per concern, each in its own module.

Each command module exposes `register(subparsers)`, which adds its parser and
sets `func` (args -> exit code), and declares its command names and its place in
`--help` in one line (`COMMANDS, HELP_ORDER = ("val", "lint"), 30`), which this
module reads as text: a new command is one new module. Imports inside the commands
stay lazy so that `spvcoop as` starts fast (numpy is never imported by the assembler).
"""
from __future__ import annotations

import argparse
import gc
import os
import importlib
import re
import sys

from .commands.common import parse_size, print_diagnostics
from .core.diagnostics import SpvError, printable

_DECLARATION = re.compile(r"^COMMANDS, HELP_ORDER = \(((?:\s*\"[a-z]+\",?)+)\), (\d+)", re.M)


def _declared_commands() -> tuple[list[str], dict[str, str]]:
    """(modules in `spvcoop --help` order, command name -> module), from the `COMMANDS, HELP_ORDER = (...), n`
    line each command module writes. Read as text, not imported: a command line imports only the module of the
    command it names (the others pull in numpy, pydantic, the layouts; `spvcoop as` and `--help` start faster).
    tests/cli/test_cli.py checks that the text read here is what each module holds and registers."""
    found = []
    folder = os.path.join(os.path.dirname(__file__), "commands")
    for entry in os.scandir(folder):
        if entry.name.endswith(".py"):
            with open(entry.path, encoding="utf-8") as f:
                m = _DECLARATION.search(f.read(4096))   # the line stands after the imports
            if m:
                names = re.findall(r'"([a-z]+)"', m.group(1))
                found.append((int(m.group(2)), f"spvcoop.commands.{entry.name[:-3]}", names))
    found.sort()
    return [mod for _, mod, _ in found], {name: mod for _, mod, names in found for name in names}


COMMAND_MODULES, COMMAND_NAMES = _declared_commands()
# Examples for the help of parsers whose module gives none ("every --help ends with an example"): keyed by the
# command path. A module's own epilog with "Example" in it is kept (val/lint write theirs beside their flags);
# tests/cli/test_cli_usage.py fails for a parser that has neither.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "": ("spvcoop val shader.spvasm --target-env vulkan1.3", "spvcoop run samples/saxpy/run.yaml"),
    "layout": ("spvcoop layout list", "spvcoop layout show nvidia --component f16 --rows 16 --cols 16 --use a"),
    "layout list": ("spvcoop layout list nvidia tinytc",),
    "layout diff": ("spvcoop layout diff nvidia wmma-sm80 --component f16 --rows 16 --cols 16 --use a",),
    "layout import": ("spvcoop layout import buf2.bin --component f16 --rows 16 --cols 16 --use a -o my-gpu.yaml",),
    "device": ("spvcoop device list", "spvcoop device info 0"),
    "device list": ("spvcoop device list",),
    "numerics": ("spvcoop numerics measure --device vulkan:0 -o my-gpu-numerics.yaml",),
    "numerics fit": ("spvcoop numerics fit tiles.npz -o my-gpu-numerics.yaml",),
}
# global options that take a value (the command name is the first other word)
_VALUE_OPTIONS = ("--max-input-size",)


def chosen_command(argv: list[str]) -> str | None:
    """The module of the command `argv` names; None (no command, an unknown one, or help asked before it: then
    every command is registered, for the full usage); "" for `--version` before any command (none registered:
    the version needs no parser of a command, issue 33's start-up)."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return None
        if a in _VALUE_OPTIONS:
            i += 2
            continue
        if a.startswith("-"):
            if a == "--version":
                return ""
            if a in ("-h", "--help"):
                return None
            i += 1
            continue
        return COMMAND_NAMES.get(a)
    return None


class Parser(argparse.ArgumentParser):
    """argparse with a "did you mean" for a misspelt option, command or choice (exit status 2, as every usage
    error). Subparsers inherit the class (add_subparsers' default parser_class), so each command's own parser
    reports an option it does not know, naming its closest option."""

    def parse_known_args(self, args=None, namespace=None):
        ns, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._suggest(extras)}")
        return ns, extras

    def _suggest(self, extras: list[str]) -> str:
        from .core.diagnostics import did_you_mean
        known = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
        for word in extras:
            if word.startswith("--"):
                hint = did_you_mean(word.split("=", 1)[0], known)
                if hint:
                    return hint
        return ""

    def error(self, message: str):
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if m:
            from .core.diagnostics import did_you_mean
            message += did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
        super().error(printable(message))  # it quotes what was typed


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose, but keeps indented lines (examples) as written, so an epilog's examples stay one a line."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for para in text.split("\n\n"):
            if para.startswith("  ") or "\n  " in para:
                out.append("\n".join(indent + line for line in para.splitlines()))
            else:
                out.append(super()._fill_text(para, width, indent))
        return "\n\n".join(out)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; `only` (a module of COMMAND_NAMES): register just that command ("": none)."""
    p = Parser(
        prog="spvcoop",
        description="SPIR-V cooperative matrices: assemble, disassemble, validate, show layouts, run shaders.",
        epilog="Run 'spvcoop COMMAND --help' for the options of one command.")
    from . import __version__
    p.add_argument("--version", action="version", version=f"spvcoop {__version__}")
    _add_global_options(p, None)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else [only] if only else []:
        importlib.import_module(name).register(sub)  # a misspelt name fails here, loudly
    for path, parser in all_parsers(p):
        if path:   # accepted after the command name too, also after an action (`layout show ... --debug`)
            _add_global_options(parser, argparse.SUPPRESS)
        _end_with_example(parser, path)
    return p


def all_parsers(p: argparse.ArgumentParser, path: str = ""):
    """(command path, parser) for `p` and every subcommand under it: ('', spvcoop), ('layout show', ...)."""
    yield path, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, q in action.choices.items():
                yield from all_parsers(q, f"{path} {name}".strip())


def _end_with_example(p: argparse.ArgumentParser, path: str) -> None:
    """The help ends with its examples, one a line as typed (a module's one-line "Example: ..." included)."""
    epilog = p.epilog or ""
    if "Example" not in epilog and path in EXAMPLES:
        lines = EXAMPLES[path]
        epilog = (epilog + "\n\n" if epilog else "") + ("Examples:" if len(lines) > 1 else "Example:") + \
            "".join(f"\n  {line}" for line in lines)
    p.epilog = re.sub(r"(?m)^(Examples?):[ ]+(\S.*)$", r"\1:\n  \2", epilog) or None
    p.formatter_class = HelpFormatter


def _add_global_options(p: argparse.ArgumentParser, default) -> None:
    p.add_argument("--debug", action="store_true", default=default if default is not None else False,
                   help="on an internal error, show the Python traceback instead of the one-line report")
    p.add_argument("--max-input-size", type=parse_size, metavar="BYTES", default=default,
                   help="largest input file read (default 32M; suffixes K, M, G)")


# Attributes of a parsed command line that name the input being worked on, for the internal-error line.
_INPUT_ATTRS = ("input", "inputs", "spec", "shader", "files", "model")


def _inputs_of(args: argparse.Namespace) -> str:
    for attr in _INPUT_ATTRS:
        value = getattr(args, attr, None)
        if value:
            return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return ""


def internal_error_line(exc: BaseException, args: argparse.Namespace | None = None) -> str:
    """One line for a bug: where in spvcoop it happened and on which input."""
    where = "?"
    import traceback
    for frame in traceback.extract_tb(exc.__traceback__):
        # inside the package itself, not any path with a folder named spvcoop (a clone in ~/spvcoop/ has its
        # tests there too)
        if os.path.abspath(frame.filename).startswith(_PACKAGE_DIR + os.sep):
            where = f"{os.path.relpath(frame.filename, _PACKAGE_ROOT)}:{frame.lineno}"
    what = f"{type(exc).__name__}: {exc}".strip().splitlines()[0] if str(exc) else type(exc).__name__
    inputs = _inputs_of(args) if args is not None else ""
    on = f" while processing {inputs}" if inputs else ""
    return printable(f"spvcoop: internal error at {where} (please report){on}: {what[:300]}")


def out_of_memory_line(exc: MemoryError, args: argparse.Namespace) -> str:
    """One line for running out of memory: where, on which input, and what to change."""
    where = internal_error_line(exc, args).split(" (please report)")[0].removeprefix("spvcoop: internal error at ")
    inputs = _inputs_of(args)
    return (f"{printable(inputs) or 'spvcoop'}: error: not enough memory (at {where}): the input needs more than this "
            "process may use; lower --max-input-size to refuse such inputs at once, or allow more memory")


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_ROOT = os.path.dirname(_PACKAGE_DIR)


EXIT_USAGE = 2  # usage errors, unreadable input, not enough memory
EXIT_INTERNAL_ERROR = 3


def main(argv: list[str] | None = None) -> int:
    """Run one command; exit status 0 (success), 1 (findings), 2 (usage or unreadable input) or
    3 (internal error: a bug in spvcoop, reported in one line; --debug shows the traceback)."""
    parser = build_parser(chosen_command(sys.argv[1:] if argv is None else list(argv)))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from .core import files
    saved_limit = files.max_input_bytes
    if args.max_input_size is not None:
        files.max_input_bytes = args.max_input_size
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("spvcoop: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except SpvError as e:  # a command that did not print its own diagnostics
        print_diagnostics(e.diagnostics)
        return e.exit_status
    except MemoryError as e:
        # the input needs more memory than the process may have (ulimit -v, a container): the user's to change,
        # not a bug. Printed after the handler, once the traceback and with it the input's objects are freed.
        if args.debug:
            import traceback
            traceback.print_exc()
        line = out_of_memory_line(e, args)
    except Exception as e:  # noqa: BLE001 - the last line of defence: a bug, never a traceback
        if args.debug:
            import traceback
            traceback.print_exc()
        print(internal_error_line(e, args), file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    finally:
        files.max_input_bytes = saved_limit
    print(line, file=sys.stderr)
    return EXIT_USAGE


def entry() -> None:
    """The console script and `python -m spvcoop`: main(), then a quick exit. Freeing a large
    module object by object at interpreter shutdown took 0.4 s of `spvcoop as` on a
    250,000-instruction module; the process is ending, so the output streams are flushed and
    the rest is left to the operating system. (main() itself returns normally, for callers
    such as tests that run it in-process.)"""
    # A module is millions of small acyclic objects; the cyclic collector would walk them
    # again and again (it doubled the assembler's time on large modules). Nothing we build
    # needs it, and this process ends after one command, so only the CLI process turns it off
    # (callers of main() in-process keep their collector).
    gc.disable()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        code = code or 1
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()

"""`spvcoop dis`: disassemble a SPIR-V binary into text, identical to spirv-dis."""
from __future__ import annotations


import argparse

COMMANDS, HELP_ORDER = ("dis",), 20  # its commands, its place in --help (cli.py)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "dis", help="disassemble a SPIR-V binary (.spv) into text",
        description="Disassemble a SPIR-V binary. The text is identical to spirv-dis (SPIRV-Tools 2025.5) "
                    "with the same flags: friendly names, indentation and a header comment by default.",
        epilog="Example: spvcoop dis shader.spv -o shader.spvasm")
    p.add_argument("input", help="binary file ('-' for standard input)")
    p.add_argument("-o", dest="output", metavar="FILE", help="output file (default: standard output)")
    p.add_argument("--raw-id", action="store_true", help="print ids as numbers (%%12), not friendly names")
    p.add_argument("--no-header", action="store_true", help="omit the '; SPIR-V' header comment")
    p.add_argument("--no-indent", action="store_true", help="do not align instructions in columns")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..binary.disassembler_fast import disassemble_binary
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics, read_input, write_output
    try:
        text = disassemble_binary(read_input(args.input), args.input, raw_ids=args.raw_id,
                                  header=not args.no_header, indent=not args.no_indent)
        write_output(args.output, text)
    except SpvError as e:
        print_diagnostics(e.diagnostics)
        return e.exit_status
    return 0

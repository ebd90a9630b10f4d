"""`spvcoop as`: assemble SPIR-V text into a binary, byte-identical to spirv-as."""
from __future__ import annotations


import argparse

COMMANDS, HELP_ORDER = ("as",), 10  # its commands, its place in --help (cli.py)


def register(sub: argparse._SubParsersAction) -> None:
    from ..asm.target_envs import TARGET_ENVS
    p = sub.add_parser(
        "as", help="assemble SPIR-V text (.spvasm) into a binary (.spv)",
        description="Assemble SPIR-V assembly text into a binary module. The output is byte-identical "
                    "to spirv-as (SPIRV-Tools 2025.5) given the same flags.",
        epilog="Example: spvcoop as shader.spvasm -o shader.spv --target-env vulkan1.3")
    p.add_argument("input", help="assembly file ('-' for standard input)")
    p.add_argument("-o", dest="output", metavar="FILE",
                   help="output file (default: input name with .spv, or 'out.spv' for stdin; '-' for stdout)")
    p.add_argument("--target-env", default="spv1.6", metavar="ENV", choices=sorted(TARGET_ENVS),
                   help="SPIR-V environment deciding the version word (default spv1.6): "
                        "spv1.0..spv1.6, vulkan1.0..vulkan1.4, opencl*, opengl*")
    p.add_argument("--preserve-numeric-ids", action="store_true",
                   help="keep ids written as %%<number> at that number; others take the lowest free numbers")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics, read_input, write_output
    text = None
    try:
        data = read_input(args.input)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            from ..core.diagnostics import Diagnostic
            raise SpvError(Diagnostic("error", f"input is not UTF-8 text (bad byte at offset {e.start})",
                                      source=args.input)) from None
        from ..asm.assembler import assemble_binary
        binary = assemble_binary(text, args.input, target_env=args.target_env,
                                 preserve_numeric_ids=args.preserve_numeric_ids)
        out = args.output
        if out is None:
            out = "out.spv" if args.input == "-" else _default_output(args.input)
        write_output(out, binary)
    except SpvError as e:
        print_diagnostics(e.diagnostics, text)
        return e.exit_status
    return 0


def _default_output(path: str) -> str:
    base = path[:-len(".spvasm")] if path.endswith(".spvasm") else path
    return base + ".spv"

"""`spvcoop portability SPEC`: the same as `spvcoop run SPEC --layout all` (which outputs depend on the layout)."""
from __future__ import annotations


import argparse

COMMANDS, HELP_ORDER = ("portability",), 80  # its commands, its place in --help (cli.py)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "portability", help="run a cooperative-matrix shader under every layout model and report which outputs "
                            "differ (= spvcoop run SPEC --layout all)",
        description="Run SPEC under every built-in layout model that defines its cooperative-matrix types at "
                    "the subgroup size (and shuffled with 3 seeds); compare every output buffer with the nvidia "
                    "model's. Exit status 0: portable, 1: some output depends on the layout.",
        epilog="Example:\n  spvcoop portability samples/coopmat/nonportable/run.yaml",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from .run import add_execution_options
    add_execution_options(p)
    p.set_defaults(func=_portability)


def _portability(args: argparse.Namespace) -> int:
    from .run import run_command
    full = argparse.Namespace(check=None, check_floats=None, compare_interpreter=False, rtol=None, atol=None,
                              output=None, trace=None, quiet=False, layout="all", **vars(args))
    return run_command(full)

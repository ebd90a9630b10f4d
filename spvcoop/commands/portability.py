"""`spvcoop portability SPEC`: the same as `spvcoop run SPEC --layout all` (which outputs depend on the layout)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "portability", help="run a cooperative-matrix shader under every layout model and report which outputs "
                            "differ (= spvcoop run SPEC --layout all)",
        description="Run SPEC under every built-in layout model that defines its cooperative-matrix types at "
                    "the subgroup size (and shuffled with 3 seeds); compare every output buffer with the nvidia "
                    "model's. Exit status 0: portable, 1: some output depends on the layout.",
        epilog="Example:\n  spvcoop portability samples/coopmat/nonportable/run.yaml",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", help="run spec (.yaml) or shader (.spvasm, .spv, .comp)")
    p.add_argument("--input", metavar="IN.yaml", help="buffer, push- and spec-constant values by name")
    p.add_argument("--dispatch", metavar="X,Y,Z", help="override the dispatch size")
    p.add_argument("--entry-point", metavar="NAME", help="entry point to run")
    p.add_argument("--subgroup-size", type=int, metavar="N", help="subgroup size (default: the spec's, or 32)")
    p.add_argument("--max-steps", type=int, metavar="N", help="stop with an error after N executed instructions")
    p.add_argument("--no-validate", action="store_true", help="run without validating the module first")
    p.add_argument("--coop-numerics", choices=("ieee", "nvidia-tensorcore"), default="ieee",
                   help="cooperative-matrix MulAdd rounding (default ieee)")
    p.set_defaults(func=_portability)


def _portability(args: argparse.Namespace) -> int:
    from .run import run_command
    full = argparse.Namespace(check=None, rtol=1e-5, atol=1e-6, output=None, trace=None, quiet=True, layout="all",
                              **vars(args))
    return run_command(full)

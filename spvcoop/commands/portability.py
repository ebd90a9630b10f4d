"""`spvcoop portability SPEC...`: `spvcoop run SPEC --layout all` for each SPEC (which outputs depend on the
layout or the subgroup size), ending in one verdict line per kernel."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "portability", help="run cooperative-matrix shaders under every layout model and subgroup size and "
                            "report which outputs differ and why (= spvcoop run SPEC --layout all)",
        description="Run each SPEC under every built-in layout model that defines its cooperative-matrix types, "
                    "at the subgroup sizes each model's vendor uses (or at --subgroup-size), and under the "
                    "random model with 3 seeds; compare every output buffer with the nvidia model's at subgroup "
                    "size 32. The report says whether outputs differ because the set of elements each lane "
                    "holds differs or only their order, names size constants (WARP = 32) that disagree with a "
                    "run, and ends with one verdict line per kernel. Exit status 0: all portable, 1: some "
                    "kernel is not, 2: a spec could not be run.",
        epilog="Example:\n  spvcoop portability samples/coopmat/nonportable/run.yaml samples/coopmat/wave64/run.yaml",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from .run import add_execution_options
    add_execution_options(p)
    p.add_argument("more_specs", nargs="*", metavar="SPEC", help="more run specs or shaders, each checked alike")
    p.set_defaults(func=_portability)


def _portability(args: argparse.Namespace) -> int:
    from .run import run_command
    options = {k: v for k, v in vars(args).items() if k != "more_specs"}
    status = 0
    specs = [args.spec, *args.more_specs]
    for n, spec in enumerate(specs):
        if n:
            print(flush=True)
        full = argparse.Namespace(check=None, check_floats=None, compare_interpreter=False, rtol=None, atol=None,
                                  output=None, trace=None, quiet=False, layout="all", **dict(options, spec=spec))
        status = max(status, run_command(full))
    return status

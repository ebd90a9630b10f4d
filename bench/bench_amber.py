"""An Amber script's overhead over the equivalent run spec (issue 35).

    python bench/bench_amber.py                  # 5 runs per case, after a warm-up
    python bench/bench_amber.py --runs 9 --only saxpy64k

Each case is a run spec (samples/saxpy/saxpy.spvasm over n elements) and the Amber script `spvcoop run SPEC
--emit-amber` writes for it (the same shader as SPIR-V assembly, its buffers as DATA, the outputs as EQ_BUFFER
EXPECTs). Timed: the whole `spvcoop run FILE -q` process (wall clock, best of the runs: what a user waits for,
start-up included) and, in-process, reading and running each (CPU time, median): the run spec through
commands/run.prepare and interp.run, the script through runspec/amber.parse and amber_run.run_plan.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES = {"saxpy64": 64, "saxpy64k": 1 << 16}


def write_case(d: Path, n: int) -> tuple[Path, Path]:
    spec = d / f"saxpy{n}.yaml"
    spec.write_text(f"shader: {ROOT / 'samples' / 'saxpy' / 'saxpy.spvasm'}\ndispatch: [{n // 64}, 1, 1]\n"
                    f"push_constants: {{a: 2.0, n: {n}}}\nbuffers:\n  x: {{arange: {n}}}\n"
                    f"  y: {{arange: {n}, dtype: float32}}\n")
    amber = d / f"saxpy{n}.amber"
    subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec), "--allow-outside-files", "--emit-amber",
                    str(amber), "-q", "-f"], check=True, cwd=d)
    return spec, amber


def process_time(path: Path, runs: int) -> float:
    best = float("inf")
    for i in range(runs + 1):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "spvcoop", "run", str(path), "-q", "--allow-outside-files"],
                       check=True, capture_output=True)
        if i:
            best = min(best, time.perf_counter() - t)
    return best


def in_process(spec: Path, amber: Path, runs: int) -> tuple[float, float]:
    import argparse as ap

    from spvcoop.cli import build_parser
    from spvcoop.commands.run import prepare
    from spvcoop.interp import run
    from spvcoop.runspec.amber import parse
    from spvcoop.runspec.amber_run import run_plan
    args: ap.Namespace = build_parser().parse_args(["run", str(spec), "--allow-outside-files"])
    t_spec, t_amber = [], []
    for i in range(runs + 1):
        t = time.process_time()
        module, inputs, opts, *_ = prepare(args)
        run(module, **inputs, **opts)
        if i:
            t_spec.append(time.process_time() - t)
        t = time.process_time()
        out = run_plan(parse(amber.read_text(), str(amber)))
        assert not out.failures
        if i:
            t_amber.append(time.process_time() - t)
    return statistics.median(t_spec), statistics.median(t_amber)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", nargs="+", choices=sorted(CASES))
    args = p.parse_args(argv)
    print(f"{'case':<10} {'process: spec':>14} {'amber':>8} {'ratio':>6}   {'in-process: spec':>17} {'amber':>8} "
          f"{'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or list(CASES):
            spec, amber = write_case(Path(tmp), CASES[name])
            ps, pa = process_time(spec, args.runs), process_time(amber, args.runs)
            cs, ca = in_process(spec, amber, args.runs)
            print(f"{name:<10} {ps:13.3f}s {pa:7.3f}s {pa / ps:5.2f}x   {cs:16.3f}s {ca:7.3f}s {ca / cs:5.2f}x",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

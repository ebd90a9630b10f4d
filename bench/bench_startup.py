"""Start-up: a one-invocation `spvcoop run` against `python -c "import numpy"`, whole processes.

    python bench/bench_startup.py               # 15 pairs, medians
    python bench/bench_startup.py --runs 30 --root /path/to/other/checkout

The two commands run in turn (run, numpy, run, numpy, ...) so that both see the same machine, and the
ratio is taken pair by pair (its median is printed with the medians of each). Cases:
  si-input  samples/saxpy/saxpy.spvasm --dispatch 1,1,1 --input in.yaml (a SPIRV-Interpreter style input
            file: the issue's "1 invocation" row)
  run-spec  the same through a run spec (its pydantic schema is part of the cost)
Wall time and CPU time (user + system of the process and what it waited for: spirv-val runs as a
child during validation) from os.wait4. Python caches the compiled modules (in a temporary PYTHONPYCACHEPREFIX,
PYTHONDONTWRITEBYTECODE unset) as an installed package has them; the first run of each case is a warm-up.

Then the parser's own start (issue 33: under 80 ms on an idle machine): `spvcoop --version`, `--help`,
`run --help` and a usage error, each in turn with `python -c pass` (Python's own start), medians in ms.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "samples" / "saxpy" / "saxpy.spvasm"


def measure(cmd: list[str], env: dict, cwd, ok=(0,)) -> tuple[float, float]:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) not in ok:
        raise SystemExit(f"{' '.join(cmd)}: exit {os.waitstatus_to_exitcode(status)}")
    return wall, ru.ru_utime + ru.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--root", default=str(ROOT), help="the spvcoop checkout to time (PYTHONPATH)")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(Path(args.root).resolve()))
    numpy = [sys.executable, "-c", "import numpy"]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        # compiled modules cached as an installed package has them (pip compiles on install): without this, an
        # environment with PYTHONDONTWRITEBYTECODE=1 times Python compiling spvcoop's sources at every start
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(d / "pycache")
        (d / "in.yaml").write_text("pc: {a: 2.0, n: 1}\nx: [1.0]\ny: [1.0]\n")
        (d / "saxpy.spvasm").write_bytes(SAXPY.read_bytes())
        (d / "spec.yaml").write_text("shader: saxpy.spvasm\ndispatch: [1, 1, 1]\npush_constants: {a: 2.0, n: 1}\n"
                                     "buffers:\n  x: {data: [1.0], dtype: float32}\n"
                                     "  y: {data: [1.0], dtype: float32}\n"
                                     "outputs: [y]\n")
        run = [sys.executable, "-m", "spvcoop", "run"]
        cases = {"si-input": run + ["saxpy.spvasm", "--dispatch", "1,1,1", "--input", "in.yaml"],
                 "run-spec": run + ["spec.yaml"]}
        print(f"spvcoop from {env['PYTHONPATH']}; medians of {args.runs} pairs")
        print(f"{'case':<9} {'run wall':>9} {'numpy wall':>11} {'ratio wall':>11} {'ratio cpu':>10}")
        for name, cmd in cases.items():
            measure(cmd, env, d)   # warm-up (and the grammar cache)
            pairs = [(measure(cmd, env, d), measure(numpy, env, d)) for _ in range(args.runs)]
            rw = statistics.median(a[0] / b[0] for a, b in pairs)
            rc = statistics.median(a[1] / b[1] for a, b in pairs)
            print(f"{name:<9} {statistics.median(a[0] for a, _ in pairs):>9.3f} "
                  f"{statistics.median(b[0] for _, b in pairs):>11.3f} {rw:>10.2f}x {rc:>9.2f}x", flush=True)
        bare = [sys.executable, "-c", "pass"]
        spv = [sys.executable, "-m", "spvcoop"]
        parser_cases = {"--version": spv + ["--version"], "--help": spv + ["--help"],
                        "run --help": spv + ["run", "--help"], "usage error": spv + ["run", "--no-such-flag"]}
        print(f"{'parser only':<12} {'wall ms':>8} {'python -c pass ms':>18}")
        for name, cmd in parser_cases.items():
            measure(cmd, env, d, ok=(0, 2))
            pairs = [(measure(cmd, env, d, ok=(0, 2)), measure(bare, env, d)) for _ in range(args.runs)]
            print(f"{name:<12} {statistics.median(a[0] for a, _ in pairs) * 1000:>8.0f} "
                  f"{statistics.median(b[0] for _, b in pairs) * 1000:>18.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

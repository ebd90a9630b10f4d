"""Loop-heavy shaders: the interpreter's cost per executed instruction, with and without compiled blocks.

    python bench/bench_loops.py                      # per-instruction cost, and tiled vs wide GEMM 256^3
    python bench/bench_loops.py --sizes 32 64 --whole 0
    python bench/bench_loops.py --root /path/to/other/checkout   # before/after

1. In-process, one small dispatch: run() time / executed instructions, with the fast path
   (interp/block_compiler.py) and without it (SPVCOOP_NO_FAST_PATHS=1), in turn, CPU time, medians of --runs, for
   bench/shaders/int_loop.spvasm (one invocation, 2000 iterations of scalar integer arithmetic) and
   bench/shaders/gemm_tiled.spvasm (one workgroup of one subgroup looping over every 16x16 tile of C,
   K loop inside) at the --sizes. --root times another checkout (its own run(), this script's shaders).
2. Whole processes (`spvcoop run SPEC -o DIR/`, .npy in and out): the tile-looping GEMM n^3 against the
   same product over (n/16)^2 workgroups (samples/coopmat/khr_gemm/gemm.spvasm); outputs compared.
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TILED = ROOT / "bench" / "shaders" / "gemm_tiled.spvasm"
INT_LOOP = ROOT / "bench" / "shaders" / "int_loop.spvasm"
DISABLE_ENV = "SPVCOOP_NO_FAST_PATHS"
WIDE = ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm"


def per_instruction(shader: Path, kw: dict, runs: int) -> tuple[list[float], list[float], int]:
    """CPU microseconds per executed instruction of each run, fast and plain in turn (fast, plain, steps)."""
    from spvcoop.interp import run
    from spvcoop.loader import load_shader
    module = load_shader(str(shader))
    out: dict = {True: [], False: []}
    steps = 0
    for i in range(runs + 1):   # the first pair warms caches up and is not counted
        for fast in (True, False):
            if fast:
                os.environ.pop(DISABLE_ENV, None)
            else:
                os.environ[DISABLE_ENV] = "1"
            t = time.process_time()
            res = run(module, max_steps=10_000_000,
                      **{k: (dict(v) if isinstance(v, dict) else v) for k, v in kw.items()})
            if i:
                out[fast].append((time.process_time() - t) / res.steps * 1e6)
            steps = res.steps
    os.environ.pop(DISABLE_ENV, None)
    return out[True], out[False], steps


def gemm_case(n: int) -> dict:
    rng = np.random.default_rng(1)
    return dict(dispatch=(1, 1, 1), spec_constants={0: n, 1: n, 2: n},
                buffers={"a": rng.standard_normal((n, n)).astype(np.float16),
                         "b": rng.standard_normal((n, n)).astype(np.float16),
                         "c0": rng.standard_normal((n, n)).astype(np.float32), "c": np.zeros(n * n, np.float32)})


def write_specs(d: Path, n: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(n)
    np.save(d / "a.npy", rng.standard_normal((n, n)).astype(np.float16))
    np.save(d / "b.npy", rng.standard_normal((n, n)).astype(np.float16))
    np.save(d / "c0.npy", rng.standard_normal((n, n)).astype(np.float32))
    (d / "tiled.spvasm").write_bytes(TILED.read_bytes())
    (d / "wide.spvasm").write_bytes(WIDE.read_bytes())
    bufs = f"buffers:\n  a: {{file: a.npy}}\n  b: {{file: b.npy}}\n  c0: {{file: c0.npy}}\n" \
           f"  c: {{zeros: {n * n}, dtype: float32}}\noutputs: [c]\n"
    (d / "tiled.yaml").write_text(f"shader: tiled.spvasm\ndispatch: [1, 1, 1]\nspec_constants: {{0: {n}, 1: {n}, "
                                  f"2: {n}}}\nmax_steps: 10000000\n" + bufs)
    (d / "wide.yaml").write_text(f"shader: wide.spvasm\ndispatch: [{n // 16}, {n // 16}, 1]\n"
                                 f"spec_constants: {{0: {n}, 1: {n}}}\n" + bufs)
    return d / "tiled.yaml", d / "wide.yaml"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[64])
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--whole", type=int, default=256, help="n of the whole-process comparison (0: skip)")
    ap.add_argument("--root", default=str(ROOT), help="the spvcoop checkout to time (before/after)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.root).resolve()))
    cases = [("int_loop x2000", INT_LOOP, dict(dispatch=(1, 1, 1), spec_constants={0: 2000},
                                               buffers={"0:0": np.zeros(2, np.uint32)}))]
    cases += [(f"gemm_tiled {n}^3", TILED, gemm_case(n)) for n in args.sizes]
    print(f"{'case':<16} {'steps':>7} {'fast: us/step':>14} {'plain: us/step':>15} {'plain/fast':>10}   "
          f"(CPU time, medians of {args.runs} runs in turn)")
    for name, shader, kw in cases:
        tf, tp, steps = per_instruction(shader, kw, args.runs)
        ratio = statistics.median(p / f for f, p in zip(tf, tp, strict=False))
        print(f"{name:<16} {steps:>7} {statistics.median(tf):>14.1f} {statistics.median(tp):>15.1f} {ratio:>10.2f}",
              flush=True)
    if args.whole:
        env = dict(os.environ, PYTHONPATH=str(Path(args.root).resolve()))
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            tiled, wide = write_specs(d, args.whole)
            times = {}
            for name, spec in (("tiled", tiled), ("wide", wide)):
                best = 1e9
                for _ in range(min(args.runs, 3)):
                    t = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec), "-o", str(d / name) + "/"],
                                   env=env, check=True, cwd=d)
                    best = min(best, time.perf_counter() - t)
                times[name] = best
            same = np.array_equal(np.load(d / "tiled" / "c.npy"), np.load(d / "wide" / "c.npy"))
            print(f"GEMM {args.whole}^3 whole process: tile-looping {times['tiled']:.2f} s, "
                  f"{(args.whole // 16) ** 2} workgroups {times['wide']:.2f} s, ratio "
                  f"{times['tiled'] / times['wide']:.2f}x, outputs {'identical' if same else 'DIFFER'}")
            return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

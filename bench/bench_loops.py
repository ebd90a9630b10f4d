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
   same product over (n/16)^2 workgroups (samples/coopmat/khr_gemm/gemm.spvasm), in turn (tiled, wide, tiled,
   ...) after a warm-up pair, wall and CPU time (os.wait4: the process and spirv-val, its child), the ratio
   taken pair by pair, medians; outputs compared.
3. --ops: the cooperative-matrix ops of the tile-looping GEMM (--whole's n), microseconds per call inside one
   run() (each op wrapped in a timer: its ~0.1 us are included), races on and off.
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


def _process(argv: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole process (CPU: user + system of it and its children, from wait4)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def whole_processes(n: int, pairs: int, root: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(root))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        tiled, wide = write_specs(d, n)
        runs: dict = {"tiled": [], "wide": []}
        for i in range(pairs + 1):   # the first pair warms the caches up and is not counted
            for name, spec in (("tiled", tiled), ("wide", wide)):
                got = _process([sys.executable, "-m", "spvcoop", "run", str(spec), "-o", str(d / name) + "/"], env, d)
                if i:
                    runs[name].append(got)
        same = np.array_equal(np.load(d / "tiled" / "c.npy"), np.load(d / "wide" / "c.npy"))
    med = statistics.median
    for k, what in ((0, "wall"), (1, "CPU")):
        t, w = [r[k] for r in runs["tiled"]], [r[k] for r in runs["wide"]]
        ratios = [a / b for a, b in zip(t, w, strict=True)]
        print(f"GEMM {n}^3 whole process, {what}: tile-looping {med(t):.3f} s, {(n // 16) ** 2} workgroups "
              f"{med(w):.3f} s, ratio {med(ratios):.2f}x (pairs {min(ratios):.2f}-{max(ratios):.2f}, medians of "
              f"{pairs})")
    print(f"outputs {'identical' if same else 'DIFFER'}")
    return 0 if same else 1


def per_op(n: int, runs: int) -> None:
    """Microseconds per call of the tile loop's access chains, matrix loads and MulAdds inside run()."""
    from spvcoop.interp import executor, run
    from spvcoop.loader import load_shader
    module = load_shader(str(TILED))
    timed = ("OpAccessChain", "OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixMulAddKHR")
    spent: dict = {}
    init = executor.Executor.__init__

    def timing_init(self, *a, **kw):
        init(self, *a, **kw)
        ops = dict(self.ops)
        for name in timed:
            fn = ops[name]

            def timer(*args, _fn=fn, _name=name):
                t = time.perf_counter()
                try:
                    return _fn(*args)
                finally:
                    spent[_name][0] += time.perf_counter() - t
                    spent[_name][1] += 1
            ops[name] = timer
        self.ops = ops
    executor.Executor.__init__ = timing_init   # type: ignore[method-assign]
    try:
        print(f"{'op':<30} {'calls':>6} {'races on: us/call':>18} {'races off: us/call':>19}   (medians of {runs})")
        per: dict = {name: {True: [], False: []} for name in timed}
        for i in range(runs + 1):
            for races in (True, False):
                spent.clear()
                spent.update({name: [0.0, 0] for name in timed})
                run(module, max_steps=10_000_000, races=races,
                    **{k: (dict(v) if isinstance(v, dict) else v) for k, v in gemm_case(n).items()})
                if i:
                    for name in timed:
                        per[name][races].append((spent[name][0] / max(spent[name][1], 1) * 1e6, spent[name][1]))
        for name in timed:
            on, off = per[name][True], per[name][False]
            print(f"{name:<30} {on[0][1]:>6} {statistics.median(x for x, _ in on):>18.2f} "
                  f"{statistics.median(x for x, _ in off):>19.2f}")
    finally:
        executor.Executor.__init__ = init   # type: ignore[method-assign]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[64])
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--whole", type=int, default=256, help="n of the whole-process comparison (0: skip)")
    ap.add_argument("--pairs", type=int, default=9, help="whole-process pairs (tiled, wide) in turn")
    ap.add_argument("--ops", action="store_true", help="only the tile loop's ops, us per call (n = --whole)")
    ap.add_argument("--root", default=str(ROOT), help="the spvcoop checkout to time (before/after)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.root).resolve()))
    if args.ops:
        per_op(args.whole or 256, args.runs)
        return 0
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
        return whole_processes(args.whole, args.pairs, Path(args.root).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""IEEE vs bit-exact (nvidia-tensorcore) MulAdd numerics on the GEMM benchmark, in the same process.

    python bench/bench_numerics.py                   # sizes 256 512, best of 3, modes interleaved
    python bench/bench_numerics.py --sizes 512 --runs 5

The shader and dispatch are bench_coopmat.py's (samples/coopmat/khr_gemm: KHR, f16 inputs, f32 accumulator,
16x16x16 tiles, one subgroup per output tile, K loop), read from its .spvasm so no GLSL compiler is needed.
Reported: interp.run() time per mode (validation off, module loaded once) and the ratio.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    from spvcoop.interp import run
    from spvcoop.loader import load_module
    mod = load_module(str(ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm"))
    print(f"{'n^3':>6} {'ieee run()':>11} {'tensorcore run()':>17} {'ratio':>6}")
    for n in args.sizes:
        rng = np.random.default_rng(n)
        bufs = {"a": rng.standard_normal((n, n)).astype(np.float16),
                "b": rng.standard_normal((n, n)).astype(np.float16),
                "c0": np.zeros(n * n, np.float32), "c": np.zeros(n * n, np.float32)}
        best = {"ieee": float("inf"), "nvidia-tensorcore": float("inf")}
        for _ in range(args.runs):
            for mode in best:   # interleaved: both modes see the same machine load
                t = time.perf_counter()
                run(mod, dispatch=(n // 16, n // 16, 1), buffers=bufs, spec_constants={0: n, 1: n}, layout="nvidia",
                    validate=False, coop_numerics=mode)
                best[mode] = min(best[mode], time.perf_counter() - t)
        print(f"{n:>6} {best['ieee']:>10.3f}s {best['nvidia-tensorcore']:>16.3f}s "
              f"{best['nvidia-tensorcore'] / best['ieee']:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

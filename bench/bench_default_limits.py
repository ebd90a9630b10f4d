"""Issue 22: the loop GEMM (bench/shaders/gemm_tiled.spvasm: one subgroup loops over every 16x16 tile of C)
under the default run options (a 60 s time limit, no step limit), at sizes too slow for CI (the 256^3 case is
tests/interp/test_default_limits.py). Prints steps and wall seconds per size; checks the product against numpy.

    python bench/bench_default_limits.py            # 256 and 512
    python bench/bench_default_limits.py --sizes 512
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

TILED = Path(__file__).resolve().parent / "shaders" / "gemm_tiled.spvasm"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    args = ap.parse_args(argv)
    from spvcoop.interp import run
    for n in args.sizes:
        rng = np.random.default_rng(n)
        a = rng.standard_normal((n, n)).astype(np.float16)
        b = rng.standard_normal((n, n)).astype(np.float16)
        c0 = rng.standard_normal((n, n)).astype(np.float32)
        t = time.perf_counter()
        res = run(str(TILED), spec_constants={0: n, 1: n, 2: n},
                  buffers={"a": a, "b": b, "c0": c0, "c": np.zeros(n * n, np.float32)})
        wall = time.perf_counter() - t
        err = float(np.abs(res["c"].reshape(n, n) - (a.astype(np.float32) @ b.astype(np.float32) + c0)).max())
        print(f"loop GEMM {n}^3: {res.steps:,} steps, {wall:.1f} s wall, max |error| {err:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

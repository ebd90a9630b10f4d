"""Interpreter benchmark: saxpy and a shared-memory reduction over up to 2^20 invocations.

    python bench/bench_interp.py [--max-log2 20] [--repeat 3]

Prints, per dispatch size, the best wall time of `spvcoop.interp.run` (compilation excluded:
the shader is compiled once), invocations per second, the number of instructions the
interpreter executed (Python-level steps, which should not grow with the dispatch) and the
time relative to the smallest dispatch.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spvcoop.interp import compile_glsl, run  # noqa: E402

GLSL = ROOT / "tests" / "glsl" / "interp"


def bench_saxpy(module, n: int):
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.ones(n, np.float32)
    t = time.perf_counter()
    r = run(module, dispatch=(n // 64, 1, 1), buffers={(0, 0): x, (0, 1): y}, push_constants={"a": 2.0, "n": n})
    dt = time.perf_counter() - t
    assert np.array_equal(r[(0, 1)], np.float32(2) * x + y)
    return dt, r.steps


def bench_reduce(module, n: int):
    data = (np.arange(n) % 13).astype(np.float32)
    t = time.perf_counter()
    r = run(module, dispatch=(n // 128, 1, 1), buffers={(0, 0): data, (0, 1): np.zeros(n // 128, np.float32)})
    dt = time.perf_counter() - t
    assert np.allclose(r[(0, 1)], data.reshape(-1, 128).sum(axis=1))
    return dt, r.steps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-log2", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cases = [("saxpy", compile_glsl(str(GLSL / "saxpy.comp")), bench_saxpy),
             ("shared-memory reduction", compile_glsl(str(GLSL / "reduce_shared.comp")), bench_reduce)]
    for name, module, fn in cases:
        print(f"\n{name}")
        print(f"{'invocations':>12} {'time (ms)':>10} {'invocations/s':>14} {'steps':>6} {'x smallest':>10}")
        base = None
        for lg in range(10, args.max_log2 + 1, 2):
            n = 1 << lg
            best, steps = min(fn(module, n) for _ in range(args.repeat))
            base = base or best
            print(f"{n:>12} {best * 1e3:>10.2f} {n / best:>14.3g} {steps:>6} {best / base:>10.1f}")


if __name__ == "__main__":
    main()

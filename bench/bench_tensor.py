"""Real kernels at real sizes (issue 26): coopmat2 tensor-layout GEMMs and the KHR GEMMs at n^3, in one process,
against numpy's f32 matmul of the same operands.

    python bench/bench_tensor.py                       # n = 1024, best of 3
    python bench/bench_tensor.py --sizes 1024 1000 --runs 5 --only wg,cm2
    SPVCOOP_NO_FAST_TENSOR=1 python bench/bench_tensor.py   # the plain (per-element) tensor addressing

Cases (shaders in bench/shaders, compiled by glslang 16.5; each header says how):
- `wg`: wg_tensor_gemm64.spv, Workgroup-scope tensor-layout GEMM, 64 x 64 tiles, K step 32, 128 invocations,
  clamp mode Constant on every load and the store (n not a multiple of 64: edge tiles);
- `cm2`: mul_mm_cm2_style_opt.spv (`spirv-opt -O`), our own kernel in the style of ggml's mul_mm_cm2: B^T through
  a transposed view, unclamped layouts for interior tiles and clamped ones at the edges;
- `khr`: samples/coopmat/khr_gemm/gemm.spvasm, KHR 16x16x16, one subgroup per tile, (n/16)^2 workgroups;
- `tiled`: bench/shaders/gemm_tiled.spvasm, the same product by one subgroup looping over every tile.
Each result is checked against numpy (f16 products are exact in f32; sums in another order: rtol 1e-4).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SH = ROOT / "bench" / "shaders"


def best(fn, runs: int) -> tuple[float, float, object]:
    """(best wall time, best CPU time, the last result)."""
    t_best = c_best = 1e9
    out = None
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t)
        c_best = min(c_best, time.process_time() - c)
    return t_best, c_best, out


def cases(n: int, which: set[str]):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n)).astype(np.float16)
    B = rng.standard_normal((n, n)).astype(np.float16)
    C0 = np.zeros((n, n), np.float32)
    ref = A.astype(np.float32) @ B.astype(np.float32)
    t = (n + 63) // 64
    sc = {0: n, 1: n, 2: n}
    if "wg" in which:
        yield "wg", SH / "wg_tensor_gemm64.spv", dict(dispatch=(t, t, 1), spec_constants=sc, buffers={
            "a": A, "b": B, "d": np.zeros(n * n, np.float32)}), "d", ref
    if "cm2" in which:
        yield "cm2", SH / "mul_mm_cm2_style_opt.spv", dict(dispatch=(t, t, 1), spec_constants=sc, buffers={
            "a": A, "b": np.ascontiguousarray(B.T), "d": np.zeros(n * n, np.float32)}), "d", ref
    if n % 16 == 0 and "khr" in which:
        yield "khr", ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm", dict(
            dispatch=(n // 16, n // 16, 1), spec_constants={0: n, 1: n}, buffers={
                "a": A, "b": B, "c0": C0, "c": np.zeros(n * n, np.float32)}), "c", ref
    if n % 16 == 0 and "tiled" in which:
        yield "tiled", SH / "gemm_tiled.spvasm", dict(dispatch=(1, 1, 1), spec_constants=sc, max_steps=100_000_000,
                                                      buffers={"a": A, "b": B, "c0": C0,
                                                               "c": np.zeros(n * n, np.float32)}), "c", ref


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="wg,cm2,khr,tiled")
    ap.add_argument("--root", default=str(ROOT), help="the spvcoop checkout to time (before/after)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.root).resolve()))
    from spvcoop.interp import run
    from spvcoop.loader import load_shader
    ok = True
    for n in args.sizes:
        rng = np.random.default_rng(0)
        x, y = rng.standard_normal((2, n, n)).astype(np.float32)
        t_np, c_np, _ = best(lambda: x @ y, max(args.runs, 20))   # noqa: B023 (called at once)
        print(f"n = {n}: numpy f32 matmul {t_np * 1e3:.1f} ms (CPU {c_np * 1e3:.1f} ms)", flush=True)
        for name, shader, kw, out, ref in cases(n, set(args.only.split(","))):
            module = load_shader(str(shader))
            t, c, res = best(lambda: run(module, **kw), args.runs)   # noqa: B023 (called at once)
            got = np.asarray(res.buffers[out]).view(np.float32).reshape(n, n)  # type: ignore[attr-defined]
            good = np.allclose(got, ref, rtol=1e-4, atol=1e-3)
            ok &= good
            print(f"  {name:<6} {t:7.3f} s (CPU {c:.3f} s)  {t / t_np:7.1f}x numpy  {'ok' if good else 'WRONG'}",
                  flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Cooperative-matrix GEMM in the interpreter: whole `spvcoop run` processes and time per MulAdd vs dispatch size.

    python bench/bench_coopmat.py                     # sizes 64 128 256 512, best of 3
    python bench/bench_coopmat.py --sizes 256 512 --runs 5 --json out.json

Shader: samples/coopmat/khr_gemm/gemm.comp (KHR, f16 inputs, f32 accumulator, 16x16x16 tiles, one subgroup
of 32 per 16x16 output tile, K loop), compiled once to SPIR-V with glslang so the timings are the
interpreter's. For C = A x B with n x n x n, the dispatch is (n/16, n/16) workgroups and the shader executes
(n/16)^3 MulAdds (one per subgroup per K step), all subgroups together in (n/16) batched steps.
Reported next to numpy alone doing the same product (f16 -> f32 matmul).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHADER = ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.comp"


def compile_shader(out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from spvcoop.core.reference_tools import require_tool
    require_tool("glslangValidator").run(*["-V", "--target-env", "vulkan1.3", str(SHADER), "-o", str(out)],
                   check=True)


def write_case(d: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n)).astype(np.float16)
    B = rng.standard_normal((n, n)).astype(np.float16)
    np.save(d / f"a{n}.npy", A)
    np.save(d / f"b{n}.npy", B)
    (d / f"run{n}.yaml").write_text(
        f"shader: gemm.spv\ndispatch: [{n // 16}, {n // 16}, 1]\nspec_constants: {{0: {n}, 1: {n}}}\n"
        f"buffers:\n  a: {{file: a{n}.npy}}\n  b: {{file: b{n}.npy}}\n  c0: {{zeros: {n * n}, dtype: float32}}\n"
        f"  c: {{zeros: {n * n}, dtype: float32}}\noutputs: [c]\n")
    return A, B


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 128, 256, 512])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    rows = []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        compile_shader(d / "gemm.spv")
        empty = best(lambda: subprocess.run([sys.executable, "-c", "import spvcoop.cli"], env=env, check=True),
                     args.runs)
        for n in args.sizes:
            A, B = write_case(d, n)
            out = d / f"c{n}.npy"
            cmd = [sys.executable, "-m", "spvcoop", "run", str(d / f"run{n}.yaml"), "-q", "-o", str(out)]
            proc = best(lambda cmd=cmd: subprocess.run(cmd, env=env, check=True), args.runs)
            C = np.load(out) if out.exists() else None
            if C is None:  # -q prints nothing: run once more writing the output
                subprocess.run(cmd[:-3] + ["-o", str(out)], env=env, check=True)
                C = np.load(out)
            want = A.astype(np.float32) @ B.astype(np.float32)
            err = float(np.max(np.abs(C.reshape(n, n) - want)) / max(1.0, float(np.max(np.abs(want)))))
            # in-process: the interpreter alone (module already loaded)
            sys.path.insert(0, str(ROOT))
            from spvcoop.interp import run
            from spvcoop.loader import load_module
            mod = load_module(str(d / "gemm.spv"))
            bufs = {"a": A, "b": B, "c0": np.zeros(n * n, np.float32), "c": np.zeros(n * n, np.float32)}
            inproc = best(lambda mod=mod, n=n, bufs=bufs: run(mod, dispatch=(n // 16, n // 16, 1), buffers=bufs,
                                                              spec_constants={0: n, 1: n}, layout="nvidia",
                                                              validate=False), args.runs)
            A32, B32 = A.astype(np.float32), B.astype(np.float32)
            np_time = best(lambda A=A, B=B: A.astype(np.float32) @ B.astype(np.float32), max(args.runs, 5))
            np_only = best(lambda A32=A32, B32=B32: A32 @ B32, max(args.runs, 5))
            muladds = (n // 16) ** 3
            rows.append({"n": n, "workgroups": (n // 16) ** 2, "muladds": muladds, "process_s": proc,
                         "interp_s": inproc, "us_per_muladd": inproc / muladds * 1e6, "numpy_s": np_time,
                         "numpy_matmul_only_s": np_only, "max_rel_err": err})
        print(f"python -c 'import spvcoop.cli' (process start): {empty:.3f} s")
    print(f"{'n^3':>6} {'workgroups':>10} {'MulAdds':>8} {'spvcoop run':>12} {'run() only':>11} {'us/MulAdd':>10} "
          f"{'numpy f16->f32':>15} {'max rel err':>11}")
    for r in rows:
        print(f"{r['n']:>6} {r['workgroups']:>10} {r['muladds']:>8} {r['process_s']:>10.3f} s {r['interp_s']:>9.3f} s "
              f"{r['us_per_muladd']:>10.2f} {r['numpy_s'] * 1e3:>12.3f} ms {r['max_rel_err']:>11.1e}")
    if args.json:
        Path(args.json).write_text(json.dumps({"process_start_s": empty, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

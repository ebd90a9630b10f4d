"""The race detector's cost (issue 23: at most 1.3x): the same runs with races on (the default) and off.

    python bench/bench_races.py                 # 5 pairs per case, after a warm-up pair
    python bench/bench_races.py --runs 9 --only saxpy
    python bench/bench_races.py --root /path/to/checkout/before   # that checkout's run() (no races option)

In-process `spvcoop.interp.run`, CPU time (process_time), on and off in turn; prints per case the median of
the pair-by-pair ratios (on / off), the median times and the ratio of the fastest runs (the least disturbed
by other jobs on a shared machine). Cases: the whole-dispatch KHR GEMM 1024^3
(samples/coopmat/khr_gemm/gemm.spvasm, 64 x 64 workgroups), the tile-looping GEMM 256^3 (one subgroup,
bench/shaders/gemm_tiled.spvasm) and saxpy over 2^20 invocations (tests/glsl/interp/saxpy.comp); also the
shared-memory reduction over 2^20 (tests/glsl/interp/reduce_shared.comp: workgroup memory and barriers); issue 37:
tests/kernels' mul_mm (without a layout, and under --layout nvidia), ncnn_gemm and flash_attn under nvidia, whose
matrices staged in shared memory are then recorded per invocation as the layout spreads them.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CODE = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--root=")), str(ROOT))
sys.path.insert(0, CODE)

from spvcoop.interp import compile_glsl, run  # noqa: E402
from spvcoop.loader import load_shader  # noqa: E402


def gemm(n: int, tiled: bool) -> tuple:
    rng = np.random.default_rng(n)
    bufs = {"a": rng.standard_normal((n, n)).astype(np.float16), "b": rng.standard_normal((n, n)).astype(np.float16),
            "c0": rng.standard_normal((n, n)).astype(np.float32), "c": np.zeros(n * n, np.float32)}
    if tiled:
        return (load_shader(str(ROOT / "bench" / "shaders" / "gemm_tiled.spvasm")),
                dict(dispatch=(1, 1, 1), spec_constants={0: n, 1: n, 2: n}, buffers=bufs, max_steps=10_000_000))
    return (load_shader(str(ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm")),
            dict(dispatch=(n // 16, n // 16, 1), spec_constants={0: n, 1: n}, buffers=bufs))


def saxpy(n: int) -> tuple:
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    return (compile_glsl(str(ROOT / "tests" / "glsl" / "interp" / "saxpy.comp")),
            dict(dispatch=(n // 64, 1, 1), buffers={(0, 0): x, (0, 1): np.ones(n, np.float32)},
                 push_constants={"a": 2.0, "n": n}))


def reduce(n: int) -> tuple:
    """Not one of issue 23's three: a shared-memory tree reduction, a barrier per level (bench_interp.py's)."""
    data = (np.arange(n) % 13).astype(np.float32)
    return (compile_glsl(str(ROOT / "tests" / "glsl" / "interp" / "reduce_shared.comp")),
            dict(dispatch=(n // 128, 1, 1), buffers={(0, 0): data, (0, 1): np.zeros(n // 128, np.float32)}))


def kernel(name: str, layout: str | None) -> tuple:
    """Issue 37: a kernel of tests/kernels/ from its run spec (buffers from `file:` and `zeros:` entries), under a
    named layout model: its Workgroup-memory matrix loads and stores are then recorded lane by lane."""
    import yaml
    spec = ROOT / "tests" / "kernels" / name
    d = yaml.safe_load(spec.read_text())
    bufs = {}
    for k, e in d["buffers"].items():
        bufs[k] = np.load(spec.parent / e["file"]) if "file" in e else np.zeros(e["zeros"], e.get("dtype", "float32"))
    kw = dict(dispatch=tuple(d.get("dispatch", (1, 1, 1))), buffers=bufs, spec_constants=d.get("spec_constants"),
              push_constants=d.get("push_constants"))
    if layout:
        kw["layout"] = layout
    return load_shader(str(spec.parent / d["shader"])), kw


CASES = {"gemm1024": lambda: gemm(1024, False), "tiled256": lambda: gemm(256, True), "saxpy": lambda: saxpy(1 << 20),
         "reduce": lambda: reduce(1 << 20),
         "mul_mm": lambda: kernel("mul_mm/run_q4_0_f32acc.yaml", None),
         "mul_mm_nv": lambda: kernel("mul_mm/run_q4_0_f32acc.yaml", "nvidia"),
         "ncnn_nv": lambda: kernel("ncnn_gemm/run_khr.yaml", "nvidia"),
         "flash_nv": lambda: kernel("flash_attn/run_flash_attn.yaml", "nvidia")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", nargs="+", choices=sorted(CASES))
    ap.add_argument("--root", help="time this checkout's run() instead, once per round (give it as --root=PATH)")
    args = ap.parse_args(argv)
    for name in args.only or list(CASES):
        module, kw = CASES[name]()
        if args.root:
            t0 = []
            for i in range(args.runs + 1):
                t = time.process_time()
                run(module, **{k: (dict(v) if isinstance(v, dict) else v) for k, v in kw.items()})
                if i:
                    t0.append(time.process_time() - t)
            print(f"{name:<10} {args.root}: {statistics.median(t0):7.3f} s (median of {args.runs})", flush=True)
            continue
        times: dict[bool, list[float]] = {True: [], False: []}
        outs = {}
        for i in range(args.runs + 1):   # the first pair warms caches up and is not counted
            for races in (True, False):
                t = time.process_time()
                res = run(module, races=races, **{k: (dict(v) if isinstance(v, dict) else v) for k, v in kw.items()})
                if i:
                    times[races].append(time.process_time() - t)
                outs[races] = res
        same = all(np.array_equal(outs[True].buffers[k], outs[False].buffers[k]) for k in outs[False].buffers)
        ratio = statistics.median(a / b for a, b in zip(times[True], times[False], strict=True))
        pairs = ", ".join(f"{a / b:.2f}" for a, b in zip(times[True], times[False], strict=True))
        on, off = statistics.median(times[True]), statistics.median(times[False])
        print(f"{name:<10} races on {on:7.3f} s  off {off:7.3f} s  ratio {ratio:.3f}x, of the fastest "
              f"{min(times[True]) / min(times[False]):.3f}x (pairs: {pairs})  "
              f"outputs {'identical' if same else 'DIFFER'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

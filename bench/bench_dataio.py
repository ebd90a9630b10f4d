"""Data I/O of `spvcoop run`: whole processes reading and writing long numeric lists in YAML and JSON.

    python bench/bench_dataio.py                 # every case, best of 1
    python bench/bench_dataio.py --runs 3 --cases saxpy-yaml saxpy-check

Cases (each a fresh `python -m spvcoop run ...` process; wall time and peak resident memory of that
process, from os.wait4's rusage):
  saxpy-yaml    samples/saxpy/saxpy.spvasm over 2^20 floats, SPIRV-Interpreter-style input file
                (x, y as flow lists, pc: {a, n}) and YAML output (-o out.yaml)
  saxpy-check   the same input, --check with an expected file of 2^20 floats (SPIRV-Interpreter digits)
  saxpy-json    the same with JSON input and JSON output
  saxpy-spec    a run spec with `data:` lists of 2^20 floats, --check with an expected file (tolerances)
  gemm-yaml     samples/coopmat/khr_gemm/gemm.spvasm 256^3: f16 A, B and f32 C0 from a YAML input file,
                C written as YAML
  gemm-check    the same input, --check against a YAML expected file
  big-output    a run spec generating 2,048,000 floats (random), printed as YAML (-o out.yaml)
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
SAXPY = ROOT / "samples" / "saxpy" / "saxpy.spvasm"
GEMM = ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm"
N_SAXPY = 1 << 20


def flow(values, per_line: int = 8, indent: str = "  ") -> str:
    """A YAML/JSON flow list, several numbers a line (the shape SPIRV-Interpreter's files have)."""
    toks = [repr(float(v)) for v in values]
    rows = [", ".join(toks[i:i + per_line]) for i in range(0, len(toks), per_line)]
    return "[" + (",\n" + indent).join(rows) + "]"


def f32s(a: np.ndarray) -> list[float]:
    """float32 values as their shortest decimals."""
    return [float(str(x)) for x in a.astype(np.float32)]


def write_cases(d: Path, only=None) -> dict[str, list[str]]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(N_SAXPY).astype(np.float32)
    y = rng.standard_normal(N_SAXPY).astype(np.float32)
    want = (np.float32(2.0) * x + y).astype(np.float32)
    # SPIRV-Interpreter's 6-digit comparison rounds the result's shortest decimal and the expected value
    # as f32 holds it; where those two straddle a rounding boundary it reports a difference: keep away
    sys.path.insert(0, str(ROOT))
    from spvcoop.runspec.sicompat import si_close
    shortest = np.array([float(str(v)) for v in want])
    edge = ~si_close(shortest, want.astype(np.float64), 6)
    x[edge], y[edge], want[edge] = 1, 1, 3
    xs, ys, ws = f32s(x), f32s(y), f32s(want)
    (d / "saxpy_in.yaml").write_text(f"pc: {{a: 2.0, n: {N_SAXPY}}}\nx: {flow(xs)}\ny: {flow(ys)}\n")
    (d / "saxpy_out.yaml").write_text(f"y: {flow(ws)}\n")
    (d / "saxpy_in.json").write_text(json.dumps({"pc": {"a": 2.0, "n": N_SAXPY}, "x": xs, "y": ys}))
    (d / "saxpy_run.yaml").write_text(
        f"shader: {SAXPY}\ndispatch: [{N_SAXPY // 64}, 1, 1]\npush_constants: {{a: 2.0, n: {N_SAXPY}}}\n"
        f"buffers:\n  x: {{data: {flow(xs, indent='    ')}, dtype: float32}}\n"
        f"  y: {{data: {flow(ys, indent='    ')}, dtype: float32}}\noutputs: [y]\n")
    (d / "saxpy_expected.yaml").write_text(f"y: {{data: {flow(ws, indent='    ')}, rtol: 1.0e-6, atol: 0}}\n")
    n = 256
    A = rng.standard_normal((n, n)).astype(np.float16)
    B = rng.standard_normal((n, n)).astype(np.float16)
    C0 = rng.standard_normal((n, n)).astype(np.float32)
    C = A.astype(np.float32) @ B.astype(np.float32) + C0
    (d / "gemm_in.yaml").write_text(
        f"N: {n}\nK: {n}\na: {flow(A.astype(np.float64).reshape(-1))}\nb: {flow(B.astype(np.float64).reshape(-1))}\n"
        f"c0: {flow(f32s(C0.reshape(-1)))}\nc: {flow([0.0] * (n * n))}\n")
    (d / "gemm_out.yaml").write_text(f"c: {flow(f32s(C.reshape(-1)))}\n")
    big = 2_048_000
    (d / "big_run.yaml").write_text(
        f"shader: {SAXPY}\ndispatch: [{big // 64}, 1, 1]\npush_constants: {{a: 2.0, n: {big}}}\n"
        f"buffers:\n  x: {{random: {{seed: 1, count: {big}}}}}\n  y: {{zeros: {big}}}\noutputs: [y]\n")
    run = [sys.executable, "-m", "spvcoop", "run"]
    si = run + [str(SAXPY), "--dispatch", f"{N_SAXPY // 64},1,1"]
    gemm = run + [str(GEMM), "--dispatch", f"{n // 16},{n // 16},1", "--input", str(d / "gemm_in.yaml")]
    return {
        "saxpy-yaml": si + ["--input", str(d / "saxpy_in.yaml"), "-o", str(d / "o1.yaml")],
        "saxpy-check": si + ["--input", str(d / "saxpy_in.yaml"), "--check", str(d / "saxpy_out.yaml"), "-q"],
        "saxpy-json": si + ["--input", str(d / "saxpy_in.json"), "-o", str(d / "o2.json")],
        "saxpy-spec": run + [str(d / "saxpy_run.yaml"), "--check", str(d / "saxpy_expected.yaml"), "-q",
                             "--allow-outside-files"],
        "gemm-yaml": gemm + ["-o", str(d / "o3.yaml")],
        # the interpreter sums in another order than numpy: a tolerance, not SPIRV-Interpreter's 6 digits
        "gemm-check": gemm + ["--check", str(d / "gemm_out.yaml"), "-q", "--rtol", "1e-4", "--atol", "1e-4"],
        "big-output": run + [str(d / "big_run.yaml"), "-o", str(d / "o4.yaml"), "--allow-outside-files"],
    }


def measure(cmd: list[str], env: dict, timeout: float | None = None, cwd=None) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit status) of one process (killed after timeout seconds: -9).
    cwd: not a checkout (`python -m` puts the working directory before PYTHONPATH)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    timer = None
    if timeout:
        import threading
        timer = threading.Timer(timeout, p.kill)
        timer.start()
    err = p.stderr.read() if p.stderr else b""
    _, status, ru = os.wait4(p.pid, 0)
    if timer:
        timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if p.returncode:
        sys.stderr.write(f"{' '.join(cmd[2:])}: exit {p.returncode}\n{err.decode(errors='replace')[-2000:]}\n")
    return wall, ru.ru_maxrss / 1024, p.returncode   # ru_maxrss is in KiB on Linux


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--cases", nargs="+")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--root", metavar="DIR", default=str(ROOT),
                    help="the spvcoop checkout to time (PYTHONPATH), e.g. another worktree for a before/after")
    ap.add_argument("--timeout", type=float, default=None, help="kill a process after this many seconds")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(Path(args.root).resolve()))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cases = write_cases(d)
        start = min(measure([sys.executable, "-c", "import spvcoop.cli"], env, cwd=d)[0] for _ in range(args.runs))
        print(f"spvcoop from {env['PYTHONPATH']}")
        print(f"python -c 'import spvcoop.cli' (process start): {start:.2f} s")
        print(f"{'case':<12} {'wall (s)':>9} {'peak RSS (MB)':>14} {'exit':>5}")
        for name, cmd in cases.items():
            if args.cases and name not in args.cases:
                continue
            runs = [measure(cmd, env, args.timeout, cwd=d) for _ in range(args.runs)]
            wall = min(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            rows.append({"case": name, "wall_s": wall, "peak_rss_mb": rss, "exit": runs[-1][2]})
            print(f"{name:<12} {wall:>9.2f} {rss:>14.0f} {runs[-1][2]:>5}", flush=True)
        sizes = {p.name: p.stat().st_size for p in d.iterdir() if p.suffix in (".yaml", ".json")}
        print("file sizes (MB): " + ", ".join(f"{k} {v / 1e6:.1f}" for k, v in sorted(sizes.items())))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Record Workgroup-scope layouts, the coopmat2/bf16 kernel suite's outputs and a GPU timeout on a real device
(run on the GPU machine; tests/data/h100-vulkan/workgroup/README.md says what came of it).

    python tools/h100_workgroup.py OUTDIR [--compare-only] [--dry-run]

Writes into OUTDIR: info.json (device info), wg-layouts.yaml (`layout measure --workgroup 64,128,256`),
kernels/<kernel>/<variant>/<output>.npy (`run SPEC --device vulkan -o DIR/`), compare.txt (`run
--compare-interpreter` of every build: with --coop-numerics nvidia-tensorcore, and with --layout nvidia too),
hang.txt (`run --device vulkan --gpu-timeout 5` of a dispatch that never ends), log.txt (every command, exit
status and seconds). `commands()` is every spvcoop command line it runs (tests/project/test_tools.py parses each)."""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("wg_tensor_gemm", "q4_decode_gemm", "wg_attention", "bf16_bda_gemm")
HANG = ["run", str(ROOT / "tests" / "data" / "gpu_hang" / "run.yaml"), "--device", "vulkan", "--gpu-timeout", "5"]


def commands(out: Path, compare_only: bool = False) -> list[tuple[str, list[str]]]:
    """(what the step is, spvcoop argv) for each step, in order: 'info', 'measure', 'output', 'compare', 'hang'."""
    steps: list[tuple[str, list[str]]] = []
    if not compare_only:
        steps += [("info", ["device", "info", "--json"]),
                  ("measure", ["layout", "measure", "--workgroup", "64,128,256", "-o", str(out / "wg-layouts.yaml"),
                               "--name", "h100-workgroup"])]
    for k in KERNELS:
        for v in ("O0", "opt"):
            spec = str(ROOT / "tests" / "kernels" / k / f"run_{v}.yaml")
            if not compare_only:
                steps.append(("output", ["run", spec, "--device", "vulkan", "-o", f"{out}/kernels/{k}/{v}/"]))
            for extra in (["--coop-numerics", "nvidia-tensorcore"],
                          ["--layout", "nvidia", "--coop-numerics", "nvidia-tensorcore"]):
                steps.append(("compare", ["run", spec, "--device", "vulkan", "--compare-interpreter", *extra]))
    steps.append(("hang", HANG))
    return steps


def sh(out: Path, log: list[str], argv: list[str], limit: float = 300) -> tuple[int, str]:
    t = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "spvcoop", *argv], capture_output=True, text=True, timeout=limit)
        rc, text = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc, text = -9, f"(killed after {limit} s)\n{e.stdout or ''}{e.stderr or ''}"
    took = time.monotonic() - t
    log.append(f"$ spvcoop {' '.join(argv)}\n# exit {rc} in {took:.2f} s\n{text}")
    print(f"exit {rc} in {took:.1f} s: {' '.join(argv)[:120]}", flush=True)
    (out / "log.txt").write_text("\n".join(log))
    return rc, text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python tools/h100_workgroup.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path, help="where the records go (made if missing)")
    ap.add_argument("--compare-only", action="store_true", help="only the compare runs and the timeout check")
    ap.add_argument("--dry-run", action="store_true", help="print the spvcoop command lines, run nothing")
    args = ap.parse_args(argv)
    out = args.outdir
    steps = commands(out, args.compare_only)
    if args.dry_run:
        for _, cmd in steps:
            print("spvcoop " + " ".join(cmd))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    log: list[str] = []
    lines = []
    for what, cmd in steps:
        if what == "hang":
            t = time.monotonic()
            rc, text = sh(out, log, cmd, limit=40)
            (out / "hang.txt").write_text(f"# exit {rc} after {time.monotonic() - t:.2f} s (the process, start to "
                                          f"end)\n{text}")
            continue
        rc, text = sh(out, log, cmd)
        if what == "info":
            (out / "info.json").write_text(text)
        elif what == "compare":
            lines.append(f"$ spvcoop {' '.join(cmd)}\n# exit {rc}\n{text}")
            (out / "compare.txt").write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

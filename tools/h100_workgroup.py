"""Record Workgroup-scope layouts, the coopmat2/bf16 kernel suite's outputs and a GPU timeout on a real device
(run on the GPU machine; tests/data/h100-vulkan/workgroup/README.md says what came of it).

    python tools/h100_workgroup.py OUTDIR [--compare-only]

Writes into OUTDIR: info.json (device info), wg-layouts.yaml (`layout measure --workgroup 64,128,256`),
kernels/<kernel>/<variant>/<output>.npy (`run SPEC --device vulkan -o DIR/`), compare.txt (`run --compare` of
every build: with --coop-numerics nvidia-tensorcore, and with --layout nvidia too), hang.txt (`run --device
vulkan --gpu-timeout 5` of a dispatch that never ends), log.txt (every command, exit status and seconds)."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("wg_tensor_gemm", "q4_decode_gemm", "wg_attention", "bf16_bda_gemm")


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


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    log: list[str] = []
    compare_only = "--compare-only" in sys.argv
    if not compare_only:
        rc, text = sh(out, log, ["device", "info", "--json"])
        (out / "info.json").write_text(text)
        sh(out, log, ["layout", "measure", "--workgroup", "64,128,256", "-o", str(out / "wg-layouts.yaml"),
                      "--name", "h100-workgroup"])
    lines = []
    for k in KERNELS:
        for v in ("O0", "opt"):
            spec = str(ROOT / "tests" / "kernels" / k / f"run_{v}.yaml")
            if not compare_only:
                sh(out, log, ["run", spec, "--device", "vulkan", "-o", f"{out}/kernels/{k}/{v}/"])
            for extra in (["--coop-numerics", "nvidia-tensorcore"],
                          ["--layout", "nvidia", "--coop-numerics", "nvidia-tensorcore"]):
                argv = ["run", spec, "--device", "vulkan", "--compare", *extra]
                rc, text = sh(out, log, argv)
                lines.append(f"$ spvcoop {' '.join(argv)}\n# exit {rc}\n{text}")
    (out / "compare.txt").write_text("\n".join(lines))
    t = time.monotonic()
    rc, text = sh(out, log, ["run", str(ROOT / "tests" / "data" / "gpu_hang" / "run.yaml"), "--device", "vulkan",
                             "--gpu-timeout", "5"], limit=40)
    (out / "hang.txt").write_text(f"# exit {rc} after {time.monotonic() - t:.2f} s (the process, start to end)\n"
                                  f"{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

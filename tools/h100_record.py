"""Record what the GPU tests and docs need from a real device, in one go (run on the GPU machine).

    python tools/h100_record.py OUTDIR [--tiles 48]

Writes OUTDIR/info.json (device info), profile.yaml (device info --write-profile), layout.yaml (layout
measure), compare.txt (run --compare of the samples), tiles.npz (MulAdd probe tiles with the device's
results, seeds 1 and 2) and times.json (seconds each step took)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def sh(out: Path, name: str, *argv: str) -> float:
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "spvcoop", *argv], capture_output=True, text=True)
    (out / name).write_text(f"$ spvcoop {' '.join(argv)}\n# exit {p.returncode}\n{p.stdout}{p.stderr}")
    print(f"{name}: exit {p.returncode} in {time.monotonic() - t:.1f}s", flush=True)
    return time.monotonic() - t


def main() -> int:
    out = Path(sys.argv[1])
    tiles = int(sys.argv[sys.argv.index("--tiles") + 1]) if "--tiles" in sys.argv else 48
    out.mkdir(parents=True, exist_ok=True)
    times = {}
    times["device_list"] = sh(out, "list.txt", "device", "list")
    times["device_info"] = sh(out, "info.txt", "device", "info", "--json", "--write-profile", str(out / "profile.yaml"),
                              "--profile-name", "nvidia-h100")
    times["layout_measure"] = sh(out, "layout_measure.txt", "layout", "measure", "-o", str(out / "layout.yaml"),
                                 "--name", "h100-measured")
    sh(out, "layout_diff.txt", "layout", "diff", str(out / "layout.yaml"), "nvidia", "--exit-code")
    for s in sorted((ROOT / "samples").glob("*/run.yaml")) + sorted((ROOT / "samples" / "coopmat").glob("*/run.yaml")):
        tag = s.parent.name
        sh(out, f"compare_{tag}.txt", "run", str(s), "--device", "vulkan", "--compare", "--layout", "nvidia",
           "--coop-numerics", "nvidia-tensorcore")
    from spvcoop.gpu.compute import Device
    from spvcoop.gpu.numerics import measure_tiles, save_tiles
    t = time.monotonic()
    try:
        with Device(0) as dev:
            info = dev.instance.info(0)
            data = measure_tiles(dev, info, tiles, progress=lambda c: print("tiles", c, flush=True))
        times["tiles"] = time.monotonic() - t
        save_tiles(out / "tiles.npz", data)
    except Exception:  # keep what the other steps recorded
        import traceback
        traceback.print_exc()
    (out / "times.json").write_text(json.dumps(times, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

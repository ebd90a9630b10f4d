"""Record what the GPU tests and docs need from a real device, in one go (run on the GPU machine).

    python tools/h100_record.py OUTDIR [--tiles 48] [--dry-run]

Writes OUTDIR/info.json (device info), profile.yaml (device info --write-profile), layout.yaml (layout
measure), compare_<sample>.txt (run --compare-interpreter of the samples), tiles.npz (MulAdd probe tiles with
the device's results, seeds 1 and 2) and times.json (seconds each step took). `commands()` is every spvcoop
command line it runs (tests/project/test_tools.py parses each with spvcoop's own parser)."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def commands(out: Path) -> list[tuple[str, str, list[str]]]:
    """(times.json key or '', output file name, spvcoop argv) for each step that runs the CLI, in order."""
    steps = [("device_list", "list.txt", ["device", "list"]),
             ("device_info", "info.txt", ["device", "info", "--json", "--write-profile", str(out / "profile.yaml"),
                                          "--profile-name", "nvidia-h100"]),
             ("layout_measure", "layout_measure.txt", ["layout", "measure", "-o", str(out / "layout.yaml"),
                                                       "--name", "h100-measured"]),
             ("", "layout_diff.txt", ["layout", "diff", str(out / "layout.yaml"), "nvidia", "--exit-code"])]
    for s in sorted((ROOT / "samples").glob("*/run.yaml")) + sorted((ROOT / "samples" / "coopmat").glob("*/run.yaml")):
        steps.append(("", f"compare_{s.parent.name}.txt",
                      ["run", str(s), "--device", "vulkan", "--compare-interpreter", "--layout", "nvidia",
                       "--coop-numerics", "nvidia-tensorcore"]))
    return steps


def sh(out: Path, name: str, *argv: str) -> float:
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "spvcoop", *argv], capture_output=True, text=True)
    (out / name).write_text(f"$ spvcoop {' '.join(argv)}\n# exit {p.returncode}\n{p.stdout}{p.stderr}")
    print(f"{name}: exit {p.returncode} in {time.monotonic() - t:.1f}s", flush=True)
    return time.monotonic() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python tools/h100_record.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path, help="where the records go (made if missing)")
    ap.add_argument("--tiles", type=int, default=48, help="MulAdd probe tiles per combination (default 48)")
    ap.add_argument("--dry-run", action="store_true", help="print the spvcoop command lines, run nothing")
    args = ap.parse_args(argv)
    out = args.outdir
    if args.dry_run:
        for _, _, cmd in commands(out):
            print("spvcoop " + " ".join(cmd))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    times = {}
    for key, name, cmd in commands(out):
        took = sh(out, name, *cmd)
        if key:
            times[key] = took
    from spvcoop.gpu.compute import Device
    from spvcoop.gpu.numerics import measure_tiles, save_tiles
    t = time.monotonic()
    try:
        with Device(0) as dev:
            info = dev.instance.info(0)
            data = measure_tiles(dev, info, args.tiles, progress=lambda c: print("tiles", c, flush=True))
        times["tiles"] = time.monotonic() - t
        save_tiles(out / "tiles.npz", data)
    except Exception:  # keep what the other steps recorded
        import traceback
        traceback.print_exc()
    (out / "times.json").write_text(json.dumps(times, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

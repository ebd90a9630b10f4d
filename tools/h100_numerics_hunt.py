"""Look for MulAdd tiles where nvidia-tensorcore and the device disagree (run on the GPU machine).

    python tools/h100_numerics_hunt.py OUT.npz [--seeds 16] [--tiles 64]

Runs fresh tiles (seeds 100, 101, ...) of every float combination and distribution, prints the agreement per
combination and distribution, and saves every disagreeing tile (A, B, C, D) to OUT.npz for study offline."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# imported here, not in main(): `--help` (tests/project/test_tools.py) then fails on a name the package no longer has
from spvcoop.gpu.compute import Device  # noqa: E402  (no Vulkan loaded until a Device is opened)
from spvcoop.gpu.numerics import combinations, run_tiles, save_tiles  # noqa: E402
from spvcoop.numerics.fit import Sample, predict  # noqa: E402
from spvcoop.numerics.model import NVIDIA_TENSORCORE  # noqa: E402
from spvcoop.numerics.tiles import distributions, make_tiles  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python tools/h100_numerics_hunt.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("out", metavar="OUT.npz", help="where the disagreeing tiles go")
    ap.add_argument("--seeds", type=int, default=16, help="seeds per combination and distribution (default 16)")
    ap.add_argument("--tiles", type=int, default=64, help="tiles per seed (default 64)")
    args = ap.parse_args(argv)
    out, seeds, n = args.out, args.seeds, args.tiles
    bad: dict = {}
    with Device(0) as dev:
        info = dev.instance.info(0)
        for combo in combinations(info):
            if combo[0] not in ("f16", "bf16"):
                continue
            for dist in distributions(combo[0]):
                eq = tot = 0
                for seed in range(100, 100 + seeds):
                    A, B, C = make_tiles(*combo, dist, n, seed)
                    D = run_tiles(dev, combo, A, B, C)
                    P = predict(NVIDIA_TENSORCORE, Sample(*combo, dist, A, B, C, D))
                    same = P.view(f"u{P.itemsize}") == D.view(f"u{D.itemsize}")
                    eq += int(same.sum())
                    tot += same.size
                    t = np.flatnonzero(~same.reshape(n, -1).all(axis=1))[:8]
                    if len(t):
                        bad.setdefault(combo, {})[(dist, seed)] = (A[t], B[t], C[t], D[t])
                print(combo, dist, f"{eq}/{tot}", flush=True)
    if bad:
        save_tiles(out, bad)
    return 0


if __name__ == "__main__":
    sys.exit(main())

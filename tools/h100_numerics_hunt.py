"""Look for MulAdd tiles where nvidia-tensorcore and the device disagree (run on the GPU machine).

    python tools/h100_numerics_hunt.py OUT.npz [--seeds 16] [--tiles 64]

Runs fresh tiles (seeds 100, 101, ...) of every float combination and distribution, prints the agreement per
combination and distribution, and saves every disagreeing tile (A, B, C, D) to OUT.npz for study offline."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    from spvcoop.gpu.compute import Device
    from spvcoop.gpu.numerics import combinations, run_tiles, save_tiles
    from spvcoop.numerics.fit import Sample, predict
    from spvcoop.numerics.model import NVIDIA_TENSORCORE
    from spvcoop.numerics.tiles import distributions, make_tiles
    out = sys.argv[1]
    seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 16
    n = int(sys.argv[sys.argv.index("--tiles") + 1]) if "--tiles" in sys.argv else 64
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

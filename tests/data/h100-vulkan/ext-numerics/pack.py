"""Pack the probes' inputs (make_inputs.py DIR) and what the GPU left in the buffers (OUT of run.sh) into the
committed <probe>.npz files: `in<b>` and `gpu<b>` arrays, typed as the kernels declare them.

    python pack.py DIR OUT [PROBE...]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# probe -> {binding: (dtype, "in" | "gpu")}; bf16 is kept as its uint16 bits
BUFFERS = {
    "cvt": {0: (np.uint32, "in"), 2: (np.uint16, "gpu"), 3: (np.uint16, "gpu")},
    "perelem_f32": {0: (np.float32, "in"), 1: (np.float32, "in"), 2: (np.float32, "in"),
                    3: (np.float32, "gpu"), 4: (np.float32, "gpu")},
    "perelem_f16": {0: (np.float16, "in"), 1: (np.float16, "in"), 2: (np.float16, "in"),
                    3: (np.float16, "gpu"), 4: (np.float16, "gpu")},
    "bf16_muladd": {0: (np.uint16, "in"), 1: (np.uint16, "in"), 2: (np.float32, "in"), 3: (np.float32, "gpu")},
    **{f"f16acc_k{kk}": {0: (np.float16, "in"), 1: (np.float16, "in"), 2: (np.float16, "in"), 3: (np.float16, "gpu")}
       for kk in (32, 64)},
    **{name: {0: (dt, "in"), 1: (dt, "gpu"), 2: (dt, "gpu"), 3: (dt, "gpu")}
       for name, dt in (("reduce_rc_f32_16", np.float32), ("reduce_rc_f16_16", np.float16),
                        ("reduce_rc_f32_32", np.float32), ("reduce_rc_f32_64wg", np.float32))},
}


def main(inputs: Path, out: Path, only: list[str]) -> None:
    for probe, bufs in BUFFERS.items():
        if only and probe not in only:
            continue
        arrays = {}
        for b, (dt, kind) in bufs.items():
            src = inputs / probe / f"in{b}.bin" if kind == "in" else out / probe / f"buf{b}.bin"
            arrays[f"{kind}{b}"] = np.fromfile(src, dt)
        np.savez_compressed(HERE / f"{probe}.npz", **arrays)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])

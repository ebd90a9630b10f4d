"""Inputs of the coopmat2 GPU kernels (tests/data/coopmat2/*.spvasm), written with numpy (seeded), and the
command lines that ran them on the H100 through vkrun. See README.md.

    python tests/data/h100-vulkan/coopmat2/make_inputs.py DIR    # writes DIR/<kernel>/in*.bin, DIR/run.sh
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

def wide_floats(rng, n: int, lo: int, hi: int, dtype) -> np.ndarray:
    """Normal values scaled by 2^e, e uniform in [lo, hi]: sums of them depend on the order of the additions."""
    return (rng.standard_normal(n) * np.exp2(rng.integers(lo, hi + 1, n))).astype(dtype)


def inputs(rng) -> dict[str, dict[int, np.ndarray | int]]:
    """kernel -> binding -> input array, or the byte size of a zero-filled output."""
    k: dict[str, dict[int, np.ndarray | int]] = {}
    k["reduce"] = {0: wide_floats(rng, 1024, -12, 12, np.float32), 1: 4096, 2: 4096, 3: 1024, 4: 1024, 5: 4096,
                   6: wide_floats(rng, 1024, -6, 6, np.float16), 7: 2048, 8: 2048, 9: 512, 10: 1024, 11: 1024}
    k["perelem"] = {0: wide_floats(rng, 256, -4, 4, np.float32), 1: wide_floats(rng, 256, -4, 4, np.float32),
                    2: np.array([0.7071067811865476, 0, 0, 0], np.float32), 3: 1024,
                    4: wide_floats(rng, 256, -4, 4, np.float16), 5: 512, 6: 512, 7: 512}
    k["loadtensor"] = {0: (np.arange(143) * 1.25 + 1).astype(np.float32), 1: 2048, 2: 2048, 3: 2048, 4: 2048,
                       5: 2048, 6: 1024, 7: (np.arange(256) + 500).astype(np.float32),
                       8: np.full(143, -9, np.float32), 9: np.full(143, -9, np.float32),
                       10: (np.arange(143) * 0.5 - 20).astype(np.float16), 11: 512}
    M, N, K = 50, 40, 70
    k["wg_gemm"] = {0: rng.standard_normal(M * K).astype(np.float16), 1: rng.standard_normal(K * N).astype(np.float16),
                    2: np.full(M * N, -1, np.float32)}
    k["reduce_wg"] = {0: wide_floats(rng, 4096, -12, 12, np.float32), 1: 16384, 2: 16384, 3: 4096, 4: 4096}
    k["tensor2"] = {0: (np.arange(512) * 0.25).astype(np.float32), 1: 1024, 2: 1024, 3: 1024}
    k["decode"] = {0: (np.arange(512) % 97 * 0.5).astype(np.float16), 1: 512}
    k["attention"] = {0: rng.standard_normal(512).astype(np.float16), 1: rng.standard_normal(1024).astype(np.float16),
                      2: rng.standard_normal(1024).astype(np.float16), 3: 2048}  # samples/coopmat2/flash_attention
    return k


DISPATCH = {"reduce": (1, 1, 1), "perelem": (1, 1, 1), "loadtensor": (1, 1, 1), "wg_gemm": (2, 2, 1),
            "tensor2": (1, 1, 1), "decode": (1, 1, 1), "attention": (2, 1, 1), "reduce_wg": (1, 1, 1)}


def main(out: Path) -> None:
    rng = np.random.default_rng(20261125)
    lines = ["#!/bin/sh", "# run from the folder holding vkrun, egl_icd.json, libvulkan.so.1 and <kernel>.spv",
             'export VK_ICD_FILENAMES=$PWD/egl_icd.json LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH',
             'O=${OUT:-out}; mkdir -p $O; ./vkrun info > $O/info.txt 2>&1']
    for name, bufs in inputs(rng).items():
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        args = []
        for b, v in sorted(bufs.items()):
            if isinstance(v, int):
                args.append(f"-:{v}")
            else:
                v.tofile(d / f"in{b}.bin")
                args.append(f"{name}/in{b}.bin")
        gx, gy, gz = DISPATCH[name]
        lines.append(f"mkdir -p $O/{name}; VKRUN_OUT=$O/{name} ./vkrun run {name}.spv {gx} {gy} {gz} {' '.join(args)} "
                     f"> $O/{name}/log.txt 2>&1; echo {name} rc=$?")
    (out / "run.sh").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

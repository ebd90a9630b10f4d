"""Inputs and run script of the third float-model run (issue 36: pow16.comp, f16 pow and smoothstep taken apart).

    python make_pow16.py DIR        # DIR/p_<run>.bin and DIR/run.sh (RAW=... VKRUN=... sh DIR/run.sh)
    python make_pow16.py --pack RAW OUT.npz   # pow16.npz: `<run>` the uint16 results of every f16 input
    python make_pow16.py --4 DIR; python make_pow16.py --pack4 RAW smooth16.npz   # the fourth run (RUNS4)"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# (run name, FUNC, p)
RUNS = [("exp2", 0, (0, 0)), ("exp2_neg", 1, (0, 0)), ("exp2_mul_m1", 2, (-1, 0)), ("exp2_mul_3", 2, (3, 0))]
RUNS += [(f"pow_p_{k}", 3, (v, 0)) for k, v in enumerate((0.5, 2.0, 0.25, 3.1, 10.0))]
RUNS += [(f"exp2_x_log2p_{k}", 4, (v, 0)) for k, v in enumerate((0.5, 2.0, 0.25, 3.1, 10.0))]
RUNS += [(f"pow_x_{k}", 5, (v, 0)) for k, v in enumerate((0.5, 2.0, 2.5, -1.3))]
RUNS += [(f"exp2_p_log2x_{k}", 6, (v, 0)) for k, v in enumerate((0.5, 2.0, 2.5, -1.3))]
RUNS += [(f"pow32_p_{k}", 7, (v, 0)) for k, v in enumerate((0.5, 3.1))]
RUNS += [(f"log2x_p_{k}", 8, (v, 0)) for k, v in enumerate((1.0, 2.5))]
RUNS += [(f"smooth_explicit_{k}", 9, e) for k, e in enumerate(((-1.0, 2.0), (0.1, 0.7)))]
RUNS += [(f"smooth_{k}", 10, e) for k, e in enumerate(((-1.0, 2.0), (0.1, 0.7)))]
RUNS += [(f"smooth_t_{k}", 11, e) for k, e in enumerate(((-1.0, 2.0), (0.1, 0.7)))]
RUNS += [(f"smooth32_{k}", 12, e) for k, e in enumerate(((-1.0, 2.0), (0.1, 0.7)))]
RUNS += [("exp2_f32", 13, (0, 0))]
# a fourth run: the builtin smoothstep where t is exact (edges 0 and 1, 2, 4; -1 and 1)
RUNS4 = [(f"smooth_0_{e}", 10, (0, e)) for e in (1.0, 2.0, 4.0)] + [("smooth_m1_1", 10, (-1.0, 1.0))]
RUNS4 += [(f"smooth_t_0_{e}", 11, (0, e)) for e in (1.0, 2.0, 4.0)] + [("smooth_t_m1_1", 11, (-1.0, 1.0))]


def main(out: str, runs=None) -> None:
    runs = RUNS if runs is None else runs
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    lines = ['D=$(dirname "$0")']
    for name, func, p in runs:
        (d / f"p_{name}.bin").write_bytes(np.array(p, np.float16).tobytes())
        lines.append(f'mkdir -p "$RAW/{name}" && VKRUN_OUT="$RAW/{name}" VKRUN_SPEC="0={func}" "$VKRUN" run '
                     f'"$D/pow16.spv" 256 1 1 -:{2 << 16} "$D/p_{name}.bin"')
    (d / "run.sh").write_text("\n".join(lines) + "\n")


def pack(raw: str, out: str, runs=None) -> None:
    r = Path(raw)
    arrs = {}
    for name, _, _ in (RUNS if runs is None else runs):
        f = r / name / "buf0.bin"
        arrs[name] = np.fromfile(f, np.uint16)[:1 << 16] if f.exists() else np.zeros(1 << 16, np.uint16)
    np.savez_compressed(out, **arrs)


if __name__ == "__main__":
    if sys.argv[1] == "--pack":
        pack(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "--pack4":
        pack(sys.argv[2], sys.argv[3], RUNS4)
    elif sys.argv[1] == "--4":
        main(sys.argv[2], RUNS4)
    else:
        main(sys.argv[1])

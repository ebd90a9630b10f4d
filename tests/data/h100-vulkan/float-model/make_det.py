"""Inputs, run script and packing of the fifth float-model run (issue 36): det.comp (3x3 and 4x4 determinant and
inverse, f32 and f16), and whole f32 binades of the inverse trigonometric and hyperbolic functions through
range_more_f32.spv.

    python make_det.py DIR                  # DIR/det_<fmt>_in.bin, DIR/run.sh
    RAW=... VKRUN=.../vkrun sh DIR/run.sh   # on the GPU machine, next to det_*.spv and range_more_f32.spv
    python make_det.py --pack RAW DIR OUT   # OUT/det.npz, OUT/binades_<k>.npz"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from make_more import MORE
from pack_more import encode

SEED = 3637
N = 16384          # matrices per format (256 groups of 64)
NOUT = 27          # det3, inverse3 (9), det4, inverse4 (16)
KINDS = 8
# (name, function, first binade exponent, last binade exponent + 1): every f32 of [2^e, 2^(e+1)) for each e
BINADES = [("atan", -6, 2), ("asin", -6, 0), ("acos", -6, 0), ("asinh", -6, 2), ("acosh", 0, 2), ("atanh", -6, 0)]


def slices() -> list[tuple[str, int, int, int]]:
    """(name, FUNC, first pattern, count) of each binade run."""
    out = []
    for fn, lo, hi in BINADES:
        for e in range(lo, hi):
            out.append((f"{fn}_{e}", MORE.index(fn), (127 + e) << 23, 1 << 23))
    return out


def inputs(rng: np.random.Generator, dt) -> np.ndarray:
    """N matrices of 16 values, in blocks of N / KINDS of eight kinds."""
    f16 = dt == np.float16
    B = N // KINDS
    blocks = []
    for kind in range(KINDS):
        v = rng.standard_normal((B, 16))
        if kind == 0:
            v *= 2.0 ** rng.integers(-2, 3, (B, 1))
        elif kind == 1:
            v = rng.uniform(-1, 1, (B, 16))
        elif kind == 2:     # sparse: terms of the expansions vanish
            v = np.where(rng.integers(0, 2, (B, 16)) == 0, 0.0, v)
        elif kind == 3:     # nearly singular: the third column (3x3) and the fourth (4x4) near sums of the others
            v[:, 6:9] = v[:, 0:3] * 0.5 + v[:, 3:6] * 0.25 + rng.standard_normal((B, 3)) * 2.0 ** -6
            v[:, 12:15] = v[:, 0:3] - v[:, 4:7] + rng.standard_normal((B, 3)) * 2.0 ** -6
        elif kind == 4:     # small integers: exact products and sums
            v = rng.integers(-4, 5, (B, 16)).astype(np.float64)
        elif kind == 5:     # positive: cancellation
            v = rng.uniform(1, 2, (B, 16))
        elif kind == 6:     # wide exponents
            v *= 2.0 ** rng.integers(-6 if f16 else -20, 7 if f16 else 21, (B, 16))
        else:               # specials here and there
            pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 2.0 ** (-14 if f16 else -126) / 2, 1.0])
            pick = rng.integers(0, 8, (B, 16)) == 0
            v = np.where(pick, rng.choice(pool, (B, 16)), v)
        blocks.append(v)
    with np.errstate(over="ignore"):
        return np.concatenate(blocks).astype(dt)


def make_all() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    return {"f32": inputs(rng, np.float32), "f16": inputs(rng, np.float16)}


def main(out: str) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    lines = ['D=$(dirname "$0")']
    for fmt, a in make_all().items():
        (d / f"det_{fmt}_in.bin").write_bytes(a.tobytes())
        lines.append(f'mkdir -p "$RAW/det_{fmt}" && VKRUN_OUT="$RAW/det_{fmt}" "$VKRUN" run "$D/det_{fmt}.spv" '
                     f'{N // 64} 1 1 "$D/det_{fmt}_in.bin" -:{NOUT * N * a.itemsize}')
    (d / "p_none.bin").write_bytes(bytes(16))
    for name, func, base, count in slices():
        lines.append(f'mkdir -p "$RAW/{name}" && VKRUN_OUT="$RAW/{name}" VKRUN_SPEC="0={func},1={base}" "$VKRUN" '
                     f'run "$D/range_more_f32.spv" 32768 1 1 -:{4 * count} "$D/p_none.bin"')
    (d / "run.sh").write_text("\n".join(lines) + "\n")


def pack(raw: str, inp: str, out: str) -> None:
    r, i, o = Path(raw), Path(inp), Path(out)
    det = {}
    for fmt, dt in (("f32", np.float32), ("f16", np.float16)):
        det[f"{fmt}_in"] = np.fromfile(i / f"det_{fmt}_in.bin", dt).reshape(N, 16)
        det[f"{fmt}_gpu"] = np.fromfile(r / f"det_{fmt}" / "buf1.bin", dt).reshape(NOUT, N)
    np.savez_compressed(o / "det.npz", **det)
    parts: list[dict[str, np.ndarray]] = [{}, {}]
    for k, (name, _func, base, count) in enumerate(slices()):
        f = r / name / "buf0.bin"
        if not f.exists():
            print(name, "missing", flush=True)
            continue
        p = parts[k % 2]
        p[f"{name}_first"], p[f"{name}_diff"] = encode(np.fromfile(f, np.uint32)[:count])
        p[f"{name}_base"] = np.array([base], np.uint32)
        f.unlink()
    for k, p in enumerate(parts):
        np.savez_compressed(o / f"binades_{k}.npz", **p)


if __name__ == "__main__":
    if sys.argv[1] == "--pack":
        pack(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main(sys.argv[1])

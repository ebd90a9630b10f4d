"""Inputs for the extension-numerics probes (issue 24) and the script that runs them on a GPU with vkrun.

    python make_inputs.py DIR     # DIR/<probe>/in<b>.bin and DIR/run.sh; the .spv files are copied beside them

On the GPU machine: `VKRUN=path/to/vkrun OUT=... sh DIR/run.sh` leaves every buffer of every probe in
OUT/<probe>/buf<b>.bin. `pack.py` turns inputs and outputs into the committed <probe>.npz files.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# probe -> (module, workgroups, {binding: input array or output byte size})
PROBES: dict[str, tuple[str, int, dict[int, np.ndarray | int]]] = {}


def _f32_patterns(rng: np.random.Generator, n: int) -> np.ndarray:
    special = [0, 0x80000000, 1, 0x8000, 0x18000, 0x7FFF, 0x007FFFFF, 0x00800000, 0x00808000, 0x7F7FFFFF,
               0x7F7F8000, 0x7F7F7FFF, 0x7F800000, 0xFF800000, 0x7F800001, 0x7F808000, 0x7F80FFFF, 0x7F810000,
               0x7FA00000, 0x7FBFFFFF, 0x7FC00000, 0x7FC00001, 0x7FFFFFFF, 0xFFC00000, 0xFF800001, 0xFFFFFFFF,
               0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0x3F800000, 0xBF808000, 0xBF818000]
    nan = (rng.integers(0, 2, 2048, dtype=np.uint32) << 31) | np.uint32(0x7F800000) | \
        rng.integers(1, 1 << 23, 2048, dtype=np.uint32)
    low = np.uint32(0x7F800000) | rng.integers(1, 1 << 16, 512, dtype=np.uint32)   # NaNs whose top 16 bits are inf
    sub = rng.integers(0, 1 << 23, 512, dtype=np.uint32) | (rng.integers(0, 2, 512, dtype=np.uint32) << 31)
    rest = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    out = np.concatenate([np.array(special, np.uint32), nan, low, sub, rest])[:n]
    return out


def _perelem_inputs(rng: np.random.Generator, dt: type, tiles: int) -> tuple[np.ndarray, ...]:
    """x, s, c: tiles of 256, eight tiles of each kind (see the names)."""
    f16 = dt == np.float16
    tiny = 2.0 ** (-14 if f16 else -126)      # smallest normal
    kinds = ["normal", "x_subnormal", "s_subnormal", "c_subnormal", "product_underflows", "special",
             "cancel", "mixed"]
    xs, ss, cs = [], [], []
    for t in range(tiles):
        kind = kinds[(t // 8) % len(kinds)]
        x = rng.standard_normal(256) * 2.0 ** rng.integers(-4, 4, 256)
        s = rng.standard_normal(256) * 2.0 ** rng.integers(-4, 4, 256)
        c = rng.standard_normal(256) * 2.0 ** rng.integers(-4, 4, 256)
        if kind == "x_subnormal":
            x = rng.uniform(-1, 1, 256) * tiny
        elif kind == "s_subnormal":
            s = rng.uniform(-1, 1, 256) * tiny
        elif kind == "c_subnormal":
            c = rng.uniform(-1, 1, 256) * tiny
        elif kind == "product_underflows":
            scale = 2.0 ** (-8 if f16 else -64)
            x, s = x * scale, s * scale
            c = rng.uniform(-1, 1, 256) * tiny * 4
        elif kind == "special":
            pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, tiny, tiny / 2])
            x = rng.choice(pool, 256)
            s = rng.choice(pool, 256)
            c = rng.choice(pool, 256)
        elif kind == "cancel":
            c = -(x.astype(dt) * s.astype(dt)).astype(dt).astype(np.float64)
        elif kind == "mixed":
            pick = rng.integers(0, 3, 256)
            x = np.where(pick == 0, rng.uniform(-1, 1, 256) * tiny, x)
            s = np.where(pick == 1, rng.uniform(-1, 1, 256) * tiny, s)
        xs.append(x), ss.append(s), cs.append(c)
    return tuple(np.concatenate(v).astype(dt) for v in (xs, ss, cs))


def _bf16_muladd_inputs(rng: np.random.Generator, tiles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import ml_dtypes
    bf16 = ml_dtypes.bfloat16
    a_s, b_s, c_s = [], [], []
    for t in range(tiles):
        kind = t % 4
        lo, hi = [(-70, -60), (-76, -62), (-66, -60), (-80, -58)][kind]
        a = rng.uniform(1, 2, 256) * 2.0 ** rng.integers(lo, hi, 256) * rng.choice([-1, 1], 256)
        b = rng.uniform(1, 2, 256) * 2.0 ** rng.integers(lo, hi, 256) * rng.choice([-1, 1], 256)
        if kind == 0:
            c = np.zeros(256)
        elif kind == 1:
            c = rng.uniform(-1, 1, 256) * 2.0 ** -126
        elif kind == 2:
            c = rng.uniform(-1, 1, 256) * 2.0 ** -124
        else:
            c = rng.uniform(-1, 1, 256) * 2.0 ** rng.integers(-149, -120, 256)
        a_s.append(a), b_s.append(b), c_s.append(c)
    return (np.concatenate(a_s).astype(bf16), np.concatenate(b_s).astype(bf16),
            np.concatenate(c_s).astype(np.float32))


def _reduce_inputs(rng: np.random.Generator, dt: type, n: int, onehot: bool, random_tiles: int) -> np.ndarray:
    tiles = []
    if onehot:
        eye = np.eye(n * n)
        tiles.extend(eye[k] for k in range(n * n))
    for _ in range(random_tiles):
        if dt == np.float16:
            tiles.append(rng.uniform(-1, 1, n * n) * 2.0 ** rng.integers(-6, 2, n * n))
        else:
            tiles.append(rng.standard_normal(n * n) * 2.0 ** rng.integers(-12, 12, n * n))
    return np.concatenate(tiles).astype(dt)


def build() -> None:
    rng = np.random.default_rng(24)
    bits = _f32_patterns(rng, 32 * 256)
    PROBES["cvt"] = ("cvt.spv", 32, {0: bits, 1: bits.view(np.float32), 2: 2 * bits.size, 3: 2 * bits.size})
    for name, dt in (("perelem_f32", np.float32), ("perelem_f16", np.float16)):
        x, s, c = _perelem_inputs(rng, dt, 64)
        size = 15 * x.nbytes
        PROBES[name] = (f"{name}.spv", 64, {0: x, 1: s, 2: c, 3: size, 4: size})
    for name, dt, n, onehot, rnd in (("reduce_rc_f32_16", np.float32, 16, True, 64),
                                     ("reduce_rc_f16_16", np.float16, 16, True, 64),
                                     ("reduce_rc_f32_32", np.float32, 32, False, 64),
                                     ("reduce_rc_f32_64wg", np.float32, 64, False, 32)):
        x = _reduce_inputs(rng, dt, n, onehot, rnd)
        PROBES[name] = (f"{name}.spv", x.size // (n * n), {0: x, 1: x.nbytes, 2: x.nbytes, 3: x.nbytes})
    a, b, c = _bf16_muladd_inputs(rng, 256)
    PROBES["bf16_muladd"] = ("bf16_muladd.spv", 256, {0: a, 1: b, 2: c, 3: c.nbytes})
    for kk in (32, 64):     # f16 accumulator, K beyond one block of 16: 16 tiles of 64x64
        a = (rng.standard_normal(16 * 64 * kk) * 2.0 ** rng.integers(-3, 3, 16 * 64 * kk)).astype(np.float16)
        b = (rng.standard_normal(16 * kk * 64) * 2.0 ** rng.integers(-3, 3, 16 * kk * 64)).astype(np.float16)
        c = (rng.standard_normal(16 * 4096) * 4).astype(np.float16)
        PROBES[f"f16acc_k{kk}"] = (f"f16acc_k{kk}.spv", 16, {0: a, 1: b, 2: c, 3: c.nbytes})


def main(out: Path) -> None:
    build()
    lines = ['VKRUN=${VKRUN:-./vkrun}', 'HERE=$(cd "$(dirname "$0")" && pwd)']
    for name, (module, groups, bufs) in PROBES.items():
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(HERE / module, d / module)
        args = []
        for b, v in sorted(bufs.items()):
            if isinstance(v, np.ndarray):
                v.tofile(d / f"in{b}.bin")
                args.append(f"$HERE/{name}/in{b}.bin")
            else:
                args.append(f"-:{v}")
        lines.append(f'mkdir -p "$OUT/{name}" && VKRUN_OUT="$OUT/{name}" timeout 120 "$VKRUN" run '
                     f'"$HERE/{name}/{module}" {groups} 1 1 {" ".join(args)} && echo "{name}: ok"')
    (out / "run.sh").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

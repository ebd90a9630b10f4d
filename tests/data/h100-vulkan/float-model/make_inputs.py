"""Inputs of the float-model probes (seed 36) and the script that runs them (issue 36).

    python make_inputs.py DIR        # DIR/<probe>_in<b>.bin and DIR/run.sh
    RAW=... VKRUN=.../vkrun sh DIR/run.sh   # on the GPU machine, next to the .spv files
    python pack.py RAW OUT           # the .npz files of this folder

Range probes (range_f32.spv / range_f16.spv) make their inputs from the invocation index: nothing to write."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SEED = 36
SCALAR_N = 16384            # elements per scalar probe (256 groups of 64)
MATRIX_T = 64               # 16x16 tiles per matrix probe
# (name, FUNC, first bit pattern, count) of the f32 range probes: exhaustive over the mantissas that matter
RANGES_F32 = [("rcp_1_2", 0, 0x3F800000, 1 << 23), ("rsqrt_1_4", 1, 0x3F800000, 1 << 24),
              ("sqrt_1_4", 2, 0x3F800000, 1 << 24), ("exp2_1_2", 3, 0x3F800000, 1 << 23),
              ("exp2_h_1", 3, 0x3F000000, 1 << 23), ("exp2_m1_mh", 3, 0xBF000000, 1 << 23),
              ("log2_1_2", 4, 0x3F800000, 1 << 23), ("log2_2_4", 4, 0x40000000, 1 << 23),
              ("sin_1_2", 7, 0x3F800000, 1 << 23), ("cos_1_2", 8, 0x3F800000, 1 << 23)]
# FUNC of the f16 range probes (every f16 pattern)
FUNCS_F16 = ["rcp", "rsqrt", "sqrt", "exp2", "log2", "exp", "log", "sin", "cos", "tanh"]


def f32_patterns(rng: np.random.Generator, n: int) -> np.ndarray:
    """NaNs (payloads in either half), infinities, zeros, subnormals, halfway cases for f16, random bits."""
    special = [0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7F800001,
               0x7FC00000, 0x7FC00001, 0x7FFFFFFF, 0xFFC00000, 0xFF800001, 0xFFFFFFFF, 0x7FA00000, 0x7F802000,
               0x3F801000, 0x3F803000, 0x3F801001, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x38800000, 0x33800000,
               0x33000000, 0x33000001, 0x387FC000, 0xB87FC000]
    k = n // 8
    nan = (rng.integers(0, 2, 2 * k, dtype=np.uint32) << 31) | np.uint32(0x7F800000) | \
        rng.integers(1, 1 << 23, 2 * k, dtype=np.uint32)
    f16range = rng.integers(0x33000000, 0x47800000, 2 * k, dtype=np.uint32) | \
        (rng.integers(0, 2, 2 * k, dtype=np.uint32) << 31)
    sub = rng.integers(0, 1 << 23, k, dtype=np.uint32) | (rng.integers(0, 2, k, dtype=np.uint32) << 31)
    rest = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([np.array(special, np.uint32), nan, f16range, sub, rest])[:n]


def scalar_inputs(rng: np.random.Generator, dt) -> list[np.ndarray]:
    """x, y, z, w: blocks of 1024 of eight kinds in turn."""
    f16 = dt == np.float16
    tiny = 2.0 ** (-14 if f16 else -126)
    n, B = SCALAR_N, 1024
    out: list[list[np.ndarray]] = [[], [], [], []]
    for b in range(n // B):
        kind = b % 8
        v = [rng.standard_normal(B) * 2.0 ** rng.integers(-4, 4, B) for _ in range(4)]
        if kind == 1:     # cancellation: z*w close to -(x*y), z close to -(x*y)
            p = (v[0].astype(dt) * v[1].astype(dt)).astype(dt).astype(np.float64)
            v[2] = -p * (1 + rng.standard_normal(B) * 2.0 ** -12)
            v[3] = (1 + rng.standard_normal(B) * 2.0 ** -14)
        elif kind == 2:   # cancellation of two products: z*w == -(x*y) nearly, z = -x
            v[2] = -v[0] * (1 + rng.standard_normal(B) * 2.0 ** -12)
            v[3] = v[1] * (1 + rng.standard_normal(B) * 2.0 ** -12)
        elif kind == 3:   # subnormal operands
            pick = rng.integers(0, 4, B)
            for j in range(4):
                v[j] = np.where(pick == j, rng.uniform(-1, 1, B) * tiny, v[j])
        elif kind == 4:   # specials
            pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, tiny, tiny / 2, 0.5, 2.0])
            v = [rng.choice(pool, B) for _ in range(4)]
        elif kind == 5:   # wide range: exp/log/pow/tanh arguments
            v[0] = rng.uniform(-90 if not f16 else -12, 90 if not f16 else 12, B)
            v[1] = rng.uniform(-4, 4, B)
        elif kind == 6:   # positive, every exponent (log, sqrt, rsqrt, rcp)
            e = rng.integers(-149 if not f16 else -24, 128 if not f16 else 16, B)
            v[0] = rng.uniform(1, 2, B) * 2.0 ** e
            v[1] = rng.uniform(1, 2, B) * 2.0 ** rng.integers(-60 if not f16 else -10, 60 if not f16 else 10, B)
        elif kind == 7:   # trigonometry: |x| up to 2^10, and smoothstep edges in order
            v[0] = rng.uniform(-1, 1, B) * 2.0 ** rng.integers(-8, 11, B)
            v[1] = v[0] + np.abs(rng.standard_normal(B))
            v[2] = v[0] + rng.uniform(-0.5, 1.5, B) * (v[1] - v[0])
        for j in range(4):
            out[j].append(v[j])
    with np.errstate(over="ignore"):
        arrs = [np.concatenate(o).astype(dt) for o in out]
    if dt == np.float32:   # NaNs with payloads among the specials
        bits = arrs[0].view(np.uint32)
        nanpos = np.flatnonzero(np.isnan(arrs[0]))
        bits[nanpos] = np.uint32(0x7F800000) | rng.integers(1, 1 << 23, nanpos.size, dtype=np.uint32)
    return arrs


def matrix_inputs(rng: np.random.Generator, dt) -> list[np.ndarray]:
    """x, y, z (T tiles) and one scalar per tile. f32 x: half the tiles conversion patterns (NaNs, f16
    halfway cases, subnormals), half normal values; y: normal values and a few specials; z normal."""
    n = MATRIX_T * 256
    if dt == np.float32:
        x = np.concatenate([f32_patterns(rng, n // 2).view(np.float32),
                            (rng.standard_normal(n // 2) * 2.0 ** rng.integers(-10, 10, n // 2)).astype(dt)])
    else:
        x = np.concatenate([np.arange(0, 1 << 16, 8, dtype=np.uint16).view(np.float16)[: n // 2],
                            (rng.standard_normal(n // 2) * 2.0 ** rng.integers(-6, 6, n // 2)).astype(dt)])
    with np.errstate(over="ignore"):
        y = (rng.standard_normal(n) * 2.0 ** rng.integers(-8, 8, n)).astype(dt)
        y[rng.integers(0, n, 64)] = rng.choice(np.array([0.0, -0.0, np.inf, np.nan, 1e-40, 3.0], dt), 64)
        z = rng.standard_normal(n).astype(dt)
        s = (rng.standard_normal(MATRIX_T) * 4).astype(dt)
    return [x, y, z, s]


def nv_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    n = MATRIX_T * 256
    x = np.concatenate([f32_patterns(rng, n // 2).view(np.float32),
                        (rng.standard_normal(n // 2) * 2.0 ** rng.integers(-10, 10, n // 2)).astype(np.float32)])
    y = (rng.standard_normal(n) * 2.0 ** rng.integers(-8, 8, n)).astype(np.float32)
    hx = (rng.standard_normal(n) * 2.0 ** rng.integers(-6, 6, n)).astype(np.float16)
    hy = (rng.standard_normal(n) * 2.0 ** rng.integers(-6, 6, n)).astype(np.float16)
    return [x, y, hx, hy]


def make_all() -> dict[str, list[np.ndarray]]:
    """{probe: its input arrays in binding order} (the scalar and matrix probes)."""
    rng = np.random.default_rng(SEED)
    return {"scalar_f32": scalar_inputs(rng, np.float32), "scalar_f16": scalar_inputs(rng, np.float16),
            "matrix_f32": matrix_inputs(rng, np.float32), "matrix_f16": matrix_inputs(rng, np.float16),
            "matrix_nv": nv_inputs(rng)}


def run_script() -> str:
    """run.sh: each probe through vkrun, its buffers into $RAW/<probe>/ (one folder per run)."""
    n, T = SCALAR_N, MATRIX_T
    lines = ['D=$(dirname "$0")']   # no set -e: a failing probe leaves the others

    def run(name, spv, groups, bufs, spec=None):
        env = f'VKRUN_SPEC="{spec}" ' if spec else ""
        lines.append(f'mkdir -p "$RAW/{name}" && VKRUN_OUT="$RAW/{name}" {env}"$VKRUN" run "$D/{spv}" {groups} '
                     + " ".join(bufs))
    for fmt, size in (("f32", 4), ("f16", 2)):
        ins = [f'"$D/scalar_{fmt}_in{b}.bin"' for b in range(4)]
        run(f"scalar_{fmt}", f"scalar_{fmt}.spv", f"{n // 64} 1 1", ins + [f"-:{36 * n * size}"])
        m = T * 256
        other = 2 if fmt == "f32" else 4
        ins = [f'"$D/matrix_{fmt}_in{b}.bin"' for b in range(4)]
        run(f"matrix_{fmt}", f"matrix_{fmt}.spv", f"{T} 1 1",
            ins + [f"-:{7 * m * size}", f"-:{7 * m * size}", f"-:{m * other}", f"-:{m * other}"])
    m = T * 256
    run("matrix_nv", "matrix_nv.spv", f"{T} 1 1",
        ['"$D/matrix_nv_in0.bin"', '"$D/matrix_nv_in1.bin"', f"-:{4 * m}", '"$D/matrix_nv_in2.bin"',
         '"$D/matrix_nv_in3.bin"', f"-:{2 * m}", f"-:{2 * m}"])
    for k, fn in enumerate(FUNCS_F16):
        run(f"range_f16_{fn}", "range_f16.spv", "256 1 1", [f"-:{2 << 16}"], f"0={k},1=0")
    for name, func, base, count in RANGES_F32:
        gy = max(1, count // (1 << 23))
        run(f"range_f32_{name}", "range_f32.spv", f"32768 {gy} 1", [f"-:{4 * count}"], f"0={func},1={base}")
    return "\n".join(lines) + "\n"


def main(out: str) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    for probe, arrs in make_all().items():
        for b, a in enumerate(arrs):
            (d / f"{probe}_in{b}.bin").write_bytes(a.tobytes())
    (d / "run.sh").write_text(run_script())


if __name__ == "__main__":
    main(sys.argv[1])

"""Inputs and run script of the second float-model run (issue 36: funcs.comp, range_more.comp; and the recorded
H100 probes again, with their recorded inputs, to check the card against the H100's records).

    python make_more.py DIR          # DIR/*.bin, DIR/run.sh
    RAW=... VKRUN=.../vkrun sh DIR/run.sh   # on the GPU machine, next to the .spv files
    python pack_more.py RAW OUT      # the .npz files of this folder (funcs.npz, f16_more.npz, ranges/..., recheck)"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SEED = 3636
FUNCS_N = 40960               # elements of the funcs probe (640 groups of 64)
FUNCS_NF = 47
# range_more.comp's FUNC values
MORE = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "tanh", "pow_x", "pow_y",
        "atan2_x", "atan2_y", "smoothstep"]
# f16: every input of each one-operand function; the two-operand ones at these other operands (p[0], p[1])
F16_PARAMS = {"pow_x": [0.5, 2.5, -1.3, 7.1, 0.1], "pow_y": [0.5, 2.5, 3.1, 10.0],
              "atan2_x": [1.0, -0.3], "atan2_y": [1.0, -0.3], "smoothstep": [(-1.0, 2.0), (0.25, 0.375)]}
# f32 slices (name, FUNC, first pattern, count): 2^20 consecutive patterns of two places per function, and tanh
# below 0.6 (the time-boxed item) over whole binades
F32_SLICES = [(f"{fn}_{tag}", MORE.index(fn), base, 1 << 20) for fn in MORE[:9]
              for tag, base in (("a", 0x3F000000 + 0x123456), ("b", 0x3D800000 + 0x2A0000))]
F32_SLICES += [(f"{fn}_c", MORE.index(fn), base, 1 << 20) for fn, base in
               (("sinh", 0x41200000), ("cosh", 0x41200000), ("asinh", 0x42C80000), ("acosh", 0x3FC00000),
                ("tan", 0x40400000), ("atan", 0x40A00000))]
F32_SLICES += [("tanh_h_06", 9, 0x3F000000, 0x3F19999A - 0x3F000000), ("tanh_q_h", 9, 0x3E800000, 1 << 23),
               ("tanh_e3", 9, 0x3E000000, 1 << 23), ("tanh_e4", 9, 0x3D800000, 1 << 23),
               ("tanh_e8", 9, 0x3B800000, 1 << 20), ("tanh_e12", 9, 0x39800000, 1 << 20)]


def funcs_inputs(rng: np.random.Generator, dt) -> list[np.ndarray]:
    """x, y, z, w: blocks of 4096 of ten kinds in turn."""
    f16 = dt == np.float16
    tiny = 2.0 ** (-14 if f16 else -126)
    B = 4096
    out: list[list[np.ndarray]] = [[], [], [], []]
    for kind in range(FUNCS_N // B):
        v = [rng.standard_normal(B) * 2.0 ** rng.integers(-4, 4, B) for _ in range(4)]
        if kind == 0:     # [-1, 1]: asin, acos, atanh
            v[0] = rng.uniform(-1, 1, B)
        elif kind == 1:   # small values
            v[0] = rng.uniform(-1, 1, B) * 2.0 ** rng.integers(-24 if not f16 else -14, 1, B)
        elif kind == 2:   # positive, every exponent (acosh, and huge arguments)
            v[0] = rng.uniform(1, 2, B) * 2.0 ** rng.integers(0, 127 if not f16 else 15, B)
        elif kind == 3:   # specials
            pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, tiny, tiny / 2, 0.5, -0.5, 2.0,
                             np.pi / 2, 1.5, 2.5, -2.5, 3.5])
            v = [rng.choice(pool, B) for _ in range(4)]
        elif kind == 4:   # subnormal operands
            pick = rng.integers(0, 4, B)
            for j in range(4):
                v[j] = np.where(pick == j, rng.uniform(-1, 1, B) * tiny, v[j])
        elif kind == 5:   # sinh, cosh range
            v[0] = rng.uniform(-90 if not f16 else -12, 90 if not f16 else 12, B)
        elif kind == 6:   # every exponent, both signs
            e = rng.integers(-149 if not f16 else -24, 128 if not f16 else 16, B)
            v[0] = rng.uniform(1, 2, B) * 2.0 ** e * rng.choice([-1, 1], B)
        elif kind == 7:   # halves and near-halves (round, roundEven, fract, mod), quotient-sized b
            m = rng.integers(-4000, 4000, B) / 2.0
            v[0] = np.where(rng.integers(0, 2, B) == 0, m, m + rng.standard_normal(B) * 2.0 ** -8)
            v[1] = rng.uniform(0.1, 8, B) * rng.choice([-1, 1], B)
        elif kind == 8:   # angles (tan), atan2 quadrants
            v[0] = rng.uniform(-1, 1, B) * 2.0 ** rng.integers(-8, 11, B)
            v[1] = rng.uniform(-1, 1, B) * 2.0 ** rng.integers(-8, 11, B)
        elif kind == 9:   # unit-ish vectors (refract, reflect, faceforward), [-1, 1]^4
            v = [rng.uniform(-1, 1, B) for _ in range(4)]
        for j in range(4):
            out[j].append(v[j])
    with np.errstate(over="ignore"):
        return [np.concatenate(o).astype(dt) for o in out]


def recheck_inputs(here: Path) -> dict[str, list[np.ndarray]]:
    """The recorded H100 probes' inputs, from this folder's records."""
    sc, mx = np.load(here / "scalar.npz"), np.load(here / "matrix.npz")
    out = {f"scalar_{f}": [sc[f"{f}_in{b}"] for b in range(4)] for f in ("f32", "f16")}
    for p in ("matrix_f32", "matrix_f16", "matrix_nv"):
        out[p] = [mx[f"{p}_in{b}"] for b in range(4)]
    return out


def make_all(here: Path) -> dict[str, list[np.ndarray]]:
    rng = np.random.default_rng(SEED)
    out = {"funcs_f32": funcs_inputs(rng, np.float32), "funcs_f16": funcs_inputs(rng, np.float16)}
    out.update(recheck_inputs(here))
    return out


def params(fmt: str) -> dict[str, np.ndarray]:
    """p of each two-operand f16 run (name_<j>) and of the f32 runs (unused: one element)."""
    out = {}
    for fn, vals in F16_PARAMS.items():
        for j, v in enumerate(vals):
            out[f"{fn}_{j}"] = np.array(v if isinstance(v, tuple) else (v, 0.0), np.float16)
    return out


def run_script() -> str:
    lines = ['D=$(dirname "$0")']

    def run(name, spv, groups, bufs, spec=None):
        env = f'VKRUN_SPEC="{spec}" ' if spec else ""
        lines.append(f'mkdir -p "$RAW/{name}" && VKRUN_OUT="$RAW/{name}" {env}"$VKRUN" run "$D/{spv}" {groups} '
                     + " ".join(bufs))
    n = FUNCS_N
    for fmt, size in (("f32", 4), ("f16", 2)):
        ins = [f'"$D/funcs_{fmt}_in{b}.bin"' for b in range(4)]
        run(f"funcs_{fmt}", f"funcs_{fmt}.spv", f"{n // 64} 1 1", ins + [f"-:{FUNCS_NF * n * size}"])
    for k, fn in enumerate(MORE):
        if fn in F16_PARAMS:
            for j in range(len(F16_PARAMS[fn])):
                run(f"more_f16_{fn}_{j}", "range_more_f16.spv", "256 1 1",
                    [f"-:{2 << 16}", f'"$D/p_{fn}_{j}.bin"'], f"0={k},1=0")
        else:
            run(f"more_f16_{fn}", "range_more_f16.spv", "256 1 1", [f"-:{2 << 16}", '"$D/p_none.bin"'], f"0={k},1=0")
    for name, func, base, count in F32_SLICES:
        gx, gy = (count + 255) // 256, 1
        if gx > 32768:
            gx, gy = 32768, (count + (1 << 23) - 1) >> 23
        run(f"more_f32_{name}", "range_more_f32.spv", f"{gx} {gy} 1", [f"-:{4 * gx * gy * 256}",
            '"$D/p_none.bin"'], f"0={func},1={base}")
    # the recorded H100 probes again
    sn = 16384
    for fmt, size in (("f32", 4), ("f16", 2)):
        ins = [f'"$D/scalar_{fmt}_in{b}.bin"' for b in range(4)]
        run(f"scalar_{fmt}", f"scalar_{fmt}.spv", f"{sn // 64} 1 1", ins + [f"-:{36 * sn * size}"])
        m = 64 * 256
        other = 2 if fmt == "f32" else 4
        ins = [f'"$D/matrix_{fmt}_in{b}.bin"' for b in range(4)]
        run(f"matrix_{fmt}", f"matrix_{fmt}.spv", "64 1 1",
            ins + [f"-:{7 * m * size}", f"-:{7 * m * size}", f"-:{m * other}", f"-:{m * other}"])
    m = 64 * 256
    run("matrix_nv", "matrix_nv.spv", "64 1 1",
        ['"$D/matrix_nv_in0.bin"', '"$D/matrix_nv_in1.bin"', f"-:{4 * m}", '"$D/matrix_nv_in2.bin"',
         '"$D/matrix_nv_in3.bin"', f"-:{2 * m}", f"-:{2 * m}"])
    for k in range(10):
        run(f"range_f16_{k}", "range_f16.spv", "256 1 1", [f"-:{2 << 16}"], f"0={k},1=0")
    for name, func, base in (("rcp_1_2", 0, 0x3F800000), ("exp2_1_2", 3, 0x3F800000), ("log2_1_2", 4, 0x3F800000),
                             ("sin_1_2", 7, 0x3F800000)):
        run(f"range_f32_{name}", "range_f32.spv", "32768 1 1", [f"-:{4 << 23}"], f"0={func},1={base}")
    return "\n".join(lines) + "\n"


def main(out: str) -> None:
    here = Path(__file__).resolve().parent
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    for probe, arrs in make_all(here).items():
        for b, a in enumerate(arrs):
            (d / f"{probe}_in{b}.bin").write_bytes(a.tobytes())
    for k, a in params("f16").items():
        (d / f"p_{k}.bin").write_bytes(a.tobytes())
    (d / "p_none.bin").write_bytes(bytes(16))
    (d / "run.sh").write_text(run_script())


if __name__ == "__main__":
    main(sys.argv[1])

"""The float-model probes' outputs as .npz files (run on the GPU machine after run.sh; make_inputs.py says how).

    python pack.py RAW OUT [INPUTS]   # RAW: run.sh's buffers; INPUTS: make_inputs.py's folder (default: RAW/..)

- scalar.npz: per format (f32, f16) `<fmt>_in0..3` the inputs and `<fmt>_gpu` the results (36 functions x n);
- matrix.npz: per probe (matrix_f32, matrix_f16, matrix_nv) `<probe>_in<b>` and `<probe>_gpu<b>`;
- f16_functions.npz: `<function>` the results of every f16 bit pattern (uint16, index = input bits);
- range_f32_<name>.npz: per f32 range `first` (the first result's bits) and `diff` (the differences between
  consecutive results' bits, the smallest integer type that holds them): cumsum gives the results."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from make_inputs import FUNCS_F16, MATRIX_T, RANGES_F32, SCALAR_N, make_all


def buf(raw: Path, probe: str, b: int, dt) -> np.ndarray:
    f = raw / probe / f"buf{b}.bin"
    if not f.exists():
        print(f"{probe}: no buffer {b} (the run failed)", flush=True)
        return np.zeros(1 << 24, dt)
    return np.fromfile(f, dt)


def _range(args) -> tuple[str, int]:
    raw, o, name, count = args
    first, diff = encode(buf(raw, f"range_f32_{name}", 0, np.uint32)[:count])
    np.savez_compressed(o / f"range_f32_{name}.npz", first=first, diff=diff)
    return name, (o / f"range_f32_{name}.npz").stat().st_size


def encode(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.diff(bits.astype(np.int64))
    for t in (np.int8, np.int16, np.int32):
        if d.size == 0 or (d.min() >= np.iinfo(t).min and d.max() <= np.iinfo(t).max):
            return bits[:1].copy(), d.astype(t)
    return bits[:1].copy(), d


def main(raw: str, out: str) -> None:
    r, o = Path(raw), Path(out)
    o.mkdir(parents=True, exist_ok=True)
    ins = make_all()
    sc = {}
    for fmt, dt in (("f32", np.float32), ("f16", np.float16)):
        for b, a in enumerate(ins[f"scalar_{fmt}"]):
            sc[f"{fmt}_in{b}"] = a
        sc[f"{fmt}_gpu"] = buf(r, f"scalar_{fmt}", 4, dt)[:36 * SCALAR_N].reshape(36, SCALAR_N)
    np.savez_compressed(o / "scalar.npz", **sc)
    mx = {}
    m = MATRIX_T * 256
    for fmt, dt, other in (("f32", np.float32, np.float16), ("f16", np.float16, np.float32)):
        p = f"matrix_{fmt}"
        for b, a in enumerate(ins[p]):
            mx[f"{p}_in{b}"] = a
        mx[f"{p}_gpu4"] = buf(r, p, 4, dt)[:7 * m]
        mx[f"{p}_gpu5"] = buf(r, p, 5, dt)[:7 * m]
        mx[f"{p}_gpu6"] = buf(r, p, 6, other)[:m]
        mx[f"{p}_gpu7"] = buf(r, p, 7, other)[:m]
    for b, a in enumerate(ins["matrix_nv"]):
        mx[f"matrix_nv_in{b}"] = a
    mx["matrix_nv_gpu2"] = buf(r, "matrix_nv", 2, np.float32)[:m]
    mx["matrix_nv_gpu5"] = buf(r, "matrix_nv", 5, np.float16)[:m]
    mx["matrix_nv_gpu6"] = buf(r, "matrix_nv", 6, np.float16)[:m]
    np.savez_compressed(o / "matrix.npz", **mx)
    np.savez_compressed(o / "f16_functions.npz",
                        **{f: buf(r, f"range_f16_{f}", 0, np.uint16)[:1 << 16] for f in FUNCS_F16})
    from multiprocessing import Pool
    with Pool(len(RANGES_F32)) as pool:
        for name, size in pool.map(_range, [(r, o, n, c) for n, _, _, c in RANGES_F32]):
            print(f"range_f32_{name}.npz: {size} bytes", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

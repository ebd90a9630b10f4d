"""The second float-model run's outputs as .npz files (run on the GPU machine after make_more.py's run.sh).

    python pack_more.py RAW OUT INPUTS   # RAW: run.sh's buffers; INPUTS: make_more.py's folder
    python pack_more.py --trim OUT/funcs.npz funcs.npz   # the part of funcs.npz kept here (trim())

- funcs.npz: per format `<fmt>_in0..3` and `<fmt>_gpu` (47 functions x 40,960) of funcs.comp (trimmed: trim());
- f16_more.npz: `<function>` (one-operand) or `<function>_<j>` (the F16_PARAMS run j) of range_more_f16: uint16
  results indexed by the input's bits;
- ranges_more.npz: per f32 slice `<name>_first`, `<name>_diff` (cumsum gives the results' bits), `<name>_base`;
- recheck.npz: the recorded H100 probes run again: `scalar_<fmt>_gpu`, `<matrix probe>_gpu<b>`, `range_f16_<k>`,
  `range_f32_<name>_first` / `_diff`."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from make_more import F16_PARAMS, F32_SLICES, FUNCS_N, FUNCS_NF, MORE


def buf(raw: Path, probe: str, b: int, dt, n: int) -> np.ndarray:
    f = raw / probe / f"buf{b}.bin"
    if not f.exists():
        print(f"{probe}: no buffer {b} (the run failed)", flush=True)
        return np.zeros(n, dt)
    return np.fromfile(f, dt)[:n]


def encode(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.diff(bits.astype(np.int64))
    for t in (np.int8, np.int16, np.int32):
        if d.size == 0 or (d.min() >= np.iinfo(t).min and d.max() <= np.iinfo(t).max):
            return bits[:1].copy(), d.astype(t)
    return bits[:1].copy(), d


def main(raw: str, out: str, inputs: str) -> None:
    r, o, i = Path(raw), Path(out), Path(inputs)
    n = FUNCS_N
    fx = {}
    for fmt, dt in (("f32", np.float32), ("f16", np.float16)):
        for b in range(4):
            fx[f"{fmt}_in{b}"] = np.fromfile(i / f"funcs_{fmt}_in{b}.bin", dt)
        fx[f"{fmt}_gpu"] = buf(r, f"funcs_{fmt}", 4, dt, FUNCS_NF * n).reshape(FUNCS_NF, n)
    np.savez_compressed(o / "funcs.npz", **fx)
    h = {}
    for fn in MORE:
        if fn in F16_PARAMS:
            for j in range(len(F16_PARAMS[fn])):
                h[f"{fn}_{j}"] = buf(r, f"more_f16_{fn}_{j}", 0, np.uint16, 1 << 16)
        else:
            h[fn] = buf(r, f"more_f16_{fn}", 0, np.uint16, 1 << 16)
    np.savez_compressed(o / "f16_more.npz", **h)
    rg = {}
    for name, _func, base, count in F32_SLICES:
        rg[f"{name}_first"], rg[f"{name}_diff"] = encode(buf(r, f"more_f32_{name}", 0, np.uint32, count))
        rg[f"{name}_base"] = np.array([base], np.uint32)
    np.savez_compressed(o / "ranges_more.npz", **rg)
    rc = {}
    sn, m = 16384, 64 * 256
    for fmt, dt, other in (("f32", np.float32, np.float16), ("f16", np.float16, np.float32)):
        rc[f"scalar_{fmt}_gpu"] = buf(r, f"scalar_{fmt}", 4, dt, 36 * sn)
        p = f"matrix_{fmt}"
        for b, t, k in ((4, dt, 7), (5, dt, 7), (6, other, 1), (7, other, 1)):
            rc[f"{p}_gpu{b}"] = buf(r, p, b, t, k * m)
    for b, t in ((2, np.float32), (5, np.float16), (6, np.float16)):
        rc[f"matrix_nv_gpu{b}"] = buf(r, "matrix_nv", b, t, m)
    for k in range(10):
        rc[f"range_f16_{k}"] = buf(r, f"range_f16_{k}", 0, np.uint16, 1 << 16)
    for name in ("rcp_1_2", "exp2_1_2", "log2_1_2", "sin_1_2"):
        rc[f"range_f32_{name}_first"], rc[f"range_f32_{name}_diff"] = \
            encode(buf(r, f"range_f32_{name}", 0, np.uint32, 1 << 23))
    np.savez_compressed(o / "recheck.npz", **rc)
    for f in sorted(o.glob("*.npz")):
        print(f"{f.name}: {f.stat().st_size} bytes", flush=True)




KEEP = 512   # of each block of 4,096 funcs.comp inputs (one kind), the results kept in the repository


def trim(full: str, out: str) -> None:
    """funcs.npz as kept here: all inputs (ldexp's exponent is the invocation index: the kernel must run on all of
    them), `<fmt>_idx` the first KEEP elements of each block and `<fmt>_gpu` their results only."""
    d = np.load(full)
    arrs = {}
    for fmt in ("f32", "f16"):
        n = d[f"{fmt}_in0"].size
        idx = np.concatenate([np.arange(s, s + KEEP) for s in range(0, n, 4096)]).astype(np.int32)
        arrs.update({f"{fmt}_in{b}": d[f"{fmt}_in{b}"] for b in range(4)})
        arrs[f"{fmt}_idx"] = idx
        arrs[f"{fmt}_gpu"] = d[f"{fmt}_gpu"][:, idx]
    np.savez_compressed(out, **arrs)


if __name__ == "__main__":
    if sys.argv[1] == "--trim":
        trim(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3])

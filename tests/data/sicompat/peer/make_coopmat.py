"""Writes the input and expected-output files of the coop-matrix-* examples here (numpy, independent of
spvcoop): python tests/data/sicompat/peer/make_coopmat.py. Written for spvcoop."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
f16 = np.float16


def _list(a: np.ndarray) -> str:
    return "[" + ", ".join(repr(float(v)) if np.isfinite(v) else ".nan" for v in np.ravel(a)) + "]"


def _yaml(path: Path, comment: str, blocks: dict[str, dict[str, np.ndarray]]) -> None:
    lines = [f"# {comment}"]
    for block, members in blocks.items():
        lines.append(f"{block}:")
        lines += [f"  {name}: {_list(a)}" for name, a in members.items()]
    path.write_text("\n".join(lines) + "\n")


def array() -> None:
    src = (np.arange(256) % 64 / 4).astype(f16)
    dst = (src.reshape(16, 16).T + f16(1)).astype(f16)   # loaded column-major, stored row-major
    d = HERE / "coop-matrix-array"
    _yaml(d / "in.yaml", "256 f16 values each; dst's length comes from its data", {
        "src": {"val": src}, "dst": {"val": np.zeros(256, f16)}})
    _yaml(d / "out.yaml", "dst = transpose(src as 16x16) + 1", {"dst": {"val": dst}})


def difficult_init() -> None:
    d = HERE / "coop-matrix-difficult-init"
    _yaml(d / "in.yaml", "both arrays start at zero", {"pair": {"first": np.zeros(12), "second": np.zeros(12)}})
    _yaml(d / "out.yaml", "every element 2.5, and 1.5 + 3.0", {
        "pair": {"first": np.full(12, 2.5), "second": np.full(12, 4.5)}})


def iteration() -> None:
    x = np.arange(18) * 0.5 - 3.0
    a = np.array([[x[2 + 3 * r + c] for c in range(3)] for r in range(4)], np.float32)
    a = np.maximum(a, 0) * np.float32(0.75) + np.float32(1)
    out = x.copy()
    for r in range(4):
        out[2 + 4 * r: 5 + 4 * r] = a[r]
    d = HERE / "coop-matrix-iteration"
    _yaml(d / "in.yaml", "x[2 + 3r + c] is element (r, c) of the 4x3 matrix", {"values": {"x": x}})
    _yaml(d / "out.yaml", "max(v, 0) * 0.75 + 1 stored at x[2 + 4r + c]; x[0:2], x[5], x[9], x[13], x[17] unchanged",
          {"values": {"x": out}})


def load_store() -> None:
    x = np.arange(24, dtype=np.float32) + 1
    m = x.reshape(6, 4).T            # column-major 4x6, stride 4
    d = HERE / "coop-matrix-load-store"
    _yaml(d / "in.yaml", "column c of the 4x6 matrix is x[4c:4c+4]", {"grid": {"x": x}})
    _yaml(d / "out.yaml", "the same matrix row-major: the 6x4 array transposed", {"grid": {"x": m.ravel()}})


def matmul() -> None:
    x = ((np.arange(32) % 5 - 2) / 2).astype(f16)
    a = x.reshape(4, 8).astype(np.float64)
    b = x[:32].reshape(8, 4).astype(np.float64)
    c = (a @ b + 0.5).astype(f16)    # every partial sum is a multiple of 0.25 below 8: exact in f16
    out = x.copy()
    out[:16] = c.ravel()
    d = HERE / "coop-matrix-matmul"
    _yaml(d / "in.yaml", "A is x as 4x8, B is x as 8x4 (both row-major)", {"halves": {"x": x}})
    _yaml(d / "out.yaml", "x[0:16] = A @ B + 0.5 (row-major 4x4); x[16:] unchanged", {"halves": {"x": out}})


def matmul2() -> None:
    x = np.array([1.5, -2.0, 0.25, 4.0])
    y = np.array([3.0, 0.5, -1.0, 2.0])
    z = np.array([10.0, 20.0, 30.0, 40.0])
    res = x.reshape(2, 2) @ y.reshape(2, 2) + z.reshape(2, 2)
    d = HERE / "coop-matrix-matmul2"
    _yaml(d / "in.yaml", "three row-major 2x2 matrices", {"three": {"x": x, "y": y, "z": z}})
    _yaml(d / "out.yaml", "z = x @ y + z", {"three": {"x": x, "y": y, "z": res.ravel()}})


def simple_element() -> None:
    x = np.array([1.5, -2.0, 0.75, 3.0, -0.5, 2.5, 1.25, 4.0, -1.75, 0.5, 6.0, -3.0], f16)
    p = x.reshape(2, 6)
    q = x.reshape(6, 2).T            # column-major 2x6, stride 2
    r = (p * q).astype(f16)
    r = (r - p).astype(f16)
    r = (-r).astype(f16)
    r = (r / q).astype(f16)          # each step rounded to f16, as the shader does
    d = HERE / "coop-matrix-simple-element"
    (d / "in.json").write_text(json.dumps({"block": {"x": [float(v) for v in x]}}, indent=1) + "\n")
    (d / "out.json").write_text(json.dumps({"block": {"x": [float(v) for v in r.ravel()]}}, indent=1) + "\n")


if __name__ == "__main__":
    for make in (array, difficult_init, iteration, load_store, matmul, matmul2, simple_element):
        make()

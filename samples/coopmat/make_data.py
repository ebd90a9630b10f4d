"""Inputs and expected outputs of the cooperative-matrix samples, computed with numpy alone (not by spvcoop).

    python samples/coopmat/make_data.py      # rewrites */in_*.npy and */expected.yaml + expected_*.npy

Float GEMMs follow the documented rule of the interpreter and of tensor cores for f16 inputs: products exact,
sums in f32; the expected files carry a tolerance (rtol 1e-5) for the order of the f32 sums. Integer results
are exact. The non-portable sample's expected output is the H100's, from the measured layout
(tests/data/h100-vulkan/layouts.json).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def save(d: str, name: str, arr: np.ndarray) -> None:
    np.save(HERE / d / f"{name}.npy", arr)


def expected(d: str, outputs: dict, rtol: float = 0.0, atol: float = 0.0) -> None:
    lines = [f"# expected outputs, from samples/coopmat/make_data.py (numpy); check with: spvcoop run "
             f"samples/coopmat/{d}/run.yaml --check samples/coopmat/{d}/expected.yaml"]
    for name, arr in outputs.items():
        save(d, f"expected_{name}", arr)
        lines.append(f"{name}: {{file: expected_{name}.npy, rtol: {rtol}, atol: {atol}}}")
    (HERE / d / "expected.yaml").write_text("\n".join(lines) + "\n")


def f32_gemm(A, B, C=None):
    D = A.astype(np.float64) @ B.astype(np.float64)  # exact products, sums more precise than f32
    return (D + (0 if C is None else C)).astype(np.float32)


def main() -> None:
    rng = np.random.default_rng(2026)
    # NV GEMM 64^3
    A, B = rng.standard_normal((64, 64)).astype(np.float16), rng.standard_normal((64, 64)).astype(np.float16)
    save("nv_gemm", "in_a", A)
    save("nv_gemm", "in_b", B)
    expected("nv_gemm", {"c": f32_gemm(A, B).ravel()}, 1e-4, 1e-4)
    # KHR GEMM 128^3 with C0
    A, B = rng.standard_normal((128, 128)).astype(np.float16), rng.standard_normal((128, 128)).astype(np.float16)
    C0 = rng.standard_normal((128, 128)).astype(np.float32)
    for n, v in (("in_a", A), ("in_b", B), ("in_c0", C0)):
        save("khr_gemm", n, v)
    expected("khr_gemm", {"c": f32_gemm(A, B, C0).ravel()}, 1e-4, 1e-4)
    # int8 GEMM, B stored column-major
    A = rng.integers(-128, 128, (32, 128)).astype(np.int8)
    B = rng.integers(-128, 128, (128, 48)).astype(np.int8)
    save("int8_gemm", "in_a", A)
    save("int8_gemm", "in_b_colmajor", np.ascontiguousarray(B.T))
    expected("int8_gemm", {"c": (A.astype(np.int64) @ B.astype(np.int64)).astype(np.int32).ravel()})
    # shared-memory staged GEMM 64^3
    A, B = rng.standard_normal((64, 64)).astype(np.float16), rng.standard_normal((64, 64)).astype(np.float16)
    save("shared_gemm", "in_a", A)
    save("shared_gemm", "in_b", B)
    expected("shared_gemm", {"c": f32_gemm(A, B).ravel()}, 1e-4, 1e-4)
    # element-wise
    X = (rng.standard_normal(8 * 256) * 4).astype(np.float32)
    save("elementwise", "in_x", X)
    Y = np.where(X > 0, X, np.float32(0.125) * X) * np.float32(2) + np.float32(1)
    expected("elementwise", {"y": Y.astype(np.float32)})
    # non-portable: per-invocation sums under the H100 layout of a f32 16x16 accumulator
    X = np.arange(256, dtype=np.float32)
    save("nonportable", "in_x", X)
    lay = json.loads((ROOT / "tests/data/h100-vulkan/layouts.json").read_text())["khr_f32_16x16_C"]
    S = np.zeros(16, np.uint32)
    for p in range(32):
        S[p // 2] += sum(int(X[r * 16 + c]) for r, c in lay["map"][p])
    expected("nonportable", {"s": S})

    # wave64: two 16x16 f32 tiles, each doubled by the "warp" of 32 invocations that owns it
    X = rng.integers(-64, 64, size=512).astype(np.float32)
    save("wave64", "in_x", X)
    expected("wave64", {"y": 2 * X})


if __name__ == "__main__":
    main()

"""Inputs and expected outputs of the coopmat2 samples, computed with numpy alone (not by spvcoop).

    python samples/coopmat2/make_data.py      # rewrites */in_*.npy and */expected.yaml + expected_*.npy

The expected outputs are the exact results (float64) of the mathematics the kernels stand for; the kernels
compute in f16/f32 (f16 inputs, f32 sums, the softmax weights rounded to f16 before P x V), so the expected
files carry a tolerance.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent


def expected(d: str, outputs: dict, rtol: float, atol: float) -> None:
    lines = [f"# expected outputs, from samples/coopmat2/make_data.py (numpy, float64); check with: spvcoop run "
             f"samples/coopmat2/{d}/run.yaml --check samples/coopmat2/{d}/expected.yaml"]
    for name, arr in outputs.items():
        np.save(HERE / d / f"expected_{name}.npy", arr)
        lines.append(f"{name}: {{file: expected_{name}.npy, rtol: {rtol}, atol: {atol}}}")
    (HERE / d / "expected.yaml").write_text("\n".join(lines) + "\n")


def main() -> None:
    rng = np.random.default_rng(2026_11_25)
    # tensor-addressed GEMM, M N K = 50 40 70 (not multiples of the 32 x 32 x 32 tile)
    M, N, K = 50, 40, 70
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    np.save(HERE / "tensor_gemm" / "in_a.npy", A.ravel())
    np.save(HERE / "tensor_gemm" / "in_b.npy", B.ravel())
    expected("tensor_gemm", {"c": (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32).ravel()},
             1e-5, 1e-5)
    # attention, Nq = 32 queries, L = 64 keys, head dimension 16, scale 1/4
    Nq, L, d = 32, 64, 16
    Q, Kt, V = (rng.standard_normal((n, d)).astype(np.float16) for n in (Nq, L, L))
    for name, arr in (("in_q", Q), ("in_k", Kt), ("in_v", V)):
        np.save(HERE / "flash_attention" / f"{name}.npy", arr.ravel())
    S = Q.astype(np.float64) @ Kt.astype(np.float64).T * 0.25
    P = np.exp(S - S.max(axis=1, keepdims=True))
    Out = (P / P.sum(axis=1, keepdims=True)) @ V.astype(np.float64)
    expected("flash_attention", {"o": Out.astype(np.float32).ravel()}, 2e-3, 2e-3)


if __name__ == "__main__":
    main()

"""Writes the in/out files of coopmat-arith and coopmat-muladd with numpy (run from this directory).
Expected values are printed as SPIRV-Interpreter prints them: 6 significant digits."""
import json

import numpy as np


def digits6(a):
    return [float(f"{float(x):.6g}") for x in np.asarray(a, np.float64).reshape(-1)]


# coopmat-arith: X row-major and X^T (the column-major load), then a = -(X + X^T); b = X^T - a; a = a / b,
# every step rounded to f16 (numpy's float16 arithmetic rounds each operation, as the shader's f16 ops do).
x = (np.arange(64, dtype=np.float64) + 1) / 10
X = x.astype(np.float16).reshape(8, 8)
a = -(X + X.T)
b = X.T - a
a = a / b
with open("coopmat-arith/in.json", "w") as f:
    json.dump({"block": {"x": [round(float(v), 1) for v in x]}}, f, indent="\t")
with open("coopmat-arith/out.json", "w") as f:
    json.dump({"block": {"x": digits6(a)}}, f, indent="\t")

# coopmat-muladd with M = 8 (spec constant by name): C = A * B + C, f16 inputs, f32 products and sums.
M = 8
A = ((np.arange(M * M) % 7) - 3).astype(np.float16).reshape(M, M) / np.float16(4)
B = ((np.arange(M * M) % 5) - 2).astype(np.float16).reshape(M, M) / np.float16(8)
C = np.ones((M, M), np.float32)
R = A.astype(np.float32) @ B.astype(np.float32) + C     # exact: small multiples of 1/32
with open("coopmat-muladd/in.yaml", "w") as f:
    f.write("M: 8\n")
    f.write(f"bufA: {{a: {[float(v) for v in A.reshape(-1)]}}}\nbufB: {{b: {[float(v) for v in B.reshape(-1)]}}}\n")
    f.write(f"bufC: {{c: {[float(v) for v in C.reshape(-1)]}}}\n")
with open("coopmat-muladd/out.yaml", "w") as f:
    f.write(f"bufC:\n  c: {digits6(R)}\n")

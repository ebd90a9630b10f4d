"""GLSL determinant and inverse of 3x3 and 4x4 matrices as the H200 (the H100's chip) computes them (issue 36),
against det.comp's recorded results (tests/data/h100-vulkan/float-model det.npz, its README says how): f32 and
f16, 3x3 and 4x4, bit for bit under --coop-numerics nvidia-tensorcore, specials included."""
from __future__ import annotations

import numpy as np
import pytest

import spvcoop
from conftest import DATA
from spvcoop import read_binary
from spvcoop.numerics import functions

FM = DATA / "h100-vulkan" / "float-model"
NOUT = 27   # det3, inverse3 (9, column by column), det4, inverse4 (16)
DT = {"f32": np.float32, "f16": np.float16}


def _det(fmt: str, numerics: str = "nvidia-tensorcore"):
    d = np.load(FM / "det.npz")
    a = d[f"{fmt}_in"]
    n = a.shape[0]
    res = spvcoop.run(str(FM / f"det_{fmt}.spv"), dispatch=(n // 64, 1, 1), coop_numerics=numerics,
                      buffers={0: a.ravel(), 1: np.zeros(NOUT * n, DT[fmt])})
    mine, gpu = np.asarray(res[1]).reshape(NOUT, n), d[f"{fmt}_gpu"]
    u = f"u{a.itemsize}"
    return mine.view(u), gpu.view(u)


@pytest.mark.parametrize("fmt", ["f32", "f16"])
def test_determinant_and_inverse_as_the_gpu_computes_them(fmt):
    mine, gpu = _det(fmt)
    assert np.array_equal(mine[:10], gpu[:10])            # 3x3: determinant and the nine entries of the inverse
    assert np.array_equal(mine[10:], gpu[10:])            # 4x4


def test_the_ieee_default_differs():
    mine, gpu = _det("f32", "ieee")
    for k in (0, 1, 10, 11):
        assert not np.array_equal(mine[k], gpu[k]), k


def test_f16_4x4_determinant_adds_two_fused_pairs():
    """f16 4x4: fma(m03, c3, m00 c0) + fma(m02, c2, m01 c1); the f32 order (the GPU's dot) differs in a third."""
    mine, gpu = _det("f16")
    d = np.load(FM / "det.npz")
    m = d["f16_in"].reshape(-1, 4, 4).astype(np.float32)
    f32_order = spvcoop.run(str(FM / "det_f32.spv"), dispatch=(m.shape[0] // 64, 1, 1),
                            coop_numerics="nvidia-tensorcore",
                            buffers={0: m.ravel(), 1: np.zeros(NOUT * m.shape[0], np.float32)})
    assert np.array_equal(mine[10], gpu[10])
    with np.errstate(over="ignore"):
        f32_det = np.asarray(f32_order[1]).reshape(NOUT, -1)[10].astype(np.float16)
    assert (f32_det.view(np.uint16) != gpu[10]).mean() > 0.3


def test_not_reproduced_names_no_matrix_function():
    for fmt in ("f32", "f16"):
        assert functions.not_reproduced(read_binary((FM / f"det_{fmt}.spv").read_bytes())) == []

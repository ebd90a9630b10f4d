"""Extension instructions against what an H200 (driver 580.159.04, the H100's driver family) computed for the same
inputs (tests/data/h100-vulkan/ext-numerics, recorded with vkrun; its README says how), under --coop-numerics
nvidia-tensorcore. Bit for bit, except what docs/interpreter-coopmat.md lists as not modelled."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import spvcoop
from conftest import DATA
from spvcoop.interp.compiled_floats import fma

EXT = DATA / "h100-vulkan" / "ext-numerics"


def _run(module: str, groups: int, buffers: dict, numerics: str = "nvidia-tensorcore") -> dict:
    res = spvcoop.run(str(EXT / module), dispatch=(groups, 1, 1), buffers=buffers, coop_numerics=numerics)
    return {b: np.asarray(res[b]) for b in buffers}


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


def test_f32_to_bf16_keeps_the_upper_half_nans_included():
    d = np.load(EXT / "cvt.npz")
    x = d["in0"]
    out = _run("cvt.spv", len(x) // 256, {0: x, 1: x.view(np.float32), 2: np.zeros(len(x), np.uint16),
                                          3: np.zeros(len(x), np.uint16)})
    nan = np.isnan(x.view(np.float32))
    assert nan.sum() > 2000            # the probe is mostly about NaNs
    for b in (2, 3):                   # scalars and a matrix conversion
        assert np.array_equal(_bits(out[b]), d[f"gpu{b}"])
    assert np.array_equal(d["gpu2"], (x >> 16).astype(np.uint16))


def test_bf16_muladd_into_the_f32_subnormal_range():
    d = np.load(EXT / "bf16_muladd.npz")
    c = d["in2"]
    out = _run("bf16_muladd.spv", len(c) // 256, {0: d["in0"], 1: d["in1"], 2: c, 3: np.zeros_like(c)})
    gpu = d["gpu3"]
    assert (np.abs(gpu) < np.finfo(np.float32).tiny).sum() > 10000   # results in the subnormal range
    assert np.array_equal(_bits(out[3]), _bits(gpu))


REDUCE = {"reduce_rc_f32_16": 16, "reduce_rc_f16_16": 16, "reduce_rc_f32_32": 32, "reduce_rc_f32_64wg": 64}


def _reduce(name: str):
    d = np.load(EXT / f"{name}.npz")
    x = d["in0"]
    n = REDUCE[name]
    out = _run(f"{name}.spv", len(x) // (n * n), {b: (x if b == 0 else np.zeros_like(x)) for b in range(4)})
    return d, out, n


@pytest.mark.parametrize("name", list(REDUCE))
def test_reduce_row_and_column_sum_in_the_gpus_order(name):
    d, out, _ = _reduce(name)
    assert np.array_equal(_bits(out[1]), _bits(d["gpu1"]))


@pytest.mark.parametrize("name", ["reduce_rc_f32_16", "reduce_rc_f32_32", "reduce_rc_f16_16"])
def test_reduce_row_and_column_operand_order_per_element(name):
    """a + 2b and 2a + b show, element by element, which operand each combine got (one-hot tiles first)."""
    d, out, n = _reduce(name)
    tiles = len(d["in0"]) // (n * n)
    for b in (2, 3):
        same = (_bits(out[b]) == _bits(d[f"gpu{b}"])).reshape(tiles, -1)
        onehot = n * n if name.endswith("_16") else 0
        assert same[:onehot].all()
        if name == "reduce_rc_f16_16" and b == 2:
            # documented (docs/interpreter-coopmat.md): f16 a + 2b on the random tiles is not reproduced
            assert not same[onehot:].all()
        else:
            assert same.all()


def test_reduce_row_and_column_workgroup_operand_order_not_modelled():
    """Documented: in a Workgroup-scope Row|Column reduction the order of the subgroups' shares per element is
    not modelled; the sum (commutative) is bit-identical (above), a + 2b is not."""
    d, out, _ = _reduce("reduce_rc_f32_64wg")
    assert not np.array_equal(_bits(out[2]), _bits(d["gpu2"]))


@pytest.mark.parametrize("fmt", ["f32", "f16"])
def test_per_element_functions_as_the_gpu_compiles_them(fmt):
    dt = np.float32 if fmt == "f32" else np.float16
    d = np.load(EXT / f"perelem_{fmt}.npz")
    x, s, c = d["in0"], d["in1"], d["in2"]
    z = np.zeros(15 * len(x), dt)
    out = _run(f"perelem_{fmt}.spv", len(x) // 256, {0: x, 1: s, 2: c, 3: z, 4: z.copy()})
    # buffer 3: in per-element calls; buffer 4: the same functions in plain code (the ordinary-code rules, issue
    # 36). x / s (k = 7) is x * rcp(s) with the GPU's rcp (numerics/functions.py), not correctly rounded
    for b in (3, 4):
        mine, gpu = out[b].reshape(15, -1), d[f"gpu{b}"].reshape(15, -1)
        for k in range(15):
            assert np.array_equal(_bits(mine[k]), _bits(gpu[k])), (fmt, b, k)


def test_per_element_ieee_numerics_differ_from_the_gpu():
    """The compiled-code rules apply only under nvidia-tensorcore: the IEEE default keeps subnormals and rounds
    x * s + c twice, which the probe's flushing and fused functions show."""
    d = np.load(EXT / "perelem_f32.npz")
    x, s, c = d["in0"], d["in1"], d["in2"]
    z = np.zeros(15 * len(x), np.float32)
    out = _run("perelem_f32.spv", len(x) // 256, {0: x, 1: s, 2: c, 3: z, 4: z.copy()}, numerics="ieee")
    mine, gpu = out[3].reshape(15, -1), d["gpu3"].reshape(15, -1)
    for k in (0, 3, 8):   # flush (x * s + c, x * s) and fusion (scalar operands)
        assert not np.array_equal(_bits(mine[k]), _bits(gpu[k]))


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_fma_rounds_once(dt):
    rng = np.random.default_rng(5)
    n = 3000
    a = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dt)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dt)
    with np.errstate(over="ignore"):   # cancellation: c close to -a*b
        c = (-(a.astype(np.float64) * b) * (1 + rng.standard_normal(n) * 2.0 ** -30)).astype(dt)
    with np.errstate(all="ignore"):
        r = fma(a, b, c, dt)
    for i in range(n):
        if not np.isfinite(r[i]):
            continue
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        want = dt(float(exact)) if exact != 0 else dt(0)
        # float(exact) rounds to f64 first: decide ties of the narrow format from the exact value
        lo, hi = np.nextafter(want, dt(-np.inf)), np.nextafter(want, dt(np.inf))
        err = abs(Fraction(float(want)) - exact)
        assert err <= abs(Fraction(float(lo)) - exact) and err <= abs(Fraction(float(hi)) - exact), i


@pytest.mark.parametrize("kk", [32, 64])
def test_f16_accumulator_rounds_to_f16_after_every_block_of_16(kk):
    """A Workgroup-scope f16 x f16 + f16 MulAdd with K = 32 or 64: the GPU rounds to f16 between the tensor
    cores' blocks of 16 (rounding to f32 there, as for f32 results, differs in most elements)."""
    d = np.load(EXT / f"f16acc_k{kk}.npz")
    c = d["in2"]
    out = _run(f"f16acc_k{kk}.spv", 16, {0: d["in0"], 1: d["in1"], 2: c, 3: np.zeros_like(c)})
    assert np.array_equal(_bits(out[3]), _bits(d["gpu3"]))


def test_a_freshly_measured_numerics_file_is_the_nvidia_model():
    """`spvcoop numerics measure` on the H200 (h200-numerics-measured.yaml, written by the GPU run that made
    compare-fitted.txt): every MulAdd and compiled-code parameter is nvidia-tensorcore's and all were identified.
    The file was written before `numerics measure` measured the ordinary-code parameters (code_*, issue 36: the
    scalar probes, tests/numerics/test_numerics_compiled.py): it keeps their IEEE defaults."""
    import yaml

    from spvcoop.numerics.fit import load_model_file
    from spvcoop.numerics.model import CODE_DEFAULTS, NVIDIA_TENSORCORE
    path = EXT / "h200-numerics-measured.yaml"
    measured = load_model_file(str(path))
    assert measured.with_(**NVIDIA_TENSORCORE.code_params()).params() == NVIDIA_TENSORCORE.params()
    assert measured.code_params() == CODE_DEFAULTS
    doc = yaml.safe_load(path.read_text())
    assert doc["not_identified"] == [] and doc["agreement_fresh"]["total"] == "589824/589824"

"""The MulAdd model family and its fitting, on synthetic data from the family itself (known parameters) and on
tiles recorded on an H100 (tests/data/h100-vulkan/vulkan-loop)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.gpu.numerics import load_measurement
from spvcoop.numerics.fit import Sample, agreement, fit, load_model_file, samples_from_tiles, to_yaml
from spvcoop.numerics.model import NVIDIA_TENSORCORE, MulAddModel, muladd
from spvcoop.numerics.tiles import FLOAT_DISTRIBUTIONS, make_tiles
from conftest import REPO, TESTS

DATA = TESTS / "data" / "h100-vulkan" / "vulkan-loop"


def _synthetic(model: MulAddModel, combos, n=4, seed=5) -> list[Sample]:
    out = []
    for a, b, c, M, N, K in combos:
        for dist in FLOAT_DISTRIBUTIONS:
            A, B, C = make_tiles(a, b, c, M, N, K, dist, n, seed)
            rdt = np.float32 if c == "f32" else np.float16
            out.append(Sample(a, b, c, M, N, K, dist, A, B, C, muladd(model, A, B, C, rdt, a, b)))
    return out


COMBOS = [("f16", "f16", "f32", 16, 16, 16), ("f16", "f16", "f16", 16, 8, 16), ("f16", "f16", "f32", 16, 8, 8)]


@pytest.mark.parametrize("truth", [
    MulAddModel(bits=23, drop="round", final="rne", subnormal_inputs="true", f16_result="via-f32",
                nan_f32=0x7FC00001, nan_f16=0x7E01),
    MulAddModel(bits=27, drop="truncate", final="rtz", overflow="inf", zero_sign="positive", nan_f32=0xFFC00000,
                nan_f16=0xFE00),
    NVIDIA_TENSORCORE,
])
@pytest.mark.slow
def test_fit_recovers_known_parameters(truth):
    samples = _synthetic(truth, COMBOS)
    f = fit(samples)
    eq, n = f.total()
    assert eq == n
    for name, value in truth.muladd_params().items():
        if name in f.unidentified or (name.startswith("nan_") and value is None):
            continue
        assert getattr(f.model, name) == value, name
    fresh = agreement(f.model, _synthetic(truth, COMBOS, seed=99))
    assert all(v[0] == v[1] for d in fresh.values() for v in d.values())


def test_fit_finds_align_none():
    truth = MulAddModel(align="none", final="rne", nan_f32=0x7FC00000)
    f = fit(_synthetic(truth, COMBOS[:1]))
    assert f.model.align == "none" and f.model.final == "rne" and f.total()[0] == f.total()[1]
    assert "bits" in f.unidentified and "drop" in f.unidentified   # no alignment: nothing is dropped


def test_model_family_members_differ_where_they_should():
    A, B, C = make_tiles("f16", "f16", "f32", 16, 16, 16, "normal", 8, 3)
    base = muladd(NVIDIA_TENSORCORE, A, B, C, np.float32)
    for change in ({"bits": 24}, {"drop": "round"}, {"final": "rne"}, {"align": "none"}):
        other = muladd(NVIDIA_TENSORCORE.with_(**change), A, B, C, np.float32)
        assert (other.view(np.uint32) != base.view(np.uint32)).any(), change
    exact = A.astype(np.float64) @ B.astype(np.float64) + C
    assert np.abs(base - exact).max() < 1e-4 * np.abs(exact).max()   # a few ulp, never more


@pytest.mark.slow
def test_fit_of_recorded_h100_tiles_is_nvidia_tensorcore():
    data = load_measurement(DATA / "muladd-tiles.npz")[0]
    f = fit(samples_from_tiles(data, 1))
    assert f.model.muladd_params() == NVIDIA_TENSORCORE.muladd_params()
    assert f.total()[0] == f.total()[1]
    fresh = agreement(f.model, samples_from_tiles(data, 2))
    assert all(v[0] == v[1] for d in fresh.values() for v in d.values())


def test_numerics_file_round_trip(tmp_path):
    samples = _synthetic(NVIDIA_TENSORCORE, COMBOS[:1])
    f = fit(samples, name="rt")
    p = tmp_path / "rt.yaml"
    p.write_text(to_yaml(f, None, "synthetic"))
    assert load_model_file(str(p)).params() == f.model.params()


@pytest.mark.parametrize("text, words", [
    ("params: {bits: 25, colour: red}\n", "unknown parameter"),
    ("params: {bits: many}\n", "bits must be int"),
    ("params: {drop: sideways}\n", "drop must be one of"),
    ("params: {nan_f32: '0xzz'}\n", "not a number"),
    ("name: x\n", "maps 'params'"),
])
def test_bad_numerics_files(tmp_path, text, words):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(SpvError) as e:
        load_model_file(str(p))
    assert words in str(e.value.diagnostics[0].message)


@pytest.mark.slow
def test_numerics_fit_command_and_run_with_the_file(tmp_path):
    out = tmp_path / "h100.yaml"
    p = subprocess.run([sys.executable, "-m", "spvcoop", "numerics", "fit", str(DATA / "muladd-tiles.npz"), "-o",
                        str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "on fresh tiles" in p.stderr and "bits: 25" in out.read_text()
    spec = REPO / "samples" / "coopmat" / "khr_gemm" / "run.yaml"
    runs = [subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec), "--coop-numerics", m, "-o",
                            str(tmp_path / f"{i}.npy")], capture_output=True, text=True)
            for i, m in enumerate((str(out), "nvidia-tensorcore", "ieee"))]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    a, b, c = (np.load(tmp_path / f"{i}.npy") for i in range(3))
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()
    bad = subprocess.run([sys.executable, "-m", "spvcoop", "numerics", "fit", str(spec), "-o", str(out)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read tiles" in bad.stderr

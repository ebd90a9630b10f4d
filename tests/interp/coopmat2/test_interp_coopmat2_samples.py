"""Every sample under samples/coopmat2 runs and matches its expected output (numpy, samples/coopmat2/make_data.py),
and its module is valid for spirv-val."""
from __future__ import annotations


import pytest

from spvcoop.cli import main
from conftest import REPO, run_tool

SAMPLES = REPO / "samples" / "coopmat2"
SPECS = sorted(SAMPLES.glob("*/run.yaml"))


def test_there_are_samples():
    assert {p.parent.name for p in SPECS} >= {"tensor_gemm", "flash_attention"}


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.parent.name)
def test_sample_matches_its_expected_output(spec):
    assert main(["run", str(spec), "--check", str(spec.parent / "expected.yaml"), "-q"]) == 0


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.parent.name)
def test_sample_module_is_valid(spec, tmp_path):
    (src,) = spec.parent.glob("*.spvasm")
    spv = tmp_path / "m.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(src), "-o", str(spv)).returncode == 0
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()


def test_attention_sample_is_layout_portable(capsys):
    spec = SAMPLES / "flash_attention" / "run.yaml"
    assert main(["run", str(spec), "--layout", "all", "--subgroup-size", "32"]) == 0
    assert "portable: all outputs identical under" in capsys.readouterr().out

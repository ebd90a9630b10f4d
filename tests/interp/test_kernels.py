"""The real-world kernel suite (tests/kernels/, see its README): every build of every kernel is run end
to end by `spvcoop run SPEC --check EXPECTED -o DIR` and its outputs are compared with the numpy-made
expected arrays here too (independently of --check); every committed .spvasm (and .spv) must still be
what glslangValidator (+ spirv-opt) make of the GLSL today; the committed data must be what
make_data.py makes.

Kernels that fail today because of a known interpreter defect (issue 11) are listed in FAILS_TODAY
with the defect and the message they fail with. Such a test checks that it still fails with exactly
that message and then reports itself as xfail; if it passes, or fails differently, the test fails:
a fix must delete its entry (nothing is skipped silently).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import yaml

from spvcoop.cli import main as cli
from conftest import TESTS

KERNELS = TESTS / "kernels"

_spec = importlib.util.spec_from_file_location("kernels_make_data", KERNELS / "make_data.py")
make_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_data)

BUILDS = make_data.builds()
IDS = [f"{src.parent.name}/{variant}" for src, variant, *_ in BUILDS]

# kernel/variant -> (issue 11 defects, the errors it stops with today, in the order they are met: when
# one defect is fixed the next one shows, which is still a known failure)
FAILS_TODAY: dict[str, tuple[str, list[str]]] = {}


def _run_spec(kernel: str, variant: str) -> tuple[Path, Path]:
    return KERNELS / kernel / f"run_{variant}.yaml", KERNELS / kernel / f"expected_{variant}.yaml"


def test_every_build_has_a_run_spec_and_an_expected_output():
    assert len(BUILDS) >= 10
    named = {(src.parent.name, variant) for src, variant, *_ in BUILDS}
    for kernel, variant in named:
        spec, exp = _run_spec(kernel, variant)
        assert spec.is_file() and exp.is_file(), (kernel, variant)
    on_disk = {(p.parent.name, p.stem[len("run_"):]) for p in KERNELS.glob("*/run_*.yaml")}
    assert on_disk == named


@pytest.mark.slow
@pytest.mark.parametrize("build", BUILDS, ids=IDS)
def test_kernel_runs_and_matches_numpy(build, tmp_path, capsys):
    src, variant, *_ = build
    kernel = src.parent.name
    spec, exp = _run_spec(kernel, variant)
    rc = cli(["run", str(spec), "--check", str(exp), "-o", f"{tmp_path}/"])
    out = capsys.readouterr()
    text = out.out + out.err
    known = FAILS_TODAY.get(f"{kernel}/{variant}")
    if known is not None:
        defects, messages = known
        assert rc != 0, f"{kernel}/{variant} passes now: delete its FAILS_TODAY entry (defects {defects})"
        assert any(m in text for m in messages), \
            f"{kernel}/{variant} fails differently than known (defects {defects}):\n{text}"
        pytest.xfail(f"issue 11 defects {defects}")
    assert rc == 0, text
    assert "check passed" in text
    # the same comparison without --check: the expected arrays at the tolerances in the expected file
    for name, entry in yaml.safe_load(exp.read_text()).items():
        got = np.load(tmp_path / f"{name}.npy")
        want = np.load(exp.parent / entry["file"])
        assert got.dtype == want.dtype and got.size == want.size, (name, got.dtype, got.shape)
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=entry["rtol"], atol=entry["atol"],
                                   err_msg=f"{kernel}/{variant}: {name}")


@pytest.mark.slow
@pytest.mark.parametrize("build", BUILDS, ids=IDS)
def test_committed_spvasm_is_what_glslang_makes_today(build):
    src, variant, flags, opt, keep_spv, compiler = build
    committed = src.parent / f"{variant}.spvasm"
    if compiler == make_data.GLSLANG16:
        # glslang 16.5 is no test dependency: the committed binary of the unoptimised build (+spv) stands for its
        # output; its .spvasm must be its disassembly and each spirv-opt variant what spirv-opt makes of it today
        import spvcoop
        base = [b for b in BUILDS if b[0] == src and b[2] == flags and b[3] is None and b[4]]
        assert len(base) == 1, f"{src}: a build16 line '+spv' without spirv-opt and the same glslang flags is needed"
        data = (src.parent / f"{base[0][1]}.spv").read_bytes()
        if opt is not None:
            data = make_data.optimise(data, opt)
        assert committed.read_text() == spvcoop.disassemble(spvcoop.read_binary(data, "spv")), \
            f"{committed} is not what the committed binary gives: run make_data.py --build16 GLSLANG"
        assert (src.parent / f"{variant}.spv").is_file() == keep_spv
        return
    data, text = make_data.compile_variant(src, flags, opt)
    assert committed.read_text() == text, f"{committed} drifted from {src.name}: run make_data.py --build"
    binary = src.parent / f"{variant}.spv"
    assert binary.is_file() == keep_spv
    if keep_spv:
        assert binary.read_bytes() == data


def test_committed_data_is_what_make_data_makes(tmp_path, monkeypatch):
    """Inputs and expected outputs come from make_data.py alone (numpy, fixed seeds)."""
    for kernel in {src.parent.name for src, *_ in BUILDS}:
        (tmp_path / kernel).mkdir()
    monkeypatch.setattr(make_data, "HERE", tmp_path)
    make_data.main([])
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.glob("*/*") if p.suffix in (".npy", ".yaml")
                  and not p.name.startswith("run_"))
    committed = sorted(p.relative_to(KERNELS) for p in KERNELS.glob("*/*") if p.suffix in (".npy", ".yaml")
                       and not p.name.startswith("run_"))
    assert made == committed
    for rel in made:
        if rel.suffix == ".yaml":
            assert (tmp_path / rel).read_text() == (KERNELS / rel).read_text(), rel
        else:
            a, b = np.load(tmp_path / rel), np.load(KERNELS / rel)
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), rel


def test_kernel_run_specs_use_only_committed_files():
    """Run specs name the committed shader and data files, nothing generated at test time."""
    for spec in KERNELS.glob("*/run_*.yaml"):
        raw = yaml.safe_load(spec.read_text())
        assert (spec.parent / raw["shader"]).is_file(), spec
        for entry in (raw.get("buffers") or {}).values():
            if isinstance(entry, dict) and "file" in entry:
                assert (spec.parent / entry["file"]).is_file(), (spec, entry)

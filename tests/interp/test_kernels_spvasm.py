"""Kernels of the suite written in assembly, where glslang 13.1 cannot express them
(tests/kernels_spvasm/: OpSelect between cooperative matrices)."""
from __future__ import annotations

import importlib.util

import numpy as np

from spvcoop.cli import main as cli
from conftest import TESTS

SELECT = TESTS / "kernels_spvasm" / "select"


def _make_data():
    spec = importlib.util.spec_from_file_location("select_make_data", SELECT / "make_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_select_between_matrices_matches_numpy(tmp_path, capsys) -> None:
    argv = ["run", str(SELECT / "run.yaml"), "--check", str(SELECT / "expected.yaml"), "-o", str(tmp_path) + "/"]
    assert cli(argv) == 0
    d = np.load(tmp_path / "D.npy")
    np.testing.assert_allclose(d, np.load(SELECT / "expected_d.npy"), rtol=1e-6, atol=1e-6)
    # both sides of the select are taken: even workgroups hold C * 0.5 exactly
    c = np.load(SELECT / "in_c.npy").reshape(4, 256)
    assert (d.reshape(4, 256)[0::2] == c[0::2] * np.float32(0.5)).all()
    assert not np.allclose(d.reshape(4, 256)[1::2], c[1::2] * np.float32(0.5))


def test_select_condition_flipped_fails_the_check(tmp_path, capsys) -> None:
    spec = tmp_path / "run.yaml"
    for f in SELECT.iterdir():
        if f.is_file():   # not the __pycache__ that importing make_data.py leaves beside it
            (tmp_path / f.name).write_bytes(f.read_bytes())
    spec.write_text((SELECT / "run.yaml").read_text().replace("flip: 1", "flip: 0"))
    assert cli(["run", str(spec), "--check", str(tmp_path / "expected.yaml"), "-q"]) == 1
    assert "check failed: 1024 value(s) differ" in capsys.readouterr().err


def test_committed_data_is_what_make_data_makes(tmp_path, monkeypatch) -> None:
    module = _make_data()
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    for name in ("in_a.npy", "in_b.npy", "in_c.npy", "expected_d.npy"):
        assert np.array_equal(np.load(tmp_path / name), np.load(SELECT / name)), name

"""A cooperative matrix in a workgroup smaller than the subgroup (16 invocations, 32-lane subgroups) runs under
the interpreter's partial-subgroup rules, which no driver promises (drivers require full subgroups): the run says
so in a located warning naming the matrix type, kept in RunResult.diagnostics and printed by `spvcoop run`."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import spvcoop
from conftest import TESTS

KERNEL = TESTS / "kernels" / "partial_subgroup"


def copy_kernel(tmp_path: Path) -> Path:
    for f in ("O0.spvasm", "run_O0.yaml", "in_a.npy", "in_w.npy", "in_x.npy"):
        shutil.copy(KERNEL / f, tmp_path / f)
    return tmp_path / "run_O0.yaml"


def type_lines(path: Path) -> list[int]:
    return [i + 1 for i, line in enumerate(path.read_text().splitlines()) if "= OpTypeCooperativeMatrixKHR" in line]


@pytest.mark.slow
def test_cli_warns_at_each_matrix_type(tmp_path: Path) -> None:
    spec = copy_kernel(tmp_path)
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec), "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if ": warning" in line]
    lines = type_lines(tmp_path / "O0.spvasm")
    assert len(warnings) == len(lines) and lines
    for w, n in zip(warnings, lines, strict=True):
        assert w.startswith(f"{tmp_path / 'O0.spvasm'}:{n}:")
        assert "is used in a workgroup of 16 invocations, smaller than the subgroup size 32: lanes 16..31" in w
        assert "element-wise writes (m[i] = ..., OpCompositeInsert) leave those elements unchanged" in w


def test_api_result_carries_the_warning_and_full_subgroups_have_none(tmp_path: Path) -> None:
    import numpy as np
    bufs = {n: np.load(KERNEL / f"in_{n}.npy") for n in "awx"}
    bufs["y"] = np.zeros(1024, np.float32)
    res = spvcoop.run(str(KERNEL / "O0.spvasm"), dispatch=(4, 1, 1), buffers=bufs, push_constants={"steps": 3},
                      subgroup_size=32)
    assert res.diagnostics and all(d.severity == "warning" for d in res.diagnostics)
    assert res.diagnostics[0].span.line == type_lines(KERNEL / "O0.spvasm")[0]
    full = spvcoop.run(str(KERNEL / "O0.spvasm"), dispatch=(4, 1, 1), buffers=bufs, push_constants={"steps": 3},
                       subgroup_size=16)
    assert full.diagnostics == []

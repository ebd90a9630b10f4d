"""Aliased memory: variables decorated with one DescriptorSet/Binding are one Vulkan buffer, and the Block
Workgroup variables of SPV_KHR_workgroup_memory_explicit_layout are one allocation; a store through one view
is a load through every other. Expected values are computed with numpy."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spvcoop
from conftest import TESTS, run_tool
from spvcoop import SpvError

DATA = TESTS / "data" / "aliasing"
X = np.arange(16, dtype=np.float32) + 1
SCALE = np.tile(np.array([1, 2, 3, 4], np.float32), 4)


def expected() -> tuple[np.ndarray, np.ndarray]:
    o = X * SCALE                        # what the vec4 view writes, read as floats
    s = o.reshape(4, 4)[:, 1] + o.reshape(4, 4)[:, 3]
    return o, s


def test_vec4_writes_are_float_reads() -> None:
    res = spvcoop.run(str(DATA / "alias.comp"), buffers={"o": np.zeros(16, np.float32), "x": X,
                                                          "s": np.zeros(4, np.float32)})
    o, s = expected()
    np.testing.assert_array_equal(res["o"], o)
    np.testing.assert_array_equal(res["s"], s)      # read back in the shader through the float view
    np.testing.assert_array_equal(res["o4"], o.reshape(4, 4))   # the other view, by its own name
    np.testing.assert_array_equal(res[(0, 0)], o)   # the binding reports the view its data was named by


def test_data_named_by_the_vec4_view() -> None:
    res = spvcoop.run(str(DATA / "alias.comp"), buffers={"o4": np.zeros((4, 4), np.float32), "x": X,
                                                          "s": np.zeros(4, np.float32)})
    o, s = expected()
    np.testing.assert_array_equal(res["o4"], o.reshape(4, 4))
    np.testing.assert_array_equal(res["o"], o)
    np.testing.assert_array_equal(res["s"], s)


def test_one_binding_given_twice_is_refused() -> None:
    with pytest.raises(SpvError, match=r"buffers 'o' and 'o4' are one descriptor \(set 0, binding 0\)"):
        spvcoop.run(str(DATA / "alias.comp"), buffers={"o": np.zeros(16, np.float32), "o4": np.zeros((4, 4)),
                                                       "x": X, "s": np.zeros(4, np.float32)})


@pytest.mark.slow
def test_cli_reports_the_binding_once(tmp_path: Path) -> None:
    (tmp_path / "alias.comp").write_bytes((DATA / "alias.comp").read_bytes())
    (tmp_path / "run.yaml").write_text("shader: alias.comp\nbuffers:\n  o: {zeros: 16}\n"
                                       f"  x: {{data: {X.tolist()}}}\n  s: {{zeros: 4}}\n")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml"), "-o",
                        str(tmp_path / "out.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads((tmp_path / "out.json").read_text())
    o, s = expected()
    assert sorted(out) == ["o", "s", "x"]   # binding 0 once, by the name the spec used
    assert out["o"] == o.tolist() and out["s"] == s.tolist()


def test_workgroup_blocks_share_memory(tmp_path: Path) -> None:
    src = DATA / "wg_alias.spvasm"
    r = run_tool("spirv-as", "--target-env", "vulkan1.2", str(src), "-o", str(tmp_path / "wg.spv"))
    assert r.returncode == 0, r.stderr
    r = run_tool("spirv-val", "--target-env", "vulkan1.2", str(tmp_path / "wg.spv"))
    assert r.returncode == 0, r.stderr   # the module is valid SPIR-V: the aliasing is the spec's
    x = X.reshape(4, 4)
    res = spvcoop.run(str(tmp_path / "wg.spv"), buffers={"in": x, "out": np.zeros(4, np.float32)})
    # invocation i stores x[i] through the vec4 view; after the barrier it loads float 2 of vec4 i+1
    np.testing.assert_array_equal(res["out"], x[(np.arange(4) + 1) % 4, 2])

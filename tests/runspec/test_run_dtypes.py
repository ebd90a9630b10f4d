"""Data whose dtype differs from the shader's element type is converted by value where every value is exact in
the element type, and refused otherwise (at the spec entry's line, naming the value, its index and both types);
it is never reinterpreted bit for bit. Raw bytes stay raw."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spvcoop
from spvcoop import SpvError
from conftest import REPO

SAXPY = REPO / "samples" / "saxpy" / "saxpy.spvasm"
X = np.arange(8, dtype=np.float32)


def spec_run(tmp_path: Path, y_entry: str) -> subprocess.CompletedProcess:
    (tmp_path / "saxpy.spvasm").write_bytes(SAXPY.read_bytes())
    (tmp_path / "run.yaml").write_text("shader: saxpy.spvasm\npush_constants: {a: 2.0, n: 8}\nbuffers:\n"
                                       f"  x: {{arange: 8}}\n  y: {y_entry}\noutputs: [y]\n")
    return subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml")],
                          capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "int32", "int8", "uint8", "uint16", "float16"])
def test_spec_dtype_converted_by_value(tmp_path: Path, dtype: str) -> None:
    r = spec_run(tmp_path, f"{{data: [1, 1, 1, 1, 1, 1, 1, 1], dtype: {dtype}}}")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"y: {(2 * X + 1).tolist()}\n"   # 2*x + y, not y's bytes read as floats


@pytest.mark.slow
def test_spec_inexact_value_refused_at_its_entry(tmp_path: Path) -> None:
    r = spec_run(tmp_path, "{data: [1, 1, 1, 0.1, 1, 1, 1, 1], dtype: float64}")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{tmp_path / 'run.yaml'}:5:")
    assert "buffer 'y': value 0.1 at index [3] (float64) has no exact value in float32" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_spec_int_beyond_float32_refused(tmp_path: Path) -> None:
    r = spec_run(tmp_path, "{data: [16777217, 1, 1, 1, 1, 1, 1, 1], dtype: int32}")
    assert r.returncode == 1
    assert "value 16777217 at index [0] (int32) has no exact value in float32" in r.stderr


def api(y) -> np.ndarray:
    return spvcoop.run(str(SAXPY), buffers={"x": X, "y": y}, push_constants={"a": 2.0, "n": 8})["y"]


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64, np.uint16, np.float16, np.bool_])
def test_api_array_converted_by_value(dtype) -> None:
    y = np.ones(8, dtype)
    got = api(y)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, 2 * X + 1)


def test_api_inexact_array_refused_naming_the_buffer() -> None:
    y = np.ones(8)
    y[5] = 1e-50
    with pytest.raises(SpvError, match=r"buffer 'Y': value 1e-50 at index \[5\] \(float64\) has no exact value "
                                       r"in float32"):
        api(y)
    raw = np.full(8, 3.0, np.float32).tobytes()   # bytes are taken as they are, also as a uint8 array
    np.testing.assert_array_equal(api(raw), 2 * X + 3)
    np.testing.assert_array_equal(api(np.frombuffer(raw, np.uint8)).view(np.float32), 2 * X + 3)

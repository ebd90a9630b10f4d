"""bfloat16 and FP8 buffers given unsigned integers of their width take them as encodings, as the README says, the
same from a .npy file, a YAML `dtype: uint16` list, the Python API and the GPU runner (issue 32, item 2: a uint16
.npy named by "set:binding" was converted by value, 0x429f, the encoding of 79.5, read back as 17024.0). Other data
of another dtype is converted by value where exact, also from a .npy file (a float64 file was rounded silently)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import spvcoop
from spvcoop.gpu.runner import run_on_device
from gpu_fakes import FakeDevice, FakeVk
from conftest import REPO, TESTS

DATA = TESTS / "data"
BF16 = DATA / "bf16_scalar.spvasm"          # buf[1] = bf16(2 * float(buf[0]))
E4M3 = DATA / "fp8" / "e4m3_scalar.spvasm"  # the same in E4M3
CASES = [(BF16, np.array([0x429F, 0], np.uint16), ml_dtypes.bfloat16),        # 79.5
         (E4M3, np.array([0x3B, 0], np.uint8), ml_dtypes.float8_e4m3fn)]      # 1.375


def doubled(enc: np.ndarray, dt) -> np.ndarray:
    v = enc.view(dt).astype(np.float32)
    return np.array([enc[0], (2 * v[0]).astype(dt).view(enc.dtype)], enc.dtype)


def cli(tmp_path: Path, shader: Path, entry: str) -> subprocess.CompletedProcess:
    (tmp_path / shader.name).write_bytes(shader.read_bytes())
    (tmp_path / "run.yaml").write_text(f"shader: {shader.name}\nbuffers:\n  {entry}\n")
    return subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml"), "-o",
                           str(tmp_path / "out.npy")], capture_output=True, text=True)


@pytest.mark.parametrize("shader, enc, dt", CASES)
@pytest.mark.parametrize("key", ["'0:0'", "0", "buf"])
def test_npy_of_unsigned_integers_is_encodings(tmp_path, shader, enc, dt, key) -> None:
    np.save(tmp_path / "in.npy", enc)
    r = cli(tmp_path, shader, f"{key}: {{file: in.npy}}")
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "out.npy")
    assert out.view(enc.dtype).tolist() == doubled(enc, dt).tolist()


@pytest.mark.parametrize("shader, enc, dt", CASES)
def test_yaml_list_of_the_unsigned_dtype_is_encodings(tmp_path, shader, enc, dt) -> None:
    r = cli(tmp_path, shader, f"'0:0': {{data: {enc.tolist()}, dtype: {enc.dtype}}}")
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "out.npy")
    assert out.view(enc.dtype).tolist() == doubled(enc, dt).tolist()


@pytest.mark.parametrize("shader, enc, dt", CASES)
def test_python_api_and_gpu_runner_take_encodings(shader, enc, dt) -> None:
    for key in (0, "0:0", (0, 0)):
        res = spvcoop.run(str(shader), buffers={key: enc})
        assert res.raw(0) == doubled(enc, dt).tobytes()
        assert res.values(0)["m0"] == [float(x) for x in doubled(enc, dt).view(dt).astype(np.float64)]
        dev = FakeDevice(FakeVk())
        run_on_device(str(shader), device=dev, buffers={key: enc})
        (bound, _), = dev.dispatched
        buf, size, _ = bound[(0, 0)]
        assert bytes(dev.mem[buf][:size]) == enc.tobytes()   # what the GPU is given: the encodings


@pytest.mark.slow
def test_npy_of_another_dtype_is_converted_by_value_or_refused(tmp_path) -> None:
    saxpy = REPO / "samples" / "saxpy" / "saxpy.spvasm"
    (tmp_path / "saxpy.spvasm").write_bytes(saxpy.read_bytes())
    spec = "shader: saxpy.spvasm\npush_constants: {a: 2.0, n: 8}\nbuffers:\n  x: {arange: 8}\n  y: {file: y.npy}\n"
    (tmp_path / "run.yaml").write_text(spec + "outputs: [y]\n")
    np.save(tmp_path / "y.npy", np.full(8, 0.5))
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml")], capture_output=True,
                       text=True)
    assert r.returncode == 0 and r.stdout == f"y: {(2 * np.arange(8) + 0.5).tolist()}\n", r.stderr
    np.save(tmp_path / "y.npy", np.full(8, 0.1))
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml")], capture_output=True,
                       text=True)
    assert r.returncode == 1, r.stdout
    assert r.stderr.startswith(f"{tmp_path / 'run.yaml'}:5:") and "value 0.1 at index [0] (float64) has no exact " \
        "value in float32" in r.stderr, r.stderr


@pytest.mark.slow
def test_a_uint8_npy_is_raw_bytes_as_in_python_unless_its_dtype_says_numbers(tmp_path) -> None:
    """A uint8 .npy for float elements: raw bytes, as the same array is in spvcoop.run (it was converted by value,
    unless the binding had views of different element types, where it was raw: one rule now)."""
    saxpy = REPO / "samples" / "saxpy" / "saxpy.spvasm"
    (tmp_path / "saxpy.spvasm").write_bytes(saxpy.read_bytes())
    y = np.full(8, 3.0, np.float32)
    np.save(tmp_path / "y.npy", np.frombuffer(y.tobytes(), np.uint8))
    spec = "shader: saxpy.spvasm\npush_constants: {a: 2.0, n: 8}\nbuffers:\n  x: {arange: 8}\n  y: {file: y.npy%s}\n"
    expected = {"": 2 * np.arange(8) + 3.0, ", dtype: uint8": None}
    for extra, want in expected.items():
        (tmp_path / "run.yaml").write_text(spec % extra + "outputs: [y]\n")
        r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml"), "-o",
                            str(tmp_path / "y_out.npy")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        got = np.load(tmp_path / "y_out.npy")
        if want is not None:
            np.testing.assert_array_equal(got.view(np.float32), want)
        else:   # 32 numbers 0..64: y is 32 floats, the first 8 of them 2x + y
            assert got.shape == (32,) and got[:8].tolist() == (2 * np.arange(8) + y.view(np.uint8)[:8]).tolist()
    raw = np.frombuffer(y.tobytes(), np.uint8)
    api = spvcoop.run(str(saxpy), buffers={"x": np.arange(8, dtype=np.float32), "y": raw},
                      push_constants={"a": 2.0, "n": 8})
    np.testing.assert_array_equal(api["y"].view(np.float32), 2 * np.arange(8) + 3.0)

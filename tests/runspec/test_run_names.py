"""Every name a run spec (or a Python caller) gives must match something in the shader: a buffer, a push-constant
member, a specialization constant, an output. One that matches nothing is an error at its line and column in the
spec, with a "did you mean"; `-o DIR/` refuses two outputs that map to one file name before writing anything."""
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
SPEC = """shader: saxpy.spvasm
push_constants: {a: 2.0, n: 8}
buffers:
  x: {arange: 8}
  y: {zeros: 8}
outputs: [y]
"""


def run_spec(tmp_path: Path, text: str, *args: str, shader: str | None = None) -> subprocess.CompletedProcess:
    (tmp_path / "saxpy.spvasm").write_text(shader or SAXPY.read_text())
    (tmp_path / "run.yaml").write_text(text)
    return subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml"), *args],
                          capture_output=True, text=True)


def located(r: subprocess.CompletedProcess, tmp_path: Path, text: str, line: int, word: str) -> str:
    """The error's message, after checking it points at `word` on `line` (1-based) of the spec."""
    assert r.returncode == 1, r.stderr
    col = text.splitlines()[line - 1].index(word) + 1
    prefix = f"{tmp_path / 'run.yaml'}:{line}:{col}: error: "
    assert r.stderr.startswith(prefix), r.stderr
    assert "Traceback" not in r.stderr
    return r.stderr[len(prefix):].splitlines()[0]


def test_extra_buffer(tmp_path: Path) -> None:
    text = SPEC.replace("  y: {zeros: 8}\n", "  y: {zeros: 8}\n  xs: {arange: 8}\n")
    msg = located(run_spec(tmp_path, text), tmp_path, text, 6, "xs")
    assert msg.startswith("buffer 'xs' matches no variable of the shader (did you mean 'x'?)")


@pytest.mark.slow
def test_misspelt_push_constant_member_is_reported_as_itself(tmp_path: Path) -> None:
    text = SPEC.replace("n: 8", "nn: 8")
    msg = located(run_spec(tmp_path, text), tmp_path, text, 2, "nn")
    assert "has no member 'nn' (did you mean 'n'?)" in msg
    assert "missing" not in msg


@pytest.mark.slow
def test_unknown_spec_constant(tmp_path: Path) -> None:
    text = SPEC + "spec_constants: {SCALE: 3}\n"
    msg = located(run_spec(tmp_path, text), tmp_path, text, 7, "SCALE")
    assert msg.startswith("no specialization constant 'SCALE'")


def test_misspelt_output(tmp_path: Path) -> None:
    text = SPEC.replace("outputs: [y]", "outputs: [x, yy]")
    msg = located(run_spec(tmp_path, text), tmp_path, text, 6, "yy")
    assert msg.startswith("output 'yy' names no buffer (did you mean 'y'?)")


@pytest.mark.slow
def test_output_dir_collision_refused_before_writing(tmp_path: Path) -> None:
    # two blocks whose member names differ only in a character a file name cannot hold
    shader = SAXPY.read_text().replace('OpMemberName %Y 0 "y"', 'OpMemberName %Y 0 "x y"') \
                              .replace('OpMemberName %X 0 "x"', 'OpMemberName %X 0 "x_y"')
    text = SPEC.replace("  x:", '  "x_y":').replace("  y:", '  "x y":').replace("outputs: [y]",
                                                                               'outputs: ["x_y", "x y"]')
    r = run_spec(tmp_path, text, "-o", str(tmp_path / "out") + "/", shader=shader)
    msg = located(r, tmp_path, text, 6, '"x y"')
    assert msg.startswith("-o DIR/: buffers 'x_y' and 'x y' would both be written to 'x_y.npy'")
    assert not (tmp_path / "out").exists()


def api(buffers=None, push=None, spec_constants=None):
    return spvcoop.run(str(SAXPY), buffers=buffers or {"x": np.arange(8, dtype=np.float32),
                                                        "y": np.zeros(8, np.float32)},
                       push_constants=push or {"a": 2.0, "n": 8}, spec_constants=spec_constants)


def test_api_names() -> None:
    with pytest.raises(SpvError, match=r"buffer 'xs' matches no variable of the shader \(did you mean 'x'\?\)"):
        api(buffers={"x": np.arange(8, dtype=np.float32), "y": np.zeros(8, np.float32),
                     "xs": np.zeros(8, np.float32)})
    with pytest.raises(SpvError, match=r"has no member 'nn' \(did you mean 'n'\?\)"):
        api(push={"a": 2.0, "nn": 8})

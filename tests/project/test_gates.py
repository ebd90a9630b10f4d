"""The lint, type and dead-code gates run from the test command: ruff (configured in pyproject.toml) over the
repository, mypy over the package and vulture over the package and the tools (`[tool.vulture]`, with
tests/vulture_whitelist.py), each failing with its own findings."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

ROOT = REPO


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean() -> None:
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_is_clean() -> None:
    r = _run("mypy")   # files and settings: [tool.mypy] in pyproject.toml
    assert r.returncode == 0, r.stdout + r.stderr


def test_no_dead_code() -> None:
    r = _run("vulture")   # paths, decorators and names by pattern: [tool.vulture] in pyproject.toml
    assert r.returncode == 0, "unused code (delete it, or name its user in tests/vulture_whitelist.py):\n" + \
        r.stdout + r.stderr


def test_dead_code_gate_sees_a_new_unused_function(tmp_path: Path) -> None:
    """The gate's configuration does not hide an ordinary function: one that nothing calls is reported."""
    dead = tmp_path / "spvcoop_extra.py"
    dead.write_text("def helper_nobody_calls(x):\n    return x + 1\n")
    r = _run("vulture", str(dead))   # the pyproject configuration still applies; the paths are given
    assert r.returncode == 3 and "helper_nobody_calls" in r.stdout, r.stdout + r.stderr

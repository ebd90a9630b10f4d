"""The lint and type gates run from the test command: ruff (configured in pyproject.toml) over the repository
and mypy over the package, each failing with its own findings."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean() -> None:
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_is_clean() -> None:
    r = _run("mypy")   # files and settings: [tool.mypy] in pyproject.toml
    assert r.returncode == 0, r.stdout + r.stderr

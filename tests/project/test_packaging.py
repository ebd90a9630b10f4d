"""Packaging: one version, the licence pyproject.toml declares, and an sdist that carries what the tests and
the README need (so that `pip install` and `pytest` both work from it)."""
from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

import spvcoop
from spvcoop.cli import main
from conftest import REPO

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

ROOT = REPO
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# tracked files an installed or tested sdist has no use for
NOT_SHIPPED = {".gitignore"}


def test_version_has_one_source(capsys: pytest.CaptureFixture[str]) -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "spvcoop.core.version.__version__"}
    assert importlib.metadata.version("spvcoop") == spvcoop.__version__
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"spvcoop {spvcoop.__version__}"


def test_license_file_is_the_declared_licence() -> None:
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def _needed_files() -> set[str]:
    """Every tracked file (git ls-files); in a tree without git (an unpacked sdist), every file it has."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return {p for p in out.decode().split("\0") if p and (ROOT / p).is_file()} - NOT_SHIPPED
    skip = {"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "build", "dist"}
    return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
            and not p.relative_to(ROOT).parts[0].endswith(("egg-info", "venv")) and p.suffix not in (".pyc", ".so")
            and p.name != "PKG-INFO" and p.name != "setup.cfg"}


def test_sdist_carries_tests_data_and_sources(tmp_path: Path) -> None:
    build = ("import sys\nfrom setuptools import build_meta\n"
             "print(build_meta.build_sdist(sys.argv[1]))")
    r = subprocess.run([sys.executable, "-c", build, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    name = r.stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / name) as tar:
        top = name.removesuffix(".tar.gz") + "/"
        inside = {m.name.removeprefix(top) for m in tar.getmembers() if m.isfile()}
    missing = sorted(_needed_files() - inside)
    assert not missing, f"the sdist lacks {len(missing)} needed files: {missing[:20]}"
    for needed in ("LICENSE", "tests/conftest.py", "spvcoop/numerics/_intsum_kernel.c", "grammar/spvasm.lark"):
        assert needed in inside, needed

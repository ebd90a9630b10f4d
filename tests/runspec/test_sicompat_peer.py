"""SPIRV-Interpreter's compute examples, as our own equivalents (tests/data/sicompat/peer/, one folder per
example: shader.comp or shader.spvasm, in[N].* and out[N].*, an optional `options` file of extra flags),
each run as its runner runs them: `spvcoop run SHADER --input inN --check outN`. Every run passes except
the examples README's "Coming from SPIRV-Interpreter" lists, which must stop with the message it gives:
an example fixed in spvcoop fails here until the README says so."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from spvcoop.cli import main
from conftest import REPO

ROOT = REPO
PEER = ROOT / "tests" / "data" / "sicompat" / "peer"
FOLDERS = sorted(p.name for p in PEER.iterdir() if p.is_dir())


def _runs(folder: str) -> list[tuple[str, Path, Path]]:
    """(run name, input, expected) per number N of inN.* / outN.* (N may be empty), as its runner pairs them."""
    def numbered(prefix: str) -> dict[str, Path]:
        found = (re.fullmatch(prefix + r"(\d*)\.\w+", f.name) for f in (PEER / folder).iterdir())
        return {m.group(1): PEER / folder / m.group(0) for m in found if m}
    ins, outs = numbered("in"), numbered("out")
    assert ins.keys() == outs.keys(), f"{folder}: inputs {sorted(ins)} and expected files {sorted(outs)} differ"
    return [(f"{folder}{'#' + n if n else ''}", ins[n], outs[n]) for n in sorted(ins)]


RUNS = [r for f in FOLDERS for r in _runs(f)]


def _shader(folder: str) -> Path:
    found = [p for p in (PEER / folder / "shader.comp", PEER / folder / "shader.spvasm") if p.exists()]
    assert len(found) == 1, f"{folder}: one shader.comp or shader.spvasm"
    return found[0]


def _options(folder: str) -> list[str]:
    f = PEER / folder / "options"
    return f.read_text().split() if f.exists() else []


def readme_differences() -> dict[str, str]:
    """README's list of the examples that differ: folder -> the message each stops with (its last `...`)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Coming from SPIRV-Interpreter", 1)[1].split("\n## ", 1)[0]
    listing = section.split("these examples differ", 1)[1]
    items = re.findall(r"^- (.*(?:\n  .*)*)", listing.split("\n\n", 1)[1], flags=re.M)
    out = {}
    for item in items:
        quoted = re.findall(r"`([^`]+)`", item.replace("\n  ", " "))
        out[quoted[0]] = quoted[-1]
    return out


DIFFER = readme_differences()


def test_counts_and_readme_list_name_existing_examples():
    assert len(FOLDERS) == 24 and len(RUNS) == 28
    assert set(DIFFER) <= set(FOLDERS)
    passing = [r for r in RUNS if r[0].split("#")[0] not in DIFFER]
    readme = (ROOT / "README.md").read_text()
    assert "24 examples, 28 runs counted as its runner" in readme
    assert f"{len(passing)} runs pass, and these examples differ" in readme


def test_every_example_has_a_data_readme_line():
    text = (ROOT / "tests" / "data" / "README.md").read_text()
    for folder in FOLDERS:
        assert f"`sicompat/peer/{folder}/`: mirrors `examples/" in text, folder


@pytest.mark.slow
@pytest.mark.parametrize("name,inp,out", RUNS, ids=[r[0] for r in RUNS])
def test_example(name, inp, out, capsys):
    folder = name.split("#")[0]
    rc = main(["run", str(_shader(folder)), "--input", str(inp), "--check", str(out), *_options(folder)])
    err = capsys.readouterr().err
    if folder in DIFFER:
        assert rc in (1, 2), err
        assert DIFFER[folder] in err, err
        assert "Traceback" not in err and "internal error" not in err
    else:
        assert rc == 0, err
        assert f"match {out}" in err and "check passed" in err, err

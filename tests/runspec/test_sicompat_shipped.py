"""SPIRV-Interpreter's compute examples as it ships them (tests/data/sicompat/shipped/, copied from its repository),
each run as README's "Coming from SPIRV-Interpreter" tells a user: `spvcoop run SHADER --input inN --check outN`.
README's table of the 27 runs is the expectation: every row is run and must give the result it states (passes,
or the exit status and message), so the README cannot drift from what spvcoop does with the peer's files."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from spvcoop.cli import main
from conftest import REPO

ROOT = REPO
SHIPPED = ROOT / "tests" / "data" / "sicompat" / "shipped"
SHADER_SUFFIXES = (".spvasm", ".comp", ".glsl")
SPEC_ID = 1  # the SpecId decoration's number


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("## Coming from SPIRV-Interpreter", 1)[1].split("\n## ", 1)[0]


def readme_table() -> dict[str, tuple[str, str]]:
    """README's table: run name -> (result, why)."""
    section = _section()
    table = section.split("| Run | Result | Why |\n|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3, line
        name = cells[0].strip("`").replace("` #", " #").replace("`", "")
        assert name not in rows, name
        rows[name] = (cells[1], cells[2])
    return rows


def _number(name: str, prefix: str) -> str | None:
    """N of inN.* / outN.* as its runner reads it ('' for in.yaml); None for other files."""
    m = re.fullmatch(prefix + r"(\d*)\.\w+", name)
    return m.group(1) if m else None


def shipped_runs() -> dict[str, tuple[Path, Path, Path]]:
    """Run name -> (shader, input, expected) for every example folder here, paired as its runner pairs them."""
    runs = {}
    for folder in sorted(p for p in SHIPPED.rglob("*") if p.is_dir()):
        files = sorted(p.name for p in folder.iterdir() if p.is_file())
        ins = {n: folder / f for f in files if (n := _number(f, "in")) is not None}
        if not ins:
            continue
        shaders = [folder / f for f in files if f.endswith(SHADER_SUFFIXES)]
        assert len(shaders) == 1, f"{folder}: one shader"
        outs = {n: folder / f for f in files if (n := _number(f, "out")) is not None}
        rel = folder.relative_to(SHIPPED).as_posix()
        for n, inp in sorted(ins.items()):
            # an expected file not copied (images/query-size: the run stops at the input) keeps its shipped name
            out = outs.get(n, folder / f"out{n}{inp.suffix}")
            runs[f"{rel} #{n}" if len(ins) > 1 else rel] = (shaders[0], inp, out)
    return runs


TABLE = readme_table()
RUNS = shipped_runs()


def run(shader: Path, inp: Path, out: Path, *extra: str, capsys) -> tuple[int, str]:
    rc = main(["run", str(shader), "--input", str(inp), "--check", str(out), *extra])
    return rc, capsys.readouterr().err


def test_table_names_every_run_and_counts():
    assert len(TABLE) == 27
    not_run = {name for name, (result, _) in TABLE.items() if result == "not run here"}
    assert set(RUNS) == set(TABLE) - not_run
    passing = sum(result == "passes" for result, _ in TABLE.values())
    assert f"{passing} of\nthe 27 pass" in _section() or f"{passing} of the 27 pass" in _section()
    # a run that is not here is one of the examples shipped only as a binary
    assert all(why.startswith("only its `.spv` is shipped") or why == "the same"
               for result, why in TABLE.values() if result == "not run here")


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_gives_the_readme_result(name, capsys):
    result, _ = TABLE[name]
    rc, err = run(*RUNS[name], capsys=capsys)
    assert "Traceback" not in err and "internal error" not in err, err
    if result == "passes":
        assert rc == 0 and "check passed" in err, err
        return
    m = re.fullmatch(r"exit (\d): `(.+)`", result)
    assert m, f"{name}: result {result!r} is 'passes', 'not run here' or 'exit N: `message`'"
    assert rc == int(m.group(1)), err
    assert m.group(2) in err, err


def _spec_ids(shader: Path) -> list[int]:
    """Result ids of the shader's specialization constants, in SpecId order, as spvcoop compiles it."""
    from spvcoop.loader import load_shader
    found = {}
    for inst in load_shader(str(shader)).instructions:
        if inst.opname == "OpDecorate" and inst.operands[1].value == SPEC_ID:
            found[inst.operands[2].value] = inst.operands[0].value
    return [found[k] for k in sorted(found)]


def _with_ids(inp: Path, ids: dict[str, int], tmp_path: Path) -> Path:
    """The input with its top-level result-id keys (the shipped .spv's) replaced by this compile's."""
    text = re.sub(r"^'(\d+)':", lambda m: f"'{ids.get(m.group(1), m.group(1))}':", inp.read_text(), flags=re.M)
    out = tmp_path / inp.name
    out.write_text(text)
    return out


def test_arg_and_return_passes_with_this_compiles_ids(tmp_path, capsys):
    """README: the only difference is the specialization constant's id."""
    shader, inp, out = RUNS["coop-matrix/arg-and-return"]
    rc, err = run(shader, _with_ids(inp, {"6": _spec_ids(shader)[0]}, tmp_path), out, capsys=capsys)
    assert rc == 0 and "check passed" in err, err


@pytest.mark.slow
def test_invocations_race_is_real_and_passes_without_race_detection(tmp_path, capsys):
    shader, inp, out = RUNS["threading/invocations #0"]
    ids = dict(zip(("32", "33", "34"), _spec_ids(shader), strict=True))
    given = _with_ids(inp, ids, tmp_path)
    rc, err = run(shader, given, out, capsys=capsys)
    assert rc == 1 and "data race on 'ending'" in err, err
    rc, err = run(shader, given, out, "--no-races", capsys=capsys)
    assert rc == 0 and "check passed" in err, err


def test_partial_subgroup_examples_with_the_workgroup_as_subgroup(capsys):
    """README: iteration passes with --subgroup-size 4; difficult-init still differs (its layout is its own)."""
    rc, err = run(*RUNS["coop-matrix/iteration"], "--subgroup-size", "4", capsys=capsys)
    assert rc == 0 and "check passed" in err, err
    rc, err = run(*RUNS["coop-matrix/difficult-init"], "--subgroup-size", "4", capsys=capsys)
    assert rc == 1 and "2 value(s) differ" in err, err


def test_matmul2_is_invalid_for_spirv_val_too(capsys):
    shader, inp, out = RUNS["coop-matrix/matmul2"]
    rc, err = run(shader, inp, out, capsys=capsys)
    assert rc == 1 and "spirv-val agrees" in err, err

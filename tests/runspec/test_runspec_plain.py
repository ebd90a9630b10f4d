"""The plain run-spec checks (`runspec_checks.plain_spec`/`plain_entry`, start-up: no pydantic for an ordinary
spec) against the pydantic schema: whatever the plain checks accept, the schema accepts with the same fields;
what they refuse goes to the schema, which reports it."""
from __future__ import annotations

import itertools
import re
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.runspec.checks import plain_entry, plain_spec
from spvcoop.runspec.schema import check_entry, check_spec
from spvcoop.core.yamlio import load_yaml
from conftest import REPO

ROOT = REPO
SPEC_FILES = sorted(p for d in ("samples", "tests") for p in (ROOT / d).rglob("*.yaml")
                    if re.search(r"^shader:", p.read_text(errors="replace"), re.M))

# values of every type and edge the fields meet: each field of a base spec takes each of them in turn
ODD_VALUES = [None, True, False, 0, 1, -1, 3, 32, 48, 2**31 - 1, 2**31, 2**32, 2**48, 2**48 + 1, 2**63, 2**64,
              1.5, float("nan"), float("inf"), "", "x", "1e3", "0x10", "a" * 4097, [], [1], [2, 3], [1, 2, 3],
              [1, 2, 3, 4], [0, 1], [True], [1.0], ["y"], [70000, 70000, 70000], {}, {"a": 1}, {0: "1e3", "S": True},
              {"x": [1.0]}, {5: 1.5, "t": 2**64}, {True: 1}, {"k": None}, {1.5: 2}, {-1: 2}, {2**32: 1},
              {"x": {"data": [1], "dtype": "float32"}}, {"x": {"zeros": 4, "dtype": "int8", "shape": [2, 2]}},
              {"x": {"arange": 2**48 + 1}}, {"x": {"file": "x.npy"}}, {"x": {"file": ""}},
              {"x": {"data": [1], "rtol": 1}},
              {"x": {"random": {"count": 2}}}, {"x": {"data": [1], "zeros": 2}}, {"x": {"dtype": "float32"}},
              {"x": {"data": 1, "dtype": "float128"}}, {"x": {"data": 1, "shape": [0]}},
              {"x": {"data": 1, "shape": None}},
              {"x": {"data": 1, "dtype": None}}, {"x": {"data": 1, "shape": [1] * 9}}, {"x": {"zeros": True}},
              {"x": {"data": {1, 2}}}, {"x": {"m": 1, "n": [2]}}, {"x": (1, 2)}, {"x": b"ab"}, b"ab", (1, 1, 1)]
BASE = {"shader": "s.spvasm", "entry_point": "main", "dispatch": [2, 1, 1], "subgroup_size": 32,
        "spec_constants": {0: 4}, "push_constants": {"a": 2.0}, "buffers": {"x": [1.0], "y": {"zeros": 1}},
        "outputs": ["y"], "max_steps": 100}


def _schema_fields(raw):
    try:
        return check_spec(raw, "spec.yaml")
    except SpvError:
        return None


def _agrees(raw) -> bool:
    """True when the plain checks took `raw` (and then the schema gives the same fields)."""
    plain = plain_spec(raw)
    if plain is None:
        return False
    schema = _schema_fields(raw)
    assert schema is not None, raw
    assert plain == schema and [type(v) for v in plain.values()] == [type(v) for v in schema.values()], raw
    assert list(plain["spec_constants"].items()) == list(schema["spec_constants"].items())
    return True


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_project_specs_take_the_plain_path_with_the_schema_fields(path: Path) -> None:
    try:
        raw = load_yaml(path.read_bytes(), str(path))
    except SpvError:
        pytest.skip("not readable YAML (a test of bad input)")
    if isinstance(raw.get("buffers"), list):
        pytest.skip("list-form buffers are turned into a mapping before the checks")
    if any(isinstance(e, dict) and "random" in e for e in (raw.get("buffers") or {}).values()):
        assert plain_spec(raw) is None  # random entries always go to the schema
    else:
        assert _agrees(raw)


def test_every_field_with_every_odd_value() -> None:
    taken = refused = 0
    for key, value in itertools.product(list(BASE) + ["other"], ODD_VALUES):
        raw = dict(BASE, **{key: value})
        if _agrees(raw):
            taken += 1
        else:
            refused += 1
        smaller = {k: v for k, v in BASE.items() if k != key}
        if key != "other" and _agrees(smaller):
            assert key != "shader"
    assert taken > 40 and refused > 200, (taken, refused)
    assert plain_spec({"shader": "s"}) == _schema_fields({"shader": "s"})


def test_yaml_specs_keep_their_spelled_values() -> None:
    """Through the YAML reader (located mappings and lists): numeric strings of spec constants become floats."""
    raw = load_yaml(b"shader: s.spv\ndispatch: 4\nspec_constants: {0: 1e3, A: true, 2: 0.5}\n"
                    b"buffers:\n  x: {data: [1, 2], dtype: int32, shape: [2]}\n  '0:1': {file: d.bin}\n"
                    b"outputs: [x, 7]\n", "s.yaml")
    assert _agrees(raw)
    assert plain_spec(raw)["spec_constants"] == {0: 1000.0, "A": True, 2: 0.5}
    assert plain_spec(raw)["dispatch"] == (4, 1, 1)


@pytest.mark.parametrize("entry", [v["x"] for v in ODD_VALUES if isinstance(v, dict) and "x" in v]
                         + [[1, 2], 3, "&y", None, {"a": 1}, {"zeros": 3, "shape": [3]}, {"random": {}}])
@pytest.mark.parametrize("expected", [False, True])
def test_plain_entries_pass_the_schema(entry, expected: bool) -> None:
    if not plain_entry(entry, expected):
        return
    check_entry(entry, "x", "spec.yaml", None, expected)   # raises on a violation


@pytest.mark.slow
def test_an_ordinary_spec_runs_without_pydantic(tmp_path) -> None:
    (tmp_path / "saxpy.spvasm").write_bytes((ROOT / "samples" / "saxpy" / "saxpy.spvasm").read_bytes())
    (tmp_path / "spec.yaml").write_text("shader: saxpy.spvasm\ndispatch: [1, 1, 1]\npush_constants: {a: 2.0, n: 1}\n"
                                        "buffers:\n  x: {data: [1.0], dtype: float32}\n  y: [1.0]\noutputs: [y]\n")
    probe = ("import json, sys\nfrom spvcoop.cli import main\nrc = main(['run', 'spec.yaml'])\n"
             "loaded = sorted(m for m in sys.modules if m.startswith(('pydantic', 'spvcoop.runspec.schema')))\n"
             "print(json.dumps([rc, loaded]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert json.loads(out.stdout.splitlines()[-1]) == [0, []]
    assert "y: [3.0]" in out.stdout

"""spvcoop.core.yamlio: located values, and budgets that hold against hostile YAML and JSON."""
from __future__ import annotations

import pytest
import yaml

from spvcoop.core.diagnostics import SpvError
from spvcoop.core.yamlio import LDict, LList, YamlLimits, load_file, load_json, load_yaml, mark_at

SMALL = YamlLimits(max_bytes=1 << 20, max_alias_nodes=1000, max_depth=50)


def located(fn, *args, **kw):
    with pytest.raises(SpvError) as info:
        fn(*args, **kw)
    d = info.value.diagnostics[0]
    return d


def test_values_and_marks():
    d = load_yaml("a: 1\nb:\n  - x\n  - {c: 2.5}\n", "f.yaml")
    assert d == {"a": 1, "b": ["x", {"c": 2.5}]}
    assert isinstance(d, LDict) and isinstance(d["b"], LList)
    assert (d.key_marks["a"].line, d.key_marks["a"].column) == (0, 3)
    assert (d.name_marks["b"].line, d.name_marks["b"].column) == (1, 0)
    m = mark_at(d, ["b", 1, "c"])
    assert (m.line, m.column) == (3, 8)
    # union tags and other steps that name nothing are skipped
    assert mark_at(d, ["b", "<tag>", 1, "c"]) is m


@pytest.mark.parametrize("text", ["a: 1\nb: [1, 2.5, -3, 0.5e+3, 1e5, 0x10, 010, 1_000, .inf, ~, yes, '1']\n",
                                  "x: &a {p: 1}\ny: {<<: *a, q: 2}\nz: [*a, *a]\n", "", "just a scalar",
                                  "- 1:20\n- 2001-12-14\n- !!binary aGVsbG8=\n- !!str 5\n"])
def test_same_values_as_pyyaml_safe_load(text):
    assert load_yaml(text, "f.yaml") == yaml.safe_load(text)


def test_both_loaders_agree(monkeypatch):
    import spvcoop.core.yamlio as yio
    text = "a: [1, 2, {b: 'c'}]\nd: &x [1]\ne: *x\n"
    c = load_yaml(text, "f")
    monkeypatch.setattr(yio, "_CLoader", None)
    assert load_yaml(text, "f") == c


def test_billion_laughs_is_refused_at_the_alias():
    lol = "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9))
    assert len(lol) < 600
    d = located(load_yaml, lol, "lol.yaml", SMALL)
    assert d.source == "lol.yaml" and d.span is not None and "aliases" in d.message
    assert "SPVCOOP_YAML_MAX_ALIAS_NODES" in d.message
    # the default budget refuses it too (it would expand to 10^10 nodes)
    assert "aliases" in located(load_yaml, lol, "lol.yaml").message


def test_aliases_within_budget_are_fine():
    text = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n"
    assert load_yaml(text, "f", SMALL)["b"] == [[1, 2, 3]] * 3


@pytest.mark.parametrize("text,what", [
    ("a: &a [*a]\n", "recursive alias"),
    ("a: *nope\n", "undefined alias"),
    ("a: 1\na: 2\n", "duplicate key"),
    ("? [1]\n: 2\n", "mapping key"),
    ("a: !!set {x}\n", "unsupported tag"),
    ("a: !!python/object:os.system x\n", "constructor"),
    ("a: 1\n---\nb: 2\n", "single document"),
    ("a: [1, 2\n", "invalid YAML"),
    ("a: " + "1" * 5000 + "\n", "integer literal"),
])
def test_bad_yaml_is_located(text, what):
    d = located(load_yaml, text, "bad.yaml", SMALL)
    assert what in d.message and d.source == "bad.yaml" and d.span is not None and d.span.line >= 1


@pytest.mark.parametrize("opener", ["[", "{", "- "])
def test_deep_nesting_is_a_located_error(opener):
    text = opener * 10000 if opener != "- " else "".join(" " * i + "-\n" for i in range(60))
    d = located(load_yaml, text, "deep.yaml", SMALL)
    assert "nested deeper than 50" in d.message and d.span.line >= 1


def test_deep_nesting_with_quotes_takes_the_checked_scanner():
    """Quoted ']' could hide real nesting from a bracket count: such files go to the Python scanner,
    which counts flow levels itself."""
    text = "x: [\"]\", " + "[\"]\", " * 10000
    d = located(load_yaml, text, "deep.yaml", SMALL)
    assert "nested deeper than 50" in d.message


def test_size_and_encoding():
    d = located(load_yaml, "a: 1\n" * 100, "big.yaml", YamlLimits(max_bytes=100))
    assert "size limit" in d.message
    d = located(load_yaml, b"a: 1\nb: \xff\xfe\n", "bin.yaml")
    assert "not UTF-8" in d.message and (d.span.line, d.span.col) == (2, 4)


def test_files(tmp_path):
    (tmp_path / "a.yaml").write_text("a: [1, 2]\n")
    assert load_file(tmp_path / "a.yaml") == {"a": [1, 2]}
    (tmp_path / "t.json").write_text('{\n\t"a": [1,\t2]\n}\n')  # tabs: valid JSON, invalid YAML
    assert load_file(tmp_path / "t.json") == {"a": [1, 2]}
    assert "not a regular file" in located(load_file, "/dev/zero").message
    assert "not a regular file" in located(load_file, tmp_path).message
    assert "cannot read" in located(load_file, tmp_path / "missing.yaml").message


@pytest.mark.parametrize("text,what", [
    ("[" * 10000 + "]" * 10000, "nested deeper"),
    ('{"a": 1, "a": 2}', "duplicate key"),
    ("1" * 5000, "integer literal"),
    ('{"a": }', "invalid JSON"),
])
def test_bad_json(text, what):
    d = located(load_json, text, "bad.json", SMALL)
    assert what in d.message and d.source == "bad.json"


def test_json_error_position():
    d = located(load_json, '{\n  "a": tru\n}', "p.json")
    assert d.span.line == 2


def test_layout_models_and_profiles_read_through_yamlio(tmp_path):
    from spvcoop.layouts.model import load_model
    from spvcoop.validator.profiles import load_profile
    lol = "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9))
    for loader, name in ((load_model, "m.yaml"), (load_profile, "p.yaml")):
        p = tmp_path / name
        p.write_text(lol)
        with pytest.raises(SpvError) as info:
            loader(str(p))
        assert "aliases" in info.value.diagnostics[0].message
        p.write_text("[" * 10000)
        with pytest.raises(SpvError) as info:
            loader(str(p))
        assert "nested deeper" in info.value.diagnostics[0].message

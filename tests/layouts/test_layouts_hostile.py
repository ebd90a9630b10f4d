"""Layout models and `spvcoop layout` on hostile input (issue 10): every rejection is an SpvError with a
location, never another exception; sizes are bounded before anything is allocated; no output file is
left behind by a failed command.

The hypothesis tests mutate the shipped model files (scalars, numbers, formulas, descriptor strings,
deleted and duplicated keys) under small size budgets, so each example stays cheap; in CI the
conftest profile draws a fixed set of examples (derandomize)."""
from __future__ import annotations

import copy
import gc
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spvcoop import SpvError
from spvcoop.cli import main
from spvcoop.layouts import load_model, parse_model
from spvcoop.layouts.limits import LayoutLimits
from spvcoop.layouts.model import MODELS_DIR
from spvcoop.layouts.render import FORMATS, check_output_budget, estimate_size
import contextlib

SMALL = LayoutLimits(max_dim=256, max_elements=4096, max_subgroup=128, max_output=1 << 20)
SMALL_ARGS = ["--max-dim", "256", "--max-elements", "4096", "--max-subgroup", "128"]
MODEL_FILES = sorted(MODELS_DIR.glob("*.yaml"))


def run(capsys, *argv):
    try:
        rc = main(list(argv))
    finally:
        gc.enable()   # main() turns the cyclic collector off for the process
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def model_text(descriptor: str, rows: int = 16, cols: int = 16) -> str:
    return f"name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    rows: {rows}\n    cols: {cols}\n{descriptor}\n"


# ------------------------------------------------------------------ the issue's examples, one by one

BIG = 2 ** 63
CASES = [
    # (id, descriptor lines, message regex, line, column or None)
    ("cute-size", '    cute: "(1,100000000):(1,1)"', r"100000000 = 3200000000 slots.*--max-elements", 4, 5),
    ("cute-2^63", f'    cute: "(32,8):({BIG},1)"', r"integer 9223372036854775808 is larger than the limit", 7, 20),
    ("cute-deep", '    cute: "' + "(" * 9 + "32" + ")" * 9 + ':1"', r"nests deeper than the limit of 8", 7, 20),
    ("cute-long", '    cute: "' + "(" * 3000 + "1" + ")" * 3000 + ':1"', r"longer than the limit of 1000", 7, 1012),
    ("iree-2^63", f"    iree: {{outer: [1, 1], thread: [8, 4], tstrides: [{BIG}, 1], element: [2, 4]}}",
     r"iree tstrides must be an integer in 0\.\.4294967295, got 9223372036854775808", 7, 53),
    ("iree-size", "    iree: {outer: [1, 1], thread: [1, 1], tstrides: [1, 1], element: [100000000, 1]}",
     r"iree outer\*thread\*element = 100000000x1", 4, 5),
    ("linear-bases", "    linear: {register: [" + ", ".join(f"[0, {1 << k}]" for k in range(27))
     + "], lane: [[1, 0], [2, 0], [4, 0], [8, 0], [15, 0]]}", r"27 bases, more than the limit of 24", 7, 24),
    ("linear-2^63", f"    linear: {{register: [[0, {BIG}]], lane: [[1, 0]]}}",
     r"linear register basis must be an integer in 0\.\.4294967295", 7, 24),
    ("table-2^63", f"    table: [[[{BIG}, 0]]]", r"integers in 0\.\.4294967295", 7, 14),
    ("formula-2^63", '    formula: {length: "8", row: "9223372036854775808", col: "0"}',
     r"integer 9223372036854775808 does not fit in 64 bits", 7, 34),
    ("formula-digits", '    formula: {length: "8", row: "' + "9" * 40 + '", col: "0"}',
     r"does not fit in 64 bits", 7, 34),
    ("formula-5000-digits", '    formula: {length: "8", row: "' + "9" * 5000 + '", col: "0"}',
     r"5000 characters is longer than the limit of 1000", 7, 1034),
    ("formula-5000-not", '    formula: {length: "8", row: "' + "!" * 5000 + '1", col: "0"}',
     r"longer than the limit of 1000", 7, 1034),
    ("formula-deep-not", '    formula: {length: "8", row: "' + "!" * 100 + '1", col: "0"}',
     r"nests deeper than the limit of 64 levels", 7, 98),   # the 65th '!' 
    ("formula-ternary-chain", '    formula: {length: "8", row: "' + "1?1:" * 100 + '1", col: "0"}',
     r"nests deeper than the limit of 64 levels", 7, 290),   # the 65th '1?' 
    ("formula-left-chain", '    formula: {length: "8", row: "' + "1+" * 100 + '1", col: "0"}',
     r"nests deeper than the limit of 64 levels", 7, 108),   # the 38th '1', 65 levels down
    ("formula-length", '    formula: {length: "100000000", row: "0", col: "0"}', r"slots, more than the limit", 4, 5),
    ("formula-wraps", '    formula: {length: "8", row: "9223372036854775807 * 9223372036854775807 * lane", col: "0"}',
     r"outside the 16x16 matrix|held by no invocation", 4, 5),   # int64 wraps: no OverflowError
]


@pytest.mark.parametrize("name, desc, message, line, col", CASES, ids=[c[0] for c in CASES])
def test_issue_examples_are_located_errors(tmp_path, capsys, name, desc, message, line, col):
    path = tmp_path / "m.yaml"
    path.write_text(model_text(desc))
    with pytest.raises(SpvError) as info:
        load_model(str(path))
    d = info.value.diagnostics[0]
    assert d.source == str(path)
    assert re.search(message, d.message), d.message
    assert d.span is not None and (d.span.line, d.span.col) == (line, col), d.headline()
    rc, _, err = run(capsys, "layout", "show", str(path), "-t", "f16", "--rows", "16", "--cols", "16")
    assert rc == 1 and err.startswith(f"{path}:{line}:{col}: error:"), err


@pytest.mark.parametrize("text, message", [
    ("name: t\nentries: " + "[" * 3000 + "]" * 3000 + "\n", r"nest"),
    ("name: t\nsubgroup_size: " + "9" * 5000 + "\nentries: [{striped: {}}]\n", r"digits|integer|limit"),
    ("name: t\nentries:\n  - rows: [" + ", ".join(map(str, range(1, 100))) + "]\n    striped: {}\n",
     r"lists 99 values, more than the limit of 64"),
    ("name: t\nentries:\n  - rows: 4294967296\n    striped: {}\n", r"4294967296 is larger than 4294967295"),
    ("name: t\nentries:\n" + "  - striped: {}\n" * 1025, r"1025 entries, more than the limit of 1024"),
    ("name: t\nentries:\n  - formula: {length: '1', row: '0', col: '0', vars: {"
     + ", ".join(f"v{k}: lane" for k in range(65)) + "}}\n", r"vars has 65 names, more than the limit of 64"),
    ("name: t\nentries:\n  - striped: {}\n    let: {" + ", ".join(f"v{k}: '1'" for k in range(65)) + "}\n",
     r"let has 65 names, more than the limit of 64"),
    ("name: t\nentries:\n  - rows: [1, 2, 4, 8, 16, 32, 64]\n    cols: [1, 2, 4, 8, 16, 32, 64]\n"
     "    subgroup_size: [1, 2, 4, 8, 16, 32]\n    striped: {}\n", r"concrete types, more than the limit of 4096"),
])
def test_yaml_level_examples(tmp_path, text, message):
    path = tmp_path / "m.yaml"
    path.write_text(text)
    with pytest.raises(SpvError) as info:
        load_model(str(path))
    d = info.value.diagnostics[0]
    assert d.source == str(path) and re.search(message, d.message), d.headline()


def test_type_outside_the_budget_names_the_option(capsys):
    rc, out, err = run(capsys, "layout", "show", "striped", "-t", "f32", "--rows", "4096", "--cols", "4096",
                       "-S", "1024", "--format", "svg")
    assert rc == 1 and out == ""
    assert "4096x4096 has 16777216 elements, more than the limit of 65536 (raise it with --max-elements" in err
    rc, _, err = run(capsys, "layout", "show", "striped", "-t", "f32", "--rows", "64", "--cols", "64",
                     "-S", "8", "--max-subgroup", "4")
    assert rc == 1 and "--max-subgroup" in err
    with pytest.raises(SpvError, match="--max-dim"):
        load_model("striped", limits=LayoutLimits(max_dim=8)).layout("f32", 16, 16, "a", 32)
    # a model may name sizes over the budget: they are refused when asked for, and not listed
    m = load_model("nvidia", limits=LayoutLimits(max_dim=8, max_subgroup=16))
    assert m.types() == [] and not m.defines("f16", 16, 16, "a")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_output_budget_is_checked_before_rendering(capsys, tmp_path, fmt):
    out = tmp_path / "out"
    args = ["layout", "show", "striped", "-t", "f32", "--rows", "128", "--cols", "128", "-S", "64", "-f", fmt]
    rc, _, err = run(capsys, *args, "-o", str(out), "--max-output", "20000")
    assert rc == 1 and "more than the limit of 20000 (raise it with --max-output)" in err
    assert not out.exists()
    rc, _, _ = run(capsys, *args, "-o", str(out))   # the default budget holds it
    assert rc == 0 and out.stat().st_size > 20000


def test_estimate_bounds_the_real_size():
    for name, t in [("nvidia", ("f16", 16, 16, "a", 32)), ("amd-rdna3-wmma", ("f16", 16, 16, "a", 32)),
                    ("striped", ("u8", 1, 1, "acc", 128)), ("striped", ("f32", 64, 48, "b", 7))]:
        lay = load_model(name).layout(*t)
        for fmt, render in FORMATS.items():
            assert estimate_size(lay, fmt) >= len(render(lay).encode())


# ------------------------------------------------------------------ import of malformed probe output

@pytest.fixture()
def shown(capsys, tmp_path):
    rc, out, _ = run(capsys, "layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a")
    assert rc == 0
    return out


def _lines(text):
    return text.split("\n")


@pytest.mark.parametrize("mutate, message, line, col", [
    (lambda t: t[:1500], r"element row 5: expected 32 cells \(one per invocation\), found 12", 9, 77),
    (lambda t: "\n".join(_lines(t)[:8]), r"truncated table: expected 8 element rows, found 5", 9, 1),
    (lambda t: "\n".join(_lines(t)[:2]), r"truncated table: the header line", 3, 1),
    (lambda t: t.replace(" 3,1 ", " x,1 ", 1), r"invocation 12 element 1: the row must be a decimal", 5, 79),
    (lambda t: t.replace(" 3,1 ", " 3,99999999999 ", 1), r"at most 9 digits", 5, 79),
    (lambda t: "\n".join(_lines(t)[:4] + _lines(t)[5:]), r"element row 1: expected index 1", 5, 1),   # a gap
    (lambda t: "\n".join(_lines(t)[:5] + _lines(t)[4:]), r"expected index 2", 6, 1),   # a repeated row
    (lambda t: t.replace(" p31\n", "\n", 1), r"the header must read 'i \| p0 \.\.\. p31'", 2, 1),
    (lambda t: "\n".join(_lines(t)[:3] + [_lines(t)[3].rsplit(None, 1)[0]] + _lines(t)[4:]),
     r"element row 0: expected 32 cells \(one per invocation\), found 31", 4, None),
    (lambda t: t.replace(" 0,1 ", " 0,0 ", 1), r"not a layout: element \(0,1\) is held by no invocation", 1, 1),
    (lambda t: t.replace(" 0,1 ", " 0,16 ", 1), r"not a layout: invocation 0 index 1 holds \(0,16\), outside", 1, 1),
    (lambda t: t.replace("subgroup size 32", "subgroup size 99999999999"), r"subgroup size", 1, 1),
    (lambda t: t.replace("subgroup size 32", "subgroup size 5000"), r"--max-subgroup", 1, 1),
    (lambda t: t.replace("length 8", "length 900000"), r"slots, more than the limit", 1, 1),
    (lambda t: t.replace("f16", "f17", 1), r"unknown component type 'f17'", 1, 1),
])
def test_import_of_malformed_tables(capsys, tmp_path, shown, mutate, message, line, col):
    src = tmp_path / "t.txt"
    src.write_text(mutate(shown))
    out = tmp_path / "m.yaml"
    rc, _, err = run(capsys, "layout", "import", str(src), "-o", str(out))
    assert rc == 1 and not out.exists(), err
    head = err.splitlines()[0]
    where = f"{src}:{line}:" + (f"{col}:" if col else "")
    assert head.startswith(where) and re.search(message, head), head


@pytest.mark.parametrize("content, args, message", [
    (b"[" * 100000, [], r"invalid JSON: nested too deeply"),
    (b'{"model": 1', [], r":1:12: error: invalid JSON"),
    (b"[1, 2, -3]", ["-t", "f16", "--rows", "8", "--cols", "8"], r"list of integers in 0\.\.2\^32-1"),
    (b"[1, 2, 99999999999999999999999]", ["-t", "f16", "--rows", "8", "--cols", "8"], r"list of integers"),
    (b"\x02\x00\x00\x00" * 8, ["-t", "f16", "--rows", "8", "--cols", "8", "-S", "8"],
     r":word 8: error: truncated probe buffer: it has 8 words"),
    (b"\x02\x00\x00", ["-t", "f16", "--rows", "8", "--cols", "8"], r"truncated probe buffer: 3 bytes"),
    (b"\x02\x00\x00\x00" * 16, ["-t", "f16", "--rows", "8", "--cols", "8", "-S", "8", "--rows", "100000"],
     r"--max-dim"),
    (b"\x00" * 64, ["-t", "f16", "--rows", "2", "--cols", "2", "-S", "2"],
     r":word 0: error: probe buffer reports length 0"),
])
def test_import_of_malformed_buffers_and_json(capsys, tmp_path, content, args, message):
    src = tmp_path / ("in.json" if content[:1] in b"[{" else "in.bin")
    src.write_bytes(content)
    out = tmp_path / "m.yaml"
    rc, _, err = run(capsys, "layout", "import", str(src), *args, "-o", str(out))
    assert rc == 1 and not out.exists() and re.search(message, err), err
    assert err.startswith(str(src))


def test_import_wrong_pairs_and_missing_elements_are_located_at_their_word(capsys, tmp_path):
    import numpy as np
    S, R, C = 4, 2, 2
    words = np.zeros(S + 2 * S * R * C, dtype="<u4")
    words[:S] = 1                                   # length 1: invocation p holds element p
    for p in range(S):
        words[S + 2 * p * R * C: S + 2 * p * R * C + 2] = (p // C + 1, p % C + 1)
    args = ["-t", "f32", "--rows", str(R), "--cols", str(C), "-S", str(S)]
    good = tmp_path / "good.bin"
    good.write_bytes(words.tobytes())
    assert run(capsys, "layout", "import", str(good), *args)[0] == 0
    bad = words.copy()
    bad[S + 2 * 3 * R * C] = 7                      # invocation 3 reports row+1 = 7
    (tmp_path / "bad.bin").write_bytes(bad.tobytes())
    rc, _, err = run(capsys, "layout", "import", str(tmp_path / "bad.bin"), *args)
    assert rc == 1 and f"bad.bin:word {S + 2 * 3 * R * C}: error: invocation 3 index 0 reports row+1=7" in err
    dup = words.copy()
    dup[S + 2 * 3 * R * C: S + 2 * 3 * R * C + 2] = (1, 1)   # a copy of element (0,0); (1,1) missing
    (tmp_path / "dup.bin").write_bytes(dup.tobytes())
    rc, _, err = run(capsys, "layout", "import", str(tmp_path / "dup.bin"), *args)
    assert rc == 1 and "dup.bin: error: not a layout: element (1,1) is held by no invocation" in err


def test_import_refuses_a_device_and_two_inputs_of_one_type(capsys, tmp_path, shown):
    rc, _, err = run(capsys, "layout", "import", "/dev/zero", "-t", "f16", "--rows", "8", "--cols", "8",
                     "--max-output", "4096")
    assert rc == 2 and "/dev/zero: error: not read: a character device, not a regular file" in err
    src = tmp_path / "t.txt"
    src.write_text(shown)
    rc, _, err = run(capsys, "layout", "import", str(src), str(src))
    assert rc == 1 and "same type as" in err


# ------------------------------------------------------------------ no output file after a failed command

def test_probe_leaves_no_file_when_it_fails(capsys, tmp_path):
    out = tmp_path / "p.spvasm"
    base = ["layout", "probe", "--api", "khr", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a",
            "-o", str(out)]
    rc, _, err = run(capsys, *base, "--inputs", str(tmp_path / "missing-dir" / "x"))
    assert rc == 2 and "cannot write output" in err   # a file that cannot be written: 2
    assert sorted(p.name for p in tmp_path.iterdir()) == []          # no p.spvasm, no temporaries
    rc, _, err = run(capsys, *base[:6], "--rows", "100000", "--cols", "16", "--use", "a", "-o", str(out))
    assert rc == 1 and "<command line>: error:" in err and "--max-dim" in err and not out.exists()
    rc, _, err = run(capsys, *base[:-2], "-o", str(tmp_path))        # a directory
    assert rc == 2 and "it is a directory" in err
    rc, _, _ = run(capsys, *base, "--inputs", str(tmp_path / "x"))   # and when it works, all three files
    assert rc == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["p.spvasm", "x.col.bin", "x.row.bin"]


@pytest.mark.parametrize("argv, status", [
    (["layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "17", "--use", "a"], 1),
    (["layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a", "-f", "svg",
      "--max-output", "100"], 1),
    (["layout", "show", "MISSING.yaml", "-t", "f16", "--rows", "16", "--cols", "16"], 2),   # unreadable: 2
    (["layout", "import", "MISSING.txt"], 2),
])
def test_failed_commands_write_nothing(capsys, tmp_path, argv, status):
    out = tmp_path / "out.txt"
    rc, stdout, _ = run(capsys, *[str(tmp_path / a) if a.startswith("MISSING") else a for a in argv], "-o", str(out))
    assert rc == status and stdout == "" and list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ mutated shipped models (hypothesis)

HOSTILE_INTS = [0, -1, 1, 2, 3, 5, 7, 8, 16, 33, 64, 4097, 2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64, 10 ** 30]
HOSTILE_STRS = [
    "", "x", "any", "none", "a", "acc", "f16", "s8", "lane", "i", "lane / 0", "lane % 0", "1 << 63", "1 << 100",
    "-1", "R * C * S", "i * 1000000", "lane * 100000", "log2(0)", "min(1)", "foo(1)", "cdiv(i, 0)", "C / 0",
    "9" * 30, "9" * 5000, "!" * 5000 + "1", "!" * 70 + "1", "1?1:" * 80 + "1", "(" * 60 + "1" + ")" * 60,
    "1+" * 70 + "1", "(1,100000000):(1,1)", "(32,8):(9223372036854775808,1)", "(" * 10 + "1" + ")" * 10 + ":1",
    "(0,8):(1,1)", "(32,8):(1,32)", "((4,8),(2,2)):((32,1),(16,8))", "(4,2):(1,16)", "(32,4096):(1,32)",
    "\x00", "\u00e9", "9223372036854775807", "0x" + "f" * 16, "S == 32 ? 8 : 0",
]
HOSTILE_SCALARS = HOSTILE_INTS + HOSTILE_STRS + [
    None, True, False, 1.5, float("inf"), float("nan"),
    [], {}, [[0, 0]], [1] * 70, {"multiple_of": 0}, {"multiple_of": 3}, {"seed": -1}, {"seed": 2 ** 70},
    [[0, 1], [0, 2]], [None], [[None]], {"x": 1}, [[0, 0]] * 40,
]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


def _get(node, path):
    for p in path:
        node = node[p]
    return node


@st.composite
def mutated_models(draw):
    """The text of a shipped model with one to three mutations."""
    path = draw(st.sampled_from(MODEL_FILES))
    text = path.read_text()
    data = yaml.safe_load(text)
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["typed", "typed", "typed", "replace", "tweak", "tweak", "delete", "text"]))
        paths = [p for p in _paths(data) if p]
        if action == "text":
            break   # a text-level mutation of the (possibly already mutated) file, below
        if action in ("typed", "tweak"):   # leaves: numbers and strings deep inside the descriptors
            paths = [p for p in paths if isinstance(_get(data, p), (int, str))] or paths
        where = draw(st.sampled_from(paths))
        parent, key = _get(data, where[:-1]), where[-1]
        old = parent[key]
        if action == "typed":
            pool = HOSTILE_STRS if isinstance(old, str) else HOSTILE_INTS if isinstance(old, int) else HOSTILE_SCALARS
            parent[key] = copy.deepcopy(draw(st.sampled_from(pool)))
        elif action == "delete":
            del parent[key]
        elif action == "tweak" and isinstance(old, int) and not isinstance(old, bool):
            parent[key] = draw(st.sampled_from([old + 1, old - 1, old * 1000, -old, old << 40, old << 70]))
        elif action == "tweak" and isinstance(old, str):
            cut = draw(st.integers(0, len(old)))
            parent[key] = draw(st.sampled_from([old[:cut], old[:cut] + old, old[:cut] + "(" + old[cut:],
                                                old[:cut] + " * 1000000" + old[cut:], old * 40]))
        else:
            parent[key] = copy.deepcopy(draw(st.sampled_from(HOSTILE_SCALARS)))   # never shared between examples
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if action == "text":
        lines = text.split("\n")
        n = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["duplicate", "delete", "truncate"]))
        if kind == "duplicate":      # a duplicated key (or list item) at the same indentation
            lines.insert(n, lines[n])
        elif kind == "delete":
            del lines[n]
        else:
            lines = lines[:n] + [lines[n][: draw(st.integers(0, len(lines[n])))]]
        text = "\n".join(lines)
    return text


def _exercise(text: str) -> None:
    """Load a model and ask it for layouts and pictures; only SpvError may come out, located in the file."""
    try:
        m = parse_model(text, "m.yaml", limits=SMALL)
        types = m.types()[:6] + [("f16", 16, 16, "a", 32), ("s8", 16, 32, "b", 32), ("f32", 8, 8, None, 8)]
        for e in m.entries:
            e.describe()
        for t in types:
            if not m.defines(*t):
                continue
            lay = m.layout(*t)
            for fmt, render in FORMATS.items():
                check_output_budget(lay, fmt, SMALL.max_output)
                render(lay)
    except SpvError as e:
        assert e.diagnostics and all(d.source == "m.yaml" for d in e.diagnostics), e


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@SETTINGS
@given(mutated_models())
def test_mutated_models_give_layouts_or_located_errors(text):
    _exercise(text)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated_models(), st.sampled_from(sorted(FORMATS)))
def test_mutated_models_on_the_command_line(text, fmt):
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "m.yaml", Path(d) / "out"
        src.write_text(text)
        for argv in (["show", str(src), "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a", "-f", fmt,
                      "-o", str(out)],
                     ["list", str(src)],
                     ["diff", str(src), "striped"]):
            try:
                rc = main(["layout", *argv, *SMALL_ARGS])
            finally:
                gc.enable()
            assert rc in (0, 1)
            if argv[0] == "show":
                assert out.exists() == (rc == 0)
                out.unlink(missing_ok=True)
        assert sorted(p.name for p in Path(d).iterdir()) == ["m.yaml"]   # no temporaries left behind


@pytest.mark.parametrize("path", MODEL_FILES, ids=lambda p: p.stem)
def test_shipped_models_load_within_the_small_budget(path):
    m = parse_model(path.read_text(), path.name, limits=SMALL)
    for t in m.types():
        m.layout(*t)


# ------------------------------------------------------------------ the Python API on hostile arguments

ANY_ARG = st.one_of(st.integers(-2 ** 70, 2 ** 70), st.sampled_from([0, 1, 8, 16, 32, 4096, 4097]),
                    st.text(max_size=8), st.sampled_from(["f16", "s8", "a", "acc", "b", None, 1.5, float("nan")]))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["nvidia", "striped", "shuffled", "tinytc", "amd-rdna3-wmma"]), ANY_ARG, ANY_ARG, ANY_ARG,
       ANY_ARG, ANY_ARG)
def test_api_arguments_give_layouts_or_errors(name, comp, rows, cols, use, S):
    m = load_model(name, limits=SMALL)
    defined = m.defines(comp, rows, cols, use, S)
    try:
        lay = m.layout(comp, rows, cols, use, S)
    except SpvError:
        assert not defined
    else:
        assert defined and lay.row.shape == (S if S is not None else m.default_subgroup_size, lay.length)
    from spvcoop.layouts.probe import import_buffer, probe_inputs, probe_shader
    for call in (lambda: probe_shader("khr", comp, rows, cols, use, S, SMALL),
                 lambda: probe_inputs(comp, rows, cols, SMALL),
                 lambda: import_buffer([1] * 40, rows, cols, S, SMALL)):
        with contextlib.suppress(SpvError):
            call()


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=300), st.sampled_from(["", "nvidia: f16 16x16 use a, subgroup size 4, length 2\n",
                                               "m: f16 2x2 (no use), subgroup size 2, length 2\ni | p0 p1\n--+--\n"]))
def test_read_back_of_arbitrary_text(text, head):
    from spvcoop.layouts.render import ReadBackError, parse_json, parse_table
    for arg in (head + text, text):
        try:
            entry = parse_table(arg, SMALL)
        except ReadBackError as e:
            assert e.line is not None
        else:
            assert len(entry["lanes"]) == entry["subgroup_size"]
    try:
        parse_json({"model": text, "component": "f16", "rows": len(text), "cols": 1, "use": None,
                    "subgroup_size": 1, "length": 1, "lanes": [[[0, 0]]]}, SMALL)
    except ReadBackError:
        assert len(text) == 0


def test_model_files_are_read_within_a_budget(tmp_path, capsys):
    big = tmp_path / "big.yaml"
    big.write_text("name: t\nentries: [{striped: {}}]\n" + "# padding\n" * 30000)
    rc, _, err = run(capsys, "layout", "list", str(big))
    assert rc == 1 and "larger than the limit of 262144 bytes (raise it with --max-model-bytes)" in err
    rc, out, _ = run(capsys, "layout", "list", str(big), "--max-model-bytes", "400000")
    assert rc == 0 and out.startswith("t  (any subgroup size)")
    for path in ("/dev/zero", str(tmp_path)):
        rc, _, err = run(capsys, "layout", "show", path, "-t", "f16", "--rows", "16", "--cols", "16")
        assert rc == 2 and "not a regular file" in err


def test_when_conditions_have_a_work_budget(tmp_path):
    lets = ", ".join(f"v{k}: 'R * {k}'" for k in range(64))
    entries = "".join(f"  - name: e{n}\n    when: '0'\n    let: {{{lets}}}\n    striped: {{}}\n" for n in range(40))
    examples = "".join(f"  - {{component: f16, rows: {r}, cols: 16, use: a}}\n" for r in range(1, 40))
    path = tmp_path / "m.yaml"
    path.write_text(f"name: t\nsubgroup_size: 32\nexamples:\n{examples}entries:\n{entries}")
    m = load_model(str(path), limits=LayoutLimits(max_model_bytes=1 << 20))
    with pytest.raises(SpvError, match=r"took more than 50000 expression evaluations") as info:
        m.types()
    assert info.value.diagnostics[0].span.line > 40   # at an entry

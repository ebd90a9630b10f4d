"""Unit tests of the fuzzing driver itself (tools/fuzz): determinism of the mutators and the
input generation, classification of outcomes, the report table, and the worker's watchdog."""
from __future__ import annotations

import argparse
import random
import struct
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

ROOT = REPO
sys.path.insert(0, str(ROOT))

from tools.fuzz import cases, mutators  # noqa: E402
from tools.fuzz.__main__ import parse_entries, parse_size  # noqa: E402
from tools.fuzz.execute import (Timeout, classify_exception, classify_exit, execute,  # noqa: E402
                                innermost_frame, materialize, signature_from_dump)
from tools.fuzz.report import Stats, save_reproducers  # noqa: E402

TEXT = "OpCapability Shader\n%int = OpTypeInt 32 1\n%c = OpConstant %int 7\n%d = OpConstant %int 9\n"


@pytest.mark.slow
@pytest.mark.parametrize("entry", cases.ENTRIES)
def test_generation_is_a_function_of_seed_entry_index(entry):
    a = [cases.generate(3, entry, i) for i in range(6)]
    b = [cases.generate(3, entry, i) for i in range(6)]
    assert a == b
    other = [cases.generate(4, entry, i) for i in range(6)]
    assert a != other  # another campaign seed gives other inputs


def test_inputs_differ_between_indices():
    datas = {tuple(sorted(cases.generate(1, "dis", i).files.items())) for i in range(20)}
    assert len(datas) > 15


@pytest.mark.parametrize("mutate", mutators.TEXT_MUTATORS + [mutators.mutate_text])
def test_text_mutators_are_deterministic(mutate):
    out1 = [mutate(random.Random(k), TEXT) for k in range(20)]
    out2 = [mutate(random.Random(k), TEXT) for k in range(20)]
    assert out1 == out2
    assert all(isinstance(t, str) for t in out1)
    assert any(t != TEXT for t in out1)


def test_replace_number_uses_hostile_numbers():
    outs = {mutators.replace_number(random.Random(k), "%c = OpConstant %int 7\n") for k in range(200)}
    assert any("0x1p99999999999" in t for t in outs)
    assert all(t.startswith("%c = OpConstant %int ") for t in outs)  # ids are not numbers to replace


def test_word_mutations_keep_bytes_and_follow_instructions():
    words = [0x07230203, 0x00010600, 0, 10, 0, (2 << 16) | 17, 1, (4 << 16) | 21, 5, 32, 1]
    data = struct.pack(f"<{len(words)}I", *words)
    assert mutators.instruction_starts(words) == [5, 7]
    outs = [mutators.mutate_words(random.Random(k), data) for k in range(100)]
    assert outs == [mutators.mutate_words(random.Random(k), data) for k in range(100)]
    assert all(isinstance(o, bytes) for o in outs)
    assert sum(o != data for o in outs) > 80


def test_byte_mutators():
    data = bytes(range(64))
    assert mutators.flip_bits(random.Random(1), data) != data
    assert len(mutators.truncate(random.Random(2), data)) <= 64
    s = mutators.invalid_utf8(random.Random(3), b"abc")
    with pytest.raises(UnicodeDecodeError):
        s.decode("utf-8")


def test_alias_bomb_expands_geometrically():
    anchors, alias = mutators.alias_bomb(levels=4, width=3)
    data = yaml.safe_load(anchors + f"x: {alias}\n")

    def leaves(v):
        return sum(leaves(x) for x in v) if isinstance(v, list) else 1
    assert leaves(data["x"]) == 3 ** 3


def test_yaml_tree_mutation_changes_the_tree_and_dumps_bombs():
    tree = {"shader": "a.spvasm", "dispatch": [1, 1, 1], "buffers": {"x": {"arange": 4}}}
    outs = [mutators.mutate_tree(random.Random(k), tree) for k in range(50)]
    assert tree == {"shader": "a.spvasm", "dispatch": [1, 1, 1], "buffers": {"x": {"arange": 4}}}  # not in place
    assert sum(o != tree for o in outs) > 40
    text = mutators.dump_tree(random.Random(0), {"a": mutators.BOMB, "b": mutators.DEEP})
    assert "&l0" in text and "*l" in text and "[[[[" in text or "{a: {a:" in text


def test_classify_exit():
    assert classify_exit(0, "", "").cls == "accepted"
    assert classify_exit(1, "x.spvasm:3:4: error: bad\n", "").cls == "rejected"
    assert classify_exit(1, "x.spvasm:3:4: error[structure.id.order]: bad\n", "").cls == "rejected"
    assert classify_exit(1, "", '{"severity": "error"}').cls == "rejected"  # val --format json
    u = classify_exit(2, "something went wrong 12\n", "")
    assert u.cls == "unlocated" and "N" in u.signature
    t = classify_exit(3, "spvcoop: internal error at spvcoop/binary/reader.py:88 (please report): boom\n", "")
    assert t.cls == "exit3" and t.signature == "exit 3 at spvcoop/binary/reader.py:88"
    p = classify_exit(1, "Traceback (most recent call last):\n  File ...\nKeyError: 5\n", "")
    assert p.cls == "traceback"
    assert classify_exit(137, "", "").cls == "traceback"


def _raise_inside_spvcoop():
    # a real spvcoop frame: read_binary on 3 bytes raises SpvError; here ask for an exception
    # from a library frame by handing it a wrong type
    from spvcoop.binary.reader import read_binary
    read_binary(None, "x")


def test_classify_exception_signatures():
    from spvcoop.core.diagnostics import Diagnostic, SpvError
    assert classify_exception(SpvError(Diagnostic("error", "no", source="f"))).cls == "rejected"
    try:
        _raise_inside_spvcoop()
    except Exception as e:  # noqa: BLE001
        out, name = classify_exception(e), type(e).__name__
    assert out.cls == "traceback"
    assert out.signature.startswith(name + " at spvcoop/binary/reader.py:")
    assert classify_exception(MemoryError()).cls == "memory"
    assert classify_exception(Timeout()).cls == "hang"
    assert classify_exception(SystemExit(2)).cls == "rejected"
    assert classify_exception(SystemExit(0)).cls == "accepted"
    assert innermost_frame(None) == "<outside spvcoop>"


def test_signature_from_faulthandler_dump():
    pkg = str(ROOT / "spvcoop")
    dump = (f'Timeout (0:00:15)!\nThread 0x1 (most recent call first):\n'
            f'  File "{pkg}/core/literals.py", line 40 in parse_float\n'
            f'  File "{pkg}/asm/assembler.py", line 300 in encode\n'
            '  File "/x/tools/fuzz/execute.py", line 9 in execute\n')
    assert signature_from_dump(dump) == "spvcoop/core/literals.py:parse_float"
    assert signature_from_dump("nothing") == "<outside spvcoop>"


def test_execute_classifies_real_calls(tmp_path):
    ok = cases.Case("as", 0, "api", {"in.spvasm": TEXT.encode()}, api="assemble",
                    params={"path": "in.spvasm", "preserve_numeric_ids": False, "target_env": "spv1.6"})
    bad = cases.Case("as", 1, "api", {"in.spvasm": b"%x = OpNope\n"}, api="assemble",
                     params={"path": "in.spvasm", "preserve_numeric_ids": False, "target_env": "spv1.6"})
    for case, want in ((ok, "accepted"), (bad, "rejected")):
        d = tmp_path / str(case.index)
        d.mkdir()
        materialize(case, d)
        assert (d / "link").is_symlink()
        assert execute(case, d).cls == want


def test_execute_reports_leftover_output(tmp_path):
    # the command fails, and a file stands at its -o path: the driver must call it a leftover
    case = cases.Case("as", 0, "cli", {"bad.spvasm": b"%x = OpNope\n"}, ["as", "bad.spvasm", "-o", "out.spv"],
                      outputs=["out.spv"])
    materialize(case, tmp_path)
    (tmp_path / "out.spv").write_bytes(b"stale")
    out = execute(case, tmp_path)
    assert out.cls == "leftover" and out.exit_code == 1
    (tmp_path / "out.spv").unlink()
    assert execute(case, tmp_path).cls == "rejected"


def test_a_verdict_with_its_outputs_is_no_leftover(tmp_path):
    """`run --layout all` that finds a layout-dependent output exits 1 and writes each model's outputs (issue 32)."""
    root = REPO / "samples" / "coopmat" / "nonportable"
    files = {n: (root / n).read_bytes() for n in ("run.yaml", "rowsum.spvasm", "in_x.npy")}
    case = cases.Case("run", 0, "cli", files, ["run", "run.yaml", "--layout", "all", "-o", "out.json"],
                      outputs=["out.json"])
    materialize(case, tmp_path)
    out = execute(case, tmp_path)
    assert out.cls == "rejected" and out.exit_code == 1 and (tmp_path / "out.json").exists()


def test_stats_table_and_reproducers(tmp_path):
    s = Stats(seed=1)
    s.add({"entry": "as", "index": 0, "cls": "rejected", "signature": "", "rss_kb": 2048, "seconds": 0.01})
    s.add({"entry": "as", "index": 1, "cls": "traceback", "signature": "KeyError at spvcoop/x.py:1",
           "rss_kb": 4096, "seconds": 0.02, "detail": "tb"})
    s.add({"entry": "as", "index": 2, "cls": "traceback", "signature": "KeyError at spvcoop/x.py:1",
           "rss_kb": 1024, "seconds": 0.02})
    s.add({"entry": "dis", "index": 0, "cls": "hang", "signature": "hang at spvcoop/y.py:f", "seconds": 10.0})
    s.add({"entry": "dis", "index": 1, "cls": "exit3", "signature": "exit 3 at spvcoop/z.py:2", "seconds": 0.1})
    s.add({"entry": "dis", "index": 2, "cls": "leak", "signature": "dis (dis): the secret ...", "seconds": 0.1})
    table = s.table().splitlines()
    assert table[0].startswith("| entry | inputs | rejected | accepted | tracebacks (distinct) | exit 3 | leaks | "
                               "hangs |")
    assert table[2].startswith("| as | 3 | 1 | 0 | 2 (1) | 0 | 0 | 0 |")
    assert table[3].startswith("| dis | 3 | 0 | 0 | 0 (0) | 1 | 1 | 1 |")
    assert table[4].startswith("| all | 6 | 1 | 0 | 2 (1) | 1 | 1 | 1 |")
    assert "| 4 |" in table[2]  # peak RSS MiB of 'as'
    assert len(s.signatures) == 4 and s.signatures[("traceback", "KeyError at spvcoop/x.py:1")]["count"] == 2
    dirs = save_reproducers(s, tmp_path, seed=1)
    assert len(dirs) == 4
    assert (dirs[0] / "repro.json").exists() and (dirs[0] / "README.txt").exists()


def test_option_parsing():
    assert parse_size("4G") == 4 << 30 and parse_size("512M") == 512 << 20 and parse_size("100") == 100
    assert parse_entries("all") == list(cases.ENTRIES)
    assert parse_entries("as,dis") == ["as", "dis"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown entry point nope"):
        parse_entries("as,nope")


@pytest.mark.slow
def test_worker_runs_inputs_and_watchdog_restarts_it(tmp_path):
    from tools.fuzz.campaign import Worker
    w = Worker(0, seed=1, time_limit=10, mem_limit=4 << 30, tmp=str(tmp_path))
    try:
        rec = w.run("as", 0, deadline_s=120)
        assert rec["entry"] == "as" and rec["index"] == 0
        assert rec["cls"] in ("accepted", "rejected", "traceback", "unlocated")
        lost = w.run("as", 1, deadline_s=0)  # no answer in time: killed, recorded as a hang
        assert lost["cls"] == "hang" and w.proc.poll() is not None
        again = w.run("as", 0, deadline_s=120)  # a fresh worker gives the same outcome
        assert again["cls"] == rec["cls"] and w.starts == 2
    finally:
        w.stop()


NEW_ENTRIES = ("lint", "glsl", "numerics", "outdir", "novalidate", "apitypes", "debug", "dap", "coverage")


def test_new_entry_points_are_listed():
    assert set(NEW_ENTRIES) <= set(cases.ENTRIES)
    assert parse_entries("lint,apitypes") == ["lint", "apitypes"]


def _blocks(case) -> bool:
    """Whether the case reads a FIFO nobody writes (it would block this in-process test for ever)."""
    text = b" ".join(case.files.values()) + " ".join(case.argv).encode()
    return any(f.encode() in text or f.split("/")[0] in case.argv for f in case.fifos) or \
        any(a.startswith("tree/fifo") or a == "fifo/" for a in case.argv)


@pytest.mark.slow
@pytest.mark.parametrize("entry", NEW_ENTRIES)
def test_new_entries_run_in_process(entry, tmp_path):
    seen = 0
    for i in range(40):
        case = cases.generate(1, entry, i)
        if _blocks(case) or (entry == "lint" and case.fifos):
            continue
        d = tmp_path / f"{entry}-{i}"
        d.mkdir()
        materialize(case, d)
        out = execute(case, d)
        assert out.cls in ("accepted", "rejected", "leak", "exit3", "traceback", "unlocated", "escape"), out
        seen += 1
        if seen == 2:
            break
    assert seen == 2


def test_lint_trees_hold_fifos_links_out_and_deep_paths(tmp_path):
    import stat
    kinds = set()
    for i in range(60):
        case = cases.generate(1, "lint", i)
        if case.fifos:
            d = tmp_path / str(i)
            d.mkdir()
            materialize(case, d)
            assert stat.S_ISFIFO((d / case.fifos[0]).lstat().st_mode)
            kinds.add("fifo")
        if any(t.endswith(cases.CANARY_NAME) or t == "../secret" for t in case.links.values()):
            kinds.add("out")
        if any(t in cases.DEVICES for t in case.links.values()):
            kinds.add("device")
        if any(n.count("/") > 40 for n in case.files):
            kinds.add("deep")
    assert kinds == {"fifo", "out", "device", "deep"}


@pytest.mark.slow
def test_glsl_cases_include_files_outside_the_tree():
    targets = {t for i in range(80) for t in cases.INCLUDE_TARGETS
               if f'#include "{t}"' in cases.generate(1, "glsl", i).files.get(
                   cases.generate(1, "glsl", i).argv[1] if cases.generate(1, "glsl", i).argv[1].endswith(".comp")
                   else next(n for n in cases.generate(1, "glsl", i).files if n.endswith(".comp")), b"").decode(
                   "utf-8", "replace")}
    assert {"secret", "../" + cases.CANARY_NAME, "fifo.glsl"} <= targets


def test_a_leak_of_the_canary_is_a_finding(tmp_path, monkeypatch):
    from tools.fuzz import execute as ex

    def quote_secret(case, p):
        print(Path("secret").read_text().splitlines()[0])  # what a careless error message would do
    monkeypatch.setitem(ex.API, "quote", quote_secret)
    case = cases.Case("lint", 0, "api", {}, api="quote")
    d = tmp_path / "case"
    d.mkdir()
    materialize(case, d)
    assert (tmp_path / cases.CANARY_NAME).read_text() == cases.CANARY_TEXT  # planted outside the tree
    out = execute(case, d)
    assert out.cls == "leak" and "shows in the output" in out.signature

    def copy_secret(case, p):
        Path("copy.txt").write_bytes(Path("secret").read_bytes())
    monkeypatch.setitem(ex.API, "copy", copy_secret)
    case = cases.Case("lint", 1, "api", {}, api="copy")
    assert execute(case, d).signature.endswith("shows in the file")


def test_a_file_written_outside_the_output_directory_is_a_finding(tmp_path, monkeypatch):
    from tools.fuzz import execute as ex

    def escape(case, p):
        Path("out").mkdir()
        Path("out/y.npy").write_bytes(b"")
        Path("../x" + cases.ESCAPE + ".npy").write_bytes(b"")
    monkeypatch.setitem(ex.API, "escape", escape)
    case = cases.Case("outdir", 0, "api", {}, api="escape", params={"confine": "out/"})
    d = tmp_path / "case"
    d.mkdir()
    materialize(case, d)
    assert execute(case, d).cls == "escape"


@pytest.mark.parametrize("params, want", [
    ({"function": "run", "via": "spvcoop", "subgroup_size": "str"}, "rejected"),
    ({"function": "validate", "via": "inner", "spirv_val_timeout": "nan"}, "rejected"),
    ({"function": "assemble", "via": "spvcoop", "source": "str"}, "accepted"),
    ({"function": "read_binary", "via": "spvcoop", "data": "bytearray"}, "rejected"),  # 20 zero bytes: SpvError
])
def test_apitypes_classification(tmp_path, params, want):
    case = cases.Case("apitypes", 0, "api", {}, api="apitypes", params=params)
    assert execute(case, tmp_path).cls == want


def test_semantic_mutations_keep_the_text_assembling():
    import spvcoop
    text = (ROOT / "samples" / "saxpy" / "saxpy.spvasm").read_text()
    outs = [mutators.mutate_semantics(random.Random(k), text) for k in range(60)]
    assert outs == [mutators.mutate_semantics(random.Random(k), text) for k in range(60)]
    ok = 0
    for t in outs:
        try:
            spvcoop.assemble(t)
            ok += 1
        except spvcoop.SpvError:
            pass
    assert ok > 30 and sum(t != text for t in outs) > 50


def test_outputs_under_dot_are_inside_and_novalidate_runs_have_the_run_time_limit(tmp_path):
    """Campaign 23's false findings: `-o ./` wrote `_.._fuzzescape.npy` inside the case directory (an 'escape'),
    and --no-validate runs had the 60 s default time limit (endless loops were 'hangs' at 10 s)."""
    import random

    from tools.fuzz.cases import ESCAPE, Case, gen_novalidate
    from tools.fuzz.execute import escaped
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    (case_dir / f"_.._{ESCAPE}.npy").write_bytes(b"")
    case = Case("outdir", 0, "cli", {}, [], params={"confine": "./"})
    assert escaped(case, case_dir) is None
    case = Case("outdir", 0, "cli", {}, [], params={"confine": "out"})
    assert escaped(case, case_dir) == f"_.._{ESCAPE}.npy"
    argv = gen_novalidate(random.Random(1), 0).argv
    assert argv[argv.index("--max-time") + 1] == "4"


# --- issue 32's entry points: two answers to one input -------------------------------------------------------

ISSUE32_ENTRIES = ("aliased", "floatlit", "device", "template")


def test_issue32_entry_points_are_listed_and_mismatch_is_a_finding():
    from tools.fuzz.report import FINDING_CLASSES   # the one list of finding classes
    assert set(ISSUE32_ENTRIES) <= set(cases.ENTRIES)
    assert "mismatch" in FINDING_CLASSES
    s = Stats(seed=1)
    s.add({"entry": "device", "index": 0, "cls": "mismatch", "signature": "device: x", "seconds": 0.1})
    head, _, row = s.table().splitlines()[:3]
    assert "| mismatches |" in head and row.split(" | ")[head.split(" | ").index("mismatches")] == "1"


@pytest.mark.parametrize("entry", ISSUE32_ENTRIES)
def test_issue32_entries_run_in_process(entry, tmp_path):
    for i in range(2):
        case = cases.generate(1, entry, i)
        d = tmp_path / f"{entry}-{i}"
        d.mkdir()
        materialize(case, d)
        out = execute(case, d)
        assert out.cls in ("accepted", "rejected", "mismatch", "exit3", "traceback"), out


def test_aliased_shaders_declare_one_binding_twice():
    for i in range(20):
        case = cases.generate(1, "aliased", i)
        glsl = case.files["alias.comp"].decode()
        assert glsl.count("layout(set = 0, binding = 1) readonly buffer") == 2
        assert set(case.params["buffers"]) - {"d"}, case.params
        assert case.params["given"].split(" (")[0] in ("set:binding", "two names", "the first view", "the second view",
                                                       "the first block", "the second block", "the first instance",
                                                       "the second instance")


def _aliased_case(tmp_path, given_key: str):
    glsl = ("#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer Out { float d[]; };\n"
            "layout(set = 0, binding = 1) readonly buffer A { vec4 data_a[]; };\n"
            "layout(set = 0, binding = 1) readonly buffer A_SCALAR { float data_a_s[]; };\n"
            "void main() { d[0] = data_a[0].x + data_a_s[1]; }\n")
    case = cases.Case("aliased", 0, "api", {"alias.comp": glsl.encode()}, api="aliased",
                      params={"shader": "alias.comp", "given": given_key,
                              "buffers": {given_key: {"kind": "array", "dtype": "float32", "n": 16, "scale": 1},
                                          "d": {"kind": "array", "dtype": "float32", "n": 1, "scale": 0}}})
    materialize(case, tmp_path)
    return case


def test_aliased_compares_the_bytes_both_backends_put_in_the_binding(tmp_path, monkeypatch):
    """Data named by a view: the interpreter and the GPU runner's encoding (on the fake device) agree; a backend
    that refuses alone, or fills the binding with other bytes, is a mismatch."""
    import spvcoop
    from spvcoop.core.diagnostics import Diagnostic, SpvError
    case = _aliased_case(tmp_path, "data_a_s")
    assert execute(case, tmp_path).cls == "accepted"

    def refuse(*a, **k):
        raise SpvError(Diagnostic("error", "no", source="x"))
    with monkeypatch.context() as m:
        m.setattr(spvcoop, "run", refuse)
        out = execute(case, tmp_path)
    assert out.cls == "mismatch" and out.signature == "aliased: only the CPU refuses data given by data_a_s"

    from tools.fuzz import differential
    real = differential._binding_bytes
    calls = []

    def other_bytes(res, key):
        calls.append(key)
        return real(res, key) + (b"!" if len(calls) == 2 else b"")
    monkeypatch.setattr(differential, "_binding_bytes", other_bytes)
    out = execute(case, tmp_path)
    assert out.cls == "mismatch" and "fill the binding differently" in out.signature


def test_fake_device_holds_what_the_gpu_runner_wrote():
    import numpy as np

    from spvcoop.gpu.runner import run_on_device
    from tools.fuzz.differential import fake_device
    res = run_on_device(ROOT / "samples" / "saxpy" / "saxpy.spvasm", device=fake_device(), validate=False,
                        buffers={"x": np.arange(8, dtype=np.float32), "y": np.ones(8, np.float32)},
                        push_constants={"a": 2.0, "n": 8})
    np.testing.assert_array_equal(res["x"], np.arange(8, dtype=np.float32))   # no dispatch: the bytes written


def test_float_edges_and_hex_literals_are_exact():
    from fractions import Fraction
    e16, e32 = cases._edges(16), cases._edges(32)
    assert e16["largest"] == 65504 and e16["overflow boundary"] == 65520
    assert e16["smallest subnormal"] == Fraction(1, 2 ** 24) and e32["underflow boundary"] == Fraction(1, 2 ** 150)
    assert cases._hex(e32["largest"]) == "0x1.fffffep+127" and float.fromhex("0x1.fffffep+127") == e32["largest"]
    assert cases._hex(e32["overflow boundary"]) == "0x1.ffffffp+127"
    assert cases._decimal(Fraction(65520), 3, True) == "6.55e+4" and cases._decimal(Fraction(1, 4), 5, False) == "0.25"
    lits = [cases.generate(1, "floatlit", i).params for i in range(80)]
    assert {p["width"] for p in lits} == {16, 32, 64}
    assert any(p["edge"].startswith("f32 ") and p["width"] == 16 for p in lits)   # another width's edge


@pytest.mark.parametrize("literal, width, want", [("65504", 16, "accepted"), ("1e999", 32, "rejected"),
                                                  ("0x1.fffffep+127", 32, "accepted")])
def test_floatlit_agrees_with_spirv_as(tmp_path, literal, width, want):
    case = cases.Case("floatlit", 0, "api", {"in.spvasm": (
        f"OpCapability Shader\nOpCapability Float16\nOpMemoryModel Logical GLSL450\n%float = OpTypeFloat {width}\n"
        f"%c = OpConstant %float {literal}\n").encode()}, api="floatlit",
        params={"width": width, "edge": "test", "literal": literal})
    materialize(case, tmp_path)
    assert execute(case, tmp_path).cls == want


def test_floatlit_other_words_than_spirv_as_are_a_mismatch(tmp_path, monkeypatch):
    import spvcoop
    case = cases.Case("floatlit", 0, "api", {"in.spvasm": (
        b"OpCapability Shader\nOpMemoryModel Logical GLSL450\n%float = OpTypeFloat 32\n%c = OpConstant %float 1.5\n")},
        api="floatlit", params={"width": 32, "edge": "test", "literal": "1.5"})
    materialize(case, tmp_path)
    real = spvcoop.assemble
    monkeypatch.setattr(spvcoop, "assemble", lambda text, *a, **k: real(text.replace("1.5", "2.5"), *a, **k))
    out = execute(case, tmp_path)
    assert out.cls == "mismatch" and out.signature == "floatlit: spvcoop and spirv-as encode an f32 literal (test) " \
        "differently"


@pytest.mark.parametrize("value, ok", [("vulkan", True), ("vulkan:0", True), ("vulkan:12", True), ("", False),
                                       (" vulkan", False), ("vulkan:", False), ("vulkan:-1", False),
                                       ("vulkan:\u0663", False), ("cpu", False), ("VULKAN", False)])
def test_device_values(value, ok):
    from tools.fuzz.differential import device_value_ok
    assert device_value_ok(value) is ok


def test_a_malformed_device_must_be_a_usage_error():
    from tools.fuzz.differential import check_device
    from tools.fuzz.execute import Outcome
    bad = cases.Case("device", 0, "cli", {}, ["run", "run.yaml", "--device", ""], params={"device": ""})
    good = cases.Case("device", 0, "cli", {}, ["run", "run.yaml", "--device", "vulkan"], params={"device": "vulkan"})
    assert check_device(bad, Outcome("accepted", exit_code=0)).cls == "mismatch"
    assert check_device(bad, Outcome("rejected", exit_code=1)).signature == \
        "device: a malformed --device value exits 1, not 2 (usage)"
    assert check_device(bad, Outcome("rejected", exit_code=2)).cls == "rejected"
    assert check_device(good, Outcome("rejected", exit_code=2)).cls == "rejected"
    assert check_device(good, Outcome("accepted", exit_code=0)).cls == "accepted"
    values = {cases.generate(1, "device", i).params["device"] for i in range(120)}
    assert {"", "vulkan"} <= values and len(values) > 20


def test_template_round_trip(tmp_path):
    """A sample's shader: the template written, then read back (the one-step run stops by itself: accepted);
    an error located in the template is a mismatch."""
    from tools.fuzz.differential import template_refused
    from tools.fuzz.corpus import template_modules
    modules = {p.name for p in template_modules()}
    assert {"saxpy.spvasm", "reduce.spvasm"} <= modules
    for fmt, template in (("runspec", "template.yaml"), ("sicompat", "in.yaml")):
        d = tmp_path / fmt
        d.mkdir()
        case = cases.Case("template", 0, "api", {"saxpy.spvasm": (ROOT / "samples/saxpy/saxpy.spvasm").read_bytes()},
                          api="template", params={"module": "saxpy.spvasm", "format": fmt, "template": template})
        materialize(case, d)
        assert execute(case, d).cls == "accepted"
        assert (d / template).exists()
    refused = "t.yaml:3:1: error: duplicate key 'x'"
    assert template_refused("t.yaml", refused + "\n") == refused
    assert template_refused("t.yaml", "s.spvasm:3:1: error[interp.runtime]: out of bounds\n") is None


def test_an_empty_device_that_runs_is_a_mismatch_not_a_leftover(tmp_path):
    """Issue 32 item 3 (`--device ''` ran on the CPU): the run wrote its -o output, which is no leftover of a
    failure; the finding is the malformed value accepted. Once refused (exit 2) it is a clean rejection."""
    directory = ROOT / "samples" / "saxpy"
    from tools.fuzz import corpus
    case = cases.Case("device", 0, "cli", corpus.sample_files(directory),
                      ["run", "run.yaml", "-q", "--device=", "-o", "out.yaml"], outputs=["out.yaml"],
                      params={"device": ""})
    materialize(case, tmp_path)
    out = execute(case, tmp_path)
    assert (out.cls, out.signature) in (("mismatch", "device: a malformed --device value ran (exit 0)"),
                                        ("rejected", "")), out


def test_template_inputs_cover_every_module_and_two_block_bindings():
    from tools.fuzz.corpus import template_modules
    n = len(template_modules())
    made = [cases.generate(1, "template", i) for i in range(n + n // 3 + 4)]
    assert {p.name for p in template_modules()} <= {c.params["module"] for c in made}
    assert all(c.params["module"] == "alias.comp" and b"binding = 1) readonly buffer" in c.files["alias.comp"]
               for c in made[3::4])


def test_float_edge_replaces_only_float_constants():
    """The `as`/`val`/`dis` inputs get float literals at the edges of the formats (issue 32's OverflowError)."""
    text = "%f = OpTypeFloat 32\n%u = OpTypeInt 32 0\n%c = OpConstant %f 1.5\n%d = OpConstant %u 7\n"
    outs = {mutators.float_edge(random.Random(k), text) for k in range(100)}
    assert all("%d = OpConstant %u 7\n" in t and "%c = OpConstant %f 1.5\n" not in t for t in outs)
    assert any("%c = OpConstant %f -3.479020123082e38\n" in t for t in outs)
    assert mutators.float_edge in mutators.TEXT_MUTATORS


def test_output_through_the_cases_own_link_is_inside(tmp_path):
    """-o dirout/ (the case's link to ..) names the directory the link reaches: a buffer's file written there is
    inside -o, not an escape (a campaign on the merged code flagged it, then every later case of that worker saw
    the same file); a file in .. under -o out/ still is one."""
    from tools.fuzz.cases import ESCAPE, Case
    from tools.fuzz.execute import escaped
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    (case_dir / "dirout").symlink_to("..")
    (tmp_path / f"_.._{ESCAPE}.npy").write_bytes(b"")
    assert escaped(Case("outdir", 0, "cli", {}, [], params={"confine": "dirout/"}), case_dir) is None
    assert not (tmp_path / f"_.._{ESCAPE}.npy").exists()   # cleared for the next case of the worker
    (tmp_path / f"_.._{ESCAPE}.npy").write_bytes(b"")
    assert escaped(Case("outdir", 0, "cli", {}, [], params={"confine": "out/"}), case_dir) == \
        str(tmp_path / f"_.._{ESCAPE}.npy")

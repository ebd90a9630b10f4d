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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.fuzz import cases, mutators  # noqa: E402
from tools.fuzz.__main__ import parse_entries, parse_size  # noqa: E402
from tools.fuzz.execute import (Timeout, classify_exception, classify_exit, execute,  # noqa: E402
                                innermost_frame, materialize, signature_from_dump)
from tools.fuzz.report import Stats, save_reproducers  # noqa: E402

TEXT = "OpCapability Shader\n%int = OpTypeInt 32 1\n%c = OpConstant %int 7\n%d = OpConstant %int 9\n"


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
    root = Path(__file__).parent.parent / "samples" / "coopmat" / "nonportable"
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


NEW_ENTRIES = ("lint", "glsl", "numerics", "outdir", "novalidate", "apitypes")


def test_new_entry_points_are_listed():
    assert set(NEW_ENTRIES) <= set(cases.ENTRIES)
    assert parse_entries("lint,apitypes") == ["lint", "apitypes"]


def _blocks(case) -> bool:
    """Whether the case reads a FIFO nobody writes (it would block this in-process test for ever)."""
    text = b" ".join(case.files.values()) + " ".join(case.argv).encode()
    return any(f.encode() in text or f.split("/")[0] in case.argv for f in case.fifos) or \
        any(a.startswith("tree/fifo") or a == "fifo/" for a in case.argv)


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

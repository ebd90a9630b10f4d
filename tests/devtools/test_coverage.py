"""Line and branch coverage as lcov tracefiles: `spvcoop run --coverage`, merging, the pytest plugin's
--spvcoop-coverage. The format is checked against geninfo(1)'s "TRACEFILE FORMAT" grammar (genhtml reads that)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from spvcoop.cli import main
from conftest import REPO

ROOT = REPO
LOOP = ROOT / "tests" / "data" / "debug" / "run.yaml"
LOOP_COMP = str(ROOT / "tests" / "data" / "debug" / "loop.comp")

# geninfo(1), TRACEFILE FORMAT: one record per source file, each line one of these
RECORD = re.compile(r"TN:[^\n]*|SF:.+|FN:\d+,.+|FNDA:\d+,.+|FNF:\d+|FNH:\d+|BRDA:\d+,\d+,\d+,(\d+|-)|BRF:\d+|BRH:\d+"
                    r"|DA:\d+,\d+(,.+)?|LF:\d+|LH:\d+|end_of_record")


def parse_checked(text: str) -> dict[str, dict]:
    """{SF: {"DA": {line: count}, "BRDA": {(line, block, branch): taken}}}, asserting the grammar and that the
    summary records (LF, LH, BRF, BRH) agree with the detail records, as genhtml checks."""
    assert text.endswith("end_of_record\n")
    files: dict[str, dict] = {}
    current: dict | None = None
    for line in text.splitlines():
        assert RECORD.fullmatch(line), line
        key, _, value = line.partition(":")
        if key == "SF":
            assert current is None, "SF inside a record"
            current = files.setdefault(value, {"DA": {}, "BRDA": {}, "FN": {}, "FNDA": {}})
        elif key == "end_of_record":
            assert current is not None
            current = None
        elif key == "DA":
            ln, count = value.split(",")[:2]
            current["DA"][int(ln)] = int(count)            # type: ignore[index]
        elif key == "BRDA":
            ln, blk, br, taken = value.split(",")
            current["BRDA"][(int(ln), int(blk), int(br))] = None if taken == "-" else int(taken)  # type: ignore[index]
        elif key in ("FN", "FNDA"):
            first, name = value.split(",", 1)
            assert key == "FN" or name in current["FN"], "FNDA of a function no FN declared"  # type: ignore[index]
            current[key][name] = int(first)                 # type: ignore[index]
        elif key in ("LF", "LH", "BRF", "BRH", "FNF", "FNH"):
            assert current is not None
            da, brda, fnda = current["DA"], current["BRDA"], current["FNDA"]
            expected = {"LF": len(da), "LH": sum(1 for c in da.values() if c), "BRF": len(brda),
                        "BRH": sum(1 for t in brda.values() if t), "FNF": len(current["FN"]),
                        "FNH": sum(1 for c in fnda.values() if c)}[key]
            assert int(value) == expected, (line, expected)
    assert current is None
    return files


def test_an_untaken_branch_and_an_unreached_line(tmp_path, capsys):
    out = tmp_path / "cov.info"
    assert main(["run", str(LOOP), "-q", "--coverage", str(out)]) == 0
    files = parse_checked(out.read_text())
    assert list(files) == [LOOP_COMP]          # the GLSL source, found beside the module
    da, brda = files[LOOP_COMP]["DA"], files[LOOP_COMP]["BRDA"]
    assert da[6] == 24                   # twice(): 3 calls x 8 invocations
    assert files[LOOP_COMP]["FN"] == {"twice": 5, "main": 9}
    assert files[LOOP_COMP]["FNDA"] == {"twice": 24, "main": 8}
    assert da[16] == 4 and da[18] == 4   # if (i < 4): half each way
    assert da[20] == 8 and da[21] == 0 and da[22] == 0   # v[i] > 1000 never holds: lines 21, 22 never run
    assert brda[(15, 0, 0)] == 4 and brda[(15, 0, 1)] == 4
    assert brda[(20, 0, 0)] == 0 and brda[(20, 0, 1)] == 8   # evaluated, the true side never taken
    assert brda[(21, 0, 0)] is None and brda[(21, 0, 1)] is None   # the branch itself never ran: '-'
    assert "BRDA:21,0,0,-\nBRDA:21,0,1,-\n" in out.read_text() and "DA:21,0\n" in out.read_text()


def test_runs_add_up_in_the_file(tmp_path):
    out = tmp_path / "cov.info"
    for _ in range(2):
        assert main(["run", str(LOOP), "-q", "--coverage", str(out)]) == 0
    files = parse_checked(out.read_text())
    da, brda = files[LOOP_COMP]["DA"], files[LOOP_COMP]["BRDA"]
    assert da[6] == 48 and da[21] == 0 and brda[(15, 0, 0)] == 8 and brda[(21, 0, 0)] is None
    assert files[LOOP_COMP]["FNDA"] == {"twice": 48, "main": 16}


def test_a_file_that_is_not_a_tracefile_is_a_located_error(tmp_path, capsys):
    out = tmp_path / "cov.info"
    out.write_text("TN:\nSF:a.comp\nDA:x,1\nend_of_record\n")
    assert main(["run", str(LOOP), "-q", "--coverage", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{out}:3:4: error: not an lcov tracefile: malformed DA record 'DA:x,1'")
    assert out.read_text() == "TN:\nSF:a.comp\nDA:x,1\nend_of_record\n"   # left as it was


def test_assembly_lines_where_the_module_has_no_debug_lines(tmp_path):
    out = tmp_path / "cov.info"
    assert main(["run", str(ROOT / "samples/saxpy/run.yaml"), "-q", "--coverage", str(out)]) == 0
    files = parse_checked(out.read_text())
    (name, counts), = files.items()
    # 64 invocations (workgroup 8 x dispatch 8), n = 8: only invocations 0..7 store
    assert name.endswith("samples/saxpy/saxpy.spvasm")
    assert counts["BRDA"] == {(82, 0, 0): 8, (82, 0, 1): 56}
    assert set(counts["DA"].values()) == {64, 8} and counts["DA"][73] == 64


def test_coverage_is_refused_with_a_device(tmp_path, capsys):
    assert main(["run", str(LOOP), "--device", "vulkan", "--coverage", str(tmp_path / "c.info")]) == 2
    assert "--coverage counts what the interpreter executes" in capsys.readouterr().err


@pytest.mark.slow
def test_the_pytest_plugin_adds_every_run_of_a_session(tmp_path):
    (tmp_path / "test_shader.py").write_text(
        "import numpy as np\n"
        f"SHADER = {str(ROOT / 'tests/data/debug/loop.spvasm')!r}\n"
        "def test_once(spvcoop_run):\n"
        "    assert spvcoop_run(SHADER, buffers={'v': np.zeros(8, np.int32)})['v'][0] == 106\n"
        "def test_twice(spvcoop_run):\n"
        "    spvcoop_run(SHADER, buffers={'v': np.zeros(8, np.int32)})\n"
        "    spvcoop_run(SHADER, buffers={'v': np.full(8, 2000, np.int32)})\n")
    out = tmp_path / "cov.info"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--spvcoop-coverage",
                        str(out), str(tmp_path / "test_shader.py")], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    files = parse_checked(out.read_text())
    da, brda = files[LOOP_COMP]["DA"], files[LOOP_COMP]["BRDA"]
    assert da[6] == 3 * 24 and da[21] == 8 and da[22] == 1     # the third run takes v[i] > 1000, i == 3 once
    assert brda[(21, 0, 0)] == 1 and brda[(21, 0, 1)] == 7


def test_source_paths_are_absolute_and_old_relative_records_merge(tmp_path, monkeypatch):
    """lcov's genhtml changes into its output directory before it reads the sources: with a relative SF: path
    (a spec named relative to the working directory) it stopped with 'cannot read tests/data/debug/loop.comp'.
    Paths are written absolute, as geninfo writes them, and a record read with a relative path is the same file."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cov.info"
    assert main(["run", "tests/data/debug/run.yaml", "-q", "--coverage", str(out)]) == 0
    text = out.read_text()
    sf = [ln[3:] for ln in text.splitlines() if ln.startswith("SF:")]
    assert sf == [LOOP_COMP] and Path(sf[0]).is_absolute() and Path(sf[0]).exists()
    out.write_text(text.replace(f"SF:{LOOP_COMP}", "SF:tests/data/debug/loop.comp"))   # as written before
    assert main(["run", "tests/data/debug/run.yaml", "-q", "--coverage", str(out)]) == 0
    files = parse_checked(out.read_text())
    assert list(files) == [LOOP_COMP] and files[LOOP_COMP]["DA"][6] == 48


def test_a_module_without_oplines_merges_into_one_record_over_runs(tmp_path, monkeypatch):
    """Its lines are the assembly's, named by the module's path: the first run wrote it relative, the next read it
    back as absolute, and three runs left two records of one file (DA:62,2 and DA:62,1)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cov.info"
    for _ in range(3):
        assert main(["run", "samples/saxpy/run.yaml", "-q", "--coverage", str(out)]) == 0
    files = parse_checked(out.read_text())
    saxpy = str(ROOT / "samples/saxpy/saxpy.spvasm")
    assert list(files) == [saxpy]
    assert files[saxpy]["DA"][73] == 3 * 64 and files[saxpy]["BRDA"][(82, 0, 0)] == 3 * 8


def test_function_names_are_demangled(tmp_path):
    out = tmp_path / "cov.info"
    assert main(["run", str(ROOT / "samples/debug/run.yaml"), "-q", "--coverage", str(out)]) == 0
    files = parse_checked(out.read_text())
    (counts,) = files.values()
    assert counts["FN"] == {"weight": 11, "main": 15} and counts["FNDA"] == {"weight": 32, "main": 32}


def test_per_execution_counts(tmp_path):
    """--coverage-counts executions: each line counts the times it ran (a block executed once for all of its active
    invocations), as gcov counts a line; the default counts invocation-executions."""
    out = tmp_path / "cov.info"
    assert main(["run", str(LOOP), "-q", "--coverage", str(out), "--coverage-counts", "executions"]) == 0
    da = parse_checked(out.read_text())[LOOP_COMP]
    # line 16 (acc += 100) runs once, for the 4 invocations with i < 4; line 6 (twice's body) 3 times (k = 0..2)
    assert da["DA"][16] == 1 and da["DA"][6] == 3 and da["DA"][20] == 1 and da["DA"][21] == 0
    assert da["FNDA"]["twice"] == 3 and da["BRDA"][(15, 0, 0)] == 1 and da["BRDA"][(15, 0, 1)] == 1
    assert da["BRDA"][(20, 0, 0)] == 0 and da["BRDA"][(20, 0, 1)] == 1 and da["BRDA"][(21, 0, 0)] is None


def test_a_tracefile_with_a_nul_or_empty_source_path_is_a_located_error(tmp_path, capsys):
    out = tmp_path / "cov.info"
    for sf in ("a\x00b", ""):
        out.write_text(f"TN:\nSF:{sf}\nDA:1,1\nend_of_record\n")
        assert main(["run", str(LOOP), "-q", "--coverage", str(out)]) == 2
        assert f"{out}:2:4: error: not an lcov tracefile: SF: without a path" in capsys.readouterr().err


def test_coverage_counts_without_coverage_is_a_usage_error(tmp_path, capsys):
    """--coverage-counts alone would be dropped without a word: it is a usage error naming --coverage."""
    assert main(["run", str(LOOP), "-q", "--coverage-counts", "executions"]) == 2
    err = capsys.readouterr().err
    assert "--coverage-counts" in err and "--coverage FILE.info" in err and err.count("\n") == 1

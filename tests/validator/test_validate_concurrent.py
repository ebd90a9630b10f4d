"""spirv-val and our rules at once (issue 20, item 8): for a binary input `val` and `lint` start
spirv-val on the file's bytes before decoding them, and the report is the one validating the decoded
module gives; input that does not decode stops it; a binary it would not see as written (big-endian)
is checked again as before."""
from __future__ import annotations

import json
import time
from array import array

import pytest

import spvcoop
import spvcoop.loader as loader
import spvcoop.validator.spirv_val as sv
from spvcoop.cli import main
from spvcoop.commands.val import check_file
from spvcoop.validator import validate
from test_validate_spirv_val import IADD_FLOATS
from conftest import TESTS

DATA = TESTS / "data" / "validate"


def _json(capsys, *argv: str) -> tuple[int, list[dict]]:
    rc = main(["val", "--format", "json", *argv])
    return rc, json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]


def _record_starts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bytes]]:
    """Every spirv-val run started, with what it was given, in order (the runs still happen)."""
    starts: list[tuple[str, bytes]] = []
    real_init = sv.Run.__init__

    def init(self, data: bytes, *args, **kwargs) -> None:
        starts.append(("run", data))
        real_init(self, data, *args, **kwargs)
    monkeypatch.setattr(sv.Run, "__init__", init)
    return starts


@pytest.mark.parametrize("name", ["iadd", "bad_k", "ok_khr"])
def test_binary_input_starts_spirv_val_before_reading_and_reports_the_same(capsys, monkeypatch, tmp_path,
                                                                           name: str) -> None:
    text = IADD_FLOATS if name == "iadd" else (DATA / f"{name}.spvasm").read_text()
    module = spvcoop.assemble(text)
    p = tmp_path / f"{name}.spv"
    p.write_bytes(module.to_bytes())
    expected = validate(loader.load_module(str(p)))  # spirv-val started on the decoded module
    events = _record_starts(monkeypatch)
    real_load = loader.load_module_bytes
    monkeypatch.setattr(loader, "load_module_bytes", lambda *a: (events.append(("load", b"")), real_load(*a))[1])
    rc, diags = _json(capsys, str(p))
    assert [e[0] for e in events] == ["run", "load"]  # one spirv-val run, started before the bytes were read
    assert events[0][1] == p.read_bytes()
    assert [(d["severity"], d["rule"], d["message"], d["instruction_index"], [n["message"] for n in d["notes"]])
            for d in diags] == [(d.severity, d.rule, d.message, d.instruction_index, [n.message for n in d.notes])
                                for d in expected]
    assert rc == (1 if any(d.severity == "error" for d in expected) else 0)


def test_big_endian_binary_is_checked_as_before(capsys, monkeypatch, tmp_path) -> None:
    data = spvcoop.assemble(IADD_FLOATS).to_bytes()
    words = array("I", data)
    words.byteswap()
    p = tmp_path / "iadd_be.spv"
    p.write_bytes(words.tobytes())
    starts = _record_starts(monkeypatch)
    rc, diags = _json(capsys, str(p))
    assert [s[1] for s in starts] == [p.read_bytes(), data]  # started early, then again on what validate() checks
    assert rc == 1 and [d["rule"] for d in diags] == ["spirv-val"]


def _slow_spirv_val(monkeypatch, tmp_path) -> None:
    slow = tmp_path / "slow-spirv-val"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(sv, "find_spirv_val", lambda: (str(slow), None))


def test_input_that_does_not_decode_stops_the_early_run(monkeypatch, tmp_path) -> None:
    _slow_spirv_val(monkeypatch, tmp_path)
    runs: list[sv.Run] = []
    real_init = sv.Run.__init__

    def init(self, *args, **kwargs) -> None:
        real_init(self, *args, **kwargs)
        runs.append(self)
    monkeypatch.setattr(sv.Run, "__init__", init)
    data = spvcoop.assemble(IADD_FLOATS).to_bytes()
    p = tmp_path / "cut.spv"
    p.write_bytes(data[:-2])  # not a multiple of 4 bytes
    t0 = time.monotonic()
    rec, human, status = check_file(str(p), "universal", {}, None, False, True)
    assert time.monotonic() - t0 < 10 and status == 1 and "not a multiple of 4 bytes" in human
    assert [d["rule"] for d in rec["diagnostics"]] == [None]
    assert len(runs) == 1 and runs[0]._proc.poll() is not None  # the sleeping spirv-val was killed


@pytest.mark.slow
def test_early_run_keeps_the_time_limit(capsys, monkeypatch, tmp_path) -> None:
    _slow_spirv_val(monkeypatch, tmp_path)
    p = tmp_path / "ok.spv"
    p.write_bytes(spvcoop.assemble((DATA / "ok_khr.spvasm").read_text()).to_bytes())
    rc, diags = _json(capsys, "--spirv-val-timeout", "0.5", str(p))
    assert rc == 1 and diags[0]["message"].startswith("spirv-val did not finish within 0.5 s")


def test_missing_spirv_val_on_binary_input(monkeypatch, tmp_path) -> None:
    import spvcoop.core.reference_tools as rt
    monkeypatch.setattr(rt, "find_tool", lambda name: None)
    p = tmp_path / "iadd.spv"
    p.write_bytes(spvcoop.assemble(IADD_FLOATS).to_bytes())
    rec, _, status = check_file(str(p), "universal", {}, None, False, True)
    assert status == 2 and rec["diagnostics"][0]["message"].startswith("spirv-val not found")
    assert check_file(str(p), "universal", {}, None, False, True, spirv_val=False)[2] == 0

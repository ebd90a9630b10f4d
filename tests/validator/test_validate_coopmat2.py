"""Validator rules for SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing.

Every case (COOPMAT2_CASES in tests/validator_cases.py, the one case table) is a variant of
tests/data/validate/coopmat2/base.spvasm (lines added to its types, to the
end of `main`, or as new functions; or replacements). As in test_validate_rules.py a case names the
rule it exercises, whether the module must fail it ("fail"), get a warning ("warn") or pass ("pass"),
and what spirv-val 2025.5 says: "same" (invalid exactly when we report an error), "lax" (spirv-val
accepts what we reject: docs/divergences.md, "Stricter than spirv-val"), "strict" (spirv-val rejects
what the extension allows: a false positive we do not copy), or None (not compared: a device profile).
Modules are assembled by spvcoop; where spirv-as can assemble them too, the binaries must be equal.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from sarif_schema import valid_sarif
import spvcoop
from spvcoop.core.reference_tools import require_tool
from spvcoop.validator import validate
from conftest import REPO, TESTS, assert_rule_verdict

from validator_cases import COOPMAT2_CASES as CASES
from validator_cases import C2, Case, run_case


# ---------------------------------------------------------------------------------------------
# tests


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    _, diags = run_case(case)
    assert_rule_verdict(case.rule, case.expect, diags)


def _spirv_val(data: bytes, env: str) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "m.spv")
        out.write_bytes(data)
        r = require_tool("spirv-val").run("--target-env", env, str(out), text=True, timeout=None)
        return r.returncode, r.stdout + r.stderr


COMPARED = [c for c in CASES if c.ref is not None]


@pytest.mark.slow
@pytest.mark.parametrize("case", COMPARED, ids=[c.name for c in COMPARED])
def test_case_agrees_with_spirv_val(case: Case) -> None:
    module, diags = run_case(case)
    mine_invalid = any(d.severity == "error" for d in diags)
    rc, out = _spirv_val(module.to_bytes(), case.env)
    shown = [d.headline() for d in diags]
    if case.ref == "same":
        assert mine_invalid == (rc != 0), (out, shown)
    elif case.ref == "lax":
        assert mine_invalid or case.expect == "warn", shown
        assert rc == 0, f"spirv-val now rejects {case.name}: {out}"
    elif case.ref == "strict":
        assert not mine_invalid and rc != 0, (out, shown)


# spirv-as 2025.5 cannot assemble a combined Memory Operand mask (`A|B`) in a tensor load or store
# ("Invalid memory access"); spvcoop assembles them and spirv-val reads that binary (the cases above).
SPIRV_AS_CANNOT = {"lt_make_available", "st_make_visible", "lt_make_visible", "st_make_available",
                   "lt_aligned_volatile"}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_spirv_as_assembles_the_same_binary(case: Case, tmp_path: Path) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(case.text())
    out = tmp_path / "m.spv"
    r = require_tool("spirv-as").run("--target-env", case.env, str(src), "-o", str(out), text=True, timeout=None)
    if case.name in SPIRV_AS_CANNOT:
        assert r.returncode != 0 and "Invalid memory access" in r.stderr, "spirv-as can assemble it now"
        return
    assert r.returncode == 0, r.stderr
    assert spvcoop.assemble(case.text(), target_env=case.env).to_bytes() == out.read_bytes()


def test_stricter_rules_and_false_positives_are_documented() -> None:
    doc = (REPO / "docs" / "divergences.md").read_text()
    for case in CASES:
        if case.ref in ("lax", "strict"):
            assert case.name in doc, f"{case.name} ({case.rule}) is not in docs/divergences.md"
            assert f"`{case.rule}`" in doc, case.rule


def test_errors_point_at_the_operand_with_notes() -> None:
    case = next(c for c in CASES if c.name == "reduce_row_rows")
    _, diags = run_case(case)
    d = next(d for d in diags if d.rule == "coopmat2.reduce.shape")
    line = case.text().split("\n")[d.span.line - 1]
    assert line[d.span.col - 1:d.span.end_col - 1] == "Row"
    assert "keeps the rows (16) but the result type has 8" in d.message
    assert [x.rule for x in diags] == ["coopmat2.reduce.shape"]
    assert any(n.message.startswith("rule (SPV_NV_cooperative_matrix2)") for n in d.notes)


def test_all_findings_reported() -> None:
    case = C2("many", "*", "fail", body="%x = OpCooperativeMatrixReduceNV %matA32 %t2 Row|2x2 %c1\n"
              "%y = OpTensorLayoutSetDimensionNV %layout %L0 %f1")
    _, diags = run_case(case)
    assert {"coopmat2.reduce.use", "coopmat2.reduce.mode", "coopmat2.reduce.combine",
            "coopmat2.tensor.operand_count", "coopmat2.tensor.operand_int32"} <= {d.rule for d in diags}


def test_tensor_only_module_is_checked() -> None:
    """A module with tensor layouts but no cooperative-matrix capability still gets the tensor rules."""
    text = """OpCapability Shader
OpCapability TensorAddressingNV
OpExtension "SPV_NV_tensor_addressing"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%c2 = OpConstant %u32 2
%c1 = OpConstant %u32 1
%c9 = OpConstant %u32 9
%lay = OpTypeTensorLayoutNV %c2 %c9
%main = OpFunction %void None %fn
%e = OpLabel
%l = OpCreateTensorLayoutNV %lay
%l2 = OpTensorLayoutSetDimensionNV %lay %l %c1
OpReturn
OpFunctionEnd
"""
    diags = validate(spvcoop.assemble(text, target_env="spv1.6"), spirv_val=False)
    assert {d.rule for d in diags} == {"coopmat2.tensor.layout.clamp_mode", "coopmat2.tensor.operand_count"}


def test_every_output_format(capsys, tmp_path: Path) -> None:
    from spvcoop.cli import main
    case = next(c for c in CASES if c.name == "reduce_2x2_with_row")
    p = tmp_path / "r.spvasm"
    p.write_text(case.text())

    def run(*argv):
        try:
            rc = main(list(argv))
        except SystemExit as e:
            rc = e.code
        return rc, capsys.readouterr()
    rc, out = run("val", "--no-spirv-val", str(p))
    assert rc == 1 and "error[coopmat2.reduce.mode]: Reduce combines 2x2 with Row or Column" in out.out
    rc, out = run("val", "--no-spirv-val", "--format", "json", str(p))
    d = json.loads(out.out)["files"][0]["diagnostics"][0]
    assert (d["rule"], d["source"], d["severity"]) == ("coopmat2.reduce.mode", "spvcoop", "error")
    rc, out = run("val", "--no-spirv-val", "--format", "sarif", str(p))
    log = valid_sarif(out.out)["runs"][0]
    assert log["results"][0]["ruleId"] == "coopmat2.reduce.mode"
    assert any(r["id"] == "coopmat2.reduce.mode" for r in log["tool"]["driver"]["rules"])
    rc, out = run("val", "--no-spirv-val", "--format", "github", str(p))
    assert out.out.startswith("::error file=") and "title=coopmat2.reduce.mode" in out.out
    rc, out = run("val", "--list-rules")
    assert "coopmat2.tensor.view.permutation" in out.out
    # with spirv-val: its finding on the same instruction is folded into ours
    rc, out = run("val", "--format", "json", str(p))
    d = json.loads(out.out)["files"][0]["diagnostics"]
    assert rc == 1 and [x["rule"] for x in d] == ["coopmat2.reduce.mode"]
    assert any(n["message"].startswith("spirv-val agrees") for n in d[0]["notes"])


def test_for_run_stops_on_coopmat2_errors_and_warns_on_version() -> None:
    from spvcoop.validator.for_run import validate_for_run
    bad = next(c for c in CASES if c.name == "reduce_row_rows")
    errors, _ = validate_for_run(spvcoop.assemble(bad.text(), target_env="spv1.6"))
    assert any(d.rule == "coopmat2.reduce.shape" for d in errors)
    old = next(c for c in CASES if c.name == "version_spv15")
    errors, warnings = validate_for_run(spvcoop.assemble(old.text(), target_env="spv1.5"))
    assert not errors, [d.headline() for d in errors]
    assert any(d.rule == "coopmat2.version" for d in warnings)


def test_h100_profile_lists_what_the_driver_reports() -> None:
    """The nvidia-h100 profile's flexible combinations are the driver's (recorded on the GPU)."""
    import re

    from spvcoop.validator.profiles import load_profile
    info = (TESTS / "data" / "h100-vulkan" / "info-2026-11-23.txt").read_text()
    reported = set()
    for m in re.finditer(r"^flex MGran=(\d+) NGran=(\d+) KGran=(\d+) A=(\w+) B=(\w+) C=(\w+) R=(\w+) sat=\d "
                         r"scope=(\d) workgroupInvocations=(\d+)$", info, re.M):
        g = m.groups()
        reported.add((int(g[0]), int(g[1]), int(g[2]), *g[3:7], int(g[7]), int(g[8])))
    prof = load_profile("nvidia-h100")
    listed = {(f.M, f.N, f.K, f.A, f.B, f.C, f.Result, f.scope, f.invocations) for f in prof.flexible}
    assert reported and listed == reported
    max_dim = int(re.search(r"flexibleDimensionsMaxDimension=(\d+)", info).group(1))
    assert prof.max_dimension == max_dim


@pytest.mark.parametrize("text,message", [
    ("combinations: []\nflexible:\n  - {MGranularity: 16, NGranularity: 16, KGranulrity: 16, A: f16, B: f16, C: f32}\n",
     "unknown key 'KGranulrity' in flexible.0 (did you mean 'KGranularity'?)"),
    ("combinations: []\nflexible:\n  - {MGranularity: 0, NGranularity: 16, KGranularity: 16, A: f16, B: f16, C: f32}\n",
     "must be at least 1"),
    ("combinations: []\nflexibleDimensionsMaxDimension: -1\n", "must be at least 1"),
    ("combinations: []\nflexible:\n  - {MGranularity: 16, NGranularity: 16, KGranularity: 16, A: f16, B: f16, C: f32,"
     " workgroupInvocations: x}\n", "expected an integer"),
])
def test_flexible_profile_entries_are_checked(tmp_path: Path, text: str, message: str) -> None:
    from spvcoop.core.diagnostics import SpvError
    from spvcoop.validator.profiles import load_profile
    p = tmp_path / "p.yaml"
    p.write_text(text)
    with pytest.raises(SpvError) as e:
        load_profile(str(p))
    assert any(message in d.message for d in e.value.diagnostics), [d.message for d in e.value.diagnostics]


def test_merged_report_keeps_false_positive_s5_as_a_warning() -> None:
    case = next(c for c in CASES if c.name == "reduce_scope_same_value")
    diags = validate(spvcoop.assemble(case.text(), target_env=case.env), case.env)
    assert not [d for d in diags if d.severity == "error"], [d.headline() for d in diags]
    w = next(d for d in diags if d.rule == "spirv-val")
    assert w.severity == "warning" and any("spirv-val false positive S5" in n.message for n in w.notes)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in COMPARED if c.ref == "same"], ids=lambda c: c.name)
def test_merged_report_has_spirv_vals_error(case: Case) -> None:
    """Full validation (spirv-val merged): spirv-val's error is in the report, its own or folded into ours."""
    module = spvcoop.assemble(case.text(), target_env=case.env)
    diags = validate(module, case.env)
    errors = [d for d in diags if d.severity == "error"]
    rc, out = _spirv_val(module.to_bytes(), case.env)
    assert bool(errors) == (rc != 0), (out, [d.headline() for d in diags])
    if rc:
        assert any(d.rule == "spirv-val" or any(n.message.startswith("spirv-val agrees") for n in d.notes)
                   for d in errors)


# ---- hostile variants: the coopmat2 rules never raise, and never fail on a module the assembler made ---------

import os  # noqa: E402
import re  # noqa: E402
import struct  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ_SOURCES = {c.name: c.text() for c in CASES if c.name in (
    "cm2_base", "decode_ok", "pe_extra_scalar_and_matrix", "reduce_2x2_half", "store_block_size_two",
    "per_element_calls_subgroup_op", "view_perm_swapped", "psb_aligned_sixteen")}
FUZZ_CI = os.environ.get("CI") == "true"
CM2_FUZZ = settings(max_examples=150 if FUZZ_CI else 300, deadline=None, derandomize=FUZZ_CI,
                    suppress_health_check=list(HealthCheck))
_TOKEN = re.compile(r"%\w+|\b\d+\b|\bOp\w+|\b[A-Z]\w+(?:\|\w+)*")


def _no_crash_report(module, *, assembled: bool) -> None:
    from spvcoop.validator.report import file_result, format_human, format_json
    from spvcoop.validator.sarif import format_sarif
    diags = validate(module, "spv1.6", spirv_val=False)
    format_human(diags, module)
    json.loads(format_json([file_result(module.source, diags, module)]))
    format_sarif([file_result(module.source, diags, module)])
    if assembled:  # the assembler makes every operand the grammar asks for: a malformed finding is a rule's bug
        assert not [d for d in diags if d.rule == "structure.malformed"], [d.headline() for d in diags]


@pytest.mark.slow
@CM2_FUZZ
@given(st.data())
def test_mutated_coopmat2_text(data) -> None:
    name = data.draw(st.sampled_from(sorted(FUZZ_SOURCES)))
    text = FUZZ_SOURCES[name]
    pool = sorted({m.group(0) for m in _TOKEN.finditer(text)}) + ["0", "1", "6", "4294967295", "%undefined"]
    for _ in range(data.draw(st.integers(1, 3))):
        tokens = list(_TOKEN.finditer(text))
        m = data.draw(st.sampled_from(tokens))
        text = text[:m.start()] + data.draw(st.sampled_from(pool)) + text[m.end():]
    try:
        module = spvcoop.assemble(text, name, target_env="spv1.6")
    except spvcoop.SpvError:
        return
    _no_crash_report(module, assembled=True)


@pytest.mark.slow
@CM2_FUZZ
@given(st.data())
def test_mutated_coopmat2_binary(data) -> None:
    name = data.draw(st.sampled_from(sorted(FUZZ_SOURCES)))
    raw = spvcoop.assemble(FUZZ_SOURCES[name], name, target_env="spv1.6").to_bytes()
    words = list(struct.unpack(f"<{len(raw) // 4}I", raw))
    for _ in range(data.draw(st.integers(1, 4))):
        k = data.draw(st.integers(5, len(words) - 1))
        words[k] = data.draw(st.one_of(st.sampled_from([0, 1, 2, 3, 4, 5, 0xFFFFFFFF]), st.integers(0, 2 ** 32 - 1)))
    try:
        module = spvcoop.read_binary(struct.pack(f"<{len(words)}I", *words), name + ".spv")
    except spvcoop.SpvError:
        return
    _no_crash_report(module, assembled=False)

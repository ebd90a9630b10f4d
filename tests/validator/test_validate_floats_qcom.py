"""Validator rules for SPV_KHR_bfloat16, SPV_EXT_float8 and SPV_QCOM_cooperative_matrix_conversion.

Each case (FLOAT_QCOM_CASES in tests/validator_cases.py, the one case table) is a small module made from one of
the valid base modules (scalar bfloat16/FP8 code without
cooperative matrices; cooperative matrices with the QCOM conversions), naming the rule it exercises,
whether it must fail / warn / pass, and what spirv-val 2025.5 says ("same"; "lax": spirv-val accepts
what we reject; "strict": spirv-val rejects what the text allows; both documented in
docs/divergences.md; None: not compared). Every module is also
assembled by spirv-as (same bytes as ours) and disassembled by spirv-dis (same text as ours).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from sarif_schema import valid_sarif
import spvcoop
from spvcoop.validator import validate
from conftest import REPO, TESTS, assert_rule_verdict

from validator_cases import FLOAT_QCOM_CASES as CASES
from validator_cases import Case, run_case


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    _, diags = run_case(case)
    errors = [d for d in diags if d.severity == "error"]
    if case.profile is not None:  # only the device profile's findings are expected
        errors = [d for d in errors if d.rule.startswith("profile.")]
    assert_rule_verdict(case.rule, case.expect, diags, errors)


# ---- spirv-val 2025.5 ---------------------------------------------------------------------------

def _tool(name: str, *args: str):
    from test_validate_differential import run_tool
    return run_tool(name, *args)


COMPARED = [c for c in CASES if c.ref is not None]


@pytest.mark.slow
@pytest.mark.parametrize("case", COMPARED, ids=[c.name for c in COMPARED])
def test_case_agrees_with_spirv_val(case: Case) -> None:
    module, diags = run_case(case)
    mine_invalid = any(d.severity == "error" for d in diags)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "m.spv")
        out.write_bytes(module.to_bytes())
        r = _tool("spirv-val", "--target-env", "spv1.6", str(out))
    theirs_invalid = r.returncode != 0
    shown = [d.headline() for d in diags]
    if case.ref == "same":
        assert mine_invalid == theirs_invalid, (shown, r.stdout + r.stderr)
    elif case.ref == "lax":  # spirv-val lets through what the extension text forbids
        assert mine_invalid and not theirs_invalid, (shown, r.stdout + r.stderr)
    else:  # strict: spirv-val rejects what the text allows
        assert not mine_invalid and theirs_invalid, (shown, r.stdout + r.stderr)


def test_lax_cases_are_documented() -> None:
    doc = (REPO / "docs" / "divergences.md").read_text()
    for case in CASES:
        if case.ref in ("lax", "strict"):
            assert case.name in doc, case.name


# ---- assembler and disassembler on every module -------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_module_assembles_and_disassembles_like_spirv_tools(case: Case, tmp_path: Path) -> None:
    text = case.text()
    src, ref = tmp_path / "m.spvasm", tmp_path / "ref.spv"
    src.write_text(text)
    r = _tool("spirv-as", "--target-env", "spv1.6", str(src), "-o", str(ref))
    assert r.returncode == 0, r.stdout + r.stderr
    ours = spvcoop.assemble(text, src.name, target_env="spv1.6")
    assert ours.to_bytes() == ref.read_bytes()  # bf16 / FP8 constant literals included
    dis = spvcoop.disassemble(spvcoop.read_binary(ref.read_bytes()))
    assert dis == _tool("spirv-dis", str(ref)).stdout
    assert spvcoop.assemble(dis, "again.spvasm", target_env="spv1.6").to_bytes() == ref.read_bytes()


# ---- reports -------------------------------------------------------------------------------------

def _case(name: str) -> Case:
    return next(c for c in CASES if c.name == name)


def test_use_finding_points_at_the_operand() -> None:
    case = _case("bf16_ford_equal")
    _, diags = run_case(case)
    d = next(d for d in diags if d.rule == "float.bf16.use")
    line = case.text().split("\n")[d.span.line - 1]
    assert line[d.span.col - 1:d.span.end_col - 1] == "%bf1"
    assert "OpFOrdEqual does not accept BFloat16KHR values" in d.message
    assert any("rule (SPV_KHR_bfloat16)" in n.message for n in d.notes)


def test_coopmat_arithmetic_is_reported_once() -> None:
    _, diags = run_case(_case("fp8_matrix_fadd"))
    assert [d.rule for d in diags if d.severity == "error"] == ["coopmat.arith.encoding"]


def test_length_finding_names_the_packed_length() -> None:
    _, diags = run_case(_case("construct_a_from_u32x4"))
    d = next(d for d in diags if d.rule == "qcom.construct.length")
    assert "has length 4; 8 u32 words hold one row" in d.message


def test_qcom_ops_are_not_unsupported_coopmat_ops() -> None:
    _, diags = run_case(_case("coop_base"))
    assert not any(d.rule == "coopmat.op.unsupported" for d in diags)


def test_fp8_matrix_unsupported_on_h100_names_the_type() -> None:
    _, diags = run_case(_case("h100_fp8_matrix"))
    found = [d for d in diags if d.rule == "profile.type"]
    assert len(found) == 1 and "%matE4A" in found[0].message and "Float8E4M3EXT" in found[0].message
    assert "bf16" in next(n.message for n in found[0].notes if n.message.startswith("supported"))


def test_new_rules_stop_a_run_except_the_benign_ones() -> None:
    from spvcoop.validator.for_run import validate_for_run
    module, _ = run_case(_case("bf16_fadd"))
    errors, _ = validate_for_run(module)
    assert any(d.rule == "float.bf16.use" for d in errors)
    module, _ = run_case(_case("subarray_unsigned_index"))
    errors, warnings = validate_for_run(module)
    assert not any(d.rule == "qcom.subarray.index" for d in errors)
    assert any(d.rule == "qcom.subarray.index" for d in warnings)


# ---- the command line, every output format -------------------------------------------------------

FLOATS = TESTS / "data" / "validate" / "floats"


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    from spvcoop.cli import main
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_valid_module(capsys) -> None:
    assert _cli(capsys, "val", str(FLOATS / "qcom_bf16_ok.spvasm")) == (0, "", "")


def test_cli_human_locates_both_findings(capsys) -> None:
    rc, err, _ = _cli(capsys, "val", str(FLOATS / "qcom_bf16_bad.spvasm"))
    assert rc == 1
    text = (FLOATS / "qcom_bf16_bad.spvasm").read_text().split("\n")
    heads = [line for line in err.splitlines() if ": error[" in line]
    assert [h.split("error[")[1].split("]")[0] for h in heads] == ["qcom.construct.length", "coopmat.arith.encoding"]
    path, line, col = heads[0].split(": error[")[0].rsplit(":", 2)
    assert path.endswith("qcom_bf16_bad.spvasm") and text[int(line) - 1][int(col) - 1:].startswith("%hw")
    assert "spirv-val agrees" in err  # spirv-val finds the first one too, folded into ours


def test_cli_json_sarif_github(capsys) -> None:
    import json
    path = str(FLOATS / "qcom_bf16_bad.spvasm")
    rc, out, _ = _cli(capsys, "val", path, "--format", "json")
    (f,) = json.loads(out)["files"]
    d = next(d for d in f["diagnostics"] if d["rule"] == "qcom.construct.length")
    assert rc == 1 and d["severity"] == "error" and d["line"] > 0 and d["notes"]
    rc, out, _ = _cli(capsys, "val", path, "--format", "sarif")
    run_ = valid_sarif(out)["runs"][0]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert "Source Array's Length" in rules["qcom.construct.length"]["fullDescription"]["text"]
    assert {res["ruleId"] for res in run_["results"]} >= {"qcom.construct.length", "coopmat.arith.encoding"}
    rc, out, _ = _cli(capsys, "val", path, "--format", "github")
    line = next(x for x in out.splitlines() if "qcom.construct.length" in x)
    assert rc == 1 and line.startswith("::error file=") and "title=qcom.construct.length" in line


def test_binary_module_locates_by_instruction() -> None:
    module = spvcoop.assemble((FLOATS / "qcom_bf16_bad.spvasm").read_text(), "bad.spvasm")
    binary = spvcoop.read_binary(module.to_bytes(), "bad.spv")
    diags = validate(binary, spirv_val=False)
    d = next(d for d in diags if d.rule == "qcom.construct.length")
    assert binary.instructions[d.instruction_index].opname == "OpCompositeConstructCoopMatQCOM"


@pytest.mark.parametrize("path", sorted(FLOATS.glob("*.spvasm")), ids=lambda p: p.stem)
def test_data_module_assembles_like_spirv_as(path: Path, tmp_path: Path) -> None:
    ref = tmp_path / "ref.spv"
    assert _tool("spirv-as", "--target-env", "spv1.6", str(path), "-o", str(ref)).returncode == 0
    assert spvcoop.assemble(path.read_text(), path.name).to_bytes() == ref.read_bytes()
    assert spvcoop.disassemble(spvcoop.read_binary(ref.read_bytes())) == _tool("spirv-dis", str(ref)).stdout


# ---- a sweep: every Use x component x array element x length, construct and extract --------------

_SWEEP_TYPES = {"f16": "%f16", "f32": "%f32", "s8": "%i8", "u8": "%u8", "s32": "%i32", "bf16": "%bf"}
_SWEEP_WIDTH = {"f16": 16, "f32": 32, "s8": 8, "u8": 8, "s32": 32, "bf16": 16}


def _sweep():
    for op in ("construct", "extract"):
        for use in (0, 1, 2):
            for comp in _SWEEP_TYPES:
                for elt in ("same", "u32", "f32"):
                    for length in (4, 8, 16, 32):
                        yield op, use, comp, elt, length


def _sweep_module(op: str, use: int, comp: str, elt: str, length: int) -> str:
    k = 256 // _SWEEP_WIDTH[comp]  # A columns / B rows that make a 256-bit row (column)
    rows, cols = (16, k) if use == 0 else (k, 16) if use == 1 else (16, 8)
    elt_t = _SWEEP_TYPES[comp] if elt == "same" else "%u32" if elt == "u32" else "%f32"
    lines = [f"%sw_r = OpConstant %u32 {rows}", f"%sw_c = OpConstant %u32 {cols}", f"%sw_n = OpConstant %u32 {length}",
             "%u8 = OpTypeInt 8 0" if comp == "u8" else "",
             f"%sw_m = OpTypeCooperativeMatrixKHR {_SWEEP_TYPES[comp]} %subgroup %sw_r %sw_c "
             f"{('%useA', '%useB', '%useAcc')[use]}",
             f"%sw_a = OpTypeArray {elt_t} %sw_n"]
    body = ("%v = OpUndef %sw_a\n%x = OpCompositeConstructCoopMatQCOM %sw_m %v" if op == "construct" else
            "%v = OpUndef %sw_m\n%x = OpCompositeExtractCoopMatQCOM %sw_a %v")
    return Case("sweep", "*", "pass", base="coop", types="\n".join(x for x in lines if x), body=body).text()


def _lax(op: str, use: int, comp: str, elt: str, length: int) -> bool:
    """Where spirv-val 2025.5 accepts what qcom.construct.length rejects (docs/divergences.md): it lets
    a u32 array of the matrix's Columns (Rows) through for every component type."""
    if op != "construct" or elt != "u32" or comp in ("bf16",) or (comp == "s32" and use != 2):
        return False
    k = 256 // _SWEEP_WIDTH[comp]
    dim = 8 if use == 2 else k
    return length == dim and length != (8 if use != 2 else (4 if comp == "f16" else 8))


@pytest.mark.slow
def test_qcom_sweep_agrees_with_spirv_val(tmp_path: Path) -> None:
    disagree = []
    combos = list(_sweep())
    for n, combo in enumerate(combos):
        module = spvcoop.assemble(_sweep_module(*combo), "sweep.spvasm")
        diags = validate(module, spirv_val=False)
        mine = [d.rule for d in diags if d.severity == "error"]
        out = tmp_path / f"m{n}.spv"
        out.write_bytes(module.to_bytes())
        theirs = _tool("spirv-val", "--target-env", "spv1.6", str(out)).returncode != 0
        expected = (not theirs) if _lax(*combo) else theirs
        if bool(mine) != expected or _lax(*combo) and mine != ["qcom.construct.length"]:
            disagree.append((combo, mine, theirs))
    assert not disagree, disagree[:10]
    assert len(combos) == 432


def test_a_profile_that_lists_fp8_accepts_fp8_matrices(tmp_path: Path) -> None:
    # a device with e4m3 x e5m2 -> f32 (as VK_EXT_shader_float8 devices report); the H100 profile has none
    prof = tmp_path / "fp8-gpu.yaml"
    prof.write_text("name: fp8-gpu\ncombinations:\n"
                    "  - {api: [KHR], M: 16, N: 8, K: 32, A: e4m3, B: e5m2, C: f32, Result: f32, scope: Subgroup}\n")
    case = _case("coop_base")
    module = spvcoop.assemble(case.text(), "coop.spvasm")
    diags = validate(module, profile=str(prof), spirv_val=False)
    fp8 = [d for d in diags if d.rule.startswith("profile.") and ("Float8" in d.message or "e4m3" in d.message)]
    assert not any("%matE4A" in d.message or "%matE5B" in d.message for d in fp8), [d.message for d in fp8]
    # the MulAdd of %matE4A x %matE5B + %matC (16x8x32) is the listed combination; the f16 ones are not
    muladds = [d for d in diags if d.rule == "profile.muladd"]
    assert muladds and not any("e4m3*e5m2" in d.message for d in muladds)
    assert any("bf16*bf16" in d.message for d in muladds)
    # and e4m3 in place of e5m2 for B is refused
    prof.write_text(prof.read_text().replace("B: e5m2", "B: e4m3"))
    diags = validate(module, profile=str(prof), spirv_val=False)
    assert any("e4m3*e5m2" in d.message for d in diags if d.rule == "profile.muladd")


@pytest.mark.parametrize("name", ["construct_spec_use", "extract_spec_use"])
def test_spirv_val_spec_use_false_positive_is_a_warning(name: str) -> None:
    module, _ = run_case(_case(name))
    diags = validate(module)  # with spirv-val: its finding is kept, as a warning that says why
    assert not [d.headline() for d in diags if d.severity == "error"]
    d = next(d for d in diags if d.rule == "spirv-val")
    assert d.severity == "warning" and any("false positive S6" in n.message for n in d.notes)


# ---- a sweep: bfloat16 and FP8 values with the instructions spirv-val refuses them for, and more ------

# opname -> body ({T}: the scalar type, {v}: a value of it). LAX: refused by the extension texts, let
# through by spirv-val 2025.5 (docs/divergences.md, float.bf16.use / float.fp8.use).
_USES = {
    "OpFAdd": "%x = OpFAdd {T} {v} {v}", "OpFSub": "%x = OpFSub {T} {v} {v}", "OpFMul": "%x = OpFMul {T} {v} {v}",
    "OpFDiv": "%x = OpFDiv {T} {v} {v}", "OpFRem": "%x = OpFRem {T} {v} {v}", "OpFMod": "%x = OpFMod {T} {v} {v}",
    "OpFNegate": "%x = OpFNegate {T} {v}", "OpDPdy": "%x = OpDPdy {T} {v}", "OpFwidthFine": "%x = OpFwidthFine {T} {v}",
    "OpIsNan": "%x = OpIsNan %bool {v}", "OpIsInf": "%x = OpIsInf %bool {v}",
    "OpExtInst": "%x = OpExtInst {T} %glsl FMin {v} {v}",
    "OpGroupNonUniformBroadcastFirst": "%x = OpGroupNonUniformBroadcastFirst {T} %subgroup {v}",
    "OpGroupNonUniformShuffle": "%x = OpGroupNonUniformShuffle {T} %subgroup {v} %u0",
    "OpGroupNonUniformShuffleXor": "%x = OpGroupNonUniformShuffleXor {T} %subgroup {v} %u0",
    "OpGroupNonUniformQuadSwap": "%x = OpGroupNonUniformQuadSwap {T} %subgroup {v} %u0",
    "OpGroupNonUniformFMul": "%x = OpGroupNonUniformFMul {T} %subgroup Reduce {v}",
    "OpGroupNonUniformFMin": "%x = OpGroupNonUniformFMin {T} %subgroup Reduce {v}",
    "OpGroupNonUniformAllEqual": "%x = OpGroupNonUniformAllEqual %bool %subgroup {v}",
    # let through by spirv-val
    "OpFOrdGreaterThan": "%x = OpFOrdGreaterThan %bool {v} {v}", "OpFUnordEqual": "%x = OpFUnordEqual %bool {v} {v}",
    "OpGroupNonUniformFMax": "%x = OpGroupNonUniformFMax {T} %subgroup Reduce {v}",
    # allowed
    "OpSelect": "%x = OpSelect {T} %true {v} {v}", "OpCopyObject": "%x = OpCopyObject {T} {v}",
    "OpFConvert": "%x = OpFConvert %f32 {v}", "OpConvertFToU": "%x = OpConvertFToU %u32 {v}",
    "OpCompositeConstruct": "%x = OpCompositeConstruct %v2{t} {v} {v}",
}
_LAX_USES = {"OpFOrdGreaterThan", "OpFUnordEqual", "OpGroupNonUniformFMax"}
_ALLOWED_USES = {"OpSelect", "OpCopyObject", "OpFConvert", "OpConvertFToU", "OpCompositeConstruct"}


@pytest.mark.parametrize("enc", ["bf", "e4"])
def test_use_sweep_agrees_with_spirv_val(enc: str, tmp_path: Path) -> None:
    rule = "float.bf16.use" if enc == "bf" else "float.fp8.use"
    value = "%bf1" if enc == "bf" else "%e41"
    disagree = []
    for n, (op, body) in enumerate(_USES.items()):
        case = Case(op, rule, "fail", base="float", body=body.format(T=f"%{enc}", v=value, t=enc))
        module, diags = run_case(case)
        mine = [d.rule for d in diags if d.severity == "error"]
        out = tmp_path / f"m{n}.spv"
        out.write_bytes(module.to_bytes())
        theirs = _tool("spirv-val", "--target-env", "spv1.6", str(out)).returncode != 0
        if op in _ALLOWED_USES:
            ok = not mine and not theirs
        elif op in _LAX_USES:
            ok = mine == [rule] and not theirs
        else:
            ok = rule in mine and theirs
        if not ok:
            disagree.append((op, mine, theirs))
    assert not disagree, disagree

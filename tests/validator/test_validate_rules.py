"""The validator's rules on their cases (tests/validator_cases.py, the one case table): the rules of
SPV_KHR/NV_cooperative_matrix, structure, scopes and profiles here (RULE_CASES; the other extensions' cases run in
test_validate_coopmat2.py and test_validate_floats_qcom.py), and for every rule of the registry a failing and a
passing case.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

import spvcoop
from spvcoop.validator import RULES, validate
from spvcoop.validator.registry import MODULE
from conftest import TESTS, assert_rule_verdict
from validator_cases import CASES as ALL_CASES
from validator_cases import RULE_CASES as CASES
from validator_cases import Case, run_case


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    _, diags = run_case(case)
    assert_rule_verdict(case.rule, case.expect, diags)


# rules tested elsewhere: structure.malformed (a module the reader cannot take apart: test_malformed_module_is_
# reported_not_raised), spirv-val (its findings merged: test_validate_spirv_val.py)
NOT_IN_TABLE = {"structure.malformed", "spirv-val"}


def _opnames(case: Case) -> set[str]:
    return {i.opname for i in spvcoop.assemble(case.text(), target_env=case.target_env).instructions}


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    """Every rule of the registry has, in the one case table, a case it must fail (or warn on) and a case it
    must pass; a passing case of a per-instruction rule holds an instruction the rule checks, so the rule ran
    on it and found nothing."""
    rules = set(RULES) - NOT_IN_TABLE
    failing = {c.rule for c in ALL_CASES if c.expect in ("fail", "warn")}
    passing = [c for c in ALL_CASES if c.expect == "pass" and c.rule in rules]
    assert not sorted(rules - failing), "rules without a failing case"
    assert not sorted(rules - {c.rule for c in passing}), "rules without a passing case"
    idle = sorted(c.name for c in passing if RULES[c.rule].opnames and MODULE not in RULES[c.rule].opnames
                  and not set(RULES[c.rule].opnames) & _opnames(c))
    assert not idle, "passing cases without an instruction their rule checks"
    names = [c.name for c in ALL_CASES]
    assert len(names) == len(set(names)), "case names are unique across the table"


def test_errors_point_at_operand_with_notes() -> None:
    case = next(c for c in CASES if c.name == "muladd_k")
    module, diags = run_case(case)
    d = next(d for d in diags if d.rule == "coopmat.muladd.k")
    line = case.text().split("\n")[d.span.line - 1]
    assert line[d.span.col - 1:d.span.end_col - 1] == "%b8"  # B disagrees with A
    assert "A is 16x16 (K=16) but B is 8x8 (K=8)" in d.message
    note_b = next(n for n in d.notes if "%mB8" in n.message)
    decl = case.text().split("\n")[note_b.span.line - 1]
    assert decl[note_b.span.col - 1:note_b.span.end_col - 1] == "%c8"  # B's Rows operand: K=8
    assert [x.rule for x in diags] == ["coopmat.muladd.k"]  # nothing else is wrong with this module
    assert any(n.message.startswith("rule") for n in d.notes)


def test_all_errors_reported() -> None:
    case = Case("many", "*", "fail", base="nv",
                body="%x = OpFMul %matC %d %d\n%y = OpFRem %matC %d %d\n%z = OpCompositeConstruct %matC %f1 %f1")
    _, diags = run_case(case)
    assert {"coopmat.arith.opcode", "coopmat.construct"} <= {d.rule for d in diags}
    assert sum(d.rule == "coopmat.arith.opcode" for d in diags) == 2


def test_binary_module_locates_by_instruction() -> None:
    from spvcoop.binary.reader import read_binary
    case = next(c for c in CASES if c.name == "muladd_k")
    module, _ = run_case(case)
    binary = read_binary(module.to_bytes(), "x.spv")
    diags = validate(binary, spirv_val=False)
    d = next(d for d in diags if d.rule == "coopmat.muladd.k")
    assert d.span.line == 0
    assert binary.instructions[d.instruction_index].opname == "OpCooperativeMatrixMulAddNV"
    from spvcoop.validator.report import format_human
    text = format_human([d], binary)
    assert f"instruction {d.instruction_index + 1}" in text
    assert "OpCooperativeMatrixMulAddNV" in text.split("\n")[1]


def test_repeated_errors_all_reported_despite_shape_cache() -> None:
    body = "\n".join(f"%x{i} = OpFMul %matC %d %d" for i in range(5))
    _, diags = run_case(Case("rep", "*", "fail", base="nv", body=body))
    assert sum(d.rule == "coopmat.arith.opcode" for d in diags) == 5


# ---- spirv-val agreement on every case ---------------------------------------------------------

def _spirv_val(module, env: str) -> int:
    """spirv-val's exit status on our assembler's binary (the assembler is tested against spirv-as)."""
    from test_validate_differential import run_tool
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "m.spv")
        out.write_bytes(module.to_bytes())
        env_args = [] if env == "universal" else ["--target-env", env]
        return run_tool("spirv-val", *env_args, str(out)).returncode


COMPARED = [c for c in CASES if c.ref is not None]


@pytest.mark.slow
@pytest.mark.parametrize("case", COMPARED, ids=[c.name for c in COMPARED])
def test_case_agrees_with_spirv_val(case: Case) -> None:
    module, diags = run_case(case)
    mine_invalid = any(d.severity == "error" for d in diags)
    theirs_invalid = _spirv_val(module, case.env) != 0
    if case.ref == "same":
        assert mine_invalid == theirs_invalid, [d.headline() for d in diags]
    elif case.ref == "lax":
        assert mine_invalid and not theirs_invalid
    elif case.ref == "strict":
        assert not mine_invalid and theirs_invalid


def test_malformed_module_is_reported_not_raised() -> None:
    module, _ = run_case(next(c for c in CASES if c.name == "nv_base"))
    muladd = next(i for i in module.instructions if i.opname == "OpCooperativeMatrixMulAddNV")
    del muladd.operands[1:]  # only A left: impossible from text or binary, possible in code
    diags = validate(module, profile="nvidia-h100", spirv_val=False)
    assert any(d.rule == "structure.malformed" and d.severity == "error" for d in diags)


def test_type_used_as_value() -> None:
    _, diags = run_case(Case("tv", "*", "fail", base="nv", body="%x = OpCooperativeMatrixMulAddNV %matC %matA %b %c"))
    d = next(d for d in diags if d.rule == "coopmat.muladd.operand_type")
    assert "a type (OpTypeCooperativeMatrixNV), not a value" in d.message


def test_spec_constant_evaluation_and_folding() -> None:
    from spvcoop.validator.index import ModuleIndex
    text = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpDecorate %p SpecId 5
%u32 = OpTypeInt 32 0
%i32 = OpTypeInt 32 1
%a = OpSpecConstant %i32 -6
%b = OpConstant %i32 4
%p = OpSpecConstant %u32 1
%sdiv = OpSpecConstantOp %i32 SDiv %a %b
%srem = OpSpecConstantOp %i32 SRem %a %b
%smod = OpSpecConstantOp %i32 SMod %a %b
%udiv = OpSpecConstantOp %u32 UDiv %a %b
%shl = OpSpecConstantOp %u32 ShiftLeftLogical %p %p
%n = OpConstantNull %u32
"""
    m = spvcoop.assemble(text)
    ids = {v: k for k, v in m.id_names.items()}
    ix = ModuleIndex(m)
    val = {name: ix.int_value(ids[name]) for name in ("a", "sdiv", "srem", "smod", "udiv", "shl", "n")}
    assert {k: v.value for k, v in val.items()} == {"a": -6, "sdiv": -1, "srem": -2, "smod": 2,
                                                    "udiv": 0xFFFFFFFA // 4, "shl": 2, "n": 0}
    assert val["sdiv"].spec and not val["n"].spec
    pinned = ModuleIndex(m, spec_constants={5: 3}).int_value(ids["shl"])
    assert pinned.value == 24 and not pinned.spec  # 3 << 3, pinned by --spec-const


def test_a_pointer_type_that_points_at_itself_is_described_not_recursed_into():
    """An invalid module can make a pointer type its own pointee (an id used before its definition); the
    rules that describe the pointee reported 'cannot check rule ... (maximum recursion depth exceeded)'."""

    from spvcoop import assemble
    from spvcoop.validator import validate
    src = (TESTS / "data" / "coopmat-probes" / "khr_err_convert_use_mismatch.spvasm").read_text()
    src = src.replace("%p_f32 = OpTypePointer StorageBuffer %f32", "%p_f32 = OpTypePointer StorageBuffer %p_f32")
    diags = validate(assemble(src, "self_pointer.spvasm"), spirv_val=False)
    assert not [d for d in diags if d.rule == "structure.malformed"], [d.headline() for d in diags]
    assert any(d.rule == "coopmat.pointer.pointee" and "ptr StorageBuffer ..." in d.message for d in diags), \
        [d.headline() for d in diags]

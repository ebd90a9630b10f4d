"""Run without validation (`run --no-validate`, `spvcoop.run(validate=False)`), the interpreter meets invalid
modules by design: each class of invalid instruction that made it raise from numpy or Python (exit 3) is a
located interp.runtime error at the instruction. One minimal module per class: tests/data/novalidate/
template.spvasm with the case's instructions in place of its `; BODY` line (or, for a global, before %gid)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spvcoop
from spvcoop.core.diagnostics import SpvError

DATA = Path(__file__).parent / "data" / "novalidate"
TEMPLATE = (DATA / "template.spvasm").read_text()
BODY_LINE = TEMPLATE.split("\n").index("; BODY") + 1
GLOBAL_LINE = next(i for i, ln in enumerate(TEMPLATE.split("\n"), 1) if "%gid = OpVariable" in ln)

# (class, instructions, opname reported); the comment says what each one used to raise, and where
CASES = [
    ("convert of a built-in variable", "%y = OpUConvert %uint %gid", "OpUConvert"),  # TypeError, ops_convert
    ("transpose of a pointer", "%y = OpTranspose %mat2 %fv", "OpTranspose"),  # AxisError, ops_arith
    ("integer add of a scalar and a vector", "%y = OpIAdd %uint %gx %v2f", "OpIAdd"),  # ValueError, ops_arith
    ("integer add of a pointer", "%y = OpIAdd %uint %gx %px", "OpIAdd"),  # TypeError, ops_arith.to_type
    ("float to int of a pointer", "%y = OpConvertFToS %int %px", "OpConvertFToS"),  # TypeError, ops_convert._f2i
    ("shuffle component past both vectors", "%y = OpVectorShuffle %v4float %v2f %v2f 0 1 9 2",
     "OpVectorShuffle"),  # IndexError, ops_composite
    ("dot product of different sizes", "%y = OpDot %float %v4f %v2f", "OpDot"),  # ValueError, ops_arith
    ("array length of a missing member", "%y = OpArrayLength %uint %buf 5", "OpArrayLength"),  # IndexError
    ("GLSL Length of a pointer", "%y = OpExtInst %float %glsl Length %px", "OpExtInst"),  # TypeError, ops_glsl
    ("matrix times a vector of another size", "%y = OpMatrixTimesVector %v2float %m2 %v4f",
     "OpMatrixTimesVector"),  # ValueError (matmul), ops_arith
    ("vector of another size times a matrix", "%y = OpVectorTimesMatrix %v2float %v4f %m2",
     "OpVectorTimesMatrix"),  # ValueError (matmul), ops_arith
    ("outer product with a scalar", "%y = OpOuterProduct %mat2 %v2f %f1", "OpOuterProduct"),  # IndexError
    ("negation of a pointer", "%y = OpFNegate %float %px", "OpFNegate"),  # TypeError, ops_arith
    ("shift by a pointer", "%y = OpShiftLeftLogical %uint %gx %px", "OpShiftLeftLogical"),  # TypeError
    ("IsNan of a pointer", "%y = OpIsNan %bool %px", "OpIsNan"),  # TypeError (ufunc), ops_arith
    ("add with carry into a scalar type", "%y = OpIAddCarry %uint %gx %gx", "OpIAddCarry"),  # IndexError
    ("extended multiply into a scalar type", "%y = OpUMulExtended %uint %gx %gx", "OpUMulExtended"),  # IndexError
    ("store of a wider value", "OpStore %px %v4f", "OpStore"),  # ValueError, numpy broadcast in memory.store
    ("GLSL MatrixInverse of a vector", "%y = OpExtInst %mat2 %glsl MatrixInverse %v2f", "OpExtInst"),  # LinAlgError
    ("select between vectors of other sizes", "%y = OpSelect %v2float %v4f %v2f %v2f", "OpSelect"),  # ValueError
    # an unlocated Fault (exit 3) from a phi or a terminator reading a value not defined on the path taken
    ("phi of a value defined later", "OpBranch %l1\n%l1 = OpLabel\n%y = OpPhi %float %z %entry\n"
     "%z = OpFAdd %float %x0 %f1", "OpPhi"),
    ("branch on a value defined later", "OpSelectionMerge %l2 None\nOpBranchConditional %z %l1 %l2\n"
     "%l1 = OpLabel\nOpBranch %l2\n%l2 = OpLabel\n%z = OpIEqual %bool %gx %u0", "OpBranchConditional"),
]


def _run(text: str):
    return spvcoop.run(text, buffers={0: np.zeros(4, np.float32)}, validate=False)


@pytest.mark.parametrize("body, opname", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_instruction_is_a_located_runtime_error(body, opname):
    with pytest.raises(SpvError) as e:
        _run(TEMPLATE.replace("; BODY", body))
    d = e.value.diagnostics[0]
    assert d.rule == "interp.runtime" and d.message.startswith(f"{opname}: ")
    at = next(i for i, ln in enumerate(body.split("\n")) if opname + " " in ln)
    assert d.span is not None and d.span.line == BODY_LINE + at
    assert "not validated" in d.message or "is used before it is defined on this path" in d.message


def test_spec_constant_op_with_an_invalid_operand_is_located():
    text = TEMPLATE.replace("        %gid = OpVariable",
                            "          %c = OpSpecConstantOp %v4float VectorShuffle %v2f %v2f 0 1 9 2\n"
                            "        %gid = OpVariable")
    with pytest.raises(SpvError) as e:
        _run(text)
    d = e.value.diagnostics[0]
    assert d.rule == "interp.runtime" and d.message.startswith("OpSpecConstantOp: ") and d.span.line == GLOBAL_LINE


def test_constant_composite_of_a_matrix_constant_is_located():
    # a cooperative-matrix constant as a vector's component (IndexError in ops_composite.construct before)
    text = TEMPLATE.replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability CooperativeMatrixKHR\n"
                            "OpExtension \"SPV_KHR_cooperative_matrix\"\n", 1).replace(
        "        %gid = OpVariable",
        "         %cm = OpTypeCooperativeMatrixKHR %float %u1 %u4 %u4 %u0\n"
        "          %k = OpConstantComposite %cm %f1\n"
        "          %c = OpConstantComposite %v2float %k %f1\n"
        "        %gid = OpVariable")
    with pytest.raises(SpvError) as e:
        _run(text)
    d = e.value.diagnostics[0]
    assert d.rule == "interp.runtime" and d.message.startswith("OpConstantComposite: its operands do not fit it")
    assert d.span.line == GLOBAL_LINE + 4


def test_vector_of_void_is_located():
    # the memory estimate sized every value's type: a vector of void raised TypeError before any instruction ran
    text = TEMPLATE.replace("        %gid = OpVariable",
                            "         %vv = OpTypeVector %void 3\n        %gid = OpVariable")
    with pytest.raises(SpvError) as e:
        _run(text.replace("; BODY", "%y = OpCopyObject %vv %x0"))
    d = e.value.diagnostics[0]
    assert d.span.line == GLOBAL_LINE and "vector of 3 x void: the components must be bool or int or float" in d.message


def test_cli_no_validate_exits_1_with_the_location(tmp_path, capsys):
    from spvcoop.cli import main
    (tmp_path / "m.spvasm").write_text(TEMPLATE.replace("; BODY", "%y = OpDot %float %v4f %v2f"))
    (tmp_path / "run.yaml").write_text("shader: m.spvasm\nbuffers:\n  0: {zeros: 4, dtype: float32}\n")
    assert main(["run", str(tmp_path / "run.yaml"), "--no-validate", "-q"]) == 1
    err = capsys.readouterr().err
    assert f"m.spvasm:{BODY_LINE}:1: error[interp.runtime]: OpDot: its operands do not fit it" in err


def test_a_validated_module_keeps_such_failures_internal():
    # with validation on, an op failing this way is a bug of the interpreter: it must not be dressed up as the
    # module's error
    from spvcoop.interp.executor import Executor
    ex = Executor.__new__(Executor)
    boom = ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        ex.invalid_module_error(None, boom)

"""Run without validation (`run --no-validate`, `spvcoop.run(validate=False)`), the interpreter meets invalid
modules by design: each class of invalid instruction that made it raise from numpy or Python (exit 3) is a
located interp.runtime error at the instruction. One minimal module per class: tests/data/novalidate/
template.spvasm with the case's instructions in place of its `; BODY` line (or, for a global, before %gid)."""
from __future__ import annotations


import numpy as np
import pytest

import spvcoop
from spvcoop.core.diagnostics import SpvError
from conftest import TESTS

DATA = TESTS / "data" / "novalidate"
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


# Module-level forms that sized something from a constant validation would have refused (issue 32): int() or
# numpy failed in runner.py (exit 3); and a float type whose encoding has another width, which the buffer
# binding sized before any instruction ran (a Fault escaping types.dtype, exit 3). (class, edits, the line
# the error is at, its message)
_ARR = ("       %arr4 = OpTypeArray %float %u4", "{}\n       %arr4 = OpTypeArray %float %len")
_LSID = ("OpExecutionMode %main LocalSize 4 1 1", "OpExecutionModeId %main LocalSizeId {} %u1 %u1")
_WGS = ("OpDecorate %gid BuiltIn GlobalInvocationId", "OpDecorate %gid BuiltIn GlobalInvocationId\n"
        "OpDecorate {} BuiltIn WorkgroupSize")
_STRUCT = ("       %arr4 = OpTypeArray %float %u4", "%st = OpTypeStruct %uint %v2float\n%sn = OpConstantNull %st\n"
           "       %arr4 = OpTypeArray %float %u4")
_COOPMAT = ("OpCapability Shader\n", "OpCapability Shader\nOpCapability CooperativeMatrixKHR\n"
            "OpExtension \"SPV_KHR_cooperative_matrix\"\n")
MODULE_CASES = [
    ("array length of a float", [(_ARR[0], _ARR[1].format("%len = OpConstant %float 2.5"))],
     "%arr4 = OpTypeArray", "OpTypeArray: its length len is not an integer constant"),
    ("array length of a struct", [(_ARR[0], _ARR[1].format(_STRUCT[1].replace("%sn", "%len").split("\n       ")[0]))],
     "%arr4 = OpTypeArray", "OpTypeArray: its length len is not an integer constant"),
    # "int() argument must be ... not 'NoneType'" (the fuzzing campaign's open case) and "... not 'Lazy'"
    ("array length of a null pointer", [(_ARR[0], _ARR[1].format("%len = OpConstantNull %pf"))],
     "%arr4 = OpTypeArray", "OpTypeArray: its length len is not an integer constant"),
    ("LocalSizeId of a cooperative matrix", [(_LSID[0], _LSID[1].format("%len")), _COOPMAT,
                                             (_ARR[0], "%cm = OpTypeCooperativeMatrixKHR %float %u1 %u4 %u4 %u0\n"
                                                       "%len = OpConstantNull %cm\n" + _ARR[0])],
     "OpExecutionModeId", "OpExecutionModeId: its size len is not an integer constant"),
    ("LocalSizeId of a float by OpExecutionMode", [(_LSID[0], "OpExecutionMode %main LocalSizeId %f1 %u1 %u1")],
     "OpExecutionMode %main", "OpExecutionMode: its size f1 is not an integer constant"),
    ("LocalSizeId of a type", [(_LSID[0], _LSID[1].format("%uint"))],
     "OpExecutionModeId", "OpExecutionModeId: its size uint is not an integer constant"),
    ("LocalSizeId of a NaN", [(_LSID[0], _LSID[1].format("%dn")),
                              ("     %double = OpTypeFloat 64", "     %double = OpTypeFloat 64\n"
                                                                "%dn = OpConstant %double 0x1.8p1024")],
     "OpExecutionModeId", "OpExecutionModeId: its size dn is not an integer constant"),
    ("WorkgroupSize of a float vector", [(_WGS[0], _WGS[1].format("%v2f"))],
     "%v2f = OpConstantComposite", "OpConstantComposite: the WorkgroupSize v2f is not a constant vector of 3 "
                                   "integers"),
    ("WorkgroupSize of a struct", [(_WGS[0], _WGS[1].format("%sn")), _STRUCT],
     "%sn = OpConstantNull", "OpConstantNull: the WorkgroupSize sn is not a constant vector of 3 integers"),
]


@pytest.mark.parametrize("edits, at, message", [c[1:] for c in MODULE_CASES], ids=[c[0] for c in MODULE_CASES])
def test_constant_sizing_something_is_located(edits, at, message):
    text = TEMPLATE
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    with pytest.raises(SpvError) as e:
        _run(text)
    d = e.value.diagnostics[0]
    assert d.rule == "interp.runtime" and d.message.startswith(message) and "not validated" in d.message
    assert d.span is not None and d.span.line == next(i for i, ln in enumerate(text.split("\n"), 1) if at in ln)


@pytest.mark.parametrize("width, encoding", [(16, "Float8E4M3EXT"), (32, "BFloat16KHR"), (8, "BFloat16KHR")])
def test_float_encoding_of_another_width_is_located(tmp_path, capsys, width, encoding):
    # a run sample's FP8 type given another width, as the fuzz driver's width edits do: a buffer of it
    text = (TEMPLATE.replace("         %rt = OpTypeRuntimeArray %float",
                             f"          %h = OpTypeFloat {width} {encoding}\n         %rt = OpTypeRuntimeArray %h")
            .replace("%pf = OpTypePointer StorageBuffer %float", "%pf = OpTypePointer StorageBuffer %h")
            .replace("%x0 = OpLoad %float %px", "%x0 = OpLoad %h %px"))
    from spvcoop.cli import main
    (tmp_path / "m.spvasm").write_text(text)
    (tmp_path / "run.yaml").write_text("shader: m.spvasm\nbuffers:\n  0: {zeros: 4, dtype: float32}\n")
    assert main(["run", str(tmp_path / "run.yaml"), "--no-validate", "-q"]) == 1
    line = next(i for i, ln in enumerate(text.split("\n"), 1) if "%h = OpTypeFloat" in ln)
    err = capsys.readouterr().err
    assert f"m.spvasm:{line}:" in err
    assert f"{width}-bit floats with encoding {encoding} are not supported by the interpreter" in err

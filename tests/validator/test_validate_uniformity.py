"""Dynamic uniformity (issue 37 item 4): the static rules on GLSL shaders, the published kernels the tests carry
(0 findings), lint, and the run: a static finding is a warning there and the run-time check stops the run."""
from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

import spvcoop
from spvcoop.core.diagnostics import SpvError
from spvcoop.core.yamlio import load_yaml
from spvcoop.loader import load_shader
from spvcoop.validator import validate
from conftest import TESTS

ROOT = TESTS
DATA = ROOT / "data" / "uniformity"
UNIFORMITY = "uniformity."


def _findings(path, spec_constants=None):
    m = load_shader(str(path))
    diags = validate(m, spec_constants=spec_constants, spirv_val=False)
    return [d for d in diags if (d.rule or "").startswith(UNIFORMITY)]


def _glsl_line(path, d) -> int:
    """The GLSL line of a finding: the OpLine before its instruction (glslang -g)."""
    insts = load_shader(str(path)).instructions
    line = 0
    for inst in insts[:d.instruction_index + 1]:
        if inst.opname == "OpLine":
            line = inst.operands[1].as_int
        elif inst.opname == "OpNoLine":
            line = 0
    return line


@pytest.mark.slow
def test_each_fault_once_with_the_invocations_that_differ():
    path = DATA / "barrier_first_lane.comp"
    got = _findings(path)
    by_line = {_glsl_line(path, d): d for d in got}
    assert sorted(by_line) == [14, 20, 22, 24], [d.headline() for d in got]
    bar = by_line[14]
    assert bar.rule == "uniformity.barrier.control_flow" and bar.severity == "error"
    assert "reached by only part of workgroup 0" in bar.message
    assert "values 1 and 0 in local invocations 0 and 1" in bar.message
    store = by_line[20]   # t * 256: the warp-index store on line 19 is clean
    assert store.rule == "uniformity.coopmat.operand" and "Pointer" in store.message
    assert "0 in local invocation 0 and 256 in 1" in store.message
    assert by_line[22].rule == "uniformity.coopmat.construct"
    cf = by_line[24]   # the first of the instructions under `if ((t & 1) == 1)`; the others counted in a note
    assert cf.rule == "uniformity.coopmat.control_flow" and "subgroup 0" in cf.message
    assert any("more such instructions under the same branch" in n.message for n in cf.notes)
    assert any(n.message.startswith("rule (SPV_KHR_cooperative_matrix") for n in cf.notes)


def test_uniform_control_flow_is_not_reported():
    assert _findings(DATA / "clean_loops.comp") == []


def test_workgroup_size_from_a_specialization_constant():
    path = DATA / "spec_size.comp"
    assert _findings(path) == []                      # glslang's default size 1: one invocation
    assert _findings(path, {0: 32}) == []             # t < 32 holds for the whole workgroup
    got = _findings(path, {0: 64})
    assert [(d.rule, d.severity) for d in got] == [("uniformity.barrier.control_flow", "error")]
    assert "local invocations 0 and 32" in got[0].message


def _published():
    specs = sorted(glob.glob(str(ROOT / "kernels" / "*" / "run_*.yaml"))
                   + glob.glob(str(ROOT / "kernels_spvasm" / "*" / "run_*.yaml")))
    return [pytest.param(s, id=os.path.relpath(s, ROOT)) for s in specs]


@pytest.mark.parametrize("spec", _published())
def test_published_kernels_have_no_findings(spec):
    """ggml's mul_mm, vk_cooperative_matrix_perf, ncnn, flash attention and the coopmat2 kernels: clean as
    built and with the run spec's specialization constants (mul_mm's workgroup size is one)."""
    data = load_yaml(Path(spec).read_text(), spec)
    shader = Path(spec).parent / data["shader"]
    constants = {int(k): int(v) for k, v in (data.get("spec_constants") or {}).items()}
    assert [d.headline() for d in _findings(shader)] == []
    assert [d.headline() for d in _findings(shader, constants)] == []


def test_lint_reports_the_rules(capsys):
    from conftest import run_cli
    rc, out, _err = run_cli(capsys, "lint", str(DATA / "barrier_first_lane.comp"), "--no-spirv-val",
                            "--select", "uniformity.barrier")
    assert rc == 1
    assert "uniformity.barrier.control_flow" in out and "uniformity.coopmat" not in out


def test_a_run_warns_then_stops_at_the_run_time_check():
    with pytest.raises(SpvError) as e:
        spvcoop.run(str(DATA / "barrier_first_lane.comp"), buffers={"data": bytes(4 * 1024)})
    assert "barrier reached by only part of workgroup 0 (1 of 64 invocations)" in str(e.value)
    warnings = [d for d in e.value.diagnostics if (d.rule or "").startswith(UNIFORMITY)]
    assert warnings and all(d.severity == "warning" for d in warnings)


# ---- the run-time check (item 5): every instruction with a matrix operand or result ----------------------------
GLSL_PARTIAL = """#version 450
#extension GL_KHR_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float data[]; };
layout(set = 0, binding = 1) buffer O { float outv[]; };
#define MAT coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
void main() {
    MAT m;
    coopMatLoad(m, data, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    MAT r = m;
    if (gl_LocalInvocationID.x < 16) {
        STATEMENT
    }
    coopMatStore(r, outv, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
"""


@pytest.mark.parametrize("statement,opname", [
    ("r = m + m;", "OpFAdd"),
    ("r = MAT(data[0]);", "OpCompositeConstruct"),
    ("outv[300] = float(coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(m)[0]);",
     "OpFConvert"),
])
def test_matrix_instructions_reached_by_part_of_a_subgroup_stop_the_run(statement, opname, tmp_path):
    """Before issue 37 only loads, stores and MulAdd were checked: these ran, each half subgroup on its own."""
    src = tmp_path / "partial.comp"
    src.write_text(GLSL_PARTIAL.replace("STATEMENT", statement))
    with pytest.raises(SpvError) as e:
        spvcoop.run(str(src), buffers={0: bytes(4 * 512), 1: bytes(4 * 512)})
    assert f"{opname}: reached by only part of subgroup 0 (16 of 32 invocations" in str(e.value)


def test_an_element_extracted_by_part_of_a_subgroup_stops_the_run():
    from validator_cases import UNI_ANN, UNI_SUB, UNI_TYPES, Case, _uni_if
    case = Case("extract", "*", "fail", sub=UNI_SUB, annotations=UNI_ANN, types=UNI_TYPES,
                body=_uni_if("%x", "%e = OpCompositeExtract %f32 %d 0"))
    module = spvcoop.assemble(case.text(), "extract.spvasm")
    with pytest.raises(SpvError) as e:
        spvcoop.run(module, buffers={0: bytes(4 * 1024)})
    assert "OpCompositeExtract: reached by only part of subgroup 0 (1 of 32 invocations" in str(e.value)


# One block (no branch: nothing can diverge), yet two operands differ per invocation: a straight-line function
# is still analysed for its operands (uniformity.py, _quiet_operands), from text and from a binary.
STRAIGHT_LINE = """\
OpCapability Shader
OpCapability VulkanMemoryModel
OpCapability CooperativeMatrixKHR
OpExtension "SPV_KHR_cooperative_matrix"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main" %buf %lid
OpExecutionMode %main LocalSize 32 1 1
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %rt ArrayStride 4
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_16 = OpConstant %uint 16
%uint_256 = OpConstant %uint 256
%mat = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_16 %uint_16 %uint_2
%rt = OpTypeRuntimeArray %float
%Buf = OpTypeStruct %rt
%pBuf = OpTypePointer StorageBuffer %Buf
%pf = OpTypePointer StorageBuffer %float
%pin = OpTypePointer Input %uint
%buf = OpVariable %pBuf StorageBuffer
%lid = OpVariable %pin Input
%main = OpFunction %void None %fn
%entry = OpLabel
%t = OpLoad %uint %lid
%off = OpIMul %uint %t %uint_256
%p = OpAccessChain %pf %buf %uint_0 %off
%m = OpCooperativeMatrixLoadKHR %mat %p %uint_0 %uint_16
%q = OpAccessChain %pf %buf %uint_0 %uint_256
OpCooperativeMatrixStoreKHR %q %m %uint_0 %uint_16
OpCooperativeMatrixStoreKHR %q %m %uint_0 %t
OpReturn
OpFunctionEnd
"""


@pytest.mark.parametrize("form", ["text", "binary"])
def test_a_function_without_branches_still_has_its_operands_checked(form):
    from spvcoop import assemble, read_binary
    m = assemble(STRAIGHT_LINE, "straight.spvasm")
    if form == "binary":
        m = read_binary(m.to_bytes(), "straight.spv")
    got = [d for d in validate(m, spirv_val=False) if (d.rule or "").startswith(UNIFORMITY)]
    assert [(d.rule, d.instruction_index) for d in got] == [
        ("uniformity.coopmat.operand", 35), ("uniformity.coopmat.operand", 38)], [d.headline() for d in got]
    assert got[0].message.startswith("Pointer %") and "of OpCooperativeMatrixLoadKHR" in got[0].message
    assert "0 in local invocation 0 and 256 in 1" in got[0].message
    assert got[1].message.startswith("Stride %") and "of OpCooperativeMatrixStoreKHR" in got[1].message

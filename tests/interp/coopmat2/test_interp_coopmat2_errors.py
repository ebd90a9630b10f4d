"""Run-time checks of the coopmat2 ops: out-of-range and out-of-bounds tensor accesses, operands that differ within
a scope instance, instructions under divergent control flow; each a located error naming the element."""
from __future__ import annotations

import numpy as np
import pytest

import spvcoop
from spvcoop.core.diagnostics import SpvError
from conftest import run_tool

HEAD = """; a coopmat2 run-time check (tests/interp/coopmat2/test_interp_coopmat2_errors.py)
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpCapability CooperativeMatrixTensorAddressingNV
               OpCapability TensorAddressingNV
               OpCapability CooperativeMatrixReductionsNV
               OpCapability CooperativeMatrixPerElementOperationsNV
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_NV_cooperative_matrix2"
               OpExtension "SPV_NV_tensor_addressing"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %b0 %b1 %lid
               OpExecutionMode %main LocalSize 32 1 1
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %rtf ArrayStride 4
               OpMemberDecorate %sf 0 Offset 0
               OpDecorate %sf Block
               OpDecorate %b0 DescriptorSet 0
               OpDecorate %b0 Binding 0
               OpDecorate %b1 DescriptorSet 0
               OpDecorate %b1 Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
        %f32 = OpTypeFloat 32
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
        %v3u = OpTypeVector %u32 3
     %fn_ff = OpTypeFunction %f32 %f32 %f32
     %fn_pe = OpTypeFunction %f32 %u32 %u32 %f32 %f32
         %i0 = OpConstant %i32 0
        %im3 = OpConstant %i32 -3
         %u0 = OpConstant %u32 0
         %u1 = OpConstant %u32 1
         %u2 = OpConstant %u32 2
         %u8 = OpConstant %u32 8
        %u11 = OpConstant %u32 11
        %u13 = OpConstant %u32 13
        %u16 = OpConstant %u32 16
        %u20 = OpConstant %u32 20
       %neg1 = OpConstant %f32 -1
   %subgroup = OpConstant %u32 3
     %useAcc = OpConstant %u32 2
   %rowmajor = OpConstant %u32 0
       %macc = OpTypeCooperativeMatrixKHR %f32 %subgroup %u16 %u16 %useAcc
        %neg = OpConstantComposite %macc %neg1
        %tlu = OpTypeTensorLayoutNV %u2 %u0
        %tlc = OpTypeTensorLayoutNV %u2 %u1
        %rtf = OpTypeRuntimeArray %f32
         %sf = OpTypeStruct %rtf
        %psf = OpTypePointer StorageBuffer %sf
         %pf = OpTypePointer StorageBuffer %f32
        %piv = OpTypePointer Input %v3u
         %b0 = OpVariable %psf StorageBuffer
         %b1 = OpVariable %psf StorageBuffer
        %lid = OpVariable %piv Input
        %add = OpFunction %f32 None %fn_ff
         %xa = OpFunctionParameter %f32
         %xb = OpFunctionParameter %f32
         %la = OpLabel
         %sa = OpFAdd %f32 %xa %xb
               OpReturnValue %sa
               OpFunctionEnd
         %pe = OpFunction %f32 None %fn_pe
         %pr = OpFunctionParameter %u32
         %pc = OpFunctionParameter %u32
         %px = OpFunctionParameter %f32
         %ps = OpFunctionParameter %f32
         %lp = OpLabel
         %pm = OpFMul %f32 %px %ps
               OpReturnValue %pm
               OpFunctionEnd
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %pin = OpAccessChain %pf %b0 %i0 %i0
       %pout = OpAccessChain %pf %b1 %i0 %i0
       %lidv = OpLoad %v3u %lid
          %x = OpCompositeExtract %u32 %lidv 0
"""
TAIL = """               OpReturn
               OpFunctionEnd
"""


def _run(body: str, tmp_path, n_in: int = 143, n_out: int = 256):
    path = tmp_path / "m.spvasm"
    path.write_text(HEAD + body + TAIL)
    spv = tmp_path / "m.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(path), "-o", str(spv)).returncode == 0
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()  # valid: only the run can find these
    return spvcoop.run(str(path), dispatch=(1, 1, 1),
                       buffers={0: np.arange(n_in, dtype=np.float32), 1: np.zeros(n_out, np.float32)})




LAYOUT = """        %t0 = OpCreateTensorLayoutNV %{ty}
        %t1 = OpTensorLayoutSetDimensionNV %{ty} %t0 %u13 %u11
"""


def test_undefined_clamp_mode_out_of_range_names_the_element(tmp_path):
    body = LAYOUT.format(ty="tlu") + """        %t2 = OpTensorLayoutSliceNV %tlu %t1 %im3 %u16 %i0 %u16
          %m = OpCooperativeMatrixLoadTensorNV %macc %pin %neg %t2 None None
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path)
    d = e.value.diagnostics[0]
    assert d.message.startswith("OpCooperativeMatrixLoadTensorNV: load out of range in subgroup 0: element (row 0, "
                                "col 0) has tensor coordinate -3 in dimension 0, outside 0..12, under clamp mode "
                                "Undefined"), d.message
    assert d.span.line == (HEAD + body).splitlines().index(body.splitlines()[-1]) + 1  # the load's own line


def test_constant_mode_still_needs_the_elements_inside_the_buffer(tmp_path):
    body = LAYOUT.format(ty="tlc") + """          %m = OpCooperativeMatrixLoadTensorNV %macc %pin %neg %t1 None None
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path, n_in=100)  # 13 x 11 = 143 elements declared, 100 present
    msg = e.value.diagnostics[0].message
    assert "load out of bounds in subgroup 0: element (row 6, col 4) is tensor element 100, at byte offset 400 of " \
           "'b0' (StorageBuffer, 400 bytes)" in msg, msg


def test_store_out_of_bounds(tmp_path):
    body = LAYOUT.format(ty="tlc") + """          %m = OpCooperativeMatrixLoadTensorNV %macc %pin %neg %t1 None None
               OpCooperativeMatrixStoreTensorNV %pout %m %t1 None None
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path, n_out=140)
    assert "store out of bounds" in e.value.diagnostics[0].message and "byte offset 560" in \
        e.value.diagnostics[0].message


def test_clamped_load_inside_the_buffer_runs(tmp_path):
    body = LAYOUT.format(ty="tlc") + """        %t2 = OpTensorLayoutSliceNV %tlc %t1 %im3 %u16 %i0 %u16
          %m = OpCooperativeMatrixLoadTensorNV %macc %pin %neg %t2 None None
               OpCooperativeMatrixStoreKHR %pout %m %rowmajor %u16
"""
    out = _run(body, tmp_path)[1].reshape(16, 16)
    assert (out[:3] == 0).all() and out[3, 0] == 0 and out[3, 1] == 1  # clamp value 0 above row 0, then the tensor


def test_layout_operand_that_differs_within_the_subgroup(tmp_path):
    body = LAYOUT.format(ty="tlc") + """        %t2 = OpTensorLayoutSliceNV %tlc %t1 %x %u16 %i0 %u16
          %m = OpCooperativeMatrixLoadTensorNV %macc %pin %neg %t2 None None
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path)
    msg = e.value.diagnostics[0].message
    assert "the TensorLayout operand (offset) differs within subgroup 0: invocation 1 has [1, 0], invocation 0 has " \
           "[0, 0]" in msg, msg


def test_per_element_operand_that_differs_within_the_subgroup(tmp_path):
    body = """          %m = OpCooperativeMatrixLoadKHR %macc %pin %rowmajor %u16
         %xf = OpConvertUToF %f32 %x
          %r = OpCooperativeMatrixPerElementOpNV %macc %m %pe %xf
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path, n_in=256)
    msg = e.value.diagnostics[0].message
    assert "operand xf differs within subgroup 0: invocation 1 has 1.0, invocation 0 has 0.0" in msg, msg


def test_reduce_under_divergent_control_flow(tmp_path):
    body = """          %m = OpCooperativeMatrixLoadKHR %macc %pin %rowmajor %u16
       %cond = OpULessThan %bool %x %u20
               OpSelectionMerge %join None
               OpBranchConditional %cond %then %join
       %then = OpLabel
          %r = OpCooperativeMatrixReduceNV %macc %m Row %add
               OpBranch %join
       %join = OpLabel
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path, n_in=256)
    msg = e.value.diagnostics[0].message
    assert msg.startswith("OpCooperativeMatrixReduceNV: reached by only part of subgroup 0 (20 of 32"), msg


def test_zero_span_is_an_error_not_a_crash(tmp_path):
    body = LAYOUT.format(ty="tlc") + """        %t2 = OpTensorLayoutSliceNV %tlc %t1 %i0 %u0 %i0 %u16
          %m = OpCooperativeMatrixLoadTensorNV %macc %pin %neg %t2 None None
"""
    with pytest.raises(SpvError) as e:
        _run(body, tmp_path)
    assert "tensor layout span 0 is zero" in e.value.diagnostics[0].message


def test_reduce_results_of_other_shapes(tmp_path):
    """Row keeps the rows and may have any number of columns (each holds the row's result); Row|Column may have
    any shape (every element holds the whole matrix's result)."""
    body = """          %m = OpCooperativeMatrixLoadKHR %macc %pin %rowmajor %u16
         %rw = OpCooperativeMatrixReduceNV %mwide %m Row %add
               OpCooperativeMatrixStoreKHR %pout %rw %rowmajor %u32c
         %al = OpCooperativeMatrixReduceNV %mtall %m Row|Column %add
      %pout2 = OpAccessChain %pf %b1 %i0 %u512
               OpCooperativeMatrixStoreKHR %pout2 %al %rowmajor %u16
"""
    head = HEAD.replace("       %macc = OpTypeCooperativeMatrixKHR", "       %u32c = OpConstant %u32 32\n"
                        "       %u512 = OpConstant %u32 512\n"
                        "      %mwide = OpTypeCooperativeMatrixKHR %f32 %subgroup %u16 %u32c %useAcc\n"
                        "      %mtall = OpTypeCooperativeMatrixKHR %f32 %subgroup %u32c %u16 %useAcc\n"
                        "       %macc = OpTypeCooperativeMatrixKHR")
    path = tmp_path / "m.spvasm"
    path.write_text(head + body + TAIL)
    spv = tmp_path / "m.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(path), "-o", str(spv)).returncode == 0
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    x = np.arange(256, dtype=np.float32)
    out = spvcoop.run(str(path), dispatch=(1, 1, 1), buffers={0: x, 1: np.zeros(1024, np.float32)})[1]
    X = x.reshape(16, 16).astype(np.float64)
    assert (out[:512].reshape(16, 32) == X.sum(axis=1, keepdims=True)).all()
    assert (out[512:].reshape(32, 16) == X.sum()).all()


def test_workgroup_scope_operands_must_agree_across_the_workgroup(tmp_path):
    """wg_gemm with n0 = gl_LocalInvocationID.x * 32 instead of gl_WorkGroupID.x * 32: the slice differs between the
    invocations of the workgroup that owns the Workgroup-scope matrix."""
    from conftest import DATA
    src = (DATA / "coopmat2" / "wg_gemm.spvasm").read_text().replace("BuiltIn WorkgroupId", "BuiltIn LocalInvocationId")
    path = tmp_path / "wg.spvasm"
    path.write_text(src)
    with pytest.raises(SpvError) as e:
        spvcoop.run(str(path), dispatch=(1, 1, 1), spec_constants={0: 32, 1: 32, 2: 32},
                    buffers={0: np.zeros(1024, np.float16), 1: np.zeros(1024, np.float16),
                             2: np.zeros(1024, np.float32)})
    msg = e.value.diagnostics[0].message
    assert "the TensorLayout operand (offset) differs within workgroup 0: invocation 1 has [0, 32], invocation 0 " \
           "has [0, 0] (it must be the same for the whole workgroup)" in msg, msg

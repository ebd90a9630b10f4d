"""Executor.call_per_element: the SPIR-V function calls of the coopmat2 ops (one call for many virtual
invocations). What a call sees (built-ins of the first active invocation of its scope instance), side effects
once per element, nested calls and Function variables inside, buffers used only inside the called function, and the
dispatch's state restored afterwards."""
from __future__ import annotations

import numpy as np

import spvcoop
from conftest import run_tool

MODULE = """; PerElementOp whose function reads gl_LocalInvocationID, stores to a buffer, calls a helper that uses an
; indexed Function array; two subgroups per workgroup (local size 64).
;   float f(uint r, uint c, float x) { atomicAdd(log[r * 16 + c], 1); return g(x, r) + float(gl_LocalInvocationID.x); }
;   float g(float x, uint r) { float t[2] = {x, 100.0}; return t[r & 1]; }
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpCapability CooperativeMatrixPerElementOperationsNV
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_NV_cooperative_matrix2"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %b0 %b1 %blog %lid
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %rtf ArrayStride 4
               OpDecorate %rtu ArrayStride 4
               OpMemberDecorate %su 0 Offset 0
               OpDecorate %su Block
               OpMemberDecorate %sf 0 Offset 0
               OpDecorate %sf Block
               OpDecorate %b0 DescriptorSet 0
               OpDecorate %b0 Binding 0
               OpDecorate %b1 DescriptorSet 0
               OpDecorate %b1 Binding 1
               OpDecorate %blog DescriptorSet 0
               OpDecorate %blog Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %f32 = OpTypeFloat 32
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
        %v3u = OpTypeVector %u32 3
      %fn_pe = OpTypeFunction %f32 %u32 %u32 %f32
       %fn_g = OpTypeFunction %f32 %f32 %u32
         %i0 = OpConstant %i32 0
         %u0 = OpConstant %u32 0
         %u1 = OpConstant %u32 1
         %u2 = OpConstant %u32 2
        %u16 = OpConstant %u32 16
        %f1 = OpConstant %f32 1
      %f100 = OpConstant %f32 100
   %subgroup = OpConstant %u32 3
     %useAcc = OpConstant %u32 2
   %rowmajor = OpConstant %u32 0
       %macc = OpTypeCooperativeMatrixKHR %f32 %subgroup %u16 %u16 %useAcc
        %arr = OpTypeArray %f32 %u2
       %parr = OpTypePointer Function %arr
     %pfunf = OpTypePointer Function %f32
        %rtf = OpTypeRuntimeArray %f32
        %rtu = OpTypeRuntimeArray %u32
         %su = OpTypeStruct %rtu
        %psu = OpTypePointer StorageBuffer %su
         %pu = OpTypePointer StorageBuffer %u32
         %sf = OpTypeStruct %rtf
        %psf = OpTypePointer StorageBuffer %sf
         %pf = OpTypePointer StorageBuffer %f32
        %piv = OpTypePointer Input %v3u
        %piu = OpTypePointer Input %u32
         %b0 = OpVariable %psf StorageBuffer
         %b1 = OpVariable %psf StorageBuffer
       %blog = OpVariable %psu StorageBuffer
        %lid = OpVariable %piv Input
          %g = OpFunction %f32 None %fn_g
         %gx = OpFunctionParameter %f32
         %gr = OpFunctionParameter %u32
         %lg = OpLabel
          %t = OpVariable %parr Function
         %t0 = OpAccessChain %pfunf %t %u0
               OpStore %t0 %gx
         %t1 = OpAccessChain %pfunf %t %u1
               OpStore %t1 %f100
        %odd = OpBitwiseAnd %u32 %gr %u1
         %ti = OpAccessChain %pfunf %t %odd
         %tv = OpLoad %f32 %ti
               OpReturnValue %tv
               OpFunctionEnd
          %f = OpFunction %f32 None %fn_pe
          %r = OpFunctionParameter %u32
          %c = OpFunctionParameter %u32
          %x = OpFunctionParameter %f32
         %lf = OpLabel
        %r16 = OpIMul %u32 %r %u16
         %rc = OpIAdd %u32 %r16 %c
         %pl = OpAccessChain %pu %blog %i0 %rc
         %ol = OpAtomicIAdd %u32 %pl %u2 %u0 %u1
         %gv = OpFunctionCall %f32 %g %x %r
        %plx = OpAccessChain %piu %lid %u0
         %lx = OpLoad %u32 %plx
        %lxf = OpConvertUToF %f32 %lx
        %res = OpFAdd %f32 %gv %lxf
               OpReturnValue %res
               OpFunctionEnd
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %pin = OpAccessChain %pf %b0 %i0 %i0
       %lidv = OpLoad %v3u %lid
         %lx0 = OpCompositeExtract %u32 %lidv 0
        %sgi = OpUDiv %u32 %lx0 %u16
        %sg2 = OpUDiv %u32 %sgi %u2
        %off = OpIMul %u32 %sg2 %u16
        %off2 = OpIMul %u32 %off %u16
       %pout = OpAccessChain %pf %b1 %i0 %off2
          %m = OpCooperativeMatrixLoadKHR %macc %pin %rowmajor %u16
          %p = OpCooperativeMatrixPerElementOpNV %macc %m %f
               OpCooperativeMatrixStoreKHR %pout %p %rowmajor %u16
               OpReturn
               OpFunctionEnd
"""


def test_per_element_calls_see_the_first_invocation_run_once_per_element_and_nest(tmp_path):
    path = tmp_path / "pe.spvasm"
    path.write_text(MODULE)
    spv = tmp_path / "pe.spv"
    assert run_tool("spirv-as", "--target-env", "vulkan1.3", str(path), "-o", str(spv)).returncode == 0
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    x = np.arange(256, dtype=np.float32)
    res = spvcoop.run(str(path), dispatch=(1, 1, 1), subgroup_size=32,
                      buffers={0: x, 1: np.zeros(512, np.float32), 2: np.zeros(256, np.uint32)})
    X = x.reshape(16, 16)
    body = np.where((np.arange(16) % 2 == 1)[:, None], 100.0, X)  # g: the element on even rows, 100 on odd ones
    # subgroup 0 (invocations 0..31) stores at 0, subgroup 1 (32..63) at 256; each call sees the built-ins of its
    # subgroup's first invocation: local id 0 and 32
    assert (res[1][:256].reshape(16, 16) == body + 0).all()
    assert (res[1][256:].reshape(16, 16) == body + 32).all()
    # the buffer is only used inside the per-element function (still bound: statically used), and every element's
    # call ran once per subgroup: two subgroups -> 2 atomic increments everywhere
    assert (res[2] == 2).all()


def test_call_per_element_restores_the_dispatch_state():
    from spvcoop.interp.budget import Budget
    from spvcoop.interp.config import RunConfig
    from spvcoop.interp.executor import Executor
    calls = []

    class Probe(Executor):
        def call(self, fn, args, mask, call_inst=None):
            calls.append((self.N, mask.shape[0], len(self.alive)))
            return np.asarray(args[0]) * 2

    ex = Probe.__new__(Probe)
    ex.N, ex.alive, ex.any_killed, ex.trace = 4, np.array([True, False, True, True]), True, 3
    ex.budget = Budget(RunConfig(max_steps=1000), lambda inst, notes: (None, "<test>"))
    ex.budget.steps = 10
    ex.gvals = {1: np.arange(4), 2: np.zeros(1), 3: (np.arange(4), np.ones(1))}
    before = (ex.N, ex.alive, ex.any_killed, ex.gvals, ex.trace, ex.budget.max_steps)
    seen = {}

    def fake_call(fn, args, mask, call_inst=None):
        seen["g1"], seen["g2"], seen["g3"] = ex.gvals[1], ex.gvals[2], ex.gvals[3]
        seen["state"] = (ex.N, ex.alive.copy(), ex.any_killed, ex.trace)
        seen["max_steps"] = ex.budget.max_steps
        return np.asarray(args[0]) * 2

    ex.call = fake_call
    out = ex.call_per_element(None, [np.arange(6)], np.array([0, 0, 2, 2, 3, 3]), None)
    assert (out == np.arange(6) * 2).all()
    assert (seen["g1"] == [0, 0, 2, 2, 3, 3]).all()          # per-invocation globals picked by lane
    assert seen["g2"].shape == (1,)                            # shared values unchanged
    assert (seen["g3"][0] == [0, 0, 2, 2, 3, 3]).all() and seen["g3"][1].shape == (1,)
    assert seen["state"][0] == 6 and seen["state"][1].all() and seen["state"][2] is False and seen["state"][3] is None
    assert seen["max_steps"] == 10 + 990 * 4 // 6  # 6 virtual invocations for 4 real ones: the work limit holds
    assert (ex.N, ex.alive, ex.any_killed, ex.gvals, ex.trace, ex.budget.max_steps) == before  # the same afterwards


def test_an_endless_per_element_function_hits_the_work_limit(tmp_path):
    """A per-element function that loops forever: the run stops at the work limit (a located error), and sooner
    than the step limit alone would allow, as the calls run for 256 elements per subgroup."""
    mod = MODULE.replace("""          %x = OpFunctionParameter %f32
         %lf = OpLabel
""", """          %x = OpFunctionParameter %f32
         %lf = OpLabel
               OpBranch %spin
       %spin = OpLabel
               OpLoopMerge %exit %spin None
               OpBranchConditional %true %spin %exit
       %exit = OpLabel
""").replace("        %f32 = OpTypeFloat 32\n", "        %f32 = OpTypeFloat 32\n       %bool = OpTypeBool\n"
             "       %true = OpConstantTrue %bool\n")
    path = tmp_path / "spin.spvasm"
    path.write_text(mod)
    from spvcoop.core.diagnostics import SpvError
    import pytest
    with pytest.raises(SpvError) as e:
        spvcoop.run(str(path), dispatch=(1, 1, 1), subgroup_size=32, max_work=1_000_000,
                    buffers={0: np.zeros(256, np.float32), 1: np.zeros(512, np.float32), 2: np.zeros(256, np.uint32)})
    d = e.value.diagnostics[0]
    assert d.rule == "interp.max-work" and "512 invocations" in d.message, d.message

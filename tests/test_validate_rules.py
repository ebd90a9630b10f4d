"""Rule test cases for the validator: small modules made from two valid base modules (KHR, NV).

A case names the rule it exercises, whether the module must fail that rule ("fail"), get a
warning from it ("warn"), or pass it ("pass"), and what spirv-val 2025.5 is expected to say:
"same" (invalid exactly when we report an error), "lax" (spirv-val accepts what we reject),
"strict" (spirv-val rejects what the spec allows), or None (not compared: the case exercises a
rule outside spirv-val's coopmat checks, e.g. a device profile).
"""
from __future__ import annotations

from dataclasses import dataclass, field

KHR_BASE = """\
               OpCapability Shader
               OpCapability Float16
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpExtension "SPV_KHR_cooperative_matrix"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %ssbo
               OpExecutionMode %main LocalSize 32 1 1
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %ssbo DescriptorSet 0
               OpDecorate %ssbo Binding 0
; @annotations
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
       %bool = OpTypeBool
        %f16 = OpTypeFloat 16
        %f32 = OpTypeFloat 32
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
   %subgroup = OpConstant %u32 3
         %c8 = OpConstant %u32 8
        %c16 = OpConstant %u32 16
         %u0 = OpConstant %u32 0
         %i0 = OpConstant %i32 0
     %stride = OpConstant %u32 16
   %rowmajor = OpConstant %u32 0
   %colmajor = OpConstant %u32 1
       %useA = OpConstant %u32 0
       %useB = OpConstant %u32 1
     %useAcc = OpConstant %u32 2
         %f1 = OpConstant %f32 1
         %h1 = OpConstant %f16 1
       %true = OpConstantTrue %bool
       %matA = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %useA
       %matB = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useB
       %matC = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useAcc
        %rta = OpTypeRuntimeArray %f32
        %blk = OpTypeStruct %rta
      %p_blk = OpTypePointer StorageBuffer %blk
       %ssbo = OpVariable %p_blk StorageBuffer
      %p_f32 = OpTypePointer StorageBuffer %f32
; @types
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
        %ptr = OpAccessChain %p_f32 %ssbo %i0 %u0
          %a = OpCooperativeMatrixLoadKHR %matA %ptr %rowmajor %stride
          %b = OpCooperativeMatrixLoadKHR %matB %ptr %colmajor %stride
          %c = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride
          %d = OpCooperativeMatrixMulAddKHR %matC %a %b %c
               OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride
; @body
               OpReturn
               OpFunctionEnd
"""

NV_BASE = """\
               OpCapability Shader
               OpCapability Float16
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixNV
               OpExtension "SPV_NV_cooperative_matrix"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %ssbo
               OpExecutionMode %main LocalSize 32 1 1
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %ssbo DescriptorSet 0
               OpDecorate %ssbo Binding 0
; @annotations
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
       %bool = OpTypeBool
        %f16 = OpTypeFloat 16
        %f32 = OpTypeFloat 32
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
   %subgroup = OpConstant %u32 3
         %c8 = OpConstant %u32 8
        %c16 = OpConstant %u32 16
         %u0 = OpConstant %u32 0
         %i0 = OpConstant %i32 0
     %stride = OpConstant %u32 16
      %false = OpConstantFalse %bool
       %true = OpConstantTrue %bool
         %f1 = OpConstant %f32 1
         %h1 = OpConstant %f16 1
       %matA = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %c16
       %matB = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %c8
       %matC = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8
        %rta = OpTypeRuntimeArray %f32
        %blk = OpTypeStruct %rta
      %p_blk = OpTypePointer StorageBuffer %blk
       %ssbo = OpVariable %p_blk StorageBuffer
      %p_f32 = OpTypePointer StorageBuffer %f32
; @types
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
        %ptr = OpAccessChain %p_f32 %ssbo %i0 %u0
          %a = OpCooperativeMatrixLoadNV %matA %ptr %stride %false
          %b = OpCooperativeMatrixLoadNV %matB %ptr %stride %false
          %c = OpCooperativeMatrixLoadNV %matC %ptr %stride %false
          %d = OpCooperativeMatrixMulAddNV %matC %a %b %c
               OpCooperativeMatrixStoreNV %ptr %d %stride %false
; @body
               OpReturn
               OpFunctionEnd
"""

PSB = [("OpCapability Shader", "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses\nOpCapability Int64"),
       ("OpMemoryModel Logical Vulkan", "OpMemoryModel PhysicalStorageBuffer64 Vulkan")]
PSB_TYPES = "%p_psb = OpTypePointer PhysicalStorageBuffer %f32\n%u64 = OpTypeInt 64 0\n%addr = OpConstant %u64 4096"


@dataclass
class Case:
    name: str
    rule: str
    expect: str                    # "fail", "warn" or "pass"
    base: str = "khr"              # "khr" or "nv"
    types: str = ""                # lines added after the base types
    body: str = ""                 # lines added at the end of the function body
    annotations: str = ""
    sub: list = field(default_factory=list)  # (old, new) replacements in the base text
    env: str = "universal"
    spec: dict | None = None       # --spec-const values
    profile: str | None = None
    ref: str | None = "same"       # spirv-val 2025.5 comparison, see module docstring
    asm_env: str | None = None     # assemble for this environment instead of `env`

    def text(self) -> str:
        t = KHR_BASE if self.base == "khr" else NV_BASE
        for old, new in self.sub:
            assert old in t, (self.name, old)
            t = t.replace(old, new, 1)
        t = t.replace("; @annotations\n", self.annotations + "\n")
        t = t.replace("; @types\n", self.types + "\n")
        t = t.replace("; @body\n", self.body + "\n")
        return t


def C(name, rule, expect, **kw) -> Case:
    return Case(name, rule, expect, **kw)


MATI = ("%matAi = OpTypeCooperativeMatrixKHR %i32 %subgroup %c16 %c16 %useA\n"
        "%matCi = OpTypeCooperativeMatrixKHR %i32 %subgroup %c16 %c8 %useAcc\n"
        "%matCu = OpTypeCooperativeMatrixKHR %u32 %subgroup %c16 %c8 %useAcc")
NV_MATI = ("%matCi = OpTypeCooperativeMatrixNV %i32 %subgroup %c16 %c8\n"
           "%matCu = OpTypeCooperativeMatrixNV %u32 %subgroup %c16 %c8")

ARM_CAP = [("OpCapability CooperativeMatrixKHR\n",
            "OpCapability CooperativeMatrixKHR\nOpCapability CooperativeMatrixLayoutsARM\n"),
           ('OpExtension "SPV_KHR_cooperative_matrix"',
            'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_ARM_cooperative_matrix_layouts"')]

# Uniformity cases: 64 invocations (two 32-wide warps), the local and workgroup ids, lid.x / 32.
UNI_SUB = [('OpEntryPoint GLCompute %main "main" %ssbo',
            'OpEntryPoint GLCompute %main "main" %ssbo %gl_lid %gl_wid %gl_sgl'),
           ("OpCapability Shader", "OpCapability Shader\nOpCapability GroupNonUniform"),
           ("LocalSize 32 1 1", "LocalSize 64 1 1")]
UNI_ANN = ("OpDecorate %gl_lid BuiltIn LocalInvocationId\nOpDecorate %gl_wid BuiltIn WorkgroupId\n"
           "OpDecorate %gl_sgl BuiltIn SubgroupLocalInvocationId")
UNI_TYPES = ("%v3u = OpTypeVector %u32 3\n%p_in_v3u = OpTypePointer Input %v3u\n"
             "%gl_lid = OpVariable %p_in_v3u Input\n%gl_wid = OpVariable %p_in_v3u Input\n"
             "%p_in_u32 = OpTypePointer Input %u32\n%gl_sgl = OpVariable %p_in_u32 Input\n"
             "%c32 = OpConstant %u32 32\n%wg = OpConstant %u32 2\n%sem = OpConstant %u32 264")
UNI_BODY = ("%lid = OpLoad %v3u %gl_lid\n%x = OpCompositeExtract %u32 %lid 0\n"
            "%wid = OpLoad %v3u %gl_wid\n%wx = OpCompositeExtract %u32 %wid 0\n%warp = OpUDiv %u32 %x %c32\n"
            "%sgl = OpLoad %u32 %gl_sgl\n")


def _uni_if(value: str, inner: str) -> str:
    """UNI_BODY, then `inner` under `if (value == 0)`."""
    return (UNI_BODY + f"%cond = OpIEqual %bool {value} %u0\nOpSelectionMerge %merge None\n"
            f"OpBranchConditional %cond %then %merge\n%then = OpLabel\n{inner}\nOpBranch %merge\n%merge = OpLabel")


CASES: list[Case] = [
    C("khr_base", "*", "pass"),
    C("nv_base", "*", "pass", base="nv"),
    # ---- structure ----
    C("undefined_id", "structure.id.defined", "fail", body="%x = OpFAdd %matC %d %nowhere", ref=None),
    C("defined_id", "structure.id.defined", "pass", body="%x = OpFAdd %matC %d %c"),
    C("defined_twice", "structure.id.defined_once", "fail", body="%x = OpFAdd %matC %d %c\n%x = OpFAdd %matC %d %c"),
    C("used_before_def", "structure.id.order", "fail", body="%x = OpFAdd %matC %y %c\n%y = OpFAdd %matC %d %c"),
    C("used_after_def", "structure.id.order", "pass", body="%y = OpFAdd %matC %d %c\n%x = OpFAdd %matC %y %c"),
    C("result_type_not_type", "structure.result_type", "fail", body="%x = OpFAdd %c16 %d %c", ref=None),
    C("no_capability", "structure.capability.opcode", "fail",
      sub=[("OpCapability CooperativeMatrixKHR\n", "")], ref="same"),
    C("no_extension_khr", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_KHR_cooperative_matrix"\n', "")]),
    C("no_extension_nv", "structure.capability.extension", "fail", base="nv",
      sub=[('OpExtension "SPV_NV_cooperative_matrix"\n', "")]),
    C("env_version_too_new", "structure.version.env", "fail", env="vulkan1.1", asm_env="spv1.6"),
    C("env_version_ok", "structure.version.env", "pass", env="vulkan1.3"),
    # ---- 1A ----
    C("nv_spirv10", "coopmat.version", "fail", base="nv", env="spv1.0",
      sub=[("OpMemoryModel Logical Vulkan", "OpMemoryModel Logical GLSL450"),
           ("OpCapability VulkanMemoryModel\n", ""), ('OpEntryPoint GLCompute %main "main" %ssbo', 'OpEntryPoint GLCompute %main "main"'),
           ("OpDecorate %blk Block", "OpDecorate %blk BufferBlock"), ("StorageBuffer", "Uniform"),
           ("StorageBuffer", "Uniform"), ("StorageBuffer", "Uniform")],
      ref=None),
    C("nv_spirv13", "coopmat.version", "pass", base="nv", env="spv1.3",
      sub=[('OpEntryPoint GLCompute %main "main" %ssbo', 'OpEntryPoint GLCompute %main "main"'),
           ('OpExtension "SPV_NV_cooperative_matrix"', 'OpExtension "SPV_NV_cooperative_matrix"\n'
            'OpExtension "SPV_KHR_vulkan_memory_model"\nOpExtension "SPV_KHR_storage_buffer_storage_class"')]),
    C("khr_no_vmm", "coopmat.khr.vulkan_memory_model", "fail",
      sub=[("OpCapability VulkanMemoryModel\n", ""), ("OpMemoryModel Logical Vulkan", "OpMemoryModel Logical GLSL450")]),
    # ---- 1B types ----
    C("component_bool", "coopmat.type.component", "fail", types="%mb = OpTypeCooperativeMatrixKHR %bool %subgroup %c16 %c8 %useAcc"),
    C("component_int", "coopmat.type.component", "pass", types=MATI),
    C("component_bf16_nocap", "coopmat.type.component_capability", "fail",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability BFloat16TypeKHR"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_KHR_bfloat16"')],
      types="%bf = OpTypeFloat 16 BFloat16KHR\n%mbf = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useA"),
    C("component_bf16_cap", "coopmat.type.component_capability", "pass",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability BFloat16TypeKHR\nOpCapability BFloat16CooperativeMatrixKHR"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_KHR_bfloat16"')],
      types="%bf = OpTypeFloat 16 BFloat16KHR\n%mbf = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useA"),
    C("rows_float", "coopmat.type.constant", "fail", types="%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %f1 %c8 %useAcc"),
    C("use_undef", "coopmat.type.constant", "fail", types="%uu = OpUndef %u32\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %c8 %c8 %uu"),
    C("rows_specconst", "coopmat.type.constant", "pass", types="%sr = OpSpecConstant %u32 8\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %sr %c8 %useAcc"),
    C("rows_u64", "coopmat.type.width32", "fail", ref="lax",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability Int64")],
      types="%u64 = OpTypeInt 64 0\n%r64 = OpConstant %u64 16\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %r64 %c8 %useAcc"),
    C("rows_i32", "coopmat.type.width32", "pass", types="%r = OpConstant %i32 16\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %r %c8 %useAcc"),
    C("rows_zero", "coopmat.type.positive", "fail", ref="lax", types="%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %u0 %c8 %useAcc"),
    C("rows_negative", "coopmat.type.positive", "fail", base="nv", ref="lax",
      types="%neg = OpConstant %i32 -16\n%m = OpTypeCooperativeMatrixNV %f32 %subgroup %neg %c8"),
    C("rows_spec_zero", "coopmat.type.positive", "warn",
      types="%sr = OpSpecConstant %u32 0\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %sr %c8 %useAcc"),
    C("rows_spec_zero_pinned", "coopmat.type.positive", "pass", spec={3: 8}, annotations="OpDecorate %sr SpecId 3",
      types="%sr = OpSpecConstant %u32 0\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %sr %c8 %useAcc"),
    C("scope_42", "coopmat.type.scope.value", "fail", base="nv", ref="lax",
      types="%s42 = OpConstant %u32 42\n%m = OpTypeCooperativeMatrixNV %f32 %s42 %c16 %c8"),
    C("scope_device_nv", "coopmat.type.scope.value", "pass", base="nv",
      types="%dev = OpConstant %u32 1\n%m = OpTypeCooperativeMatrixNV %f32 %dev %c16 %c8"),
    C("scope_device_khr_vulkan", "coopmat.type.scope.vulkan", "fail", env="vulkan1.3", ref="lax",
      types="%dev = OpConstant %u32 1\n%m = OpTypeCooperativeMatrixKHR %f32 %dev %c16 %c8 %useAcc"),
    C("scope_device_khr_universal", "coopmat.type.scope.vulkan", "pass",
      types="%dev = OpConstant %u32 1\n%m = OpTypeCooperativeMatrixKHR %f32 %dev %c16 %c8 %useAcc"),
    C("use_7", "coopmat.type.use.value", "fail", ref="lax",
      types="%u7 = OpConstant %u32 7\n%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %u7"),
    C("duplicate_type", "coopmat.type.duplicate", "fail",
      types="%dup = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useAcc"),
    C("equal_valued_type", "coopmat.type.duplicate", "pass",
      types="%c16b = OpConstant %u32 16\n%dup = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16b %c8 %useAcc"),
    C("workgroup_no_localsize", "coopmat.type.workgroup_localsize", "fail",
      sub=[("OpExecutionMode %main LocalSize 32 1 1\n", "")],
      types="%wg = OpConstant %u32 2\n%m = OpTypeCooperativeMatrixKHR %f32 %wg %c16 %c8 %useAcc"),
    C("workgroup_localsize", "coopmat.type.workgroup_localsize", "pass",
      types="%wg = OpConstant %u32 2\n%m = OpTypeCooperativeMatrixKHR %f32 %wg %c16 %c8 %useAcc"),
    C("workgroup_localsizeid_after_type", "coopmat.type.workgroup_localsize", "fail",
      sub=[("OpExecutionMode %main LocalSize 32 1 1", "OpExecutionModeId %main LocalSizeId %ls32 %ls1 %ls1")],
      types="%wg = OpConstant %u32 2\n%m = OpTypeCooperativeMatrixKHR %f32 %wg %c16 %c8 %useAcc\n"
            "%ls32 = OpConstant %u32 32\n%ls1 = OpConstant %u32 1"),
    C("workgroup_localsizeid_before_type", "coopmat.type.workgroup_localsize", "pass",
      sub=[("OpExecutionMode %main LocalSize 32 1 1", "OpExecutionModeId %main LocalSizeId %ls32 %ls1 %ls1")],
      types="%ls32 = OpConstant %u32 32\n%ls1 = OpConstant %u32 1\n%wg = OpConstant %u32 2\n"
            "%m = OpTypeCooperativeMatrixKHR %f32 %wg %c16 %c8 %useAcc"),
    # ---- 1C variables ----
    C("var_workgroup", "coopmat.variable.storage", "fail",
      types="%p_wg = OpTypePointer Workgroup %matC\n%wv = OpVariable %p_wg Workgroup"),
    C("var_function", "coopmat.variable.storage", "pass",
      types="%p_fn = OpTypePointer Function %matC",
      sub=[("      %entry = OpLabel", "      %entry = OpLabel\n%fv = OpVariable %p_fn Function")],
      body="OpStore %fv %d"),
    C("ptr_type_workgroup", "coopmat.pointer_type.storage", "warn", types="%p_wg = OpTypePointer Workgroup %matC"),
    # ---- 1D load/store ----
    C("load_result_scalar", "coopmat.load.result_type", "fail", body="%x = OpCooperativeMatrixLoadKHR %f32 %ptr %rowmajor %stride"),
    C("load_result_nv_type", "coopmat.load.result_type", "fail", base="nv",
      body="%x = OpCooperativeMatrixLoadNV %f32 %ptr %stride %false"),
    C("store_object_scalar", "coopmat.store.object_type", "fail", body="OpCooperativeMatrixStoreKHR %ptr %f1 %rowmajor %stride"),
    C("load_ptr_not_pointer", "coopmat.pointer.type", "fail", base="nv", body="%x = OpCooperativeMatrixLoadNV %matC %f1 %stride %false"),
    C("load_ptr_not_logical", "coopmat.pointer.type", "fail",
      body="%sel = OpSelect %p_f32 %true %ptr %ptr\n%x = OpCooperativeMatrixLoadKHR %matC %sel %rowmajor %stride"),
    C("load_ptr_from_select_varptr", "coopmat.pointer.type", "pass",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability VariablePointers")],
      body="%sel = OpSelect %p_f32 %true %ptr %ptr\n%x = OpCooperativeMatrixLoadKHR %matC %sel %rowmajor %stride"),
    C("nv_load_function_storage", "coopmat.pointer.storage_class", "fail", base="nv",
      types="%p_fn_f32 = OpTypePointer Function %f32\n%arr = OpTypeArray %f32 %c16\n%p_fn_arr = OpTypePointer Function %arr",
      sub=[("      %entry = OpLabel", "      %entry = OpLabel\n%fv = OpVariable %p_fn_arr Function")],
      body="%fp = OpAccessChain %p_fn_f32 %fv %u0\n%x = OpCooperativeMatrixLoadNV %matC %fp %stride %false"),
    C("khr_load_function_vulkan", "coopmat.pointer.storage_class", "fail", env="vulkan1.3",
      types="%p_fn_f32 = OpTypePointer Function %f32\n%arr = OpTypeArray %f32 %c16\n%p_fn_arr = OpTypePointer Function %arr",
      sub=[("      %entry = OpLabel", "      %entry = OpLabel\n%fv = OpVariable %p_fn_arr Function")],
      body="%fp = OpAccessChain %p_fn_f32 %fv %u0\n%x = OpCooperativeMatrixLoadKHR %matC %fp %rowmajor %stride"),
    C("khr_load_function_universal", "coopmat.pointer.storage_class", "pass",
      types="%p_fn_f32 = OpTypePointer Function %f32\n%arr = OpTypeArray %f32 %c16\n%p_fn_arr = OpTypePointer Function %arr",
      sub=[("      %entry = OpLabel", "      %entry = OpLabel\n%fv = OpVariable %p_fn_arr Function")],
      body="%fp = OpAccessChain %p_fn_f32 %fv %u0\n%x = OpCooperativeMatrixLoadKHR %matC %fp %rowmajor %stride"),
    C("load_ptr_to_struct", "coopmat.pointer.pointee", "fail", base="nv", body="%x = OpCooperativeMatrixLoadNV %matC %ssbo %stride %false"),
    C("load_ptr_to_uvec4", "coopmat.pointer.pointee", "pass", base="nv",
      sub=[('"main" %ssbo', '"main" %ssbo %wgv')],
      types="%v4u = OpTypeVector %u32 4\n%p_wg_v4 = OpTypePointer Workgroup %v4u\n%arr4 = OpTypeArray %v4u %c16\n"
            "%p_wg_arr4 = OpTypePointer Workgroup %arr4\n%wgv = OpVariable %p_wg_arr4 Workgroup",
      body="%wp = OpAccessChain %p_wg_v4 %wgv %u0\n%x = OpCooperativeMatrixLoadNV %matC %wp %stride %false"),
    C("khr_ptr_not_into_array", "coopmat.pointer.into_array", "fail", ref="lax", sub=[('"main" %ssbo', '"main" %ssbo %wgf')],
      types="%p_wg_f32 = OpTypePointer Workgroup %f32\n%wgf = OpVariable %p_wg_f32 Workgroup",
      body="%x = OpCooperativeMatrixLoadKHR %matC %wgf %rowmajor %stride"),
    C("stride_float", "coopmat.stride.type", "fail", body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %f1"),
    C("stride_dynamic", "coopmat.stride.type", "pass", base="nv",
      body="%ds = OpIAdd %u32 %stride %stride\n%x = OpCooperativeMatrixLoadNV %matC %ptr %ds %false"),
    C("store_stride_zero", "coopmat.stride.positive", "fail", ref="lax", body="OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %u0"),
    C("load_stride_negative", "coopmat.stride.positive", "warn", base="nv",
      types="%neg = OpConstant %i32 -1", body="%x = OpCooperativeMatrixLoadNV %matC %ptr %neg %false"),
    C("colmajor_int", "coopmat.nv.column_major", "fail", base="nv", body="%x = OpCooperativeMatrixLoadNV %matC %ptr %stride %u0"),
    C("colmajor_spec", "coopmat.nv.column_major", "pass", base="nv",
      types="%scm = OpSpecConstantTrue %bool", body="%x = OpCooperativeMatrixLoadNV %matC %ptr %stride %scm"),
    C("layout_float", "coopmat.khr.layout", "fail", body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %f1 %stride"),
    C("layout_7", "coopmat.khr.layout", "fail", ref="lax", types="%l7 = OpConstant %u32 7",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %l7 %stride"),
    C("layout_spec", "coopmat.khr.layout", "pass", types="%sl = OpSpecConstant %u32 1",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %sl %stride"),
    C("layout_no_stride", "coopmat.khr.layout_stride", "fail", body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor"),
    C("layout_arm_nocap", "coopmat.khr.layout_arm", "fail", ref=None, types="%arm = OpConstant %u32 4202",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %arm %stride"),
    # f32 16x8 RowBlockedInterleavedARM: Rows % 4 == 0, Columns % (16/4 * Stride) == 0
    C("layout_arm_block_cols", "coopmat.khr.layout_arm", "fail", sub=ARM_CAP,
      types="%arm = OpConstant %u32 4202\n%s4 = OpConstant %u32 4",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %arm %s4"),
    C("layout_arm_block_ok", "coopmat.khr.layout_arm", "pass", sub=ARM_CAP,
      types="%arm = OpConstant %u32 4202\n%s2 = OpConstant %u32 2",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %arm %s2"),
    # ColumnBlockedInterleavedARM exchanges the two: Rows 16 % (4 * 4) == 0, Columns 8 % 4 == 0
    C("layout_arm_column_block_ok", "coopmat.khr.layout_arm", "pass", sub=ARM_CAP,
      types="%arm = OpConstant %u32 4203\n%s4 = OpConstant %u32 4",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %arm %s4"),
    # ---- 1E memory operands ----
    C("load_makeavailable", "coopmat.memaccess.load_store_bits", "fail", types="%wgs = OpConstant %u32 2",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride MakePointerAvailable|NonPrivatePointer %wgs"),
    C("store_makevisible", "coopmat.memaccess.load_store_bits", "fail", base="nv", types="%wgs = OpConstant %u32 2",
      body="OpCooperativeMatrixStoreNV %ptr %d %stride %false MakePointerVisible|NonPrivatePointer %wgs"),
    C("load_makevisible_ok", "coopmat.memaccess.load_store_bits", "pass", types="%wgs = OpConstant %u32 2",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride Aligned|MakePointerVisible|NonPrivatePointer 16 %wgs"),
    C("makevisible_no_nonprivate", "coopmat.memaccess.nonprivate", "fail", types="%wgs = OpConstant %u32 2",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride MakePointerVisible %wgs"),
    C("makevisible_scope_42", "coopmat.memaccess.scope", "fail", types="%s42 = OpConstant %u32 42",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride MakePointerVisible|NonPrivatePointer %s42"),
    C("aligned_6", "coopmat.memaccess.aligned", "fail", base="nv",
      body="%x = OpCooperativeMatrixLoadNV %matC %ptr %stride %false Aligned 6"),
    C("psb_aligned_too_small", "coopmat.memaccess.aligned", "fail", base="nv", sub=PSB, types=PSB_TYPES,
      body="%pp = OpConvertUToPtr %p_psb %addr\n%x = OpCooperativeMatrixLoadNV %matC %pp %stride %false Aligned 2"),
    C("psb_no_memop", "coopmat.memaccess.psb_aligned", "fail", ref="lax", base="nv", sub=PSB, types=PSB_TYPES,
      body="%pp = OpConvertUToPtr %p_psb %addr\n%x = OpCooperativeMatrixLoadNV %matC %pp %stride %false"),
    C("psb_none_memop", "coopmat.memaccess.psb_aligned", "fail", sub=PSB, types=PSB_TYPES,
      body="%pp = OpConvertUToPtr %p_psb %addr\n%x = OpCooperativeMatrixLoadKHR %matC %pp %rowmajor %stride None"),
    C("psb_aligned_16", "coopmat.memaccess.psb_aligned", "pass", sub=PSB, types=PSB_TYPES,
      body="%pp = OpConvertUToPtr %p_psb %addr\n%x = OpCooperativeMatrixLoadKHR %matC %pp %rowmajor %stride Aligned 16"),
    # ---- 1F length ----
    C("length_signed", "coopmat.length", "fail", body="%n = OpCooperativeMatrixLengthKHR %i32 %matC"),
    C("length_nv_type_in_khr", "coopmat.length", "fail",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability CooperativeMatrixNV"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_NV_cooperative_matrix"')],
      types="%mnv = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8", body="%n = OpCooperativeMatrixLengthKHR %u32 %mnv"),
    C("length_ok", "coopmat.length", "pass", body="%n = OpCooperativeMatrixLengthKHR %u32 %matC"),
    C("specconstop_length_signed", "coopmat.length", "fail", base="nv", ref="lax",
      types="%sl = OpSpecConstantOp %i32 CooperativeMatrixLengthNV %matC"),
    C("specconstop_length_ok", "coopmat.length", "pass", base="nv",
      types="%sl = OpSpecConstantOp %u32 CooperativeMatrixLengthNV %matC"),
    # ---- 1G MulAdd ----
    C("muladd_a_scalar", "coopmat.muladd.operand_type", "fail", base="nv", body="%x = OpCooperativeMatrixMulAddNV %matC %h1 %b %c"),
    C("muladd_a_wrong_use", "coopmat.muladd.use", "fail", body="%x = OpCooperativeMatrixMulAddKHR %matC %b %b %c"),
    C("muladd_result_use_a", "coopmat.muladd.use", "fail", ref="lax",
      types="%mAr = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useA",
      body="%x = OpCooperativeMatrixMulAddKHR %mAr %a %b %c"),
    C("muladd_spec_use", "coopmat.muladd.use", "pass", ref="strict",
      types="%su = OpSpecConstant %u32 0\n%mAs = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %su",
      body="%as = OpCooperativeMatrixLoadKHR %mAs %ptr %rowmajor %stride\n%x = OpCooperativeMatrixMulAddKHR %matC %as %b %c"),
    C("muladd_m", "coopmat.muladd.m", "fail", base="nv",
      types="%mA8 = OpTypeCooperativeMatrixNV %f16 %subgroup %c8 %c16",
      body="%a8 = OpCooperativeMatrixLoadNV %mA8 %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %a8 %b %c"),
    C("muladd_n", "coopmat.muladd.n", "fail", base="nv", body="%x = OpCooperativeMatrixMulAddNV %matC %a %a %c"),
    C("muladd_k", "coopmat.muladd.k", "fail", base="nv",
      types="%mB8 = OpTypeCooperativeMatrixNV %f16 %subgroup %c8 %c8",
      body="%b8 = OpCooperativeMatrixLoadNV %mB8 %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %a %b8 %c"),
    C("muladd_k_spec_default", "coopmat.muladd.k", "warn", base="nv", annotations="OpDecorate %sk SpecId 7",
      types="%sk = OpSpecConstant %u32 8\n%mAk = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %sk",
      body="%ak = OpCooperativeMatrixLoadNV %mAk %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %ak %b %c"),
    C("muladd_k_spec_pinned_bad", "coopmat.muladd.k", "fail", base="nv", annotations="OpDecorate %sk SpecId 7",
      spec={7: 8}, ref=None,
      types="%sk = OpSpecConstant %u32 16\n%mAk = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %sk",
      body="%ak = OpCooperativeMatrixLoadNV %mAk %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %ak %b %c"),
    C("muladd_k_specop", "coopmat.muladd.k", "warn", base="nv",
      types="%s4 = OpSpecConstant %u32 4\n%sk = OpSpecConstantOp %u32 IAdd %s4 %s4\n"
            "%mAk = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %sk",
      body="%ak = OpCooperativeMatrixLoadNV %mAk %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %ak %b %c"),
    C("muladd_scope", "coopmat.muladd.scope", "fail", base="nv",
      types="%wg = OpConstant %u32 2\n%mCw = OpTypeCooperativeMatrixNV %f32 %wg %c16 %c8",
      body="%cw = OpCooperativeMatrixLoadNV %mCw %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %a %b %cw"),
    C("muladd_signed_on_float", "coopmat.muladd.operands", "fail", ref="lax",
      body="%x = OpCooperativeMatrixMulAddKHR %matC %a %b %c MatrixASignedComponentsKHR"),
    C("muladd_saturating_float", "coopmat.muladd.operands", "warn",
      body="%x = OpCooperativeMatrixMulAddKHR %matC %a %b %c SaturatingAccumulationKHR"),
    C("muladd_signed_on_int", "coopmat.muladd.operands", "pass",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability Int8")],
      types="%i8 = OpTypeInt 8 1\n%c32 = OpConstant %u32 32\n"
            "%mA8 = OpTypeCooperativeMatrixKHR %i8 %subgroup %c16 %c32 %useA\n"
            "%mB8 = OpTypeCooperativeMatrixKHR %i8 %subgroup %c32 %c8 %useB\n"
            "%mC8 = OpTypeCooperativeMatrixKHR %i32 %subgroup %c16 %c8 %useAcc",
      body="%a8 = OpCooperativeMatrixLoadKHR %mA8 %ptr %rowmajor %stride\n%b8 = OpCooperativeMatrixLoadKHR %mB8 %ptr %rowmajor %stride\n"
           "%c8v = OpCooperativeMatrixLoadKHR %mC8 %ptr %rowmajor %stride\n"
           "%x = OpCooperativeMatrixMulAddKHR %mC8 %a8 %b8 %c8v MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|MatrixResultSignedComponentsKHR"),
    # ---- 1H element-wise ----
    C("nv_fmul", "coopmat.arith.opcode", "fail", base="nv", body="%x = OpFMul %matC %d %d"),
    C("nv_frem", "coopmat.arith.opcode", "fail", base="nv", body="%x = OpFRem %matC %d %d"),
    C("khr_fmul", "coopmat.arith.opcode", "pass", body="%x = OpFMul %matC %d %d"),
    C("nv_imul", "coopmat.arith.opcode", "fail", base="nv", types=NV_MATI,
      body="%i = OpConvertFToS %matCi %d\n%x = OpIMul %matCi %i %i"),
    C("udiv_signed", "coopmat.arith.opcode", "fail", types=MATI,
      body="%i = OpConvertFToS %matCi %d\n%x = OpUDiv %matCi %i %i"),
    C("fadd_use_mismatch", "coopmat.arith.operand_type", "fail",
      types="%mBf = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useB",
      body="%bb = OpCooperativeMatrixLoadKHR %mBf %ptr %rowmajor %stride\n%x = OpFAdd %matC %bb %bb"),
    C("fadd_width_mismatch", "coopmat.arith.operand_type", "fail", ref="lax",
      types="%mCh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useAcc",
      body="%ch = OpCooperativeMatrixLoadKHR %mCh %ptr %rowmajor %stride\n%x = OpFAdd %matC %ch %ch"),
    C("nv_iadd_shape", "coopmat.arith.operand_type", "fail", base="nv", ref="lax", types=NV_MATI +
      "\n%mU88 = OpTypeCooperativeMatrixNV %u32 %subgroup %c8 %c8",
      body="%u = OpCooperativeMatrixLoadNV %mU88 %ptr %stride %false\n%x = OpIAdd %matCi %u %u"),
    C("fadd_coopmat_plus_scalar", "coopmat.arith.operand_type", "fail", base="nv", body="%x = OpFAdd %matC %d %f1"),
    C("khr_equal_valued", "coopmat.arith.operand_type", "pass",
      types="%c16b = OpConstant %u32 16\n%mC2 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16b %c8 %useAcc",
      body="%c2 = OpCooperativeMatrixLoadKHR %mC2 %ptr %rowmajor %stride\n%x = OpFAdd %matC %d %c2"),
    C("nv_equal_valued", "coopmat.arith.operand_type", "fail", base="nv",
      types="%c16b = OpConstant %u32 16\n%mC2 = OpTypeCooperativeMatrixNV %f32 %subgroup %c16b %c8",
      body="%c2 = OpCooperativeMatrixLoadNV %mC2 %ptr %stride %false\n%x = OpFAdd %matC %d %c2"),
    C("select_coopmat", "coopmat.select.condition", "pass", ref="strict", body="%x = OpSelect %matC %true %c %d"),
    C("select_vector_condition", "coopmat.select.condition", "fail",
      types="%v2b = OpTypeVector %bool 2\n%vt = OpConstantComposite %v2b %true %true", body="%x = OpSelect %matC %vt %c %d"),
    C("select_mixed", "coopmat.arith.operand_type", "fail", base="nv",
      types="%mC2 = OpTypeCooperativeMatrixNV %f32 %subgroup %c8 %c8",
      body="%c2 = OpCooperativeMatrixLoadNV %mC2 %ptr %stride %false\n%x = OpSelect %matC %true %c %c2"),
    C("mts_scalar_type", "coopmat.matrix_times_scalar", "fail", base="nv",
      types="%mCh = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %c8",
      body="%ch = OpCooperativeMatrixLoadNV %mCh %ptr %stride %false\n%x = OpMatrixTimesScalar %mCh %ch %f1"),
    C("mts_ok", "coopmat.matrix_times_scalar", "pass", body="%x = OpMatrixTimesScalar %matC %d %f1"),
    C("mts_int", "coopmat.matrix_times_scalar.int", "warn", base="nv", types=NV_MATI + "\n%i1 = OpConstant %i32 1",
      body="%i = OpConvertFToS %matCi %d\n%x = OpMatrixTimesScalar %matCi %i %i1"),
    C("dot_coopmat", "coopmat.op.unsupported", "fail", base="nv", body="%x = OpDot %f32 %d %d"),
    C("transpose_coopmat", "coopmat.op.unsupported", "fail", base="nv", body="%x = OpTranspose %matC %d"),
    C("fadd_bf16", "coopmat.arith.encoding", "fail",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability BFloat16TypeKHR\nOpCapability BFloat16CooperativeMatrixKHR"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_KHR_bfloat16"')],
      types="%bf = OpTypeFloat 16 BFloat16KHR\n%mbf = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c8 %useAcc",
      body="%xb = OpFConvert %mbf %d\n%x = OpFAdd %mbf %xb %xb"),
    C("mts_bf16", "coopmat.arith.encoding", "fail", ref="lax",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability BFloat16TypeKHR\nOpCapability BFloat16CooperativeMatrixKHR"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_KHR_bfloat16"')],
      types="%bf = OpTypeFloat 16 BFloat16KHR\n%bf1 = OpConstant %bf 1\n"
            "%mbf = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c8 %useAcc",
      body="%xb = OpFConvert %mbf %d\n%x = OpMatrixTimesScalar %mbf %xb %bf1"),
    C("fadd_f16", "coopmat.arith.encoding", "pass",
      types="%mCh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useAcc",
      body="%xh = OpFConvert %mCh %d\n%x = OpFAdd %mCh %xh %xh"),
    # ---- 1I conversions ----
    C("convert_scalar_to_coopmat", "coopmat.convert.both", "fail", base="nv", types=NV_MATI,
      body="%x = OpConvertFToS %matCi %f1"),
    C("convert_nv_to_khr", "coopmat.convert.both", "fail", ref="same",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability CooperativeMatrixNV"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_NV_cooperative_matrix"')],
      types="%mnv = OpTypeCooperativeMatrixNV %f16 %subgroup %c16 %c8",
      body="%x = OpFConvert %mnv %d"),
    C("convert_kinds_bad", "coopmat.convert.kinds", "fail", types=MATI, body="%i = OpConvertFToS %matCi %d\n%x = OpConvertFToU %matCu %i"),
    C("convert_ok", "coopmat.convert.kinds", "pass", types=MATI, body="%i = OpConvertFToS %matCi %d\n%x = OpConvertSToF %matC %i"),
    C("convert_use_mismatch", "coopmat.convert.shape", "fail",
      types="%mBh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useB", body="%x = OpFConvert %mBh %d"),
    C("convert_shape_mismatch", "coopmat.convert.shape", "fail", base="nv",
      types="%mH8 = OpTypeCooperativeMatrixNV %f16 %subgroup %c8 %c8", body="%x = OpFConvert %mH8 %d"),
    C("fconvert_same", "coopmat.convert.width", "fail", base="nv", body="%x = OpFConvert %matC %d"),
    C("sconvert_same_width", "coopmat.convert.width", "fail", base="nv", types=NV_MATI,
      body="%i = OpConvertFToS %matCi %d\n%x = OpSConvert %matCu %i"),
    C("convert_u8_no_int8", "coopmat.convert.small_types", "fail",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability StorageBuffer8BitAccess")],
      types="%u8 = OpTypeInt 8 0\n%mCu8 = OpTypeCooperativeMatrixKHR %u8 %subgroup %c16 %c8 %useAcc",
      body="%x = OpConvertFToU %mCu8 %d"),
    C("convert_u8_int8", "coopmat.convert.small_types", "pass",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability Int8")],
      types="%u8 = OpTypeInt 8 0\n%mCu8 = OpTypeCooperativeMatrixKHR %u8 %subgroup %c16 %c8 %useAcc",
      body="%x = OpConvertFToU %mCu8 %d"),
    C("bitcast_width", "coopmat.bitcast.width", "fail", ref="lax",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability Int16")],
      types=MATI + "\n%u16 = OpTypeInt 16 0\n%mCu16 = OpTypeCooperativeMatrixKHR %u16 %subgroup %c16 %c8 %useAcc",
      body="%i = OpConvertFToS %matCi %d\n%x = OpBitcast %mCu16 %i"),
    C("bitcast_int_ok", "coopmat.bitcast.width", "pass", types=MATI,
      body="%i = OpConvertFToS %matCi %d\n%x = OpBitcast %matCu %i"),
    C("bitcast_float", "coopmat.bitcast.integer", "fail", ref="lax", types=MATI, body="%x = OpBitcast %matCu %d"),
    C("bitcast_float_from_int", "coopmat.bitcast.integer", "fail", ref="lax", types=MATI,
      body="%i = OpConvertFToS %matCi %d\n%x = OpBitcast %matC %i"),
    C("bitcast_nv", "coopmat.bitcast.kind", "warn", base="nv", types=NV_MATI, body="%x = OpBitcast %matCu %d"),
    # ---- 1J composites ----
    C("construct_two", "coopmat.construct", "fail", body="%x = OpCompositeConstruct %matC %f1 %f1"),
    C("construct_wrong_type", "coopmat.construct", "fail", base="nv", body="%x = OpCompositeConstruct %matC %h1"),
    C("construct_ok", "coopmat.construct", "pass", body="%x = OpCompositeConstruct %matC %f1"),
    C("constcomposite_two", "coopmat.construct", "fail", base="nv", types="%k = OpConstantComposite %matC %f1 %f1"),
    C("constcomposite_ok", "coopmat.construct", "pass", base="nv", types="%k = OpConstantComposite %matC %f1"),
    C("replicate_wrong_type", "coopmat.construct.replicate", "fail", ref=None,
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability ReplicatedCompositesEXT"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_EXT_replicated_composites"')],
      body="%x = OpCompositeConstructReplicateEXT %matC %h1"),
    C("extract_two_indices", "coopmat.extract_insert", "fail", base="nv", body="%x = OpCompositeExtract %f32 %d 0 0"),
    C("extract_wrong_result", "coopmat.extract_insert", "fail", base="nv", body="%x = OpCompositeExtract %f16 %d 0"),
    C("insert_wrong_object", "coopmat.extract_insert", "fail", base="nv", body="%x = OpCompositeInsert %matC %h1 %d 0"),
    C("extract_huge_index", "coopmat.extract_insert", "pass", base="nv", body="%x = OpCompositeExtract %f32 %d 100000"),
    # ---- 1K scopes ----
    C("barrier_spec_scope_khr", "scope.constant", "pass", ref="strict", types="%ss = OpSpecConstant %u32 2\n%sem = OpConstant %u32 0",
      body="OpControlBarrier %ss %ss %sem"),
    C("barrier_spec_scope_nv", "scope.constant", "pass", base="nv", types="%ss = OpSpecConstant %u32 2\n%sem = OpConstant %u32 0",
      body="OpControlBarrier %ss %ss %sem"),
    # KHR relaxes Scope <id>s only: a spec-constant Memory Semantics <id> needs NV (issue 11 item 12)
    C("barrier_spec_semantics_khr", "scope.constant", "fail", types="%sc = OpConstant %u32 2\n%sem = OpSpecConstant %u32 0",
      body="OpControlBarrier %sc %sc %sem"),
    C("barrier_spec_semantics_nv", "scope.constant", "pass", base="nv",
      types="%sc = OpConstant %u32 2\n%sem = OpSpecConstant %u32 0", body="OpControlBarrier %sc %sc %sem"),
    C("barrier_undef_scope", "scope.constant", "fail", base="nv", types="%sem = OpConstant %u32 0",
      body="%us = OpUndef %u32\nOpControlBarrier %us %us %sem"),
    C("barrier_spec_scope_nocoop", "scope.constant", "fail",
      sub=[("OpCapability CooperativeMatrixKHR\n", ""), ('OpExtension "SPV_KHR_cooperative_matrix"\n', ""),
           ("       %matA = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %useA\n", ""),
           ("       %matB = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useB\n", ""),
           ("       %matC = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useAcc\n", ""),
           ("          %a = OpCooperativeMatrixLoadKHR %matA %ptr %rowmajor %stride\n", ""),
           ("          %b = OpCooperativeMatrixLoadKHR %matB %ptr %colmajor %stride\n", ""),
           ("          %c = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride\n", ""),
           ("          %d = OpCooperativeMatrixMulAddKHR %matC %a %b %c\n", ""),
           ("               OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride\n", "")],
      types="%ss = OpSpecConstant %u32 2\n%sem = OpConstant %u32 0", body="OpControlBarrier %ss %ss %sem"),
    # ---- dynamic uniformity (issue 37): failing where a value certainly differs within the scope instance ----
    C("uni_cf_lid", "uniformity.coopmat.control_flow", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%x", "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride")),
    C("uni_cf_workgroup_id", "uniformity.coopmat.control_flow", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%wx", "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride")),
    # lid.x < 4 splits the first subgroup (8 invocations or more on every device); lid.x < 16 may not: not reported
    C("uni_cf_lid_below_4", "uniformity.coopmat.control_flow", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES + "\n%c4 = OpConstant %u32 4", body=_uni_if("%x", "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride")
      .replace("OpIEqual %bool %x %u0", "OpULessThan %bool %x %c4")),
    C("uni_cf_lid_below_16", "uniformity.coopmat.control_flow", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%x", "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride")
      .replace("OpIEqual %bool %x %u0", "OpULessThan %bool %x %c16")),
    # lid.x / 32 is one value per subgroup (ggml's warp index): not reported
    C("uni_cf_warp_index", "uniformity.coopmat.control_flow", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%warp", "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride")),
    C("uni_stride_lid", "uniformity.coopmat.operand", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=UNI_BODY + "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %x"),
    C("uni_stride_lid_nv", "uniformity.coopmat.operand", "fail", ref="lax", base="nv", sub=UNI_SUB,
      annotations=UNI_ANN, types=UNI_TYPES, body=UNI_BODY + "OpCooperativeMatrixStoreNV %ptr %d %x %false"),
    C("uni_stride_warp", "uniformity.coopmat.operand", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=UNI_BODY + "OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %warp"),
    C("uni_pointer_lid", "uniformity.coopmat.operand", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=UNI_BODY + "%px = OpAccessChain %p_f32 %ssbo %i0 %x\n"
                                       "OpCooperativeMatrixStoreKHR %px %d %rowmajor %stride"),
    C("uni_pointer_warp", "uniformity.coopmat.operand", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=UNI_BODY + "%pw = OpAccessChain %p_f32 %ssbo %i0 %warp\n"
                                       "OpCooperativeMatrixStoreKHR %pw %d %rowmajor %stride"),
    C("uni_construct_lid", "uniformity.coopmat.construct", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=UNI_BODY + "%fx = OpConvertUToF %f32 %x\n%mx = OpCompositeConstruct %matC %fx"),
    # the CTS's composite test: a matrix made from element 0 of another (each invocation holds other elements)
    C("uni_construct_element", "uniformity.coopmat.construct", "fail", ref="lax", sub=UNI_SUB,
      annotations=UNI_ANN, types=UNI_TYPES, body="%e0 = OpCompositeExtract %f32 %d 0\n%me = OpCompositeConstruct %matC %e0"),
    C("uni_construct_workgroup_id", "uniformity.coopmat.construct", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=UNI_BODY + "%fw = OpConvertUToF %f32 %wx\n%mw = OpCompositeConstruct %matC %fw"),
    C("uni_barrier_lid", "uniformity.barrier.control_flow", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%x", "OpControlBarrier %wg %wg %sem")),
    C("uni_barrier_warp", "uniformity.barrier.control_flow", "fail", ref="lax", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%warp", "OpControlBarrier %wg %wg %sem")),  # 64 invocations: two warps
    # the subgroup invocation id differs within the first subgroup, so within workgroup 0
    C("uni_barrier_subgroup_lane", "uniformity.barrier.control_flow", "fail", ref="lax", sub=UNI_SUB,
      annotations=UNI_ANN, types=UNI_TYPES, body=_uni_if("%sgl", "OpControlBarrier %wg %wg %sem")),
    C("uni_barrier_workgroup_id", "uniformity.barrier.control_flow", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%wx", "OpControlBarrier %wg %wg %sem")),
    C("uni_subgroup_barrier_warp", "uniformity.barrier.control_flow", "pass", sub=UNI_SUB, annotations=UNI_ANN,
      types=UNI_TYPES, body=_uni_if("%warp", "OpControlBarrier %subgroup %subgroup %sem")),
    C("uni_subgroup_barrier_lid", "uniformity.barrier.control_flow", "warn", ref=None, sub=UNI_SUB,
      annotations=UNI_ANN, types=UNI_TYPES, body=_uni_if("%x", "OpControlBarrier %subgroup %subgroup %sem")),
    # ---- profiles ----
    C("profile_ok", "profile.type", "pass", profile="nvidia-h100", ref=None),
    C("profile_bad_type", "profile.type", "fail", profile="nvidia-h100", ref=None,
      types="%c32 = OpConstant %u32 32\n%mbig = OpTypeCooperativeMatrixKHR %f32 %subgroup %c32 %c32 %useAcc"),
    C("profile_bad_muladd", "profile.muladd", "fail", base="nv", profile="nvidia-h100", ref=None,
      types="%mAf = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c16\n%mBf = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8",
      body="%af = OpCooperativeMatrixLoadNV %mAf %ptr %stride %false\n%bf = OpCooperativeMatrixLoadNV %mBf %ptr %stride %false\n"
           "%x = OpCooperativeMatrixMulAddNV %matC %af %bf %c"),
]


# ---------------------------------------------------------------------------------------------
# tests

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

import spvcoop  # noqa: E402
from spvcoop.validator import RULES, validate  # noqa: E402
from conftest import assert_rule_verdict  # noqa: E402


def _asm_env(env: str) -> str:
    return "spv1.6" if env == "universal" else env


def run_case(case: Case):
    module = spvcoop.assemble(case.text(), f"{case.name}.spvasm", target_env=case.asm_env or _asm_env(case.env))
    # our rules alone: spirv-val's part of the report is tested in test_validate_spirv_val.py, and
    # test_case_agrees_with_spirv_val compares these findings with spirv-val's verdict
    return module, validate(module, case.env, case.spec, case.profile, spirv_val=False)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    _, diags = run_case(case)
    assert_rule_verdict(case.rule, case.expect, diags)


# bfloat16 / FP8 / QCOM rules: their cases (and this check) are in test_validate_floats_qcom.py
FLOATS_QCOM_PREFIXES = ("float.", "qcom.")


def test_every_rule_has_failing_and_passing_case() -> None:
    failing = {c.rule for c in CASES if c.expect in ("fail", "warn")}
    from test_validate_coopmat2 import CASES as CM2_CASES  # SPV_NV_cooperative_matrix2 / tensor addressing
    failing |= {c.rule for c in CM2_CASES if c.expect in ("fail", "warn")}
    # structure.malformed: see test_malformed_module; spirv-val: test_validate_spirv_val.py
    missing_fail = sorted(set(RULES) - failing - {"structure.malformed", "spirv-val"}
                          - {r for r in RULES if r.startswith(FLOATS_QCOM_PREFIXES)})
    assert not missing_fail, f"rules without a failing case: {missing_fail}"
    # a rule passes on every clean module; the base modules count as passing cases for all rules
    assert {"khr_base", "nv_base"} <= {c.name for c in CASES if c.rule == "*"}


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
    from pathlib import Path

    from spvcoop import assemble
    from spvcoop.validator import validate
    src = (Path(__file__).parent / "data" / "coopmat-probes" / "khr_err_convert_use_mismatch.spvasm").read_text()
    src = src.replace("%p_f32 = OpTypePointer StorageBuffer %f32", "%p_f32 = OpTypePointer StorageBuffer %p_f32")
    diags = validate(assemble(src, "self_pointer.spvasm"), spirv_val=False)
    assert not [d for d in diags if d.rule == "structure.malformed"], [d.headline() for d in diags]
    assert any(d.rule == "coopmat.pointer.pointee" and "ptr StorageBuffer ..." in d.message for d in diags), \
        [d.headline() for d in diags]

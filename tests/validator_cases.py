"""The validator's case table: every rule's cases, one table for the whole validator.

A case is a small module made from one of the valid base modules (KHR_BASE, NV_BASE: SPV_KHR/NV_cooperative_matrix;
CM2_BASE: SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing, tests/data/validate/coopmat2/base.spvasm;
FLOAT_BASE, COOP_BASE, H100_BASE: SPV_KHR_bfloat16, SPV_EXT_float8, SPV_QCOM_cooperative_matrix_conversion) by
adding lines (types, function body, functions, annotations) or replacing text. It names the rule it exercises,
whether the module must fail that rule ("fail"), get a warning from it ("warn"), or pass it ("pass": the rule
runs on an instruction it checks and reports nothing), and what spirv-val 2025.5 is expected to say: "same"
(invalid exactly when we report an error), "lax" (spirv-val accepts what we reject: docs/divergences.md,
"Stricter than spirv-val"), "strict" (spirv-val rejects what the spec allows: a false positive we do not copy),
or None (not compared: the case exercises a rule outside spirv-val's checks, e.g. a device profile).

tests/validator/test_validate_rules.py requires a failing and a passing case for every registered rule; the cases run in
test_validate_rules.py (RULE_CASES), test_validate_coopmat2.py (COOPMAT2_CASES) and test_validate_floats_qcom.py
(FLOAT_QCOM_CASES), each with its own comparisons (spirv-val, spirv-as, spirv-dis).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import spvcoop
from spvcoop.validator import validate


@dataclass
class Case:
    name: str
    rule: str
    expect: str                    # "fail", "warn" or "pass"
    base: str = "khr"              # a key of BASES
    types: str = ""                # lines added after the base types
    body: str = ""                 # lines added at the end of the function body
    funcs: str = ""                # functions added after main (CM2_BASE); their OpTypeFunction lines go to the types
    annotations: str = ""
    sub: list = field(default_factory=list)  # (old, new) replacements in the base text
    env: str = "universal"         # validator target environment
    spec: dict | None = None       # --spec-const values
    profile: str | None = None
    ref: str | None = "same"       # spirv-val 2025.5 comparison, see the module docstring
    asm_env: str | None = None     # assemble for this environment (default: `env`, spv1.6 for universal)

    def text(self) -> str:
        t = BASES[self.base]
        for old, new in self.sub:
            assert old in t, (self.name, old)
            t = t.replace(old, new, 1)
        ftypes = [ln for ln in self.funcs.split("\n") if "= OpTypeFunction" in ln]
        funcs = "\n".join(ln for ln in self.funcs.split("\n") if "= OpTypeFunction" not in ln)
        types = "\n".join([self.types, *ftypes])
        t = t.replace("; @annotations\n", self.annotations + "\n")
        t = t.replace("; @types\n", types + "\n")
        t = t.replace("; @body\n", self.body + "\n")
        return t.replace("; @funcs\n", funcs + "\n")

    @property
    def target_env(self) -> str:
        return self.asm_env or ("spv1.6" if self.env == "universal" else self.env)


def run_case(case: Case):
    """The case's module and our rules' findings on it (spirv-val's part of a report is tested in
    test_validate_spirv_val.py; each case file compares these findings with spirv-val's verdict)."""
    module = spvcoop.assemble(case.text(), f"{case.name}.spvasm", target_env=case.target_env)
    return module, validate(module, case.env, case.spec, case.profile, spirv_val=False)


# ==== SPV_KHR_cooperative_matrix, SPV_NV_cooperative_matrix, structure, scopes, profiles =========================

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


def C(name, rule, expect, **kw) -> Case:
    """A case made from KHR_BASE (base="nv": NV_BASE)."""
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


RULE_CASES: list[Case] = [
    C("khr_base", "*", "pass"),
    C("nv_base", "*", "pass", base="nv"),
    # ---- structure ----
    C("undefined_id", "structure.id.defined", "fail", body="%x = OpFAdd %matC %d %nowhere", ref=None),
    C("defined_id", "structure.id.defined", "pass", body="%x = OpFAdd %matC %d %c"),
    C("defined_twice", "structure.id.defined_once", "fail", body="%x = OpFAdd %matC %d %c\n%x = OpFAdd %matC %d %c"),
    C("defined_once", "structure.id.defined_once", "pass", body="%x = OpFAdd %matC %d %c\n%y = OpFAdd %matC %d %c"),
    C("used_before_def", "structure.id.order", "fail", body="%x = OpFAdd %matC %y %c\n%y = OpFAdd %matC %d %c"),
    C("used_after_def", "structure.id.order", "pass", body="%y = OpFAdd %matC %d %c\n%x = OpFAdd %matC %y %c"),
    C("result_type_not_type", "structure.result_type", "fail", body="%x = OpFAdd %c16 %d %c", ref=None),
    C("result_type_is_type", "structure.result_type", "pass", body="%x = OpFAdd %matC %d %c"),
    C("no_capability", "structure.capability.opcode", "fail",
      sub=[("OpCapability CooperativeMatrixKHR\n", "")], ref="same"),
    C("capability_declared", "structure.capability.opcode", "pass"),
    C("no_extension_khr", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_KHR_cooperative_matrix"\n', "")]),
    C("extension_declared_nv", "structure.capability.extension", "pass", base="nv"),
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
    C("khr_vmm", "coopmat.khr.vulkan_memory_model", "pass"),
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
    C("use_accumulator", "coopmat.type.use.value", "pass", types="%m = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c16 %useAcc"),
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
    C("ptr_type_function", "coopmat.pointer_type.storage", "pass", types="%p_fn = OpTypePointer Function %matC",
      sub=[("      %entry = OpLabel", "      %entry = OpLabel\n%fv = OpVariable %p_fn Function")], body="OpStore %fv %d"),
    # ---- 1D load/store ----
    C("load_result_scalar", "coopmat.load.result_type", "fail", body="%x = OpCooperativeMatrixLoadKHR %f32 %ptr %rowmajor %stride"),
    C("load_result_matrix", "coopmat.load.result_type", "pass", body="%x = OpCooperativeMatrixLoadKHR %matA %ptr %rowmajor %stride"),
    C("load_result_nv_type", "coopmat.load.result_type", "fail", base="nv",
      body="%x = OpCooperativeMatrixLoadNV %f32 %ptr %stride %false"),
    C("store_object_scalar", "coopmat.store.object_type", "fail", body="OpCooperativeMatrixStoreKHR %ptr %f1 %rowmajor %stride"),
    C("store_object_matrix", "coopmat.store.object_type", "pass", body="OpCooperativeMatrixStoreKHR %ptr %c %colmajor %stride"),
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
    C("khr_ptr_into_array", "coopmat.pointer.into_array", "pass", body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride"),
    C("stride_float", "coopmat.stride.type", "fail", body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %f1"),
    C("stride_dynamic", "coopmat.stride.type", "pass", base="nv",
      body="%ds = OpIAdd %u32 %stride %stride\n%x = OpCooperativeMatrixLoadNV %matC %ptr %ds %false"),
    C("store_stride_zero", "coopmat.stride.positive", "fail", ref="lax", body="OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %u0"),
    C("store_stride_eight", "coopmat.stride.positive", "pass", body="OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %c8"),
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
    C("layout_with_stride", "coopmat.khr.layout_stride", "pass", body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %colmajor %stride"),
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
    C("makevisible_nonprivate", "coopmat.memaccess.nonprivate", "pass", types="%wgs = OpConstant %u32 2",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride MakePointerVisible|NonPrivatePointer %wgs"),
    C("makevisible_scope_42", "coopmat.memaccess.scope", "fail", types="%s42 = OpConstant %u32 42",
      body="%x = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride MakePointerVisible|NonPrivatePointer %s42"),
    C("makevisible_scope_workgroup", "coopmat.memaccess.scope", "pass", types="%wgs = OpConstant %u32 2",
      body="OpCooperativeMatrixStoreKHR %ptr %d %rowmajor %stride MakePointerAvailable|NonPrivatePointer %wgs"),
    C("aligned_6", "coopmat.memaccess.aligned", "fail", base="nv",
      body="%x = OpCooperativeMatrixLoadNV %matC %ptr %stride %false Aligned 6"),
    C("aligned_16", "coopmat.memaccess.aligned", "pass", base="nv", body="%x = OpCooperativeMatrixLoadNV %matC %ptr %stride %false Aligned 16"),
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
    C("muladd_matrix_operands", "coopmat.muladd.operand_type", "pass", body="%x = OpCooperativeMatrixMulAddKHR %matC %a %b %c"),
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
    C("muladd_m_ok", "coopmat.muladd.m", "pass", body="%x = OpCooperativeMatrixMulAddKHR %matC %a %b %d"),
    C("muladd_n", "coopmat.muladd.n", "fail", base="nv", body="%x = OpCooperativeMatrixMulAddNV %matC %a %a %c"),
    C("muladd_n_ok", "coopmat.muladd.n", "pass", base="nv", body="%x = OpCooperativeMatrixMulAddNV %matC %a %b %d"),
    C("muladd_k", "coopmat.muladd.k", "fail", base="nv",
      types="%mB8 = OpTypeCooperativeMatrixNV %f16 %subgroup %c8 %c8",
      body="%b8 = OpCooperativeMatrixLoadNV %mB8 %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %a %b8 %c"),
    C("muladd_k_ok", "coopmat.muladd.k", "pass", base="nv", body="%x = OpCooperativeMatrixMulAddNV %matC %a %b %c"),
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
    C("muladd_scope_same", "coopmat.muladd.scope", "pass", base="nv",
      body="%cs = OpCooperativeMatrixLoadNV %matC %ptr %stride %false\n%x = OpCooperativeMatrixMulAddNV %matC %a %b %cs"),
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
    C("mts_float", "coopmat.matrix_times_scalar.int", "pass", base="nv", body="%x = OpMatrixTimesScalar %matC %d %f1"),
    C("dot_coopmat", "coopmat.op.unsupported", "fail", base="nv", body="%x = OpDot %f32 %d %d"),
    C("fadd_coopmat", "coopmat.op.unsupported", "pass", base="nv", body="%x = OpFAdd %matC %d %d"),
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
    C("convert_coopmat_to_coopmat", "coopmat.convert.both", "pass", base="nv", types=NV_MATI, body="%x = OpConvertFToS %matCi %d"),
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
    C("fconvert_narrower", "coopmat.convert.width", "pass", base="nv", body="%x = OpFConvert %matB %d"),
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
    C("bitcast_int_to_uint", "coopmat.bitcast.integer", "pass", types=MATI, body="%i = OpConvertFToS %matCi %d\n%x = OpBitcast %matCu %i"),
    C("bitcast_float_from_int", "coopmat.bitcast.integer", "fail", ref="lax", types=MATI,
      body="%i = OpConvertFToS %matCi %d\n%x = OpBitcast %matC %i"),
    C("bitcast_nv", "coopmat.bitcast.kind", "warn", base="nv", types=NV_MATI, body="%x = OpBitcast %matCu %d"),
    C("bitcast_khr", "coopmat.bitcast.kind", "pass", types=MATI, body="%i = OpConvertFToS %matCi %d\n%x = OpBitcast %matCu %i"),
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
    C("replicate_component", "coopmat.construct.replicate", "pass", ref=None,
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability ReplicatedCompositesEXT"),
           ('OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_EXT_replicated_composites"')],
      body="%x = OpCompositeConstructReplicateEXT %matC %f1"),
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


# ==== SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing ====================================================

CM2_BASE = (Path(__file__).parent / "data" / "validate" / "coopmat2" / "base.spvasm").read_text()

# extra types most cases use
MATS = """%c4 = OpConstant %u32 4
%wg = OpConstant %u32 2
%matA32 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useA
%matB32 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useB
%matBT32 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c8 %c16 %useB
%matAT = OpTypeCooperativeMatrixKHR %f16 %subgroup %c8 %c16 %useA
%matCT = OpTypeCooperativeMatrixKHR %f16 %subgroup %c8 %c16 %useAcc
%matCi = OpTypeCooperativeMatrixKHR %u32 %subgroup %c16 %c8 %useAcc
%matCwg = OpTypeCooperativeMatrixKHR %f32 %wg %c16 %c8 %useAcc
%matBwg = OpTypeCooperativeMatrixKHR %f16 %wg %c8 %c16 %useB
%matC88 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c8 %c8 %useAcc
%matC164 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c4 %useAcc
%matC84 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c8 %c4 %useAcc
%matC48 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c4 %c8 %useAcc
%lay1 = OpTypeTensorLayoutNV %c1 %u0
%f1 = OpConstant %f32 1
%h1 = OpConstant %f16 1"""

NV_TYPES = [("OpCapability CooperativeMatrixKHR", "OpCapability CooperativeMatrixKHR\nOpCapability CooperativeMatrixNV"),
            ('OpExtension "SPV_KHR_cooperative_matrix"',
             'OpExtension "SPV_KHR_cooperative_matrix"\nOpExtension "SPV_NV_cooperative_matrix"')]
INT64 = [("OpCapability Float16", "OpCapability Float16\nOpCapability Int64")]


def func(name: str, ret: str, *params: str, body: str = "", decorate_first: str = "", ftype: str = "") -> str:
    """An OpFunction `name` returning an undefined `ret`, of type `ftype` (the base module's %combinefn or
    %elemfn: types are unique) or of a new OpTypeFunction `%name_t`."""
    first = decorate_first or f"%{name}_p0"
    lines = [] if ftype else [f"%{name}_t = OpTypeFunction {ret} {' '.join(params)}"]
    lines += [f"%{name} = OpFunction {ret} None {ftype or f'%{name}_t'}"]
    lines += [f"{first if i == 0 else f'%{name}_p{i}'} = OpFunctionParameter {p}" for i, p in enumerate(params)]
    lines += [f"%{name}_e = OpLabel", body, f"%{name}_u = OpUndef {ret}", f"OpReturnValue %{name}_u", "OpFunctionEnd"]
    return "\n".join(lines)


# DecodeFunc needs PhysicalStorageBuffer pointers (and Restrict on such parameters)
CM2_PSB = [("OpCapability Shader", "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses\n"
        "OpCapability CooperativeMatrixBlockLoadsNV"),
       ("OpMemoryModel Logical Vulkan", "OpMemoryModel PhysicalStorageBuffer64 Vulkan"),
       ("OpDecorate %ssbo Binding 0", "OpDecorate %ssbo Binding 0\nOpDecorate %dp Restrict")]
CM2_PSB_TYPES = ("%p_psb = OpTypePointer PhysicalStorageBuffer %f32\n%arr2 = OpTypeArray %u32 %c2\n"
             "%arr1 = OpTypeArray %u32 %c1\n%arr2f = OpTypeArray %f32 %c2")
# a PhysicalStorageBuffer array at a constant address
PSB_ADDR = [("OpCapability Shader", "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses\nOpCapability Int64"),
            ("OpMemoryModel Logical Vulkan", "OpMemoryModel PhysicalStorageBuffer64 Vulkan"),
            ("OpDecorate %ssbo Binding 0", "OpDecorate %ssbo Binding 0\nOpDecorate %psbarr ArrayStride 4")]
PSB_ARRAY = ("%p_psb = OpTypePointer PhysicalStorageBuffer %f32\n%u64 = OpTypeInt 64 0\n%addr = OpConstant %u64 4096\n"
             "%psbarr = OpTypeRuntimeArray %f32\n%p_psbarr = OpTypePointer PhysicalStorageBuffer %psbarr")
PSB_PTR = "%pp = OpConvertUToPtr %p_psbarr %addr\n%pe = OpAccessChain %p_psb %pp %i0"
WG_PTR_TYPES = ("%p_wg = OpTypePointer Workgroup %f32\n%wgarr = OpTypeArray %f32 %c16\n"
                "%p_wgarr = OpTypePointer Workgroup %wgarr\n%wgv = OpVariable %p_wgarr Workgroup")
WG_IFACE = [('OpEntryPoint GLCompute %main "main" %ssbo', 'OpEntryPoint GLCompute %main "main" %ssbo %wgv')]


def decode(*params: str, ret: str = "%f32") -> str:
    return func("dec", ret, *params, decorate_first="%dp")


# the profile cases drop the 8x16 MatrixB transpose of the base module: the H100 has no such size
PROFILE_SUB = [("      %matBT = OpTypeCooperativeMatrixKHR %f16 %subgroup %c8 %c16 %useB\n", ""),
               ("         %tr = OpCooperativeMatrixTransposeNV %matBT %h\n", "")]
FLEX_TYPES = """%wg = OpConstant %u32 2
%c24 = OpConstant %u32 24
%c32 = OpConstant %u32 32
%c48 = OpConstant %u32 48
%c2048 = OpConstant %u32 2048
%mA = OpTypeCooperativeMatrixKHR %f16 {scope} {m} {k} %useA
%mB = OpTypeCooperativeMatrixKHR %f16 {scope} {k} {n} %useB
%mC = OpTypeCooperativeMatrixKHR %f32 {scope} {m} {n} %useAcc"""
FLEX_MULADD = "%fa = OpUndef %mA\n%fb = OpUndef %mB\n%fc = OpUndef %mC\n%fd = OpCooperativeMatrixMulAddKHR %mC %fa %fb %fc"


def P(name, rule, expect, sub=PROFILE_SUB, **kw) -> Case:
    """A case validated with the nvidia-h100 profile (not compared with spirv-val: a device question)."""
    kw.setdefault("env", "spv1.6")
    return Case(name, rule, expect, base="cm2", sub=list(sub), profile="nvidia-h100", ref=None, **kw)


def C2(name, rule, expect, **kw) -> Case:
    """A case made from CM2_BASE with the matrix types most cases use (MATS), assembled and validated for SPIR-V 1.6."""
    kw.setdefault("types", MATS)
    kw.setdefault("env", "spv1.6")
    return Case(name, rule, expect, base="cm2", **kw)


COOPMAT2_CASES: list[Case] = [
    C2("cm2_base", "*", "pass"),
    C2("cm2_base_vulkan", "*", "pass", env="vulkan1.3"),
    # ---- SPIR-V version ----
    C2("version_spv15", "coopmat2.version", "fail", env="spv1.5", ref="lax"),
    C2("version_spv16", "coopmat2.version", "pass"),
    # ---- tensor types ----
    C2("layout_dim_zero", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%c0 = OpConstant %u32 0\n%lz = OpTypeTensorLayoutNV %c0 %constant"),
    C2("layout_dim_six", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%c6 = OpConstant %u32 6\n%lz = OpTypeTensorLayoutNV %c6 %constant"),
    C2("layout_dim_five", "coopmat2.tensor.type.dim", "pass", types=MATS + "\n%c5 = OpConstant %u32 5\n%lz = OpTypeTensorLayoutNV %c5 %constant"),
    C2("layout_dim_u64", "coopmat2.tensor.type.dim", "fail", sub=INT64, types=MATS + "\n%u64 = OpTypeInt 64 0\n%d2 = OpConstant %u64 2\n%lz = OpTypeTensorLayoutNV %d2 %constant"),
    C2("layout_dim_float", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%lz = OpTypeTensorLayoutNV %f1 %constant"),
    C2("layout_dim_signed", "coopmat2.tensor.type.dim", "pass", types=MATS + "\n%s2 = OpConstant %i32 2\n%lz = OpTypeTensorLayoutNV %s2 %constant"),
    C2("layout_dim_spec_nine", "coopmat2.tensor.type.dim", "warn", types=MATS + "\n%s9 = OpSpecConstant %u32 9\n%lz = OpTypeTensorLayoutNV %s9 %constant"),
    C2("view_dim_zero", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%c0 = OpConstant %u32 0\n%vz = OpTypeTensorViewNV %c0 %false"),
    C2("layout_dim_undef", "coopmat2.tensor.type.constant", "fail", ref="lax", types=MATS + "\n%un = OpUndef %u32\n%lz = OpTypeTensorLayoutNV %un %constant"),
    C2("view_perm_undef", "coopmat2.tensor.type.constant", "fail", ref="lax", types=MATS + "\n%un = OpUndef %u32\n%vz = OpTypeTensorViewNV %c2 %false %u0 %un"),
    C2("view_spec_constants", "coopmat2.tensor.type.constant", "pass", types=MATS + "\n%sb = OpSpecConstantTrue %bool\n%s1 = OpSpecConstant %u32 1\n%vz = OpTypeTensorViewNV %c2 %sb %u0 %s1"),
    C2("layout_clamp_five", "coopmat2.tensor.layout.clamp_mode", "fail", types=MATS + "\n%c5 = OpConstant %u32 5\n%lz = OpTypeTensorLayoutNV %c2 %c5"),
    C2("layout_clamp_mirrored", "coopmat2.tensor.layout.clamp_mode", "pass", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %c4"),
    C2("layout_clamp_bool", "coopmat2.tensor.layout.clamp_mode", "fail", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %false"),
    C2("layout_clamp_spec_seven", "coopmat2.tensor.layout.clamp_mode", "warn", types=MATS + "\n%s7 = OpSpecConstant %u32 7\n%lz = OpTypeTensorLayoutNV %c2 %s7"),
    C2("view_hasdim_uint", "coopmat2.tensor.view.has_dimensions", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %u0 %u0 %c1"),
    C2("view_hasdim_true", "coopmat2.tensor.view.has_dimensions", "pass", types=MATS + "\n%true = OpConstantTrue %bool\n%vz = OpTypeTensorViewNV %c2 %true %u0 %c1"),
    C2("view_perm_repeated", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %u0"),
    C2("view_perm_out_of_range", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %c2"),
    C2("view_perm_too_few", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0"),
    C2("view_perm_too_many", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %c1 %c2"),
    C2("view_perm_u64", "coopmat2.tensor.view.permutation", "fail", sub=INT64, types=MATS + "\n%u64 = OpTypeInt 64 0\n%p1 = OpConstant %u64 1\n%vz = OpTypeTensorViewNV %c2 %false %u0 %p1"),
    C2("view_perm_swapped", "coopmat2.tensor.view.permutation", "pass", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %c1 %u0"),
    C2("view_perm_spec_repeated", "coopmat2.tensor.view.permutation", "warn", types=MATS + "\n%s0 = OpSpecConstant %u32 0\n%vz = OpTypeTensorViewNV %c2 %false %u0 %s0"),
    C2("layout_duplicate", "coopmat2.tensor.type.duplicate", "fail", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %constant"),
    C2("view_duplicate", "coopmat2.tensor.type.duplicate", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %c1"),
    C2("layout_other_clamp", "coopmat2.tensor.type.duplicate", "pass", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %u0"),
    # ---- tensor layout / view instructions ----
    C2("create_layout_of_view", "coopmat2.tensor.result_type", "fail", body="%x = OpCreateTensorLayoutNV %view"),
    C2("create_view_of_u32", "coopmat2.tensor.result_type", "fail", body="%x = OpCreateTensorViewNV %u32"),
    C2("setdim_result_view", "coopmat2.tensor.result_type", "fail", body="%x = OpTensorLayoutSetDimensionNV %view %V0 %c16 %c16"),
    C2("create_layout_other_type", "coopmat2.tensor.result_type", "pass", body="%x = OpCreateTensorLayoutNV %lay1"),
    C2("setdim_other_layout_type", "coopmat2.tensor.source_type", "fail", body="%x = OpTensorLayoutSetDimensionNV %lay1 %L0 %c16"),
    C2("viewdim_from_layout", "coopmat2.tensor.source_type", "fail", body="%x = OpTensorViewSetDimensionNV %view %L0 %c16 %c8"),
    C2("setdim_same_type", "coopmat2.tensor.source_type", "pass", body="%Lz = OpCreateTensorLayoutNV %lay1\n%x = OpTensorLayoutSetDimensionNV %lay1 %Lz %c16"),
    C2("setdim_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %c16"),
    C2("setdim_three_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %c16 %c16 %c16"),
    C2("setstride_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetStrideNV %layout %L0 %c16"),
    C2("setblock_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetBlockSizeNV %layout %L0 %c16"),
    C2("slice_two_of_four", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSliceNV %layout %L0 %c16 %c16"),
    C2("viewdim_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorViewSetDimensionNV %view %V0 %c16"),
    C2("viewstride_three_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorViewSetStrideNV %view %V0 %c16 %c16 %c1"),
    C2("setdim_spec_dim_count", "coopmat2.tensor.operand_count", "warn",
      types=MATS + "\n%s3 = OpSpecConstant %u32 3\n%lay3 = OpTypeTensorLayoutNV %s3 %u0",
      body="%Lz = OpCreateTensorLayoutNV %lay3\n%x = OpTensorLayoutSetDimensionNV %lay3 %Lz %c16 %c16"),
    C2("setdim_one_dim_layout", "coopmat2.tensor.operand_count", "pass", body="%Lz = OpCreateTensorLayoutNV %lay1\n%x = OpTensorLayoutSliceNV %lay1 %Lz %u0 %c16"),
    C2("setdim_float", "coopmat2.tensor.operand_int32", "fail", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %f1 %c16"),
    C2("setdim_u64", "coopmat2.tensor.operand_int32", "fail", sub=INT64, types=MATS + "\n%u64 = OpTypeInt 64 0\n%l1 = OpConstant %u64 1", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %l1 %c16"),
    C2("clampvalue_f16", "coopmat2.tensor.operand_int32", "fail", body="%x = OpTensorLayoutSetClampValueNV %layout %L0 %h1"),
    C2("viewclip_float", "coopmat2.tensor.operand_int32", "fail", body="%x = OpTensorViewSetClipNV %view %V0 %c16 %f1 %u0 %u0"),
    C2("setdim_runtime_signed", "coopmat2.tensor.operand_int32", "pass", body="%ld = OpLoad %f32 %ptr\n%lc = OpConvertFToS %i32 %ld\n%x = OpTensorLayoutSetDimensionNV %layout %L0 %lc %lc"),
    C2("setstride_overlapping", "coopmat2.tensor.layout_stride", "fail", ref="lax",
      body="%x = OpTensorLayoutSetStrideNV %layout %L1 %c8 %c1"),
    C2("setstride_blocks", "coopmat2.tensor.layout_stride", "pass",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L1 %c1 %c2\n%x = OpTensorLayoutSetStrideNV %layout %Lb %c8 %c1"),
    C2("setstride_blocks_too_small", "coopmat2.tensor.layout_stride", "fail", ref="lax",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L1 %c1 %c4\n%x = OpTensorLayoutSetStrideNV %layout %Lb %c2 %c1"),
    C2("setstride_runtime", "coopmat2.tensor.layout_stride", "pass",
      body="%ld = OpLoad %f32 %ptr\n%lc = OpConvertFToU %u32 %ld\n%x = OpTensorLayoutSetStrideNV %layout %L1 %lc %c1"),
    C2("setstride_before_dimension", "coopmat2.tensor.layout_stride", "pass",
      body="%x = OpTensorLayoutSetStrideNV %layout %L0 %c1 %c1"),
    # ---- Reduce ----
    C2("reduce_result_scalar", "coopmat2.reduce.type", "fail", body="%x = OpCooperativeMatrixReduceNV %f32 %t2 Row|Column %combine"),
    C2("reduce_result_matrix", "coopmat2.reduce.type", "pass", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %combine"),
    C2("reduce_matrix_scalar", "coopmat2.reduce.type", "fail", body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixReduceNV %matC %s Row|Column %combine"),
    C2("reduce_component", "coopmat2.reduce.type", "fail", body="%x = OpCooperativeMatrixReduceNV %matCi %t2 Row|Column %combine"),
    C2("reduce_result_use_a", "coopmat2.reduce.use", "fail", body="%x = OpCooperativeMatrixReduceNV %matA32 %t2 Row|Column %combine"),
    C2("reduce_result_accumulator", "coopmat2.reduce.use", "pass", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %combine"),
    C2("reduce_matrix_use_a", "coopmat2.reduce.use", "fail", body="%a = OpCooperativeMatrixLoadKHR %matA32 %ptr %rowmajor %stride\n%x = OpCooperativeMatrixReduceNV %matC %a Row|Column %combine"),
    C2("reduce_scope", "coopmat2.reduce.scope", "fail", body="%x = OpCooperativeMatrixReduceNV %matCwg %t2 Row|Column %combine"),
    # spirv-val compares the Scope <id>s, not their values (false positive S5)
    C2("reduce_scope_same_value", "coopmat2.reduce.scope", "pass", ref="strict",
      types=MATS + "\n%sg2 = OpConstant %u32 3\n%matCs = OpTypeCooperativeMatrixKHR %f32 %sg2 %c16 %c8 %useAcc",
      body="%x = OpCooperativeMatrixReduceNV %matCs %t2 Row|Column %combine"),
    C2("reduce_2x2_with_row", "coopmat2.reduce.mode", "fail", body="%x = OpCooperativeMatrixReduceNV %matC84 %t2 Row|2x2 %combine"),
    C2("reduce_row_and_column", "coopmat2.reduce.mode", "pass", body="%x = OpCooperativeMatrixReduceNV %matC48 %t2 Row|Column %combine"),
    C2("reduce_row_rows", "coopmat2.reduce.shape", "fail", body="%x = OpCooperativeMatrixReduceNV %matC88 %t2 Row %combine"),
    C2("reduce_row_ok", "coopmat2.reduce.shape", "pass", body="%x = OpCooperativeMatrixReduceNV %matC164 %t2 Row %combine"),
    C2("reduce_column_columns", "coopmat2.reduce.shape", "fail", body="%x = OpCooperativeMatrixReduceNV %matC164 %t2 Column %combine"),
    C2("reduce_column_ok", "coopmat2.reduce.shape", "pass", body="%x = OpCooperativeMatrixReduceNV %matC88 %t2 Column %combine"),
    C2("reduce_2x2_not_half", "coopmat2.reduce.shape", "fail", body="%x = OpCooperativeMatrixReduceNV %matC48 %t2 2x2 %combine"),
    C2("reduce_2x2_half", "coopmat2.reduce.shape", "pass", body="%x = OpCooperativeMatrixReduceNV %matC84 %t2 2x2 %combine"),
    C2("reduce_combine_constant", "coopmat2.reduce.combine", "fail", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %c1"),
    C2("reduce_combine_function", "coopmat2.reduce.combine", "pass", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %combine"),
    C2("reduce_combine_three_params", "coopmat2.reduce.combine", "fail", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %perelem"),
    C2("reduce_combine_f16", "coopmat2.reduce.combine", "fail", funcs=func("comb16", "%f16", "%f16", "%f16"),
      body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %comb16"),
    C2("reduce_combine_mixed", "coopmat2.reduce.combine", "fail", funcs=func("combmix", "%f32", "%f32", "%f16"),
      body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %combmix"),
    # ---- PerElementOp ----
    C2("pe_matrix_scalar", "coopmat2.per_element.matrix", "fail", body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %f32 %s %perelem"),
    C2("pe_result_type", "coopmat2.per_element.matrix", "fail", body="%x = OpCooperativeMatrixPerElementOpNV %matCi %t2 %perelem"),
    C2("pe_use_a", "coopmat2.per_element.matrix", "pass", body="%a = OpCooperativeMatrixLoadKHR %matA32 %ptr %rowmajor %stride\n%x = OpCooperativeMatrixPerElementOpNV %matA32 %a %perelem"),
    C2("pe_func_constant", "coopmat2.per_element.func", "fail", body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %c1"),
    C2("pe_func_float_row", "coopmat2.per_element.func", "fail", funcs=func("ef", "%f32", "%f32", "%u32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ef"),
    C2("pe_func_two_params", "coopmat2.per_element.func", "fail", funcs=func("e2", "%f32", "%u32", "%u32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %e2"),
    C2("pe_func_returns_f16", "coopmat2.per_element.func", "fail", funcs=func("eh", "%f16", "%u32", "%u32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %eh"),
    C2("pe_func_element_f16", "coopmat2.per_element.func", "fail", funcs=func("e3", "%f32", "%u32", "%u32", "%f16"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %e3"),
    C2("pe_func_signed_row", "coopmat2.per_element.func", "pass", funcs=func("es", "%f32", "%i32", "%i32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %es"),
    C2("pe_extra_missing", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex"),
    C2("pe_extra_too_many", "coopmat2.per_element.operands", "fail", ref="lax",
      body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %perelem %s"),
    C2("pe_extra_wrong_type", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("exu", "%f32", "%u32", "%u32", "%f32", "%u32"),
      body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %exu %s"),
    C2("pe_extra_matrix_component", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex %h"),
    C2("pe_extra_matrix_shape", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%m8 = OpUndef %matC88\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex %m8"),
    C2("pe_extra_matrix_use", "coopmat2.per_element.operands", "fail", ref="lax",
      funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%ma = OpUndef %matA32\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex %ma"),
    C2("pe_extra_scalar_and_matrix", "coopmat2.per_element.operands", "pass",
      funcs=func("ex2", "%f32", "%u32", "%u32", "%f32", "%f32", "%f32"),
      body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex2 %s %t"),
    # ---- Transpose / ConvertNV ----
    C2("transpose_scalar", "coopmat2.change_use.type", "fail", body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixTransposeNV %matBT %s"),
    C2("transpose_matrix", "coopmat2.change_use.type", "pass", body="%x = OpCooperativeMatrixTransposeNV %matBT %h"),
    C2("convert_to_scalar", "coopmat2.change_use.type", "fail", body="%x = OpCooperativeMatrixConvertNV %f16 %h"),
    C2("convert_nv_types", "coopmat2.change_use.khr", "fail", ref="lax", sub=NV_TYPES,
      types=MATS + "\n%nvC = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8", body="%n = OpUndef %nvC\n%x = OpCooperativeMatrixConvertNV %nvC %n"),
    C2("convert_khr_types", "coopmat2.change_use.khr", "pass", body="%x = OpCooperativeMatrixConvertNV %matB %h"),
    C2("transpose_not_swapped", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixTransposeNV %matB %h"),
    C2("transpose_scope", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixTransposeNV %matBwg %h"),
    C2("convert_shape", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixConvertNV %matBT %h"),
    C2("convert_component", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixConvertNV %matB32 %h"),
    C2("convert_to_a", "coopmat2.change_use.shape", "pass",
      types=MATS + "\n%matAh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useA", body="%x = OpCooperativeMatrixConvertNV %matAh %h"),
    C2("transpose_to_a", "coopmat2.change_use.use", "fail", body="%x = OpCooperativeMatrixTransposeNV %matAT %h"),
    C2("transpose_to_acc", "coopmat2.change_use.use", "fail", body="%x = OpCooperativeMatrixTransposeNV %matCT %h"),
    C2("convert_b_to_a", "coopmat2.change_use.use", "fail", body="%x = OpCooperativeMatrixConvertNV %matAT %tr"),
    C2("convert_acc_to_b", "coopmat2.change_use.use", "pass", body="%x = OpCooperativeMatrixConvertNV %matB %h"),
    C2("transpose_from_b", "coopmat2.change_use.from_accumulator", "fail", ref="lax", body="%x = OpCooperativeMatrixTransposeNV %matBT %cb"),
    C2("transpose_from_accumulator", "coopmat2.change_use.from_accumulator", "pass", body="%x = OpCooperativeMatrixTransposeNV %matBT %h"),
    C2("convert_acc_to_acc", "coopmat2.change_use.from_accumulator", "fail", ref="lax", body="%x = OpCooperativeMatrixConvertNV %matCh %h"),
    C2("convert_b_to_b", "coopmat2.change_use.from_accumulator", "fail", ref="lax", body="%x = OpCooperativeMatrixConvertNV %matB %cb"),
    C2("transpose_component", "coopmat2.transpose.component", "warn", ref="lax", body="%x = OpCooperativeMatrixTransposeNV %matBT32 %h"),
    C2("transpose_same_component", "coopmat2.transpose.component", "pass", body="%x = OpCooperativeMatrixTransposeNV %matBT %h"),
    # conversions that change Use (SPV_NV_cooperative_matrix2 relaxes Op*Convert, not OpBitcast)
    C2("fconvert_acc_to_a", "coopmat.convert.shape", "pass", body="%x = OpFConvert %matA32 %h"),
    C2("ftou_acc_to_a", "coopmat.convert.shape", "pass",
      types=MATS + "\n%matAi = OpTypeCooperativeMatrixKHR %u32 %subgroup %c16 %c8 %useA", body="%x = OpConvertFToU %matAi %t2"),
    C2("fconvert_b_to_a", "coopmat.convert.shape", "fail",
      body="%b = OpCooperativeMatrixLoadKHR %matB32 %ptr %rowmajor %stride\n%x = OpFConvert %matA %b".replace("%matA %b", "%matAT %b").replace("%matB32 %ptr", "%matB32 %ptr")),
    C2("fconvert_a_to_acc", "coopmat.convert.shape", "fail", body="%a = OpCooperativeMatrixLoadKHR %matA32 %ptr %rowmajor %stride\n%x = OpFConvert %matCh %a"),
    C2("fconvert_acc_to_a_without_cap", "coopmat.convert.shape", "fail", body="%x = OpFConvert %matA32 %h",
      sub=[("OpCapability CooperativeMatrixConversionsNV\n", ""),
           ("         %cb = OpCooperativeMatrixConvertNV %matB %h\n         %tr = OpCooperativeMatrixTransposeNV %matBT %h\n", "")]),
    C2("bitcast_acc_to_a", "coopmat.convert.shape", "fail", body="%x = OpBitcast %matA32 %t2"),
    # ---- LoadTensor / StoreTensor ----
    C2("lt_result_scalar", "coopmat2.tensor_access.matrix", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %f32 %ptr %c %L5 None None"),
    C2("lt_result_nv", "coopmat2.tensor_access.matrix", "fail", sub=NV_TYPES, types=MATS + "\n%nvC = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8",
      body="%n = OpUndef %nvC\n%x = OpCooperativeMatrixLoadTensorNV %nvC %ptr %n %L5 None None"),
    C2("st_object_scalar", "coopmat2.tensor_access.matrix", "fail", body="%s = OpLoad %f32 %ptr\nOpCooperativeMatrixStoreTensorNV %ptr %s %L5 None None"),
    C2("lt_use_a", "coopmat2.tensor_access.matrix", "pass", body="%a = OpUndef %matA32\n%x = OpCooperativeMatrixLoadTensorNV %matA32 %ptr %a %L5 None None"),
    C2("lt_object_type", "coopmat2.tensor_load.object", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %h %L5 None None"),
    C2("lt_object_f16", "coopmat2.tensor_load.object", "pass", body="%x = OpCooperativeMatrixLoadTensorNV %matCh %ptr %h %L5 None None"),
    C2("lt_pointer_constant", "coopmat2.tensor_access.pointer", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %c1 %c %L5 None None"),
    C2("lt_pointer_function", "coopmat2.tensor_access.pointer", "fail",
      types=MATS + "\n%p_fn = OpTypePointer Function %f32\n%farr = OpTypeArray %f32 %c16\n%p_farr = OpTypePointer Function %farr",
      sub=[("      %entry = OpLabel\n", "      %entry = OpLabel\n%fv = OpVariable %p_farr Function\n")],
      body="%fp = OpAccessChain %p_fn %fv %u0\n%x = OpCooperativeMatrixLoadTensorNV %matC %fp %c %L5 None None"),
    C2("st_pointer_function", "coopmat2.tensor_access.pointer", "fail",
      types=MATS + "\n%p_fn = OpTypePointer Function %f32\n%farr = OpTypeArray %f32 %c16\n%p_farr = OpTypePointer Function %farr",
      sub=[("      %entry = OpLabel\n", "      %entry = OpLabel\n%fv = OpVariable %p_farr Function\n")],
      body="%fp = OpAccessChain %p_fn %fv %u0\nOpCooperativeMatrixStoreTensorNV %fp %p %L5 None None"),
    C2("lt_pointer_workgroup", "coopmat2.tensor_access.pointer", "pass", types=MATS + "\n" + WG_PTR_TYPES, sub=WG_IFACE,
      body="%wp = OpAccessChain %p_wg %wgv %u0\n%x = OpCooperativeMatrixLoadTensorNV %matC %wp %c %L5 None None"),
    C2("lt_pointer_struct_variable", "coopmat2.tensor_access.into_array", "fail", ref="lax",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ssbo %c %L5 None None"),
    C2("st_pointer_struct_variable", "coopmat2.tensor_access.into_array", "fail", ref="lax",
      body="OpCooperativeMatrixStoreTensorNV %ssbo %p %L5 None None"),
    C2("lt_pointer_array_element", "coopmat2.tensor_access.into_array", "pass",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None None"),
    C2("lt_layout_is_view", "coopmat2.tensor_access.layout_view", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %V3 None None"),
    C2("lt_view_is_layout", "coopmat2.tensor_access.layout_view", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None TensorView %L5"),
    C2("st_layout_is_view", "coopmat2.tensor_access.layout_view", "fail", body="OpCooperativeMatrixStoreTensorNV %ptr %p %V3 None None"),
    C2("st_view_is_layout", "coopmat2.tensor_access.layout_view", "fail", body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None TensorView %L5"),
    C2("st_view_ok", "coopmat2.tensor_access.layout_view", "pass", body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None TensorView %V3"),
    C2("lt_make_available", "coopmat2.tensor_access.memory_operands", "fail",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 MakePointerAvailable|NonPrivatePointer %c2 None"),
    C2("st_make_visible", "coopmat2.tensor_access.memory_operands", "fail",
      body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 MakePointerVisible|NonPrivatePointer %c2 None"),
    C2("st_make_available_alone", "coopmat2.tensor_access.memory_operands", "fail",
      body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 MakePointerAvailable %c2 None"),
    C2("lt_aligned_six", "coopmat2.tensor_access.memory_operands", "fail",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 Aligned 6 None"),
    C2("lt_make_visible", "coopmat2.tensor_access.memory_operands", "pass",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 MakePointerVisible|NonPrivatePointer %c2 None"),
    C2("st_make_available", "coopmat2.tensor_access.memory_operands", "pass",
      body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 MakePointerAvailable|NonPrivatePointer %c2 None"),
    C2("lt_aligned_volatile", "coopmat2.tensor_access.memory_operands", "pass",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 Aligned|Volatile 16 None"),
    C2("psb_without_aligned", "coopmat2.tensor_access.memory_operands", "fail", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\n%x = OpCooperativeMatrixLoadTensorNV %matC %pe %c %L5 None None"),
    C2("psb_store_without_aligned", "coopmat2.tensor_access.memory_operands", "fail", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\nOpCooperativeMatrixStoreTensorNV %pe %p %L5 None None"),
    C2("psb_aligned_two", "coopmat2.tensor_access.memory_operands", "fail", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\n%x = OpCooperativeMatrixLoadTensorNV %matC %pe %c %L5 Aligned 2 None"),
    C2("psb_aligned_sixteen", "coopmat2.tensor_access.memory_operands", "pass", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\n%x = OpCooperativeMatrixLoadTensorNV %matC %pe %c %L5 Aligned 16 None"),
    # DecodeFunc
    C2("decode_without_capability", "coopmat2.tensor_access.decode_capability", "fail", types=MATS + "\n" + CM2_PSB_TYPES,
      sub=[(CM2_PSB[0][0], "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses"), *CM2_PSB[1:]],
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_with_capability", "coopmat2.tensor_access.decode_capability", "pass", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_ok", "coopmat2.tensor_load.decode", "pass", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None TensorView|DecodeFunc %V3 %dec"),
    C2("decode_returns_f16", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2", ret="%f16"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_storage_buffer_param", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_f32", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_array_length", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr1", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_not_array", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%u32", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_constant", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %c1"),
    C2("decode_float_arrays", "coopmat2.tensor_load.decode_params", "fail", ref="lax", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2f", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_four_params", "coopmat2.tensor_load.decode_params", "fail", ref="lax", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2", "%u32"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_signed_arrays", "coopmat2.tensor_load.decode_params", "pass", types=MATS + "\n" + CM2_PSB_TYPES + "\n%arr2i = OpTypeArray %i32 %c2", sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2i", "%arr2i"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_workgroup_pointer", "coopmat2.tensor_load.decode_pointer", "fail", ref="lax",
      types=MATS + "\n" + CM2_PSB_TYPES + "\n" + WG_PTR_TYPES, sub=CM2_PSB + WG_IFACE, funcs=decode("%p_psb", "%arr2", "%arr2"),
      body="%wp = OpAccessChain %p_wg %wgv %u0\n%x = OpCooperativeMatrixLoadTensorNV %matC %wp %c %L5 None DecodeFunc %dec"),
    C2("decode_storage_buffer_pointer", "coopmat2.tensor_load.decode_pointer", "pass", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("decode_on_store", "coopmat2.tensor_store.decode", "fail", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None DecodeFunc %dec"),
    C2("store_without_decode", "coopmat2.tensor_store.decode", "pass", body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None TensorView %V3"),
    C2("store_block_size_two", "coopmat2.tensor_store.block_size", "fail", ref="lax",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L4 %c2 %c1\n%Ls = OpTensorLayoutSliceNV %layout %Lb %u0 %c16 %u0 %c8\n"
           "OpCooperativeMatrixStoreTensorNV %ptr %p %Ls None None"),
    C2("load_block_size_two", "coopmat2.tensor_store.block_size", "pass",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L4 %c2 %c1\n%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %Lb None None"),
    # ---- the nvidia-h100 profile: flexible dimensions and Workgroup scope (VK_NV_cooperative_matrix2) ----
    P("profile_base", "profile.type", "pass"),
    P("profile_flexible_subgroup", "profile.muladd", "pass", types=FLEX_TYPES.format(scope="%subgroup", m="%c32", n="%c32", k="%c48"),
      body=FLEX_MULADD),
    P("profile_flexible_not_multiple", "profile.type", "fail", types=FLEX_TYPES.format(scope="%subgroup", m="%c24", n="%c32", k="%c48")),
    P("profile_flexible_too_large", "profile.type", "fail", types=FLEX_TYPES.format(scope="%subgroup", m="%c2048", n="%c32", k="%c48")),
    P("profile_flexible_mixed_accumulators", "profile.muladd", "fail", types=FLEX_TYPES.format(scope="%subgroup", m="%c32", n="%c32", k="%c48")
      + "\n%mCh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c32 %c32 %useAcc", body=FLEX_MULADD.replace("%fc = OpUndef %mC", "%fc = OpUndef %mCh")),
    P("profile_workgroup_128", "profile.muladd", "pass", sub=[*PROFILE_SUB, ("LocalSize 32 1 1", "LocalSize 128 1 1")],
      types=FLEX_TYPES.format(scope="%wg", m="%c32", n="%c16", k="%c48"), body=FLEX_MULADD),
    P("profile_workgroup_96", "profile.type", "fail", sub=[*PROFILE_SUB, ("LocalSize 32 1 1", "LocalSize 96 1 1")],
      types=FLEX_TYPES.format(scope="%wg", m="%c32", n="%c16", k="%c48")),
    P("profile_workgroup_granularity", "profile.type", "fail", sub=[*PROFILE_SUB, ("LocalSize 32 1 1", "LocalSize 256 1 1")],
      types=FLEX_TYPES.format(scope="%wg", m="%c32", n="%c16", k="%c48")),
    # ---- callbacks ----
    C2("combine_with_barrier", "coopmat2.callback.tangled", "fail", ref="lax",
      funcs=func("cbar", "%f32", "%f32", "%f32", body="OpControlBarrier %c2 %c2 %u0", ftype="%combinefn"),
      body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %cbar"),
    C2("per_element_calls_subgroup_op", "coopmat2.callback.tangled", "fail", ref="lax",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability GroupNonUniform")],
      funcs=func("inner", "%f32", "%f32", body="%el = OpGroupNonUniformElect %bool %subgroup") + "\n"
      + func("eo", "%f32", "%u32", "%u32", "%f32", body="%cl = OpFunctionCall %f32 %inner %eo_p2", ftype="%elemfn"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %eo"),
    C2("decode_with_barrier", "coopmat2.callback.tangled", "fail", ref="lax", types=MATS + "\n" + CM2_PSB_TYPES, sub=CM2_PSB,
      funcs=func("dec", "%f32", "%p_psb", "%arr2", "%arr2", body="OpControlBarrier %c2 %c2 %u0", decorate_first="%dp"),
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C2("per_element_multiplies_matrices", "coopmat2.callback.tangled", "fail", ref="lax",
      funcs=func("em", "%f32", "%u32", "%u32", "%f32", body="%ua = OpUndef %matA\n%ub = OpUndef %matB\n%uc = OpUndef %matC\n"
                 "%mm = OpCooperativeMatrixMulAddKHR %matC %ua %ub %uc",
                 ftype="%elemfn"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %em"),
    C2("per_element_plain_call", "coopmat2.callback.tangled", "pass",
      funcs=func("inner", "%f32", "%f32") + "\n" + func("eo", "%f32", "%u32", "%u32", "%f32", body="%cl = OpFunctionCall %f32 %inner %eo_p2", ftype="%elemfn"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %eo"),
]


# ==== SPV_KHR_bfloat16, SPV_EXT_float8, SPV_QCOM_cooperative_matrix_conversion ==========================

# GLSL (GL_EXT_bfloat16, GL_EXT_float_e4m3, GL_EXT_float_e5m2; glslang 13.1 cannot compile it):
#   bfloat16_t b = bfloat16_t(1.5); floate4m3_t e = floate4m3_t(1.5); float f = float(b);
FLOAT_BASE = """\
; scalar bfloat16 / FP8 values: constants, vectors, conversions
               OpCapability Shader
               OpCapability Float16
               OpCapability Int8
               OpCapability BFloat16TypeKHR
               OpCapability Float8EXT
               OpCapability GroupNonUniform
               OpCapability GroupNonUniformArithmetic
               OpCapability GroupNonUniformBallot
               OpCapability GroupNonUniformShuffle
               OpCapability GroupNonUniformQuad
               OpCapability GroupNonUniformVote
               OpCapability DerivativeControl
               OpExtension "SPV_KHR_bfloat16"
               OpExtension "SPV_EXT_float8"
      %glsl = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 32 1 1
; @annotations
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
       %bool = OpTypeBool
        %f32 = OpTypeFloat 32
        %f16 = OpTypeFloat 16
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
         %u8 = OpTypeInt 8 0
         %bf = OpTypeFloat 16 BFloat16KHR
         %e4 = OpTypeFloat 8 Float8E4M3EXT
         %e5 = OpTypeFloat 8 Float8E5M2EXT
       %v2bf = OpTypeVector %bf 2
       %v2e4 = OpTypeVector %e4 2
      %v2f32 = OpTypeVector %f32 2
   %subgroup = OpConstant %u32 3
         %u0 = OpConstant %u32 0
         %i1 = OpConstant %i32 -3
        %bf1 = OpConstant %bf 1.5
       %bfm = OpConstant %bf -0x1.8p+3
        %e41 = OpConstant %e4 1.5
       %e4m = OpConstant %e4 448
        %e51 = OpConstant %e5 -0.375
         %f1 = OpConstant %f32 1
       %true = OpConstantTrue %bool
        %vbf = OpConstantComposite %v2bf %bf1 %bfm
        %ve4 = OpConstantComposite %v2e4 %e41 %e4m
        %vf2 = OpConstantComposite %v2f32 %f1 %f1
; @types
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
         %w1 = OpFConvert %f32 %bf1
         %w2 = OpFConvert %e5 %e41
         %w3 = OpConvertFToS %i32 %e51
         %w4 = OpConvertSToF %bf %i1
         %w5 = OpSelect %bf %true %bf1 %bfm
         %w6 = OpCompositeExtract %e4 %ve4 1
         %w7 = OpBitcast %u8 %e41
         %w8 = OpFConvert %v2e4 %vf2
; @body
               OpReturn
               OpFunctionEnd
"""

# GLSL (GL_KHR_cooperative_matrix + GL_QCOM_cooperative_matrix_conversion):
#   float16_t row[16]; coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a =
#   coopMatConstructQCOM(row); uint32_t packed[8] = bitcastArrayQCOM(row); ...
COOP_BASE = """\
; per-invocation arrays to and from cooperative matrices (and bfloat16 / FP8 matrices)
               OpCapability Shader
               OpCapability Float16
               OpCapability Int8
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpCapability CooperativeMatrixConversionQCOM
               OpCapability BFloat16TypeKHR
               OpCapability BFloat16CooperativeMatrixKHR
               OpCapability Float8EXT
               OpCapability Float8CooperativeMatrixEXT
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_QCOM_cooperative_matrix_conversion"
               OpExtension "SPV_KHR_bfloat16"
               OpExtension "SPV_EXT_float8"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 64 1 1
; @annotations
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
        %f32 = OpTypeFloat 32
        %f16 = OpTypeFloat 16
         %bf = OpTypeFloat 16 BFloat16KHR
         %e4 = OpTypeFloat 8 Float8E4M3EXT
         %e5 = OpTypeFloat 8 Float8E5M2EXT
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
         %i8 = OpTypeInt 8 1
   %subgroup = OpConstant %u32 3
  %workgroup = OpConstant %u32 2
         %c4 = OpConstant %u32 4
         %c8 = OpConstant %u32 8
        %c16 = OpConstant %u32 16
        %c32 = OpConstant %u32 32
         %i0 = OpConstant %i32 0
         %i4 = OpConstant %i32 4
       %useA = OpConstant %u32 0
       %useB = OpConstant %u32 1
     %useAcc = OpConstant %u32 2
    %f16x16 = OpTypeArray %f16 %c16
     %f32x8 = OpTypeArray %f32 %c8
     %u32x8 = OpTypeArray %u32 %c8
     %u32x4 = OpTypeArray %u32 %c4
     %i8x32 = OpTypeArray %i8 %c32
       %matA = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %useA
       %matB = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %useB
      %matCh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useAcc
       %matC = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %useAcc
      %matAi = OpTypeCooperativeMatrixKHR %i8 %subgroup %c16 %c32 %useA
     %matBfA = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useA
     %matBfB = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c8 %useB
     %matE4A = OpTypeCooperativeMatrixKHR %e4 %subgroup %c16 %c32 %useA
     %matE5B = OpTypeCooperativeMatrixKHR %e5 %subgroup %c32 %c8 %useB
     %matE4C = OpTypeCooperativeMatrixKHR %e4 %subgroup %c16 %c8 %useAcc
     %p_f16x16 = OpTypePointer Function %f16x16
; @types
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
        %row = OpVariable %p_f16x16 Function
         %r = OpLoad %f16x16 %row
         %a = OpCompositeConstructCoopMatQCOM %matA %r
         %pk = OpBitCastArrayQCOM %u32x8 %r
         %a2 = OpCompositeConstructCoopMatQCOM %matA %pk
         %b = OpCompositeConstructCoopMatQCOM %matB %r
        %rb = OpCompositeExtractCoopMatQCOM %f16x16 %b
        %half = OpExtractSubArrayQCOM %u32x4 %pk %i4
        %ch = OpCompositeConstructCoopMatQCOM %matCh %half
        %c = OpFConvert %matC %ch
        %cx = OpCompositeExtractCoopMatQCOM %f32x8 %c
        %cp = OpCompositeExtractCoopMatQCOM %u32x8 %c
        %ai = OpCompositeExtractCoopMatQCOM %u32x8 %a
        %ba = OpUndef %matBfA
        %bb = OpUndef %matBfB
        %d = OpCooperativeMatrixMulAddKHR %matC %ba %bb %c
        %ea = OpUndef %matE4A
        %eb = OpUndef %matE5B
        %d8 = OpCooperativeMatrixMulAddKHR %matC %ea %eb %c
        %s8 = OpFConvert %matE4C %c
        %sb = OpFConvert %matBfA %a
; @body
               OpReturn
               OpFunctionEnd
"""

# GLSL (GL_KHR_cooperative_matrix + GL_EXT_bfloat16): the GEMM step the H100 reports for bf16
#   coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; ... d = coopMatMulAdd(a, b, c);
H100_BASE = """\
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpCapability BFloat16TypeKHR
               OpCapability BFloat16CooperativeMatrixKHR
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_KHR_bfloat16"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 32 1 1
; @annotations
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
        %f32 = OpTypeFloat 32
         %bf = OpTypeFloat 16 BFloat16KHR
        %u32 = OpTypeInt 32 0
   %subgroup = OpConstant %u32 3
        %c16 = OpConstant %u32 16
       %useA = OpConstant %u32 0
       %useB = OpConstant %u32 1
     %useAcc = OpConstant %u32 2
       %matA = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useA
       %matB = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useB
       %matC = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c16 %useAcc
; @types
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
          %a = OpUndef %matA
          %b = OpUndef %matB
          %c = OpUndef %matC
          %d = OpCooperativeMatrixMulAddKHR %matC %a %b %c
; @body
               OpReturn
               OpFunctionEnd
"""
FP8_CAPS = [("OpCapability BFloat16CooperativeMatrixKHR\n", "OpCapability BFloat16CooperativeMatrixKHR\n"
             "OpCapability Float8EXT\nOpCapability Float8CooperativeMatrixEXT\n"),
            ('OpExtension "SPV_KHR_bfloat16"\n', 'OpExtension "SPV_KHR_bfloat16"\nOpExtension "SPV_EXT_float8"\n')]


def F(name, rule, expect, **kw) -> Case:
    """A case made from FLOAT_BASE (base="coop": COOP_BASE, "h100": H100_BASE)."""
    kw.setdefault("base", "float")
    return Case(name, rule, expect, **kw)


def Q(name, rule, expect, **kw) -> Case:
    return Case(name, rule, expect, base="coop", **kw)


NO_BF16_COOP_CAP = [("OpCapability BFloat16CooperativeMatrixKHR\n", "")]
NO_FP8_COOP_CAP = [("OpCapability Float8CooperativeMatrixEXT\n", "")]

FLOAT_QCOM_CASES: list[Case] = [
    F("float_base", "*", "pass"),
    Q("coop_base", "*", "pass"),
    # ---- where bfloat16 may appear ----
    F("bf16_fadd", "float.bf16.use", "fail", body="%x = OpFAdd %bf %bf1 %bfm"),
    F("bf16_fnegate_vector", "float.bf16.use", "fail", body="%x = OpFNegate %v2bf %vbf"),
    F("bf16_fmod", "float.bf16.use", "fail", body="%x = OpFMod %bf %bf1 %bf1"),
    F("bf16_isnan", "float.bf16.use", "fail", types="", body="%x = OpIsNan %bool %bf1"),
    F("bf16_extinst", "float.bf16.use", "fail", body="%x = OpExtInst %bf %glsl FAbs %bf1"),
    F("bf16_group_fadd", "float.bf16.use", "fail", body="%x = OpGroupNonUniformFAdd %bf %subgroup Reduce %bf1"),
    F("bf16_allequal", "float.bf16.use", "fail", body="%x = OpGroupNonUniformAllEqual %bool %subgroup %bf1"),
    F("bf16_broadcast_first", "float.bf16.use", "fail", body="%x = OpGroupNonUniformBroadcastFirst %bf %subgroup %bf1"),
    F("bf16_dpdx", "float.bf16.use", "fail", body="%x = OpDPdx %bf %bf1"),
    F("bf16_vector_times_scalar", "float.bf16.use", "fail", ref="lax", body="%x = OpVectorTimesScalar %v2bf %vbf %bf1"),
    F("bf16_ford_equal", "float.bf16.use", "fail", ref="lax", body="%x = OpFOrdEqual %bool %bf1 %bfm"),
    F("bf16_group_fmax", "float.bf16.use", "fail", ref="lax", body="%x = OpGroupNonUniformFMax %bf %subgroup Reduce %bf1"),
    F("bf16_conversions_select_composites", "float.bf16.use", "pass",
      body="%x = OpCompositeConstruct %v2bf %bf1 %w4\n%y = OpCopyObject %bf %bf1\n%z = OpConvertFToU %u32 %bfm"),
    F("bf16_function_call", "float.bf16.use", "pass", types="%bffn = OpTypeFunction %void %bf",
      body="%x = OpFunctionCall %void %callee %bf1\nOpReturn\nOpFunctionEnd\n"
           "%callee = OpFunction %void None %bffn\n%p = OpFunctionParameter %bf\n%l = OpLabel\n"
           "%q = OpCopyObject %bf %p"),
    # ---- OpDot on bfloat16 vectors ----
    F("bf16_dot_no_capability", "float.bf16.dot", "fail", body="%x = OpDot %bf %vbf %vbf"),
    F("bf16_dot_capability", "float.bf16.dot", "pass", body="%x = OpDot %bf %vbf %vbf",
      sub=[("OpCapability BFloat16TypeKHR\n", "OpCapability BFloat16TypeKHR\nOpCapability BFloat16DotProductKHR\n")]),
    # ---- where FP8 may appear ----
    F("fp8_fmul", "float.fp8.use", "fail", body="%x = OpFMul %e4 %e41 %e41"),
    F("fp8_fsub_e5", "float.fp8.use", "fail", body="%x = OpFSub %e5 %e51 %e51"),
    F("fp8_isinf", "float.fp8.use", "fail", body="%x = OpIsInf %bool %e51"),
    F("fp8_extinst", "float.fp8.use", "fail", body="%x = OpExtInst %e4 %glsl FAbs %e41"),
    F("fp8_broadcast", "float.fp8.use", "fail",
      body="%x = OpGroupNonUniformBroadcast %e4 %subgroup %e41 %u0"),
    F("fp8_dot", "float.fp8.use", "fail", ref="lax", body="%x = OpDot %e4 %ve4 %ve4"),
    F("fp8_ford_less", "float.fp8.use", "fail", ref="lax", body="%x = OpFOrdLessThan %bool %e41 %e4m"),
    F("fp8_conversions", "float.fp8.use", "pass",
      body="%z = OpPhi %e4 %e41 %entry\n%x = OpConvertUToF %e5 %u0\n%y = OpFConvert %bf %e41",
      sub=[("      %entry = OpLabel\n", "      %entry = OpLabel\n"), ("; @body\n", "OpBranch %next\n%next = OpLabel\n; @body\n")]),
    # ---- type declarations ----
    F("float8_without_encoding", "float.type.encoding_width", "fail", types="%f8 = OpTypeFloat 8"),
    F("float8_bf16_encoding", "float.type.encoding_width", "fail", types="%f8 = OpTypeFloat 8 BFloat16KHR"),
    F("float32_bf16_encoding", "float.type.encoding_width", "fail", ref="lax", types="%x32 = OpTypeFloat 32 BFloat16KHR"),
    F("float16_e4m3_encoding", "float.type.encoding_width", "fail", ref="lax", types="%x16 = OpTypeFloat 16 Float8E4M3EXT"),
    F("float_encodings_ok", "float.type.encoding_width", "pass"),
    F("bf16_type_without_capability", "float.type.capability", "fail",
      sub=[("OpCapability BFloat16TypeKHR\n", "")]),
    F("bf16_type_with_capability", "float.type.capability", "pass"),
    F("fp8_type_without_capability", "float.type.capability", "fail", sub=[("OpCapability Float8EXT\n", "")]),
    F("saturated_decoration_without_capability", "float.type.capability", "fail",
      sub=[("OpCapability Float8EXT\n", ""), ('OpExtension "SPV_EXT_float8"\n', ""),
           ("         %e4 = OpTypeFloat 8 Float8E4M3EXT\n", ""), ("         %e5 = OpTypeFloat 8 Float8E5M2EXT\n", ""),
           ("       %v2e4 = OpTypeVector %e4 2\n", ""), ("        %e41 = OpConstant %e4 1.5\n", ""),
           ("       %e4m = OpConstant %e4 448\n", ""), ("        %e51 = OpConstant %e5 -0.375\n", ""),
           ("        %ve4 = OpConstantComposite %v2e4 %e41 %e4m\n", ""), ("         %w2 = OpFConvert %e5 %e41\n", ""),
           ("         %w3 = OpConvertFToS %i32 %e51\n", ""), ("         %w6 = OpCompositeExtract %e4 %ve4 1\n", ""),
           ("         %w7 = OpBitcast %u8 %e41\n", ""), ("         %w8 = OpFConvert %v2e4 %vf2\n", "")],
      annotations="OpDecorate %w1 SaturatedToLargestFloat8NormalConversionEXT"),
    F("bf16_capability_without_extension", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_KHR_bfloat16"\n', "")]),
    F("fp8_capability_without_extension", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_EXT_float8"\n', "")]),
    # ---- the saturating FP8 conversion decoration ----
    F("saturated_fconvert", "float.fp8.saturated_target", "pass",
      annotations="OpDecorate %w2 SaturatedToLargestFloat8NormalConversionEXT\n"
                  "OpDecorate %w8 SaturatedToLargestFloat8NormalConversionEXT\n"
                  "OpDecorate %x SaturatedToLargestFloat8NormalConversionEXT",
      body="%x = OpConvertSToF %e5 %i1"),
    F("saturated_on_f32_result", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %w1 SaturatedToLargestFloat8NormalConversionEXT"),
    F("saturated_on_fp8_to_int", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %w3 SaturatedToLargestFloat8NormalConversionEXT"),
    F("saturated_on_bitcast", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %x SaturatedToLargestFloat8NormalConversionEXT", body="%x = OpBitcast %e4 %w7"),
    F("saturated_on_constant", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %e41 SaturatedToLargestFloat8NormalConversionEXT"),
    # ---- bfloat16 / FP8 cooperative matrices ----
    Q("bf16_matrix_without_capability", "coopmat.type.component_capability", "fail", sub=NO_BF16_COOP_CAP),
    Q("fp8_matrix_without_capability", "coopmat.type.component_capability", "fail", sub=NO_FP8_COOP_CAP),
    Q("fp8_matrix_fadd", "coopmat.arith.encoding", "fail", body="%x = OpFAdd %matE4A %ea %ea"),
    Q("fp8_matrix_times_scalar", "coopmat.arith.encoding", "fail", ref="lax",
      body="%s = OpUndef %e4\n%x = OpMatrixTimesScalar %matE4A %ea %s"),
    Q("bf16_matrix_length_extract", "float.bf16.use", "pass",
      body="%n = OpCooperativeMatrixLengthKHR %u32 %matBfA\n%x = OpCompositeExtract %bf %ba 0\n"
           "%y = OpFConvert %matBfA %a"),
    Q("bf16_nv_matrix_without_capability", "coopmat.type.component_capability", "fail", sub=NO_BF16_COOP_CAP + [
        ("OpCapability CooperativeMatrixKHR\n", "OpCapability CooperativeMatrixKHR\nOpCapability CooperativeMatrixNV\n"),
        ('OpExtension "SPV_KHR_bfloat16"\n', 'OpExtension "SPV_KHR_bfloat16"\nOpExtension "SPV_NV_cooperative_matrix"\n'),
        ("     %matBfA = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useA\n",
         "     %matBfA = OpTypeCooperativeMatrixNV %bf %subgroup %c16 %c16\n"),
        ("     %matBfB = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c8 %useB\n", ""),
        ("        %bb = OpUndef %matBfB\n", ""), ("        %d = OpCooperativeMatrixMulAddKHR %matC %ba %bb %c\n", ""),
        ("        %sb = OpFConvert %matBfA %a\n", "")]),
    Q("qcom_without_capability", "structure.capability.opcode", "fail",
      sub=[("OpCapability CooperativeMatrixConversionQCOM\n", "")]),
    Q("qcom_without_extension", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_QCOM_cooperative_matrix_conversion"\n', "")]),
    # ---- OpCompositeConstructCoopMatQCOM ----
    Q("construct_not_matrix", "qcom.construct.types", "fail", body="%x = OpCompositeConstructCoopMatQCOM %f32x8 %cx"),
    Q("construct_accumulator_from_f32", "qcom.construct.types", "pass", body="%x = OpCompositeConstructCoopMatQCOM %matC %cx"),
    Q("construct_from_scalar", "qcom.construct.types", "fail",
      body="%h = OpUndef %f16\n%x = OpCompositeConstructCoopMatQCOM %matA %h"),
    Q("construct_workgroup", "qcom.scope", "fail", types="%mW = OpTypeCooperativeMatrixKHR %f32 %workgroup %c16 %c8 %useAcc",
      body="%x = OpCompositeConstructCoopMatQCOM %mW %cx"),
    Q("construct_subgroup", "qcom.scope", "pass", body="%x = OpCompositeConstructCoopMatQCOM %matC %cx"),
    Q("extract_workgroup", "qcom.scope", "fail", types="%mW = OpTypeCooperativeMatrixKHR %f32 %workgroup %c16 %c8 %useAcc",
      body="%m = OpUndef %mW\n%x = OpCompositeExtractCoopMatQCOM %f32x8 %m"),
    Q("construct_bf16_matrix", "qcom.component", "fail", types="%bfx16 = OpTypeArray %bf %c16",
      body="%v = OpUndef %bfx16\n%x = OpCompositeConstructCoopMatQCOM %matBfA %v"),
    Q("construct_i8_accumulator", "qcom.component", "fail", types="%i8x8 = OpTypeArray %i8 %c8\n"
      "%mCi8 = OpTypeCooperativeMatrixKHR %i8 %subgroup %c16 %c8 %useAcc",
      body="%v = OpUndef %i8x8\n%x = OpCompositeConstructCoopMatQCOM %mCi8 %v"),
    Q("extract_fp8_matrix", "qcom.component", "fail", types="%e4x32 = OpTypeArray %e4 %c32",
      body="%x = OpCompositeExtractCoopMatQCOM %e4x32 %ea"),
    Q("construct_i8_matrix_a", "qcom.component", "pass",
      body="%v = OpUndef %i8x32\n%x = OpCompositeConstructCoopMatQCOM %matAi %v\n%y = OpCompositeConstructCoopMatQCOM %matAi %pk"),
    Q("construct_a_f16_k8", "qcom.k_size", "fail", types="%f16x8 = OpTypeArray %f16 %c8\n"
      "%mA8 = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useA",
      body="%v = OpUndef %f16x8\n%x = OpCompositeConstructCoopMatQCOM %mA8 %v"),
    Q("construct_a_f16_k16", "qcom.k_size", "pass", types="%f16x8 = OpTypeArray %f16 %c8\n%f16x16b = OpTypeArray %f16 %c16",
      body="%v = OpUndef %f16x16b\n%x = OpCompositeConstructCoopMatQCOM %matA %v"),
    Q("extract_b_f32_k16", "qcom.k_size", "fail", types="%f32x16 = OpTypeArray %f32 %c16\n"
      "%mB32 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c16 %useB",
      body="%m = OpUndef %mB32\n%x = OpCompositeExtractCoopMatQCOM %f32x16 %m"),
    Q("construct_element_f32_for_f16", "qcom.construct.element", "fail", types="%f32x16 = OpTypeArray %f32 %c16",
      body="%v = OpUndef %f32x16\n%x = OpCompositeConstructCoopMatQCOM %matA %v"),
    Q("construct_element_f16", "qcom.construct.element", "pass", body="%x = OpCompositeConstructCoopMatQCOM %matA %r"),
    Q("construct_element_i32_for_f32", "qcom.construct.element", "fail", types="%i32x8 = OpTypeArray %i32 %c8",
      body="%v = OpUndef %i32x8\n%x = OpCompositeConstructCoopMatQCOM %matC %v"),
    Q("construct_a_from_u32x4", "qcom.construct.length", "fail", body="%x = OpCompositeConstructCoopMatQCOM %matA %half"),
    Q("construct_b_from_f16x8", "qcom.construct.length", "fail", types="%f16x8 = OpTypeArray %f16 %c8",
      body="%v = OpUndef %f16x8\n%x = OpCompositeConstructCoopMatQCOM %matB %v"),
    Q("construct_f32_acc_from_u32x4", "qcom.construct.length", "fail",
      body="%x = OpCompositeConstructCoopMatQCOM %matC %half"),
    Q("construct_f16_acc_from_u32x8", "qcom.construct.length", "fail", ref="lax",
      body="%x = OpCompositeConstructCoopMatQCOM %matCh %pk"),
    Q("construct_i8_a_from_u32x32", "qcom.construct.length", "fail", ref="lax", types="%u32x32 = OpTypeArray %u32 %c32",
      body="%v = OpUndef %u32x32\n%x = OpCompositeConstructCoopMatQCOM %matAi %v"),
    Q("construct_f32_acc_from_u32x8", "qcom.construct.length", "pass",
      body="%x = OpCompositeConstructCoopMatQCOM %matC %pk\n%y = OpCompositeConstructCoopMatQCOM %matC %cx"),
    Q("construct_spec_length", "qcom.construct.length", "warn", types="%sl = OpSpecConstant %u32 6\n"
      "%f32xs = OpTypeArray %f32 %sl", body="%v = OpUndef %f32xs\n%x = OpCompositeConstructCoopMatQCOM %matC %v"),
    # a spec-constant Use whose default is MatrixAccumulatorKHR: spirv-val rejects every spec-constant Use
    Q("construct_spec_use", "qcom.construct.length", "pass", ref="strict",
      types="%su = OpSpecConstant %u32 2\n%mS = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %su",
      body="%x = OpCompositeConstructCoopMatQCOM %mS %cx"),
    # ---- OpCompositeExtractCoopMatQCOM ----
    Q("extract_to_scalar", "qcom.extract.types", "fail", body="%x = OpCompositeExtractCoopMatQCOM %f32 %c"),
    Q("extract_to_array", "qcom.extract.types", "pass", body="%x = OpCompositeExtractCoopMatQCOM %f32x8 %c"),
    Q("extract_from_array", "qcom.extract.types", "fail", body="%x = OpCompositeExtractCoopMatQCOM %f32x8 %cx"),
    Q("extract_a_to_u32x4", "qcom.extract.result", "fail", body="%x = OpCompositeExtractCoopMatQCOM %u32x4 %a"),
    Q("extract_f16_acc_to_u32x8", "qcom.extract.result", "fail", body="%x = OpCompositeExtractCoopMatQCOM %u32x8 %ch"),
    Q("extract_f32_acc_to_f16", "qcom.extract.result", "fail", types="%f16x8 = OpTypeArray %f16 %c8",
      body="%x = OpCompositeExtractCoopMatQCOM %f16x8 %c"),
    Q("extract_spec_use", "qcom.extract.result", "pass", ref="strict",
      types="%su = OpSpecConstant %u32 2\n%mS = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c8 %su",
      body="%m = OpUndef %mS\n%x = OpCompositeExtractCoopMatQCOM %f32x8 %m"),
    Q("extract_f16_acc_to_u32x4", "qcom.extract.result", "pass", body="%x = OpCompositeExtractCoopMatQCOM %u32x4 %ch"),
    # ---- OpExtractSubArrayQCOM ----
    Q("subarray_element_mismatch", "qcom.subarray.types", "fail", types="%f32x4 = OpTypeArray %f32 %c4",
      body="%x = OpExtractSubArrayQCOM %f32x4 %pk %i0"),
    Q("subarray_element_u32", "qcom.subarray.types", "pass", body="%x = OpExtractSubArrayQCOM %u32x4 %pk %i4"),
    Q("subarray_i8", "qcom.subarray.types", "fail", types="%i8x8 = OpTypeArray %i8 %c8",
      body="%v = OpUndef %i8x32\n%x = OpExtractSubArrayQCOM %i8x8 %v %i0"),
    Q("subarray_not_array", "qcom.subarray.types", "fail", body="%x = OpExtractSubArrayQCOM %u32 %pk %i0"),
    Q("subarray_float_index", "qcom.subarray.index", "fail", types="%fz = OpConstant %f32 0",
      body="%x = OpExtractSubArrayQCOM %u32x4 %pk %fz"),
    Q("subarray_int_index", "qcom.subarray.index", "pass", body="%x = OpExtractSubArrayQCOM %u32x4 %pk %i0"),
    Q("subarray_unsigned_index", "qcom.subarray.index", "fail", ref="lax", types="%u4 = OpConstant %u32 4",
      body="%x = OpExtractSubArrayQCOM %u32x4 %pk %u4"),
    Q("subarray_past_end", "qcom.subarray.bounds", "fail", ref="lax", types="%i6 = OpConstant %i32 6",
      body="%x = OpExtractSubArrayQCOM %u32x4 %pk %i6"),
    Q("subarray_longer_than_source", "qcom.subarray.bounds", "fail", ref="lax",
      body="%x = OpExtractSubArrayQCOM %u32x8 %half %i0"),
    Q("subarray_negative_start", "qcom.subarray.bounds", "fail", ref="lax", types="%im = OpConstant %i32 -1",
      body="%x = OpExtractSubArrayQCOM %u32x4 %pk %im"),
    Q("subarray_dynamic_start", "qcom.subarray.bounds", "pass", types="%p_i32 = OpTypePointer Function %i32",
      sub=[("        %row = OpVariable %p_f16x16 Function\n",
            "        %row = OpVariable %p_f16x16 Function\n%iv = OpVariable %p_i32 Function\n")],
      body="%st = OpLoad %i32 %iv\n%x = OpExtractSubArrayQCOM %u32x4 %pk %st"),
    # ---- OpBitCastArrayQCOM ----
    Q("bitcast_array_scalar", "qcom.bitcast.types", "fail", body="%h = OpUndef %f16\n%x = OpBitCastArrayQCOM %u32x8 %h"),
    Q("bitcast_array_u32_to_f16", "qcom.bitcast.types", "pass", body="%x = OpBitCastArrayQCOM %f16x16 %pk"),
    Q("bitcast_array_i8", "qcom.bitcast.types", "fail", body="%x = OpBitCastArrayQCOM %i8x32 %pk"),
    Q("bitcast_array_bf16", "qcom.bitcast.types", "fail", types="%bfx16 = OpTypeArray %bf %c16",
      body="%v = OpUndef %bfx16\n%x = OpBitCastArrayQCOM %u32x8 %v"),
    Q("bitcast_array_of_arrays", "qcom.bitcast.types", "fail", types="%c2 = OpConstant %u32 2\n"
      "%f32x4 = OpTypeArray %f32 %c4\n%f32x4x2 = OpTypeArray %f32x4 %c2",
      body="%v = OpUndef %f32x4x2\n%x = OpBitCastArrayQCOM %u32x8 %v"),
    Q("bitcast_array_size", "qcom.bitcast.size", "fail", body="%x = OpBitCastArrayQCOM %u32x4 %r"),
    Q("bitcast_array_f32_to_f16", "qcom.bitcast.size", "pass", body="%x = OpBitCastArrayQCOM %f16x16 %cx"),
    # ---- device profile: the H100 has bf16 A/B with f32 C, no FP8 ----
    F("h100_bf16_gemm", "profile.muladd", "pass", base="h100", profile="nvidia-h100"),
    F("h100_bf16_gemm_types", "profile.type", "pass", base="h100", profile="nvidia-h100"),
    F("h100_bf16_accumulator", "profile.muladd", "fail", base="h100", profile="nvidia-h100", ref=None,
      types="%matCb = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useAcc",
      body="%cb = OpUndef %matCb\n%x = OpCooperativeMatrixMulAddKHR %matCb %a %b %cb"),
    F("h100_fp8_matrix", "profile.type", "fail", base="h100", profile="nvidia-h100", ref=None, sub=FP8_CAPS,
      types="%e4 = OpTypeFloat 8 Float8E4M3EXT\n%matE4A = OpTypeCooperativeMatrixKHR %e4 %subgroup %c16 %c16 %useA"),
]


BASES = {"khr": KHR_BASE, "nv": NV_BASE, "cm2": CM2_BASE, "float": FLOAT_BASE, "coop": COOP_BASE, "h100": H100_BASE}
CASES: list[Case] = RULE_CASES + COOPMAT2_CASES + FLOAT_QCOM_CASES

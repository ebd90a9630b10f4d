"""Validator rules for SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing.

Every case is a variant of tests/data/validate/coopmat2/base.spvasm (lines added to its types, to the
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
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sarif_schema import valid_sarif
import spvcoop
from spvcoop.core.reference_tools import require_tool
from spvcoop.validator import RULES, validate
from conftest import assert_rule_verdict

BASE = (Path(__file__).parent / "data" / "validate" / "coopmat2" / "base.spvasm").read_text()

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
PSB = [("OpCapability Shader", "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses\n"
        "OpCapability CooperativeMatrixBlockLoadsNV"),
       ("OpMemoryModel Logical Vulkan", "OpMemoryModel PhysicalStorageBuffer64 Vulkan"),
       ("OpDecorate %ssbo Binding 0", "OpDecorate %ssbo Binding 0\nOpDecorate %dp Restrict")]
PSB_TYPES = ("%p_psb = OpTypePointer PhysicalStorageBuffer %f32\n%arr2 = OpTypeArray %u32 %c2\n"
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
    return Case(name, rule, expect, sub=list(sub), profile="nvidia-h100", ref=None, **kw)


@dataclass
class Case:
    name: str
    rule: str
    expect: str                     # "fail", "warn" or "pass"
    types: str = ""
    body: str = ""
    funcs: str = ""
    sub: list = field(default_factory=list)
    env: str = "spv1.6"             # assembler and validator target environment
    ref: str | None = "same"
    profile: str | None = None

    def text(self) -> str:
        t = BASE
        for old, new in self.sub:
            assert old in t, (self.name, old)
            t = t.replace(old, new, 1)
        # function types made by func() belong with the other types
        ftypes = [ln for ln in self.funcs.split("\n") if "= OpTypeFunction" in ln]
        funcs = "\n".join(ln for ln in self.funcs.split("\n") if "= OpTypeFunction" not in ln)
        types = "\n".join([self.types, *ftypes])
        return (t.replace("; @types\n", types + "\n").replace("; @body\n", self.body + "\n")
                .replace("; @funcs\n", funcs + "\n"))


def C(name, rule, expect, **kw) -> Case:
    kw.setdefault("types", MATS)
    return Case(name, rule, expect, **kw)


CASES: list[Case] = [
    C("cm2_base", "*", "pass"),
    C("cm2_base_vulkan", "*", "pass", env="vulkan1.3"),
    # ---- SPIR-V version ----
    C("version_spv15", "coopmat2.version", "fail", env="spv1.5", ref="lax"),
    C("version_spv16", "coopmat2.version", "pass"),
    # ---- tensor types ----
    C("layout_dim_zero", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%c0 = OpConstant %u32 0\n%lz = OpTypeTensorLayoutNV %c0 %constant"),
    C("layout_dim_six", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%c6 = OpConstant %u32 6\n%lz = OpTypeTensorLayoutNV %c6 %constant"),
    C("layout_dim_five", "coopmat2.tensor.type.dim", "pass", types=MATS + "\n%c5 = OpConstant %u32 5\n%lz = OpTypeTensorLayoutNV %c5 %constant"),
    C("layout_dim_u64", "coopmat2.tensor.type.dim", "fail", sub=INT64, types=MATS + "\n%u64 = OpTypeInt 64 0\n%d2 = OpConstant %u64 2\n%lz = OpTypeTensorLayoutNV %d2 %constant"),
    C("layout_dim_float", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%lz = OpTypeTensorLayoutNV %f1 %constant"),
    C("layout_dim_signed", "coopmat2.tensor.type.dim", "pass", types=MATS + "\n%s2 = OpConstant %i32 2\n%lz = OpTypeTensorLayoutNV %s2 %constant"),
    C("layout_dim_spec_nine", "coopmat2.tensor.type.dim", "warn", types=MATS + "\n%s9 = OpSpecConstant %u32 9\n%lz = OpTypeTensorLayoutNV %s9 %constant"),
    C("view_dim_zero", "coopmat2.tensor.type.dim", "fail", types=MATS + "\n%c0 = OpConstant %u32 0\n%vz = OpTypeTensorViewNV %c0 %false"),
    C("layout_dim_undef", "coopmat2.tensor.type.constant", "fail", ref="lax", types=MATS + "\n%un = OpUndef %u32\n%lz = OpTypeTensorLayoutNV %un %constant"),
    C("view_perm_undef", "coopmat2.tensor.type.constant", "fail", ref="lax", types=MATS + "\n%un = OpUndef %u32\n%vz = OpTypeTensorViewNV %c2 %false %u0 %un"),
    C("view_spec_constants", "coopmat2.tensor.type.constant", "pass", types=MATS + "\n%sb = OpSpecConstantTrue %bool\n%s1 = OpSpecConstant %u32 1\n%vz = OpTypeTensorViewNV %c2 %sb %u0 %s1"),
    C("layout_clamp_five", "coopmat2.tensor.layout.clamp_mode", "fail", types=MATS + "\n%c5 = OpConstant %u32 5\n%lz = OpTypeTensorLayoutNV %c2 %c5"),
    C("layout_clamp_mirrored", "coopmat2.tensor.layout.clamp_mode", "pass", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %c4"),
    C("layout_clamp_bool", "coopmat2.tensor.layout.clamp_mode", "fail", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %false"),
    C("layout_clamp_spec_seven", "coopmat2.tensor.layout.clamp_mode", "warn", types=MATS + "\n%s7 = OpSpecConstant %u32 7\n%lz = OpTypeTensorLayoutNV %c2 %s7"),
    C("view_hasdim_uint", "coopmat2.tensor.view.has_dimensions", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %u0 %u0 %c1"),
    C("view_hasdim_true", "coopmat2.tensor.view.has_dimensions", "pass", types=MATS + "\n%true = OpConstantTrue %bool\n%vz = OpTypeTensorViewNV %c2 %true %u0 %c1"),
    C("view_perm_repeated", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %u0"),
    C("view_perm_out_of_range", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %c2"),
    C("view_perm_too_few", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0"),
    C("view_perm_too_many", "coopmat2.tensor.view.permutation", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %c1 %c2"),
    C("view_perm_u64", "coopmat2.tensor.view.permutation", "fail", sub=INT64, types=MATS + "\n%u64 = OpTypeInt 64 0\n%p1 = OpConstant %u64 1\n%vz = OpTypeTensorViewNV %c2 %false %u0 %p1"),
    C("view_perm_swapped", "coopmat2.tensor.view.permutation", "pass", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %c1 %u0"),
    C("view_perm_spec_repeated", "coopmat2.tensor.view.permutation", "warn", types=MATS + "\n%s0 = OpSpecConstant %u32 0\n%vz = OpTypeTensorViewNV %c2 %false %u0 %s0"),
    C("layout_duplicate", "coopmat2.tensor.type.duplicate", "fail", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %constant"),
    C("view_duplicate", "coopmat2.tensor.type.duplicate", "fail", types=MATS + "\n%vz = OpTypeTensorViewNV %c2 %false %u0 %c1"),
    C("layout_other_clamp", "coopmat2.tensor.type.duplicate", "pass", types=MATS + "\n%lz = OpTypeTensorLayoutNV %c2 %u0"),
    # ---- tensor layout / view instructions ----
    C("create_layout_of_view", "coopmat2.tensor.result_type", "fail", body="%x = OpCreateTensorLayoutNV %view"),
    C("create_view_of_u32", "coopmat2.tensor.result_type", "fail", body="%x = OpCreateTensorViewNV %u32"),
    C("setdim_result_view", "coopmat2.tensor.result_type", "fail", body="%x = OpTensorLayoutSetDimensionNV %view %V0 %c16 %c16"),
    C("create_layout_other_type", "coopmat2.tensor.result_type", "pass", body="%x = OpCreateTensorLayoutNV %lay1"),
    C("setdim_other_layout_type", "coopmat2.tensor.source_type", "fail", body="%x = OpTensorLayoutSetDimensionNV %lay1 %L0 %c16"),
    C("viewdim_from_layout", "coopmat2.tensor.source_type", "fail", body="%x = OpTensorViewSetDimensionNV %view %L0 %c16 %c8"),
    C("setdim_same_type", "coopmat2.tensor.source_type", "pass", body="%Lz = OpCreateTensorLayoutNV %lay1\n%x = OpTensorLayoutSetDimensionNV %lay1 %Lz %c16"),
    C("setdim_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %c16"),
    C("setdim_three_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %c16 %c16 %c16"),
    C("setstride_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetStrideNV %layout %L0 %c16"),
    C("setblock_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSetBlockSizeNV %layout %L0 %c16"),
    C("slice_two_of_four", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorLayoutSliceNV %layout %L0 %c16 %c16"),
    C("viewdim_one_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorViewSetDimensionNV %view %V0 %c16"),
    C("viewstride_three_of_two", "coopmat2.tensor.operand_count", "fail", body="%x = OpTensorViewSetStrideNV %view %V0 %c16 %c16 %c1"),
    C("setdim_spec_dim_count", "coopmat2.tensor.operand_count", "warn",
      types=MATS + "\n%s3 = OpSpecConstant %u32 3\n%lay3 = OpTypeTensorLayoutNV %s3 %u0",
      body="%Lz = OpCreateTensorLayoutNV %lay3\n%x = OpTensorLayoutSetDimensionNV %lay3 %Lz %c16 %c16"),
    C("setdim_one_dim_layout", "coopmat2.tensor.operand_count", "pass", body="%Lz = OpCreateTensorLayoutNV %lay1\n%x = OpTensorLayoutSliceNV %lay1 %Lz %u0 %c16"),
    C("setdim_float", "coopmat2.tensor.operand_int32", "fail", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %f1 %c16"),
    C("setdim_u64", "coopmat2.tensor.operand_int32", "fail", sub=INT64, types=MATS + "\n%u64 = OpTypeInt 64 0\n%l1 = OpConstant %u64 1", body="%x = OpTensorLayoutSetDimensionNV %layout %L0 %l1 %c16"),
    C("clampvalue_f16", "coopmat2.tensor.operand_int32", "fail", body="%x = OpTensorLayoutSetClampValueNV %layout %L0 %h1"),
    C("viewclip_float", "coopmat2.tensor.operand_int32", "fail", body="%x = OpTensorViewSetClipNV %view %V0 %c16 %f1 %u0 %u0"),
    C("setdim_runtime_signed", "coopmat2.tensor.operand_int32", "pass", body="%ld = OpLoad %f32 %ptr\n%lc = OpConvertFToS %i32 %ld\n%x = OpTensorLayoutSetDimensionNV %layout %L0 %lc %lc"),
    C("setstride_overlapping", "coopmat2.tensor.layout_stride", "fail", ref="lax",
      body="%x = OpTensorLayoutSetStrideNV %layout %L1 %c8 %c1"),
    C("setstride_blocks", "coopmat2.tensor.layout_stride", "pass",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L1 %c1 %c2\n%x = OpTensorLayoutSetStrideNV %layout %Lb %c8 %c1"),
    C("setstride_blocks_too_small", "coopmat2.tensor.layout_stride", "fail", ref="lax",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L1 %c1 %c4\n%x = OpTensorLayoutSetStrideNV %layout %Lb %c2 %c1"),
    C("setstride_runtime", "coopmat2.tensor.layout_stride", "pass",
      body="%ld = OpLoad %f32 %ptr\n%lc = OpConvertFToU %u32 %ld\n%x = OpTensorLayoutSetStrideNV %layout %L1 %lc %c1"),
    C("setstride_before_dimension", "coopmat2.tensor.layout_stride", "pass",
      body="%x = OpTensorLayoutSetStrideNV %layout %L0 %c1 %c1"),
    # ---- Reduce ----
    C("reduce_result_scalar", "coopmat2.reduce.type", "fail", body="%x = OpCooperativeMatrixReduceNV %f32 %t2 Row|Column %combine"),
    C("reduce_matrix_scalar", "coopmat2.reduce.type", "fail", body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixReduceNV %matC %s Row|Column %combine"),
    C("reduce_component", "coopmat2.reduce.type", "fail", body="%x = OpCooperativeMatrixReduceNV %matCi %t2 Row|Column %combine"),
    C("reduce_result_use_a", "coopmat2.reduce.use", "fail", body="%x = OpCooperativeMatrixReduceNV %matA32 %t2 Row|Column %combine"),
    C("reduce_matrix_use_a", "coopmat2.reduce.use", "fail", body="%a = OpCooperativeMatrixLoadKHR %matA32 %ptr %rowmajor %stride\n%x = OpCooperativeMatrixReduceNV %matC %a Row|Column %combine"),
    C("reduce_scope", "coopmat2.reduce.scope", "fail", body="%x = OpCooperativeMatrixReduceNV %matCwg %t2 Row|Column %combine"),
    # spirv-val compares the Scope <id>s, not their values (false positive S5)
    C("reduce_scope_same_value", "coopmat2.reduce.scope", "pass", ref="strict",
      types=MATS + "\n%sg2 = OpConstant %u32 3\n%matCs = OpTypeCooperativeMatrixKHR %f32 %sg2 %c16 %c8 %useAcc",
      body="%x = OpCooperativeMatrixReduceNV %matCs %t2 Row|Column %combine"),
    C("reduce_2x2_with_row", "coopmat2.reduce.mode", "fail", body="%x = OpCooperativeMatrixReduceNV %matC84 %t2 Row|2x2 %combine"),
    C("reduce_row_and_column", "coopmat2.reduce.mode", "pass", body="%x = OpCooperativeMatrixReduceNV %matC48 %t2 Row|Column %combine"),
    C("reduce_row_rows", "coopmat2.reduce.shape", "fail", body="%x = OpCooperativeMatrixReduceNV %matC88 %t2 Row %combine"),
    C("reduce_row_ok", "coopmat2.reduce.shape", "pass", body="%x = OpCooperativeMatrixReduceNV %matC164 %t2 Row %combine"),
    C("reduce_column_columns", "coopmat2.reduce.shape", "fail", body="%x = OpCooperativeMatrixReduceNV %matC164 %t2 Column %combine"),
    C("reduce_column_ok", "coopmat2.reduce.shape", "pass", body="%x = OpCooperativeMatrixReduceNV %matC88 %t2 Column %combine"),
    C("reduce_2x2_not_half", "coopmat2.reduce.shape", "fail", body="%x = OpCooperativeMatrixReduceNV %matC48 %t2 2x2 %combine"),
    C("reduce_2x2_half", "coopmat2.reduce.shape", "pass", body="%x = OpCooperativeMatrixReduceNV %matC84 %t2 2x2 %combine"),
    C("reduce_combine_constant", "coopmat2.reduce.combine", "fail", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %c1"),
    C("reduce_combine_three_params", "coopmat2.reduce.combine", "fail", body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %perelem"),
    C("reduce_combine_f16", "coopmat2.reduce.combine", "fail", funcs=func("comb16", "%f16", "%f16", "%f16"),
      body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %comb16"),
    C("reduce_combine_mixed", "coopmat2.reduce.combine", "fail", funcs=func("combmix", "%f32", "%f32", "%f16"),
      body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %combmix"),
    # ---- PerElementOp ----
    C("pe_matrix_scalar", "coopmat2.per_element.matrix", "fail", body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %f32 %s %perelem"),
    C("pe_result_type", "coopmat2.per_element.matrix", "fail", body="%x = OpCooperativeMatrixPerElementOpNV %matCi %t2 %perelem"),
    C("pe_use_a", "coopmat2.per_element.matrix", "pass", body="%a = OpCooperativeMatrixLoadKHR %matA32 %ptr %rowmajor %stride\n%x = OpCooperativeMatrixPerElementOpNV %matA32 %a %perelem"),
    C("pe_func_constant", "coopmat2.per_element.func", "fail", body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %c1"),
    C("pe_func_float_row", "coopmat2.per_element.func", "fail", funcs=func("ef", "%f32", "%f32", "%u32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ef"),
    C("pe_func_two_params", "coopmat2.per_element.func", "fail", funcs=func("e2", "%f32", "%u32", "%u32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %e2"),
    C("pe_func_returns_f16", "coopmat2.per_element.func", "fail", funcs=func("eh", "%f16", "%u32", "%u32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %eh"),
    C("pe_func_element_f16", "coopmat2.per_element.func", "fail", funcs=func("e3", "%f32", "%u32", "%u32", "%f16"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %e3"),
    C("pe_func_signed_row", "coopmat2.per_element.func", "pass", funcs=func("es", "%f32", "%i32", "%i32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %es"),
    C("pe_extra_missing", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex"),
    C("pe_extra_too_many", "coopmat2.per_element.operands", "fail", ref="lax",
      body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %perelem %s"),
    C("pe_extra_wrong_type", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("exu", "%f32", "%u32", "%u32", "%f32", "%u32"),
      body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %exu %s"),
    C("pe_extra_matrix_component", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex %h"),
    C("pe_extra_matrix_shape", "coopmat2.per_element.operands", "fail", ref="lax", funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%m8 = OpUndef %matC88\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex %m8"),
    C("pe_extra_matrix_use", "coopmat2.per_element.operands", "fail", ref="lax",
      funcs=func("ex", "%f32", "%u32", "%u32", "%f32", "%f32"),
      body="%ma = OpUndef %matA32\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex %ma"),
    C("pe_extra_scalar_and_matrix", "coopmat2.per_element.operands", "pass",
      funcs=func("ex2", "%f32", "%u32", "%u32", "%f32", "%f32", "%f32"),
      body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %ex2 %s %t"),
    # ---- Transpose / ConvertNV ----
    C("transpose_scalar", "coopmat2.change_use.type", "fail", body="%s = OpLoad %f32 %ptr\n%x = OpCooperativeMatrixTransposeNV %matBT %s"),
    C("convert_to_scalar", "coopmat2.change_use.type", "fail", body="%x = OpCooperativeMatrixConvertNV %f16 %h"),
    C("convert_nv_types", "coopmat2.change_use.khr", "fail", ref="lax", sub=NV_TYPES,
      types=MATS + "\n%nvC = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8", body="%n = OpUndef %nvC\n%x = OpCooperativeMatrixConvertNV %nvC %n"),
    C("transpose_not_swapped", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixTransposeNV %matB %h"),
    C("transpose_scope", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixTransposeNV %matBwg %h"),
    C("convert_shape", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixConvertNV %matBT %h"),
    C("convert_component", "coopmat2.change_use.shape", "fail", body="%x = OpCooperativeMatrixConvertNV %matB32 %h"),
    C("convert_to_a", "coopmat2.change_use.shape", "pass",
      types=MATS + "\n%matAh = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c8 %useA", body="%x = OpCooperativeMatrixConvertNV %matAh %h"),
    C("transpose_to_a", "coopmat2.change_use.use", "fail", body="%x = OpCooperativeMatrixTransposeNV %matAT %h"),
    C("transpose_to_acc", "coopmat2.change_use.use", "fail", body="%x = OpCooperativeMatrixTransposeNV %matCT %h"),
    C("convert_b_to_a", "coopmat2.change_use.use", "fail", body="%x = OpCooperativeMatrixConvertNV %matAT %tr"),
    C("convert_acc_to_b", "coopmat2.change_use.use", "pass", body="%x = OpCooperativeMatrixConvertNV %matB %h"),
    C("transpose_from_b", "coopmat2.change_use.from_accumulator", "fail", ref="lax", body="%x = OpCooperativeMatrixTransposeNV %matBT %cb"),
    C("convert_acc_to_acc", "coopmat2.change_use.from_accumulator", "fail", ref="lax", body="%x = OpCooperativeMatrixConvertNV %matCh %h"),
    C("convert_b_to_b", "coopmat2.change_use.from_accumulator", "fail", ref="lax", body="%x = OpCooperativeMatrixConvertNV %matB %cb"),
    C("transpose_component", "coopmat2.transpose.component", "warn", ref="lax", body="%x = OpCooperativeMatrixTransposeNV %matBT32 %h"),
    # conversions that change Use (SPV_NV_cooperative_matrix2 relaxes Op*Convert, not OpBitcast)
    C("fconvert_acc_to_a", "coopmat.convert.shape", "pass", body="%x = OpFConvert %matA32 %h"),
    C("ftou_acc_to_a", "coopmat.convert.shape", "pass",
      types=MATS + "\n%matAi = OpTypeCooperativeMatrixKHR %u32 %subgroup %c16 %c8 %useA", body="%x = OpConvertFToU %matAi %t2"),
    C("fconvert_b_to_a", "coopmat.convert.shape", "fail",
      body="%b = OpCooperativeMatrixLoadKHR %matB32 %ptr %rowmajor %stride\n%x = OpFConvert %matA %b".replace("%matA %b", "%matAT %b").replace("%matB32 %ptr", "%matB32 %ptr")),
    C("fconvert_a_to_acc", "coopmat.convert.shape", "fail", body="%a = OpCooperativeMatrixLoadKHR %matA32 %ptr %rowmajor %stride\n%x = OpFConvert %matCh %a"),
    C("fconvert_acc_to_a_without_cap", "coopmat.convert.shape", "fail", body="%x = OpFConvert %matA32 %h",
      sub=[("OpCapability CooperativeMatrixConversionsNV\n", ""),
           ("         %cb = OpCooperativeMatrixConvertNV %matB %h\n         %tr = OpCooperativeMatrixTransposeNV %matBT %h\n", "")]),
    C("bitcast_acc_to_a", "coopmat.convert.shape", "fail", body="%x = OpBitcast %matA32 %t2"),
    # ---- LoadTensor / StoreTensor ----
    C("lt_result_scalar", "coopmat2.tensor_access.matrix", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %f32 %ptr %c %L5 None None"),
    C("lt_result_nv", "coopmat2.tensor_access.matrix", "fail", sub=NV_TYPES, types=MATS + "\n%nvC = OpTypeCooperativeMatrixNV %f32 %subgroup %c16 %c8",
      body="%n = OpUndef %nvC\n%x = OpCooperativeMatrixLoadTensorNV %nvC %ptr %n %L5 None None"),
    C("st_object_scalar", "coopmat2.tensor_access.matrix", "fail", body="%s = OpLoad %f32 %ptr\nOpCooperativeMatrixStoreTensorNV %ptr %s %L5 None None"),
    C("lt_use_a", "coopmat2.tensor_access.matrix", "pass", body="%a = OpUndef %matA32\n%x = OpCooperativeMatrixLoadTensorNV %matA32 %ptr %a %L5 None None"),
    C("lt_object_type", "coopmat2.tensor_load.object", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %h %L5 None None"),
    C("lt_object_f16", "coopmat2.tensor_load.object", "pass", body="%x = OpCooperativeMatrixLoadTensorNV %matCh %ptr %h %L5 None None"),
    C("lt_pointer_constant", "coopmat2.tensor_access.pointer", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %c1 %c %L5 None None"),
    C("lt_pointer_function", "coopmat2.tensor_access.pointer", "fail",
      types=MATS + "\n%p_fn = OpTypePointer Function %f32\n%farr = OpTypeArray %f32 %c16\n%p_farr = OpTypePointer Function %farr",
      sub=[("      %entry = OpLabel\n", "      %entry = OpLabel\n%fv = OpVariable %p_farr Function\n")],
      body="%fp = OpAccessChain %p_fn %fv %u0\n%x = OpCooperativeMatrixLoadTensorNV %matC %fp %c %L5 None None"),
    C("st_pointer_function", "coopmat2.tensor_access.pointer", "fail",
      types=MATS + "\n%p_fn = OpTypePointer Function %f32\n%farr = OpTypeArray %f32 %c16\n%p_farr = OpTypePointer Function %farr",
      sub=[("      %entry = OpLabel\n", "      %entry = OpLabel\n%fv = OpVariable %p_farr Function\n")],
      body="%fp = OpAccessChain %p_fn %fv %u0\nOpCooperativeMatrixStoreTensorNV %fp %p %L5 None None"),
    C("lt_pointer_workgroup", "coopmat2.tensor_access.pointer", "pass", types=MATS + "\n" + WG_PTR_TYPES, sub=WG_IFACE,
      body="%wp = OpAccessChain %p_wg %wgv %u0\n%x = OpCooperativeMatrixLoadTensorNV %matC %wp %c %L5 None None"),
    C("lt_pointer_struct_variable", "coopmat2.tensor_access.into_array", "fail", ref="lax",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ssbo %c %L5 None None"),
    C("st_pointer_struct_variable", "coopmat2.tensor_access.into_array", "fail", ref="lax",
      body="OpCooperativeMatrixStoreTensorNV %ssbo %p %L5 None None"),
    C("lt_pointer_array_element", "coopmat2.tensor_access.into_array", "pass",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None None"),
    C("lt_layout_is_view", "coopmat2.tensor_access.layout_view", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %V3 None None"),
    C("lt_view_is_layout", "coopmat2.tensor_access.layout_view", "fail", body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None TensorView %L5"),
    C("st_layout_is_view", "coopmat2.tensor_access.layout_view", "fail", body="OpCooperativeMatrixStoreTensorNV %ptr %p %V3 None None"),
    C("st_view_is_layout", "coopmat2.tensor_access.layout_view", "fail", body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None TensorView %L5"),
    C("st_view_ok", "coopmat2.tensor_access.layout_view", "pass", body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None TensorView %V3"),
    C("lt_make_available", "coopmat2.tensor_access.memory_operands", "fail",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 MakePointerAvailable|NonPrivatePointer %c2 None"),
    C("st_make_visible", "coopmat2.tensor_access.memory_operands", "fail",
      body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 MakePointerVisible|NonPrivatePointer %c2 None"),
    C("st_make_available_alone", "coopmat2.tensor_access.memory_operands", "fail",
      body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 MakePointerAvailable %c2 None"),
    C("lt_aligned_six", "coopmat2.tensor_access.memory_operands", "fail",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 Aligned 6 None"),
    C("lt_make_visible", "coopmat2.tensor_access.memory_operands", "pass",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 MakePointerVisible|NonPrivatePointer %c2 None"),
    C("st_make_available", "coopmat2.tensor_access.memory_operands", "pass",
      body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 MakePointerAvailable|NonPrivatePointer %c2 None"),
    C("lt_aligned_volatile", "coopmat2.tensor_access.memory_operands", "pass",
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 Aligned|Volatile 16 None"),
    C("psb_without_aligned", "coopmat2.tensor_access.memory_operands", "fail", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\n%x = OpCooperativeMatrixLoadTensorNV %matC %pe %c %L5 None None"),
    C("psb_store_without_aligned", "coopmat2.tensor_access.memory_operands", "fail", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\nOpCooperativeMatrixStoreTensorNV %pe %p %L5 None None"),
    C("psb_aligned_two", "coopmat2.tensor_access.memory_operands", "fail", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\n%x = OpCooperativeMatrixLoadTensorNV %matC %pe %c %L5 Aligned 2 None"),
    C("psb_aligned_sixteen", "coopmat2.tensor_access.memory_operands", "pass", sub=PSB_ADDR, types=MATS + "\n" + PSB_ARRAY,
      body=PSB_PTR + "\n%x = OpCooperativeMatrixLoadTensorNV %matC %pe %c %L5 Aligned 16 None"),
    # DecodeFunc
    C("decode_without_capability", "coopmat2.tensor_access.decode_capability", "fail", types=MATS + "\n" + PSB_TYPES,
      sub=[(PSB[0][0], "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses"), *PSB[1:]],
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_ok", "coopmat2.tensor_load.decode", "pass", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None TensorView|DecodeFunc %V3 %dec"),
    C("decode_returns_f16", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2", ret="%f16"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_storage_buffer_param", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_f32", "%arr2", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_array_length", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%arr1", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_not_array", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%u32", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_constant", "coopmat2.tensor_load.decode", "fail", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %c1"),
    C("decode_float_arrays", "coopmat2.tensor_load.decode_params", "fail", ref="lax", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%arr2f", "%arr2"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_four_params", "coopmat2.tensor_load.decode_params", "fail", ref="lax", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2", "%u32"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_signed_arrays", "coopmat2.tensor_load.decode_params", "pass", types=MATS + "\n" + PSB_TYPES + "\n%arr2i = OpTypeArray %i32 %c2", sub=PSB,
      funcs=decode("%p_psb", "%arr2i", "%arr2i"), body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("decode_workgroup_pointer", "coopmat2.tensor_load.decode_pointer", "fail", ref="lax",
      types=MATS + "\n" + PSB_TYPES + "\n" + WG_PTR_TYPES, sub=PSB + WG_IFACE, funcs=decode("%p_psb", "%arr2", "%arr2"),
      body="%wp = OpAccessChain %p_wg %wgv %u0\n%x = OpCooperativeMatrixLoadTensorNV %matC %wp %c %L5 None DecodeFunc %dec"),
    C("decode_on_store", "coopmat2.tensor_store.decode", "fail", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=decode("%p_psb", "%arr2", "%arr2"), body="OpCooperativeMatrixStoreTensorNV %ptr %p %L5 None DecodeFunc %dec"),
    C("store_block_size_two", "coopmat2.tensor_store.block_size", "fail", ref="lax",
      body="%Lb = OpTensorLayoutSetBlockSizeNV %layout %L4 %c2 %c1\n%Ls = OpTensorLayoutSliceNV %layout %Lb %u0 %c16 %u0 %c8\n"
           "OpCooperativeMatrixStoreTensorNV %ptr %p %Ls None None"),
    C("load_block_size_two", "coopmat2.tensor_store.block_size", "pass",
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
    C("combine_with_barrier", "coopmat2.callback.tangled", "fail", ref="lax",
      funcs=func("cbar", "%f32", "%f32", "%f32", body="OpControlBarrier %c2 %c2 %u0", ftype="%combinefn"),
      body="%x = OpCooperativeMatrixReduceNV %matC %t2 Row|Column %cbar"),
    C("per_element_calls_subgroup_op", "coopmat2.callback.tangled", "fail", ref="lax",
      sub=[("OpCapability Shader", "OpCapability Shader\nOpCapability GroupNonUniform")],
      funcs=func("inner", "%f32", "%f32", body="%el = OpGroupNonUniformElect %bool %subgroup") + "\n"
      + func("eo", "%f32", "%u32", "%u32", "%f32", body="%cl = OpFunctionCall %f32 %inner %eo_p2", ftype="%elemfn"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %eo"),
    C("decode_with_barrier", "coopmat2.callback.tangled", "fail", ref="lax", types=MATS + "\n" + PSB_TYPES, sub=PSB,
      funcs=func("dec", "%f32", "%p_psb", "%arr2", "%arr2", body="OpControlBarrier %c2 %c2 %u0", decorate_first="%dp"),
      body="%x = OpCooperativeMatrixLoadTensorNV %matC %ptr %c %L5 None DecodeFunc %dec"),
    C("per_element_multiplies_matrices", "coopmat2.callback.tangled", "fail", ref="lax",
      funcs=func("em", "%f32", "%u32", "%u32", "%f32", body="%ua = OpUndef %matA\n%ub = OpUndef %matB\n%uc = OpUndef %matC\n"
                 "%mm = OpCooperativeMatrixMulAddKHR %matC %ua %ub %uc",
                 ftype="%elemfn"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %em"),
    C("per_element_plain_call", "coopmat2.callback.tangled", "pass",
      funcs=func("inner", "%f32", "%f32") + "\n" + func("eo", "%f32", "%u32", "%u32", "%f32", body="%cl = OpFunctionCall %f32 %inner %eo_p2", ftype="%elemfn"),
      body="%x = OpCooperativeMatrixPerElementOpNV %matC %t2 %eo"),
]


# ---------------------------------------------------------------------------------------------
# tests


def run_case(case: Case):
    module = spvcoop.assemble(case.text(), f"{case.name}.spvasm", target_env=case.env)
    return module, validate(module, case.env, None, case.profile, spirv_val=False)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    _, diags = run_case(case)
    assert_rule_verdict(case.rule, case.expect, diags)


def test_every_coopmat2_rule_has_failing_and_passing_case() -> None:
    ours = {r for r in RULES if r.startswith("coopmat2.")}
    failing = {c.rule for c in CASES if c.expect in ("fail", "warn")}
    passing = {c.rule for c in CASES if c.expect == "pass"}
    assert not sorted(ours - failing), "coopmat2 rules without a failing case"
    # rules whose passing case is the base module (it uses every instruction): the version, the types
    by_base = {"coopmat2.tensor.type.dim", "coopmat2.tensor.view.has_dimensions", "coopmat2.tensor_access.matrix",
               "coopmat2.tensor_access.decode_capability", "coopmat2.tensor_store.decode", "coopmat2.change_use.type",
               "coopmat2.change_use.khr", "coopmat2.change_use.from_accumulator", "coopmat2.transpose.component",
               "coopmat2.tensor_load.decode_pointer", "coopmat2.reduce.type", "coopmat2.reduce.use",
               "coopmat2.per_element.func", "coopmat2.reduce.combine", "coopmat2.tensor_access.pointer"}
    assert not sorted(ours - passing - by_base), "coopmat2 rules without a passing case"


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
    doc = (Path(__file__).parent.parent / "docs" / "divergences.md").read_text()
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
    case = Case("many", "*", "fail", types=MATS, body="%x = OpCooperativeMatrixReduceNV %matA32 %t2 Row|2x2 %c1\n"
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
    info = (Path(__file__).parent / "data" / "h100-vulkan" / "info-2026-11-23.txt").read_text()
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

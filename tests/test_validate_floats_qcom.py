"""Validator rules for SPV_KHR_bfloat16, SPV_EXT_float8 and SPV_QCOM_cooperative_matrix_conversion.

Each case is a small module made from one of two valid base modules (scalar bfloat16/FP8 code without
cooperative matrices; cooperative matrices with the QCOM conversions), naming the rule it exercises,
whether it must fail / warn / pass, and what spirv-val 2025.5 says ("same"; "lax": spirv-val accepts
what we reject; "strict": spirv-val rejects what the text allows; both documented in
docs/divergences.md; None: not compared). Every module is also
assembled by spirv-as (same bytes as ours) and disassembled by spirv-dis (same text as ours).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sarif_schema import valid_sarif
import spvcoop
from spvcoop.validator import RULES, validate
from conftest import assert_rule_verdict

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


@dataclass
class Case:
    name: str
    rule: str
    expect: str                    # "fail", "warn" or "pass"
    base: str = "float"            # "float", "coop" or "h100"
    types: str = ""
    body: str = ""
    annotations: str = ""
    sub: list = field(default_factory=list)  # (old, new) replacements in the base text
    ref: str | None = "same"       # spirv-val 2025.5: "same", "lax", "strict" (see the docstring) or None
    profile: str | None = None

    def text(self) -> str:
        t = {"float": FLOAT_BASE, "coop": COOP_BASE, "h100": H100_BASE}[self.base]
        for old, new in self.sub:
            assert old in t, (self.name, old)
            t = t.replace(old, new, 1)
        t = t.replace("; @annotations\n", self.annotations + "\n")
        t = t.replace("; @types\n", self.types + "\n")
        return t.replace("; @body\n", self.body + "\n")


def C(name, rule, expect, **kw) -> Case:
    return Case(name, rule, expect, **kw)


def Q(name, rule, expect, **kw) -> Case:
    return Case(name, rule, expect, base="coop", **kw)


NO_BF16_COOP_CAP = [("OpCapability BFloat16CooperativeMatrixKHR\n", "")]
NO_FP8_COOP_CAP = [("OpCapability Float8CooperativeMatrixEXT\n", "")]

CASES: list[Case] = [
    C("float_base", "*", "pass"),
    Q("coop_base", "*", "pass"),
    # ---- where bfloat16 may appear ----
    C("bf16_fadd", "float.bf16.use", "fail", body="%x = OpFAdd %bf %bf1 %bfm"),
    C("bf16_fnegate_vector", "float.bf16.use", "fail", body="%x = OpFNegate %v2bf %vbf"),
    C("bf16_fmod", "float.bf16.use", "fail", body="%x = OpFMod %bf %bf1 %bf1"),
    C("bf16_isnan", "float.bf16.use", "fail", types="", body="%x = OpIsNan %bool %bf1"),
    C("bf16_extinst", "float.bf16.use", "fail", body="%x = OpExtInst %bf %glsl FAbs %bf1"),
    C("bf16_group_fadd", "float.bf16.use", "fail", body="%x = OpGroupNonUniformFAdd %bf %subgroup Reduce %bf1"),
    C("bf16_allequal", "float.bf16.use", "fail", body="%x = OpGroupNonUniformAllEqual %bool %subgroup %bf1"),
    C("bf16_broadcast_first", "float.bf16.use", "fail", body="%x = OpGroupNonUniformBroadcastFirst %bf %subgroup %bf1"),
    C("bf16_dpdx", "float.bf16.use", "fail", body="%x = OpDPdx %bf %bf1"),
    C("bf16_vector_times_scalar", "float.bf16.use", "fail", ref="lax", body="%x = OpVectorTimesScalar %v2bf %vbf %bf1"),
    C("bf16_ford_equal", "float.bf16.use", "fail", ref="lax", body="%x = OpFOrdEqual %bool %bf1 %bfm"),
    C("bf16_group_fmax", "float.bf16.use", "fail", ref="lax", body="%x = OpGroupNonUniformFMax %bf %subgroup Reduce %bf1"),
    C("bf16_conversions_select_composites", "float.bf16.use", "pass",
      body="%x = OpCompositeConstruct %v2bf %bf1 %w4\n%y = OpCopyObject %bf %bf1\n%z = OpConvertFToU %u32 %bfm"),
    C("bf16_function_call", "float.bf16.use", "pass", types="%bffn = OpTypeFunction %void %bf",
      body="%x = OpFunctionCall %void %callee %bf1\nOpReturn\nOpFunctionEnd\n"
           "%callee = OpFunction %void None %bffn\n%p = OpFunctionParameter %bf\n%l = OpLabel\n"
           "%q = OpCopyObject %bf %p"),
    # ---- OpDot on bfloat16 vectors ----
    C("bf16_dot_no_capability", "float.bf16.dot", "fail", body="%x = OpDot %bf %vbf %vbf"),
    C("bf16_dot_capability", "float.bf16.dot", "pass", body="%x = OpDot %bf %vbf %vbf",
      sub=[("OpCapability BFloat16TypeKHR\n", "OpCapability BFloat16TypeKHR\nOpCapability BFloat16DotProductKHR\n")]),
    # ---- where FP8 may appear ----
    C("fp8_fmul", "float.fp8.use", "fail", body="%x = OpFMul %e4 %e41 %e41"),
    C("fp8_fsub_e5", "float.fp8.use", "fail", body="%x = OpFSub %e5 %e51 %e51"),
    C("fp8_isinf", "float.fp8.use", "fail", body="%x = OpIsInf %bool %e51"),
    C("fp8_extinst", "float.fp8.use", "fail", body="%x = OpExtInst %e4 %glsl FAbs %e41"),
    C("fp8_broadcast", "float.fp8.use", "fail",
      body="%x = OpGroupNonUniformBroadcast %e4 %subgroup %e41 %u0"),
    C("fp8_dot", "float.fp8.use", "fail", ref="lax", body="%x = OpDot %e4 %ve4 %ve4"),
    C("fp8_ford_less", "float.fp8.use", "fail", ref="lax", body="%x = OpFOrdLessThan %bool %e41 %e4m"),
    C("fp8_conversions", "float.fp8.use", "pass",
      body="%z = OpPhi %e4 %e41 %entry\n%x = OpConvertUToF %e5 %u0\n%y = OpFConvert %bf %e41",
      sub=[("      %entry = OpLabel\n", "      %entry = OpLabel\n"), ("; @body\n", "OpBranch %next\n%next = OpLabel\n; @body\n")]),
    # ---- type declarations ----
    C("float8_without_encoding", "float.type.encoding_width", "fail", types="%f8 = OpTypeFloat 8"),
    C("float8_bf16_encoding", "float.type.encoding_width", "fail", types="%f8 = OpTypeFloat 8 BFloat16KHR"),
    C("float32_bf16_encoding", "float.type.encoding_width", "fail", ref="lax", types="%x32 = OpTypeFloat 32 BFloat16KHR"),
    C("float16_e4m3_encoding", "float.type.encoding_width", "fail", ref="lax", types="%x16 = OpTypeFloat 16 Float8E4M3EXT"),
    C("float_encodings_ok", "float.type.encoding_width", "pass"),
    C("bf16_type_without_capability", "float.type.capability", "fail",
      sub=[("OpCapability BFloat16TypeKHR\n", "")]),
    C("fp8_type_without_capability", "float.type.capability", "fail", sub=[("OpCapability Float8EXT\n", "")]),
    C("saturated_decoration_without_capability", "float.type.capability", "fail",
      sub=[("OpCapability Float8EXT\n", ""), ('OpExtension "SPV_EXT_float8"\n', ""),
           ("         %e4 = OpTypeFloat 8 Float8E4M3EXT\n", ""), ("         %e5 = OpTypeFloat 8 Float8E5M2EXT\n", ""),
           ("       %v2e4 = OpTypeVector %e4 2\n", ""), ("        %e41 = OpConstant %e4 1.5\n", ""),
           ("       %e4m = OpConstant %e4 448\n", ""), ("        %e51 = OpConstant %e5 -0.375\n", ""),
           ("        %ve4 = OpConstantComposite %v2e4 %e41 %e4m\n", ""), ("         %w2 = OpFConvert %e5 %e41\n", ""),
           ("         %w3 = OpConvertFToS %i32 %e51\n", ""), ("         %w6 = OpCompositeExtract %e4 %ve4 1\n", ""),
           ("         %w7 = OpBitcast %u8 %e41\n", ""), ("         %w8 = OpFConvert %v2e4 %vf2\n", "")],
      annotations="OpDecorate %w1 SaturatedToLargestFloat8NormalConversionEXT"),
    C("bf16_capability_without_extension", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_KHR_bfloat16"\n', "")]),
    C("fp8_capability_without_extension", "structure.capability.extension", "fail",
      sub=[('OpExtension "SPV_EXT_float8"\n', "")]),
    # ---- the saturating FP8 conversion decoration ----
    C("saturated_fconvert", "float.fp8.saturated_target", "pass",
      annotations="OpDecorate %w2 SaturatedToLargestFloat8NormalConversionEXT\n"
                  "OpDecorate %w8 SaturatedToLargestFloat8NormalConversionEXT\n"
                  "OpDecorate %x SaturatedToLargestFloat8NormalConversionEXT",
      body="%x = OpConvertSToF %e5 %i1"),
    C("saturated_on_f32_result", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %w1 SaturatedToLargestFloat8NormalConversionEXT"),
    C("saturated_on_fp8_to_int", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %w3 SaturatedToLargestFloat8NormalConversionEXT"),
    C("saturated_on_bitcast", "float.fp8.saturated_target", "fail", ref="lax",
      annotations="OpDecorate %x SaturatedToLargestFloat8NormalConversionEXT", body="%x = OpBitcast %e4 %w7"),
    C("saturated_on_constant", "float.fp8.saturated_target", "fail", ref="lax",
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
    Q("construct_from_scalar", "qcom.construct.types", "fail",
      body="%h = OpUndef %f16\n%x = OpCompositeConstructCoopMatQCOM %matA %h"),
    Q("construct_workgroup", "qcom.scope", "fail", types="%mW = OpTypeCooperativeMatrixKHR %f32 %workgroup %c16 %c8 %useAcc",
      body="%x = OpCompositeConstructCoopMatQCOM %mW %cx"),
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
    Q("extract_b_f32_k16", "qcom.k_size", "fail", types="%f32x16 = OpTypeArray %f32 %c16\n"
      "%mB32 = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c16 %useB",
      body="%m = OpUndef %mB32\n%x = OpCompositeExtractCoopMatQCOM %f32x16 %m"),
    Q("construct_element_f32_for_f16", "qcom.construct.element", "fail", types="%f32x16 = OpTypeArray %f32 %c16",
      body="%v = OpUndef %f32x16\n%x = OpCompositeConstructCoopMatQCOM %matA %v"),
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
    Q("subarray_i8", "qcom.subarray.types", "fail", types="%i8x8 = OpTypeArray %i8 %c8",
      body="%v = OpUndef %i8x32\n%x = OpExtractSubArrayQCOM %i8x8 %v %i0"),
    Q("subarray_not_array", "qcom.subarray.types", "fail", body="%x = OpExtractSubArrayQCOM %u32 %pk %i0"),
    Q("subarray_float_index", "qcom.subarray.index", "fail", types="%fz = OpConstant %f32 0",
      body="%x = OpExtractSubArrayQCOM %u32x4 %pk %fz"),
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
    Q("bitcast_array_i8", "qcom.bitcast.types", "fail", body="%x = OpBitCastArrayQCOM %i8x32 %pk"),
    Q("bitcast_array_bf16", "qcom.bitcast.types", "fail", types="%bfx16 = OpTypeArray %bf %c16",
      body="%v = OpUndef %bfx16\n%x = OpBitCastArrayQCOM %u32x8 %v"),
    Q("bitcast_array_of_arrays", "qcom.bitcast.types", "fail", types="%c2 = OpConstant %u32 2\n"
      "%f32x4 = OpTypeArray %f32 %c4\n%f32x4x2 = OpTypeArray %f32x4 %c2",
      body="%v = OpUndef %f32x4x2\n%x = OpBitCastArrayQCOM %u32x8 %v"),
    Q("bitcast_array_size", "qcom.bitcast.size", "fail", body="%x = OpBitCastArrayQCOM %u32x4 %r"),
    Q("bitcast_array_f32_to_f16", "qcom.bitcast.size", "pass", body="%x = OpBitCastArrayQCOM %f16x16 %cx"),
    # ---- device profile: the H100 has bf16 A/B with f32 C, no FP8 ----
    C("h100_bf16_gemm", "profile.muladd", "pass", base="h100", profile="nvidia-h100"),
    C("h100_bf16_gemm_types", "profile.type", "pass", base="h100", profile="nvidia-h100"),
    C("h100_bf16_accumulator", "profile.muladd", "fail", base="h100", profile="nvidia-h100", ref=None,
      types="%matCb = OpTypeCooperativeMatrixKHR %bf %subgroup %c16 %c16 %useAcc",
      body="%cb = OpUndef %matCb\n%x = OpCooperativeMatrixMulAddKHR %matCb %a %b %cb"),
    C("h100_fp8_matrix", "profile.type", "fail", base="h100", profile="nvidia-h100", ref=None, sub=FP8_CAPS,
      types="%e4 = OpTypeFloat 8 Float8E4M3EXT\n%matE4A = OpTypeCooperativeMatrixKHR %e4 %subgroup %c16 %c16 %useA"),
]

NEW_RULE_PREFIXES = ("float.", "qcom.")


def run_case(case: Case):
    module = spvcoop.assemble(case.text(), f"{case.name}.spvasm", target_env="spv1.6")
    return module, validate(module, "universal", None, case.profile, spirv_val=False)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    _, diags = run_case(case)
    errors = [d for d in diags if d.severity == "error"]
    if case.profile is not None:  # only the device profile's findings are expected
        errors = [d for d in errors if d.rule.startswith("profile.")]
    assert_rule_verdict(case.rule, case.expect, diags, errors)


def test_every_new_rule_has_failing_and_passing_case() -> None:
    new = {r for r in RULES if r.startswith(NEW_RULE_PREFIXES)}
    failing = {c.rule for c in CASES if c.expect in ("fail", "warn")}
    assert not new - failing, f"rules without a failing case: {sorted(new - failing)}"
    # the base modules are the passing cases of every rule (they use each instruction the rules check)
    assert {"float_base", "coop_base"} <= {c.name for c in CASES if c.rule == "*"}
    base = {i.opname for b in (FLOAT_BASE, COOP_BASE) for i in spvcoop.assemble(b).instructions}
    assert {"OpCompositeConstructCoopMatQCOM", "OpCompositeExtractCoopMatQCOM", "OpExtractSubArrayQCOM",
            "OpBitCastArrayQCOM", "OpFConvert", "OpConvertSToF", "OpSelect"} <= base


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
    doc = (Path(__file__).parent.parent / "docs" / "divergences.md").read_text()
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

FLOATS = Path(__file__).parent / "data" / "validate" / "floats"


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
        case = Case(op, rule, "fail", body=body.format(T=f"%{enc}", v=value, t=enc))
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

"""Write the bf16 kernels (SPIR-V assembly: glslang 13.1 has no bfloat16) and their inputs for the H100 run.

    python tests/data/h100-vulkan/bf16/make_kernels.py DIR     # DIR/<kernel>.spvasm and DIR/<kernel>.in<i>.bin

The .spvasm files are kept next to this script (tests/data/h100-vulkan/bf16/); the inputs are made again by
`inputs()` in the test from the same seeds. Each kernel's comment gives the GLSL it stands for.
"""
from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np

HEAD = """               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpCapability BFloat16TypeKHR
               OpCapability BFloat16CooperativeMatrixKHR
               OpCapability StorageBuffer16BitAccess
               OpCapability Float16
               OpCapability Int16
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_KHR_bfloat16"
               OpExtension "SPV_KHR_16bit_storage"
               OpMemoryModel Logical Vulkan
"""

TYPES = """       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bf16 = OpTypeFloat 16 BFloat16KHR
        %f16 = OpTypeFloat 16
        %f32 = OpTypeFloat 32
        %u16 = OpTypeInt 16 0
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
         %i0 = OpConstant %i32 0
   %subgroup = OpConstant %u32 3
        %c16 = OpConstant %u32 16
        %c32 = OpConstant %u32 32
       %useA = OpConstant %u32 0
       %useB = OpConstant %u32 1
     %useAcc = OpConstant %u32 2
   %rowmajor = OpConstant %u32 0
      %p_in_u = OpTypePointer Input %u32
       %lidx = OpVariable %p_in_u Input
"""

# (name, element type, array stride)
ELEMS = {"bf16": 2, "f16": 2, "f32": 4, "u32": 4, "i32": 4}


def buffers(spec: list[tuple[str, str]]) -> tuple[str, str, str]:
    """(decorations, types and variables, interface list) for storage buffers %<name> of runtime arrays."""
    deco, decl, names = [], [], []
    for elem in sorted({e for _, e in spec}):
        deco += [f"OpDecorate %rt_{elem} ArrayStride {ELEMS[elem]}", f"OpMemberDecorate %blk_{elem} 0 Offset 0",
                 f"OpDecorate %blk_{elem} Block"]
        decl += [f"%rt_{elem} = OpTypeRuntimeArray %{elem}", f"%blk_{elem} = OpTypeStruct %rt_{elem}",
                 f"%pblk_{elem} = OpTypePointer StorageBuffer %blk_{elem}",
                 f"%p_{elem} = OpTypePointer StorageBuffer %{elem}"]
    for i, (name, elem) in enumerate(spec):
        deco += [f"OpDecorate %{name} DescriptorSet 0", f"OpDecorate %{name} Binding {i}"]
        decl += [f"%{name} = OpVariable %pblk_{elem} StorageBuffer"]
        names.append(f"%{name}")
    deco.append("OpDecorate %lidx BuiltIn LocalInvocationIndex")
    return "\n".join(deco) + "\n", "\n".join(decl) + "\n", " ".join(names + ["%lidx"])


def module(comment: str, local: int, spec, body: str, extra_types: str = "", variables: str = "") -> str:
    deco, decl, iface = buffers(spec)
    return (comment + HEAD + f'OpEntryPoint GLCompute %main "main" {iface}\n'
            f"OpExecutionMode %main LocalSize {local} 1 1\n" + deco + TYPES + extra_types + decl +
            "%main = OpFunction %void None %fn\n%entry = OpLabel\n" + variables + "%t = OpLoad %u32 %lidx\n" + body +
            "OpReturn\nOpFunctionEnd\n")


def layouts() -> str:
    """int(m[i]) on bf16 A and B 16x16 matrices: which element each invocation holds."""
    comment = """; bf16 layouts through element access (one subgroup of 32 on the H100). GLSL (GL_EXT_bfloat16):
;   coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma; coopMatLoad(ma, A, 0, 16, RowMajor);
;   coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb; coopMatLoad(mb, B, 0, 16, RowMajor);
;   uint t = gl_LocalInvocationIndex; O[t] = ma.length();
;   for (i < 8) O[32 + 8t + i]  = uint(int(ma[i]));                    // OpCompositeExtract, OpConvertFToS
;   for (i < 8) O[288 + 8t + i] = uint(int(mb[i]));                    // Function variable, OpAccessChain
;   for (i < 8) O[544 + 8t + i] = uint(bfloat16BitsToUintEXT(ma[i]));  // OpBitcast to u16, OpUConvert
;   for (i < 8) O[800 + 8t + i] = floatBitsToUint(float(mb[i]));       // OpFConvert bf16 -> f32, OpBitcast
; A[16r + c] = B[16r + c] = 16r + c (exact in bf16: integers up to 256 are).
"""
    extra = """%matA = OpTypeCooperativeMatrixKHR %bf16 %subgroup %c16 %c16 %useA
%matB = OpTypeCooperativeMatrixKHR %bf16 %subgroup %c16 %c16 %useB
%pf_matB = OpTypePointer Function %matB
%pf_bf16 = OpTypePointer Function %bf16
"""
    extra += "".join(f"%k{i} = OpConstant %u32 {i}\n" for i in range(8))
    extra += "".join(f"%o{s} = OpConstant %u32 {s}\n" for s in (32, 288, 544, 800))
    body = ["%pA = OpAccessChain %p_bf16 %bA %i0 %i0", "%pB = OpAccessChain %p_bf16 %bB %i0 %i0",
            "%ma = OpCooperativeMatrixLoadKHR %matA %pA %rowmajor %c16",
            "%mb = OpCooperativeMatrixLoadKHR %matB %pB %rowmajor %c16",
            "OpStore %vb %mb",
            "%len = OpCooperativeMatrixLengthKHR %u32 %matA",
            "%pl = OpAccessChain %p_u32 %bO %i0 %t", "OpStore %pl %len",
            "%t8 = OpIMul %u32 %t %k8"]
    extra += "%k8 = OpConstant %u32 8\n"
    for i in range(8):
        def out(sec, val, tag, i=i):
            return [f"%ix{tag}{i} = OpIAdd %u32 %t8 %o{sec}", f"%jx{tag}{i} = OpIAdd %u32 %ix{tag}{i} %k{i}",
                    f"%px{tag}{i} = OpAccessChain %p_u32 %bO %i0 %jx{tag}{i}", f"OpStore %px{tag}{i} {val}"]
        body += [f"%ea{i} = OpCompositeExtract %bf16 %ma {i}", f"%na{i} = OpConvertFToS %i32 %ea{i}",
                 f"%ua{i} = OpBitcast %u32 %na{i}"] + out(32, f"%ua{i}", "a")
        body += [f"%peb{i} = OpAccessChain %pf_bf16 %vb %k{i}", f"%eb{i} = OpLoad %bf16 %peb{i}",
                 f"%nb{i} = OpConvertFToS %i32 %eb{i}", f"%ub{i} = OpBitcast %u32 %nb{i}"] + out(288, f"%ub{i}", "b")
        body += [f"%hb{i} = OpBitcast %u16 %ea{i}", f"%wb{i} = OpUConvert %u32 %hb{i}"] + out(544, f"%wb{i}", "c")
        body += [f"%fb{i} = OpFConvert %f32 %eb{i}", f"%gb{i} = OpBitcast %u32 %fb{i}"] + out(800, f"%gb{i}", "d")
    spec = [("bA", "bf16"), ("bB", "bf16"), ("bO", "u32")]
    return module(comment, 32, spec, "\n".join(body) + "\n", extra, "%vb = OpVariable %pf_matB Function\n")


def conversions() -> str:
    comment = """; bf16 scalar conversions, one element per invocation g = gl_GlobalInvocationID.x (local index: one
; workgroup of 256). GLSL (GL_EXT_bfloat16, GL_EXT_shader_explicit_arithmetic_types):
;   O0[g] = bfloat16_t(F32[g]);  O1[g] = float(BF[g]);  O2[g] = bfloat16_t(F16[g]);
;   O3[g] = float16_t(BF[g]);    O4[g] = int(BF[g]);    O5[g] = bfloat16_t(I32[g]);
"""
    spec = [("F32", "f32"), ("BF", "bf16"), ("F16", "f16"), ("I32", "i32"),
            ("O0", "bf16"), ("O1", "f32"), ("O2", "bf16"), ("O3", "f16"), ("O4", "i32"), ("O5", "bf16")]
    body = []
    for name, elem in spec[:4]:
        body += [f"%p{name} = OpAccessChain %p_{elem} %{name} %i0 %t", f"%v{name} = OpLoad %{elem} %p{name}"]
    ops = [("O0", "bf16", "OpFConvert", "vF32"), ("O1", "f32", "OpFConvert", "vBF"),
           ("O2", "bf16", "OpFConvert", "vF16"), ("O3", "f16", "OpFConvert", "vBF"),
           ("O4", "i32", "OpConvertFToS", "vBF"), ("O5", "bf16", "OpConvertSToF", "vI32")]
    for name, elem, op, src in ops:
        body += [f"%r{name} = {op} %{elem} %{src}", f"%p{name} = OpAccessChain %p_{elem} %{name} %i0 %t",
                 f"OpStore %p{name} %r{name}"]
    return module(comment, 256, spec, "\n".join(body) + "\n")


def gemm(acc: str) -> str:
    """D = A0*B0 + A1*B1 + C with bf16 A (16x32) and B (32x16), acc f32 (or f16), plus matrix conversions."""
    comment = f"""; bf16 x bf16 -> {acc} MulAdd, K = 32 in two steps, and matrix conversions (one subgroup of 32). GLSL:
;   coopmat<bfloat16_t, Subgroup, 16, 16, MatrixA> a0, a1 (A row-major 16x32, columns 0-15 and 16-31);
;   coopmat<bfloat16_t, Subgroup, 16, 16, MatrixB> b0, b1 (B row-major 32x16, rows 0-15 and 16-31);
;   coopmat<{acc}, Subgroup, 16, 16, MatrixAccumulator> c (C), d = coopMatMulAdd(a1, b1, coopMatMulAdd(a0, b0, c));
;   store d -> D; h = coopmat<float16_t, ..Accumulator>(d) -> H; e = coopmat<bfloat16_t, ..Accumulator>(h) -> E;
;   f = coopmat<float, ..Accumulator>(e) -> F;  g = coopmat<bfloat16_t, ..Accumulator>(d) -> G
"""
    spec = [("bA", "bf16"), ("bB", "bf16"), ("bC", acc), ("bD", acc), ("bH", "f16"), ("bE", "bf16"), ("bF", "f32"),
            ("bG", "bf16")]
    extra = f"""%matA = OpTypeCooperativeMatrixKHR %bf16 %subgroup %c16 %c16 %useA
%matB = OpTypeCooperativeMatrixKHR %bf16 %subgroup %c16 %c16 %useB
%matC = OpTypeCooperativeMatrixKHR %{acc} %subgroup %c16 %c16 %useAcc
%matH = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %useAcc
%matE = OpTypeCooperativeMatrixKHR %bf16 %subgroup %c16 %c16 %useAcc
%matF = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c16 %useAcc
%i16 = OpConstant %i32 16
%i256 = OpConstant %i32 256
"""
    body = f"""%pA0 = OpAccessChain %p_bf16 %bA %i0 %i0
%pA1 = OpAccessChain %p_bf16 %bA %i0 %i16
%pB0 = OpAccessChain %p_bf16 %bB %i0 %i0
%pB1 = OpAccessChain %p_bf16 %bB %i0 %i256
%pC = OpAccessChain %p_{acc} %bC %i0 %i0
%a0 = OpCooperativeMatrixLoadKHR %matA %pA0 %rowmajor %c32
%a1 = OpCooperativeMatrixLoadKHR %matA %pA1 %rowmajor %c32
%b0 = OpCooperativeMatrixLoadKHR %matB %pB0 %rowmajor %c16
%b1 = OpCooperativeMatrixLoadKHR %matB %pB1 %rowmajor %c16
%c = OpCooperativeMatrixLoadKHR %matC %pC %rowmajor %c16
%d0 = OpCooperativeMatrixMulAddKHR %matC %a0 %b0 %c
%d = OpCooperativeMatrixMulAddKHR %matC %a1 %b1 %d0
%pD = OpAccessChain %p_{acc} %bD %i0 %i0
OpCooperativeMatrixStoreKHR %pD %d %rowmajor %c16
%h = OpFConvert %matH %d
%pH = OpAccessChain %p_f16 %bH %i0 %i0
OpCooperativeMatrixStoreKHR %pH %h %rowmajor %c16
%e = OpFConvert %matE %h
%pE = OpAccessChain %p_bf16 %bE %i0 %i0
OpCooperativeMatrixStoreKHR %pE %e %rowmajor %c16
%f = OpFConvert %matF %e
%pF = OpAccessChain %p_f32 %bF %i0 %i0
OpCooperativeMatrixStoreKHR %pF %f %rowmajor %c16
%g = OpFConvert %matE %d
%pG = OpAccessChain %p_bf16 %bG %i0 %i0
OpCooperativeMatrixStoreKHR %pG %g %rowmajor %c16
"""
    if acc == "f16":  # %matH is %matC: declare it once
        extra = extra.replace("%matH = OpTypeCooperativeMatrixKHR %f16 %subgroup %c16 %c16 %useAcc\n", "")
        body = body.replace("%h = OpFConvert %matH %d", "%h = OpCopyObject %matC %d").replace("%matH", "%matC")
    if acc == "f32":
        extra = extra.replace("%matF = OpTypeCooperativeMatrixKHR %f32 %subgroup %c16 %c16 %useAcc\n", "")
        body = body.replace("%matF", "%matC")
    return module(comment, 32, spec, body, extra)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)


def inputs() -> dict[str, list[np.ndarray]]:
    """The input buffers of every kernel (the outputs are zero-filled buffers of the sizes in SIZES)."""
    rng = np.random.default_rng(2026)
    idx = np.arange(256, dtype=np.float32)
    # conversions: ties, near-ties, overflow, subnormals, signed zeros, infinities, NaN, random spread
    one = np.float32(1)
    special = np.array([0.0, -0.0, 1.0, -1.0, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -(1 + 2**-8),
                        3.4e38, -3.4e38, 3.3961776e38, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 2**-126, 2**-133,
                        2**-134, 65504.0, 65520.0, 6e-8, 1 / 3, -2 / 3, 255.5, 256.5, 257.0, 1e10], np.float32)
    f32 = np.concatenate([special, (rng.standard_normal(228) * 10.0 ** rng.integers(-8, 9, 228)).astype(np.float32)])
    bf = np.concatenate([bf16_bits(special), rng.integers(0, 65536, 228, dtype=np.uint16)])
    f16 = np.concatenate([np.array([0, 0x8000, 0x3C00, 0x3C01, 0x3C03, 0x0001, 0x03FF, 0x7BFF, 0x7C00, 0xFC00, 0x7E00,
                                    0x3555, 0xC1FF], np.uint16), rng.integers(0, 65536, 243, dtype=np.uint16)])
    i32 = np.concatenate([np.array([0, 1, -1, 255, 257, 511, 513, 2**24 + 1, -(2**31), 2**31 - 1, 0x1FFFF, 65535],
                                   np.int32), rng.integers(-2**31, 2**31, 244, dtype=np.int64).astype(np.int32)])
    del one
    A = bf16_bits(rng.standard_normal(512) * 4.0 ** rng.integers(-3, 4, 512))
    B = bf16_bits(rng.standard_normal(512) * 4.0 ** rng.integers(-3, 4, 512))
    C32 = (rng.standard_normal(256) * 8).astype(np.float32)
    C16 = (rng.standard_normal(256) * 8).astype(np.float16)
    return {"bf16_layouts": [bf16_bits(idx), bf16_bits(idx)],
            "bf16_convert": [f32, bf, f16.view(np.float16), i32],
            "bf16_gemm_f32": [A, B, C32],
            "bf16_gemm_f16": [A, B, C16]}


# bytes of each output buffer
SIZES = {"bf16_layouts": [1056 * 4], "bf16_convert": [512, 1024, 512, 512, 1024, 512],
         "bf16_gemm_f32": [1024, 512, 512, 1024, 512], "bf16_gemm_f16": [512, 512, 512, 1024, 512]}


def kernels() -> dict[str, str]:
    return {"bf16_layouts": layouts(), "bf16_convert": conversions(), "bf16_gemm_f32": gemm("f32"),
            "bf16_gemm_f16": gemm("f16")}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lines = ["set -u", 'OUT="$1"']
    for name, text in kernels().items():
        (out / f"{name}.spvasm").write_text(text)
        args = []
        for i, arr in enumerate(inputs()[name]):
            arr.tofile(out / f"{name}.in{i}.bin")
            args.append(f"{name}.in{i}.bin")
        args += [f"-:{n}" for n in SIZES[name]]
        lines.append(f'mkdir -p "$OUT/{name}"; VKRUN_OUT="$OUT/{name}" ./vkrun run {name}.spv 1 1 1 {" ".join(args)} '
                     f'> "$OUT/{name}/log.txt" 2>&1; echo "{name}: $?"')
    (out / "run.sh").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""The MulAdd probe shader: one KHR MulAdd per workgroup (one subgroup) on row-major tiles.

Bindings (set 0): 0 = A (tiles of M x K), 1 = B (K x N), 2 = C (M x N), 3 = D (M x N, written);
workgroup t reads tile t of each and writes D[t] = A[t] x B[t] + C[t]."""
from __future__ import annotations

_SCALARS = {"f16": ("%f16 = OpTypeFloat 16", 2), "f32": ("%f32 = OpTypeFloat 32", 4),
            "bf16": ("%bf16 = OpTypeFloat 16 BFloat16KHR", 2),
            "s8": ("%s8 = OpTypeInt 8 1", 1), "u8": ("%u8 = OpTypeInt 8 0", 1),
            "s32": ("%s32 = OpTypeInt 32 1", 4), "u32": (None, 4)}   # %u32 is declared anyway


def muladd_shader(a: str, b: str, c: str, M: int, N: int, K: int, subgroup_size: int = 32) -> str:
    """SPIR-V assembly (vulkan1.3) of the probe for A a (MxK) x B b (KxN) + C c (MxN) -> c."""
    comps = [a, b, c]
    for x in comps:
        if x not in _SCALARS:
            raise ValueError(f"no MulAdd probe for component {x}")
    caps = ["Shader", "VulkanMemoryModel", "CooperativeMatrixKHR"]
    exts = ["SPV_KHR_cooperative_matrix"]
    if any(x in ("f16", "bf16") for x in comps):
        caps += ["StorageBuffer16BitAccess"]
        exts += ["SPV_KHR_16bit_storage"]
    if "f16" in comps:
        caps += ["Float16"]
    if "bf16" in comps:
        caps += ["BFloat16TypeKHR", "BFloat16CooperativeMatrixKHR"]
        exts += ["SPV_KHR_bfloat16"]
    if any(x in ("s8", "u8") for x in comps):
        caps += ["Int8", "StorageBuffer8BitAccess"]
        exts += ["SPV_KHR_8bit_storage"]
    signed = [n for n, x in zip(("MatrixASignedComponentsKHR", "MatrixBSignedComponentsKHR"), (a, b), strict=True)
              if x == "s8"]
    if c == "s32":
        signed += ["MatrixCSignedComponentsKHR", "MatrixResultSignedComponentsKHR"]
    ops = "|".join(signed) if signed else "NoneKHR"
    decls: list[str] = []
    for x in dict.fromkeys(comps):
        if decl := _SCALARS[x][0]:
            decls.append(decl)
    lines = [*(f"OpCapability {x}" for x in caps), *(f'OpExtension "{e}"' for e in exts),
             "OpMemoryModel Logical Vulkan",
             'OpEntryPoint GLCompute %main "main" %bufA %bufB %bufC %bufD %wgid',
             f"OpExecutionMode %main LocalSize {subgroup_size} 1 1",
             "OpDecorate %wgid BuiltIn WorkgroupId"]
    for i, (name, x) in enumerate(zip("ABCD", (a, b, c, c), strict=False)):
        lines += [f"OpDecorate %arr{name} ArrayStride {_SCALARS[x][1]}", f"OpMemberDecorate %blk{name} 0 Offset 0",
                  f"OpDecorate %blk{name} Block", f"OpDecorate %buf{name} DescriptorSet 0",
                  f"OpDecorate %buf{name} Binding {i}"]
    lines += ["%void = OpTypeVoid", "%fn = OpTypeFunction %void", "%u32 = OpTypeInt 32 0",
              "%v3u32 = OpTypeVector %u32 3", *decls,
              "%u0 = OpConstant %u32 0", "%scope = OpConstant %u32 3", "%rowmajor = OpConstant %u32 0",
              *(f"%n{v} = OpConstant %u32 {v}" for v in sorted({M, N, K, M * K, K * N, M * N})),
              "%useA = OpConstant %u32 0", "%useB = OpConstant %u32 1", "%useC = OpConstant %u32 2",
              f"%matA = OpTypeCooperativeMatrixKHR %{a} %scope %n{M} %n{K} %useA",
              f"%matB = OpTypeCooperativeMatrixKHR %{b} %scope %n{K} %n{N} %useB",
              f"%matC = OpTypeCooperativeMatrixKHR %{c} %scope %n{M} %n{N} %useC"]
    for name, x in zip("ABCD", (a, b, c, c), strict=False):
        lines += [f"%arr{name} = OpTypeRuntimeArray %{x}", f"%blk{name} = OpTypeStruct %arr{name}",
                  f"%pblk{name} = OpTypePointer StorageBuffer %blk{name}",
                  f"%buf{name} = OpVariable %pblk{name} StorageBuffer"]
    for x in dict.fromkeys(comps):
        lines.append(f"%p{x} = OpTypePointer StorageBuffer %{x}")
    lines += ["%pin = OpTypePointer Input %v3u32", "%wgid = OpVariable %pin Input",
              "%main = OpFunction %void None %fn", "%entry = OpLabel",
              "%wg = OpLoad %v3u32 %wgid", "%t = OpCompositeExtract %u32 %wg 0",
              f"%oa = OpIMul %u32 %t %n{M * K}", f"%ob = OpIMul %u32 %t %n{K * N}", f"%oc = OpIMul %u32 %t %n{M * N}",
              f"%pa = OpAccessChain %p{a} %bufA %u0 %oa", f"%pb = OpAccessChain %p{b} %bufB %u0 %ob",
              f"%pc = OpAccessChain %p{c} %bufC %u0 %oc", f"%pd = OpAccessChain %p{c} %bufD %u0 %oc",
              f"%ma = OpCooperativeMatrixLoadKHR %matA %pa %rowmajor %n{K}",
              f"%mb = OpCooperativeMatrixLoadKHR %matB %pb %rowmajor %n{N}",
              f"%mc = OpCooperativeMatrixLoadKHR %matC %pc %rowmajor %n{N}",
              f"%md = OpCooperativeMatrixMulAddKHR %matC %ma %mb %mc {ops}",
              f"OpCooperativeMatrixStoreKHR %pd %md %rowmajor %n{N}",
              "OpReturn", "OpFunctionEnd"]
    return "\n".join(lines) + "\n"

// Correct on NVIDIA, wrong on AMD RDNA3 with wave64: a workgroup of 64 invocations that assumes it holds two
// subgroups of WARP = 32 invocations, one 16x16 tile each (tile = invocation index / WARP). Where a subgroup
// has 64 invocations (RDNA3 wave64, -S 64) the two "warps" are one subgroup, whose invocations then name two
// different tiles in one cooperative-matrix load: undefined on the GPU, an error in spvcoop. At subgroup size
// 16 (Intel) four subgroups share two tiles and race. The portable form uses gl_SubgroupID (and
// gl_NumSubgroups tiles), or sets the workgroup size from the subgroup size.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 64) in;
layout(constant_id = 0) const uint WARP = 32;
layout(set = 0, binding = 0) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1) buffer BufY { float y[]; };

void main()
{
    uint tile = gl_LocalInvocationIndex / WARP;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, x, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    m = m * 2.0;
    coopMatStore(m, y, tile * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}

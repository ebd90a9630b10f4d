// bf16 GEMM with its matrices passed as buffer device addresses in a uniform block, in the style of
// vk_cooperative_matrix_perf's buffer_reference builds (written for spvcoop's kernel suite, not a copy):
// D (M x N, f32) = A (M x K, bf16) x B (K x N, bf16) + C (M x N, f32), row-major, M = 32, N = 48, K = 64.
// The run spec names the buffers as '&a', '&b', '&c', '&d' in the uniform block `params`. Subgroup scope:
// 4 subgroups per workgroup (local size 128), each one 16 x 16 tile of a 32 x 32 workgroup tile; the
// workgroups of the last tile column compute 16 columns past N and store none of them (the tile test).
// Dispatch: (ceil(N / 32), M / 32, 1).
//
// build16 O0 +spv: -V --target-env vulkan1.3
// build16 opt: -V --target-env vulkan1.3 | spirv-opt -O
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_bfloat16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint M = 32;
layout(constant_id = 1) const uint N = 48;
layout(constant_id = 2) const uint K = 64;

layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer MatBF16 { bfloat16_t x[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer MatF32 { float x[]; };

layout(set = 0, binding = 0) uniform Params { MatBF16 a; MatBF16 b; MatF32 c; MatF32 d; } params;

void main()
{
    const uint sg = gl_SubgroupID;
    const uint m0 = gl_WorkGroupID.y * 32 + (sg / 2) * 16, n0 = gl_WorkGroupID.x * 32 + (sg % 2) * 16;
    if (n0 >= N) {
        return;   // a whole subgroup past the last column: uniform in the subgroup, as cooperative matrices need
    }
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc;
    coopMatLoad(acc, params.c.x, m0 * N + n0, N, gl_CooperativeMatrixLayoutRowMajor);
    for (uint k = 0; k < K; k += 16) {
        coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, params.a.x, m0 * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, params.b.x, k * N + n0, N, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, params.d.x, m0 * N + n0, N, gl_CooperativeMatrixLayoutRowMajor);
}

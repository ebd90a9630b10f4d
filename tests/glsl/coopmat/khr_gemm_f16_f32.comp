// KHR cooperative matrix GEMM, f16 inputs, f32 accumulator, 16x16x16 tiles, 4 subgroups per workgroup.
// Computes C = A * B + C0 with M = N = K = 128.
//   binding 0: A, 128x128 float16_t, row-major
//   binding 1: B, 128x128 float16_t, row-major
//   binding 2: C0, 128x128 float, row-major (input, added to the product)
//   binding 3: C, 128x128 float, row-major (output)
// Dispatch: local_size 128 = 4 subgroups of 32, vkCmdDispatch(N/32, M/32, 1) = (4, 4, 1).
// Each workgroup computes a 32x32 block of C; subgroup s computes the 16x16 tile at
// (row 16*(s/2), col 16*(s%2)) inside it, looping over K in steps of 16.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;

const uint M = 128;
const uint N = 128;
const uint K = 128;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) readonly buffer BufC0 { float c0[]; };
layout(set = 0, binding = 3) writeonly buffer BufC { float c[]; };

void main()
{
    uint sg = gl_SubgroupID;
    uint tileRow = gl_WorkGroupID.y * 32 + (sg / 2) * 16;
    uint tileCol = gl_WorkGroupID.x * 32 + (sg % 2) * 16;

    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc;
    coopMatLoad(acc, c0, tileRow * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
    for (uint k = 0; k < K; k += 16) {
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, tileRow * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, k * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, c, tileRow * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
}

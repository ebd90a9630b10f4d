// KHR cooperative matrix GEMM, int8 inputs, int32 accumulator, 16x16x32 tiles (MxNxK).
// Computes C = A * B (exact integer arithmetic, signed) with M = 48, N = 32, K = 128.
//   binding 0: A, 48x128 int8_t, row-major
//   binding 1: B, 128x32 int8_t, stored column-major (element (k, n) at n*128 + k)
//   binding 2: C, 48x32 int32, row-major (output)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/16, M/16, 1) = (2, 3, 1).
// Each workgroup computes one 16x16 tile of C with 4 K steps of 32.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint M = 48;
const uint N = 32;
const uint K = 128;

layout(set = 0, binding = 0) readonly buffer BufA { int8_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { int8_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { int32_t c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 16;

    coopmat<int32_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<int32_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0);
    for (uint k = 0; k < K; k += 32) {
        coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> ma;
        coopmat<int8_t, gl_ScopeSubgroup, 32, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, tileRow * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, tileCol * K + k, K, gl_CooperativeMatrixLayoutColumnMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, c, tileRow * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
}

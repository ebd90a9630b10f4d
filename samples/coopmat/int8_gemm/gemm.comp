// KHR cooperative-matrix int8 GEMM: C = A * B, s8 inputs, s32 accumulator (exact), 16x16x32 tiles.
// M = 32, N = 48, K = 128; A row-major, B column-major (element (k, n) at n*K + k), C row-major.
// One subgroup per 16x16 tile of C: dispatch (N/16, M/16, 1) = (3, 2, 1), K loop in steps of 32.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;
const uint N = 48;
const uint K = 128;

layout(set = 0, binding = 0) readonly buffer BufA { int8_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { int8_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { int32_t c[]; };

void main()
{
    uint row = gl_WorkGroupID.y * 16;
    uint col = gl_WorkGroupID.x * 16;
    coopmat<int32_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<int32_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0);
    for (uint k = 0; k < K; k += 32) {
        coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> ma;
        coopmat<int8_t, gl_ScopeSubgroup, 32, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, row * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, col * K + k, K, gl_CooperativeMatrixLayoutColumnMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, c, row * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
}

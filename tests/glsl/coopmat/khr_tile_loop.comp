// KHR cooperative-matrix loads and stores inside a loop run by one subgroup (the interpreter's single-subgroup
// load/store path, tests/interp/test_fast_paths.py): per trip t < TILES, A_t column-major with a padded stride,
// B_t row-major, acc += A_t * B_t, acc staged through shared memory row-major and read back column-major
// (its transpose), which is stored column-major with a padded stride:
//   binding 0: { float16_t a[]; }: A_t(r, k) = a[t*320 + k*20 + r]          (column-major, stride 20)
//   binding 1: { float16_t b[]; }: B_t(k, n) = b[t*256 + k*STRIDE_B + n]     (row-major, stride STRIDE_B)
//   binding 2: { float c[]; } (out): c[t*384 + i*24 + j] = acc_t(i, j), acc_t = sum over u <= t of A_u * B_u
// Spec constants: 0 TILES (3), 1 STRIDE_B (16; below 16 rows of B overlap), 2 SKEW (0; 1 gives odd invocations
// another A pointer: not uniform in the subgroup, an error).
// Sizes for TILES = 3: a >= 956, b >= 768, c >= 1144. Dispatch: local_size 32 (one subgroup), (1, 1, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;
layout(constant_id = 0) const uint TILES = 3;
layout(constant_id = 1) const uint STRIDE_B = 16;
layout(constant_id = 2) const uint SKEW = 0;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) buffer BufC { float c[]; };

shared float stage[16 * 16];

void main()
{
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (uint t = 0; t < TILES; ++t) {
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, t * 320u + SKEW * (gl_LocalInvocationID.x & 1u), 20, gl_CooperativeMatrixLayoutColumnMajor);
        coopMatLoad(mb, b, t * 256u, STRIDE_B, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
        coopMatStore(acc, stage, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
        barrier();
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> back;
        coopMatLoad(back, stage, 0, 16, gl_CooperativeMatrixLayoutColumnMajor);
        coopMatStore(back, c, t * 384u, 24, gl_CooperativeMatrixLayoutColumnMajor);
        barrier();
    }
}

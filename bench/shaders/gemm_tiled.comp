// The GEMM of samples/coopmat/khr_gemm/gemm.comp (C = A * B + C0, f16 inputs, f32 accumulator,
// 16x16x16 tiles, row-major), but ONE workgroup of one subgroup loops over every 16x16 tile of C:
// dispatch (1, 1, 1); M, N, K are specialization constants 0, 1, 2. A loop-heavy shader: the
// interpreter's cost per executed instruction, not the dispatch's width (bench/bench_loops.py).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;
layout(constant_id = 0) const uint M = 64;
layout(constant_id = 1) const uint N = 64;
layout(constant_id = 2) const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) readonly buffer BufC0 { float c0[]; };
layout(set = 0, binding = 3) writeonly buffer BufC { float c[]; };

void main()
{
    for (uint row = 0; row < M; row += 16) {
        for (uint col = 0; col < N; col += 16) {
            coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc;
            coopMatLoad(acc, c0, row * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
            for (uint k = 0; k < K; k += 16) {
                coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
                coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
                coopMatLoad(ma, a, row * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
                coopMatLoad(mb, b, k * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
                acc = coopMatMulAdd(ma, mb, acc);
            }
            coopMatStore(acc, c, row * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
        }
    }
}

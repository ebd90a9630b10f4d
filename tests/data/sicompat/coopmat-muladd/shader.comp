#version 450 core
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
// KHR MulAdd: C = A (f16) * B (f16) + C (f32), M x M tiles with M a spec constant (16 unless given).
layout(constant_id = 0) const uint M = 16;
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; } bufA;
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; } bufB;
layout(set = 0, binding = 2) buffer BufC { float c[]; } bufC;
void main() {
    coopmat<float16_t, gl_ScopeSubgroup, M, M, gl_MatrixUseA> A;
    coopmat<float16_t, gl_ScopeSubgroup, M, M, gl_MatrixUseB> B;
    coopmat<float, gl_ScopeSubgroup, M, M, gl_MatrixUseAccumulator> C;
    coopMatLoad(A, bufA.a, 0, M, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(B, bufB.b, 0, M, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(C, bufC.c, 0, M, gl_CooperativeMatrixLayoutRowMajor);
    C = coopMatMulAdd(A, B, C);
    coopMatStore(C, bufC.c, 0, M, gl_CooperativeMatrixLayoutRowMajor);
}

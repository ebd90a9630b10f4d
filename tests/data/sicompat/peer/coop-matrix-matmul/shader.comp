#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/matmul): f16 A and B loaded from the
// same array with different shapes, an f16 accumulator constructed from a scalar, MulAdd, stored over the
// start of that array.
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

const uint M = 4;
const uint K = 8;

layout(set = 0, binding = 0) coherent buffer Halves {
    float16_t x[M * K];
} halves;

void main() {
    coopmat<float16_t, gl_ScopeSubgroup, M, K, gl_MatrixUseA> a;
    coopmat<float16_t, gl_ScopeSubgroup, K, M, gl_MatrixUseB> b;
    coopMatLoad(a, halves.x, 0, K, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, halves.x, 0, M, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float16_t, gl_ScopeSubgroup, M, M, gl_MatrixUseAccumulator> c =
        coopmat<float16_t, gl_ScopeSubgroup, M, M, gl_MatrixUseAccumulator>(0.5);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, halves.x, 0, M, gl_CooperativeMatrixLayoutRowMajor);
}

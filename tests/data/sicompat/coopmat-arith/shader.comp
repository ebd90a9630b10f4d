#version 450 core
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
// KHR cooperative matrices of f16: loads in both layouts, element-wise arithmetic, a row-major store.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Block { float16_t x[64]; } block;
void main() {
    coopmat<float16_t, gl_ScopeSubgroup, 8, 8, gl_MatrixUseA> a;
    coopmat<float16_t, gl_ScopeSubgroup, 8, 8, gl_MatrixUseA> b;
    coopMatLoad(a, block.x, 0, 8, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, block.x, 0, 8, gl_CooperativeMatrixLayoutColumnMajor);
    a = a + b;
    a = -a;
    b = b - a;
    a = a / b;
    coopMatStore(a, block.x, 0, 8, gl_CooperativeMatrixLayoutRowMajor);
}

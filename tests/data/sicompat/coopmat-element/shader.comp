#version 450 core
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
// A 3x5 matrix written element by element through length() (fewer elements than lanes).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Block { float x[15]; } block;
void main() {
    coopmat<float, gl_ScopeSubgroup, 3, 5, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, block.x, 0, 5, gl_CooperativeMatrixLayoutRowMajor);
    for (int i = 0; i < m.length(); ++i) m[i] = m[i] * 2.0 + 1.0;
    coopMatStore(m, block.x, 0, 5, gl_CooperativeMatrixLayoutRowMajor);
}

// Adds the element index i to element i of every invocation: depends on the order in which an invocation
// holds its elements (mesa-nvk and nvidia hold the same elements of a 16x16 A in another order).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1) buffer Y { float16_t y[]; };
void main() {
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
  coopMatLoad(a, x, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
  for (int i = 0; i < a.length(); ++i) a[i] = a[i] + float16_t(i);
  coopMatStore(a, y, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}

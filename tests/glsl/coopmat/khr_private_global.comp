#version 450
// A cooperative matrix in a global (Private) variable: loaded from A (f16 16x16, row-major),
// then every invocation sums the elements it holds (length() loop) into o[invocation]. Dispatch (1,1,1).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set=0, binding=0) buffer A { float16_t a[]; };
layout(set=0, binding=1) buffer O { float o[]; };
coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> g;
void main() {
  coopMatLoad(g, a, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
  float s = 0.0;
  for (int i = 0; i < g.length(); i++) s += float(g[i]);
  o[gl_LocalInvocationIndex] = s;
}

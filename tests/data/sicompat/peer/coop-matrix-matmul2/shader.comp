#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/matmul2): more invocations (7) than
// matrix elements (2x2), three arrays of one block, C declared with use B (as in that example) given to
// coopMatMulAdd as its accumulator.
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 7, local_size_y = 1, local_size_z = 1) in;

const uint N = 2;

layout(set = 0, binding = 0) coherent buffer Three {
    float x[N * N];
    float y[N * N];
    float z[N * N];
} three;

void main() {
    coopmat<float, gl_ScopeSubgroup, N, N, gl_MatrixUseA> a;
    coopmat<float, gl_ScopeSubgroup, N, N, gl_MatrixUseB> b;
    coopmat<float, gl_ScopeSubgroup, N, N, gl_MatrixUseB> c;
    coopMatLoad(a, three.x, 0, N, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, three.y, 0, N, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(c, three.z, 0, N, gl_CooperativeMatrixLayoutRowMajor);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, three.z, 0, N, gl_CooperativeMatrixLayoutRowMajor);
}

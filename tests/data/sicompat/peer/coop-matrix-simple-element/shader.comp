#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/simple-element): two f16 matrices
// loaded from one array (row-major and column-major), combined with element-wise *, -, unary - and /.
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

const uint ROWS = 2;
const uint COLS = 6;

layout(set = 0, binding = 0) coherent buffer Block {
    float16_t x[ROWS * COLS];
} block;

void main() {
    coopmat<float16_t, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA> p;
    coopmat<float16_t, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA> q;
    coopMatLoad(p, block.x, 0, COLS, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(q, block.x, 0, ROWS, gl_CooperativeMatrixLayoutColumnMajor);

    coopmat<float16_t, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA> r = p * q;
    r = r - p;
    r = -r;
    r = r / q;
    coopMatStore(r, block.x, 0, COLS, gl_CooperativeMatrixLayoutRowMajor);
}

#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/load-store): an accumulator matrix
// loaded column-major and stored row-major into the same array.
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

const uint ROWS = 4;
const uint COLS = 6;

layout(set = 0, binding = 0) coherent buffer Grid {
    float x[ROWS * COLS];
} grid;

void main() {
    coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, grid.x, 0, ROWS, gl_CooperativeMatrixLayoutColumnMajor);
    coopMatStore(m, grid.x, 0, COLS, gl_CooperativeMatrixLayoutRowMajor);
}

#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/difficult-init): a cooperative
// matrix in a Private (global) variable with no initialiser, written element by element, and one
// constructed from a scalar then updated element by element with +=; small odd sizes (3x4 f32, use A).
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

const uint ROWS = 3;
const uint COLS = 4;
const uint SIZE = ROWS * COLS;

layout(set = 0, binding = 0) coherent buffer Pair {
    float first[SIZE];
    float second[SIZE];
} pair;

coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA> g;

void main() {
    for (uint i = 0; i < g.length(); ++i) {
        g[i] = 2.5;   // the same value in every element: the result does not depend on the layout
    }
    coopMatStore(g, pair.first, 0, COLS, gl_CooperativeMatrixLayoutRowMajor);

    coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA> h =
        coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA>(1.5);
    for (uint i = 0; i < h.length(); ++i) {
        h[i] += 3.0;
    }
    coopMatStore(h, pair.second, 0, ROWS, gl_CooperativeMatrixLayoutColumnMajor);
}

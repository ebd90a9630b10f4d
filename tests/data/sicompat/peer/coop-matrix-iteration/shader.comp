#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/iteration): a matrix loaded at an
// element offset, each element passed through a function in a loop over length(), stored at another
// offset with another stride, in the same buffer.
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

const uint ROWS = 4;
const uint COLS = 3;

layout(set = 0, binding = 0) coherent buffer Values {
    float x[18];
} values;

float shape(float v) {
    return max(v, 0.0) * 0.75 + 1.0;
}

void main() {
    coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseA> a;
    coopMatLoad(a, values.x, 2, COLS, gl_CooperativeMatrixLayoutRowMajor);
    for (uint i = 0; i < a.length(); ++i) {
        a[i] = shape(a[i]);
    }
    coopMatStore(a, values.x, 2, 4, gl_CooperativeMatrixLayoutRowMajor);
}

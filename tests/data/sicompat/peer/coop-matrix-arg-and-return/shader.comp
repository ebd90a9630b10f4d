#version 450 core
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/arg-and-return): a cooperative matrix
// passed to and returned from a function, sizes from specialization constants (the buffer's array length
// too) and the workgroup's x size from a specialization constant given by its result id.
#pragma use_vulkan_memory_model
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable

layout(constant_id = 1) const int R = 16;
layout(constant_id = 2) const int C = 16;
const int COUNT = R * C;

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) coherent buffer Data {
    float16_t v[COUNT];
} data;

coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA> flipDouble(coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA> m)
{
    return -(m * float16_t(2.0));
}

void main()
{
    coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA> a;
    coopMatLoad(a, data.v, 0, C, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA> b = flipDouble(a);
    coopMatStore(b, data.v, 0, C, gl_CooperativeMatrixLayoutRowMajor);
}

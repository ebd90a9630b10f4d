#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/coop-matrix/array): arrays of cooperative
// matrices, copied element by element in a loop bounded by length(), between two runtime-array buffers
// (bindings 0 and 3). Loaded column-major, stored row-major: the output is the transpose, plus one.
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer Src { float16_t val[]; } src;
layout(set = 0, binding = 3, std430) buffer Dst { float16_t val[]; } dst;

void main()
{
    const uint STRIDE = 16;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> tmp;
    coopMatLoad(tmp, src.val, 0, STRIDE, gl_CooperativeMatrixLayoutColumnMajor);

    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ins[3];
    ins[2] = tmp;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> outs[3];
    for (int i = 0; i < tmp.length(); i++)
    {
        outs[0][i] = ins[2][i] + float16_t(1.0);
    }
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> res = outs[0];
    coopMatStore(res, dst.val, 0, STRIDE, gl_CooperativeMatrixLayoutRowMajor);
}

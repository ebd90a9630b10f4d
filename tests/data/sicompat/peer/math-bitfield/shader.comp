#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/math/bitfield): bitfieldInsert on uvec4 with
// offset and bit count from a push-constant int array, 16 invocations, a std140 array of uvec4.
layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Operands
{
    uvec4 insert;
    int vals[4];
} ops;

layout(std140, binding = 2) buffer Out {
   uvec4 res[16];
};

void main()
{
    uint i = gl_LocalInvocationIndex;
    uvec4 base = uvec4(res[i].x, res[i].x ^ 0xFFu, 0u, ~0u);
    res[i] = bitfieldInsert(base, ops.insert, ops.vals[i / 4u], ops.vals[i % 4u]);
}

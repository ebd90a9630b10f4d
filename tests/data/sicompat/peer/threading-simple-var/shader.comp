#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/threading/simple-var): every invocation of a
// workgroup writes a value from its local index into a runtime array.
layout(local_size_x = 6, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer Result
{
    uint val[];
} result;

void main()
{
    uint mine = gl_LocalInvocationIndex * 3u + 2u;
    result.val[gl_LocalInvocationIndex] = mine;
}

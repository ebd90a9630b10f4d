#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/extra-nop): GLSL.std.450 Modf with its whole
// part written through a swizzled out-parameter, in a module carrying debug instructions (OpLine, OpSource:
// spvcoop compiles GLSL with -g); blocks and instances named as a decompiler names them.
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer _11_12
{
    vec2 _m0[1];
} _12;

layout(set = 0, binding = 1, std430) writeonly buffer _13_14
{
    vec4 _m0[1];
} _14;

void main()
{
    vec4 parts;
    parts.xz = modf(_12._m0[0], parts.yw);
    _14._m0[0] = parts;
}

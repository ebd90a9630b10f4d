#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/threading/invocations): the workgroup size from
// three specialization constants (given by result id; three runs with different sizes), gl_WorkGroupSize in
// a global, 8- and 16-bit storage and arithmetic, a push-constant block with a nested struct.
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

struct Fields
{
    uint stride;
    float scale;
};

layout(set = 0, binding = 0, std430) buffer Initial
{
    uint8_t data[];
} initial;

layout(set = 0, binding = 1, std430) buffer Ending
{
    uint16_t values[];
} ending;

layout(push_constant, std140) uniform Push
{
    uvec3 base;
    Fields fields;
} push;

uvec3 size = gl_WorkGroupSize;

void main()
{
    uint idx = gl_LocalInvocationIndex;
    uvec3 g = gl_GlobalInvocationID + push.base;
    uint16_t v = uint16_t(initial.data[idx]) * uint16_t(g.x + 2u * g.y + 3u * g.z);
    v += uint16_t(size.x * 100u + size.y * 10u + size.z);
    ending.values[idx * push.fields.stride] = uint16_t(float(v) * push.fields.scale);
}

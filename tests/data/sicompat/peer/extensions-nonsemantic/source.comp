// Written for spvcoop: the source of shader.spvasm (see its header); not run itself.
#version 450
// nonsemantic: bytes scaled by a float whose bits come in a push constant (fma, floor), 8-bit storage
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

struct Params
{
    uint scale_bits;
    uint bias;
    uint count;
};

layout(set = 0, binding = 0, std430) buffer Src { uint8_t bytes[]; } src;
layout(set = 0, binding = 1, std430) buffer Dst { uint8_t bytes[]; } dst;

layout(push_constant, std430) uniform Push
{
    uvec2 origin;
    Params params;
} push;

void main()
{
    uint i = gl_LocalInvocationIndex * push.origin.y + push.origin.x;
    if (i < push.params.count)
    {
        float s = uintBitsToFloat(push.params.scale_bits);
        float v = fma(float(src.bytes[i]), s, float(push.params.bias));
        dst.bytes[i] = uint8_t(floor(v));
    }
}

#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer H { float16_t h[]; };
layout(set = 0, binding = 1) readonly buffer B8 { int8_t s8[]; };
layout(set = 0, binding = 2) readonly buffer U16 { uint16_t u16[]; };
layout(set = 0, binding = 3) buffer Out { float f[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t x = h[i] * float16_t(2.0);
    f[i] = float(x) + float(s8[i]) + float(u16[i]);
}

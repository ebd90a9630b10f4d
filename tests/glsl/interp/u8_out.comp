#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(set = 0, binding = 1) buffer Out { uint8_t b[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    b[i] = uint8_t(a[i] * 3u + 7u);
}

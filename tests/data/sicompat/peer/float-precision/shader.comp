#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/float-precision): f32 values converted to f16
// (rounded, saturating to the largest f16 below the overflow midpoint, NaN kept), then f16 arithmetic.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Full { float val[4]; } full;
layout(set = 0, binding = 1, std430) buffer Less {
    float16_t step1[4];
    float16_t step2[2];
    float16_t step3;
} less;

void main()
{
    for (int i = 0; i < 4; i++)
        less.step1[i] = float16_t(full.val[i]);
    less.step2[0] = less.step1[0] + less.step1[2];
    less.step2[1] = less.step1[1] + less.step1[3];
    less.step3 = less.step2[0] * less.step2[1];
}

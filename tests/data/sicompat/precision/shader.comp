#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
// Results in f16, f32 and f64: compared at 3, 6 and 6 significant digits, NaN equal to NaN.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Values {
    float x[4];
    float16_t half_third[4];
    float third[4];
    float64_t wide_third[4];
    float root[4];
} values;
void main() {
    uint i = gl_LocalInvocationID.x;
    float x = values.x[i];
    values.half_third[i] = float16_t(x / 3.0);
    values.third[i] = x / 3.0;
    values.wide_third[i] = float64_t(x) / 3.0lf;
    values.root[i] = sqrt(x);     // sqrt(-1) is NaN
}

#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Invocation 2 squares 300 in f16: inf from finite operands (65504 is the largest f16); the inf - inf after it is
// NaN from non-finite operands, not where it came from.
layout(local_size_x = 4) in;
layout(binding = 0) buffer B { float16_t x[]; };
layout(binding = 1) buffer C { float y[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t a = x[i];
    float16_t s = a * a;
    y[i] = float(s) - float(s);
}

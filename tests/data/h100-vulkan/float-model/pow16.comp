#version 450
// f16 pow and smoothstep taken apart (issue 36): one expression of every f16 input x (the invocation index's bits),
// FUNC (specialization constant 0) picks it; p (binding 1) holds the other operands, read from memory.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint FUNC = 0;
layout(binding = 0) writeonly buffer BO { float16_t o[]; };
layout(binding = 1) readonly buffer BP { float16_t p[]; };
float16_t f(float16_t x) {
    switch (FUNC) {
    case 0: return exp2(x);
    case 1: return exp2(-x);
    case 2: return exp2(x * p[0]);
    case 3: return pow(p[0], x);
    case 4: return exp2(x * log2(p[0]));
    case 5: return pow(x, p[0]);
    case 6: return exp2(p[0] * log2(x));
    case 7: return float16_t(pow(float(p[0]), float(x)));
    case 8: return log2(x) * p[0];
    case 9: { float16_t t = clamp((x - p[0]) / (p[1] - p[0]), float16_t(0), float16_t(1));
              return t * t * (float16_t(3) - float16_t(2) * t); }
    case 10: return smoothstep(p[0], p[1], x);
    case 11: return clamp((x - p[0]) / (p[1] - p[0]), float16_t(0), float16_t(1));
    case 12: return float16_t(smoothstep(float(p[0]), float(p[1]), float(x)));
    case 13: return float16_t(exp2(float(x)));
    default: return x;
    }
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = f(uint16BitsToHalf(uint16_t(i & 0xffffu)));
}

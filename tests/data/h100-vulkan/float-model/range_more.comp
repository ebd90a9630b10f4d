#version 450
// range.comp's twin for the functions measured later: one function of every float of a range of bit patterns,
// out[i] = f(bits BASE + i) (2-D dispatch of 256-wide groups; float16_t: BASE + i modulo 2^16, every f16 input).
// FUNC (specialization constant 0) picks f; BASE is constant 1; p (binding 1) holds the other operands of the
// two-operand functions (read from memory so that the compiler cannot fold them).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint FUNC = 0;
layout(constant_id = 1) const uint BASE = 0;
layout(binding = 0) writeonly buffer BO { FLOAT o[]; };
layout(binding = 1) readonly buffer BP { FLOAT p[]; };
FLOAT f(FLOAT x) {
    switch (FUNC) {
    case 0: return tan(x);
    case 1: return asin(x);
    case 2: return acos(x);
    case 3: return atan(x);
    case 4: return sinh(x);
    case 5: return cosh(x);
    case 6: return asinh(x);
    case 7: return acosh(x);
    case 8: return atanh(x);
    case 9: return tanh(x);
    case 10: return pow(x, p[0]);
    case 11: return pow(p[0], x);
    case 12: return atan(x, p[0]);
    case 13: return atan(p[0], x);
    case 14: return smoothstep(p[0], p[1], x);
    default: return -x;
    }
}
void main() {
    uint i = gl_WorkGroupID.y * gl_NumWorkGroups.x * 256 + gl_GlobalInvocationID.x;
#ifdef HALF
    FLOAT x = uint16BitsToHalf(uint16_t((BASE + i) & 0xffffu));
#else
    FLOAT x = uintBitsToFloat(BASE + i);
#endif
    o[i] = f(x);
}

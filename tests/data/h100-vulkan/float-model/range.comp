#version 450
// One function of every float of a range of bit patterns: out[i] = f(bits BASE + i), i = the invocation's
// global index (2-D dispatch of 256-wide groups). FLOAT float: 32-bit patterns; float16_t: 16-bit ones
// (BASE + i taken modulo 2^16). FUNC (specialization constant 0) picks f; BASE is constant 1.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint FUNC = 0;
layout(constant_id = 1) const uint BASE = 0;
layout(binding = 0) writeonly buffer BO { FLOAT o[]; };
FLOAT f(FLOAT x) {
    switch (FUNC) {
    case 0: return FLOAT(1.0) / x;
    case 1: return inversesqrt(x);
    case 2: return sqrt(x);
    case 3: return exp2(x);
    case 4: return log2(x);
    case 5: return exp(x);
    case 6: return log(x);
    case 7: return sin(x);
    case 8: return cos(x);
    case 9: return tanh(x);
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

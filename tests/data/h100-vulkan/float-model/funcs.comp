#version 450
// The GLSL.std.450 float functions scalar.comp does not cover, in plain (scalar) code, FLOAT = float or float16_t
// (HALF defined for float16_t): for element i of the inputs x, y, z, w (bindings 0-3), function k's result goes
// to o[k * n + i] (binding 4). The inverse and hyperbolic functions (which the driver builds from the
// special-function unit), and the ones that should be exact (rounding, ldexp/frexp, modf, mod) or are plain
// arithmetic (reflect, refract, cross, faceforward, determinant, inverse), and the pack/unpack conversions (f32).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer BX { FLOAT x[]; };
layout(binding = 1) readonly buffer BY { FLOAT y[]; };
layout(binding = 2) readonly buffer BZ { FLOAT z[]; };
layout(binding = 3) readonly buffer BW { FLOAT w[]; };
layout(binding = 4) writeonly buffer BO { FLOAT o[]; };
#ifdef HALF
#define BITS(u) uint16BitsToHalf(uint16_t(u))
#define UBITS(v) uint(halfBitsToUint16(v))
#else
#define BITS(u) uintBitsToFloat(u)
#define UBITS(v) floatBitsToUint(v)
#endif
FLOAT f(uint k, uint i, FLOAT a, FLOAT b, FLOAT c, FLOAT d) {
    int e;
    FLOAT ip;
    switch (k) {
    case 0: return tan(a);
    case 1: return asin(a);
    case 2: return acos(a);
    case 3: return atan(a);
    case 4: return atan(a, b);
    case 5: return sinh(a);
    case 6: return cosh(a);
    case 7: return asinh(a);
    case 8: return acosh(a);
    case 9: return atanh(a);
    case 10: return ldexp(a, int(i % 97u) - 48);
    case 11: return frexp(a, e);
    case 12: frexp(a, e); return FLOAT(e);
    case 13: return fract(a);
    case 14: return mod(a, b);
    case 15: return modf(a, ip);
    case 16: modf(a, ip); return ip;
    case 17: return round(a);
    case 18: return roundEven(a);
    case 19: return trunc(a);
    case 20: return floor(a);
    case 21: return ceil(a);
    case 22: return step(a, b);
    case 23: return refract(FLOAT2(a, b), FLOAT2(c, d), FLOAT(0.625)).x;
    case 24: return refract(FLOAT2(a, b), FLOAT2(c, d), FLOAT(0.625)).y;
    case 25: return reflect(FLOAT2(a, b), FLOAT2(c, d)).x;
    case 26: return reflect(FLOAT2(a, b), FLOAT2(c, d)).y;
    case 27: return cross(FLOAT3(a, b, c), FLOAT3(d, c, b)).x;
    case 28: return cross(FLOAT3(a, b, c), FLOAT3(d, c, b)).z;
    case 29: return faceforward(FLOAT2(a, b), FLOAT2(c, d), FLOAT2(d, a)).x;
    case 30: return clamp(a, b, c);
    case 31: return min(a, b);
    case 32: return abs(a);
    case 33: return sign(a);
    case 34: return degrees(a);
    case 35: return radians(a);
    case 36: return determinant(F2X2(a, b, c, d));
    case 37: return inverse(F2X2(a, b, c, d))[0][0];
    case 38: return inverse(F2X2(a, b, c, d))[1][0];
#ifndef HALF
    case 39: return BITS(packHalf2x16(vec2(a, b)));
    case 40: return unpackHalf2x16(UBITS(a)).x;
    case 41: return BITS(packUnorm2x16(vec2(a, b)));
    case 42: return BITS(packSnorm2x16(vec2(a, b)));
    case 43: return BITS(packUnorm4x8(vec4(a, b, c, d)));
    case 44: return BITS(packSnorm4x8(vec4(a, b, c, d)));
    case 45: return unpackUnorm2x16(UBITS(a)).x;
    case 46: return unpackSnorm4x8(UBITS(a)).y;
#endif
    default: return a;
    }
}
#define NF 47
void main() {
    uint i = gl_GlobalInvocationID.x, n = gl_NumWorkGroups.x * 64;
    FLOAT a = x[i], b = y[i], c = z[i], d = w[i];
    for (uint k = 0; k < NF; k++)
        o[k * n + i] = f(k, i, a, b, c, d);
}

// GLSL.std.450 extended instructions and other built-in functions on vectors:
// trigonometry, exp/log/pow, fma, clamp/mix/step/smoothstep, floor/fract/mod/round, min/max, abs/sign,
// length/normalize/cross/reflect, packing (packHalf2x16, unpackUnorm4x8), bit ops (bitCount,
// findMSB, findLSB, bitfieldExtract/Insert/Reverse), frexp/ldexp, isnan/isinf.
// For each i (N = 64):
//   binding 0: In { vec4 a[]; }   binding 1: Out { vec4 o[]; } (4 per i, output, see code)
//   binding 2: OutU { uvec4 u[]; } (1 per i, output, bit functions of floatBitsToUint(a.x))
// Dispatch: local_size 64, vkCmdDispatch(1, 1, 1).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer In { vec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { vec4 o[]; };
layout(std430, set = 0, binding = 2) writeonly buffer OutU { uvec4 u[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec4 v = a[i];
    o[4 * i + 0] = vec4(sin(v.x) + cos(v.y), atan(v.y, v.x), exp(v.z * 0.1) - log(abs(v.w) + 1.0), pow(abs(v.x), 1.5));
    o[4 * i + 1] = vec4(fma(v.x, v.y, v.z), clamp(v.w, -1.0, 1.0), mix(v.x, v.y, 0.25), smoothstep(-1.0, 1.0, v.z))
                 + step(0.0, v);
    o[4 * i + 2] = vec4(floor(v.x) + fract(v.y), mod(v.z, 3.0), roundEven(v.w), min(v.x, v.y) * max(v.z, v.w))
                 * sign(v) + abs(v);
    vec3 n = normalize(v.xyz + vec3(0.0, 0.0, 1e-3));
    vec3 r = reflect(n, vec3(0.0, 1.0, 0.0));
    vec3 c = cross(n, r);
    int e;
    float m = frexp(v.w, e);
    float special = (isnan(v.x) || isinf(v.y)) ? -1.0 : 1.0;
    o[4 * i + 3] = vec4(length(c) + dot(n, r), ldexp(m, e + 1), distance(v.xy, v.zw), special);

    uint bits = floatBitsToUint(v.x);
    uint packed = packHalf2x16(v.xy);
    vec4 un = unpackUnorm4x8(bits);
    u[i] = uvec4(uint(bitCount(bits)) | (uint(findMSB(bits) + 1) << 8) | (uint(findLSB(bits) + 1) << 16),
                 bitfieldExtract(bits, 3, 9) ^ bitfieldReverse(packed),
                 bitfieldInsert(packed, bits, 8, 12),
                 floatBitsToUint(un.x + un.w));
}

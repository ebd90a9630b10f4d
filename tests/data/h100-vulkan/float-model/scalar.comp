#version 450
// Float expressions of four inputs in plain (scalar) code, FLOAT = float or float16_t: for element i of the
// inputs x, y, z, w (bindings 0-3), function k's result goes to o[k * n + i] (binding 4). Shows contraction
// (which shapes become one fma, and which product), flushing, NaN results, and the special functions.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer BX { FLOAT x[]; };
layout(binding = 1) readonly buffer BY { FLOAT y[]; };
layout(binding = 2) readonly buffer BZ { FLOAT z[]; };
layout(binding = 3) readonly buffer BW { FLOAT w[]; };
layout(binding = 4) writeonly buffer BO { FLOAT o[]; };
#define V2 FLOAT2
FLOAT f(uint k, FLOAT a, FLOAT b, FLOAT c, FLOAT d) {
    switch (k) {
    case 0: return a * b + c;
    case 1: return a * b + c * d;
    case 2: return (a * b) * c + d;
    case 3: return dot(FLOAT2(a, b), FLOAT2(c, d));
    case 4: return dot(FLOAT3(a, b, c), FLOAT3(d, c, b));
    case 5: return dot(FLOAT4(a, b, c, d), FLOAT4(d, c, b, a));
    case 6: return mix(a, b, c);
    case 7: return fma(a, b, c);
    case 8: return smoothstep(a, b, c);
    case 9: return length(FLOAT2(a, b));
    case 10: return normalize(FLOAT2(a, b)).x;
    case 11: return a * b - c;
    case 12: return c - a * b;
    case 13: { precise FLOAT r = a * b + c * d; return r; }
    case 14: return a * b - c * d;
    case 15: return a / b;
    case 16: return FLOAT(1.0) / a;
    case 17: return exp(a);
    case 18: return exp2(a);
    case 19: return log(a);
    case 20: return log2(a);
    case 21: return sqrt(a);
    case 22: return inversesqrt(a);
    case 23: return sin(a);
    case 24: return cos(a);
    case 25: return tanh(a);
    case 26: return pow(a, b);
    case 27: return a * b;
    case 28: return a + b;
    case 29: return (a + b) * c + d;
    case 30: return a * b + c + d;
    case 31: return length(FLOAT3(a, b, c));
    case 32: return distance(FLOAT2(a, b), FLOAT2(c, d));
    case 33: return max(a, b);
    case 34: return -a;
    default: return a;
    }
}
#define NF 36
void main() {
    uint i = gl_GlobalInvocationID.x, n = gl_NumWorkGroups.x * 64;
    FLOAT a = x[i], b = y[i], c = z[i], d = w[i];
    for (uint k = 0; k < NF; k++)
        o[k * n + i] = f(k, a, b, c, d);
}

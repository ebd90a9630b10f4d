// 8/16/64-bit types: float16_t, int16_t, uint16_t, int64_t, uint64_t, double, int8_t; conversions,
// 16-bit storage, 64-bit arithmetic, shifts, bit operations, packing, and wrapping behaviour.
// For each i (N = 64):
//   inputs, all std430:
//   binding 0: H { f16vec4 h[]; }          binding 1: S { int16_t s[]; }
//   binding 2: L { uint64_t l[]; }         binding 3: D { double d[]; }
//   binding 4: Out { uint64_t o[]; } (output, 4 per i):
//     o[4i+0] = l * 0x9E3779B97F4A7C15 + (l >> 17)  (wrapping uint64)
//     o[4i+1] = uint64(int64(s) * -3 << 40)        (int16 -> int64 sign extension)
//     o[4i+2] = packed: f32 bits of float(dot(h.xy, h.zw)) in the low word, f16 bits of h.w in bits 32..47
//     o[4i+3] = doubleBitsToUint64(d * 1.5 + double(h.x)) xor uint64(uint8(int8(s)))  (int8 truncation)
//   binding 5: Out16 { f16vec2 v16[]; } (output): v16[i] = h.xy * h.zw + float16_t(0.25)
// Dispatch: local_size 64, vkCmdDispatch(1, 1, 1).
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer H { f16vec4 h[]; };
layout(std430, set = 0, binding = 1) readonly buffer S { int16_t s[]; };
layout(std430, set = 0, binding = 2) readonly buffer L { uint64_t l[]; };
layout(std430, set = 0, binding = 3) readonly buffer D { double d[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { uint64_t o[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out16 { f16vec2 v16[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    f16vec4 hv = h[i];
    int16_t sv = s[i];
    uint64_t lv = l[i];
    double dv = d[i];

    o[4 * i + 0] = lv * 0x9E3779B97F4A7C15ul + (lv >> 17);

    int64_t wide = int64_t(sv) * -3l;
    o[4 * i + 1] = uint64_t(wide << 40);

    float dotp = float(dot(hv.xy, hv.zw));
    uint16_t hw = float16BitsToUint16(hv.w);
    o[4 * i + 2] = uint64_t(floatBitsToUint(dotp)) | (uint64_t(hw) << 32);

    int8_t small = int8_t(sv);
    uint64_t mixed = doubleBitsToUint64(dv * 1.5lf + double(hv.x));
    o[4 * i + 3] = mixed ^ uint64_t(uint8_t(small));

    v16[i] = hv.xy * hv.zw + float16_t(0.25);
}

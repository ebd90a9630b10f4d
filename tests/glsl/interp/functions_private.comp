#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; };
layout(set = 0, binding = 1) buffer Out64 { uint64_t w[]; };
const uint TABLE[5] = uint[](3u, 1u, 4u, 1u, 5u);
uint history[4];                       // Private storage
struct Acc { uint sum; uvec2 minmax; };
void accumulate(inout Acc acc, uint x) {
    acc.sum += x;
    acc.minmax = uvec2(min(acc.minmax.x, x), max(acc.minmax.y, x));
}
uint step_fn(uint x, out bool odd) {
    odd = (x & 1u) == 1u;
    return odd ? x * 3u + 1u : x / 2u;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    Acc acc = Acc(0u, uvec2(0xFFFFFFFFu, 0u));
    uint k = 0u;
    while (k < 4u) {
        bool odd;
        x = step_fn(x, odd);
        history[k] = x;
        k++;
        if (!odd) continue;
        accumulate(acc, TABLE[x % 5u]);
    }
    bvec4 big = greaterThan(uvec4(history[0], history[1], history[2], history[3]), uvec4(10u));
    uvec4 h = uvec4(history[0], history[1], history[2], history[3]);
    h.yw = h.wy;
    v[i] = acc.sum * 1000u + (any(big) ? 100u : 0u) + (all(big) ? 10u : 0u) + h.y % 10u;
    uint64_t big64 = uint64_t(acc.minmax.x) << 40 | uint64_t(acc.minmax.y);
    int16_t s16 = int16_t(i) * int16_t(-3000);
    w[i] = big64 + uint64_t(int64_t(s16));
}

// Uniform integer arithmetic in loops (the compiled blocks' Python-int lane, interp/block_compiler.py) next to
// per-invocation values and partial masks: wrapping at 8, 16, 32 and 64 bits, signed and unsigned compares,
// a loop counter compared with a per-invocation bound (tests/interp/test_loop_lanes.py).
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 8) in;
layout(constant_id = 0) const uint N = 6;
layout(constant_id = 1) const uint U1 = 0x12345678u;
layout(constant_id = 2) const uint U2 = 0xDEADBEEFu;
layout(constant_id = 3) const int S1 = -123456789;
layout(constant_id = 4) const int S2 = 987654321;
layout(set = 0, binding = 0) readonly buffer In { uint u[16]; int s[16]; uint64_t w[4]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };

void main()
{
    uint id = gl_LocalInvocationID.x;
    uint acc = id;
    for (uint i = 0; i < N; i++) {
        uint x = (i + U1) * 0x9E3779B1u + U2;        // one value for all: Python ints in compiled blocks
        int y = (int(i) + S1) * 65537 - S2;
        uint z = (x ^ uint(y)) | (x & 0xF0F0u);
        if (y < S1 + int(i) * 1000003) acc += z; else acc -= x;
        if (x > U2 + i * 77777u) acc ^= 7u;
        if (y < s[i]) acc += 11u;                     // a value from memory: one per invocation
        acc += x * id;
        if (id < 3u) { acc += x * 3u + uint(y); }
        uint8_t b = uint8_t(x) * uint8_t(201) + uint8_t(97);
        int16_t h = int16_t(y) * int16_t(-3001) - int16_t(77);
        uint64_t q = uint64_t(x) * 6364136223846793005UL + w[i & 3u];
        acc += uint(b) + uint(int(h)) + uint(q >> 32) + uint(q);
    }
    for (uint j = 0; j < id + 2u; j += 1u) {   // the header's condition differs between invocations
        acc = acc * 3u + u[j];
    }
    for (uint t = 0u; t < N + (id & 1u) * 3u; t++) {   // every invocation for N trips, then half of them
        acc = acc * 5u + t;
    }
    uint k = 0u;
    do {   // the exit condition in the continue construct
        acc ^= acc >> 5;
        k += 1u + (id & 1u);
    } while (k < 5u + id);
    o[gl_GlobalInvocationID.x] = acc;
}

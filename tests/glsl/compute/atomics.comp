// Atomics on storage buffers and shared memory: atomicAdd/Min/Max/And/Or/Xor/Exchange/CompSwap,
// 32- and 64-bit, with barriers. Histogram of N = 1024 input values into 16 bins.
//   binding 0: In { uint vals[]; } (1024 values)
//   binding 1: Hist { uint bins[16]; uint minv; uint maxv; uint orv; uint andv; int xorv; uint lastSeen;
//                     uint64_t sum64; uint casCount; } (output; host zero-fills, except minv = 0xFFFFFFFF
//                     and andv = 0xFFFFFFFF)
//   Per workgroup a shared histogram is built with atomicAdd on shared memory, then merged into
//   Hist.bins; min/max/or/and/xor of all values, the 64-bit sum, and casCount = number of workgroups
//   (incremented with an atomicCompSwap retry loop by one invocation per workgroup).
//   lastSeen = the value written by the last atomicExchange (implementation-ordered; any input value).
// Dispatch: local_size 256, vkCmdDispatch(4, 1, 1).
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint vals[]; };
layout(std430, set = 0, binding = 1) buffer Hist {
    uint bins[16];
    uint minv;
    uint maxv;
    uint orv;
    uint andv;
    int xorv;
    uint lastSeen;
    uint64_t sum64;
    uint casCount;
} hist;

shared uint localBins[16];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    if (lid < 16u) {
        localBins[lid] = 0u;
    }
    barrier();

    uint v = vals[gl_GlobalInvocationID.x];
    atomicAdd(localBins[v & 15u], 1u);
    atomicMin(hist.minv, v);
    atomicMax(hist.maxv, v);
    atomicOr(hist.orv, v);
    atomicAnd(hist.andv, v);
    atomicXor(hist.xorv, int(v));
    atomicExchange(hist.lastSeen, v);
    atomicAdd(hist.sum64, uint64_t(v));
    barrier();

    if (lid < 16u) {
        atomicAdd(hist.bins[lid], localBins[lid]);
    }
    if (lid == 0u) {
        uint old = hist.casCount;
        for (;;) {
            uint prev = atomicCompSwap(hist.casCount, old, old + 1u);
            if (prev == old) {
                break;
            }
            old = prev;
        }
    }
}

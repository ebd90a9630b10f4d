// Shared-memory tree reduction with barriers and memoryBarrierShared, plus a second pass that
// lets the last workgroup finish (atomic counter). Sums N = 1024 floats in 4 workgroups of 256.
//   binding 0: In { float x[]; } (1024 values)
//   binding 1: Partial { float partial[4]; uint done; float total; } (host zero-fills done)
//     partial[w] = sum of x[256w .. 256w+255] (tree order), total = partial[0]+...+partial[3]
//     written by whichever workgroup finishes last.
// Dispatch: local_size 256, vkCmdDispatch(4, 1, 1).
#version 450

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 1) coherent buffer Partial {
    float partial[4];
    uint done;
    float total;
};

shared float scratch[256];
shared bool isLast;

void main()
{
    uint lid = gl_LocalInvocationID.x;
    scratch[lid] = x[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
        if (lid < stride) {
            scratch[lid] += scratch[lid + stride];
        }
        memoryBarrierShared();
        barrier();
    }
    if (lid == 0u) {
        partial[gl_WorkGroupID.x] = scratch[0];
        memoryBarrierBuffer();
        uint prev = atomicAdd(done, 1u);
        isLast = prev == gl_NumWorkGroups.x - 1u;
    }
    barrier();
    if (isLast && lid == 0u) {
        float t = 0.0;
        for (uint w = 0u; w < gl_NumWorkGroups.x; ++w) {
            t += partial[w];
        }
        total = t;
    }
}

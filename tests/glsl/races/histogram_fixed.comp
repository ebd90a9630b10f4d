// Race-free twin: the same histogram with atomicAdd.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint x[]; };
layout(set = 0, binding = 1) buffer Hist { uint hist[]; };
void main() {
    uint b = x[gl_GlobalInvocationID.x] % 4;
    atomicAdd(hist[b], 1);
}

#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; uint total; int minv; };
shared uint local_bins[16];
void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid < 16) local_bins[lid] = 0;
    barrier();
    uint v = values[gl_GlobalInvocationID.x];
    atomicAdd(local_bins[v % 16], 1u);
    atomicMin(minv, int(v) - 1000);
    barrier();
    if (lid < 16) atomicAdd(bins[lid], local_bins[lid]);
    if (lid == 0) atomicAdd(total, 256u);
}

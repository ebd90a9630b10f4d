#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { float data[]; };
layout(set = 0, binding = 1) buffer Out { float partial[]; };
shared float tile[128];
void main() {
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = data[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 64; s > 0; s >>= 1) {
        if (lid < s) tile[lid] += tile[lid + s];
        barrier();
    }
    if (lid == 0) partial[gl_WorkGroupID.x] = tile[0];
}

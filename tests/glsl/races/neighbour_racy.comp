// Each invocation stages one value in shared memory and reads its neighbour's.
// RACY: no barrier between the store and the neighbour's load.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
shared float s[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l] = x[gl_GlobalInvocationID.x];

    y[gl_GlobalInvocationID.x] = s[(l + 1) % 64];
}

#version 450
// Hillis-Steele inclusive scan of each 64-element block, in shared memory.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { int v[]; };
shared int buf[2][64];
void main() {
    uint lid = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    int src = 0;
    buf[0][lid] = v[g];
    barrier();
    for (uint off = 1; off < 64; off *= 2) {
        int x = buf[src][lid];
        if (lid >= off) x += buf[src][lid - off];
        buf[1 - src][lid] = x;
        src = 1 - src;
        barrier();
    }
    v[g] = buf[src][lid];
}

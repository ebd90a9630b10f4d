#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/atomics): atomics on members of structs in an
// array of an anonymous std140 block at set 2, binding 1; each returns the old value, stored in p[1].
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

struct Pair {
    int s;
    int t;
    uint u;
    uint v;
};

layout(set = 2, binding = 1, std140) buffer Counters {
    Pair p[2];
};

void main() {
    p[1].s = atomicAdd(p[0].s, 5);
    p[1].t = atomicMin(p[0].t, -4);
    p[1].u = atomicOr(p[0].u, 0xF0u);
    p[1].v = atomicCompSwap(p[0].v, 7u, 100u);
}

#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer State { uint counter; uint andv; uint orv; uint xorv; uint maxv; int minv; uint swapped; uint cas; };
layout(set = 0, binding = 1) buffer Tickets { uint ticket[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    ticket[i] = atomicAdd(counter, 2u);
    atomicAnd(andv, ~(1u << (i % 32u)) | 0x80000000u);
    atomicOr(orv, 1u << (i % 16u));
    atomicXor(xorv, i * 2654435761u);
    atomicMax(maxv, (i * 37u) % 101u);
    atomicMin(minv, -int(i % 50u));
    atomicExchange(swapped, i + 1000u);
    // only the invocation that sees cas == 0 wins; all others see a nonzero value
    uint old = atomicCompSwap(cas, 0u, i + 1u);
    if (old == 0u) atomicAdd(counter, 1000000u);
}

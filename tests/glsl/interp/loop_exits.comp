// Loops left early, uniformly and per invocation (the interpreter's compiled blocks and uniform-branch paths,
// tests/interp/test_fast_paths.py): nested loops with a uniform continue, a divergent break and continue, a uniform
// switch, one invocation returning early, a break on a data-dependent value and a while(true) loop left at
// different trips. Bindings: 0 { uint o[]; } (out: one value per invocation), 1 { uint v[]; } (in: 64 values).
// Dispatch: local_size 8, any number of workgroups (o needs one element per invocation).
#version 450

layout(local_size_x = 8) in;

layout(set = 0, binding = 0) buffer Out { uint o[]; };
layout(set = 0, binding = 1) readonly buffer In { uint v[]; };

void main()
{
    uint id = gl_GlobalInvocationID.x;
    uint acc = 0u;
    for (uint i = 0u; i < 20u; ++i) {
        if (i == 3u)
            continue;
        for (uint j = 0u; j < 6u; ++j) {
            if (j > (id % 4u))
                break;
            if (((i + j + id) & 3u) == 1u)
                continue;
            acc += v[(i * 7u + j + id) % 64u];
        }
        switch (i % 3u) {
        case 0u:
            acc ^= i;
            break;
        case 1u:
            acc += 5u;
            break;
        default:
            acc = acc * 3u;
        }
        if (id == 5u && i == 11u) {
            o[id] = acc;
            return;
        }
        if (acc > v[i] * 4000u + 100000u)
            break;
    }
    uint k = 0u;
    while (true) {
        k += 1u + (id & 1u);
        if (k * k > 30u + id)
            break;
    }
    o[id] = acc + k;
}

// A loop of scalar integer arithmetic (an LCG and a running sum), one invocation by default:
// the interpreter's cost per executed instruction where no op does much work (bench/bench_loops.py).
#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const uint ITER = 1000;
layout(set = 0, binding = 0) buffer Out { uint sum; uint last; };

void main()
{
    uint x = gl_GlobalInvocationID.x + 1u;
    uint s = 0u;
    for (uint i = 0u; i < ITER; i++) {
        x = x * 1664525u + 1013904223u;
        s += (x >> 16) ^ i;
        if ((x & 7u) == 3u) {
            s -= 5u;
        }
    }
    sum = s;
    last = x;
}

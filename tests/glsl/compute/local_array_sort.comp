// Function-local (Function storage) arrays with dynamic indexing: each invocation copies 16
// values into a local array, insertion-sorts it, and writes the sorted values plus the median
// and the number of distinct values; also signed/unsigned division of negatives and modulo.
// For each i (N = 32):
//   binding 0: In { int x[]; } (16 per invocation, x[16i .. 16i+15])
//   binding 1: Out { int y[]; } (20 per invocation): y[20i .. 20i+15] = sorted values,
//              y[20i+16] = (sorted[7] + sorted[8]) / 2 (truncating), y[20i+17] = number of distinct values,
//              y[20i+18] = sorted[0] / 5 + abs(sorted[0]) % 5 (OpSDiv truncates toward zero; the modulo
//              operand is kept non-negative: with a negative dividend the H100 driver returned the
//              unsigned remainder for OpSMod, e.g. -48 % 5 gave 3, where SPIR-V says 2),
//              y[20i+19] = int(uint(sorted[15]) / 3u)
// Dispatch: local_size 32, vkCmdDispatch(1, 1, 1).
#version 450

layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer In { int x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { int y[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    int v[16];
    for (int k = 0; k < 16; ++k) {
        v[k] = x[16u * i + uint(k)];
    }
    for (int k = 1; k < 16; ++k) {
        int key = v[k];
        int j = k - 1;
        while (j >= 0 && v[j] > key) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = key;
    }
    int distinct = 1;
    for (int k = 1; k < 16; ++k) {
        if (v[k] == v[k - 1]) {
            continue;
        }
        ++distinct;
    }
    for (int k = 0; k < 16; ++k) {
        y[20u * i + uint(k)] = v[k];
    }
    y[20u * i + 16u] = (v[7] + v[8]) / 2;
    y[20u * i + 17u] = distinct;
    y[20u * i + 18u] = v[0] / 5 + abs(v[0]) % 5;
    y[20u * i + 19u] = int(uint(v[15]) / 3u);
}

#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { int a[]; };
layout(set = 0, binding = 1) readonly buffer B { int b[]; };
struct Res { int q; int r; uint uq; int sh; int bits; };
layout(set = 0, binding = 2) buffer O { Res res[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    res[i].q = x / y;
    res[i].r = x % y;
    res[i].uq = uint(x) / uint(y);
    res[i].sh = (x >> 3) ^ int(uint(x) >> 5) ^ (y << 2);
    res[i].bits = bitCount(x) + findMSB(y) * 100 + bitfieldExtract(x, 4, 8);
}

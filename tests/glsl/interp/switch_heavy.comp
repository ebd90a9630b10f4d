#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { int v[]; };
int classify(int x) {
    switch (x % 7) {
        case 0: return x * 2;
        case 1:
        case 2: x += 10; // fall through
        case 3: return x - 3;
        case 4: { int s = 0; for (int i = 0; i < x % 5; ++i) { if (i == 3) break; s += i; } return s; }
        default: break;
    }
    return -x;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = v[i];
    int r = 0;
    for (int k = 0; k < 3; ++k) {
        if (((x + k) & 1) == 0) continue;
        r += classify(x + k);
    }
    v[i] = r;
}

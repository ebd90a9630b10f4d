#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; };
uint collatz(uint n) {
    uint steps = 0;
    while (n != 1u) {
        n = (n % 2u == 0u) ? n / 2u : 3u * n + 1u;
        steps++;
        if (steps > 500u) return 9999u;
    }
    return steps;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = v[i];
    uint r;
    do { r = collatz(n); } while (false);
    v[i] = r;
}

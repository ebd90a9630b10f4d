#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Dims { uint M; uint N; uint K; };
void main() {
    uint row = gl_GlobalInvocationID.y, col = gl_GlobalInvocationID.x;
    if (row >= M || col >= N) return;
    float acc = 0.0;
    for (uint k = 0; k < K; ++k) acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
}

#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { float v[]; };
float twice(float x) { return x * 2.0; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < 2u) {
        v[i] = twice(v[i]) + 1.0;
    }
}

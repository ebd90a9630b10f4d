#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int SCALE = 3;
layout(constant_id = 2) const bool NEGATE = false;
const int TWICE = SCALE * 2;
layout(set = 0, binding = 0) buffer Data { int v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = v[i] * SCALE + TWICE + int(gl_WorkGroupSize.x);
    v[i] = NEGATE ? -x : x;
}

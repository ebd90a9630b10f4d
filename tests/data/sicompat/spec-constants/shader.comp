#version 450
// Specialization constants by name: a length, a scale, a flag and the workgroup size (local_size_x_id).
layout(constant_id = 0) const uint N = 2;
layout(constant_id = 1) const float SCALE = 1.0;
layout(constant_id = 2) const bool NEGATE = false;
layout(local_size_x_id = 3) in;
layout(push_constant) uniform Push { float bias; } pc;
layout(set = 0, binding = 0) buffer Out { uint lanes; float v[N]; } result;  // v last: member offsets are fixed before specialization
void main() {
    uint i = gl_LocalInvocationID.x;
    if (i == 0) result.lanes = gl_WorkGroupSize.x;
    if (i < N) {
        float x = result.v[i] * SCALE + pc.bias;
        result.v[i] = NEGATE ? -x : x;
    }
}

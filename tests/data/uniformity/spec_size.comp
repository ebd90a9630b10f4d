#version 450
// Written for spvcoop (issue 37): the workgroup size is specialization constant 0 (glslang 13.1 gives it the
// default 1, whatever WG says): a barrier under `if (t < 32)` is reached by part of a workgroup of 64, not of 32.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(set = 0, binding = 0) buffer Data { float data[]; };
shared float tile[64];
void main() {
    uint t = gl_LocalInvocationID.x;
    if (t < 32) {
        tile[t] = data[t];
        barrier();
    }
    data[t] = tile[t];
}

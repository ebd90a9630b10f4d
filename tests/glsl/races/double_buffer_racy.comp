// Double buffering: while the tile of step i is read from one half of buf, the tile of step i+1 is loaded
// into the other half. RACY: the end-of-iteration barrier is missing, so the next step's load
// overwrites the half others are still reading, and its reads see a half others may not have written.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
shared float buf[2][32];
void main() {
    uint l = gl_LocalInvocationID.x;
    const uint steps = 4;
    float acc = 0.0;
    buf[0][l] = x[l];
    barrier();
    for (uint i = 0; i < steps; i++) {
        if (i + 1 < steps)
            buf[(i + 1) & 1][l] = x[(i + 1) * 32 + l];
        acc += buf[i & 1][31 - l];

    }
    y[l] = acc;
}

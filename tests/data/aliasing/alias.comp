#version 450
// ggml's flash attention writes its output through a vec4 view of the output buffer
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer OutF { float o[]; };
layout(set = 0, binding = 0) buffer OutV4 { vec4 o4[]; };
layout(set = 0, binding = 1) readonly buffer In { float x[]; };
layout(set = 0, binding = 2) writeonly buffer Sums { float s[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o4[i] = vec4(x[4 * i], 2.0 * x[4 * i + 1], 3.0 * x[4 * i + 2], 4.0 * x[4 * i + 3]);
    s[i] = o[4 * i + 1] + o[4 * i + 3];   // read back through the float view
}

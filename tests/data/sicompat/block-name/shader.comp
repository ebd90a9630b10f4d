#version 450
// An anonymous block instance (OpName ""): the input names it by its block, Samples.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Samples { float gain; float v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < v.length()) v[i] = v[i] * gain + float(i);
}

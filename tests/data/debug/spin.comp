#version 450
// A long loop, then a store past the end of v for invocations 2 and 3 (v has 4 elements):
// the scripted VS Code session pauses it, shortens the loop (setVariable k) and stops at the fault.
layout(local_size_x = 4) in;
layout(binding = 0) buffer B { int v[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    int acc = 0;
    for (int k = 0; k < 100000000; k++) {
        acc += k & 3;
    }
    v[i + 2] = acc;
}

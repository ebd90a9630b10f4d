#version 450
layout(local_size_x = 8) in;
layout(binding = 0) buffer B { int v[]; };

int twice(int x) {
    return 2 * x;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    int acc = 0;
    for (int k = 0; k < 3; k++) {
        acc += twice(k);
    }
    if (i < 4) {
        acc += 100;
    } else {
        acc -= 1;
    }
    if (v[i] > 1000) {
        if (i == 3) {
            acc = -7;
        }
    }
    v[i] = acc + int(i);
}

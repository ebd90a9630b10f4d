#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/cond-particle): a runtime array of structs in a
// std140 block, one particle per invocation; a particle leaving [0, bound] bounces back.
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

struct Particle {
    float pos;
    float vel;
};

layout(std140, binding = 3) buffer Particles {
    Particle particles[];
};

void main() {
    const float bound = 50.0;
    uint i = gl_GlobalInvocationID.x;
    float next = particles[i].pos + particles[i].vel;
    if (next < 0.0) {
        particles[i].vel = -particles[i].vel;
        particles[i].pos = -next;
    } else if (next > bound) {
        particles[i].vel *= -1.0;
        particles[i].pos = 2.0 * bound - next;
    } else {
        particles[i].pos = next;
    }
}

#version 450
// One invocation moves the particles and bounces them off the wall at x = 1.
layout(local_size_x = 1) in;
struct Particle { vec2 pos; vec2 vel; int hits; };
layout(set = 0, binding = 0, std430) buffer World { float dt; uint count; Particle particles[4]; };
void main() {
    for (uint i = 0; i < count; ++i) {
        particles[i].pos += particles[i].vel * dt;
        if (particles[i].pos.x > 1.0) {
            particles[i].pos.x = 2.0 - particles[i].pos.x;
            particles[i].vel.x = -particles[i].vel.x;
            atomicAdd(particles[i].hits, 1);
        }
    }
}

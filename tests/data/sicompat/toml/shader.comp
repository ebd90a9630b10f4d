#version 450
// TOML files; an anonymous block given under the empty name "".
layout(local_size_x = 2) in;
struct Particle { float position; float velocity; };
layout(set = 0, binding = 0) buffer ParticleIO { Particle particles[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    if (i < particles.length()) {
        Particle p = particles[i];
        p.position += p.velocity * 0.5;
        if (p.position < 0.0) { p.position = -p.position; p.velocity = -p.velocity; }
        particles[i] = p;
    }
}

#version 450
// Nested structs, an array of structs, vectors and a matrix, all keyed by OpName/OpMemberName.
layout(local_size_x = 4) in;
struct Motion { vec2 vel; float drag; };
struct Body { vec2 pos; Motion motion; int hits; };
layout(set = 0, binding = 0) buffer World {
    float dt;
    uint count;
    mat2 turn;          // a list of columns
    Body bodies[4];
} world;
void main() {
    uint i = gl_LocalInvocationID.x;
    if (i < world.count) {
        Body b = world.bodies[i];
        b.pos += world.dt * b.motion.vel;
        b.motion.vel = world.turn * b.motion.vel * (1.0 - b.motion.drag);
        b.hits += 1;
        world.bodies[i] = b;
    }
}

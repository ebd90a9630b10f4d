// Structs, nested arrays, arrays of structs in std430/std140 blocks, struct copies.
// For each particle i (N = 256): integrates one Euler step and writes a summary.
//   binding 0: Particles { Particle p[]; } (in/out), Particle = { vec3 pos; float mass; vec3 vel; uint flags; float hist[4]; }
//   binding 1: uniform Params { vec4 gravity; float dt; uint count; Box box; } (std140), Box = { vec3 lo; vec3 hi; }
//   binding 2: Summary { Stats s[]; } (out), Stats = { float speed; uint bounced; ivec2 cell; }
// Dispatch: local_size 64, vkCmdDispatch(4, 1, 1) for 256 particles.
#version 450

layout(local_size_x = 64) in;

struct Particle {
    vec3 pos;
    float mass;
    vec3 vel;
    uint flags;
    float hist[4];
};

struct Box {
    vec3 lo;
    vec3 hi;
};

struct Stats {
    float speed;
    uint bounced;
    ivec2 cell;
};

layout(std430, set = 0, binding = 0) buffer Particles { Particle p[]; };
layout(std140, set = 0, binding = 1) uniform Params {
    vec4 gravity;
    float dt;
    uint count;
    Box box;
} params;
layout(std430, set = 0, binding = 2) writeonly buffer Summary { Stats s[]; };

Particle step(Particle q, float dt)
{
    Particle r = q;
    r.vel += params.gravity.xyz * dt / max(q.mass, 1e-3);
    r.pos += r.vel * dt;
    for (int i = 3; i > 0; --i) {
        r.hist[i] = r.hist[i - 1];
    }
    r.hist[0] = length(r.vel);
    return r;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.count) {
        return;
    }
    Particle q = step(p[i], params.dt);
    uint bounced = 0u;
    for (int axis = 0; axis < 3; ++axis) {
        if (q.pos[axis] < params.box.lo[axis]) {
            q.pos[axis] = params.box.lo[axis];
            q.vel[axis] = -q.vel[axis];
            bounced |= 1u << axis;
        } else if (q.pos[axis] > params.box.hi[axis]) {
            q.pos[axis] = params.box.hi[axis];
            q.vel[axis] = -q.vel[axis];
            bounced |= 8u << axis;
        }
    }
    q.flags = (q.flags & 0xFFFF0000u) | bounced;
    p[i] = q;

    Stats st;
    st.speed = (q.hist[0] + q.hist[1] + q.hist[2] + q.hist[3]) * 0.25;
    st.bounced = bounced;
    st.cell = ivec2(floor(q.pos.xy));
    s[i] = st;
}

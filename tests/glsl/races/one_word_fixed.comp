// Race-free twin: one invocation writes the shared word; the barrier orders the others' reads after it.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint y[]; };
shared uint flag;
void main() {
    if (gl_LocalInvocationIndex == 0)
        flag = gl_WorkGroupID.x + 1;
    barrier();
    y[gl_GlobalInvocationID.x] = flag;
}

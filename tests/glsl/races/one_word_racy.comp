// RACY: every invocation writes the one shared word, then all read it.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint y[]; };
shared uint flag;
void main() {
    flag = gl_WorkGroupID.x + 1;
    barrier();
    y[gl_GlobalInvocationID.x] = flag;
}

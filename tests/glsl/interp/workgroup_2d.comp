#version 450
// Transpose through shared memory with a 2D workgroup and 2D dispatch.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(push_constant) uniform PC { uint width; uint height; };
shared uint tile[8][9];
void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    uvec2 l = gl_LocalInvocationID.xy;
    tile[l.y][l.x] = src[g.y * width + g.x];
    barrier();
    uvec2 o = gl_WorkGroupID.yx * 8u + l;
    dst[o.y * height + o.x] = tile[l.x][l.y] + gl_LocalInvocationIndex * 0u + gl_NumWorkGroups.x * 0u;
}

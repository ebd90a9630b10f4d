// 3-D workgroups and dispatch grid, push constants, a uniform buffer, gl_NumWorkGroups,
// gl_WorkGroupSize, gl_LocalInvocationIndex, and a 3-D stencil over a flattened volume.
//   push constants: { uvec3 dims; float weight; } with dims = (16, 8, 4)
//   binding 0: uniform Coeffs { vec4 c; } (std140): c.x centre, c.y x-neighbours, c.z y-neighbours, c.w z-neighbours
//   binding 1: In { float src[]; } (dims.x*dims.y*dims.z values, index = (z*dims.y + y)*dims.x + x)
//   binding 2: Out { float dst[]; } (output): 7-point stencil with clamped borders, times weight;
//              plus binding 3: Ids { uint ids[]; } (output): ids[index] = gl_LocalInvocationIndex
//              + 1000 * (flattened workgroup id), a check of the built-in ids.
// Dispatch: local_size (4, 4, 2), vkCmdDispatch(4, 2, 2).
#version 450

layout(local_size_x = 4, local_size_y = 4, local_size_z = 2) in;

layout(push_constant) uniform PC {
    uvec3 dims;
    float weight;
} pc;

layout(std140, set = 0, binding = 0) uniform Coeffs { vec4 c; } coeffs;
layout(std430, set = 0, binding = 1) readonly buffer In { float src[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float dst[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Ids { uint ids[]; };

uint idx(ivec3 p)
{
    ivec3 q = clamp(p, ivec3(0), ivec3(pc.dims) - 1);
    return (uint(q.z) * pc.dims.y + uint(q.y)) * pc.dims.x + uint(q.x);
}

void main()
{
    ivec3 p = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(gl_GlobalInvocationID, pc.dims))) {
        return;
    }
    float s = coeffs.c.x * src[idx(p)]
            + coeffs.c.y * (src[idx(p + ivec3(1, 0, 0))] + src[idx(p - ivec3(1, 0, 0))])
            + coeffs.c.z * (src[idx(p + ivec3(0, 1, 0))] + src[idx(p - ivec3(0, 1, 0))])
            + coeffs.c.w * (src[idx(p + ivec3(0, 0, 1))] + src[idx(p - ivec3(0, 0, 1))]);
    uint here = idx(p);
    dst[here] = s * pc.weight;
    uvec3 wg = gl_WorkGroupID;
    uint flatWg = (wg.z * gl_NumWorkGroups.y + wg.y) * gl_NumWorkGroups.x + wg.x;
    ids[here] = gl_LocalInvocationIndex + 1000u * flatWg + 0u * gl_WorkGroupSize.x;
}

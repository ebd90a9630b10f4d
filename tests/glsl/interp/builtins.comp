#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// 48 invocations per workgroup: with subgroups of 32 the second subgroup is partial.
layout(local_size_x = 4, local_size_y = 12) in;
struct Rec { uvec4 ids; uvec4 sg; };
layout(set = 0, binding = 0) buffer Out { Rec rec[]; };
void main() {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint i = g * 48u + gl_LocalInvocationIndex;
    rec[i].ids = uvec4(gl_GlobalInvocationID.xy, gl_LocalInvocationID.y * 100u + gl_LocalInvocationID.x, g);
    rec[i].sg = uvec4(gl_SubgroupID, gl_NumSubgroups * 100u + gl_SubgroupSize, gl_SubgroupInvocationID,
                  subgroupAdd(1u));
}

#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { int v[]; };
struct Res { int bcast; int first; int up; int down; uint votes; uint bitcount; int clustered; int partial_min; };
layout(set = 0, binding = 1) buffer Out { Res res[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_SubgroupInvocationID;
    int x = v[i];
    res[i].bcast = subgroupBroadcast(x, 3u);
    res[i].up = subgroupShuffleUp(x, l >= 1u ? 1u : 0u);
    res[i].down = subgroupShuffleDown(x, l + 2u < gl_SubgroupSize ? 2u : 0u);
    res[i].votes = uint(subgroupAll(x > -100)) + 2u * uint(subgroupAny(x == 7)) + 4u * uint(subgroupAllEqual(x));
    res[i].bitcount = subgroupBallotInclusiveBitCount(subgroupBallot(x > 0));
    res[i].clustered = subgroupClusteredAdd(x, 4u);
    res[i].partial_min = 12345;
    if (x % 3 == 0) {
        res[i].partial_min = subgroupMin(x);
        res[i].first = subgroupBroadcastFirst(x);
    } else {
        res[i].first = -1;
    }
}

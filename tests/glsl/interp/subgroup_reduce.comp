#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { int v[]; };
struct Res { int sum; int incl; int excl; uint ballot; int mx; int shuf; };
layout(set = 0, binding = 1) buffer Out { Res res[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = v[i];
    res[i].sum = subgroupAdd(x);
    res[i].incl = subgroupInclusiveAdd(x);
    res[i].excl = subgroupExclusiveAdd(x);
    uvec4 b = subgroupBallot(x > 0);
    res[i].ballot = b.x;
    res[i].mx = subgroupMax(x);
    res[i].shuf = subgroupShuffleXor(x, 1u) + int(subgroupElect()) * 1000;
}

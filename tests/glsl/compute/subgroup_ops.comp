// Subgroup operations (GL_KHR_shader_subgroup_*): elect, broadcast, ballot, arithmetic (reduce,
// inclusive/exclusive scan), shuffle, shuffle xor, vote. Assumes a subgroup size of 32.
// For each invocation g (N = 128), with x = inp[g] (uint):
//   binding 0: In { uint inp[]; }
//   binding 1: Out { uvec4 outp[]; } (2 per invocation, output):
//     outp[2g+0] = uvec4(subgroupAdd(x), subgroupInclusiveAdd(x), subgroupExclusiveAdd(x), subgroupMax(x))
//     outp[2g+1] = uvec4(broadcastFirst(x) + broadcast(x, 3),
//                        shuffle(x, (id*7+3) % 32) ^ (shuffleXor(x, 5) << 8) ^ (shuffleDown(x, 1) << 16),
//                        ballotBitCount(x odd) + 100 * ballotExclusiveBitCount(x odd),
//                        all(x < 1000) | any(x == 42) << 1 | elect() << 2 | allEqual(x) << 3)
//   (shuffleDown past the end of the subgroup is undefined: compare only where id < 31.)
// Dispatch: local_size 64 (two subgroups of 32), vkCmdDispatch(2, 1, 1).
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint inp[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uvec4 outp[]; };

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint x = inp[g];
    uint id = gl_SubgroupInvocationID;

    outp[2 * g + 0] = uvec4(subgroupAdd(x), subgroupInclusiveAdd(x), subgroupExclusiveAdd(x), subgroupMax(x));

    uvec4 ballot = subgroupBallot((x & 1u) == 1u);
    uint shuffled = subgroupShuffle(x, (id * 7u + 3u) % gl_SubgroupSize);
    uint xored = subgroupShuffleXor(x, 5u);
    uint down = subgroupShuffleDown(x, 1u);
    uint flags = (subgroupAll(x < 1000u) ? 1u : 0u)
               | (subgroupAny(x == 42u) ? 2u : 0u)
               | (subgroupElect() ? 4u : 0u)
               | (subgroupAllEqual(x) ? 8u : 0u);
    outp[2 * g + 1] = uvec4(subgroupBroadcastFirst(x) + subgroupBroadcast(x, 3u),
                            shuffled ^ (xored << 8) ^ (down << 16),
                            subgroupBallotBitCount(ballot) + 100u * subgroupBallotExclusiveBitCount(ballot),
                            flags);
}

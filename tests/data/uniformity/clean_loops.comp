#version 450
// Written for spvcoop (issue 37): uniform control flow the analysis must not report: a loop over K tiles whose
// body has a per-invocation branch (staging through shared memory), barriers outside it, a warp index, an
// early exit of whole workgroups, a subgroup-uniform branch (gl_SubgroupID) around Subgroup-scope matrices.
#extension GL_KHR_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_shader_subgroup_basic : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float data[]; };
layout(push_constant) uniform P { uint K; uint N; } p;
shared float tile[64 * 16];
void main() {
    uint t = gl_LocalInvocationID.x;
    if (gl_WorkGroupID.x * 64 >= p.N) {
        return;
    }
    uint warp = t / 32;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < p.K; k += 16) {
        for (uint i = t; i < 64 * 16; i += 64) {
            if (k + i < p.N) {
                tile[i] = data[k + i];
            } else {
                tile[i] = 0.0;
            }
        }
        barrier();
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
        coopMatLoad(m, tile, warp * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
        acc = acc + m;
        barrier();
    }
    if (gl_SubgroupID == 0) {
        coopMatStore(acc, data, warp * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
}

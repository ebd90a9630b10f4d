#version 450
// Written for spvcoop (issue 37): a barrier only invocation 0 reaches, a coopmat store a warp index chooses
// (uniform per subgroup: clean), one a per-invocation offset chooses, a matrix made from a per-invocation value
// and three stores under one branch on the local id (one finding, the others counted).
#extension GL_KHR_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float data[]; };
shared float tile[64];
void main() {
    uint t = gl_LocalInvocationID.x;
    tile[t] = data[t];
    if (t == 0) {
        barrier();
    }
    uint warp = t / 32;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, data, warp * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, data, warp * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, data, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> f =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(float(t));
    if ((t & 1) == 1) {
        coopMatStore(f, data, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
        coopMatStore(f, data, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
        coopMatStore(f, data, 512, 16, gl_CooperativeMatrixLayoutRowMajor);
    }
}

// A 16x16 tile is staged in shared memory by the invocations, then loaded as a cooperative matrix by the
// subgroup. RACY: no barrier between the invocations' stores and the matrix load.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
shared float tile[256];
void main() {
    uint l = gl_LocalInvocationID.x;
    for (uint i = l; i < 256; i += 32)
        tile[i] = x[i];

    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, tile, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, y, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}

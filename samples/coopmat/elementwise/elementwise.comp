// Element-wise kernel over length(): Y = 2 * leaky_relu(X) + 1 on 16x16 f32 tiles, one tile per workgroup.
// Each invocation transforms the elements it holds (X[i] for i < length()): portable, because every
// element goes through the same function whatever the layout. 8 tiles: dispatch (8, 1, 1), row-major.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1) writeonly buffer BufY { float y[]; };

void main()
{
    uint base = gl_WorkGroupID.x * 256;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, x, base, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (int i = 0; i < m.length(); ++i) {
        float v = m[i];
        m[i] = v > 0.0 ? v : 0.125 * v;
    }
    m = m * 2.0;
    coopMatStore(m + coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(1.0), y, base, 16,
                 gl_CooperativeMatrixLayoutRowMajor);
}

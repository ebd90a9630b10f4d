#version 450
// Element-wise arithmetic and conversions of 16x16 KHR accumulator matrices of FLOAT (float or float16_t), one
// tile per workgroup (one subgroup), and the same in scalars: matrix results m[(k * T + t) * 256 ...] (binding 4),
// scalar results s[...] (binding 5); conversions to the other width in binding 6 (matrix) and 7 (scalar).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer BX { FLOAT x[]; };
layout(binding = 1) readonly buffer BY { FLOAT y[]; };
layout(binding = 2) readonly buffer BZ { FLOAT z[]; };
layout(binding = 3) readonly buffer BS { FLOAT sc[]; };
layout(binding = 4) writeonly buffer BM { FLOAT om[]; };
layout(binding = 5) writeonly buffer BQ { FLOAT os[]; };
layout(binding = 6) writeonly buffer BCM { OTHER ocm[]; };
layout(binding = 7) writeonly buffer BCS { OTHER ocs[]; };
#define M coopmat<FLOAT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define MO coopmat<OTHER, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define NF 7
void main() {
    uint t = gl_WorkGroupID.x, T = gl_NumWorkGroups.x, l = gl_LocalInvocationID.x;
    M mx, my, mz, r;
    coopMatLoad(mx, x, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(my, y, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mz, z, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    FLOAT s0 = sc[t];
#define ST(k) coopMatStore(r, om, (k * T + t) * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    r = mx / my; ST(0)
    r = mx * my; ST(1)
    r = mx + my; ST(2)
    r = mx - my; ST(3)
    r = mx * my + mz; ST(4)
    r = mx * s0; ST(5)
    r = -mx; ST(6)
    MO c = MO(mx);
    coopMatStore(c, ocm, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (uint i = 0; i < 8; i++) {
        uint e = t * 256 + l * 8 + i;
        FLOAT a = x[e], b = y[e], d = z[e];
        os[(0 * T + t) * 256 + l * 8 + i] = a / b;
        os[(1 * T + t) * 256 + l * 8 + i] = a * b;
        os[(2 * T + t) * 256 + l * 8 + i] = a + b;
        os[(3 * T + t) * 256 + l * 8 + i] = a - b;
        os[(4 * T + t) * 256 + l * 8 + i] = a * b + d;
        os[(5 * T + t) * 256 + l * 8 + i] = a * s0;
        os[(6 * T + t) * 256 + l * 8 + i] = -a;
        ocs[e] = OTHER(a);
    }
}

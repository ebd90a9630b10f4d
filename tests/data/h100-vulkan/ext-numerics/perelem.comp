#version 450
// OpCooperativeMatrixPerElementOpNV on 16x16 accumulators (T = FLOAT: float or float16_t), one tile per
// workgroup (one subgroup): function f<k>(row, col, x, s, c) with s, c the elements of two more matrices
// (f8: two scalars), each result stored to OUT[(k * tiles + tile) * 256 ...]. The same functions in plain
// code (not per-element) go to PLAIN[...] so the two can be told apart.
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer BX { FLOAT x[]; };
layout(binding = 1) readonly buffer BS { FLOAT s[]; };
layout(binding = 2) readonly buffer BC { FLOAT c[]; };
layout(binding = 3) writeonly buffer BO { FLOAT o[]; };
layout(binding = 4) writeonly buffer BP { FLOAT p[]; };
#define M coopmat<FLOAT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define F(k, expr) FLOAT f##k(const in uint32_t r, const in uint32_t q, const in FLOAT x, const in FLOAT s, \
                              const in FLOAT c) { return expr; }
F(0, x * s + c)
F(1, x * s - c)
F(2, c - x * s)
F(3, x * s)
F(4, x + s)
F(5, x - s)
F(6, x)
F(7, x / s)
F(8, x * s + c)
F(9, fma(x, s, c))
F(10, (x * s) * c)
F(11, x * s + x * c)
F(12, max(x, s))
FLOAT f13(const in uint32_t r, const in uint32_t q, const in FLOAT x, const in FLOAT s, const in FLOAT c) {
    precise FLOAT y = x * s + c; return y;
}
F(14, -x)
#define NF 15
FLOAT plainf(uint k, FLOAT x, FLOAT s, FLOAT c) {
    switch (k) {
    case 0: return f0(0, 0, x, s, c);   case 1: return f1(0, 0, x, s, c);   case 2: return f2(0, 0, x, s, c);
    case 3: return f3(0, 0, x, s, c);   case 4: return f4(0, 0, x, s, c);   case 5: return f5(0, 0, x, s, c);
    case 6: return f6(0, 0, x, s, c);   case 7: return f7(0, 0, x, s, c);   case 8: return f8(0, 0, x, s, c);
    case 9: return f9(0, 0, x, s, c);   case 10: return f10(0, 0, x, s, c); case 11: return f11(0, 0, x, s, c);
    case 12: return f12(0, 0, x, s, c); case 13: return f13(0, 0, x, s, c); default: return f14(0, 0, x, s, c);
    }
}
void main() {
    uint t = gl_WorkGroupID.x, T = gl_NumWorkGroups.x, l = gl_LocalInvocationID.x;
    M mx, ms, mc, r;
    coopMatLoad(mx, x, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(ms, s, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mc, c, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    FLOAT s0 = s[t * 256], c0 = c[t * 256];
#define RUN(k) coopMatPerElementNV(r, mx, f##k, ms, mc); \
               coopMatStore(r, o, (k * T + t) * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    RUN(0) RUN(1) RUN(2) RUN(3) RUN(4) RUN(5) RUN(6) RUN(7)
    coopMatPerElementNV(r, mx, f8, s0, c0);
    coopMatStore(r, o, (8 * T + t) * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    RUN(9) RUN(10) RUN(11) RUN(12) RUN(13) RUN(14)
    for (uint i = 0; i < 8; i++) {
        uint e = t * 256 + l * 8 + i;
        for (uint k = 0; k < NF; k++) {
            FLOAT sv = k == 8 ? s0 : s[e], cv = k == 8 ? c0 : c[e];
            p[(k * T + t) * 256 + l * 8 + i] = plainf(k, x[e], sv, cv);
        }
    }
}

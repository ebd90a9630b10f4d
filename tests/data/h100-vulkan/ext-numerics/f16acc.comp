#version 450
// D = A x B + C with f16 A, B and an f16 accumulator at Workgroup scope, K = KK in one MulAdd (more than the
// tensor cores' block of 16): 64x64 tiles, 128 invocations, one tile per workgroup. Shows where the GPU rounds
// between blocks of k.
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 128) in;
layout(binding = 0) readonly buffer BA { float16_t a[]; };
layout(binding = 1) readonly buffer BB { float16_t b[]; };
layout(binding = 2) readonly buffer BC { float16_t c[]; };
layout(binding = 3) writeonly buffer BD { float16_t d[]; };
void main() {
    uint t = gl_WorkGroupID.x;
    coopmat<float16_t, gl_ScopeWorkgroup, 64, KK, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeWorkgroup, KK, 64, gl_MatrixUseB> mb;
    coopmat<float16_t, gl_ScopeWorkgroup, 64, 64, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, a, t * 64 * KK, KK, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, b, t * KK * 64, 64, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mc, c, t * 4096, 64, gl_CooperativeMatrixLayoutRowMajor);
    mc = coopMatMulAdd(ma, mb, mc);
    coopMatStore(mc, d, t * 4096, 64, gl_CooperativeMatrixLayoutRowMajor);
}

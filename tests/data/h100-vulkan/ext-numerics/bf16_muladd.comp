#version 450
// D = A x B + C with bf16 A, B (16x16x16) and an f32 accumulator, one tile per workgroup (one subgroup).
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer BA { bfloat16_t a[]; };
layout(binding = 1) readonly buffer BB { bfloat16_t b[]; };
layout(binding = 2) readonly buffer BC { float c[]; };
layout(binding = 3) writeonly buffer BD { float d[]; };
void main() {
    uint t = gl_WorkGroupID.x;
    coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, a, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, b, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mc, c, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    mc = coopMatMulAdd(ma, mb, mc);
    coopMatStore(mc, d, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}

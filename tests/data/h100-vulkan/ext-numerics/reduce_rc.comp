#version 450
// OpCooperativeMatrixReduceNV Row|Column on an N x N Subgroup-scope accumulator of T (one tile per workgroup)
// with three combine functions: a + b, a + 2b and 2a + b (the last two reveal, from one-hot inputs, how often
// each element was the second / first operand on its way to each result element). Results stored N x N.
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = WG) in;
layout(binding = 0) readonly buffer BX { FLOAT x[]; };
layout(binding = 1) writeonly buffer B1 { FLOAT o1[]; };
layout(binding = 2) writeonly buffer B2 { FLOAT o2[]; };
layout(binding = 3) writeonly buffer B3 { FLOAT o3[]; };
#define M coopmat<FLOAT, SCOPE, N, N, gl_MatrixUseAccumulator>
FLOAT add(const in FLOAT a, const in FLOAT b) { return a + b; }
FLOAT right2(const in FLOAT a, const in FLOAT b) { return a + FLOAT(2) * b; }
FLOAT left2(const in FLOAT a, const in FLOAT b) { return FLOAT(2) * a + b; }
void main() {
    uint t = gl_WorkGroupID.x;
    M m, r;
    coopMatLoad(m, x, t * N * N, N, gl_CooperativeMatrixLayoutRowMajor);
    coopMatReduceNV(r, m, gl_CooperativeMatrixReduceRowAndColumnNV, add);
    coopMatStore(r, o1, t * N * N, N, gl_CooperativeMatrixLayoutRowMajor);
    coopMatReduceNV(r, m, gl_CooperativeMatrixReduceRowAndColumnNV, right2);
    coopMatStore(r, o2, t * N * N, N, gl_CooperativeMatrixLayoutRowMajor);
    coopMatReduceNV(r, m, gl_CooperativeMatrixReduceRowAndColumnNV, left2);
    coopMatStore(r, o3, t * N * N, N, gl_CooperativeMatrixLayoutRowMajor);
}

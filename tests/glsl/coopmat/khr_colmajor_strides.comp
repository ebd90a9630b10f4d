// KHR cooperative matrix load/store with column-major layouts, odd strides, element offsets
// and arrays that follow a header inside their block. One 16x8x16 product (f16 inputs, f32
// accumulator), single subgroup:
//   binding 0: { uint hdrA[4]; float16_t a[]; }: A(r, k) = a[1 + k*17 + r]      (column-major, stride 17, offset 1)
//   binding 1: { float16_t b[]; }:               B(k, n) = b[5 + n*33 + k]      (column-major, stride 33, offset 5)
//   binding 2: { float c[]; }:                   C(r, n) = c[2 + n*18 + r]      (column-major, stride 18, offset 2)
//   binding 3: { uint hdrD; float d[]; } (out):  D(r, n) -> d[9 + r*11 + n]     (row-major, stride 11, offset 9)
//              where D = A * B + C; other elements of d untouched.
// Sizes: a >= 1 + 15*17 + 16 = 272, b >= 5 + 7*33 + 16 = 252, c >= 2 + 7*18 + 16 = 144, d >= 9 + 15*11 + 8 = 182.
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(1, 1, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufA { uint hdrA[4]; float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) readonly buffer BufC { float c[]; };
layout(set = 0, binding = 3) buffer BufD { uint hdrD; float d[]; };

void main()
{
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 8, gl_MatrixUseB> mb;
    coopmat<float, gl_ScopeSubgroup, 16, 8, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, a, 1, 17, gl_CooperativeMatrixLayoutColumnMajor);
    coopMatLoad(mb, b, 5, 33, gl_CooperativeMatrixLayoutColumnMajor);
    coopMatLoad(mc, c, 2, 18, gl_CooperativeMatrixLayoutColumnMajor);
    mc = coopMatMulAdd(ma, mb, mc);
    coopMatStore(mc, d, 9, 11, gl_CooperativeMatrixLayoutRowMajor);
}

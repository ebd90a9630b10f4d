// NV cooperative matrix load/store with column-major layouts, odd strides and element offsets.
// Computes one 16x16x16 product D = A * B (f16 inputs, f32 result), single subgroup:
//   binding 0: A, float16_t[308]; A(r, k) = a[7 + k*19 + r]   (column-major, stride 19, offset 7)
//   binding 1: B, float16_t[334]; B(k, n) = b[3 + k*21 + n]   (row-major, stride 21 (run-time value), offset 3)
//   binding 2: D, float[276] (output); D(r, n) -> d[5 + n*17 + r] (column-major, stride 17 (run-time), offset 5);
//              the other elements of d are left untouched.
//   binding 3: params { uint strideB (= 21); uint strideD (= 17); }
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(1, 1, 1).
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) buffer BufD { float d[]; };
layout(set = 0, binding = 3) readonly buffer Params { uint strideB; uint strideD; } params;

void main()
{
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mb;
    coopMatLoadNV(ma, a, 7, 19, true);
    coopMatLoadNV(mb, b, 3, params.strideB, false);
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    acc = coopMatMulAddNV(ma, mb, acc);
    coopMatStoreNV(acc, d, 5, params.strideD, true);
}

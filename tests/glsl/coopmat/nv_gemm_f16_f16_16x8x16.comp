// NV cooperative matrix GEMM, f16 inputs, f16 accumulator, 16x8x16 tiles (MxNxK).
// Computes C = A * B with M = 32, N = 32, K = 64, all row-major float16_t.
//   binding 0: A, 32x64 float16_t
//   binding 1: B, 64x32 float16_t
//   binding 2: C, 32x32 float16_t (output)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/8, M/16, 1) = (4, 2, 1).
// Each workgroup computes one 16x8 tile of C with 4 K steps of 16.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint M = 32;
const uint N = 32;
const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float16_t c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 8;

    fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> acc = fcoopmatNV<16, gl_ScopeSubgroup, 16, 8>(float16_t(0.0));
    for (uint k = 0; k < K; k += 16) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma;
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> mb;
        coopMatLoadNV(ma, a, tileRow * K + k, K, false);
        coopMatLoadNV(mb, b, k * N + tileCol, N, false);
        acc = coopMatMulAddNV(ma, mb, acc);
    }
    coopMatStoreNV(acc, c, tileRow * N + tileCol, N, false);
}

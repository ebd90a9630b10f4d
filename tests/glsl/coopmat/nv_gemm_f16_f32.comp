// NV cooperative matrix GEMM, f16 inputs, f32 accumulator, 16x16x16 tiles.
// Computes C = A * B with M = N = K = 64.
//   binding 0: A, 64x64 float16_t, row-major (4096 halves)
//   binding 1: B, 64x64 float16_t, row-major
//   binding 2: C, 64x64 float, row-major (output)
// Dispatch: local_size 32 (one subgroup of 32), vkCmdDispatch(N/16, M/16, 1) = (4, 4, 1).
// Each workgroup computes one 16x16 tile of C, looping over K in steps of 16.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

const uint M = 64;
const uint N = 64;
const uint K = 64;
const uint TM = 16;
const uint TN = 16;
const uint TK = 16;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * TM;
    uint tileCol = gl_WorkGroupID.x * TN;

    fcoopmatNV<32, gl_ScopeSubgroup, TM, TN> acc = fcoopmatNV<32, gl_ScopeSubgroup, TM, TN>(0.0);
    for (uint k = 0; k < K; k += TK) {
        fcoopmatNV<16, gl_ScopeSubgroup, TM, TK> ma;
        fcoopmatNV<16, gl_ScopeSubgroup, TK, TN> mb;
        coopMatLoadNV(ma, a, tileRow * K + k, K, false);
        coopMatLoadNV(mb, b, k * N + tileCol, N, false);
        acc = coopMatMulAddNV(ma, mb, acc);
    }
    coopMatStoreNV(acc, c, tileRow * N + tileCol, N, false);
}

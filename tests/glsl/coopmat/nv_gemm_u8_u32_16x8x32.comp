// NV cooperative matrix GEMM, uint8 inputs, uint32 accumulator, 16x8x32 tiles (MxNxK).
// Computes C = A * B + C (in place, wrapping uint32) with M = 16, N = 24, K = 96, all row-major.
//   binding 0: A, 16x96 uint8_t
//   binding 1: B, 96x24 uint8_t
//   binding 2: C, 16x24 uint32 (input and output)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/8, M/16, 1) = (3, 1, 1).
// Each workgroup computes one 16x8 tile of C with 3 K steps of 32.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint M = 16;
const uint N = 24;
const uint K = 96;

layout(set = 0, binding = 0) readonly buffer BufA { uint8_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { uint8_t b[]; };
layout(set = 0, binding = 2) buffer BufC { uint32_t c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 8;

    ucoopmatNV<32, gl_ScopeSubgroup, 16, 8> acc;
    coopMatLoadNV(acc, c, tileRow * N + tileCol, N, false);
    for (uint k = 0; k < K; k += 32) {
        ucoopmatNV<8, gl_ScopeSubgroup, 16, 32> ma;
        ucoopmatNV<8, gl_ScopeSubgroup, 32, 8> mb;
        coopMatLoadNV(ma, a, tileRow * K + k, K, false);
        coopMatLoadNV(mb, b, k * N + tileCol, N, false);
        acc = coopMatMulAddNV(ma, mb, acc);
    }
    coopMatStoreNV(acc, c, tileRow * N + tileCol, N, false);
}

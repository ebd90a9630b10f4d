// NV cooperative matrix GEMM, int8 inputs, int32 accumulator, 16x16x32 tiles (MxNxK).
// Computes C = A * B (exact integer arithmetic) with M = 32, N = 32, K = 64, all row-major.
//   binding 0: A, 32x64 int8_t
//   binding 1: B, 64x32 int8_t
//   binding 2: C, 32x32 int32 (output)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/16, M/16, 1) = (2, 2, 1).
// Each workgroup computes one 16x16 tile of C with 2 K steps of 32.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint M = 32;
const uint N = 32;
const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { int8_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { int8_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { int32_t c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 16;

    icoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = icoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0);
    for (uint k = 0; k < K; k += 32) {
        icoopmatNV<8, gl_ScopeSubgroup, 16, 32> ma;
        icoopmatNV<8, gl_ScopeSubgroup, 32, 16> mb;
        coopMatLoadNV(ma, a, tileRow * K + k, K, false);
        coopMatLoadNV(mb, b, k * N + tileCol, N, false);
        acc = coopMatMulAddNV(ma, mb, acc);
    }
    coopMatStoreNV(acc, c, tileRow * N + tileCol, N, false);
}

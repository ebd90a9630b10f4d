// KHR cooperative matrix GEMM, uint8 inputs, uint32 accumulator, 16x8x32 tiles (MxNxK).
// Computes C = (A * B + Cin) mod 2^32 with M = 32, N = 16, K = 64, all row-major (wrapping).
// No SaturatingAccumulation: the H100 advertises saturatingAccumulation = FALSE for every
// configuration (checked with vkrun: with the operand the driver still wraps).
//   binding 0: A, 32x64 uint8_t
//   binding 1: B, 64x16 uint8_t
//   binding 2: Cin, 32x16 uint32
//   binding 3: C, 32x16 uint32 (output)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/8, M/16, 1) = (2, 2, 1).
// Each workgroup computes one 16x8 tile of C with 2 K steps of 32.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint M = 32;
const uint N = 16;
const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { uint8_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { uint8_t b[]; };
layout(set = 0, binding = 2) readonly buffer BufCin { uint32_t cin[]; };
layout(set = 0, binding = 3) writeonly buffer BufC { uint32_t c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 8;

    coopmat<uint32_t, gl_ScopeSubgroup, 16, 8, gl_MatrixUseAccumulator> acc;
    coopMatLoad(acc, cin, tileRow * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
    for (uint k = 0; k < K; k += 32) {
        coopmat<uint8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> ma;
        coopmat<uint8_t, gl_ScopeSubgroup, 32, 8, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, tileRow * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, k * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, c, tileRow * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
}

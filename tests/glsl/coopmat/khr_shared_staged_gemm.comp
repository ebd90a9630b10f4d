// KHR cooperative matrix GEMM staged through shared memory held as uvec4 (8 halves each),
// with the B tile kept column-major and the output staged through a shared float array.
// Computes C = A * B with M = N = K = 64, f16 inputs, f32 accumulator, 16x16x16 tiles.
//   binding 0: A, 64x64 float16_t row-major, declared as uvec4[]
//   binding 1: B, 64x64 float16_t stored column-major (element (k, n) at n*64 + k), declared as uvec4[]
//   binding 2: C, 64x64 float row-major (output)
// Dispatch: local_size 128 = 4 subgroups of 32, vkCmdDispatch(N/32, M/32, 1) = (2, 2, 1).
// Subgroup s computes the 16x16 tile at (16*(s/2), 16*(s%2)) of the workgroup's 32x32 block.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x = 128) in;

const uint M = 64;
const uint N = 64;
const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { uvec4 a4[]; };
layout(set = 0, binding = 1) readonly buffer BufB { uvec4 b4[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

shared uvec4 sA[32 * 2];   // 32 rows x 16 halves, row-major
shared uvec4 sB[32 * 2];   // 32 columns x 16 halves, column-major
shared float sC[32 * 32];  // output block, row-major

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint sg = gl_SubgroupID;
    uint row0 = gl_WorkGroupID.y * 32;
    uint col0 = gl_WorkGroupID.x * 32;
    uint sr = sg / 2;
    uint sc = sg % 2;

    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < K; k += 16) {
        uint r = (t % 64) / 2, j = t % 2;
        if (t < 64) {
            sA[r * 2 + j] = a4[(row0 + r) * (K / 8) + k / 8 + j];
        } else {
            sB[r * 2 + j] = b4[(col0 + r) * (K / 8) + k / 8 + j];
        }
        barrier();

        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, sA, sr * 16 * 2, 2, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, sB, sc * 16 * 2, 2, gl_CooperativeMatrixLayoutColumnMajor);
        acc = coopMatMulAdd(ma, mb, acc);
        barrier();
    }
    coopMatStore(acc, sC, sr * 16 * 32 + sc * 16, 32, gl_CooperativeMatrixLayoutRowMajor);
    barrier();
    for (uint i = t; i < 32 * 32; i += 128) {
        c[(row0 + i / 32) * N + col0 + i % 32] = sC[i];
    }
}

// KHR cooperative-matrix GEMM staged through shared memory: C = A * B, f16 -> f32, 16x16x16 tiles.
// M = N = K = 64, row-major. Workgroup = 4 subgroups (128 invocations) computing a 32x32 block of C;
// each K step the workgroup copies a 32x16 slice of A and a 16x32 slice of B into shared memory
// (one element per invocation per copy, barrier), then subgroup s multiplies its 16x16 pieces.
// Dispatch (N/32, M/32, 1) = (2, 2, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x = 128) in;
const uint N = 64;
const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

shared float16_t sa[32 * 16];   // 32 rows x 16 (row-major, stride 16)
shared float16_t sb[16 * 32];   // 16 rows x 32 (row-major, stride 32)

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint sg = gl_SubgroupID;
    uint blockRow = gl_WorkGroupID.y * 32;
    uint blockCol = gl_WorkGroupID.x * 32;
    uint r = (sg / 2) * 16;
    uint cc = (sg % 2) * 16;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < K; k += 16) {
        for (uint i = t; i < 512; i += 128) {
            sa[i] = a[(blockRow + i / 16) * K + k + i % 16];
            sb[i] = b[(k + i / 32) * N + blockCol + i % 32];
        }
        barrier();
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, sa, r * 16, 16, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, sb, cc, 32, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
        barrier();
    }
    coopMatStore(acc, c, (blockRow + r) * N + blockCol + cc, N, gl_CooperativeMatrixLayoutRowMajor);
}

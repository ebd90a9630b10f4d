// NV cooperative matrix GEMM staged through shared memory held as uvec4 (8 halves each).
// Computes C = A * B with M = N = K = 64, f16 inputs, f32 accumulator, 16x16x16 tiles.
//   binding 0: A, 64x64 float16_t row-major, declared as uvec4[] (512 uvec4)
//   binding 1: B, 64x64 float16_t row-major, declared as uvec4[]
//   binding 2: C, 64x64 float row-major (output)
// Dispatch: local_size 128 = 4 subgroups of 32, vkCmdDispatch(N/32, M/32, 1) = (2, 2, 1).
// Each K step the workgroup copies a 32x16 A tile and a 16x32 B tile into shared uvec4
// arrays (barrier), each subgroup loads its 16x16 pieces from shared memory with strides
// counted in uvec4 elements (A: 2 per row, B: 4 per row), then barriers again.
#version 450
#extension GL_NV_cooperative_matrix : require
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

shared uvec4 sA[32 * 2];   // 32 rows x 16 halves
shared uvec4 sB[16 * 4];   // 16 rows x 32 halves

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint sg = gl_SubgroupID;
    uint row0 = gl_WorkGroupID.y * 32;
    uint col0 = gl_WorkGroupID.x * 32;
    uint sr = sg / 2;
    uint sc = sg % 2;

    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    for (uint k = 0; k < K; k += 16) {
        if (t < 64) {
            uint r = t / 2, j = t % 2;
            sA[r * 2 + j] = a4[(row0 + r) * (K / 8) + k / 8 + j];
        } else {
            uint u = t - 64;
            uint r = u / 4, j = u % 4;
            sB[r * 4 + j] = b4[(k + r) * (N / 8) + col0 / 8 + j];
        }
        barrier();

        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma;
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mb;
        coopMatLoadNV(ma, sA, sr * 16 * 2, 2, false);
        coopMatLoadNV(mb, sB, sc * 2, 4, false);
        acc = coopMatMulAddNV(ma, mb, acc);
        barrier();
    }
    coopMatStoreNV(acc, c, (row0 + sr * 16) * N + col0 + sc * 16, N, false);
}

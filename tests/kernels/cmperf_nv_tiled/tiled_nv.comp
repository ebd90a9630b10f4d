// GEMM benchmark kernel in the style of vk_cooperative_matrix_perf's 2019 NV build (written for
// spvcoop's kernel suite, not a copy): GL_NV_cooperative_matrix compiled for Vulkan 1.0 (SPIR-V 1.0),
// as that sample's build script did with glslangValidator's default target.
//
//   D = alpha * A * B + beta * C      A: M x K f16, B: K x N f16, C and D: M x N f32, all row-major
//
// The four matrices are buffer_reference pointers passed in push constants. Each buffer_reference
// block is declared with an instance name, so glslang also emits a StorageBuffer variable for it that
// the shader never uses (Vulkan needs no descriptor for it). Sizes and strides are specialization
// constants 0-12; the host sets more ids than this shader declares (id 13, BColMajor of later builds).
// One subgroup per workgroup computes a TILE_M x TILE_N tile from (TILE_M/lM) x (TILE_N/lN) accumulators.
// Dispatch: (N / TILE_N, M / TILE_M, 1).
//
// build fp16_fp32 +spv: -V --target-env vulkan1.0
#version 450 core
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint lM = 1;
layout(constant_id = 1) const uint lN = 1;
layout(constant_id = 2) const uint lK = 1;
layout(constant_id = 3) const uint TILE_M = 1;
layout(constant_id = 4) const uint TILE_N = 1;
layout(constant_id = 5) const uint TILE_K = 1;
layout(constant_id = 6) const uint K = 1;
layout(constant_id = 7) const uint strideA = 1;
layout(constant_id = 8) const uint strideB = 1;
layout(constant_id = 9) const uint strideC = 1;
layout(constant_id = 10) const uint strideD = 1;
layout(constant_id = 11) const float alpha = 1.0;
layout(constant_id = 12) const float beta = 1.0;

layout(buffer_reference) buffer InputA { float16_t x[]; } inputA;
layout(buffer_reference) buffer InputB { float16_t x[]; } inputB;
layout(buffer_reference) buffer InputC { float x[]; } inputC;
layout(buffer_reference) buffer Output { float x[]; } outputO;

layout(push_constant) uniform Params {
    InputA inputA;
    InputB inputB;
    InputC inputC;
    Output outputO;
} params;

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

const uint C_ROWS = TILE_M / lM;
const uint C_COLS = TILE_N / lN;

void main()
{
    const uvec2 tile = gl_WorkGroupID.xy;
    fcoopmatNV<32, gl_ScopeSubgroup, lM, lN> acc[C_ROWS][C_COLS];
    [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
        [[unroll]] for (uint j = 0; j < C_COLS; ++j) {
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, lM, lN>(0.0);
        }
    }

    for (uint k0 = 0; k0 < K; k0 += TILE_K) {
        [[unroll]] for (uint kk = 0; kk < TILE_K; kk += lK) {
            fcoopmatNV<16, gl_ScopeSubgroup, lM, lK> matA[C_ROWS];
            [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
                const uint gi = TILE_M * tile.y + lM * i;
                coopMatLoadNV(matA[i], params.inputA.x, gi * strideA + k0 + kk, strideA, false);
            }
            [[unroll]] for (uint j = 0; j < C_COLS; ++j) {
                const uint gj = TILE_N * tile.x + lN * j;
                fcoopmatNV<16, gl_ScopeSubgroup, lK, lN> matB;
                coopMatLoadNV(matB, params.inputB.x, (k0 + kk) * strideB + gj, strideB, false);
                [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
                    acc[i][j] = coopMatMulAddNV(matA[i], matB, acc[i][j]);
                }
            }
        }
    }

    [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
        [[unroll]] for (uint j = 0; j < C_COLS; ++j) {
            const uint gi = TILE_M * tile.y + lM * i;
            const uint gj = TILE_N * tile.x + lN * j;
            fcoopmatNV<32, gl_ScopeSubgroup, lM, lN> matC;
            coopMatLoadNV(matC, params.inputC.x, gi * strideC + gj, strideC, false);
            acc[i][j] = alpha * acc[i][j] + beta * matC;
            coopMatStoreNV(acc[i][j], params.outputO.x, gi * strideD + gj, strideD, false);
        }
    }
}

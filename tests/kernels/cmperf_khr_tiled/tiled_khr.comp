// GEMM benchmark kernel in the style of vk_cooperative_matrix_perf's current KHR build (written for
// spvcoop's kernel suite, not a copy): GL_KHR_cooperative_matrix compiled for SPIR-V 1.6.
//
//   D = alpha * A * B + beta * C      A: M x K f16 row-major, B: K x N f16 (column-major when the
//                                     spec constant BColMajor is true), C and D: M x N f32 row-major
//
// The matrices are buffer_reference pointers read from a uniform block at binding 0. Every
// buffer_reference block is declared with an instance name: glslang emits four StorageBuffer variables
// the shader never uses. The accumulators are a global (Private) array. Sizes, strides, alpha, beta and
// BColMajor are specialization constants 0-13; the host also sets ids this shader lacks.
// One subgroup per workgroup computes a TILE_M x TILE_N tile. Dispatch: (N / TILE_N, M / TILE_M, 1).
//
// build fp16_fp32: -V --target-env vulkan1.3
#version 450 core
#pragma use_vulkan_memory_model
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_EXT_scalar_block_layout : enable
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
#extension GL_EXT_buffer_reference : enable
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
layout(constant_id = 13) const bool BColMajor = false;

layout(buffer_reference) buffer InputA { float16_t x[]; } inputA;
layout(buffer_reference) buffer InputB { float16_t x[]; } inputB;
layout(buffer_reference) buffer InputC { float x[]; } inputC;
layout(buffer_reference) buffer Output { float x[]; } outputO;
layout(set = 0, binding = 0, std430) uniform Params {
    InputA inputA;
    InputB inputB;
    InputC inputC;
    Output outputO;
} params;

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

const uint C_ROWS = TILE_M / lM;
const uint C_COLS = TILE_N / lN;
coopmat<float, gl_ScopeSubgroup, lM, lN, gl_MatrixUseAccumulator> result[C_ROWS][C_COLS];

uint offsetOf(uint row, uint col, uint stride, bool colMajor)
{
    return colMajor ? stride * col + row : stride * row + col;
}

void main()
{
    const uvec2 tile = gl_WorkGroupID.xy;
    InputA a = params.inputA;
    InputB b = params.inputB;

    [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
        [[unroll]] for (uint j = 0; j < C_COLS; ++j) {
            result[i][j] = coopmat<float, gl_ScopeSubgroup, lM, lN, gl_MatrixUseAccumulator>(0.0);
        }
    }

    for (uint k0 = 0; k0 < K; k0 += TILE_K) {
        [[unroll]] for (uint kk = 0; kk < TILE_K; kk += lK) {
            coopmat<float16_t, gl_ScopeSubgroup, lM, lK, gl_MatrixUseA> matA[C_ROWS];
            [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
                coopMatLoad(matA[i], a.x, offsetOf(TILE_M * tile.y + lM * i, k0 + kk, strideA, false), strideA,
                            gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (uint j = 0; j < C_COLS; ++j) {
                coopmat<float16_t, gl_ScopeSubgroup, lK, lN, gl_MatrixUseB> matB;
                coopMatLoad(matB, b.x, offsetOf(k0 + kk, TILE_N * tile.x + lN * j, strideB, BColMajor), strideB,
                            BColMajor ? gl_CooperativeMatrixLayoutColumnMajor : gl_CooperativeMatrixLayoutRowMajor);
                [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
                    result[i][j] = coopMatMulAdd(matA[i], matB, result[i][j]);
                }
            }
        }
    }

    [[unroll]] for (uint i = 0; i < C_ROWS; ++i) {
        [[unroll]] for (uint j = 0; j < C_COLS; ++j) {
            const uint gi = TILE_M * tile.y + lM * i;
            const uint gj = TILE_N * tile.x + lN * j;
            coopmat<float, gl_ScopeSubgroup, lM, lN, gl_MatrixUseAccumulator> matC;
            coopMatLoad(matC, params.inputC.x, offsetOf(gi, gj, strideC, false), strideC,
                        gl_CooperativeMatrixLayoutRowMajor);
            result[i][j] = alpha * result[i][j] + beta * matC;
            coopMatStore(result[i][j], params.outputO.x, offsetOf(gi, gj, strideD, false), strideD,
                         gl_CooperativeMatrixLayoutRowMajor);
        }
    }
}

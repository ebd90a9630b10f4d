// ggml-style quantised matrix multiplication with KHR cooperative matrices (written for spvcoop's
// kernel suite in the style of ggml-vulkan's mul_mm.comp coopmat path; not a copy of it).
//
//   D[n][m] = sum_k dequant(A)[m][k] * f16(B[n][k])        D stored column-major: D[n * stride_d + m]
//
// A: M x K weights in blocks of 32 along K (q4_0: f16 scale + 16 bytes of nibbles, value = (q - 8) * d;
//    q8_0: f16 scale + 32 signed bytes, value = q * d), dequantised into shared memory as f16.
// B: N x K activations, f32, converted to f16 in shared memory.
// Tile sizes are specialization constants (BLOCK_SIZE is the workgroup size); each subgroup ("warp")
// owns a WM x WN piece of the BM x BN workgroup tile, made of TM x TN accumulators.
// Tiles that cross the edge of D go through a shared staging buffer and are written element by element.
// Dispatch: (ceil(M / BM), ceil(N / BN), 1).
//
// build q4_0_f32acc: -V --target-env vulkan1.3 -DDATA_A_Q4_0 -DACC_TYPE=float
// build q8_0_f16acc: -V --target-env vulkan1.3 -DDATA_A_Q8_0 -DACC_TYPE=float16_t
// build q4_0_f32acc_opt: -V --target-env vulkan1.3 -DDATA_A_Q4_0 -DACC_TYPE=float | spirv-opt -O
#version 450
#extension GL_EXT_control_flow_attributes : enable
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

#if defined(DATA_A_Q4_0)
#define QK 32
struct block_q { float16_t d; uint8_t qs[QK / 2]; };
#elif defined(DATA_A_Q8_0)
#define QK 32
struct block_q { float16_t d; int8_t qs[QK]; };
#endif

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) readonly buffer A { block_q data_a[]; };
layout(binding = 1) readonly buffer B { float data_b[]; };
layout(binding = 2) writeonly buffer D { float data_d[]; };

layout(push_constant) uniform parameter {
    uint M;
    uint N;
    uint K;
    uint stride_a;   // in elements (a multiple of QK)
    uint stride_b;
    uint stride_d;
} p;

layout(constant_id = 0) const uint BLOCK_SIZE = 128;
layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 32;   // one quant block per row and K step
layout(constant_id = 4) const uint WM = 32;
layout(constant_id = 5) const uint WN = 32;
layout(constant_id = 6) const uint TM = 16;
layout(constant_id = 7) const uint TN = 16;
layout(constant_id = 8) const uint TK = 16;
layout(constant_id = 9) const uint WARP = 32;

// Row stride of the shared tiles, padded against bank conflicts.
#define SHMEM_STRIDE (BK + 8)
#define NUM_WARPS (BLOCK_SIZE / WARP)

shared float16_t buf_a[BM * SHMEM_STRIDE];   // [m][k]
shared float16_t buf_b[BN * SHMEM_STRIDE];   // [n][k]: read as a column-major K x N matrix
shared ACC_TYPE coopmat_stage[TM * TN * NUM_WARPS];

// Dequantise one unit of work: q4_0 decodes one byte (two values), q8_0 two bytes.
void load_a_to_shmem(uint idx, uint row, uint block_k)
{
    const uint j = idx % (BK / 2);                 // which pair within the row
    const uint buf_idx = row * SHMEM_STRIDE;
    const uint grow = gl_WorkGroupID.x * BM + row;
    if (grow >= p.M || block_k >= p.K) {
        buf_a[buf_idx + j] = float16_t(0.0);
        buf_a[buf_idx + j + BK / 2] = float16_t(0.0);
        return;
    }
    const uint ib = (grow * p.stride_a + block_k) / QK;
    const float d = float(data_a[ib].d);
#if defined(DATA_A_Q4_0)
    const uint vui = uint(data_a[ib].qs[j]);
    buf_a[buf_idx + j]          = float16_t((float(vui & 0xF) - 8.0) * d);
    buf_a[buf_idx + j + BK / 2] = float16_t((float(vui >> 4) - 8.0) * d);
#else
    buf_a[buf_idx + j]          = float16_t(float(data_a[ib].qs[j]) * d);
    buf_a[buf_idx + j + BK / 2] = float16_t(float(data_a[ib].qs[j + BK / 2]) * d);
#endif
}

void load_b_to_shmem(uint idx, uint row, uint block_k)
{
    const uint kk = idx % BK;
    const uint gcol = gl_WorkGroupID.y * BN + row;
    const uint k = block_k + kk;
    buf_b[row * SHMEM_STRIDE + kk] = (gcol < p.N && k < p.K) ? float16_t(data_b[gcol * p.stride_b + k])
                                                             : float16_t(0.0);
}

void main()
{
    const uint ir = gl_WorkGroupID.x;
    const uint ic = gl_WorkGroupID.y;
    const uint warp_i = gl_SubgroupID;
    const uint warp_r = warp_i % (BM / WM);
    const uint warp_c = warp_i / (BM / WM);
    const uint cms_per_row = WM / TM;
    const uint cms_per_col = WN / TN;
    const uint tiw = gl_SubgroupInvocationID;

    coopmat<float16_t, gl_ScopeSubgroup, TM, TK, gl_MatrixUseA> cache_a;
    coopmat<float16_t, gl_ScopeSubgroup, TK, TN, gl_MatrixUseB> cache_b;
    coopmat<ACC_TYPE, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator> sums[cms_per_row * cms_per_col];
    [[unroll]] for (uint i = 0; i < cms_per_row * cms_per_col; i++) {
        sums[i] = coopmat<ACC_TYPE, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator>(0.0);
    }

    for (uint block_k = 0; block_k < p.K; block_k += BK) {
        for (uint idx = gl_LocalInvocationID.x; idx < BM * BK / 2; idx += BLOCK_SIZE) {
            load_a_to_shmem(idx, idx / (BK / 2), block_k);
        }
        for (uint idx = gl_LocalInvocationID.x; idx < BN * BK; idx += BLOCK_SIZE) {
            load_b_to_shmem(idx, idx / BK, block_k);
        }
        barrier();

        [[unroll]] for (uint i = 0; i < BK; i += TK) {
            [[unroll]] for (uint cm_row = 0; cm_row < cms_per_row; cm_row++) {
                coopMatLoad(cache_a, buf_a, (warp_r * WM + cm_row * TM) * SHMEM_STRIDE + i, SHMEM_STRIDE,
                            gl_CooperativeMatrixLayoutRowMajor);
                [[unroll]] for (uint cm_col = 0; cm_col < cms_per_col; cm_col++) {
                    coopMatLoad(cache_b, buf_b, (warp_c * WN + cm_col * TN) * SHMEM_STRIDE + i, SHMEM_STRIDE,
                                gl_CooperativeMatrixLayoutColumnMajor);
                    sums[cm_col * cms_per_row + cm_row] =
                        coopMatMulAdd(cache_a, cache_b, sums[cm_col * cms_per_row + cm_row]);
                }
            }
        }
        barrier();
    }

    const uint dr = ir * BM + warp_r * WM;
    const uint dc = ic * BN + warp_c * WN;
    [[unroll]] for (uint cm_row = 0; cm_row < cms_per_row; cm_row++) {
        [[unroll]] for (uint cm_col = 0; cm_col < cms_per_col; cm_col++) {
            const uint r0 = dr + cm_row * TM;
            const uint c0 = dc + cm_col * TN;
            if (r0 + TM <= p.M && c0 + TN <= p.N) {
                coopmat<float, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator> d =
                    coopmat<float, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator>(sums[cm_col * cms_per_row + cm_row]);
                coopMatStore(d, data_d, c0 * p.stride_d + r0, p.stride_d, gl_CooperativeMatrixLayoutColumnMajor);
            } else if (r0 < p.M && c0 < p.N) {
                // Partly outside D: stage through shared memory, then each invocation writes what is inside.
                coopMatStore(sums[cm_col * cms_per_row + cm_row], coopmat_stage, warp_i * TM * TN, TM,
                             gl_CooperativeMatrixLayoutColumnMajor);
                for (uint e = tiw; e < TM * TN; e += WARP) {
                    const uint col = e / TM;
                    const uint row = e % TM;
                    if (r0 + row < p.M && c0 + col < p.N) {
                        data_d[(c0 + col) * p.stride_d + r0 + row] = float(coopmat_stage[warp_i * TM * TN + e]);
                    }
                }
            }
        }
    }
}

// Flash-attention forward pass for one head, in the style of coopmat1 flash-attention kernels (written
// for spvcoop's kernel suite, not a copy): online softmax over key/value blocks of Bc rows.
//
//   O = softmax(scale * Q K^T) V        Q: L x D, K and V: S x D, f16, row-major; O: L x D f32
//
// Per key block: S = Q K^T with a cooperative matrix (K loaded column-major is K^T); the row maxima
// and row sums go through shared memory (one invocation per row); the new maxima come back as a
// matrix broadcast along rows, are subtracted from S, and exp() is applied to every element of the
// accumulator; P = exp(S - m) is converted to f16 and reloaded as matrix A for O += P V, after O has
// been rescaled by exp(m_old - m_new) (element-wise product with a broadcast matrix).
// One subgroup per workgroup handles Br = 16 query rows. Dispatch: (L / 16, 1, 1).
//
// build flash_attn: -V --target-env vulkan1.3
// build flash_attn_opt: -V --target-env vulkan1.3 | spirv-opt -O
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : enable

layout(local_size_x = 32) in;

layout(constant_id = 0) const uint D = 16;    // head size
layout(constant_id = 1) const uint Br = 16;   // query rows per workgroup
layout(constant_id = 2) const uint Bc = 16;   // key rows per block

layout(push_constant) uniform parameter {
    uint S;        // number of keys
    float scale;   // usually 1 / sqrt(D)
} p;

layout(binding = 0) readonly buffer Qb { float16_t q[]; };
layout(binding = 1) readonly buffer Kb { float16_t k[]; };
layout(binding = 2) readonly buffer Vb { float16_t v[]; };
layout(binding = 3) writeonly buffer Ob { float o[]; };

shared float sS[Br * Bc];        // scores of the block, then P
shared float16_t sP[Br * Bc];    // P in f16, matrix A of P V
shared float sRowM[Br * Bc];     // new row maximum, broadcast along its row
shared float sRowA[Br * D];      // per-row factor for O, broadcast along its row
shared float sM[Br];             // running row maximum
shared float sL[Br];             // running row sum

#define ACC coopmat<float, gl_ScopeSubgroup, Br, Bc, gl_MatrixUseAccumulator>
#define ACCO coopmat<float, gl_ScopeSubgroup, Br, D, gl_MatrixUseAccumulator>

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint q0 = gl_WorkGroupID.x * Br;

    coopmat<float16_t, gl_ScopeSubgroup, Br, D, gl_MatrixUseA> Q;
    coopMatLoad(Q, q, q0 * D, D, gl_CooperativeMatrixLayoutRowMajor);
    ACCO O = ACCO(0.0);

    if (tid < Br) {
        sM[tid] = -1.0 / 0.0;
        sL[tid] = 0.0;
    }
    barrier();

    for (uint j = 0; j < p.S; j += Bc) {
        coopmat<float16_t, gl_ScopeSubgroup, D, Bc, gl_MatrixUseB> Kt;
        coopMatLoad(Kt, k, j * D, D, gl_CooperativeMatrixLayoutColumnMajor);
        ACC Sm = coopMatMulAdd(Q, Kt, ACC(0.0));
        Sm = Sm * p.scale;
        coopMatStore(Sm, sS, 0, Bc, gl_CooperativeMatrixLayoutRowMajor);
        barrier();

        // one invocation per row: new maximum, and exp(m_old - m_new) to rescale the old sum and O
        if (tid < Br) {
            const float m_old = sM[tid];
            float m_new = m_old;
            for (uint c = 0; c < Bc; ++c) {
                m_new = max(m_new, sS[tid * Bc + c]);
            }
            const float alpha = exp(m_old - m_new);
            sM[tid] = m_new;
            sL[tid] *= alpha;
            for (uint c = 0; c < Bc; ++c) {
                sRowM[tid * Bc + c] = m_new;
            }
            for (uint c = 0; c < D; ++c) {
                sRowA[tid * D + c] = alpha;
            }
        }
        barrier();

        ACC Mb;
        ACCO Ab;
        coopMatLoad(Mb, sRowM, 0, Bc, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(Ab, sRowA, 0, D, gl_CooperativeMatrixLayoutRowMajor);
        Sm = Sm - Mb;
        for (int i = 0; i < Sm.length(); ++i) {
            Sm[i] = exp(Sm[i]);
        }
        O = O * Ab;
        barrier();

        // P: f32 copy for the row sums, f16 copy as matrix A of P V
        coopMatStore(Sm, sS, 0, Bc, gl_CooperativeMatrixLayoutRowMajor);
        coopmat<float16_t, gl_ScopeSubgroup, Br, Bc, gl_MatrixUseAccumulator> P16 =
            coopmat<float16_t, gl_ScopeSubgroup, Br, Bc, gl_MatrixUseAccumulator>(Sm);
        coopMatStore(P16, sP, 0, Bc, gl_CooperativeMatrixLayoutRowMajor);
        barrier();
        if (tid < Br) {
            float rs = 0.0;
            for (uint c = 0; c < Bc; ++c) {
                rs += sS[tid * Bc + c];
            }
            sL[tid] += rs;
        }

        coopmat<float16_t, gl_ScopeSubgroup, Br, Bc, gl_MatrixUseA> Pa;
        coopmat<float16_t, gl_ScopeSubgroup, Bc, D, gl_MatrixUseB> Vm;
        coopMatLoad(Pa, sP, 0, Bc, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(Vm, v, j * D, D, gl_CooperativeMatrixLayoutRowMajor);
        O = coopMatMulAdd(Pa, Vm, O);
        barrier();
    }

    if (tid < Br) {
        const float inv = 1.0 / sL[tid];
        for (uint c = 0; c < D; ++c) {
            sRowA[tid * D + c] = inv;
        }
    }
    barrier();
    ACCO Lb;
    coopMatLoad(Lb, sRowA, 0, D, gl_CooperativeMatrixLayoutRowMajor);
    O = O * Lb;
    coopMatStore(O, o, q0 * D, D, gl_CooperativeMatrixLayoutRowMajor);
}

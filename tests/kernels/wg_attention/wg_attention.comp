// Online-softmax attention for one head with Workgroup-scope matrices, in the style of coopmat2 flash-attention
// kernels (written for spvcoop's kernel suite, not a copy):
//
//   O = softmax(scale * Q K^T) V        Q: L x D, K and V: S x D, f16, row-major; O: L x D f32
//
// Per block of Bc keys: S = scale * Q K^T (K read through a transposed tensor view); the row maxima come from
// coopMatReduceNV (Row, max) broadcast along each row; the new running maximum, P = exp(S - m_new) and the
// rescaling factor exp(m_old - m_new) are per-element functions (coopMatPerElementNV) of two matrices, and
// keys past S (S is not a multiple of Bc) are masked by one of the element's column and the block's start; the row
// sums of P come from coopMatReduceNV (Row, +); P goes to f16 and use A (a conversion across uses) for
// O = P V + alpha O. Bc = D, so every per-row quantity is a matrix of O's shape. O / l at the end.
// L = 64, S = 80, D = Bc = 32, Br = 32: 128 invocations per 32 query rows. Dispatch: (L / Br, 1, 1).
//
// build16 O0 +spv: -V --target-env vulkan1.3
// build16 opt: -V --target-env vulkan1.3 | spirv-opt -O
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint S = 80;    // keys
layout(push_constant) uniform parameter { float scale; } p;

layout(binding = 0) readonly buffer BQ { float16_t q[]; };
layout(binding = 1) readonly buffer BK { float16_t k[]; };
layout(binding = 2) readonly buffer BV { float16_t v[]; };
layout(binding = 3) writeonly buffer BO { float o[]; };

const uint Br = 32, Bc = 32, D = 32;

#define ACC coopmat<float, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseAccumulator>

float maxReduce(const in float a, const in float b) { return max(a, b); }
float addReduce(const in float a, const in float b) { return a + b; }
float maxOf(const in uint r, const in uint c, const in float a, const in float b) { return max(a, b); }
float maskPast(const in uint r, const in uint c, const in float a, const in uint j0) { return j0 + c < S ? a : -1.0e30; }
float expDiff(const in uint r, const in uint c, const in float a, const in float b) { return exp(a - b); }

void main()
{
    const uint q0 = gl_WorkGroupID.x * Br;
    tensorLayoutNV<2> tQ = createTensorLayoutNV(2);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tK = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2> tO = createTensorLayoutNV(2);
    tQ = setTensorLayoutDimensionNV(tQ, q0 + Br, D);
    tK = setTensorLayoutDimensionNV(tK, S, D);
    tO = setTensorLayoutDimensionNV(tO, q0 + Br, D);
    tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

    coopmat<float16_t, gl_ScopeWorkgroup, Br, D, gl_MatrixUseA> mq = coopmat<float16_t, gl_ScopeWorkgroup, Br, D, gl_MatrixUseA>(0.0);
    coopMatLoadTensorNV(mq, q, 0, sliceTensorLayoutNV(tQ, q0, Br, 0, D));

    ACC O = ACC(0.0);
    ACC m = ACC(-1.0e30);   // running row maximum (finite: exp(m_old - m_new) stays 0 for the first block)
    ACC l = ACC(0.0);       // running row sum
    coopmat<float16_t, gl_ScopeWorkgroup, D, Bc, gl_MatrixUseB> mk = coopmat<float16_t, gl_ScopeWorkgroup, D, Bc, gl_MatrixUseB>(0.0);
    coopmat<float16_t, gl_ScopeWorkgroup, Bc, D, gl_MatrixUseB> mv = coopmat<float16_t, gl_ScopeWorkgroup, Bc, D, gl_MatrixUseB>(0.0);
    for (uint j = 0; j < S; j += Bc) {
        coopMatLoadTensorNV(mk, k, 0, sliceTensorLayoutNV(tK, j, Bc, 0, D), transposed);   // K^T, zeros past S
        ACC s = coopMatMulAdd(mq, mk, ACC(0.0));
        s = s * p.scale;
        coopMatPerElementNV(s, s, maskPast, j);   // keys past S (zeros from the clamped load) take no weight
        ACC rowmax = ACC(0.0);
        coopMatReduceNV(rowmax, s, gl_CooperativeMatrixReduceRowNV, maxReduce);
        ACC mnew = ACC(0.0);
        coopMatPerElementNV(mnew, rowmax, maxOf, m);
        ACC pm = ACC(0.0);
        coopMatPerElementNV(pm, s, expDiff, mnew);
        ACC alpha = ACC(0.0);
        coopMatPerElementNV(alpha, m, expDiff, mnew);
        ACC rowsum = ACC(0.0);
        coopMatReduceNV(rowsum, pm, gl_CooperativeMatrixReduceRowNV, addReduce);
        l = l * alpha + rowsum;
        coopMatLoadTensorNV(mv, v, 0, sliceTensorLayoutNV(tK, j, Bc, 0, D));              // zeros past S
        coopmat<float16_t, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseA> pa = coopmat<float16_t, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseA>(pm);
        O = coopMatMulAdd(pa, mv, O * alpha);
        m = mnew;
    }
    O = O / l;
    coopMatStoreTensorNV(O, o, 0, sliceTensorLayoutNV(tO, q0, Br, 0, D));
}

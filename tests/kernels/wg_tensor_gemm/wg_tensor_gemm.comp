// Workgroup-scope tiled GEMM through tensor layouts, in the style of coopmat2 matmul kernels (written for
// spvcoop's kernel suite, not a copy): D (M x N, f32) = A (M x K, f16) x B^T + bias, with B stored N x K
// (row-major, as weights are), so B is loaded through a transposed tensor view. M, N, K (spec constants
// 0-2; 40, 72, 56 here) are not multiples of the 32 x 32 x 16 tile: edge tiles read zeros outside A and B
// (clamp mode Constant) and store nothing outside D. The bias is a row vector loaded as a matrix with stride 0
// (broadcast down the columns), and the accumulator is scaled element by element over length(), which
// observes the driver's per-invocation view of a Workgroup-scope matrix (the same factor for every element).
// One workgroup of 128 invocations per 32 x 32 tile of D. Dispatch: (ceil(N / 32), ceil(M / 32), 1).
//
// build16 O0 +spv: -V --target-env vulkan1.3
// build16 opt: -V --target-env vulkan1.3 | spirv-opt -O
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint M = 40;
layout(constant_id = 1) const uint N = 72;
layout(constant_id = 2) const uint K = 56;

layout(push_constant) uniform parameter { float alpha; } p;

layout(binding = 0) readonly buffer BA { float16_t a[]; };
layout(binding = 1) readonly buffer BB { float16_t b[]; };     // N x K
layout(binding = 2) readonly buffer BBias { float bias[]; };   // N
layout(binding = 3) writeonly buffer BD { float d[]; };

const uint BM = 32, BN = 32, BK = 16;

void main()
{
    const uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tA = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tB = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tD = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tBias = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tA = setTensorLayoutDimensionNV(tA, M, K);
    tB = setTensorLayoutDimensionNV(tB, N, K);
    tD = setTensorLayoutDimensionNV(tD, M, N);
    tBias = setTensorLayoutDimensionNV(tBias, M, N);
    tBias = setTensorLayoutStrideNV(tBias, 0, 1);       // every row of the view is the bias row
    tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < K; k += BK) {
        // initialised: glslang's O0 build reads a load's destination before the load (issue 22, another branch)
        coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma = coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>(0.0);
        coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb = coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>(0.0);
        coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(tA, m0, BM, k, BK));
        coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(tB, n0, BN, k, BK), transposed);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    for (int i = 0; i < acc.length(); ++i) {
        acc[i] = acc[i] * p.alpha;
    }
    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> mbias =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    coopMatLoadTensorNV(mbias, bias, 0, sliceTensorLayoutNV(tBias, 0, BM, n0, BN));
    acc = acc + mbias;
    coopMatStoreTensorNV(acc, d, 0, sliceTensorLayoutNV(tD, m0, BM, n0, BN));
}

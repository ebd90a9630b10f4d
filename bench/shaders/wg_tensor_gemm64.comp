// Workgroup-scope GEMM through tensor layouts at real sizes (bench/bench_tensor.py, issue 26), written for spvcoop:
// D (M x N, f32) = A (M x K, f16) x B (K x N, f16), row-major. One workgroup of 128 invocations per 64 x 64 tile
// of D, K step 32; every load and the store go through tensor layouts with clamp mode Constant, so M, N, K that
// are not multiples of the tile read zeros past the edges and store nothing outside D.
// Dispatch: (ceil(N / 64), ceil(M / 64), 1); M, N, K are spec constants 0-2.
//
// /work/shared/tools/glslang/glslang --target-env vulkan1.3 -V wg_tensor_gemm64.comp -o wg_tensor_gemm64.spv
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x = 128) in;

layout(constant_id = 0) const uint M = 1024;
layout(constant_id = 1) const uint N = 1024;
layout(constant_id = 2) const uint K = 1024;

layout(binding = 0) readonly buffer BA { float16_t a[]; };
layout(binding = 1) readonly buffer BB { float16_t b[]; };
layout(binding = 2) writeonly buffer BD { float d[]; };

const uint BM = 64, BN = 64, BK = 32;

void main()
{
    const uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tA = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tB = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tD = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tA = setTensorLayoutDimensionNV(tA, M, K);
    tB = setTensorLayoutDimensionNV(tB, K, N);
    tD = setTensorLayoutDimensionNV(tD, M, N);

    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < K; k += BK) {
        coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
        coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(tA, m0, BM, k, BK));
        coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(tB, k, BK, n0, BN));
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStoreTensorNV(acc, d, 0, sliceTensorLayoutNV(tD, m0, BM, n0, BN));
}

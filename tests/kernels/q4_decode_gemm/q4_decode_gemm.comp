// Quantised-weight GEMM through a coopmat2 decode callback, in the style of coopmat2 dequantising matmuls
// (written for spvcoop's kernel suite, not a copy): D (M x N, f32) = dequant(W) (M x K) x X (K x N, f16).
// W is stored in blocks of 16 weights along K, each {float16_t d; float16_t m; uint16_t qs[4]} (12 bytes):
// weight j of a block is d * q_j + m with the 4-bit q_j = (qs[j / 4] >> 4 (j % 4)) & 15. The tensor layout
// has block size 1 x 16, so the decode function gets the block's address and the element's column in it.
// The decoded value is formed in f32, where d q + m is exact (q < 16 and d, m f16 of like magnitude), then
// rounded once to f16: the same value whether the driver fuses the multiply-add or not.
// M = 48, N = 40, K = 64 (spec constants 0-2): N is not a multiple of the 32-column tile, so the last tile
// column reads zeros (clamp mode Constant) and stores only its first 8 columns. Workgroup scope, 64
// invocations per 32 x 32 tile of D. Dispatch: (ceil(N / 32), M / 32, 1).
//
// build16 O0 +spv: -V --target-env vulkan1.3
// build16 opt: -V --target-env vulkan1.3 | spirv-opt -O
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 64) in;

layout(constant_id = 0) const uint M = 48;
layout(constant_id = 1) const uint N = 40;
layout(constant_id = 2) const uint K = 64;

const uint QK = 16;   // weights per block

struct BlockQ4 { float16_t d; float16_t m; uint16_t qs[4]; };

layout(binding = 0) readonly buffer BW { BlockQ4 w[]; };     // M x (K / QK) blocks, row-major
layout(binding = 1) readonly buffer BX { float16_t x[]; };   // K x N
layout(binding = 2) writeonly buffer BD { float dout[]; };   // M x N

layout(buffer_reference, std430, buffer_reference_align = 2) buffer BlockRef { BlockQ4 blk; };

float16_t decodeQ4(const in BlockRef ref, const in uint blockCoords[2], const in uint coordInBlock[2])
{
    const uint j = coordInBlock[1];
    const uint q = (uint(ref.blk.qs[j >> 2]) >> (4 * (j & 3))) & 15;
    return float16_t(float(q) * float(ref.blk.d) + float(ref.blk.m));
}

const uint BM = 32, BN = 32, BK = 16;

void main()
{
    const uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tW = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tX = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> tD = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tW = setTensorLayoutBlockSizeNV(tW, 1, QK);
    tW = setTensorLayoutDimensionNV(tW, M, K);
    tX = setTensorLayoutDimensionNV(tX, K, N);
    tD = setTensorLayoutDimensionNV(tD, M, N);

    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    // initialised: glslang's O0 build reads a load's destination before the load (issue 22, another branch)
    coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> mw = coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>(0.0);
    coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mx = coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>(0.0);
    for (uint k = 0; k < K; k += BK) {
        coopMatLoadTensorNV(mw, w, 0, sliceTensorLayoutNV(tW, m0, BM, k, BK), decodeQ4);
        coopMatLoadTensorNV(mx, x, 0, sliceTensorLayoutNV(tX, k, BK, n0, BN));
        acc = coopMatMulAdd(mw, mx, acc);
    }
    coopMatStoreTensorNV(acc, dout, 0, sliceTensorLayoutNV(tD, m0, BM, n0, BN));
}

// KHR cooperative matrices passed to and returned from functions, and held in arrays.
// Computes C = relu(A * B) - 0.5 with M = 32, N = 64, K = 32, f16 inputs, f32 accumulators, row-major.
// Each workgroup (one subgroup) computes a 16x32 strip of C as an array of two 16x16 accumulators.
//   binding 0: A, 32x32 float16_t   binding 1: B, 32x64 float16_t
//   binding 2: C, 32x64 float (output)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/32, M/16, 1) = (2, 2, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint M = 32;
const uint N = 64;
const uint K = 32;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

#define MA coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define MB coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

ACC mma(MA x, MB y, ACC z)
{
    return coopMatMulAdd(x, y, z);
}

void loadB(out MB m, uint row, uint col)
{
    coopMatLoad(m, b, row * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
}

void reluMinusHalf(inout ACC m)
{
    for (int i = 0; i < m.length(); ++i) {
        m[i] = max(m[i], 0.0) - 0.5;
    }
}

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 32;

    ACC acc[2];
    for (int j = 0; j < 2; ++j) {
        acc[j] = ACC(0.0);
    }
    for (uint k = 0; k < K; k += 16) {
        MA ma;
        coopMatLoad(ma, a, tileRow * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        MB mb[2];
        loadB(mb[0], k, tileCol);
        loadB(mb[1], k, tileCol + 16);
        for (int j = 0; j < 2; ++j) {
            acc[j] = mma(ma, mb[j], acc[j]);
        }
    }
    for (int j = 0; j < 2; ++j) {
        reluMinusHalf(acc[j]);
        coopMatStore(acc[j], c, tileRow * N + tileCol + uint(j) * 16, N, gl_CooperativeMatrixLayoutRowMajor);
    }
}

// KHR cooperative matrix GEMM whose tile sizes and workgroup size are specialization constants.
// Computes C = 2 * (A * B) with M = N = K = 32, f16 inputs, f32 accumulator, row-major;
// the scaling by 2 is a loop over length() of the spec-constant-sized accumulator.
//   spec constants: 0 = TM (16), 1 = TN (16), 2 = TK (16), 3 = local_size_x (32 = one subgroup).
//                   Valid on the H100: (TM, TN, TK) in {(16,16,16), (16,8,16), (16,8,8)}.
//   binding 0: A, 32x32 float16_t   binding 1: B, 32x32 float16_t
//   binding 2: C, 32x32 float (output)
//   binding 3: L, uint[1] (output): L[0] = length() of the accumulator type, written by workgroup (0,0) invocation 0.
// Dispatch: vkCmdDispatch(32/TN, 32/TM, 1) = (2, 2, 1) with the defaults.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(constant_id = 0) const uint TM = 16;
layout(constant_id = 1) const uint TN = 16;
layout(constant_id = 2) const uint TK = 16;
layout(local_size_x_id = 3, local_size_x = 32) in;

const uint M = 32;
const uint N = 32;
const uint K = 32;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };
layout(set = 0, binding = 3) writeonly buffer BufL { uint len[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * TM;
    uint tileCol = gl_WorkGroupID.x * TN;

    coopmat<float, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < K; k += TK) {
        coopmat<float16_t, gl_ScopeSubgroup, TM, TK, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, TK, TN, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, tileRow * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, k * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    for (int i = 0; i < acc.length(); ++i) {
        acc[i] = acc[i] * 2.0;
    }
    coopMatStore(acc, c, tileRow * N + tileCol, N, gl_CooperativeMatrixLayoutRowMajor);
    if (gl_WorkGroupID.x == 0 && gl_WorkGroupID.y == 0 && gl_LocalInvocationIndex == 0) {
        len[0] = uint(acc.length());
    }
}

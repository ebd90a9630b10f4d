// KHR cooperative matrix GEMM through buffer_reference (PhysicalStorageBuffer) pointers.
// Computes C = A * B, f16 inputs, f32 accumulator, 16x16x16 tiles, all row-major.
//   binding 0: { HalfRef a; HalfRef b; FloatRef c; uint M; uint N; uint K; }
//              a, b, c are device addresses (uint64) of A (MxK f16), B (KxN f16), C (MxN f32, output).
//              Use M = N = K = 32.
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(N/16, M/16, 1) = (2, 2, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 32) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer HalfRef { float16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer FloatRef { float v[]; };

layout(set = 0, binding = 0) readonly buffer Ptrs {
    HalfRef a;
    HalfRef b;
    FloatRef c;
    uint M;
    uint N;
    uint K;
} p;

void main()
{
    uint tileRow = gl_WorkGroupID.y * 16;
    uint tileCol = gl_WorkGroupID.x * 16;
    HalfRef a = p.a;
    HalfRef b = p.b;

    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    for (uint k = 0; k < p.K; k += 16) {
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
        coopMatLoad(ma, a.v, tileRow * p.K + k, p.K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b.v, k * p.N + tileCol, p.N, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopMatStore(acc, p.c.v, tileRow * p.N + tileCol, p.N, gl_CooperativeMatrixLayoutRowMajor);
}

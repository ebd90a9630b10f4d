// NV cooperative matrix GEMM with specialization-constant tile sizes and a spec-constant
// ColumnMajor flag for B. Computes C = A * B with M = 32, N = 32, K = 32 (f16 in, f32 out).
//   spec constants: 0 = TM (16), 1 = TN (8), 2 = TK (16), 3 = B_COLMAJOR (false), 4 = local_size_x (32).
//                   Valid on the H100: (TM, TN, TK) in {(16,16,16), (16,8,16), (16,8,8)}.
//   binding 0: A, 32x32 float16_t row-major
//   binding 1: B, 32x32 float16_t, row-major (B(k, n) at k*32 + n) when B_COLMAJOR is false,
//              column-major (B(k, n) at n*32 + k) when it is true
//   binding 2: C, 32x32 float row-major (output)
// Dispatch: vkCmdDispatch(32/TN, 32/TM, 1) = (4, 2, 1) with the defaults.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(constant_id = 0) const int TM = 16;
layout(constant_id = 1) const int TN = 8;
layout(constant_id = 2) const int TK = 16;
layout(constant_id = 3) const bool B_COLMAJOR = false;
layout(local_size_x_id = 4, local_size_x = 32) in;

const uint M = 32;
const uint N = 32;
const uint K = 32;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

void main()
{
    uint tileRow = gl_WorkGroupID.y * uint(TM);
    uint tileCol = gl_WorkGroupID.x * uint(TN);

    fcoopmatNV<32, gl_ScopeSubgroup, TM, TN> acc = fcoopmatNV<32, gl_ScopeSubgroup, TM, TN>(0.0);
    for (uint k = 0; k < K; k += uint(TK)) {
        fcoopmatNV<16, gl_ScopeSubgroup, TM, TK> ma;
        fcoopmatNV<16, gl_ScopeSubgroup, TK, TN> mb;
        coopMatLoadNV(ma, a, tileRow * K + k, K, false);
        uint offB = B_COLMAJOR ? tileCol * K + k : k * N + tileCol;
        coopMatLoadNV(mb, b, offB, B_COLMAJOR ? K : N, B_COLMAJOR);
        acc = coopMatMulAddNV(ma, mb, acc);
    }
    coopMatStoreNV(acc, c, tileRow * N + tileCol, N, false);
}

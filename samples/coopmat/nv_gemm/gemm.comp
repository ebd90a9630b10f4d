// NV cooperative-matrix GEMM: C = A * B, f16 inputs, f32 accumulator, 16x16x16 tiles.
// M = N = K = 64, row-major. One subgroup (32 invocations) per 16x16 tile of C,
// dispatch (N/16, M/16, 1) = (4, 4, 1): 16 workgroups, each looping over K in steps of 16.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;
layout(constant_id = 0) const uint N = 64;
layout(constant_id = 1) const uint K = 64;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

void main()
{
    uint row = gl_WorkGroupID.y * 16;
    uint col = gl_WorkGroupID.x * 16;
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    for (uint k = 0; k < K; k += 16) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma;
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mb;
        coopMatLoadNV(ma, a, row * K + k, K, false);
        coopMatLoadNV(mb, b, k * N + col, N, false);
        acc = coopMatMulAddNV(ma, mb, acc);
    }
    coopMatStoreNV(acc, c, row * N + col, N, false);
}

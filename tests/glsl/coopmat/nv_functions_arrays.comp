// NV cooperative matrices passed to and returned from functions (arrays of matrices as
// parameters, matrix return values), held in arrays, and assigned under a branch.
// Computes C = A * B for one 16x16 tile per workgroup with K = 64 split into an array of four
// A and four B matrices (f16), accumulated in f32; then C is negated in workgroups with odd x.
//   binding 0: A, 16x64 float16_t row-major (shared by all workgroups)
//   binding 1: B, 64x(16*W) float16_t row-major
//   binding 2: C, 16x(16*W) float row-major (output), tile w at column 16*w:
//              C_w = A * B[:, 16w:16w+16], negated when w is odd.
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(W, 1, 1) with W = 2 (N = 32).
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

const uint K = 64;
const uint N = 32;

layout(set = 0, binding = 0) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer BufC { float c[]; };

#define HM fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FM fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

FM accumulate(HM as[4], HM bs[4], FM init)
{
    FM acc = init;
    for (int i = 0; i < 4; ++i) {
        acc = coopMatMulAddNV(as[i], bs[i], acc);
    }
    return acc;
}

HM loadTile(uint offset, uint stride)
{
    HM m;
    coopMatLoadNV(m, a, offset, stride, false);
    return m;
}

void main()
{
    uint col = gl_WorkGroupID.x * 16;
    HM as[4];
    HM bs[4];
    for (uint i = 0; i < 4; ++i) {
        as[i] = loadTile(i * 16, K);
        coopMatLoadNV(bs[i], b, i * 16 * N + col, N, false);
    }
    FM acc = accumulate(as, bs, FM(0.0));
    FM neg = -acc;
    FM result;
    if (gl_WorkGroupID.x % 2 == 1) {
        result = neg;
    } else {
        result = acc;
    }
    coopMatStoreNV(result, c, col, N, false);
}

// NV cooperative matrix through buffer_reference (PhysicalStorageBuffer) pointers in push constants.
// Computes D = A * B + C for one 16x8x16 tile per workgroup, f16 in, f16 accumulator, row-major:
//   push constants: { HalfRef a; HalfRef b; HalfRef c; HalfRef d; } (uint64 device addresses)
//   A: W stacked 16x16 f16 tiles (tile w at a.v[w*256], stride 16),
//   B: one 16x8 f16 matrix (b.v[0..127], stride 8), C: W 16x8 tiles (c.v[w*128], stride 8),
//   D: W 16x8 tiles (d.v[w*128], stride 8, output). D_w = A_w * B + C_w.
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(W, 1, 1), e.g. W = 3.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 32) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer HalfRef { float16_t v[]; };

layout(push_constant) uniform PC {
    HalfRef a;
    HalfRef b;
    HalfRef c;
    HalfRef d;
} pc;

void main()
{
    uint w = gl_WorkGroupID.x;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> mb;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> mc;
    coopMatLoadNV(ma, pc.a.v, w * 256, 16, false);
    coopMatLoadNV(mb, pc.b.v, 0, 8, false);
    coopMatLoadNV(mc, pc.c.v, w * 128, 8, false);
    mc = coopMatMulAddNV(ma, mb, mc);
    coopMatStoreNV(mc, pc.d.v, w * 128, 8, false);
}

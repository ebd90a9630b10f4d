#version 450
// NV cooperative matrices (fcoopmatNV, 16x16, one tile per workgroup): X / Y of f32 (binding 2) and f16 (binding
// 5) matrices, and f32 -> f16 conversion of X (binding 6).
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer BX { float x[]; };
layout(binding = 1) readonly buffer BY { float y[]; };
layout(binding = 2) writeonly buffer BQ { float q[]; };
layout(binding = 3) readonly buffer BHX { float16_t hx[]; };
layout(binding = 4) readonly buffer BHY { float16_t hy[]; };
layout(binding = 5) writeonly buffer BHQ { float16_t hq[]; };
layout(binding = 6) writeonly buffer BC { float16_t hc[]; };
void main() {
    uint t = gl_WorkGroupID.x;
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> a, b;
    coopMatLoadNV(a, x, t * 256, 16, false);
    coopMatLoadNV(b, y, t * 256, 16, false);
    coopMatStoreNV(a / b, q, t * 256, 16, false);
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> c = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(a);
    coopMatStoreNV(c, hc, t * 256, 16, false);
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ha, hb;
    coopMatLoadNV(ha, hx, t * 256, 16, false);
    coopMatLoadNV(hb, hy, t * 256, 16, false);
    coopMatStoreNV(ha / hb, hq, t * 256, 16, false);
}

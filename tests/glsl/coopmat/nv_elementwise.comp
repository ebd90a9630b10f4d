// NV cooperative matrix element-wise kernel over four 16x16 tiles (one per workgroup).
// For tile w (elements w*256 .. w*256+255, row-major, stride 16):
//   T = relu(0.5 * X + Y)                       (f16; relu done by a loop over length())
//   Z = -((3 * float(T) - 1) / 2)                (f16 -> f32 conversion, then f32 matrix arithmetic)
//   W = float16_t(Z)                             (f32 -> f16 conversion)
//   binding 0: X, 4*256 float16_t     binding 1: Y, 4*256 float16_t
//   binding 2: Z, 4*256 float (out)   binding 3: W, 4*256 float16_t (out)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(4, 1, 1).
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufX { float16_t x[]; };
layout(set = 0, binding = 1) readonly buffer BufY { float16_t y[]; };
layout(set = 0, binding = 2) writeonly buffer BufZ { float z[]; };
layout(set = 0, binding = 3) writeonly buffer BufW { float16_t w[]; };

void main()
{
    uint base = gl_WorkGroupID.x * 256;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mx;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> my;
    coopMatLoadNV(mx, x, base, 16, false);
    coopMatLoadNV(my, y, base, 16, false);

    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> t = mx * float16_t(0.5) + my;
    for (int i = 0; i < t.length(); ++i) {
        t[i] = max(t[i], float16_t(0.0));
    }

    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> t32 = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(t);
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> one = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(1.0);
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> two = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(2.0);
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> mz = -((t32 * 3.0 - one) / two);
    coopMatStoreNV(mz, z, base, 16, false);

    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mw = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(mz);
    coopMatStoreNV(mw, w, base, 16, false);
}

// NV layout probe: what each invocation holds. Not portable by design (the output depends on the
// implementation's element layout); used to compare an interpreter layout model with a driver.
// Loads three matrices row-major from inputs whose element i has value i, then each invocation
// `inv` writes element j of its view (j < length()) to out[section*1024 + inv*32 + j] as float:
//   section 0: fcoopmatNV<16, Subgroup, 16, 16> from binding 0 (float16_t[256], h[i] = i, stride 16)
//   section 1: fcoopmatNV<32, Subgroup, 16, 8>  from binding 1 (float[128], f[i] = i, stride 8)
//   section 2: icoopmatNV<32, Subgroup, 16, 16> from binding 2 (int[256], n[i] = i, stride 16)
//   binding 3: out, float[3*1024] (output; slots past length() untouched)
//   binding 4: lens, uint[3] (output): length() of each type, written by invocation 0.
// Dispatch: local_size 32 (one subgroup of 32), vkCmdDispatch(1, 1, 1).
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufH { float16_t h[]; };
layout(set = 0, binding = 1) readonly buffer BufF { float f[]; };
layout(set = 0, binding = 2) readonly buffer BufN { int n[]; };
layout(set = 0, binding = 3) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 4) writeonly buffer BufLen { uint lens[]; };

void main()
{
    uint inv = gl_LocalInvocationIndex;

    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mh;
    coopMatLoadNV(mh, h, 0, 16, false);
    for (int j = 0; j < mh.length(); ++j) {
        o[0 * 1024 + inv * 32 + uint(j)] = float(mh[j]);
    }

    fcoopmatNV<32, gl_ScopeSubgroup, 16, 8> mf;
    coopMatLoadNV(mf, f, 0, 8, false);
    for (int j = 0; j < mf.length(); ++j) {
        o[1 * 1024 + inv * 32 + uint(j)] = mf[j];
    }

    icoopmatNV<32, gl_ScopeSubgroup, 16, 16> mn;
    coopMatLoadNV(mn, n, 0, 16, false);
    for (int j = 0; j < mn.length(); ++j) {
        o[2 * 1024 + inv * 32 + uint(j)] = float(mn[j]);
    }

    if (inv == 0) {
        lens[0] = uint(mh.length());
        lens[1] = uint(mf.length());
        lens[2] = uint(mn.length());
    }
}

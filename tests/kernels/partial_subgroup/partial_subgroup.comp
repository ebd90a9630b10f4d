// A small residual block run by a workgroup of 16 invocations on a device whose subgroups have 32
// lanes (a partial subgroup, as every GPU gives for a workgroup smaller than its subgroup size), with
// the matrices passed through function calls, chosen by an if/else and carried around a loop (written
// for spvcoop's kernel suite). Built twice: as glslang emits it (function calls, matrices in Function
// variables) and optimised by spirv-opt -O (calls inlined, the if/else and the loop become OpPhi of
// cooperative matrices).
//
//   Y = A W                          A, W: 16 x 16 f16 per workgroup, row-major
//   Y = (workgroup even) ? Y : -Y
//   repeat p.steps times: Y = 0.5 * Y + X           X, out: 16 x 16 f32 per workgroup
//
// Dispatch: (number of 16 x 16 problems, 1, 1), subgroup size 32.
//
// build O0: -V --target-env vulkan1.3
// build opt: -V --target-env vulkan1.3 | spirv-opt -O
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x = 16) in;

layout(binding = 0) readonly buffer Ab { float16_t a[]; };
layout(binding = 1) readonly buffer Wb { float16_t w[]; };
layout(binding = 2) readonly buffer Xb { float x[]; };
layout(binding = 3) writeonly buffer Yb { float y[]; };
layout(push_constant) uniform parameter { uint steps; } p;

#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

ACC flip(ACC m)
{
    return -m;
}

ACC residual(ACC m, ACC r)
{
    return m * float(0.5) + r;
}

void main()
{
    const uint base = gl_WorkGroupID.x * 256;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mw;
    coopMatLoad(ma, a, base, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mw, w, base, 16, gl_CooperativeMatrixLayoutRowMajor);
    ACC prod = coopMatMulAdd(ma, mw, ACC(0.0));

    ACC cur;
    if ((gl_WorkGroupID.x & 1u) == 0u) {
        cur = prod;
    } else {
        cur = flip(prod);
    }

    ACC mx;
    coopMatLoad(mx, x, base, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (uint s = 0; s < p.steps; ++s) {
        cur = residual(cur, mx);
    }
    coopMatStore(cur, y, base, 16, gl_CooperativeMatrixLayoutRowMajor);
}

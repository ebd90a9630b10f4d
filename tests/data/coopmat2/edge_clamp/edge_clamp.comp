#version 450
// Written for spvcoop (issue 22): the edge tiles of a row-major M x N f32 matrix A (M = 40, N = 24) copied to B as
// 16x16 tiles, one tile per workgroup (dispatch 3 x 2 x 1, 32 invocations). Interior tiles load through a plain
// tensor layout; a workgroup whose tile crosses the matrix edge sets ClampModeConstant with clamp value `pad` (a
// push constant) in a branch the others skip, as ggml's cm2 matmul does for partial tiles. B is 48 x 32,
// row-major. Push constants: uint M, uint N, float pad.
// Builds (glslang 16.5, no spirv-opt; see tests/data/README.md):
//   edge_clamp:       the matrix `t` has no initialiser (its OpLoad is the Object of every coopMatLoadTensorNV)
//   edge_clamp_init:  -DINIT      `t` starts as zeros
//   edge_clamp_lane:  -DINIT -DPER_LANE  the clamp value differs between the invocations of a workgroup
//   edge_clamp_use:   -DUSE_UNDEF `t * 2.0` reads the uninitialised matrix
//   edge_clamp_clip:  -DCLIP      a view's clip region keeps elements of the uninitialised Object
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_NV_cooperative_matrix2 : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float b[]; };
layout(push_constant) uniform P { uint M; uint N; float pad; };

void main() {
    uint r0 = gl_WorkGroupID.x * 16, c0 = gl_WorkGroupID.y * 16;
    tensorLayoutNV<2> plain = createTensorLayoutNV(2);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> edge =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    plain = setTensorLayoutDimensionNV(plain, M, N);
    edge = setTensorLayoutDimensionNV(edge, M, N);
#ifdef INIT
    coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> t =
        coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
#else
    coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> t;
#endif
#ifdef USE_UNDEF
    t = t * 2.0;
#endif
    if (r0 + 16 > M || c0 + 16 > N) {
        float v = pad;
#ifdef PER_LANE
        v += float(gl_LocalInvocationID.x);
#endif
        edge = setTensorLayoutClampValueNV(edge, floatBitsToUint(v));
        coopMatLoadTensorNV(t, a, 0, sliceTensorLayoutNV(edge, r0, 16, c0, 16));
    } else {
#ifdef CLIP
        tensorViewNV<2> view = createTensorViewNV(2);
        view = setTensorViewClipNV(view, 0, 8, 0, 16);
        coopMatLoadTensorNV(t, a, 0, sliceTensorLayoutNV(plain, r0, 16, c0, 16), view);
#else
        coopMatLoadTensorNV(t, a, 0, sliceTensorLayoutNV(plain, r0, 16, c0, 16));
#endif
    }
    tensorLayoutNV<2> dst = createTensorLayoutNV(2);
    dst = setTensorLayoutDimensionNV(dst, 48, 32);
    coopMatStoreTensorNV(t, b, 0, sliceTensorLayoutNV(dst, r0, 16, c0, 16));
}

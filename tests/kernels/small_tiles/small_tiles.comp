// A tiny GEMM with an element-wise epilogue on 4 x 4 tiles: fewer matrix elements (16) than the
// subgroup has lanes (32), so some invocations hold no element (written for spvcoop's kernel suite,
// in the shape of the small-matrix examples published with interpreters and conformance tests).
//
//   C = A B + bias, then c = c > 0 ? c : 0.125 * c on every element (a loop over length() writing m[i])
//   A: 4 x 8 f16, B: 8 x 4 f16, bias: 4 x 4 f32, C: 4 x 4 f32 per workgroup, row-major
//
// Dispatch: (number of problems, 1, 1), one full subgroup of 32 per workgroup.
//
// build small_tiles: -V --target-env vulkan1.3
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x = 32) in;

layout(binding = 0) readonly buffer Ab { float16_t a[]; };
layout(binding = 1) readonly buffer Bb { float16_t b[]; };
layout(binding = 2) readonly buffer Biasb { float bias[]; };
layout(binding = 3) writeonly buffer Cb { float c[]; };

void main()
{
    const uint w = gl_WorkGroupID.x;
    coopmat<float16_t, gl_ScopeSubgroup, 4, 8, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeSubgroup, 8, 4, gl_MatrixUseB> mb;
    coopmat<float, gl_ScopeSubgroup, 4, 4, gl_MatrixUseAccumulator> mc;
    coopMatLoad(ma, a, w * 32, 8, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mb, b, w * 32, 4, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mc, bias, w * 16, 4, gl_CooperativeMatrixLayoutRowMajor);
    mc = coopMatMulAdd(ma, mb, mc);
    for (int i = 0; i < mc.length(); ++i) {
        const float v = mc[i];
        mc[i] = v > 0.0 ? v : 0.125 * v;
    }
    coopMatStore(mc, c, w * 16, 4, gl_CooperativeMatrixLayoutRowMajor);
}

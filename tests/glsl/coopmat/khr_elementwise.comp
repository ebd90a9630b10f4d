// KHR cooperative matrix element-wise kernel on 16x16 f32 accumulator tiles (one per workgroup).
// For tile w (elements w*256 .. w*256+255, row-major, stride 16), element-wise:
//   S = (X + Y) * (X - Y) / (Y*Y + 1) * 2 - X           (matrix +, -, *, / and matrix-times-scalar)
//   S = clamp(S, -4, 4) via a loop over length(), then R = relu(-S) (negate, loop)
//   binding 0: X, 4*256 float   binding 1: Y, 4*256 float
//   binding 2: R, 4*256 float (out), R = max(-clamp(S, -4, 4), 0)
//   binding 3: H, 4*256 float16_t (out), H = f16(S clamped) (f32 -> f16 accumulator conversion)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(4, 1, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1) readonly buffer BufY { float y[]; };
layout(set = 0, binding = 2) writeonly buffer BufR { float r[]; };
layout(set = 0, binding = 3) writeonly buffer BufH { float16_t h[]; };

#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define ACC16 coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

void main()
{
    uint base = gl_WorkGroupID.x * 256;
    ACC mx;
    ACC my;
    coopMatLoad(mx, x, base, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(my, y, base, 16, gl_CooperativeMatrixLayoutRowMajor);

    ACC one = ACC(1.0);
    ACC s = (mx + my) * (mx - my) / (my * my + one) * 2.0 - mx;
    for (int i = 0; i < s.length(); ++i) {
        s[i] = clamp(s[i], -4.0, 4.0);
    }
    ACC16 hs = ACC16(s);
    coopMatStore(hs, h, base, 16, gl_CooperativeMatrixLayoutRowMajor);

    ACC ns = -s;
    for (uint i = 0; i < ns.length(); ++i) {
        if (ns[i] < 0.0) {
            ns[i] = 0.0;
        }
    }
    coopMatStore(ns, r, base, 16, gl_CooperativeMatrixLayoutRowMajor);
}

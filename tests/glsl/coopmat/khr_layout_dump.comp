// KHR layout probe: what each invocation holds, for each matrix use. Not portable by design
// (the output depends on the implementation's element layout); used to compare an interpreter
// layout model with a driver. Each invocation `inv` writes element j of its view (j < length())
// to out[section*1024 + inv*32 + j] as float:
//   section 0: coopmat<float16_t, Subgroup, 16, 16, MatrixA>       from binding 0 (float16_t[256], h[i] = i), row-major, stride 16
//   section 1: coopmat<float16_t, Subgroup, 16, 8, MatrixB>        from binding 0, column-major, stride 16 (B(k, n) = h[n*16 + k])
//   section 2: coopmat<float, Subgroup, 16, 16, MatrixAccumulator> from binding 1 (float[256], f[i] = i), row-major, stride 16
//   section 3: coopmat<uint8_t, Subgroup, 16, 32, MatrixA>         from binding 2 (uint8_t[512], u[i] = i % 256), row-major, stride 32
//   binding 3: out, float[4*1024] (output; slots past length() untouched)
//   binding 4: lens, uint[4] (output): length() of each type, written by invocation 0.
// Dispatch: local_size 32 (one subgroup of 32), vkCmdDispatch(1, 1, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufH { float16_t h[]; };
layout(set = 0, binding = 1) readonly buffer BufF { float f[]; };
layout(set = 0, binding = 2) readonly buffer BufU { uint8_t u[]; };
layout(set = 0, binding = 3) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 4) writeonly buffer BufLen { uint lens[]; };

void main()
{
    uint inv = gl_LocalInvocationIndex;

    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
    coopMatLoad(ma, h, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (int j = 0; j < ma.length(); ++j) {
        o[0 * 1024 + inv * 32 + uint(j)] = float(ma[j]);
    }

    coopmat<float16_t, gl_ScopeSubgroup, 16, 8, gl_MatrixUseB> mb;
    coopMatLoad(mb, h, 0, 16, gl_CooperativeMatrixLayoutColumnMajor);
    for (int j = 0; j < mb.length(); ++j) {
        o[1 * 1024 + inv * 32 + uint(j)] = float(mb[j]);
    }

    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> mc;
    coopMatLoad(mc, f, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    for (int j = 0; j < mc.length(); ++j) {
        o[2 * 1024 + inv * 32 + uint(j)] = mc[j];
    }

    coopmat<uint8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> m8;
    coopMatLoad(m8, u, 0, 32, gl_CooperativeMatrixLayoutRowMajor);
    for (int j = 0; j < m8.length(); ++j) {
        o[3 * 1024 + inv * 32 + uint(j)] = float(m8[j]);
    }

    if (inv == 0) {
        lens[0] = uint(ma.length());
        lens[1] = uint(mb.length());
        lens[2] = uint(mc.length());
        lens[3] = uint(m8.length());
    }
}

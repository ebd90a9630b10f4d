#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
// The debugger's and the coverage's sample (README, "Debugging a shader").
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer BufA { float16_t a[]; };
layout(binding = 1) buffer BufC { float c[]; };
layout(binding = 2) buffer BufF { int flags[]; };

int weight(uint i) {
    return int(i % 4) + 1;
}

void main() {
    uint i = gl_LocalInvocationID.x;
    int w = weight(i);
    if (i < 8) {
        flags[i] = w;
    } else if (flags[i] < 0) {
        flags[i] = -1;
    }
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, a, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(m);
    coopMatStore(acc * 2.0, c, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}

// NOT portable on purpose: "row sums" of a 16x16 f32 matrix computed by assuming that invocation p
// holds row p / 2 of the accumulator (true of no real layout in full, partly of some): each
// invocation sums the elements it holds and adds it to out[p / 2] with an atomic. The result
// depends on the layout model; `spvcoop run run.yaml --layout all` shows where.
// The expected output is the H100 (nvidia layout) answer computed from layouts.json.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1) buffer BufS { uint s[]; };

void main()
{
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, x, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    uint sum = 0;
    for (int i = 0; i < m.length(); ++i) {
        sum += uint(m[i]);
    }
    atomicAdd(s[gl_LocalInvocationIndex / 2], sum);
}

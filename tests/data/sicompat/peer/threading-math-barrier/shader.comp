#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/threading/math-barrier): a tree sum in shared
// memory with a barrier after every step, inputs from a std430 block (a scalar then a runtime array) and a
// std140 uniform block, mediump results written to some components of a vec4 (exp, log2, max).
layout(local_size_x = 8, local_size_y = 1, local_size_z = 1) in;

layout(set = 3, binding = 1, std430) readonly buffer Samples
{
    mediump float gain;
    float values[];
} samples;

layout(set = 1, binding = 0, std140) uniform Settings
{
    float weight;
} settings;

layout(set = 3, binding = 2, std430) buffer Summary
{
    mediump vec4 stats;
} summary;

shared float partial[gl_WorkGroupSize.x];

void main()
{
    uint me = gl_LocalInvocationIndex;
    partial[me] = samples.values[me];
    barrier();
    for (uint step = gl_WorkGroupSize.x / 2u; step > 0u; step >>= 1u)
    {
        if (me < step)
            partial[me] += partial[me + step];
        barrier();
    }
    if (me == 0u)
    {
        mediump float total = partial[0] * settings.weight;
        summary.stats.x = total;
        summary.stats.y = exp(total * 0.1);
        summary.stats.z = log2(max(total, 1e-3)) * samples.gain;
    }
}

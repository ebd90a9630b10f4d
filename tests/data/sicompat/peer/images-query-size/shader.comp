#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/images/query-size): textureSize of a sampled
// image without a sampler, texelFetch inside it, a threshold from a uniform block, results to rg32f images.
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 4, local_size_y = 4, local_size_z = 1) in;

layout(set = 0, binding = 0, std140) uniform Limits
{
    float threshold;
} limits;

layout(set = 1, binding = 0, rg32f) uniform writeonly image2D outR;
layout(set = 1, binding = 1, rg32f) uniform writeonly image2D outG;
layout(set = 1, binding = 3) uniform texture2D source;

void main()
{
    uvec2 size = uvec2(textureSize(source, 0));
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    vec2 v = vec2(0.0);
    if (all(lessThan(gl_GlobalInvocationID.xy, size)))
        v = max(texelFetch(source, at, 0).xy - vec2(limits.threshold), vec2(0.0));
    imageStore(outR, at, vec4(v.x, 0.0, 0.0, 0.0));
    imageStore(outG, at, vec4(v.y, 0.0, 0.0, 0.0));
}

// Vectors: swizzles (read and write masks), component-wise compares, any/all/not, mix with bool
// vectors, vector/scalar arithmetic, integer vectors with shifts, bvec select, vector dynamic indexing,
// OpVectorShuffle / OpCompositeConstruct / OpCompositeExtract / OpVectorExtractDynamic.
// For each i (N = 64):
//   binding 0: A { vec4 a[]; }   binding 1: B { ivec4 b[]; }
//   binding 2: Out { vec4 o[]; } (2 per i, output), binding 3: OutI { ivec4 oi[]; } (1 per i, output)
// Dispatch: local_size 64, vkCmdDispatch(1, 1, 1).
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { ivec4 b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { vec4 o[]; };
layout(std430, set = 0, binding = 3) writeonly buffer OutI { ivec4 oi[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec4 v = a[i];
    ivec4 w = b[i];

    vec4 s = v.wzyx * 2.0 + v.xxyy;
    s.xz = v.yw - s.zx;
    bvec4 gt = greaterThan(v, vec4(0.0));
    bvec4 eq = equal(w, ivec4(3));
    vec4 picked = mix(v, -v, gt);
    float flag = (any(eq) ? 1.0 : 0.0) + (all(not(gt)) ? 10.0 : 0.0);
    int k = w.x & 3;
    float dyn = v[k];
    v[(k + 1) & 3] = dyn * 0.5;
    o[2 * i + 0] = s + picked;
    o[2 * i + 1] = vec4(v.xyz, flag + dyn);

    ivec4 sh = (w << 2) >> ivec4(0, 1, 2, 3);
    uvec4 uw = uvec4(w) ^ uvec4(0xFFu, 0xF0F0u, 1u, 0u);
    ivec2 lo = sh.xy * w.zw - ivec2(uw.zw);
    oi[i] = ivec4(lo, sh.z % 7, int(uw.y >> 3u)) * ivec4(lessThanEqual(w, ivec4(5)));
}

#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { vec4 a[]; };
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
layout(set = 0, binding = 2) buffer O2 { float d[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = a[i];
    mat2 m = mat2(x.x, x.y, x.z, x.w);
    vec2 mv = m * vec2(1.0, 2.0);
    o[i] = vec4(clamp(x.x, -0.5, 0.5), sqrt(abs(x.y)) + floor(x.z), mv);
    d[i] = dot(x.xyz, vec3(1.0, 2.0, 3.0)) + length(x.zw) + mix(x.x, x.w, 0.25) + fract(x.y * 3.5);
}

#version 450
layout(local_size_x = 4) in;
struct Item { vec3 pos; float w; ivec2 id; };
layout(set = 0, binding = 0, std140) uniform Params { mat4 xform; vec3 offset; float scale; } params;
layout(set = 0, binding = 1, std430) buffer Items { Item items[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    Item it = items[i];
    vec4 p = params.xform * vec4(it.pos, 1.0);
    it.pos = p.xyz * params.scale + params.offset;
    it.w = it.w + float(it.id.x * it.id.y);
    it.id = it.id.yx;
    items[i] = it;
}

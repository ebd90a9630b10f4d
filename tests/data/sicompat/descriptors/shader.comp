#version 450
// Variables matched by descriptor set and binding ('@set0binding0'), names unused.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform Params { vec4 weights; float offset; } params;
layout(set = 1, binding = 2) buffer Dots { float dots[]; } dots;
layout(set = 0, binding = 1) readonly buffer Rows { vec4 rows[]; } rows;
void main() {
    uint i = gl_LocalInvocationID.x;
    dots.dots[i] = dot(rows.rows[i], params.weights) + params.offset;
}

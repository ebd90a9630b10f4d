#version 450
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/images/arraywrite): imageStore into one layer of
// a non-square 2D array image. spvcoop does not execute images (README, "What differs").
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, rgba32f) uniform image2DArray layers;

void main() {
    imageStore(layers, ivec3(2, 0, 1), vec4(0.25, 0.5, 0.75, 1.0));
}

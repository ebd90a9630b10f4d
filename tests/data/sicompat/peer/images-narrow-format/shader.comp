#version 460
// Written for spvcoop (mirrors SPIRV-Interpreter's examples/images/narrow-format): imageLoad from formats
// with one, two and three channels (the missing ones read as 0, alpha as 1) stored to rgba32f images.
layout(local_size_x = 1) in;
layout(binding = 0, r32f) readonly uniform image2D red;
layout(binding = 1, rg32f) readonly uniform image2D redgreen;
layout(binding = 2, r11f_g11f_b10f) readonly uniform image2D packed3;
layout(binding = 3, rgba32f) writeonly uniform image2D wide1;
layout(binding = 4, rgba32f) writeonly uniform image2D wide2;
layout(binding = 5, rgba32f) writeonly uniform image2D wide3;

void main() {
    imageStore(wide1, ivec2(0, 0), imageLoad(red, ivec2(0, 0)));
    imageStore(wide2, ivec2(0, 0), imageLoad(redgreen, ivec2(0, 0)));
    imageStore(wide3, ivec2(0, 0), imageLoad(packed3, ivec2(0, 0)));
}

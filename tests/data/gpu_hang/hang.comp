// A dispatch that never ends (for `run --device vulkan --gpu-timeout`): an atomic counter incremented until
// `flag` is set, which nothing sets. The atomic keeps the loop from being optimised away.
// build: glslangValidator -V --target-env vulkan1.3 hang.comp -o hang.spv && spvcoop dis hang.spv -o hang.spvasm
#version 450
layout(local_size_x = 1) in;
layout(binding = 0) coherent buffer B { uint flag; uint count; } b;
void main()
{
    while (atomicAdd(b.count, 1u) != 0xFFFFFFFFu || b.flag == 0u) {
    }
}

#version 450
// ggml-style views of one binding (mul_mm's A beside A_SCALAR, flash attention's K as f16vec4 and f16, O as
// float and vec4): several blocks at one (set, binding), each read through its own element type.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t data_a[]; };
layout(set = 0, binding = 0) readonly buffer A_SCALAR { vec4 data_a_scalar[]; };
layout(set = 0, binding = 1) readonly buffer K { float16_t data_k[]; };
layout(set = 0, binding = 1) readonly buffer KV4 { f16vec4 data_kv4[]; };
layout(set = 0, binding = 2) writeonly buffer O { float data_o[]; };
layout(set = 0, binding = 2) writeonly buffer OV4 { vec4 data_ov4[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    // element i of the f32 view of binding 0 and of the f16 view, K by vec4 and by element
    data_ov4[i] = data_a_scalar[i] + vec4(data_kv4[i]) + vec4(float(data_a[i]), float(data_k[4 * i + 1]), 0.0, 0.0);
}

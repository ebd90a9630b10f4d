#version 450
// ggml_views.comp with every read guarded by its view's length: any data for a binding runs (the fuzz driver's
// `views` entry gives random data to each binding, by key or by view, and compares the bytes both backends bind).
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
    if (i >= data_ov4.length()) {
        return;
    }
    vec4 v = vec4(0.0);
    if (i < data_a_scalar.length()) {
        v += data_a_scalar[i];
    }
    if (i < data_kv4.length()) {
        v += vec4(data_kv4[i]);
    }
    if (i < data_a.length()) {
        v.x += float(data_a[i]);
    }
    if (i < data_k.length()) {
        v.y += float(data_k[i]);
    }
    data_ov4[i] = v;
}

#version 450
// f32 -> bf16 conversions of 256 bit patterns per workgroup (one subgroup of 32): scalars (OpFConvert on one
// value per step) and a 16x16 f32 accumulator matrix converted to a bf16 accumulator (OpFConvert on a matrix).
#extension GL_EXT_bfloat16 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer InBits { uint xbits[]; };
layout(binding = 1) readonly buffer InF32 { float xf[]; };
layout(binding = 2) writeonly buffer OutScalar { uint16_t os[]; };
layout(binding = 3) writeonly buffer OutMatrix { bfloat16_t om[]; };
void main() {
    uint t = gl_WorkGroupID.x, l = gl_LocalInvocationID.x;
    for (uint i = 0; i < 8; i++) {
        uint k = t * 256 + l * 8 + i;
        os[k] = bfloat16BitsToUintEXT(bfloat16_t(uintBitsToFloat(xbits[k])));
    }
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, xf, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> b =
        coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(m);
    coopMatStore(b, om, t * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}

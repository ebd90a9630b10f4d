// KHR cooperative matrix component-type conversions on 16x16 tiles (single workgroup).
// All matrix types match configurations the H100 advertises (f32/f16/s32/u32 16x16 accumulators,
// u8/s8 16x32 MatrixA).
//   binding 0: F, 256 float, row-major 16x16 (input)
//   binding 1: I, 256 int32, row-major 16x16 (input)
//   binding 2: U8, 512 uint8_t, row-major 16x32 (input, loaded as MatrixA)
//   binding 3: O, 4*256 float (output), four 16x16 row-major blocks:
//     block 0: float(int(F))             (ConvertFToS, truncation toward zero, then ConvertSToF)
//     block 1: float(float16_t(F))       (FConvert f32 -> f16 -> f32, round to nearest even by the spec;
//                                         the H100 driver was observed to fold the round trip and return F)
//     block 2: float(uint(max(I, 0)))    (loop over length(), int -> uint, ConvertUToF)
//     block 3: float(I) * 0.25           (ConvertSToF, matrix times scalar)
//   binding 4: S, 256 int32 (output) = int(F) + I (ConvertFToS, IAdd)
//   binding 5: S8, 512 int8_t (output) = int8_t(U8) (u8 -> s8, same width: bits kept), row-major 16x32
//   binding 6: H, 256 float16_t (output) = float16_t(F) (FConvert f32 -> f16, stored as f16)
// Dispatch: local_size 32 (one subgroup), vkCmdDispatch(1, 1, 1).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32) in;

layout(set = 0, binding = 0) readonly buffer BufF { float f[]; };
layout(set = 0, binding = 1) readonly buffer BufI { int32_t iv[]; };
layout(set = 0, binding = 2) readonly buffer BufU8 { uint8_t u8v[]; };
layout(set = 0, binding = 3) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 4) writeonly buffer BufS { int32_t s[]; };
layout(set = 0, binding = 5) writeonly buffer BufS8 { int8_t s8v[]; };
layout(set = 0, binding = 6) writeonly buffer BufH { float16_t hv[]; };

#define ACCF coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define ACCH coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define ACCI coopmat<int32_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define ACCU coopmat<uint32_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

void main()
{
    ACCF mf;
    ACCI mi;
    coopMatLoad(mf, f, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(mi, iv, 0, 16, gl_CooperativeMatrixLayoutRowMajor);

    ACCI fi = ACCI(mf);
    coopMatStore(ACCF(fi), o, 0, 16, gl_CooperativeMatrixLayoutRowMajor);

    ACCH fh = ACCH(mf);
    coopMatStore(ACCF(fh), o, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(fh, hv, 0, 16, gl_CooperativeMatrixLayoutRowMajor);

    ACCI pos = mi;
    for (int i = 0; i < pos.length(); ++i) {
        pos[i] = max(pos[i], 0);
    }
    ACCU mu = ACCU(pos);
    coopMatStore(ACCF(mu), o, 512, 16, gl_CooperativeMatrixLayoutRowMajor);

    coopMatStore(ACCF(mi) * 0.25, o, 768, 16, gl_CooperativeMatrixLayoutRowMajor);

    coopmat<uint8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> a8;
    coopMatLoad(a8, u8v, 0, 32, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> s8m = coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA>(a8);
    coopMatStore(s8m, s8v, 0, 32, gl_CooperativeMatrixLayoutRowMajor);

    coopMatStore(fi + mi, s, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}

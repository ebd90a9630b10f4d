// Fully-connected layer in the style of ncnn's *_cm (cooperative matrix) Vulkan kernels (written for
// spvcoop's kernel suite, not a copy): one source, compiled once for VK_KHR_cooperative_matrix and once
// for VK_NV_cooperative_matrix, selected by the ncnn_VK_* macros as ncnn's shader compiler does.
//
//   top[m][n] = activation(sum_k A[m][k] * B[k][n] + bias[n])     A: M x K f16, B: K x N f16, row-major
//
// Specialization constants: bias_term, activation_type (0 none, 1 relu, 2 leaky relu, 3 clip,
// 4 sigmoid), activation_param_0/1, M, N, K. Workgroup = 2 subgroups computing a 16 x 32 tile of top;
// the accumulators go through shared memory so that each invocation adds the bias and applies the
// activation to its elements. Dispatch: (N / 32, M / 16, 1).
//
// build khr: -V --target-env vulkan1.3 -Dncnn_VK_KHR_cooperative_matrix=1
// build nv +spv: -V --target-env vulkan1.1 -Dncnn_VK_NV_cooperative_matrix=1
#version 450

#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#if ncnn_VK_KHR_cooperative_matrix
#extension GL_KHR_cooperative_matrix : require
#elif ncnn_VK_NV_cooperative_matrix
#extension GL_NV_cooperative_matrix : require
#endif

#define sfp float16_t

layout(constant_id = 0) const int bias_term = 0;
layout(constant_id = 1) const int activation_type = 0;
layout(constant_id = 2) const float activation_param_0 = 0;
layout(constant_id = 3) const float activation_param_1 = 0;
layout(constant_id = 4) const uint M = 1;
layout(constant_id = 5) const uint N = 1;
layout(constant_id = 6) const uint K = 1;

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout(binding = 1) readonly buffer weight_blob { sfp weight_data[]; };
layout(binding = 2) readonly buffer bias_blob { float bias_data[]; };
layout(binding = 3) writeonly buffer top_blob { float top_blob_data[]; };

shared float tmp_o[2 * 16 * 16];

float activation_afp(float v)
{
    if (activation_type == 1) {
        v = max(v, 0.0);
    } else if (activation_type == 2) {
        v = v < 0.0 ? v * activation_param_0 : v;
    } else if (activation_type == 3) {
        v = clamp(v, activation_param_0, activation_param_1);
    } else if (activation_type == 4) {
        v = 1.0 / (1.0 + exp(-v));
    }
    return v;
}

void main()
{
    const uint sgid = gl_SubgroupID;
    const uint row0 = gl_WorkGroupID.y * 16;
    const uint col0 = gl_WorkGroupID.x * 32 + sgid * 16;

#if ncnn_VK_KHR_cooperative_matrix
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> sum =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.f);
    for (uint k = 0; k < K; k += 16) {
        coopmat<sfp, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
        coopmat<sfp, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b;
        coopMatLoad(a, bottom_blob_data, row0 * K + k, K, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(b, weight_data, k * N + col0, N, gl_CooperativeMatrixLayoutRowMajor);
        sum = coopMatMulAdd(a, b, sum);
    }
    coopMatStore(sum, tmp_o, sgid * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
#elif ncnn_VK_NV_cooperative_matrix
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> sum = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.f);
    for (uint k = 0; k < K; k += 16) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a;
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> b;
        coopMatLoadNV(a, bottom_blob_data, row0 * K + k, K, false);
        coopMatLoadNV(b, weight_data, k * N + col0, N, false);
        sum = coopMatMulAddNV(a, b, sum);
    }
    coopMatStoreNV(sum, tmp_o, sgid * 256, 16, false);
#endif

    barrier();

    // each invocation finishes 8 of the 256 elements of its subgroup's tile
    const uint li = gl_SubgroupInvocationID;
    for (uint e = li; e < 256; e += gl_SubgroupSize) {
        const uint r = e / 16;
        const uint c = e % 16;
        float v = tmp_o[sgid * 256 + e];
        if (bias_term == 1) {
            v += bias_data[col0 + c];
        }
        top_blob_data[(row0 + r) * N + col0 + c] = activation_afp(v);
    }
}

// Specialization constants: workgroup size from spec constants (LocalSizeId-style local_size_x_id),
// spec-constant array length for shared memory, spec-constant arithmetic (OpSpecConstantOp),
// bool and float spec constants.
//   spec constants: 0 = WG (64, local_size_x), 1 = SCALE (3), 2 = USE_SQUARE (true), 3 = BIAS (0.5)
//   binding 0: In { float x[]; }   binding 1: Out { float y[]; } (output)
//   y[g] = f(x[g]) * SCALE + BIAS + x[base + (lid + 1) % WG], f(v) = USE_SQUARE ? v*v : v,
//   base = first global index of the workgroup (the neighbour goes through shared memory);
//   a term that is always 0 uses the spec-constant expressions WG*2+1 and -SCALE.
// Dispatch: vkCmdDispatch(N / WG, 1, 1), e.g. N = 256 -> (4, 1, 1).
#version 450

layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const int SCALE = 3;
layout(constant_id = 2) const bool USE_SQUARE = true;
layout(constant_id = 3) const float BIAS = 0.5;

layout(local_size_x_id = 0, local_size_x = 64) in;

const uint TWICE_PLUS_ONE = WG * 2u + 1u;       // OpSpecConstantOp IMul / IAdd
const int NEG_SCALE = -SCALE;                   // OpSpecConstantOp SNegate

layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };

shared float tile[WG];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    float v = x[g];
    tile[lid] = v;
    barrier();
    float f = USE_SQUARE ? v * v : v;
    float neighbour = tile[(lid + 1u) % WG];
    float zero = float(TWICE_PLUS_ONE) * 0.0 + float(NEG_SCALE + SCALE);
    y[g] = f * float(SCALE) + BIAS + neighbour + zero;
}

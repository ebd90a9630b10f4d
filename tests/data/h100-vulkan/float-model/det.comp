#version 450
// determinant and inverse of 3x3 and 4x4 matrices (issue 36), FLOAT = float or float16_t with MAT3 / MAT4 the
// matching matrix types: matrix i is the 16 values a[16 i ..] (columns first; its 3x3 matrix is the first nine);
// o[k * n + i] holds output k of matrix i: 0 determinant(mat3), 1-9 inverse(mat3) (column by column), 10
// determinant(mat4), 11-26 inverse(mat4).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer BA { FLOAT a[]; };
layout(binding = 1) writeonly buffer BO { FLOAT o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x, n = gl_NumWorkGroups.x * 64;
    FLOAT v[16];
    for (uint j = 0; j < 16; j++)
        v[j] = a[16 * i + j];
    MAT3 m3 = MAT3(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    MAT4 m4 = MAT4(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14],
                   v[15]);
    o[i] = determinant(m3);
    MAT3 r3 = inverse(m3);
    for (uint c = 0; c < 3; c++)
        for (uint r = 0; r < 3; r++)
            o[(1 + 3 * c + r) * n + i] = r3[c][r];
    o[10 * n + i] = determinant(m4);
    MAT4 r4 = inverse(m4);
    for (uint c = 0; c < 4; c++)
        for (uint r = 0; r < 4; r++)
            o[(11 + 4 * c + r) * n + i] = r4[c][r];
}

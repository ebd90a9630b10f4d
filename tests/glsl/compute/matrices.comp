// GLSL matrix types: mat2/mat3/mat4, non-square mat3x2/mat2x4, matrix * vector, matrix * matrix,
// transpose, inverse, determinant, outerProduct, matrixCompMult, column and element access, dmat2.
// For each i (N = 128):
//   binding 0: In { mat4 m[]; } (input, std430, column-major)
//   binding 1: Out { vec4 v[]; } (output, 4 vec4 per i):
//     v[4i+0] = inverse(m) * m[3]             (matrix times its last column)
//     v[4i+1] = vec4(determinant(m), determinant(mat3(m)), determinant(mat2(m)), trace of m)
//     v[4i+2] = (transpose(m) * m)[1] + matrixCompMult(m, outerProduct(m[0], m[1]))[2]
//     v[4i+3] = vec4(mat3x2(m) * vec3(1, 2, 3), q.z + float(determinant(dm * inverse(dm))), q.w)
//               with q = mat2x4(m) * vec2(0.5, -1) and dm = dmat2(mat2(m)) (double precision)
// Dispatch: local_size 32, vkCmdDispatch(4, 1, 1).
#version 450

layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer In { mat4 m[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { vec4 v[]; };

float trace4(mat4 a)
{
    float t = 0.0;
    for (int k = 0; k < 4; ++k) {
        t += a[k][k];
    }
    return t;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    mat4 a = m[i];
    v[4 * i + 0] = inverse(a) * a[3];
    v[4 * i + 1] = vec4(determinant(a), determinant(mat3(a)), determinant(mat2(a)), trace4(a));
    mat4 ata = transpose(a) * a;
    mat4 op = outerProduct(a[0], a[1]);
    v[4 * i + 2] = ata[1] + matrixCompMult(a, op)[2];

    mat3x2 n32 = mat3x2(a);
    mat2x4 n24 = mat2x4(a);
    vec2 p = n32 * vec3(1.0, 2.0, 3.0);
    vec4 q = n24 * vec2(0.5, -1.0);
    dmat2 d = dmat2(mat2(a));
    double dd = determinant(d * inverse(d));
    v[4 * i + 3] = vec4(p, q.z + float(dd), q.w);
}

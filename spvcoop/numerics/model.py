"""The parametric family of cooperative-matrix MulAdd numerics (docs/interpreter-coopmat.md).

A model computes D = A x B + C for 16-bit float inputs (f16, or bf16 held as float32) like this, per block of
`block` k (the MulAdd's K runs in blocks; each block starts from the previous block's rounded result):

- products: exact (`exact_products`; otherwise each is rounded to f32 first, which changes nothing for
  16-bit inputs: their products fit in f32);
- alignment (`align: max`): every product and the accumulator are aligned to the largest exponent among them,
  where a product's exponent is the sum of its inputs' exponents (before normalisation), and a subnormal
  input (the accumulator C included) counts with the format's smallest normal exponent (`subnormal_inputs:
  stored`, what its exponent field says) or its true one (`true`); each term keeps `bits` bits below that
  exponent, the rest dropped toward zero (`drop: truncate`) or rounded to nearest even (`round`); the kept
  terms are summed exactly.
  `align: none` sums the exact terms with no alignment step;
- the block's sum is rounded to the result: f32 toward zero (`final: rtz`) or to nearest even (`rne`); an f16 result
  is rounded to nearest even from the exact sum (`f16_result: direct`, after every block: measured) or from the f32
  rounding (`via-f32`). Overflow of an f32 result under rtz gives the largest finite value (`overflow: saturate`) or
  infinity (`inf`). A nonzero sum that rounds to zero keeps its sign (`zero_sign: ieee`) or gives +0 (`positive`).
  NaN results have the bit pattern `nan_f32` / `nan_f16` (None: whatever numpy gives).

Beside the MulAdd, the same model carries how the device's compiled code treats floats where the extensions reach
outside the tensor cores (numerics/compiled.py measures them; defaults are IEEE behaviour):
- `bf16_convert`: f32 -> bf16 OpFConvert (scalars and matrices) rounds to nearest even (`rne`) or keeps the upper
  16 bits of the pattern, NaNs included (`truncate`);
- inside the functions OpCooperativeMatrixPerElementOpNV calls (interp/compiled_floats.py): f32 / f16 subnormal
  operands and results of arithmetic flushed to zero (`pe_flush_f32`, `pe_flush_f16`); NaN results of arithmetic
  given one bit pattern (`pe_nan_f32`, `pe_nan_f16`; None: whatever IEEE arithmetic gives); `x * s + c` fused into
  one rounding `never`, `always`, or only when the instruction passes no matrix operand besides the Matrix
  (`pe_contract: without-matrix-operands`); `x * s + x * c` computed as `x * (s + c)` (`pe_factorise`); max/min of
  +0 and -0 one of the operands (`pe_max_zeros: operand`) or +0 / -0 whatever the order (`positive`);
- in ordinary float code (scalars, vectors, element-wise matrix ops, conversions; interp/compiled_floats.CodeFloats):
  f32 subnormal operands and results of arithmetic flushed (`code_flush_f32`); NaN results of arithmetic and of
  f32 <-> f16 conversions given one pattern (`code_nan_f32`, `code_nan_f16`); `a * b + c` fused when the product
  has no other use in its block, the first such product of an add (`code_contract: single-use`); division and the
  GLSL functions as the GPU's special-function unit computes them (`code_functions: nvidia-h100`, numerics/
  functions.py).

`nvidia-tensorcore` (an H100's tensor cores, measured) is one instance: exact products, alignment to the
largest exponent with stored subnormal exponents, 25 bits kept, truncation, rtz, f16 results direct,
overflow to infinity, underflow to +0, NaN 0x7fffffff / 0x7fff; bf16 conversion truncates; per-element functions
flush f32 (not f16), give NaN 0x7fffffff / 0x7fff, contract without matrix operands, factorise, max(+0, -0) = +0;
ordinary code flushes f32, gives NaN 0x7fffffff / 0x7fff, contracts single-use products, and divides and computes
functions as the H100's special-function unit does (issue 36).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from . import fewtiles, intsum
from .rounding import finish_block, pow2

ALIGN = ("max", "none")
DROP = ("truncate", "round")
SUBNORMAL = ("stored", "true")
FINAL = ("rtz", "rne")
F16_RESULT = ("direct", "via-f32")
OVERFLOW = ("saturate", "inf")
ZERO_SIGN = ("ieee", "positive")
BF16_CONVERT = ("rne", "truncate")
PE_CONTRACT = ("never", "always", "without-matrix-operands")
PE_MAX_ZEROS = ("operand", "positive")
CODE_CONTRACT = ("never", "single-use")
CODE_FUNCTIONS = ("ieee", "nvidia-h100")
# the parameters of compiled code outside the MulAdd, and their IEEE values (the defaults)
COMPILED_DEFAULTS = {"bf16_convert": "rne", "pe_flush_f32": False, "pe_flush_f16": False, "pe_nan_f32": None,
                     "pe_nan_f16": None, "pe_contract": "never", "pe_factorise": False, "pe_max_zeros": "operand"}
# the parameters of ordinary float code (scalars, vectors, element-wise matrix ops, conversions, GLSL functions),
# and their IEEE values (the defaults); measured on an H100 (issue 36) and by `numerics measure` (the scalar probes)
CODE_DEFAULTS = {"code_flush_f32": False, "code_nan_f32": None, "code_nan_f16": None, "code_contract": "never",
                 "code_functions": "ieee"}
EMIN = {"f16": -14, "bf16": -126, "f32": -126, "e4m3": -6, "e5m2": -14}
CHUNK = 128  # tiles per pass: the (M, N, tiles) arrays stay in cache


@dataclass(frozen=True)
class MulAddModel:
    name: str = "custom"
    exact_products: bool = True
    align: str = "max"
    bits: int = 25
    drop: str = "truncate"
    subnormal_inputs: str = "stored"
    block: int = 16
    final: str = "rtz"
    f16_result: str = "direct"
    overflow: str = "saturate"
    zero_sign: str = "ieee"
    nan_f32: int | None = None
    nan_f16: int | None = None
    bf16_convert: str = "rne"
    pe_flush_f32: bool = False
    pe_flush_f16: bool = False
    pe_nan_f32: int | None = None
    pe_nan_f16: int | None = None
    pe_contract: str = "never"
    pe_factorise: bool = False
    pe_max_zeros: str = "operand"
    code_flush_f32: bool = False
    code_nan_f32: int | None = None
    code_nan_f16: int | None = None
    code_contract: str = "never"
    code_functions: str = "ieee"

    def __post_init__(self):
        for name, allowed in (("align", ALIGN), ("drop", DROP), ("subnormal_inputs", SUBNORMAL),
                              ("final", FINAL), ("f16_result", F16_RESULT), ("overflow", OVERFLOW),
                              ("zero_sign", ZERO_SIGN), ("bf16_convert", BF16_CONVERT), ("pe_contract", PE_CONTRACT),
                              ("pe_max_zeros", PE_MAX_ZEROS), ("code_contract", CODE_CONTRACT),
                              ("code_functions", CODE_FUNCTIONS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {getattr(self, name)!r}")
        if not 1 <= self.bits <= 52 or not 1 <= self.block <= 1024:
            raise ValueError("bits must be in 1..52 and block in 1..1024")
        # the NaN results' bit patterns: written into the result's bits, so a NaN of that width
        for name in ("pe_flush_f32", "pe_flush_f16", "pe_factorise", "code_flush_f32"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name} must be true or false, not {getattr(self, name)!r}")
        for name, width, exp, mant in (("nan_f32", 32, 0x7F800000, 0x7FFFFF), ("nan_f16", 16, 0x7C00, 0x3FF),
                                       ("pe_nan_f32", 32, 0x7F800000, 0x7FFFFF), ("pe_nan_f16", 16, 0x7C00, 0x3FF),
                                       ("code_nan_f32", 32, 0x7F800000, 0x7FFFFF),
                                       ("code_nan_f16", 16, 0x7C00, 0x3FF)):
            v = getattr(self, name)
            if v is None:
                continue
            if type(v) is not int or not 0 <= v < 1 << width or v & exp != exp or not v & mant:
                shown = f"{v:#x}" if type(v) is int else repr(v)
                raise ValueError(f"{name} must be the bit pattern of a {width}-bit NaN (e.g. "
                                 f"{exp | (mant + 1) >> 1:#x}), not {shown}")

    def params(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "name"}

    def muladd_params(self) -> dict:
        """The MulAdd's own parameters (params() less the compiled-code ones, which MulAdd tiles cannot show)."""
        return {k: v for k, v in self.params().items() if k not in COMPILED_DEFAULTS and k not in CODE_DEFAULTS}

    def compiled_params(self) -> dict:
        return {k: getattr(self, k) for k in COMPILED_DEFAULTS}

    def with_(self, **kw) -> MulAddModel:
        return replace(self, **kw)

    def code_params(self) -> dict:
        return {k: getattr(self, k) for k in CODE_DEFAULTS}

    @property
    def code_ieee(self) -> bool:
        """Whether ordinary float code follows the IEEE rules (then the interpreter runs it as it always did)."""
        return all(getattr(self, k) == v for k, v in CODE_DEFAULTS.items())

    @property
    def per_element_ieee(self) -> bool:
        """Whether per-element functions follow the IEEE rules (then the interpreter runs them as plain code)."""
        return all(getattr(self, k) == v for k, v in COMPILED_DEFAULTS.items() if k.startswith("pe_"))


NVIDIA_TENSORCORE = MulAddModel(name="nvidia-tensorcore", overflow="inf", zero_sign="positive", nan_f32=0x7FFFFFFF,
                                nan_f16=0x7FFF, bf16_convert="truncate", pe_flush_f32=True, pe_nan_f32=0x7FFFFFFF,
                                pe_nan_f16=0x7FFF, pe_contract="without-matrix-operands", pe_factorise=True,
                                pe_max_zeros="positive", code_flush_f32=True, code_nan_f32=0x7FFFFFFF,
                                code_nan_f16=0x7FFF, code_contract="single-use", code_functions="nvidia-h100")


def improve_one_at_a_time(model: MulAddModel, choices: dict, score, rounds: int) -> MulAddModel:
    """Coordinate search (both fits: fit.py over the MulAdd parameters, compiled.py over the compiled-code ones):
    each parameter of `choices` (name -> values) in turn, keeping any value that raises `score(name, model)` above
    the current model's, until a round improves nothing or after `rounds` rounds. `score` is asked again for the
    current model at each parameter (a parameter may be judged by its own probes): memoise it when it is dear."""
    for _ in range(rounds):
        improved = False
        for name, values in choices.items():
            best = score(name, model)
            for v in values:
                if v == getattr(model, name):
                    continue
                m = model.with_(**{name: v})
                sc = score(name, m)
                if sc > best:
                    model, best, improved = m, sc, True
        if not improved:
            break
    return model


def _exponents(x: np.ndarray, emin: int, stored: bool) -> np.ndarray:
    """floor(log2|x|) as int32 from the bits of float32 (or float64) x; zeros very small (never the maximum);
    subnormal inputs (below 2^emin, all normal in float32 for f16) at emin when `stored`; inf/NaN 0."""
    if x.dtype == np.float64:
        u = x.view(np.uint64)
        f = ((u >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int32)
        e, top, zero = f - 1023, 0x7FF, (u << np.uint64(1)) == 0
    else:
        u = x.view(np.uint32)
        f = ((u >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32)
        e, top, zero = f - 127, 0xFF, (u << np.uint32(1)) == 0
    if x.dtype != np.float64 and emin <= -126:   # f32 subnormals (bf16's): their true exponent needs frexp
        sub = (f == 0) & ~zero
        if sub.any():
            e[sub] = (np.frexp(x[sub])[1] - 1).astype(np.int32)
    if stored:
        np.maximum(e, emin, out=e)
    np.putmask(e, zero, -30000)
    np.putmask(e, f == top, 0)   # inf/NaN terms make the sum inf/NaN whatever the alignment
    return e


# how many MulAdd chunks the int32 path (fewtiles.py, intsum.py) has computed, and how many of them with the
# compiled kernel: the interpreter records its fast paths int32_muladd and int32_kernel as taken when they move
# (interp/fastpaths.py)
INT32_TAKEN = [0, 0]


def muladd(model: MulAddModel, A: np.ndarray, B: np.ndarray, C: np.ndarray, rdt, a_format: str = "f16",
           b_format: str = "f16", fast: bool = True, compiled: bool = True) -> np.ndarray:
    """D = A x B + C under `model`: A (..., M, K) and B (..., K, N) of 16-bit float values (any float dtype
    holding them), C (..., M, N); the result in dtype rdt (float32 or float16). `fast`: take the int32 path
    (intsum.py) where it applies; False forces the general one (the tests compare the two). `compiled`: its
    loops in C (intsum.KERNEL) where the kernel is built; False: in numpy (interp/fastpaths.py's int32_kernel)."""
    rdt = np.dtype(rdt)
    kernel = intsum.KERNEL if compiled else None   # read per call: the tests swap it
    if fast and type(A) is np.ndarray and type(B) is np.ndarray and type(C) is np.ndarray and \
            fewtiles.applies(model, A, B, a_format, b_format, C):
        r = fewtiles.muladd(model, A, B, C, rdt, kernel)
        if r is not None:
            INT32_TAKEN[0] += 1
            INT32_TAKEN[1] += kernel is not None
            return r
    A, B = (x if isinstance(x, np.ndarray) and x.dtype.kind == "f" else np.asarray(x, np.float32) for x in (A, B))
    C = np.asarray(C, np.float32)
    M, K, N = A.shape[-2], A.shape[-1], B.shape[-1]
    shape = A.shape[:-2]
    if B.shape[:-2] == shape and C.shape[:-2] == shape and A.ndim == 3 and C.shape[-2:] == (M, N):
        pass   # (G, rows, cols) each, nothing to broadcast (a MulAdd's usual operands: spares ~8 us a call)
    else:
        shape = np.broadcast_shapes(A.shape[:-2], B.shape[:-2], C.shape[:-2])
        A = np.broadcast_to(A, shape + (M, K)).reshape(-1, M, K)
        B = np.broadcast_to(B, shape + (K, N)).reshape(-1, K, N)
        C = np.broadcast_to(C, shape + (M, N)).reshape(-1, M, N)
    stored = model.subnormal_inputs == "stored"
    wide = model.exact_products and "bf16" in (a_format, b_format)
    use_intsum = fast and K > 0 and intsum.applies(model, a_format, b_format)
    # the exact shortcut: tried until a chunk declines it (a GEMM's chunks share their matrices: the rest would
    # decline too); each result is exact either way
    try_grid = [use_intsum and intsum.grid_applies(model, A, B)]
    out = np.empty(C.shape, rdt)

    def one(g0: int) -> None:
        g = slice(g0, g0 + CHUNK)
        with np.errstate(all="ignore"):
            r = intsum.on_grid(model, A[g], B[g], C[g], rdt) if try_grid[0] else None
            if r is None:
                try_grid[0] = False
                r = intsum.chunk(model, A[g], B[g], C[g], rdt, EMIN[a_format], EMIN[b_format],
                                 kernel) if use_intsum else None
                if r is not None:
                    INT32_TAKEN[1] += kernel is not None
            if r is not None:
                INT32_TAKEN[0] += 1
            else:
                A32, B32 = np.asarray(A[g], np.float32), np.asarray(B[g], np.float32)
                eA, eB = _exponents(A32, EMIN[a_format], stored), _exponents(B32, EMIN[b_format], stored)
                # tiles last: every elementwise step below runs over contiguous rows of tiles
                r = np.moveaxis(_chunk(model, A32, B32, np.moveaxis(C[g], 0, -1).astype(np.float64), eA, eB, rdt,
                                       wide), -1, 0)
        out[g] = r
    starts = range(0, C.shape[0], CHUNK)
    if len(starts) > 1 and _workers() > 1:   # numpy releases the GIL in its loops: chunks run side by side
        list(_pool().map(one, starts))
    else:
        for g0 in starts:
            one(g0)
    return out.reshape(shape + (M, N))


_POOL = None


def _workers() -> int:
    """Threads for the chunks: half the CPUs, at most 8. On a 2-core machine shared with other work, two threads
    made the GEMM benchmark slower (0.415 s vs 0.365 s at 512^3), so one there."""
    import os
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(8, cpus // 2))


def _pool():
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor
        _POOL = ThreadPoolExecutor(_workers(), thread_name_prefix="spvcoop-muladd")
    return _POOL


def _chunk(model, A, B, c, eA, eB, rdt, wide: bool):
    """One chunk of G tiles: A (G, M, K), B (G, K, N), c (M, N, G) float64; a loop over k on (M, N, G) arrays."""
    K = A.shape[-1]
    pdt = np.float64 if wide else np.float32   # 16-bit-float products are exact in f32 unless bf16 overflows it
    At = np.ascontiguousarray(np.moveaxis(A, 0, -1), dtype=pdt)     # (M, K, G)
    Bt = np.ascontiguousarray(np.moveaxis(B, 0, -1), dtype=pdt)     # (K, N, G)
    t = np.empty(c.shape, pdt)
    drop = np.trunc if model.drop == "truncate" else np.rint
    # every truncated term is below 2^(bits + 2) (a product of two values below 2^(e+1)), so a block's sum of
    # them fits int32 when bits + 2 + log2(block) <= 31; inf and NaN need the float path
    integer_sum = (not wide and model.drop == "truncate" and model.bits + 2 + (model.block - 1).bit_length() <= 31
                   and np.isfinite(At).all() and np.isfinite(Bt).all())
    for k0 in range(0, K, model.block):
        k1 = min(K, k0 + model.block)
        s = np.zeros(c.shape)
        if model.align == "none":
            for k in range(k0, k1):
                np.multiply(At[:, k, None, :], Bt[None, k, :, :], out=t)
                s += t                                            # exact for 16-bit inputs in float64
            s += c
        else:
            emax = np.moveaxis(_block_emax(eA[:, :, k0:k1], eB[:, k0:k1, :], wide), 0, -1)
            # the accumulator is an input too: a subnormal f32 C counts at -126 under `stored` (measured with bf16
            # products in the f32 subnormal range, tests/data/h100-vulkan/ext-numerics/bf16_muladd.npz)
            emax = np.maximum(emax, _exponents(c, EMIN["f32"], model.subnormal_inputs == "stored"))
            shift = model.bits - emax.clip(-1000, 1000)
            # terms become integers after the drop: scale by 2^shift (finite: f16 never needs more than 2^127)
            scale = pow2(shift, pdt)
            if integer_sum:   # the common case, in int32: a cast truncates toward zero, and int adds are cheap
                si = np.zeros(c.shape, np.int32)
                ti = np.empty(c.shape, np.int32)
                for k in range(k0, k1):
                    np.multiply(At[:, k, None, :], Bt[None, k, :, :], out=t)
                    t *= scale
                    np.copyto(ti, t, casting="unsafe")
                    si += ti
                s = si.astype(np.float64)
            else:
                for k in range(k0, k1):
                    np.multiply(At[:, k, None, :], Bt[None, k, :, :], out=t)
                    t *= scale
                    drop(t, out=t)
                    s += t
            s += drop(c * pow2(shift, np.float64))   # float64: an accumulator below 2^-102 needs a scale over 2^127
            s *= pow2(-shift, np.float64)                       # exact: integers below 2^32, power-of-2 scale
        c, r = finish_block(model, s, rdt, k1 == K)
        if r is not None:
            return r
    return finish_block(model, c, rdt, True)[1]   # K = 0: C rounded


def _block_emax(eA: np.ndarray, eB: np.ndarray, wide: bool) -> np.ndarray:
    """max over k of eA[m, k] + eB[k, n] per tile. For f16 exponents one float64 matmul does it: with f such that
    2^f > k, sum_k 2^(f (eA + eB)) lies in [2^(f emax), 2^(f emax + f)), so its exponent // f is emax exactly
    (zeros contribute 0; f times every f16 exponent sum stays inside float64's range)."""
    K = eA.shape[-1]
    f = K.bit_length()
    if not wide and f * 60 < 1000:
        def pw(e):
            p = pow2(f * e, np.float64)
            p[e < -100] = 0.0    # zeros
            return p
        S = np.matmul(pw(eA), pw(eB))
        e = ((S.view(np.int64) >> 52) & 0x7FF) - 1023
        return np.where(S > 0, e // f, -30000).astype(np.int32)
    emax = np.full(eA.shape[:-1] + eB.shape[-1:], -30000, np.int32)
    for k in range(K):
        np.maximum(emax, eA[:, :, k, None] + eB[:, None, k, :], out=emax)
    return emax

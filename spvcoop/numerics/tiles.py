"""Probe tiles for MulAdd numerics: A (n, M, K), B (n, K, N), C (n, M, N) drawn from named distributions.

Values are numpy arrays of the component's values (f16 as float16, bf16 as float32 holding bf16 values,
integers as their numpy type); `to_bytes` gives a buffer's bytes (bf16: the upper halves of the float32s).
"""
from __future__ import annotations

import numpy as np

FLOAT_DISTRIBUTIONS = ("normal", "wide", "cancel", "subnormal", "overflow", "infnan")
INT_DISTRIBUTIONS = ("uniform", "extreme")
_DTYPES = {"f16": np.float16, "f32": np.float32, "bf16": np.float32, "s8": np.int8, "u8": np.uint8,
           "s32": np.int32, "u32": np.uint32}


def distributions(component: str) -> tuple[str, ...]:
    return FLOAT_DISTRIBUTIONS if component in ("f16", "bf16", "f32") else INT_DISTRIBUTIONS


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> the nearest bf16 values (round to nearest even), as float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    nan = np.isnan(x)
    r[nan] = 0x7FC00000
    return r.view(np.float32)


def cast(component: str, x: np.ndarray) -> np.ndarray:
    if component == "bf16":
        return to_bf16(np.asarray(x, np.float32))
    if component in ("s8", "u8", "s32", "u32"):
        return np.asarray(x).astype(np.int64).astype(_DTYPES[component])
    with np.errstate(over="ignore"):
        return np.asarray(x).astype(_DTYPES[component])


def to_bytes(component: str, x: np.ndarray) -> bytes:
    if component == "bf16":
        return (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()
    return np.ascontiguousarray(x, _DTYPES[component]).tobytes()


def from_bytes(component: str, data: bytes, shape) -> np.ndarray:
    if component == "bf16":
        return (np.frombuffer(data, np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(shape)
    return np.frombuffer(data, _DTYPES[component]).reshape(shape).copy()


def _float_input(component: str, dist: str, shape, rng) -> np.ndarray:
    lo_exp = -24 if component == "f16" else -133   # down to the smallest subnormal
    hi_exp = 15 if component == "f16" else 127
    if dist == "normal":
        x = rng.standard_normal(shape)
    elif dist == "wide":
        x = rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(lo_exp, 9, shape)) * rng.uniform(1, 2, shape)
        x[rng.random(shape) < 0.05] = 0
    elif dist == "subnormal":  # mostly subnormal (stored exponent 0) with some small normals; see make_tiles
        sub_exp = -24 if component == "f16" else -133
        mant = rng.integers(1, 1 << (10 if component == "f16" else 7), shape)
        sub = mant * 2.0 ** sub_exp
        x = np.where(rng.random(shape) < 0.7, sub, np.exp2(rng.uniform(lo_exp + 10, lo_exp + 16, shape)) *
                     rng.uniform(1, 2, shape)) * rng.choice([-1.0, 1.0], shape)
    elif dist == "overflow":
        x = rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(hi_exp - 8, hi_exp, shape)) * rng.uniform(1, 2, shape)
    elif dist == "infnan":
        x = rng.standard_normal(shape)
        r = rng.random(shape)
        x[r < 0.03] = np.inf
        x[(r >= 0.03) & (r < 0.06)] = -np.inf
        x[(r >= 0.06) & (r < 0.08)] = np.nan
    elif dist == "cancel":  # pairs of equal products of opposite signs, then small terms
        x = rng.standard_normal(shape)
    else:
        raise ValueError(f"unknown distribution {dist}")
    return x


def make_tiles(a: str, b: str, c: str, M: int, N: int, K: int, dist: str, n: int, seed: int):
    """(A, B, C) value arrays of n tiles."""
    rng = np.random.default_rng(seed)
    if a in ("s8", "u8"):
        lo, hi = (-128, 128) if a == "s8" else (0, 256)
        A = rng.integers(lo, hi, (n, M, K))
        B: np.ndarray = rng.integers(lo, hi, (n, K, N))   # float arrays below
        clo, chi = (-(1 << 31), 1 << 31) if c == "s32" else (0, 1 << 32)
        if dist == "extreme":
            A = rng.choice([lo, hi - 1], (n, M, K))
            B = rng.choice([lo, hi - 1], (n, K, N))
            C = rng.choice([clo, chi - 1, clo + 1000, chi - 1000], (n, M, N))
        else:
            C = rng.integers(clo, chi, (n, M, N), dtype=np.int64)
        return cast(a, A), cast(b, B), cast(c, C)
    A = _float_input(a, dist, (n, M, K), rng)
    B = _float_input(b, dist, (n, K, N), rng)
    if dist == "subnormal":
        # odd tiles: B mostly large, so that products of subnormals with it set the alignment; even tiles: small
        # B, so that sums underflow (the sign of a zero result)
        big = rng.choice([-1.0, 1.0], B.shape) * np.exp2(rng.uniform(-2, 6, B.shape)) * rng.uniform(1, 2, B.shape)
        B = np.where((rng.random(B.shape) < 0.8) & (np.arange(n) % 2 == 1)[:, None, None], big, B)
    if dist == "cancel":
        h = K // 2
        A[:, :, h:2 * h] = -A[:, :, :h]
        B[:, h:2 * h, :] = B[:, :h, :]
        A[:, :, :h] *= np.exp2(rng.integers(0, 8, (n, M, h)))       # large pairs cancel exactly
        B[:, ::3, :] *= 2.0 ** -12                                    # leaving small terms to the alignment
    cs = {"normal": 1.0, "wide": 1.0, "cancel": 4.0, "subnormal": 2.0 ** -14, "overflow": 6e4, "infnan": 1.0}[dist]
    C = rng.standard_normal((n, M, N)) * cs
    if dist == "wide":
        C *= np.exp2(rng.uniform(-20, 10, (n, M, N)))
    if dist == "subnormal":
        C[::2] *= 2.0 ** -12   # even tiles: sums near zero
    if dist == "infnan":
        r = rng.random((n, M, N))
        C[r < 0.02] = np.inf
        C[(r >= 0.02) & (r < 0.03)] = np.nan
    return cast(a, A), cast(b, B), cast(c, C)


def check_tiles(data: dict, source: str) -> None:
    """Saved tiles ({(a, b, c, M, N, K): {(dist, seed): (A, B, C, D)}}) fit only when every array has the
    shape and type its key says: an unknown format or a mismatched tile would be fitted silently, or fail
    inside the model. SpvError naming the first offending tile."""
    from ..core.diagnostics import Diagnostic, SpvError

    def refuse(what: str) -> SpvError:
        return SpvError(Diagnostic("error", f"tiles: {what}", source=source))
    if not data:
        raise refuse("the file holds no tiles")
    for (a, b, c, M, N, K), per in data.items():
        combo = f"{a}_{b}_{c}_{M}x{N}x{K}"
        for comp in (a, b, c):
            if comp not in _DTYPES:
                raise refuse(f"{combo}: unknown component format '{comp}' (known: {', '.join(_DTYPES)})")
        if (a in ("f16", "bf16", "f32")) != (b in ("f16", "bf16", "f32")):
            raise refuse(f"{combo}: A and B must both be float or both be integer formats")
        if min(M, N, K) < 1:
            raise refuse(f"{combo}: the tile size must be at least 1 in every dimension")
        for (dist, seed), arrays in per.items():
            where = f"{combo}/{dist}/{seed}"
            if dist not in distributions(a):
                raise refuse(f"{where}: unknown distribution '{dist}' for {a} (known: {', '.join(distributions(a))})")
            n = arrays[0].shape[0] if arrays[0].ndim else 0
            for name, arr, comp, shape in zip("ABCD", arrays, (a, b, c, c), ((M, K), (K, N), (M, N), (M, N)),
                                                strict=True):
                want = np.dtype(_DTYPES[comp])
                if arr.dtype != want:
                    raise refuse(f"{where}/{name}: {arr.dtype} values, but {comp} tiles hold {want}")
                if arr.shape != (n, *shape) or n < 1:
                    raise refuse(f"{where}/{name}: shape {arr.shape}, expected (tiles, {shape[0]}, {shape[1]}) "
                                 f"with the same number of tiles as A" + (f" ({n})" if n else ""))

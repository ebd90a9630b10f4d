"""Numbers as text and back, a whole array at a time: the values and the exact strings that the
per-value path (Python's repr, PyYAML's representer, json.dumps) gives, without a Python call per value.

- `f32_short(a)`: float(str(np.float32(x))) for every x (the double nearest the shortest decimal that
  reads back as x in f32), found by trying 1, 2, ... digits with numpy; the few values where float64
  arithmetic cannot decide exactly (powers of two, ties, exponents past 10^+-22) take the per-value path.
- `tokens(a, style)`: each value's text as YAML ('yaml': PyYAML's safe_dump) or JSON ('json': json.dumps)
  would print the value the output path hands them (f32 by f32_short, f16 exactly, ints as integers).
  The digit layout of each (sign, digit count, decimal point) group comes from Python's own repr of a
  number of that shape, so the rules (when to use an exponent, '1e-05', '100.0') are Python's.
"""
from __future__ import annotations

import numpy as np

_P10 = np.array([10 ** i for i in range(20)], dtype=np.uint64)
_P10F = np.array([10.0 ** i for i in range(23)])   # exact powers of ten in float64
_MAX_DIGITS = 20


# ---- float32 -> its shortest decimal ---------------------------------------------------------------
def _f32_digits(x: np.ndarray):
    """For finite nonzero float32 x: (m, k, ok) with m * 10^-k the shortest decimal that reads back as x
    (the nearest of that length), m without trailing zeros; ok False where float64 cannot decide exactly."""
    n = x.size
    ax32 = np.abs(x)
    ax = ax32.astype(np.float64)
    with np.errstate(divide="ignore"):
        e = np.floor(np.log10(ax)).astype(np.int64)
    # a power of two has a narrower interval below it than above: the nearest decimal of a length
    # need not be the one that reads back; subnormals and the very large/small need more than float64
    bad = ((ax32.view(np.uint32) & 0x7FFFFF) == 0) | (e < -13) | (e > 21)   # 10^|k| exact: |k| <= 22
    with np.errstate(over="ignore"):
        up = np.nextafter(ax32, np.float32(np.inf)).astype(np.float64)
    dn = np.nextafter(ax32, np.float32(0)).astype(np.float64)
    mid_up, mid_dn = (ax + up) / 2, (ax + dn) / 2      # exact in float64
    m_out = np.zeros(n, np.int64)
    k_out = np.zeros(n, np.int64)

    def probe(idx, p):
        """The nearest decimal of p digits (counted from log10's exponent) for x[idx]: ok where it reads back."""
        k = p - 1 - e[idx]
        a = ax[idx]
        pos = k >= 0
        scale = _P10F[np.abs(k)]                        # exact: |k| <= 22
        # one rounding: error under an ulp of prod
        prod = a * scale if pos.all() else np.where(pos, a * scale, a / scale)
        fl = np.floor(prod)
        frac = prod - fl
        tie = np.abs(frac - 0.5) <= prod * 2.0 ** -49
        m = fl + (frac > 0.5)
        d = m / scale if pos.all() else np.where(pos, m / scale, m * scale)   # m*10^-k correctly rounded
        # d on an f32 rounding midpoint: reading the decimal itself might round the other way
        edge = (d == mid_up[idx]) | (d == mid_dn[idx])
        bad[idx[tie | edge]] = True
        ok = (d.astype(np.float32) == ax32[idx]) & (m > 0) & ~tie & ~edge
        m_out[idx[ok]] = m[ok]
        k_out[idx[ok]] = k[ok]
        return ok
    # reading back is monotonic in the number of digits (the nearest decimal of p+1 digits is at least as
    # near as that of p): from 8 digits (most float32 values need 7 or 8) up until one reads back (10
    # always does, whatever log10's error), then down until one does not
    idx = np.flatnonzero(~bad)
    ok = probe(idx, 8)
    down = idx[ok]
    up = idx[~ok]
    for q in (9, 10):
        up = up[~bad[up]]
        if up.size == 0:
            break
        ok = probe(up, q)
        up = up[~ok]
    bad[up] = True
    q = 8
    while down.size and q > 0:
        q -= 1
        down = down[~bad[down]]
        down = down[probe(down, q)]   # where q digits do not read back, q + 1 (already kept) is the answer
    # strip trailing zeros (a nearest decimal may end in 0 when rounding carried)
    live = ~bad
    for _ in range(_MAX_DIGITS):
        z = live & (m_out % 10 == 0) & (m_out > 0)
        if not z.any():
            break
        m_out[z] //= 10
        k_out[z] -= 1
    return m_out, k_out, ~bad


def _decimal_value(m: np.ndarray, k: np.ndarray) -> np.ndarray:
    """m * 10^-k correctly rounded to float64 (m < 2^53, |k| <= 22: one exact division or product)."""
    scale = _P10F[np.abs(k)]
    mf = m.astype(np.float64)
    return np.where(k >= 0, mf / scale, mf * scale)


def f32_short(a: np.ndarray) -> np.ndarray:
    """float(str(np.float32(x))) for every x of a float32 array, as a float64 array of the same shape."""
    a = np.asarray(a, np.float32)
    flat = a.reshape(-1)
    with np.errstate(invalid="ignore"):
        out = flat.astype(np.float64)                  # zeros, infinities and NaN stay as they are
    nz = np.flatnonzero(np.isfinite(flat) & (flat != 0))
    if nz.size:
        x = flat[nz]
        m, k, ok = _f32_digits(x)
        v = _decimal_value(m[ok], k[ok])
        out[nz[ok]] = np.where(x[ok] < 0, -v, v)
        for i in nz[~ok]:
            out[i] = float(str(flat[i]))
    return out.reshape(a.shape)


# ---- text ---------------------------------------------------------------------------------------
def float_text(x: float, style: str) -> str:
    """One float as safe_dump ('yaml') or json.dumps ('json') prints it."""
    if x != x:
        return ".nan" if style == "yaml" else "NaN"
    if x in (float("inf"), float("-inf")):
        if style == "yaml":
            return ".inf" if x > 0 else "-.inf"
        return "Infinity" if x > 0 else "-Infinity"
    r = repr(x)
    if style == "yaml":
        r = r.lower()
        if "." not in r and "e" in r:
            r = r.replace("e", ".0e", 1)
    return r


def scalar_text(v, style: str) -> str | None:
    """A Python scalar as the plain path prints it; None for anything that is not a number or boolean."""
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is float:
        return float_text(v, style)
    return None


_LUT5 = None


def _digit_matrix(m: np.ndarray, nd: np.ndarray) -> np.ndarray:
    """ASCII digits of each m, right-aligned in _MAX_DIGITS columns (zero-padded): five digits at a
    time from a table of the 100000 five-digit strings."""
    global _LUT5
    if _LUT5 is None:
        v = np.arange(100000)
        _LUT5 = np.stack([(v // 10 ** (4 - i)) % 10 + 48 for i in range(5)], axis=1).astype(np.uint8)
    D = np.full((m.size, _MAX_DIGITS), 48, np.uint8)
    m = m.copy()
    chunk = m.dtype.type(100000)
    for j in range(_MAX_DIGITS // 5):
        D[:, _MAX_DIGITS - 5 * (j + 1):_MAX_DIGITS - 5 * j] = _LUT5[(m % chunk).astype(np.intp)]
        m //= chunk
        if j < _MAX_DIGITS // 5 - 1 and not m.any():
            break
    return D


def _n_digits(m: np.ndarray) -> np.ndarray:
    return np.maximum(1, np.searchsorted(_P10, m.astype(np.uint64), side="right")).astype(np.int64)


def _fill(keys: np.ndarray, D: np.ndarray, template, width_hint: int = 8) -> np.ndarray:
    """Tokens (an 'S' array) built per group of equal keys: template(key) -> (text, [(column, column of D)])."""
    n = keys.size
    if n == 0:   # an empty output (a zero-length buffer)
        return np.zeros(0, "S1")
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    starts = np.concatenate(([0], np.flatnonzero(ks[1:] != ks[:-1]) + 1, [n]))
    groups = []
    width = width_hint
    for a, b in zip(starts[:-1], starts[1:], strict=False):
        text, digits = template(int(ks[a]))
        groups.append((order[a:b], text, digits))
        width = max(width, len(text))
    out = np.zeros((n, width), np.uint8)
    for rows, text, digits in groups:
        base = np.frombuffer(text.encode("ascii"), np.uint8)
        block = np.zeros((rows.size, width), np.uint8)
        block[:, :base.size] = base
        if digits:
            cols, src = zip(*digits, strict=False)
            block[:, list(cols)] = D[rows][:, list(src)]
        out[rows] = block
    return out.view(f"S{width}").reshape(n)


_MARK = "123456789"


def _float_template(style: str):
    """key (neg, digit count, decimal point) -> the token layout, from Python's repr of such a number."""
    def template(key: int):
        neg, rest = divmod(key, 1 << 20)
        nd, decpt = divmod(rest, 1 << 10)
        decpt -= 512
        probe = float(f"{'-' if neg else ''}0.{_MARK[:nd]}e{decpt}")
        text = float_text(probe, style)
        mant, _, exp = text.partition("e")
        digits = [(i, _MAX_DIGITS - nd + int(c) - 1) for i, c in enumerate(mant) if c in _MARK]
        return text, digits
    return template


def _float_tokens(neg: np.ndarray, m: np.ndarray, k: np.ndarray, style: str) -> np.ndarray:
    nd = _n_digits(m)
    decpt = nd - k
    keys = neg.astype(np.int64) * (1 << 20) + nd * (1 << 10) + (decpt + 512)
    return _fill(keys, _digit_matrix(m, nd), _float_template(style))


def _int_tokens(a: np.ndarray) -> np.ndarray:
    a = a.reshape(-1)
    neg = a < 0 if a.dtype.kind == "i" else np.zeros(a.size, bool)
    mag = a.astype(np.uint64)
    mag = np.where(neg, ~mag + np.uint64(1), mag)     # |a| as two's complement, -2^63 included
    nd = _n_digits(mag)
    keys = neg.astype(np.int64) * 64 + nd

    def template(key: int):
        ng, d = divmod(key, 64)
        return "-" * ng + "0" * d, [(i + ng, _MAX_DIGITS - d + i) for i in range(d)]
    return _fill(keys, _digit_matrix(mag, nd), template)


_F16_TABLES: dict = {}


def _f16_table(style: str) -> np.ndarray:
    """The token of each of the 65536 float16 bit patterns (its exact value as a double)."""
    t = _F16_TABLES.get(style)
    if t is None:
        vals = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64).tolist()
        t = np.array([float_text(v, style).encode("ascii") for v in vals])
        _F16_TABLES[style] = t
    return t


def tokens(a: np.ndarray, style: str) -> np.ndarray:
    """Every value of a (flattened, C order) as the plain output path writes it: an 'S' array."""
    a = np.asarray(a)
    flat = a.reshape(-1)
    kind = a.dtype.kind
    if kind == "b":
        return np.where(flat, b"true", b"false").astype("S5")
    if kind in "iu" and a.dtype.itemsize <= 8:
        return _int_tokens(flat)
    if a.dtype == np.float16:
        return _f16_table(style)[flat.view(np.uint16)]
    if a.dtype == np.float32:
        fin = np.isfinite(flat) & (flat != 0)
        idx = np.flatnonzero(fin)
        toks = np.zeros(0, "S1")
        ok = np.zeros(0, bool)
        if idx.size:
            x = flat[idx]
            m, k, ok = _f32_digits(x)
            toks = _float_tokens(x[ok] < 0, m[ok], k[ok], style)
        slow = idx[~ok]   # values the digit search could not settle: per value, rare
        extra = [float_text(float(str(flat[i])), style).encode("ascii") for i in slow.tolist()]
        # zeros, infinities and NaN (whole buffers of zeros are common) by their fixed spellings
        special = np.flatnonzero(~fin)
        zero, neg_zero, inf, neg_inf, nan = (float_text(v, style).encode("ascii") for v in
                                             (0.0, -0.0, float("inf"), float("-inf"), float("nan")))
        width = max([toks.dtype.itemsize, len(neg_inf), len(nan)] + [len(t) for t in extra])
        out = np.zeros(flat.size, f"S{width}")
        out[idx[ok]] = toks
        if extra:
            out[slow] = np.array(extra, f"S{width}")
        if special.size:
            sv = flat[special]
            neg = np.signbit(sv)
            out[special] = np.where(np.isnan(sv), nan, np.where(np.isinf(sv), np.where(neg, neg_inf, inf),
                                                                  np.where(neg, neg_zero, zero)))
        return out
    if kind == "f":
        return np.array([float_text(v, style).encode("ascii") for v in flat.astype(np.float64).tolist()], "S")
    raise TypeError(f"no text for dtype {a.dtype}")


def short_floats(a: np.ndarray):
    """tolist(), with f32 values as the shortest decimals that round-trip in f32 (0.9, not
    0.8999999761581421) and f16 values exactly (65504, 1.7001953125: numpy's shortest f16 text, 6.55e+04,
    would read back as 65500 wherever the value is used at a wider precision)."""
    if a.dtype == np.float16:
        return a.astype(np.float64).tolist()
    if a.dtype == np.float32:
        if a.size >= 32:   # from here one vectorized pass beats str() per value
            return f32_short(a).tolist()   # float(str(x)) for each x, in one go
        flat = [float(str(x)) if np.isfinite(x) else float(x) for x in a.reshape(-1)]
        return np.array(flat, dtype=object).reshape(a.shape).tolist() if a.ndim else flat[0]
    return a.tolist()

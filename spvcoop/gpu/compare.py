"""Comparing two runs' outputs bit for bit (interpreter vs GPU): per buffer, identical or how they differ.

A float difference is counted in units in the last place of the buffer's element type: the distance
between the two bit patterns on the number line (sign-magnitude mapped to a monotone integer), so
adjacent floats are 1 ulp apart, +0 and -0 are 0 ulp apart but not bit-identical, and a NaN is
infinitely far from a number. Two NaNs with other bits (payload, sign, quiet bit) are the same value to
arithmetic: they are counted apart ("by NaN payload only") and the ulp maximum is taken over the rest.
The encoded floats (bfloat16, FP8) are floats here too. Integers differ by their value difference.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class Shown(str):
    """A value written as it is in a report line (not quoted): a NaN with its bits, a dtype and size."""

    def __repr__(self) -> str:
        return str(self)


@dataclass
class BufferDiff:
    name: str
    count: int            # elements that differ bit for bit (0: identical)
    total: int
    max_ulp: float        # over the differences that are not NaN payload only; inf where a NaN meets a number
    first: int | None     # flat index of the first difference
    a_value: object = None
    b_value: object = None
    nan_payload: int = 0  # differences where both are NaN (other payload, sign or quiet bit)

    def text(self, a_name: str, b_name: str) -> str:
        if self.count == 0:
            return f"{self.name}: bit-identical ({self.total} elements)"
        rest = self.count - self.nan_payload
        ulp = "max inf ulp (a NaN against a number)" if self.max_ulp == float("inf") else f"max {self.max_ulp:g} ulp"
        if not self.nan_payload:
            how = ulp
        elif not rest:
            how = "all by NaN payload only (both NaN, other bits)"
        else:
            how = f"{self.nan_payload} by NaN payload only; over the other {rest}: {ulp}"
        return (f"{self.name}: {self.count} of {self.total} elements differ, {how}; first at [{self.first}]: "
                f"{a_name} {self.a_value!r}, {b_name} {self.b_value!r}")


def ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Float bit patterns (as unsigned ints) -> integers in the floats' order (int64)."""
    b = bits.astype(np.int64)
    sign = np.int64(1) << (width - 1)
    neg = (b & sign) != 0
    mag = b & (sign - 1)
    return np.where(neg, -mag, mag)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per element: |a - b| in ulp of their float type (inf where exactly one is NaN or their NaNs differ)."""
    w = a.dtype.itemsize * 8
    ua, ub = a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}")
    if w == 64:  # int64 would overflow for far-apart doubles: float arithmetic is close enough there
        d = np.abs(ordered(ua >> 1, 63).astype(np.float64) - ordered(ub >> 1, 63).astype(np.float64)) * 2
    else:
        d = np.abs(ordered(ua, w) - ordered(ub, w)).astype(np.float64)
    nan = np.isnan(a) | np.isnan(b)
    return np.where(nan & (ua != ub), np.inf, d)


def _leaves(value, prefix: str):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{prefix}.{k}")
    elif isinstance(value, (list, tuple)) and value and isinstance(value[0], (dict, list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, np.asarray(value)


def _is_float(dt: np.dtype) -> bool:
    from ..interp.encodings import is_float
    return is_float(dt)


def _value(arr: np.ndarray, i: int):
    """Element i for a report line: a number, or a NaN with its bit pattern (payloads are what differ)."""
    if _is_float(arr.dtype):
        x = arr[i:i + 1]
        if np.isnan(x)[0]:
            bits = int(x.view(f"u{arr.dtype.itemsize}")[0])
            return Shown(f"nan(0x{bits:0{2 * arr.dtype.itemsize}x})")
        return float(x[0])
    return arr[i].item()


def diff_arrays(name: str, a: np.ndarray, b: np.ndarray) -> BufferDiff:
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    if a.dtype != b.dtype or a.size != b.size:
        return BufferDiff(name, max(a.size, b.size), max(a.size, b.size), float("inf"), 0,
                          Shown(f"{a.dtype}[{a.size}]"), Shown(f"{b.dtype}[{b.size}]"))
    is_float = _is_float(a.dtype)
    if not is_float and a.dtype.kind not in "biu":
        a, b = a.view(np.uint8), b.view(np.uint8)
    ua = a.view(f"u{a.dtype.itemsize}") if is_float else a
    ub = b.view(f"u{b.dtype.itemsize}") if is_float else b
    neq = ua != ub
    n = int(neq.sum())
    if n == 0:
        return BufferDiff(name, 0, a.size, 0.0, None)
    first = int(np.argmax(neq))
    payload = 0
    if is_float:
        da, db = a[neq], b[neq]
        both_nan = np.isnan(da) & np.isnan(db)
        payload = int(both_nan.sum())
        rest = ~both_nan
        worst = float(ulp_distance(da[rest], db[rest]).max()) if rest.any() else 0.0
    else:
        worst = float(np.abs(a[neq].astype(np.float64) - b[neq].astype(np.float64)).max())
    return BufferDiff(name, n, a.size, worst, first, _value(a, first), _value(b, first), payload)


def compare_outputs(a: dict, b: dict, a_name: str = "a", b_name: str = "b") -> tuple[list[str], int]:
    """(one line per output buffer, how many buffers differ) for two {name: value} output dicts. A structured
    buffer (nested members) is one line too: its elements summed over members, the first difference named by
    its member path."""
    lines, differ = [], 0
    for name in a:
        if name not in b:
            lines.append(f"{name}: missing from {b_name}")
            differ += 1
            continue
        la, lb = dict(_leaves(a[name], name)), dict(_leaves(b[name], name))
        diffs = [diff_arrays(leaf, la[leaf], lb.get(leaf, np.zeros(0, la[leaf].dtype))) for leaf in la]
        total = sum(d.total for d in diffs)
        bad = [d for d in diffs if d.count]
        if not bad:
            lines.append(f"{name}: bit-identical ({total} elements)")
            continue
        differ += 1
        first = bad[0]
        merged = BufferDiff(first.name if len(diffs) > 1 else name, sum(d.count for d in bad), total,
                            max(d.max_ulp for d in bad), first.first, first.a_value, first.b_value,
                            sum(d.nan_payload for d in bad))
        text = merged.text(a_name, b_name)
        lines.append(text if len(diffs) == 1 else f"{name}: " + text.split(": ", 1)[1].replace(
            "first at [", f"first at {first.name}["))
    return lines, differ

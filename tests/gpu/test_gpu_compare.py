"""`run --compare-interpreter`'s per-buffer comparison on arrays, no GPU needed (issue 32, item 5): NaNs that differ
only in their bits are counted apart and the ulp maximum is over the rest (it said "max nan ulp" whenever a NaN was
among the differences); bfloat16 and FP8 buffers are compared element by element as floats."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from spvcoop.gpu.compare import compare_outputs, diff_arrays


def _f32(*bits: int) -> np.ndarray:
    return np.array(bits, np.uint32).view(np.float32)


ONE, NEXT, QNAN, NAN1, NEG_NAN = 0x3F800000, 0x3F800003, 0x7FC00000, 0x7FC00001, 0xFFC00000


def test_nan_payload_only() -> None:
    d = diff_arrays("y", _f32(QNAN, ONE, QNAN), _f32(NAN1, ONE, NEG_NAN))
    assert (d.count, d.nan_payload, d.max_ulp, d.first) == (2, 2, 0.0, 0)
    text = d.text("interpreter", "vulkan")
    assert text == ("y: 2 of 3 elements differ, all by NaN payload only (both NaN, other bits); first at [0]: "
                    "interpreter nan(0x7fc00000), vulkan nan(0x7fc00001)")
    assert "nan ulp" not in text


def test_nan_payload_and_ulp_differences_apart() -> None:
    d = diff_arrays("y", _f32(ONE, QNAN, ONE, QNAN), _f32(NEXT, NAN1, ONE, NEG_NAN))
    assert (d.count, d.nan_payload, d.max_ulp) == (3, 2, 3.0)
    assert "3 of 4 elements differ, 2 by NaN payload only; over the other 1: max 3 ulp; first at [0]: " \
           "interpreter 1.0, vulkan 1.0000003576278687" in d.text("interpreter", "vulkan")


def test_nan_against_a_number_is_not_payload() -> None:
    d = diff_arrays("y", _f32(QNAN, QNAN), _f32(ONE, NAN1))
    assert (d.count, d.nan_payload, d.max_ulp) == (2, 1, float("inf"))
    assert "1 by NaN payload only; over the other 1: max inf ulp (a NaN against a number)" in d.text("a", "b")


def test_structured_buffer_sums_payload_counts() -> None:
    a = {"p": _f32(QNAN, ONE), "q": _f32(ONE, ONE)}
    b = {"p": _f32(NAN1, ONE), "q": _f32(ONE, NEXT)}
    lines, differ = compare_outputs({"W": a}, {"W": b}, "a", "b")
    assert differ == 1
    assert lines[0].startswith("W: 2 of 4 elements differ, 1 by NaN payload only; over the other 1: max 3 ulp; "
                               "first at W.p[0]: a nan(0x7fc00000), b nan(0x7fc00001)"), lines


def test_encoded_floats_compared_as_floats() -> None:
    """bfloat16 (numpy kind 'V') was compared as bytes: two bytes per element counted, byte differences as ulp."""
    a = np.array([1.0, 2.0, 3.0], ml_dtypes.bfloat16)
    b = a.copy()
    b.view(np.uint16)[1] += 2            # 2 ulp of bfloat16
    d = diff_arrays("h", a, b)
    assert (d.count, d.total, d.max_ulp, d.first, d.a_value) == (1, 3, 2.0, 1, 2.0)
    e = np.array([np.nan, 1.0], ml_dtypes.float8_e4m3fn)
    f = e.copy()
    f.view(np.uint8)[0] ^= 0x80           # -NaN: E4M3FN's other NaN
    d = diff_arrays("q", e, f)
    assert (d.count, d.total, d.nan_payload) == (1, 2, 1) and "nan(0x7f)" in d.text("a", "b")

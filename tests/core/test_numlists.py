"""The fast reader of long numeric flow lists (spvcoop.core.numlists): whatever it accepts reads as YAML 1.1 reads it,
bit for bit; what it refuses is left to the general path. Compared with PyYAML's own resolver item by item."""
from __future__ import annotations

import struct

import numpy as np
import pytest
import yaml

from spvcoop.core import numlists


def _yaml_items(body: str):
    return yaml.load("[" + body + "]", Loader=yaml.SafeLoader)


def _bits(v):
    return ("float", struct.pack("<d", v)) if isinstance(v, float) else (type(v).__name__, v)


def _check(body: str) -> bool:
    """parse_numbers(body) is None, or equal to PyYAML's reading bit for bit (types included); True if taken."""
    got = numlists.parse_numbers(body)
    try:
        want = _yaml_items(body)
    except yaml.YAMLError:
        assert got is None, body[:200]
        return False
    if got is None:
        return False
    assert all(type(v) in (int, float) for v in want), body[:200]
    assert [_bits(v) for v in got[0]] == [_bits(v) for v in want]
    if got[1] is not None:
        assert [_bits(v) for v in got[1].tolist()] == [_bits(v) for v in want]
    return True


def _yaml_float(v: float) -> str:
    """A float as YAML 1.1 reads it back: a point in the mantissa and a signed exponent."""
    s = repr(float(v))
    if "e" in s:
        m, e = s.split("e")
        s = (m if "." in m else m + ".0") + "e" + (e if e[0] in "+-" else "+" + e)
    return s


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_float_lists_read_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = 2500
    kinds = [
        rng.standard_normal(n).astype(np.float32),                                     # shortest f32 texts
        (rng.standard_normal(n) * 10.0 ** rng.integers(-44, 37, n)).astype(np.float32),  # exponents both ways
        rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n),                    # float64: 17 digits
        np.array([0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740993.0,
                  123456789012345678.0, 1e22, 1e23, 0.1, 0.3] * 50),
    ]
    vals = kinds[seed % len(kinds)]
    vals = vals[np.isfinite(vals)]
    toks = [_yaml_float(np.float32(v)) if vals.dtype == np.float32 else _yaml_float(v) for v in vals]
    if seed % 3 == 1:
        toks = [t.upper() for t in toks]     # 'E'
    if seed % 2:
        toks = [t.replace("e", "0e", 1) if "e" in t else t + "000" for t in toks]   # trailing zeros
    sep = (", ", ",\n  ", ",", " , ")[seed % 4]
    assert _check(sep.join(toks))


def test_hand_written_cases():
    taken = {
        "1, 2, 3": True, "-1.5, 2.0e+3, 3.": True, " 1.5 ,\n 2.5 ": True, "0.0, -0.0, 0, -0": True,
        "1.5e+3, 2.5E-2": True, "12345678901234567890.5, 1.0": True,   # long mantissa: numpy's float parser
        "1.0e+400, 1.0": True, "1.0e-400, 1.0": True,                   # overflow / underflow: inf, 0
        "1 2, 3": False, "1.5 e+3, 2.0": False, "1,,2": False, "1e+3, 2.0": False, "1.5.3, 2.0": False,
        "1.5e+3e+2, 1.0": False, "017, 1": False, "-00.5, 1.0": False, "1.5e3, 1.0": False, "+1, 2": False,
        ".5, 1.0": False, "1_000, 2": False, "1, 2,": False, ",1, 2": False, "1\t, 2": False, "0x1F, 1": False,
        "1234567890123456789, 1": False,   # 19 digits: past int64's sure range, the general path
    }
    for body, want in taken.items():
        assert _check(body) == want, body


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_mutated_lists_never_read_differently(seed):
    """Random characters of the number alphabet changed in a valid list: taken or not, never a wrong value."""
    rng = np.random.default_rng(1000 + seed)
    vals = rng.standard_normal(300) * 10.0 ** rng.integers(-30, 30, 300)
    toks = [_yaml_float(v) if i % 4 else str(int(v * 1000)) for i, v in enumerate(vals)]
    chars = list(", ".join(toks))
    alphabet = "0123456789-+.eE, \n\r"
    for _ in range(int(rng.integers(1, 6))):
        chars[int(rng.integers(0, len(chars)))] = alphabet[int(rng.integers(0, len(alphabet)))]
    _check("".join(chars))


def test_candidates_are_the_innermost_long_lists():
    inner = "[" + ", ".join(["1.5"] * 1000) + "]"
    text = f"a: [{inner}, [1, 2]]\nb: {inner}\nc: [x]\n" + "[" * 50 + "]"
    got = [text[s:e] for s, e in numlists.flow_candidates(text)]
    assert got == [inner, inner]

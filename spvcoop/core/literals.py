"""Numeric literals as spirv-as reads them and spirv-dis prints them.

Integers: decimal, hex (0x), octal (leading 0), optional sign; width and
signedness decide the range. Floats: C-like decimal rounded to nearest even
into f32/f64; f16 goes through f32 and is then narrowed toward zero, and hex
floats drop the digits that do not fit (both as SPIRV-Tools does, measured);
infinities and NaNs only as hex floats with the maximal exponent.
"""
from __future__ import annotations

import math
import re
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

_INT_RE = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\Z")
_DEC_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX_FLOAT_RE = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)\Z")

# (exponent bits, fraction bits) per float format: IEEE ones by width, the others by name
FLOAT_FORMATS = {16: (5, 10), 32: (8, 23), 64: (11, 52), "bf16": (8, 7), "e5m2": (5, 2), "e4m3": (4, 3)}

# OpTypeFloat's FPEncoding operand -> the format of its literals (spirv-as/spirv-dis 2025.5)
ENCODED_FLOATS = {"BFloat16KHR": "bf16", "Float8E5M2EXT": "e5m2", "Float8E4M3EXT": "e4m3"}


def float_type(width: int, encoding: str | None = None) -> tuple[str, int, bool]:
    """The numeric-type tuple (kind, width, signed) of an OpTypeFloat: kind 'float' for IEEE
    formats, else the format name of its encoding ('bf16', 'e5m2', 'e4m3')."""
    return (ENCODED_FLOATS.get(encoding or "", "float"), width, True)


def _bits(fmt) -> int:
    ebits, mbits = FLOAT_FORMATS[fmt]
    return 1 + ebits + mbits


class LiteralError(ValueError):
    """A literal that does not parse or does not fit; the message is spirv-as-like."""


def parse_int(text: str, width: int = 32, signed: bool = False) -> int:
    """The integer `text` as a value of the given type (signed value for signed types)."""
    kind = "signed" if signed else "unsigned"
    if width > 64:
        raise LiteralError(f"Unsupported {width}-bit integer literals")  # spirv-as's words
    if not _INT_RE.match(text):
        raise LiteralError(f"Invalid {kind} integer literal: {text}")
    negative = text.startswith("-")
    body = text.lstrip("+-")
    is_hex = body[:2] in ("0x", "0X")
    octal = not is_hex and len(body) > 1 and body[0] == "0"
    digits = (body[2:] if is_hex else body).lstrip("0")
    if len(digits) > (16 if is_hex else 22 if octal else 20):
        # more than 64 bits (spirv-as reads into 64 bits; Python would refuse 4300 decimal digits)
        raise LiteralError(f"Invalid {kind} integer literal: {text}")
    value = int(body, 16) if is_hex else (int(body, 8) if octal else int(body))
    if negative and not signed:
        raise LiteralError("Cannot put a negative number in an unsigned literal")
    if is_hex and signed and not negative:
        # a hex bit pattern in the type's width, sign-extended
        if value >> width:
            raise LiteralError(f"Integer {text} does not fit in a {width}-bit {kind} integer")
        if value >> (width - 1):
            value -= 1 << width
        return value
    if negative:
        value = -value
    if not -(1 << 63) <= value <= (1 << 64) - 1:
        raise LiteralError(f"Invalid {kind} integer literal: {text}")  # beyond 64 bits, as spirv-as says
    if signed and width == 0:
        lo, hi = -1, 0  # what spirv-as 2025.5 accepts for a 0-bit signed type (0 and -1, one word)
    else:
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if not lo <= value <= hi:
        raise LiteralError(f"Integer {text} does not fit in a {width}-bit {kind} integer")
    return value


def int_words(value: int, width: int) -> tuple[int, ...]:
    """Words of an integer literal: one word (sign-extended to 32 bits) or two, low first."""
    if width <= 32:
        return (value & 0xFFFFFFFF,)
    v = value & 0xFFFFFFFFFFFFFFFF
    return (v & 0xFFFFFFFF, v >> 32)


def _round_fraction(value: Fraction, fmt, truncate: bool = False) -> int | None:
    """Bits of |value| rounded to nearest even (or toward zero) in the format; None on overflow."""
    from fractions import Fraction  # exact rounding, only for literals that need it
    ebits, mbits = FLOAT_FORMATS[fmt]
    bias = (1 << (ebits - 1)) - 1
    if value == 0:
        return 0
    n, d = value.numerator, value.denominator
    e = n.bit_length() - d.bit_length()
    if Fraction(n, d) < Fraction(2) ** e:
        e -= 1
    e = max(e, 1 - bias)  # subnormals share the minimum exponent
    scaled = value / (Fraction(2) ** (e - mbits))
    q, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if not truncate and (twice > scaled.denominator or (twice == scaled.denominator and q & 1)):
        q += 1
    if q >> (mbits + 1):  # rounding carried into the next binade
        q >>= 1
        e += 1
    if e > bias:
        return None
    if q >> mbits:  # normal
        return ((e + bias) << mbits) | (q & ((1 << mbits) - 1))
    return q  # subnormal


def _decimal_to_f32_bits(text: str) -> int | None:
    from fractions import Fraction  # exact rounding, only for literals that need it
    d = float(text)
    if math.isinf(d):
        return None
    # A double exactly halfway between two floats (subnormal ones and the largest float and 2^128
    # included) may hide a double rounding: redo it exactly. Rounding is monotonic, so any other
    # double rounds to the float the decimal text rounds to, or overflows exactly when it does.
    e = max(math.frexp(d)[1] - 1, -126)  # the binade's exponent, subnormals sharing the lowest
    halves = math.ldexp(abs(d), 24 - e)  # |d| in halves of the float's unit in the last place
    if halves.is_integer() and int(halves) & 1:
        r = _round_fraction(abs(Fraction(text.lstrip("+-"))), 32)
        if r is None:
            return None
        bits = r
    else:
        try:
            bits = struct.unpack("<I", struct.pack("<f", d))[0]
        except OverflowError:  # rounds past the largest float (3.4028235677973366e38 and above)
            return None
    return (bits & 0x7FFFFFFF) | (0x80000000 if text.startswith("-") else 0)


def _narrow_f32(b: int, fmt) -> int:
    """An f32 bit pattern narrowed toward zero to a smaller format, or -1 on overflow.
    SPIRV-Tools narrows float to half toward zero (HexFloat castTo's default), measured:
    0.6180340051651001 -> f16 0x38f1, 65535.0 -> 0x7bff, 65536.0 -> error; bf16 0.1 -> 0x3dcc."""
    from fractions import Fraction  # exact rounding, only for literals that need it
    sign = (b >> 31) << (_bits(fmt) - 1)
    v = Fraction(struct.unpack("<f", struct.pack("<I", b & 0x7FFFFFFF))[0])
    r = _round_fraction(v, fmt, truncate=True)
    return -1 if r is None else sign | r


def _narrow_f32_fp8(b: int, fmt) -> int:
    """A decimal literal's f32 bits narrowed to FP8 exactly as spirv-as 2025.5 does it (measured on a
    sweep of 8,000 literals, tests/asm/test_as_refusals.py checks samples). Two quirks of SPIRV-Tools:
    - E4M3: 256 <= |x| <= 448 (E4M3's top binade) becomes the largest finite value 448 (0x7e),
      and anything larger is refused;
    - an f32 subnormal whose exponent is below -128 has it wrapped into the FP8 format's 8-bit
      exponent type (e + 256), so 1e-40 becomes E5M2 0x28, not 0: the wrapped exponent, biased,
      fills the exponent field and spills into the sign bit's place, which the sign then overwrites.
    Everything else narrows toward zero like the other small formats (a -1 result: overflow)."""
    ebits, mbits = FLOAT_FORMATS[fmt]
    bias = (1 << (ebits - 1)) - 1
    sign = b >> 31
    mantissa = b & 0x7FFFFF
    if not (b >> 23) & 0xFF and mantissa:
        msb = mantissa.bit_length() - 1
        e = msb - 149
        if e < -128:
            e += 256
            top = (mantissa << mbits >> msb) & ((1 << mbits) - 1)
            bits = (((e + bias) << mbits) | top) & 0x7F
            if fmt == "e5m2" and bits == 0x7C:
                return -1  # the pattern of infinity: refused as an overflow (NaN patterns are kept)
            return (sign << 7) | bits
    if fmt == "e4m3" and (b & 0x7FFFFFFF) >= 0x43800000:  # 256.0
        return -1 if (b & 0x7FFFFFFF) > 0x43E00000 else (sign << 7) | 0x7E  # above 448: refused
    return _narrow_f32(b, fmt)


def parse_float(text: str, width: int, fmt=None) -> int:
    """Bit pattern of the float literal `text` in a `width`-bit float (fmt: 'bf16', 'e5m2' or
    'e4m3' for an OpTypeFloat with an FPEncoding; IEEE by width otherwise)."""
    fmt = width if fmt in (None, "float") else fmt
    if fmt not in FLOAT_FORMATS:
        # spirv-as's words, with the width read as a signed 32-bit number as it prints it
        raise LiteralError(f"Unsupported {width - (1 << 32) if width >> 31 else width}-bit float literals")
    m = _HEX_FLOAT_RE.match(text)
    if m:
        return _parse_hex_float(m, text, fmt)
    return _parse_decimal(text, width, fmt)


def _invalid_float(text: str, width: int, fmt) -> LiteralError:
    """spirv-as's words: 'Invalid E4M3 float literal: 449', 'Invalid 16-bit float literal: 1e9',
    'Invalid bfloat16 literal: 1e39'."""
    if fmt == "bf16":
        return LiteralError(f"Invalid bfloat16 literal: {text}")
    name = {"e4m3": "E4M3", "e5m2": "E5M2"}.get(fmt, f"{width}-bit")
    return LiteralError(f"Invalid {name} float literal: {text}")


def _parse_decimal(text: str, width: int, fmt) -> int:
    if not _DEC_FLOAT_RE.match(text):
        raise _invalid_float(text, width, fmt)
    if fmt == 64:
        d = float(text)
        if math.isinf(d):
            raise _invalid_float(text, width, fmt)
        return struct.unpack("<Q", struct.pack("<d", d))[0]
    b32 = _decimal_to_f32_bits(text)
    if b32 is None:
        raise _invalid_float(text, width, fmt)
    if fmt == 32:
        return b32
    narrow = _narrow_f32_fp8(b32, fmt) if fmt in ("e4m3", "e5m2") else _narrow_f32(b32, fmt)
    if narrow < 0:
        raise _invalid_float(text, width, fmt)
    return narrow


def _parse_hex_float(m: re.Match, text: str, fmt) -> int:
    from fractions import Fraction  # exact rounding, only for literals that need it
    ebits, mbits = FLOAT_FORMATS[fmt]
    width = _bits(fmt)
    bias = (1 << (ebits - 1)) - 1
    sign, whole, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "", int(m.group(4))
    if not whole and not frac:
        raise _invalid_float(text, width, fmt)
    sign_bit = 1 << (width - 1) if sign == "-" else 0
    mant = int(whole + frac, 16) if (whole + frac) else 0
    if mant == 0:
        return sign_bit
    # the value's binary exponent, bounded before any power is built: beyond the format's range
    # the result is infinity or (digits dropped toward zero) zero, whatever the exponent's size
    top_exp = exp + mant.bit_length() - 1 - 4 * len(frac)
    if top_exp > bias + 1:
        return sign_bit | (((1 << ebits) - 1) << mbits)
    if top_exp < 1 - bias - mbits - 1:
        return sign_bit
    value = Fraction(mant, 16 ** len(frac)) * Fraction(2) ** exp
    if value >= Fraction(2) ** (bias + 1):
        # infinity or NaN: the maximal exponent, the fraction bits taken from the mantissa
        top = value / Fraction(2) ** (bias + 1)
        # beyond that exponent the mantissa is dropped: infinity (measured with spirv-as)
        fraction = int((top - 1) * (1 << mbits)) if top < 2 else 0
        return sign_bit | (((1 << ebits) - 1) << mbits) | fraction
    # SPIRV-Tools drops the hex digits that do not fit (round toward zero), measured
    r = _round_fraction(value, fmt, truncate=True)
    if r is None:
        raise _invalid_float(text, width, fmt)
    return sign_bit | r


def float_words(bits: int, width: int) -> tuple[int, ...]:
    if width == 64:
        return (bits & 0xFFFFFFFF, bits >> 32)
    return (bits,)


# ---- printing (spirv-dis) ----

def format_hex_float(bits: int, fmt) -> str:
    """SPIRV-Tools' hex float: 0x1.8p+0, -0x0p+0, 0x1p+128 (inf), 0x1.8p+128 (NaN), subnormals normalised."""
    ebits, mbits = FLOAT_FORMATS[fmt]
    width = _bits(fmt)
    bias = (1 << (ebits - 1)) - 1
    sign = "-" if bits >> (width - 1) & 1 else ""
    exp_field = (bits >> mbits) & ((1 << ebits) - 1)
    frac = bits & ((1 << mbits) - 1)
    if exp_field == 0 and frac == 0:
        return f"{sign}0x0p+0"
    if exp_field == 0:
        # subnormal: shift the fraction up until the leading 1 is implicit
        e = 1 - bias
        while not frac >> mbits:
            frac <<= 1
            e -= 1
        frac &= (1 << mbits) - 1
    else:
        e = exp_field - bias
    # fraction printed in hex digits, left aligned to a nibble boundary, trailing zeros dropped
    nibbles = (mbits + 3) // 4
    frac_aligned = frac << (nibbles * 4 - mbits)
    digits = f"{frac_aligned:0{nibbles}x}".rstrip("0")
    body = f"0x1.{digits}" if digits else "0x1"
    return f"{sign}{body}p{'+' if e >= 0 else '-'}{abs(e)}"


def format_float(bits: int, width: int, fmt=None) -> str:
    """How spirv-dis prints a float constant of this width (and encoding format, if any):
    16- and 8-bit floats always as hex floats."""
    fmt = width if fmt in (None, "float") else fmt
    if fmt not in FLOAT_FORMATS:
        return str(bits)
    if _bits(fmt) <= 16:
        return format_hex_float(bits, fmt)
    ebits, mbits = FLOAT_FORMATS[width]
    exp_field = (bits >> mbits) & ((1 << ebits) - 1)
    frac = bits & ((1 << mbits) - 1)
    if exp_field == (1 << ebits) - 1 or (exp_field == 0 and frac != 0):
        return format_hex_float(bits, width)
    if width == 32:
        v = struct.unpack("<f", struct.pack("<I", bits))[0]
        return _format_g(v, 9)
    v = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return _format_g(v, 17)


def _format_g(v: float, precision: int) -> str:
    """C++ ostream with setprecision(p) (default floatfield, i.e. %g without trailing zeros)."""
    s = f"{v:.{precision}g}"
    if "e" in s:
        mant, exp = s.split("e")
        sign = exp[0]
        digits = exp[1:].lstrip("0")
        s = f"{mant}e{sign}{digits.rjust(2, '0')}"
    return s

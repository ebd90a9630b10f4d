"""Amber's buffer data types (`DATA_TYPE vec3<float>`, `FORMAT R32G32_SFLOAT`, VkScript's `uvec4`) and their
layouts: where each component of each element sits in a buffer's bytes, values as text to bytes and back.

Amber lays a buffer out as its data type's elements one after the other: a vec3 takes the space of a vec4 and a
matCxR is C columns of vecR, column-major (google/amber's Format). STD140 pads only matrices (each column to four
components) and array types (`float[]`: each element to four components); a plain `float` or `vec2<float>` buffer
is as packed in std140 as in std430.
"""
from __future__ import annotations

import re

import numpy as np

from ..core.records import FrozenRecord

_SCALARS = {
    "int8": ("i", 8), "int16": ("i", 16), "int32": ("i", 32), "int64": ("i", 64),
    "uint8": ("u", 8), "uint16": ("u", 16), "uint32": ("u", 32), "uint64": ("u", 64),
    "float16": ("f", 16), "float": ("f", 32), "double": ("f", 64),
}
# VkScript's names (docs/vk_script.md "Data Types"): scalar, vector prefix
_VK_SCALARS = {"int": "int32", "uint": "uint32", "int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16",
               "uint16_t": "uint16", "int64_t": "int64", "uint64_t": "uint64", "float": "float", "double": "double",
               "float16_t": "float16"}
_VK_VECTORS = {"vec": "float", "dvec": "double", "ivec": "int32", "uvec": "uint32", "i8vec": "int8",
               "u8vec": "uint8", "i16vec": "int16", "u16vec": "uint16", "i64vec": "int64", "u64vec": "uint64"}
_VK_MATRICES = {"mat": "float", "dmat": "double"}
# FORMAT names whose components are all one plain type (the UNORM/SRGB/... ones need a conversion Amber's image
# probes do: not supported)
_FORMAT_KIND = {"SFLOAT": "f", "SINT": "i", "UINT": "u"}
_FORMAT = re.compile(r"^((?:[RGBA]\d+)+)_(SFLOAT|SINT|UINT)$")


class AmberType(FrozenRecord):
    """One element of a buffer: `cols` columns of `rows` components of a scalar (kind 'i', 'u' or 'f', `bits`);
    `array`: an array type (`int32[]`), which std140 pads."""
    kind: str
    bits: int
    rows: int
    cols: int
    name: str
    array: bool
    _fields = ("kind", "bits", "rows", "cols", "name", "array")

    def __init__(self, kind: str, bits: int, rows: int = 1, cols: int = 1, name: str = "",
                 array: bool = False) -> None:
        for f, v in zip(self._fields, (kind, bits, rows, cols, name, array), strict=True):
            object.__setattr__(self, f, v)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(f"{'f' if self.kind == 'f' else self.kind}{self.bits // 8}")

    @property
    def values_per_element(self) -> int:
        return self.rows * self.cols

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    def column_stride(self, layout: str) -> int:
        """Bytes of one column: its components, padded to four for a vec3 and, in std140, for a matrix or an array
        type (Amber pads with components, so an f16 column takes 8 bytes, a double one 32)."""
        pad = self.rows == 3 or (layout == "std140" and (self.cols > 1 or self.array))
        return (4 if pad else self.rows) * (self.bits // 8)

    def stride(self, layout: str) -> int:
        """Bytes from one element to the next."""
        return self.cols * self.column_stride(layout)

    def offsets(self, layout: str) -> np.ndarray:
        """Byte offsets of one element's components, in the order values are written (column by column)."""
        s, cs = self.bits // 8, self.column_stride(layout)
        return np.array([c * cs + r * s for c in range(self.cols) for r in range(self.rows)], np.int64)


def amber_type(name: str) -> AmberType | None:
    """An AmberScript DATA_TYPE (`int32`, `vec4<float>`, `mat2x3<float>`, an array type `float[]`) or None."""
    if name.endswith("[]"):
        base = amber_type(name[:-2])
        return AmberType(base.kind, base.bits, base.rows, base.cols, name, True) if base and not base.array else None
    if name in _SCALARS:
        k, b = _SCALARS[name]
        return AmberType(k, b, name=name)
    m = re.fullmatch(r"vec([234])<(\w+)>", name)
    if m and m.group(2) in _SCALARS:
        k, b = _SCALARS[m.group(2)]
        return AmberType(k, b, int(m.group(1)), 1, name)
    m = re.fullmatch(r"mat([234])x([234])<(\w+)>", name)
    if m and m.group(3) in _SCALARS:
        k, b = _SCALARS[m.group(3)]
        return AmberType(k, b, int(m.group(2)), int(m.group(1)), name)
    return None


def format_type(name: str) -> AmberType | None:
    """A FORMAT whose components are one plain type (R32G32B32A32_SFLOAT as vec4<float>) or None."""
    m = _FORMAT.match(name)
    if not m:
        return None
    sizes = [int(x) for x in re.findall(r"\d+", m.group(1))]
    if len(set(sizes)) != 1 or sizes[0] not in (8, 16, 32, 64) or (m.group(2) == "SFLOAT" and sizes[0] == 8):
        return None
    return AmberType(_FORMAT_KIND[m.group(2)], sizes[0], len(sizes), 1, name)


def vk_type(name: str) -> AmberType | None:
    """A VkScript data type (`float`, `uvec4`, `mat3x4`, `dmat2`) or None."""
    if name in _VK_SCALARS:
        return amber_type(_VK_SCALARS[name])
    m = re.fullmatch(r"([a-z0-9]*?vec)([234]?)", name)
    if m and m.group(1) in _VK_VECTORS:
        base = amber_type(_VK_VECTORS[m.group(1)])
        n = int(m.group(2) or 4)
        return AmberType(base.kind, base.bits, n, 1, name) if base else None
    m = re.fullmatch(r"(d?mat)([234])(?:x([234]))?", name)
    if m:
        base = amber_type(_VK_MATRICES[m.group(1)])
        cols = int(m.group(2))
        rows = int(m.group(3) or cols)
        return AmberType(base.kind, base.bits, rows, cols, name) if base else None
    return None


def parse_number(text: str, t: AmberType):
    """The value of one token for components of type t, or raise ValueError with the reason. Hex (0x...) is the
    bit pattern for every type."""
    neg = text.startswith("-")
    body = text[1:] if neg or text.startswith("+") else text
    if body[:2].lower() == "0x":
        v = int(body, 16)
        bits = np.array([v & ((1 << t.bits) - 1)], np.dtype(f"u{t.bits // 8}"))
        out = bits.view(t.dtype)[0]
        return -out if neg else out
    if t.kind == "f":
        return float(text)
    try:
        v = int(text, 10)
    except ValueError:
        f = float(text)   # "1.0" for an integer type: Amber takes its integer value
        if not f.is_integer():
            raise ValueError(f"'{text}' is not an integer") from None
        v = int(f)
    if not -(1 << (t.bits - 1)) <= v < (1 << t.bits):   # negative values of unsigned types wrap, as in C
        raise ValueError(f"{text} does not fit in {t.bits} bits")
    return v


def to_array(values: list, t: AmberType) -> np.ndarray:
    """Numbers (from parse_number) as an array of t's scalar type (integers wrapped to the width)."""
    if t.kind == "f":
        return np.array([float(v) for v in values], np.float64).astype(t.dtype)
    mask = (1 << t.bits) - 1
    return np.array([int(v) & mask for v in values], np.dtype(f"u{t.bits // 8}")).view(t.dtype)


def component_offsets(t: AmberType, layout: str, start: int, count: int) -> np.ndarray:
    """Byte offsets of `count` components from byte `start` (an element's start), in value order."""
    per = t.values_per_element
    n_el = -(-count // per)
    offs = (np.arange(n_el, dtype=np.int64)[:, None] * t.stride(layout) + t.offsets(layout)[None, :]).reshape(-1)
    return start + offs[:count]


def pack(values: np.ndarray, t: AmberType, layout: str, size_bytes: int | None = None) -> bytearray:
    """The bytes of a buffer holding `values` (components in order), padding zero."""
    n_el = -(-len(values) // t.values_per_element)
    out = bytearray(n_el * t.stride(layout) if size_bytes is None else size_bytes)
    write(out, t, layout, 0, values)
    return out


def write(buf: bytearray, t: AmberType, layout: str, start: int, values: np.ndarray) -> None:
    """Components written at byte `start` onwards, the buffer grown where they pass its end."""
    offs = component_offsets(t, layout, start, len(values))
    w = t.bits // 8
    end = int(offs[-1]) + w if len(offs) else 0
    if end > len(buf):
        buf.extend(bytes(end - len(buf)))
    raw = np.frombuffer(np.ascontiguousarray(values.astype(t.dtype)).tobytes(), np.uint8).reshape(-1, w)
    arr = np.frombuffer(buf, np.uint8)
    arr[(offs[:, None] + np.arange(w)[None, :]).reshape(-1)] = raw.reshape(-1)


def read(buf: bytes | bytearray, t: AmberType, layout: str, start: int, count: int) -> np.ndarray:
    """`count` components from byte `start` (the caller checks that they lie inside the buffer)."""
    offs = component_offsets(t, layout, start, count)
    w = t.bits // 8
    arr = np.frombuffer(bytes(buf), np.uint8)
    return arr[(offs[:, None] + np.arange(w)[None, :]).reshape(-1)].copy().view(t.dtype)


def show(v, t: AmberType) -> str:
    """A value as Amber's messages write it (floats with enough digits to tell them apart)."""
    if t.kind == "f":
        x = t.dtype.type(v)
        return np.format_float_positional(x, trim="-") if np.isfinite(x) else str(float(x))
    return str(int(v))

"""SPIR-V types as the interpreter sees them, with their byte layout.

A type is parsed once from its OpType* instruction. Layout (size, member
offsets, array and matrix strides) comes from the Offset/ArrayStride/
MatrixStride decorations when present (explicit layouts of buffers), and from a
natural scalar layout otherwise (Function, Private, Workgroup variables, whose
layout nobody can observe).
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core.records import Record
from . import encodings
from .encodings import SHORT_NAMES
from .fault import Fault


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Type(Record):
    """A SPIR-V type as the interpreter sees it (kind, width, element, count, members, extra facts)."""

    id: int
    # void bool int float vector matrix array runtime_array struct pointer function coopmat other
    kind: str
    width: int                     # bits, for int/float
    signed: bool
    elem: Type | None            # vector/matrix/array/pointer element (matrix: column type)
    count: int                     # vector components, matrix columns, array length
    members: list[Type]
    storage: str                   # pointer storage class name
    stride: int | None             # ArrayStride (arrays, PhysicalStorageBuffer pointers)
    offsets: list[int | None]      # struct member Offset decorations
    mat_strides: list[int | None]  # struct member MatrixStride
    row_major: list[bool]          # struct member RowMajor
    name: str
    member_names: list[str]
    block: bool
    opname: str
    extra: dict                    # room for coopmat (scope, rows, cols, use)
    _fields = ("id", "kind", "width", "signed", "elem", "count", "members", "storage", "stride", "offsets",
               "mat_strides", "row_major", "name", "member_names", "block", "opname", "extra")
    __eq__ = object.__eq__         # compared by identity (types are made once per id)
    __hash__ = object.__hash__  # type: ignore[assignment]  # Record sets None (hash by value); types hash by id

    def __init__(self, id: int, kind: str, width: int = 0, signed: bool = False, elem: Type | None = None,
                 count: int = 0, members: list[Type] | None = None, storage: str = "", stride: int | None = None,
                 offsets: list[int | None] | None = None, mat_strides: list[int | None] | None = None,
                 row_major: list[bool] | None = None, name: str = "", member_names: list[str] | None = None,
                 block: bool = False, opname: str = "", extra: dict | None = None) -> None:
        self.id = id
        self.kind = kind
        self.width = width
        self.signed = signed
        self.elem = elem
        self.count = count
        self.members = [] if members is None else members
        self.storage = storage
        self.stride = stride
        self.offsets = [] if offsets is None else offsets
        self.mat_strides = [] if mat_strides is None else mat_strides
        self.row_major = [] if row_major is None else row_major
        self.name = name
        self.member_names = [] if member_names is None else member_names
        self.block = block
        self.opname = opname
        self.extra = {} if extra is None else extra

    # ---- classification -------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        """numpy dtype of a scalar (or of the components of a vector/matrix)."""
        t = self
        while t.kind in ("vector", "matrix", "coopmat"):
            t = t.elem  # type: ignore[assignment]
        if t.kind == "bool":
            return np.dtype(np.bool_)
        if t.kind == "float":
            enc = t.extra.get("encoding")
            if enc:
                encoded = encodings.ENCODED_FLOATS   # (imports ml_dtypes)
                if enc not in encoded or encoded[enc].itemsize * 8 != t.width:
                    raise Fault(f"{t.width}-bit floats with encoding {enc} are not supported by the interpreter")
                return encoded[enc]
            return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[t.width])
        if t.kind == "int":
            return np.dtype(f"{'i' if t.signed else 'u'}{t.width // 8}")
        if t.kind == "pointer":
            return np.dtype(np.uint64)
        raise TypeError(f"type {t.describe()} has no numpy dtype")

    @property
    def scalar(self) -> Type:
        t = self
        while t.kind in ("vector", "matrix", "coopmat"):
            t = t.elem  # type: ignore[assignment]
        return t

    def describe(self) -> str:
        if self.kind == "int":
            return f"{'i' if self.signed else 'u'}{self.width}"
        if self.kind == "float":
            enc = self.extra.get("encoding")
            return SHORT_NAMES.get(enc, f"f{self.width}") if enc else f"f{self.width}"
        elem = cast(Type, self.elem)   # read below only for kinds that always have an element type
        if self.kind == "vector":
            return f"vec{self.count}<{elem.describe()}>"
        if self.kind == "matrix":
            return f"mat{self.count}x{elem.count}<{cast(Type, elem.elem).describe()}>"
        if self.kind == "array":
            return f"{elem.describe()}[{self.count}]"
        if self.kind == "runtime_array":
            return f"{elem.describe()}[]"
        if self.kind == "struct":
            return self.name or f"struct %{self.id}"
        if self.kind == "pointer":
            return f"ptr<{self.storage}, {self.elem.describe() if self.elem else '?'}>"
        return self.kind

    # ---- layout -----------------------------------------------------------
    def scalar_size(self) -> int:
        t = self.scalar
        if t.kind == "bool":
            return 1  # bools only live in memory nobody can see
        if t.kind == "pointer":
            return 8
        return t.width // 8

    def align(self) -> int:
        if self.kind in ("array", "runtime_array", "vector", "matrix"):
            return self.elem.align()  # type: ignore[union-attr]
        if self.kind == "struct":
            return max((m.align() for m in self.members), default=1)
        if self.kind == "pointer":
            return 8
        if self.kind == "coopmat":
            return 16
        return self.scalar_size()

    def array_stride(self) -> int:
        if self.stride is not None:
            return self.stride
        e = self.elem
        size, al = e.size(), e.align()  # type: ignore[union-attr]
        return -(-size // al) * al

    def member_offset(self, i: int) -> int:
        off = self.offsets[i] if i < len(self.offsets) else None
        if off is not None:
            return off
        if "natural_offsets" not in self.extra:
            offs, cur = [], 0
            for j, m in enumerate(self.members):
                o = self.offsets[j] if j < len(self.offsets) and self.offsets[j] is not None else None
                if o is None:
                    al = m.align()
                    o = -(-cur // al) * al
                offs.append(o)
                cur = o + (m.size() if m.kind != "runtime_array" else 0)
            self.extra["natural_offsets"] = offs
        return self.extra["natural_offsets"][i]

    def member_matrix_layout(self, i: int, mtype: Type) -> tuple[int, bool]:
        """(matrix stride, row major) for a matrix (or array of matrices) member."""
        rm = self.row_major[i] if i < len(self.row_major) else False
        st = self.mat_strides[i] if i < len(self.mat_strides) else None
        return (st if st is not None else default_matrix_stride(mtype, rm)), rm

    def size(self, matrix_layout: tuple[int, bool] | None = None) -> int:
        k = self.kind
        if k in ("bool", "int", "float", "pointer"):
            return self.scalar_size()
        if k == "vector":
            return self.count * self.elem.size()  # type: ignore[union-attr]
        if k == "matrix":
            stride, rm = matrix_layout or (default_matrix_stride(self, False), False)
            col = self.elem
            if rm:
                return stride * (col.count - 1) + self.count * col.elem.size()  # type: ignore[union-attr]
            return stride * (self.count - 1) + col.size()  # type: ignore[union-attr]
        if k == "array":
            return self.array_stride() * self.count
        if k == "runtime_array":
            return 0
        if k == "struct":
            if not self.members:
                return 0
            end = 0
            for i, m in enumerate(self.members):
                ml = self.member_matrix_layout(i, m) if _has_matrix(m) else None
                end = max(end, self.member_offset(i) + (m.size(ml) if m.kind != "array" or ml is None
                                                        else m.array_stride() * m.count))
            al = self.align()
            return -(-end // al) * al
        if k == "coopmat":
            return int(self.extra.get("size", 0))
        if k in ("tensor_layout", "tensor_view"):
            raise Fault(f"a {k.replace('_', ' ')} in memory (a variable used other than by whole loads and stores, "
                        f"e.g. passed to a function by pointer) is not supported: the interpreter holds them as values")
        raise TypeError(f"type {self.describe()} has no size in memory")


def _has_matrix(t: Type) -> bool:
    while t.kind in ("array", "runtime_array"):
        t = t.elem  # type: ignore[assignment]
    return t.kind == "matrix"


def default_matrix_stride(m: Type, row_major: bool) -> int:
    while m.kind in ("array", "runtime_array"):
        m = m.elem  # type: ignore[assignment]
    col = m.elem
    if row_major:
        return m.count * col.elem.size()  # type: ignore[union-attr]
    return col.size()  # type: ignore[union-attr]


def value_shape(t: Type) -> tuple[int, ...]:
    """Per-invocation numpy shape of a value of type t (scalars (), vectors (n,), matrices (cols, rows))."""
    if t.kind == "vector":
        return (t.count,)
    if t.kind == "matrix":
        return (t.count, t.elem.count)  # type: ignore[union-attr]
    return ()

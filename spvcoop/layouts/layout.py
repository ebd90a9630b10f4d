"""One concrete layout: which logical element every (invocation, index) slot holds.

Conventions (shared with the interpreter):
* ``row[p, i]`` / ``col[p, i]`` (shape S x L, numpy int64) give the element of the
  matrix that invocation p holds as its i-th component, or -1/-1 for padding
  (a slot outside the matrix: reads give zero, writes are dropped).
* L (``length``) is the value of OpCooperativeMatrixLength and is the same for
  every invocation.
* Replication: an element may sit in several slots (RDNA3 WMMA A/B in lanes l and
  l+16, CUDA WMMA sm_80 A/B in x and x+8). A load writes the element's value into
  every copy. The copies of one element must agree whenever the logical matrix is
  read back (store, MulAdd, conversion): ``from_lanes`` raises LayoutError if one
  copy was changed (e.g. by OpCompositeInsert) and another was not.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError

# Component type names, their width in bits and their kind.
COMPONENTS: dict[str, tuple[int, str]] = {
    "f16": (16, "float"), "bf16": (16, "float"), "f32": (32, "float"), "f64": (64, "float"),
    "e4m3": (8, "float"), "e5m2": (8, "float"),   # FP8 (SPV_EXT_float8)
    "s8": (8, "sint"), "u8": (8, "uint"), "s16": (16, "sint"), "u16": (16, "uint"),
    "s32": (32, "sint"), "u32": (32, "uint"), "s64": (64, "sint"), "u64": (64, "uint"),
}
USES = ("a", "b", "acc")
_USE_ALIASES = {"a": "a", "matrixa": "a", "matrix_a": "a", "matrixakhr": "a",
                "b": "b", "matrixb": "b", "matrix_b": "b", "matrixbkhr": "b",
                "acc": "acc", "c": "acc", "accumulator": "acc", "matrixaccumulatorkhr": "acc",
                "none": None, "nv": None, "": None,
                "0": "a", "1": "b", "2": "acc"}   # the KHR CooperativeMatrixUse operand values


class LayoutError(SpvError):
    """A layout model cannot answer (type not defined) or a model file is wrong."""

    def __init__(self, message: str | Diagnostic | list, source: str = "<layout>", span=None):
        if isinstance(message, str):
            message = Diagnostic("error", message, span, source=source)
        super().__init__(message)


class UnknownModelName(LayoutError):
    """A model name that is neither built in nor a file: a usage error (exit status 2), with a "did you mean"."""
    exit_status = 2


class UnreadableModel(LayoutError):
    """A model file that cannot be read (missing, not a regular file): exit status 2, as every unreadable input."""
    exit_status = 2


def normalize_use(use: str | None) -> str | None:
    """'a'/'b'/'acc' (also 'A', 'C', 'accumulator', 'MatrixAKHR', ...) or None for NV types."""
    if use is None:
        return None
    key = str(use).strip().lower()
    if key not in _USE_ALIASES:
        from ..core.diagnostics import did_you_mean
        raise LayoutError(f"unknown use '{use}'{did_you_mean(key, [k for k in _USE_ALIASES if k])}: expected a, b, "
                          "acc or none")
    return _USE_ALIASES[key]


def component_name(kind: str, width: int, signed: bool = False, encoding: str | None = None) -> str:
    """The model's name of a scalar type: ('float', 16) -> 'f16', ('int', 8, signed=True) -> 's8',
    ('float', 16, encoding='BFloat16KHR') -> 'bf16', FP8 -> 'e4m3' / 'e5m2'. LayoutError for anything else."""
    if kind == "float" and width == 16 and encoding and "bfloat16" in encoding.lower():
        return "bf16"
    if kind == "float" and width == 8 and encoding in ("Float8E4M3EXT", "Float8E5M2EXT"):
        return "e4m3" if "E4M3" in encoding else "e5m2"
    if kind == "float" and not encoding:
        name = f"f{width}"
    elif kind == "int":
        name = f"{'s' if signed else 'u'}{width}"
    else:
        name = f"{kind}{width}" + (f" ({encoding})" if encoding else "")
    if name not in COMPONENTS:
        raise LayoutError(f"no layout component type for {name}: layout models know {', '.join(COMPONENTS)}")
    return name


def check_int(value, what: str) -> int:
    """An integer argument of the API (numpy integers too); LayoutError for anything else."""
    import operator
    if isinstance(value, bool):
        raise LayoutError(f"{what} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise LayoutError(f"{what} must be an integer, got {str(value)[:40]!r}") from None


def check_component(component: str) -> int:
    """Width in bits; LayoutError for an unknown name."""
    if not isinstance(component, str) or component not in COMPONENTS:
        from ..core.diagnostics import did_you_mean
        raise LayoutError(f"unknown component type '{component}'{did_you_mean(str(component), COMPONENTS)}; "
                          f"known: {', '.join(COMPONENTS)}")
    return COMPONENTS[component][0]


@dataclass(eq=False)
class Layout:
    """The (S, L) maps of one cooperative-matrix type under one model."""
    rows: int
    cols: int
    subgroup_size: int
    row: np.ndarray
    col: np.ndarray
    model: str = ""
    component: str = ""
    use: str | None = None
    _copies: np.ndarray | None = field(default=None, repr=False)

    @property
    def length(self) -> int:
        return int(self.row.shape[1])

    @property
    def padding(self) -> np.ndarray:
        """Boolean (S, L): True where the slot holds no element."""
        return self.row < 0

    @property
    def copies(self) -> np.ndarray:
        """(rows, cols) int array: in how many slots each element sits (>= 1 for a valid layout)."""
        if self._copies is None:
            counts = np.zeros(self.rows * self.cols, dtype=np.int64)
            mask = ~self.padding
            np.add.at(counts, self.row[mask] * self.cols + self.col[mask], 1)
            self._copies = counts.reshape(self.rows, self.cols)
        return self._copies

    @property
    def replicated(self) -> bool:
        """True when some element is held by more than one slot (see module docstring)."""
        return bool(self.copies.max(initial=0) > 1)

    @property
    def flat(self) -> np.ndarray:
        """(S, L): row-major element index row*cols+col, or -1 for padding."""
        return np.where(self.padding, -1, self.row * self.cols + self.col)

    def lanes(self) -> list[list[tuple[int, int] | None]]:
        """lanes()[p][i] = (row, col) or None for padding."""
        return [[None if r < 0 else (int(r), int(c)) for r, c in zip(rr, cc, strict=False)]
                for rr, cc in zip(self.row.tolist(), self.col.tolist(), strict=False)]

    def to_lanes(self, matrix: np.ndarray) -> np.ndarray:
        """Per-invocation view (..., S, L) of logical matrices (..., rows, cols); padding reads 0."""
        matrix = np.asarray(matrix)
        r = np.where(self.padding, 0, self.row)
        c = np.where(self.padding, 0, self.col)
        out = matrix[..., r, c]
        return np.where(self.padding, np.zeros((), matrix.dtype), out)

    def from_lanes(self, values: np.ndarray) -> np.ndarray:
        """Logical matrices (..., rows, cols) from per-invocation values (..., S, L).

        Padding slots are ignored. Replicated copies must hold equal values (NaNs
        compare equal to NaNs); otherwise LayoutError names the first element.
        """
        values = np.asarray(values)
        mask = ~self.padding
        flat = self.flat[mask]
        vals = values[..., mask]
        out = np.zeros(values.shape[:-2] + (self.rows * self.cols,), dtype=values.dtype)
        out[..., flat] = vals  # last write wins; checked below when replicated
        if self.replicated:
            back = out[..., flat]
            same = (back == vals)
            if np.issubdtype(values.dtype, np.floating):
                same |= np.isnan(back) & np.isnan(vals)
            if not np.all(same):
                bad = np.argwhere(~same)[0]
                e = int(flat[bad[-1]])
                raise LayoutError(f"replicated copies of element ({e // self.cols},{e % self.cols}) of a "
                                  f"{self.rows}x{self.cols} matrix hold different values: every invocation "
                                  f"holding a copy must write the same value")
        return out.reshape(values.shape[:-2] + (self.rows, self.cols))

    def problems(self) -> list[str]:
        """Why this is not a valid layout (empty when it is): range, padding pairs, coverage."""
        out: list[str] = []
        S = self.subgroup_size
        if self.row.shape != self.col.shape or self.row.ndim != 2 or self.row.shape[0] != S:
            return [f"row/col arrays must both have shape ({S}, L), got {self.row.shape} and {self.col.shape}"]
        if self.length < 1:
            return ["length must be at least 1"]
        half = (self.row < 0) != (self.col < 0)
        if half.any():
            p, i = np.argwhere(half)[0]
            out.append(f"invocation {p} index {i}: row and column must both be padding or both be set")
        bad = ~self.padding & ((self.row >= self.rows) | (self.col >= self.cols) | (self.col < 0))
        if bad.any():
            p, i = np.argwhere(bad)[0]
            out.append(f"invocation {p} index {i} holds ({self.row[p, i]},{self.col[p, i]}), outside the "
                       f"{self.rows}x{self.cols} matrix")
        if out:
            return out
        missing = np.argwhere(self.copies == 0)
        if len(missing):
            r, c = missing[0]
            out.append(f"element ({r},{c}) is held by no invocation ({len(missing)} element(s) uncovered)")
        return out

    def to_json(self) -> dict:
        """The `layout show --format json` object."""
        return {"model": self.model, "component": self.component, "rows": self.rows, "cols": self.cols,
                "use": self.use, "subgroup_size": self.subgroup_size, "length": self.length,
                "lanes": [[None if x is None else list(x) for x in lane] for lane in self.lanes()]}

    def same_as(self, other: Layout) -> bool:
        return (self.rows, self.cols, self.subgroup_size) == (other.rows, other.cols, other.subgroup_size) \
            and self.row.shape == other.row.shape and bool(np.array_equal(self.row, other.row)) \
            and bool(np.array_equal(self.col, other.col))

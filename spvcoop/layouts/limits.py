"""Size budgets for layout models, so that a hostile model file or command line cannot
exhaust memory or time.

The defaults cover every shipped model with a wide margin and mirror real hardware (the
largest cooperative matrices that drivers expose have a few thousand elements). Each
budget is an option of `spvcoop layout` (named in `option`), and a keyword of
`load_model` / `parse_model` via `LayoutLimits`; hitting one is an error that names it.

Fixed caps (not options: no real model comes near them) bound the syntax itself:
integers in descriptors, the nesting of formulas and CuTe layouts, and text lengths.
"""
from __future__ import annotations

from ..core.records import FrozenRecord

MAX_INT = (1 << 32) - 1      # any integer in a descriptor (strides, bases, shapes, table cells)
MAX_EXPR_CHARS = 1000        # one formula expression (the shipped ones are under 80)
MAX_EXPR_DEPTH = 64          # nesting of a formula's syntax tree (the shipped ones reach 8)
MAX_CUTE_CHARS = 1000        # one CuTe layout string
MAX_CUTE_DEPTH = 8           # parentheses in a CuTe layout (real ones nest 3 deep)
MAX_LINEAR_BASES = 24        # register or lane bases of a linear layout (2^24 slots)
MAX_ENTRIES = 1024           # entries of one model (the shipped ones have at most a few dozen)
MAX_NAMES = 64               # `let` constants of an entry, `vars` of a formula
MAX_WHEN_EVALS = 50_000      # 'when' / 'let' evaluations while matching types in one model (shipped: < 2000)
MAX_LIST = 64                # values in an entry's rows / cols / subgroup_size list
MAX_ENUMERATED_TYPES = 4096  # concrete types a model's entries may list (layout list / diff), and examples


# A plain record, not a dataclass: every command's parser reads the defaults, and `spvcoop --help` should not pay
# for generating a dataclass (records.py)
class LayoutLimits(FrozenRecord):
    """Budgets for one model; raise them with the options named in each field's comment."""
    __slots__ = ("max_dim", "max_elements", "max_subgroup", "max_output", "max_model_bytes")
    _fields = __slots__
    max_dim: int              # rows and cols of a matrix (--max-dim)
    max_elements: int         # rows * cols; a layout's S * L slots may be twice that (--max-elements)
    max_subgroup: int         # invocations per subgroup (--max-subgroup)
    max_output: int           # bytes of a rendered table / JSON / SVG / HTML (--max-output)
    max_model_bytes: int      # a model file (--max-model-bytes); the shipped ones are under 20 KB

    def __init__(self, max_dim: int = 4096, max_elements: int = 1 << 16, max_subgroup: int = 1024,
                 max_output: int = 64 << 20, max_model_bytes: int = 256 << 10) -> None:
        values = (max_dim, max_elements, max_subgroup, max_output, max_model_bytes)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    @property
    def max_slots(self) -> int:
        """S * L: room for padding and one replicated copy of every element."""
        return 2 * self.max_elements

    @property
    def max_built_slots(self) -> int:
        """Slots one model may build in all (load-time checks, list, diff, a run): bounds the time."""
        return 32 * self.max_slots

    def check_type(self, rows: int, cols: int, S: int) -> str | None:
        """Why a (rows, cols, S) is out of budget, or None."""
        if not (0 < rows <= self.max_dim and 0 < cols <= self.max_dim):
            return (f"{rows}x{cols} is outside rows, cols 1..{self.max_dim} (the limit --max-dim, "
                    f"max_dim in LayoutLimits)")
        if rows * cols > self.max_elements:
            return (f"{rows}x{cols} has {rows * cols} elements, more than the limit of {self.max_elements} "
                    f"(raise it with --max-elements, max_elements in LayoutLimits)")
        if not 0 < S <= self.max_subgroup:
            return (f"subgroup size {S} is outside 1..{self.max_subgroup} (the limit --max-subgroup, "
                    f"max_subgroup in LayoutLimits)")
        return None

    def slots_error(self, S: int, L: int) -> str | None:
        """Why S invocations of length L are out of budget (checked before allocating), or None."""
        if self.max_slots < S * L:
            return (f"{S} invocations x length {L} = {S * L} slots, more than the limit of {self.max_slots} "
                    f"(twice --max-elements; max_elements in LayoutLimits)")
        return None


DEFAULT_LIMITS = LayoutLimits()

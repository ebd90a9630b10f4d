"""Value representation: what an SSA value of each type looks like.

- scalar: numpy array of shape (N,) (or (1,) for constants, broadcast on use)
- vector: (N, n); matrix: (N, columns, rows)
- struct and array: a tuple of member values
- pointer: memory.Pointer
- anything else (e.g. a cooperative matrix held per subgroup, shape (subgroups, rows, cols))
  is an object with `masked_select(mask, other)`, so phis and masked results work on it.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from .fault import Fault
from .memory import Pointer
from .dispatch import Dispatcher
from .types import Type, value_shape


def select(mask: np.ndarray, new, old):
    """Per invocation: new where mask, else old."""
    if isinstance(new, np.ndarray):
        old = np.asarray(old)
        nd = max(new.ndim, old.ndim)
        return np.where(mask.reshape((-1,) + (1,) * (nd - 1)), new, old)
    if isinstance(new, tuple):
        return tuple(select(mask, a, b) for a, b in zip(new, old, strict=False))
    if isinstance(new, Pointer):
        if new.mem is not old.mem:
            if not mask.any():
                return old
            if mask.all():
                return new
            raise Fault("a pointer chooses between different variables per invocation (variable pointers "
                        "are not supported)")
        base = new.base if isinstance(new.base, int) and isinstance(old.base, int) and new.base == old.base \
            else select(mask, np.asarray(new.base), np.asarray(old.base))
        return Pointer(new.mem, select(mask, new.off, old.off), new.type, base, new.matrix, new.vstride)
    if hasattr(new, "masked_select"):
        return new.masked_select(mask, old)
    return new


def zeros(t: Type, hooks: Dispatcher, n: int = 1):
    """The null value of a type (OpConstantNull, OpUndef); `hooks` knows the kinds other families add."""
    if t.kind in ("bool", "int", "float", "vector", "matrix"):
        return np.zeros((n,) + value_shape(t), dtype=t.dtype)
    if t.kind == "array":
        return tuple(zeros(cast(Type, t.elem), hooks, n) for _ in range(t.count))
    if t.kind == "struct":
        return tuple(zeros(m, hooks, n) for m in t.members)
    if t.kind == "pointer":
        return None
    kind = hooks.kind(t.kind)
    if kind is not None:
        return kind.zeros(t, n)
    raise Fault(f"no null value for type {t.describe()}")


ARRAY_OVERHEAD = 112  # bytes of a numpy array object around its data


def value_bytes(t: Type, n: int) -> int:
    """Roughly what a value of type t for n invocations occupies (arrays and structs are tuples of values):
    checked against the memory budget before a null value or an aggregate load is built."""
    k = t.kind
    if k in ("bool", "int", "float", "vector", "matrix"):
        return ARRAY_OVERHEAD + n * max(t.size(), 1)
    if k == "array":
        return t.count * (8 + value_bytes(cast(Type, t.elem), n))
    if k == "struct":
        return sum(8 + value_bytes(m, n) for m in t.members)
    return ARRAY_OVERHEAD


def lane(value, i: int):
    """The value one invocation sees (for --trace and error messages)."""
    if isinstance(value, np.ndarray):
        v = value[i if value.shape[0] > 1 else 0]
        return v.tolist()
    if isinstance(value, tuple):
        return [lane(v, i) for v in value]
    if isinstance(value, Pointer):
        off = value.off[i if np.ndim(value.off) and value.off.shape[0] > 1 else 0]
        return f"&{value.mem.name}+{int(off)}"
    from .memory import Register, RegisterView
    if isinstance(value, Register):
        return f"&{value.name}"
    if isinstance(value, RegisterView):
        return f"&{value.reg.name}" + "".join(f"[{j if isinstance(j, int) else int(np.broadcast_to(j, (i + 1,))[i])}]"
                                             for j in value.indices)
    return repr(value)

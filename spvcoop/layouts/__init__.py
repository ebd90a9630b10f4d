"""Layout models: which invocation holds which element of a cooperative matrix.

    >>> from spvcoop.layouts import load_model
    >>> lay = load_model("nvidia").layout("f16", 16, 16, "a")
    >>> lay.length, lay.lanes()[0][:2]
    (8, [(0, 0), (0, 1)])

Component names: f16, bf16, f32, f64 (floats), s8, s16, s32, s64 (signed ints),
u8, u16, u32, u64 (unsigned ints). Uses: "a", "b", "acc" (KHR) or None (NV
types, which have no use). See layout.py for padding and replication semantics.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_getattr

if TYPE_CHECKING:
    from .layout import COMPONENTS, USES, Layout, LayoutError, component_name, normalize_use
    from .model import LayoutModel, builtin_models, load_model, parse_model

__all__ = ["COMPONENTS", "USES", "Layout", "LayoutError", "LayoutModel", "builtin_models", "component_name",
           "load_model",
           "normalize_use", "parse_model"]

# Loaded on first use: `spvcoop.layouts.limits` (the size limits the CLI's flags declare) must not pull in numpy.
__getattr__ = lazy_getattr(__name__, {**dict.fromkeys(("COMPONENTS", "USES", "Layout", "LayoutError", "component_name",
                                                       "normalize_use"), ".layout"),
                                      **dict.fromkeys(("LayoutModel", "builtin_models", "load_model", "parse_model"),
                                                      ".model")})

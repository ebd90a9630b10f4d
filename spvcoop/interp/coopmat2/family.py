"""The coopmat2 family as the dispatcher sees it."""
from __future__ import annotations

from ..dispatch import Family
from . import math, memory, tensor

FAMILY = Family("coopmat2", (tensor.OPS, memory.OPS, math.OPS), kinds=(tensor.LAYOUT_HOOKS, tensor.VIEW_HOOKS))

"""The coopmat family as the dispatcher sees it."""
from __future__ import annotations

from ..dispatch import Family
from . import math, memory, values

FAMILY = Family("coopmat", (values.OPS, math.OPS, memory.OPS), kinds=(values.HOOKS,))

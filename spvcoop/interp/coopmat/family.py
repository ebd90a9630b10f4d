"""The coopmat family as the dispatcher sees it."""
from __future__ import annotations

from ..dispatch import Family
from . import math, memory, qcom, values

FAMILY = Family("coopmat", (values.OPS, math.OPS, memory.OPS, qcom.OPS), kinds=(values.HOOKS,))

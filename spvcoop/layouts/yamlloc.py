"""Located YAML for layout models: a re-export of spvcoop.core.yamlio, the project's one YAML reader
(alias, nesting, size and integer budgets; LDict/LList carry the marks that errors point at)."""
from __future__ import annotations

from ..core.yamlio import LDict, LList, load_yaml, mark_at, span_of

__all__ = ["LDict", "LList", "load_yaml", "mark_at", "span_of"]

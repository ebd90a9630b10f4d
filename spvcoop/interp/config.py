"""The settings of one run, checked once: what `Executor` is constructed with. Its fields are the run
options declared in options.py (one declaration each) and the layout model the runner resolved."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..core.diagnostics import Diagnostic, SpvError
from ..core.records import FrozenRecord
from .options import (BY_NAME, COOP_NUMERICS, DEFAULT_MAX_MEMORY, DEFAULT_MAX_TIME, DEFAULT_MAX_WORK,  # noqa: F401
                      MAX_SUBGROUP_SIZE, OPTIONS, unknown_keyword)


class ConfigError(SpvError, ValueError):
    """A run setting out of range (a usage error: catch it as SpvError or ValueError)."""

    def __init__(self, message: str):
        super().__init__(Diagnostic("error", message, source="<run>"))


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class RunConfig(FrozenRecord):
    """One field per run option (options.OPTIONS: defaults, bounds and meaning) plus `layout_model`: the
    spvcoop.layouts LayoutModel that `layout` names, or None (the built-in defaults). `subgroup_size` is
    resolved here, in one place: given, else the layout model's default, else 32."""
    _fields = ("layout_model",) + tuple(o.name for o in OPTIONS)

    if TYPE_CHECKING:  # the option fields are set from OPTIONS, so a checker cannot list them
        def __getattr__(self, name: str) -> Any: ...

    def __init__(self, layout_model: object | None = None, **options) -> None:
        layout = options.get("layout")
        if layout_model is None and isinstance(layout, (str, os.PathLike)):
            from ..layouts import load_model   # only for a named model: most runs have no cooperative matrices
            layout_model = load_model(str(layout))
        elif layout_model is None and layout is not None:
            layout_model = layout
        object.__setattr__(self, "layout_model", layout_model)
        for key in options:
            if key not in BY_NAME:
                raise unknown_keyword(key, "RunConfig()")
        for o in OPTIONS:
            value = options.get(o.name)
            try:
                value = o.convert(value)
            except ValueError as e:
                raise ConfigError(str(e)) from None
            object.__setattr__(self, o.name, o.default if value is None else value)
        if self.subgroup_size is None:
            default = getattr(layout_model, "default_subgroup_size", None)
            object.__setattr__(self, "subgroup_size", default or 32)

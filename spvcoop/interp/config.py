"""The settings of one run, checked once: what `Executor` is constructed with."""
from __future__ import annotations

import numbers
from typing import TextIO
from collections.abc import Callable

from ..core.diagnostics import Diagnostic, SpvError
from ..core.records import FrozenRecord

COOP_NUMERICS = ("ieee", "nvidia-tensorcore")  # cooperative-matrix MulAdd rounding (docs/interpreter-coopmat.md)

MAX_SUBGROUP_SIZE = 128  # Vulkan's largest (VkPhysicalDeviceSubgroupSizeControlProperties)

# Executed instructions (all invocations of the dispatch together: one step per instruction). The largest
# sample, test or benchmark takes 2,918 steps (tests/glsl/interp/control_flow.comp; the 512^3 GEMM 1,328);
# a step costs 5-80 us (80 for a loop of cooperative-matrix loads and MulAdds: the fuzzing campaign's
# endless GEMM loop took 16 s to reach 200,000), so an endless loop stops within about 4 s.
DEFAULT_MAX_STEPS = 50_000
# Work: executed instructions times the invocations they run for (an upper bound on the
# numpy element operations). saxpy over 2^20 invocations takes 25 M, the 2^20 shared-memory reduction
# 222 M; numpy does 60-200 M a second, so the default stops a huge dispatch within seconds.
DEFAULT_MAX_WORK = 1 << 29
# Bytes a run may allocate: dispatch state, buffers, Workgroup/Private/Function variables, null values.
DEFAULT_MAX_MEMORY = 2 << 30



class ConfigError(SpvError, ValueError):
    """A run setting out of range (a usage error: catch it as SpvError or ValueError)."""

    def __init__(self, message: str):
        super().__init__(Diagnostic("error", message, source="<run>"))


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class RunConfig(FrozenRecord):
    """subgroup_size: lanes per subgroup (a power of two); layout_model: a spvcoop.layouts LayoutModel or
    None (the built-in defaults); coop_numerics: one of COOP_NUMERICS or a
    numerics.model.MulAddModel (a fitted model, `--coop-numerics FILE.yaml`); max_steps: executed-instruction
    limit; max_work: executed instructions x invocations of the dispatch; max_memory: allocation budget
    in bytes, checked before allocating; trace: the invocation to print a trace for (its index, or its global id
    (x, y, z)); trace_out: where the trace goes (None: stdout); progress: called with the step count at the first branch
    at or past each multiple of 1024 steps;
    fast_paths: compiled blocks (interp/block_compiler.py; the SPVCOOP_NO_FAST_PATHS environment variable also
    turns them off)."""
    subgroup_size: int = 32
    layout_model: object | None = None
    coop_numerics: object = "ieee"
    max_steps: int = DEFAULT_MAX_STEPS
    max_memory: int = DEFAULT_MAX_MEMORY
    max_work: int = DEFAULT_MAX_WORK
    trace: int | tuple[int, ...] | None = None
    trace_out: TextIO | None = None
    progress: Callable | None = None
    fast_paths: bool = True   # False: every instruction through the plain path (block_compiler.py)
    _fields = ("subgroup_size", "layout_model", "coop_numerics", "max_steps", "max_memory", "max_work", "trace",
               "trace_out", "progress", "fast_paths")

    def __init__(self, subgroup_size: int = 32, layout_model: object | None = None, coop_numerics: object = "ieee",
                 max_steps: int = DEFAULT_MAX_STEPS, max_memory: int = DEFAULT_MAX_MEMORY,
                 max_work: int = DEFAULT_MAX_WORK, trace: int | tuple[int, ...] | None = None,
                 trace_out: TextIO | None = None, progress: Callable | None = None, fast_paths: bool = True) -> None:
        for name, value in zip(self._fields, (subgroup_size, layout_model, coop_numerics, max_steps, max_memory,
                                              max_work, trace, trace_out, progress, fast_paths), strict=False):
            object.__setattr__(self, name, value)
        self._check()

    def _check(self) -> None:
        S = self.subgroup_size
        if not _is_int(S) or S < 1 or S & (S - 1) or S > MAX_SUBGROUP_SIZE:
            raise ConfigError(f"subgroup size {S!r} must be a power of two from 1 to {MAX_SUBGROUP_SIZE}")
        if not (isinstance(self.coop_numerics, str) and self.coop_numerics in COOP_NUMERICS) \
                and not isinstance(self.coop_numerics, _mul_add_model()):
            raise ConfigError(f"unknown coop_numerics {self.coop_numerics!r} (known: {', '.join(COOP_NUMERICS)})")
        if not _is_int(self.max_steps) or self.max_steps < 1:
            raise ConfigError(f"max_steps {self.max_steps!r} must be a positive integer")
        if not _is_int(self.max_work) or self.max_work < 1:
            raise ConfigError(f"max_work {self.max_work!r} must be a positive integer")
        if not _is_int(self.max_memory) or self.max_memory < 1:
            raise ConfigError(f"max_memory {self.max_memory!r} must be a positive number of bytes")
        t = self.trace
        if t is not None and not (_is_int(t) or isinstance(t, tuple) and 1 <= len(t) <= 3 and all(map(_is_int, t))):
            raise ConfigError(f"trace {t!r} must be an invocation index or a global invocation id (x, y, z)")


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _mul_add_model() -> type:
    from ..numerics.model import MulAddModel   # only for a fitted model: the built-in names need no numerics
    return MulAddModel

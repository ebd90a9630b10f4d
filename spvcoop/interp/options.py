"""The run options, each declared once: name, default, check (with its bound), help, CLI flag, run-spec key.

Everything else is derived from `OPTIONS`: `RunConfig`'s fields and checks (config.py), the keyword arguments
`run()` accepts, the `spvcoop run` / `spvcoop portability` flags (commands/run.py), the pytest fixture's
arguments (it passes them to run()), and the run-spec keys with their plain and pydantic checks (runspec/).
Adding an option is one `RunOption` here plus its implementation where the executor uses it.

A check takes a Python value (or, for numbers, the text a flag or a YAML string gives: "100M", "90s") and
returns the value the run uses, or raises ValueError with the reason (no option name: callers add it).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from ..core.records import FrozenRecord

COOP_NUMERICS = ("ieee", "nvidia-tensorcore")  # cooperative-matrix MulAdd rounding (docs/interpreter-coopmat.md)
MAX_SUBGROUP_SIZE = 128  # Vulkan's largest (VkPhysicalDeviceSubgroupSizeControlProperties)
MAX_COUNT = 2**63 - 1

# The default limit is time, not steps (issue 22): a step costs 5 us to several ms (a loop of cooperative-matrix
# MulAdds, a numpy operation over 2^20 invocations), so no step count both lets a minute-long kernel finish and
# stops an endless loop soon. The deadline is checked where progress is reported (every 1024 steps).
DEFAULT_MAX_TIME = 60.0
# Work: executed instructions times the invocations they run for (an upper bound on the numpy element
# operations). saxpy over 2^20 invocations takes 25 M, the 2^20 shared-memory reduction 222 M; numpy does
# 60-200 M a second, so the default stops a huge dispatch within seconds.
DEFAULT_MAX_WORK = 1 << 29
# Bytes a run may allocate: dispatch state, buffers, Workgroup/Private/Function variables, null values.
DEFAULT_MAX_MEMORY = 2 << 30

_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_TIME_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def count(v) -> int:
    """A positive integer; text may end in K, M, G or T (binary multiples, as the byte limits): '100M'."""
    if isinstance(v, str):
        t = v.strip().replace("_", "").upper().removesuffix("B")
        scale = _UNITS.get(t[-1:], 1)
        digits = t[:-1] if t[-1:] in _UNITS else t
        if not digits.isdigit() or len(digits) > 19:
            raise ValueError(f"expected a positive integer, optionally with K, M, G or T (e.g. 100M), got '{v}'")
        v = int(digits) * scale
    if not _is_int(v) or not 1 <= v <= MAX_COUNT:
        raise ValueError(f"must be a positive integer, got {v!r}")
    return int(v)


def seconds(v) -> float:
    """A positive number of seconds; text may end in s, m or h: '90', '1.5m'."""
    if isinstance(v, str):
        t = v.strip().lower()
        scale = _TIME_UNITS.get(t[-1:], 1.0)
        try:
            v = float(t[:-1] if t[-1:] in _TIME_UNITS else t) * scale
        except ValueError:
            raise ValueError(f"expected seconds, optionally with s, m or h (e.g. 90s, 2m), got '{v}'") from None
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v <= 0:
        raise ValueError(f"must be a positive number of seconds, got {v!r}")
    return float(v)


def subgroup_size(v) -> int:
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v)
    if not _is_int(v) or v < 1 or v & (v - 1) or v > MAX_SUBGROUP_SIZE:
        raise ValueError(f"must be a power of two from 1 to {MAX_SUBGROUP_SIZE}, got {v!r}")
    return int(v)


def name(v) -> str:
    if not isinstance(v, str) or not 1 <= len(v) <= 4096:
        raise ValueError(f"must be a name, got {v!r}")
    return v


def flag(v) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"must be True or False, got {v!r}")
    return v


def fast_paths(v) -> bool | frozenset[str]:
    """True, False, or fast path names (a collection, or text separated by commas or spaces): fastpaths.py."""
    from .fastpaths import choice
    return choice(v)


def target_env(v) -> str:
    """A target environment as spirv-val names it (validator.TARGET_ENVS)."""
    from ..validator import TARGET_ENVS   # only when one is given: a run that validates loads it anyway
    if not isinstance(v, str) or v not in TARGET_ENVS:
        from ..core.diagnostics import did_you_mean
        hint = did_you_mean(v, list(TARGET_ENVS)) if isinstance(v, str) else ""
        raise ValueError(f"must be a target environment ({', '.join(TARGET_ENVS)}), got {_shown(v)}{hint}")
    return v


def spirv_val_options(v) -> tuple[str, ...]:
    """spirv-val's own flags and limits, those `spvcoop val` passes on (core.reference_tools.PASS_THROUGH_*): a
    list, or text separated by commas or spaces ('allow-localsizeid,scalar-block-layout'); the leading '--' may be
    left out, so that a flag's value does not look like another flag on the command line."""
    if isinstance(v, str):
        items = v.replace(",", " ").split()
    elif isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
        items = list(v)
    else:
        raise ValueError(f"must be a list of spirv-val options, got {_shown(v)}")
    from ..core.reference_tools import check_options
    return tuple(check_options([x if x.startswith("--") or x.isdigit() else "--" + x for x in items]))


def _shown(v) -> str:
    """A value for a message, cut short (it may come from a hostile spec)."""
    import reprlib
    return reprlib.repr(v)


def on_off(v) -> bool:
    """True or False; text on/off, true/false, yes/no, 1/0 (a flag whose default depends on the input)."""
    if isinstance(v, str):
        t = v.strip().lower()
        if t in ("on", "true", "yes", "1"):
            return True
        if t in ("off", "false", "no", "0"):
            return False
        raise ValueError(f"must be on or off, got '{v}'")
    return flag(v)


RACE_REPORTS = ("full", "summary")


def race_report(v) -> str:
    if v not in RACE_REPORTS:
        raise ValueError(f"must be one of {', '.join(RACE_REPORTS)}, got {v!r}")
    return v


def race_suppressions(v) -> tuple[tuple[str, int], ...]:
    """Races not to report, each a variable and a source line: 'VAR:LINE' (text: comma-separated), a
    {variable: VAR, line: LINE} mapping, or a (VAR, LINE) pair; a list of them."""
    if isinstance(v, str):
        v = [x for x in v.split(",") if x.strip()]
    if not isinstance(v, (list, tuple)) or len(v) > 10_000:
        raise ValueError(f"must be a list of VARIABLE:LINE entries, got {v!r}")
    out = []
    for item in v:
        var: object
        line: object
        if isinstance(item, str) and ":" in item:
            var, _, line = item.strip().rpartition(":")
        elif isinstance(item, dict) and set(item) == {"variable", "line"}:
            var, line = item["variable"], item["line"]
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            var, line = item
        else:
            raise ValueError(f"wants VARIABLE:LINE or {{variable: NAME, line: N}} entries, got {item!r}")
        if isinstance(line, str) and line.strip().isdigit():
            line = int(line)
        if not isinstance(var, str) or not 1 <= len(var) <= 4096 or not _is_int(line) \
                or not 1 <= int(line) < 1 << 31:  # type: ignore[call-overload]
            raise ValueError(f"wants a variable name and a positive line number, got {item!r}")
        out.append((var, int(line)))  # type: ignore[call-overload]
    return tuple(out)


def trace(v) -> int | tuple[int, ...]:
    """An invocation: its index in the dispatch, or its global id (x, y, z); text '5' or '1,2,0'."""
    if isinstance(v, str):
        try:
            parts = [int(x) for x in v.split(",")]
        except ValueError:
            raise ValueError(f"wants an invocation index or X,Y,Z, got '{v}'") from None
        v = parts[0] if len(parts) == 1 else tuple(parts)
    if isinstance(v, list):
        v = tuple(v)
    if _is_int(v) or isinstance(v, tuple) and 1 <= len(v) <= 3 and all(map(_is_int, v)):
        return v
    raise ValueError(f"{v!r} must be an invocation index or a global invocation id (x, y, z)")


def coop_numerics(v):
    """A built-in rounding name, a fitted numerics.model.MulAddModel, or the .yaml file of one."""
    if isinstance(v, str) and v in COOP_NUMERICS:
        return v
    if isinstance(v, str) and v.endswith((".yaml", ".yml")):
        from ..numerics.fit import load_model_file   # only for a model file: the built-in names need no numerics
        return load_model_file(v)
    from ..numerics.model import MulAddModel
    if isinstance(v, MulAddModel):
        return v
    raise ValueError(f"unknown coop_numerics {v!r} (known: {', '.join(COOP_NUMERICS)}, or a .yaml model file "
                     "written by `spvcoop numerics measure`)")


def layout(v):
    """A layout model's name, its .yaml file or a spvcoop.layouts LayoutModel (loaded by the runner)."""
    import os
    if isinstance(v, (str, os.PathLike)) or hasattr(v, "default_subgroup_size"):
        return v
    raise ValueError(f"must be a layout model name, a .yaml file or a LayoutModel, got {v!r}")


def stream(v):
    """Where text lines go: a text stream (with write) or a callable taking each line."""
    if not (callable(v) or callable(getattr(v, "write", None))):
        raise ValueError(f"must be a text stream (with write) or a callable, got {type(v).__name__}")
    return v


def callback(v):
    if not callable(v):
        raise ValueError(f"must be a callable, got {type(v).__name__}")
    return v


def observer(v):
    """An interp.observe.Observer (the step loop's hook: coverage, the debugger); checked by its methods, as
    observe.py sits above this module."""
    if not all(callable(getattr(v, m, None)) for m in ("attach", "block", "instruction", "branch", "enter", "leave")):
        raise ValueError(f"must be a spvcoop.interp.observe.Observer, got {type(v).__name__}")
    return v


class RunOption(FrozenRecord):
    """One run option. `check` converts and bounds a value (None is always allowed: it means the default);
    `flag` is its command-line flag (None: Python API only), `spec_key` its run-spec key (None: none);
    `cli_false`: the flag is a negation (`--no-validate` sets validate=False); `switch`: the flag takes no value
    and turns the option on (`--nonfinite` sets nonfinite=True; its default is False); every other flag takes a
    value; `api_type`: the type of its keyword in `spvcoop.run()`'s signature, as written there (spvcoop/api.py's
    keywords are generated from these declarations by tools/gen_docs.py; a name it uses that api.py does not import
    yet goes in api.py's imports)."""
    name: str
    default: object
    check: Callable
    help: str
    flag: str | None
    spec_key: str | None
    metavar: str | None
    cli_false: bool
    api_type: str | None
    switch: bool
    _fields = ("name", "default", "check", "help", "flag", "spec_key", "metavar", "cli_false", "api_type", "switch")

    def __init__(self, name: str, default: object, check: Callable, help: str, flag: str | None = None,
                 spec_key: str | None = None, metavar: str | None = None, cli_false: bool = False, *,
                 api_type: str | None = None, switch: bool = False) -> None:
        if switch and (cli_false or metavar is not None or default is not False or flag is None):
            raise ValueError(f"run option {name}: a switch has a flag, no metavar, default False and is no negation")
        values = (name, default, check, help, flag, spec_key, metavar, cli_false, api_type, switch)
        for f, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, f, value)

    def convert(self, value):
        """The checked value (None: None); ValueError naming the option otherwise."""
        if value is None:
            return None
        try:
            return self.check(value)
        except ValueError as e:
            raise ValueError(f"{self.name} {e}") from None


OPTIONS: tuple[RunOption, ...] = (
    RunOption("entry_point", None, name, "entry point to run (default: the first GLCompute one)",
              "--entry-point", "entry_point", "NAME",
              api_type="str | None"),
    RunOption("subgroup_size", None, subgroup_size,
              "lanes per subgroup, a power of two up to 128 (default: the layout model's, else 32)",
              "--subgroup-size", "subgroup_size", "N",
              api_type="int | None"),
    RunOption("layout", None, layout,
              "cooperative-matrix layout model: a name (`spvcoop layout list`), a .yaml file or a LayoutModel "
              "(default: nvidia where it defines the type, else striped)", "--layout", None, "MODEL|FILE.yaml",
              api_type="str | os.PathLike[str] | LayoutModel | None"),
    RunOption("coop_numerics", "ieee", coop_numerics,
              "cooperative-matrix MulAdd rounding: ieee (products exact, f32 sums, one rounding; default), "
              "nvidia-tensorcore (bit-identical to an H100 for f16 and bf16 inputs) or a model file written by "
              "`spvcoop numerics measure`", "--coop-numerics", None, "ieee|nvidia-tensorcore|FILE.yaml",
              api_type="str | MulAddModel"),
    RunOption("max_time", DEFAULT_MAX_TIME, seconds,
              f"stop with an error after this many seconds of execution (default {DEFAULT_MAX_TIME:g}; an "
              "endless loop stops by itself; suffixes s, m, h)", "--max-time", "max_time", "SECONDS",
              api_type="float | str"),
    RunOption("max_steps", None, count,
              "stop with an error after N executed instructions, a limit that does not depend on the "
              "machine (default: none; suffixes K, M, G)", "--max-steps", "max_steps", "N",
              api_type="int | str | None"),
    RunOption("max_work", DEFAULT_MAX_WORK, count,
              "stop with an error once executed instructions x invocations pass N (default 512M: a few seconds "
              "of numpy; saxpy over 2^20 invocations needs 25M; suffixes K, M, G; shared among the models of "
              "--layout all)", "--max-work", "max_work", "N",
              api_type="int | str"),
    RunOption("max_memory", DEFAULT_MAX_MEMORY, count,
              "memory budget in bytes for the dispatch's state, buffers and variables, checked before allocating "
              "(default 2G; suffixes K, M, G)", "--max-memory", "max_memory", "BYTES",
              api_type="int | str"),
    RunOption("validate", True, flag, "validate the module first (--no-validate: run without)",
              "--no-validate", None, None, cli_false=True,
              api_type="bool"),
    RunOption("target_env", None, target_env,
              "the environment the module is validated for before the run, by our rules and spirv-val, as "
              "`spvcoop val --target-env` (default: the Vulkan version of the module's SPIR-V version: vulkan1.3 "
              "for 1.6)", "--target-env", "target_env", "ENV",
              api_type="str | None"),
    RunOption("spirv_val_options", (), spirv_val_options,
              "spirv-val options naming the device features the run assumes, passed to the validation before the "
              "run as `spvcoop val` passes them: allow-localsizeid (maintenance4), scalar-block-layout, "
              "workgroup-scalar-block-layout, uniform-buffer-standard-layout, relax-block-layout, max-id-bound=N, "
              "...; comma-separated on the command line, a list in a run spec", "--spirv-val-options",
              "spirv_val_options", "OPT[,OPT...]",
              api_type="Sequence[str] | str"),
    RunOption("trace", None, trace,
              "print each instruction executed by this invocation, with its result: a linear index in the "
              "dispatch (workgroup by workgroup) or a global invocation id X,Y,Z", "--trace", None, "INVOCATION",
              api_type="int | tuple[int, ...] | str | None"),
    RunOption("trace_out", None, stream,
              "where trace lines go: a text stream or a callable taking each line (default: RunResult.trace, "
              "a list; the library never writes to the terminal itself)",
              api_type="IO[str] | Callable[[str], object] | None"),
    RunOption("progress", None, callback,
              "called with the step count at the first branch at or past each multiple of 1024 steps",
              api_type="Callable[[int], object] | None"),
    RunOption("observer", None, observer,
              "an interp.observe.Observer called at every block, instruction, branch and call (line coverage, "
              "the debugger); the run then takes the instruction-at-a-time path",
              api_type="Observer | None"),
    RunOption("races", True, flag,
              "report data races: conflicting accesses to workgroup or storage-buffer memory by invocations "
              "that no barrier or atomic orders, each an error (rule interp.race; --no-races: off)",
              "--no-races", "races", None, cli_false=True,
              api_type="bool"),
    RunOption("nonfinite", False, flag,
              "report the first instruction that makes an inf or NaN from finite operands (an f16 accumulator that "
              "overflows, a 0/0) as the run's error (rule interp.nonfinite), at its source line with its operands; "
              "the run then takes the instruction-at-a-time path", "--nonfinite", "nonfinite", api_type="bool",
              switch=True),
    RunOption("robust_buffer_access", False, on_off,
              "Vulkan's robustBufferAccess: a load outside its storage/uniform buffer or push constants reads zero "
              "and a store there is dropped, instead of an error (default: on for Amber scripts, as the CTS runs "
              "them; off otherwise)", "--robust-buffer-access", "robust_buffer_access", "on|off",
              api_type="bool | str"),
    RunOption("races_report", "full", race_report,
              "how data races are reported: full (each pair of instructions with both invocations; default) or "
              "summary (one error: N races on M variables, worst first)", "--races", "races_report", "full|summary",
              api_type="str"),
    RunOption("races_suppress", None, race_suppressions,
              "known data races not to report: VARIABLE:LINE entries (a race on that variable, its name as the "
              "report gives it, with either access at that source line: the module's, or the GLSL line of a .comp "
              "or a -g build); they are counted in a note", "--suppress-races", "races_suppress",
              "VAR:LINE[,VAR:LINE...]", api_type="Sequence[Any] | str | None"),
    RunOption("fast_paths", True, fast_paths,
              "the fast paths: True all, False none, or the names of those to take (docs/fast-paths.md lists "
              "them); the same bytes, steps and errors as without them. The environment turns them off too: "
              "SPVCOOP_NO_FAST_PATHS=1 all, SPVCOOP_NO_FAST_<NAME>=1 one (SPVCOOP_NO_FAST_TENSOR, say)",
              api_type="bool | Collection[str]"),
)
BY_NAME: dict[str, RunOption] = {o.name: o for o in OPTIONS}
SPEC_KEYS: dict[str, RunOption] = {o.spec_key: o for o in OPTIONS if o.spec_key}


def unknown_keyword(key: str, where: str = "run()") -> TypeError:
    from ..core.diagnostics import did_you_mean
    return TypeError(f"{where} got an unexpected keyword argument '{key}'{did_you_mean(key, list(BY_NAME))}")


def resolve(*layers: dict) -> dict:
    """The options in force: for each, the first layer (e.g. command line, then run spec) that gives it a
    value other than None; options no layer gives are left out (their defaults apply)."""
    out: dict = {}
    for layer in layers:
        for k, v in layer.items():
            if v is not None and k not in out:
                if k not in BY_NAME:
                    raise unknown_keyword(k)
                out[k] = v
    return out


def describe() -> str:
    """The options as a docstring section (run()'s keyword arguments)."""
    return "\n".join(f"    {o.name} (default {o.default!r}): {o.help}" for o in OPTIONS)

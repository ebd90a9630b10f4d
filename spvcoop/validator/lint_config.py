"""Lint settings from a configuration file: `[tool.spvcoop.lint]` in a `pyproject.toml`, or `[lint]` in an
`spvcoop.toml`, the nearest one found from the linted file's directory upward (as ruff finds its settings;
in one directory `spvcoop.toml` wins, and a `pyproject.toml` without the table is passed over).

Keys: select, ignore, per-file-ignores (glob relative to the file's directory -> codes), target-env, profile,
spirv-val-options (spirv-val's own flags, the ones spirv_val.PASS_THROUGH lists), werror,
report-unused-suppressions.

Trust: `lint` runs on pull requests, whose trees may carry a configuration file. So a configuration can only
name files in its own directory tree: a `profile` path is taken relative to the file's directory and refused
when it resolves (links followed) outside it; there is no `extend` or include of other files; spirv-val options
are checked against the known list (no free-form arguments reach the subprocess). Configuration files are
opened like inputs (regular files only, size-bounded, core.files.open_input): a FIFO named pyproject.toml
cannot block the lint. Errors are `FILE:LINE:COL: error: ...` (exit 2).
"""
from __future__ import annotations

import os
import re
from typing import Any

from ..core.diagnostics import Diagnostic, InputError
from ..core.module import Span
from ..core.records import FrozenRecord

CONFIG_FILES = ("spvcoop.toml", "pyproject.toml")  # in this order within one directory
KEYS = ("select", "ignore", "per-file-ignores", "target-env", "profile", "spirv-val-options", "werror",
        "report-unused-suppressions")
MAX_CONFIG_BYTES = 1 << 20


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class LintConfig(FrozenRecord):
    """Settings read from one configuration file (None: not set there)."""
    __slots__ = _fields = ("path", "select", "ignore", "per_file_ignores", "target_env", "profile",
                           "spirv_val_options", "werror", "report_unused")
    path: str | None
    select: tuple[str, ...] | None
    ignore: tuple[str, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    target_env: str | None
    profile: str | None          # a built-in name, or an absolute path inside the file's directory
    spirv_val_options: tuple[str, ...]
    werror: bool | None
    report_unused: bool | None

    def __init__(self, path: str | None = None, select: tuple[str, ...] | None = None, ignore: tuple[str, ...] = (),
                 per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = (), target_env: str | None = None,
                 profile: str | None = None, spirv_val_options: tuple[str, ...] = (), werror: bool | None = None,
                 report_unused: bool | None = None) -> None:
        for k, v in zip(self._fields, (path, select, ignore, per_file_ignores, target_env, profile,
                                       spirv_val_options, werror, report_unused), strict=True):
            object.__setattr__(self, k, v)


NO_CONFIG = LintConfig()


def _error(path: str, message: str, span: Span | None = None) -> InputError:
    return InputError(Diagnostic("error", message, span, source=path))


def _read(path: str) -> str:
    from ..core.files import read_input
    data = read_input(path, MAX_CONFIG_BYTES, "a smaller configuration file", root=os.path.dirname(path) or ".")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _error(path, f"not UTF-8 text (byte {e.start})") from None


def _table(path: str, text: str) -> dict[str, Any] | None:
    """The lint table of a configuration file's text, or None where a pyproject.toml has none."""
    import tomllib
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)$", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)$", "", str(e)) or "invalid TOML"
        span = Span(int(m.group(1)), int(m.group(2))) if m else None
        raise _error(path, f"invalid TOML: {msg}", span) from None
    if os.path.basename(path).endswith("pyproject.toml"):
        table: Any = doc
        for key in ("tool", "spvcoop", "lint"):
            table = table.get(key) if isinstance(table, dict) else None
        where = "[tool.spvcoop.lint]"
    else:
        table = doc.get("lint", {})
        where = "[lint]"
    if table is None:
        return None
    if not isinstance(table, dict):
        raise _error(path, f"{where} must be a table")
    return table


def _key_span(text: str, key: str) -> Span | None:
    """Where `key` is written (its first line), for located messages."""
    m = re.search(rf'^[ \t]*"?({re.escape(key)})"?[ \t]*=', text, re.M)
    if m is None:
        return None
    line = text.count("\n", 0, m.start(1)) + 1
    col = m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1) + 1
    return Span(line, col, col + len(key))


def _codes(path: str, text: str, key: str, value: Any) -> tuple[str, ...]:
    from .selection import check_codes
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _error(path, f"'{key}' must be a list of rule ids or prefixes", _key_span(text, key))
    try:
        return tuple(check_codes(value, key))
    except ValueError as e:
        raise _error(path, str(e), _key_span(text, key)) from None


def parse_config(path: str, text: str, table: dict[str, Any]) -> LintConfig:
    """A LintConfig from the lint table of the file at `path` (whose text is `text`); raises InputError."""
    from . import TARGET_ENVS
    from ..core.diagnostics import did_you_mean
    from .spirv_val import check_options
    base = os.path.dirname(os.path.abspath(path))
    out: dict[str, Any] = {"path": path}
    for key, value in table.items():
        span = _key_span(text, key)
        if key not in KEYS:
            raise _error(path, f"unknown setting '{key}'{did_you_mean(key, KEYS)}; known: {', '.join(KEYS)}", span)
        if key in ("select", "ignore"):
            out[key] = _codes(path, text, key, value)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise _error(path, "'per-file-ignores' must be a table of glob pattern = [rule ids]", span)
            out["per_file_ignores"] = tuple((str(p), _codes(path, text, p, v)) for p, v in value.items())
        elif key == "target-env":
            if value not in TARGET_ENVS:
                raise _error(path, f"unknown target environment '{value}'{did_you_mean(str(value), TARGET_ENVS)}; "
                             f"one of: {', '.join(TARGET_ENVS)}", span)
            out["target_env"] = value
        elif key == "profile":
            out["profile"] = _profile(path, base, value, span)
        elif key == "spirv-val-options":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _error(path, "'spirv-val-options' must be a list of spirv-val flags", span)
            try:
                out["spirv_val_options"] = tuple(check_options(value))
            except ValueError as e:
                raise _error(path, str(e), span) from None
        else:  # werror, report-unused-suppressions
            if not isinstance(value, bool):
                raise _error(path, f"'{key}' must be true or false", span)
            out["werror" if key == "werror" else "report_unused"] = value
    return LintConfig(**out)


def _profile(path: str, base: str, value: Any, span: Span | None) -> str:
    """A built-in profile's name as it is; a file's path made absolute, and refused outside `base`."""
    from ..core.files import inside
    if not isinstance(value, str) or not value or "\0" in value:
        raise _error(path, "'profile' must be a built-in profile name or a .yaml file", span)
    if not value.endswith((".yaml", ".yml")) and "/" not in value:
        return value
    full = os.path.join(base, value)
    if not inside(full, base):
        raise _error(path, f"profile '{value}' is outside '{base}': a configuration file may only name files in its "
                     "own directory tree", span)
    return full


class Finder:
    """Finds and reads the configuration for each linted path, once per directory."""

    def __init__(self) -> None:
        self._by_dir: dict[str, LintConfig] = {}

    def for_path(self, path: str) -> LintConfig:
        """The settings of the nearest configuration file above `path` (NO_CONFIG where none)."""
        start = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        walked = []
        d = start
        found = NO_CONFIG
        while True:
            if d in self._by_dir:
                found = self._by_dir[d]
                break
            walked.append(d)
            hit = self._in_dir(d)
            if hit is not None:
                found = hit
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        for w in walked:
            self._by_dir[w] = found
        return found

    def _in_dir(self, d: str) -> LintConfig | None:
        for name in CONFIG_FILES:
            p = os.path.join(d, name)
            if not os.path.lexists(p):
                continue
            text = _read(p)
            table = _table(p, text)
            if table is not None:
                return parse_config(p, text, table)
        return None


def load_explicit(path: str) -> LintConfig:
    """`--config FILE`: that file's settings (a pyproject.toml's [tool.spvcoop.lint]; any other name: [lint])."""
    text = _read(path)
    table = _table(path, text)
    if table is None:
        raise _error(path, "no [tool.spvcoop.lint] table in this file")
    return parse_config(path, text, table)

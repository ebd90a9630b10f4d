"""Argument checks of the public Python functions (spvcoop.assemble, .validate, .run, ...).

A wrong type deep inside would surface as an AttributeError or TypeError from some inner frame, naming
nothing the caller wrote. `arg_error` returns the TypeError (or ValueError) naming the parameter; the public
function raises it itself, so the traceback ends in the function the caller called.
"""
from __future__ import annotations

import math
import operator
import os
from collections.abc import Callable, Iterable, Mapping
from numbers import Real
from typing import Any


def _is_int(v: Any) -> bool:
    if _is_bool(v):
        return False
    try:
        operator.index(v)  # ints, numpy integers and 0-d integer arrays (an array of more has __index__ too)
    except TypeError:
        return False
    return True


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool) or type(v).__name__ in ("bool_", "bool")  # numpy's bool too


def _is_module(v: Any) -> bool:
    from .module import Module
    return isinstance(v, Module)


def _is_dispatch(v: Any) -> bool:
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
        return False
    try:
        items = list(v)
    except TypeError:
        return False
    return 1 <= len(items) <= 3 and all(_is_int(x) for x in items)


def _is_trace(v: Any) -> bool:
    return _is_int(v) or (isinstance(v, (tuple, list)) and 1 <= len(v) <= 3 and all(_is_int(x) for x in v))


def _is_named(v: Any, *class_names: str) -> bool:
    """An instance of one of these classes (by name: checking must not import the layout or numerics code)."""
    return any(c.__name__ in class_names for c in type(v).__mro__)


# kind -> (test, what the message says the value must be)
KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a str"),
    "bool": (_is_bool, "a bool"),
    "int": (_is_int, "an int"),
    "real": (lambda v: isinstance(v, Real) and not _is_bool(v), "a number"),
    "mapping": (lambda v: isinstance(v, Mapping), "a dict"),
    "bytes": (lambda v: isinstance(v, (bytes, bytearray, memoryview)), "bytes"),
    "module": (_is_module, "a spvcoop.Module"),
    "shader": (lambda v: isinstance(v, (str, bytes, os.PathLike)) or _is_module(v) or _is_named(v, "Program"),
               "a path, assembly text, SPIR-V bytes or a spvcoop.Module"),
    "dispatch": (_is_dispatch, "a sequence of 1 to 3 ints"),
    "trace": (_is_trace, "an int (linear invocation index) or a tuple of 1 to 3 ints (global invocation id)"),
    "callable": (callable, "a callable"),
    "stream": (lambda v: callable(v) or callable(getattr(v, "write", None)), "a stream (with write) or a callable"),
    "path": (lambda v: isinstance(v, (str, os.PathLike)), "a str or path"),
    "layout": (lambda v: isinstance(v, (str, os.PathLike)) or _is_named(v, "LayoutModel"),
               "a layout model name, a .yaml path or a LayoutModel"),
    "numerics": (lambda v: isinstance(v, (str, os.PathLike)) or _is_named(v, "MulAddModel"),
                 "'ieee', 'nvidia-tensorcore', a numerics .yaml path or a MulAddModel"),
    "profile": (lambda v: isinstance(v, (str, os.PathLike)) or _is_named(v, "Profile"),
                "a device profile name, a .yaml path or a Profile"),
}


def arg_error(function: str, checks: Iterable[tuple[str, Any, str]]) -> Exception | None:
    """The error for the first argument of `function` that is not of its kind, or None.
    checks: (parameter, value, kind); a kind ending in '?' also accepts None."""
    for name, value, kind in checks:
        optional = kind.endswith("?")
        if optional and value is None:
            continue
        test, what = KINDS[kind.rstrip("?")]
        if not test(value):
            return TypeError(f"{function}() argument '{name}' must be {what}{' or None' if optional else ''}, "
                             f"not {type(value).__name__}")
    return None


def buffer_keys_error(function: str, buffers: Any) -> Exception | None:
    """A key of run()'s `buffers` that can name no buffer: a name or "set:binding" (str), a binding number of set 0
    or a (set, binding) pair of ints from 0 to 2^32-1 are keys; anything else is a TypeError, an int out of range or a
    tuple of another length a ValueError, naming the parameter."""
    if not isinstance(buffers, Mapping):
        return None
    for k in buffers:
        if isinstance(k, str):
            continue
        parts = k if isinstance(k, tuple) else (k,)
        if not isinstance(k, tuple) and not _is_int(k):
            return TypeError(f"{function}() argument 'buffers' must have keys that are names, 'set:binding', binding "
                             f"numbers or (set, binding) tuples of ints, not {type(k).__name__}")
        if len(parts) not in (1, 2) or (isinstance(k, tuple) and len(k) != 2) or \
                not all(_is_int(x) and 0 <= int(x) < 2**32 for x in parts):
            return ValueError(f"{function}() argument 'buffers' has the key {k!r}: a binding number or a (set, "
                              "binding) tuple of two ints, each from 0 to 2^32-1")
    return None


def seconds_error(function: str, name: str, value: Any) -> Exception | None:
    """A time limit: a number of seconds above 0 (inf: no limit)."""
    err = arg_error(function, ((name, value, "real"),))
    if err is None and (math.isnan(value) or value <= 0):
        return ValueError(f"{function}() argument '{name}' must be a number of seconds above 0 (inf: no "
                          f"limit), not {value!r}")
    return err

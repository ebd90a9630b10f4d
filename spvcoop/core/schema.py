"""Schema violations (pydantic) as located diagnostics.

Run specs, expectation files and device profiles are declared as pydantic models and read with
spvcoop.core.yamlio, whose mappings and lists remember where each node came from; this turns each
violation's location path back into file:line:col, with one message per violation, all at once.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

if TYPE_CHECKING:  # pydantic is imported by the schemas themselves, only where one is checked
    from pydantic import ValidationError

from .diagnostics import Diagnostic, SpvError, did_you_mean
from .yamlio import mark_at, span_of


def short(v, n: int = 40) -> str:
    """A value for a message: short, never a whole mapping or list."""
    if isinstance(v, (dict, list)):
        return "a mapping" if isinstance(v, dict) else "a list"
    r = repr(v)
    return r if len(r) <= n else r[:n] + "..."


_MESSAGES = {"int_type": "expected an integer", "float_type": "expected a number", "string_type": "expected a string",
             "dict_type": "expected a mapping", "list_type": "expected a list", "model_type": "expected a mapping",
             "bool_type": "expected true or false", "missing": "is required", "literal_error": None}


def schema_errors(e: ValidationError, root, source: str, prefix: tuple = (),
                  keys_of: Callable[[Any, Any, list], list[str]] | None = None) -> SpvError:
    """Each pydantic error as a Diagnostic at the file:line:col of its YAML node (all of them).
    keys_of(node, root, path) lists the keys a mapping may have, for 'did you mean'."""
    diags = []
    seen = set()
    for err in e.errors(include_url=False):
        loc = prefix + tuple(err["loc"])
        real = [p for p in loc if not (isinstance(p, str) and p.startswith("<") and p.endswith(">"))
                and p != "[key]" and not str(p).startswith(("function-", "list[", "dict["))]
        kind = err["type"]
        path = _path_text(root, real)
        if kind == "extra_forbidden":
            parent = mark_at(root, real[:-1])
            node = _walk(root, real[:-1])
            key = real[-1]
            mark = getattr(node, "name_marks", {}).get(key, parent)
            choices = keys_of(node, root, real[:-1]) if keys_of else []
            msg = f"unknown key '{key}'" + (f" in {'.'.join(map(str, real[:-1]))}" if real[:-1] else "") + \
                did_you_mean(str(key), choices)
        else:
            mark = mark_at(root, real)
            if kind == "missing":
                msg = f"'{real[-1]}' is required" if real else "is required"
                mark = mark_at(root, real[:-1])
            else:
                ctx = err.get("ctx", {})
                base = _MESSAGES.get(kind) or {
                    "less_than_equal": f"must be at most {ctx.get('le')}",
                    "greater_than_equal": f"must be at least {ctx.get('ge')}",
                    "too_short": f"needs at least {ctx.get('min_length')} item(s)",
                    "too_long": f"takes at most {ctx.get('max_length')} item(s)",
                    "literal_error": f"must be one of {ctx.get('expected')}"}.get(kind) or err["msg"]
                if kind in ("value_error", "assertion_error"):
                    base = str(err.get("ctx", {}).get("error", err["msg"]))
                got = err.get("input")
                tail = "" if kind in ("value_error",) or isinstance(got, (dict, list)) or got is None and \
                    kind == "missing" else f" (got {short(got)})"
                msg = f"{path}: {base}{tail}"
        if (msg, str(mark)) in seen:
            continue
        seen.add((msg, str(mark)))
        diags.append(Diagnostic("error", msg, span_of(mark), source=source))
    diags.sort(key=lambda d: (d.span.line, d.span.col) if d.span else (0, 0))
    return SpvError(diags)


def _path_text(root, path) -> str:
    """buffers.x.shape[0]: list indexes in brackets, mapping keys after dots."""
    out, node = "", root
    for p in path:
        if isinstance(node, list) and isinstance(p, int):
            out += f"[{p}]"
            node = node[p] if 0 <= p < len(node) else None
        else:
            out += f".{p}"
            node = node.get(p) if isinstance(node, dict) else None
    return out.lstrip(".") or "(top level)"


def _walk(root, path):
    node = root
    for p in path:
        if isinstance(node, dict) and p in node or isinstance(node, list) and isinstance(p, int) and 0 <= p < len(node):
            node = node[p]
    return node

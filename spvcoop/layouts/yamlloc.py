"""YAML loading that remembers where every mapping, sequence and scalar came from.

Errors in a layout model must name the file and line, so the safe loader is
extended to build `LDict`/`LList` (a dict/list with `.mark` and the marks of
each key/item). Only YAML's safe tags are accepted.
"""
from __future__ import annotations

from typing import Any

import yaml

from ..diagnostics import Diagnostic, SpvError
from ..module import Span


class LDict(dict):
    """A dict with `mark` (its own position) and `key_marks[key]` (each key's position)."""
    mark: Any = None
    key_marks: dict


class LList(list):
    """A list with `mark` and `item_marks[i]`."""
    mark: Any = None
    item_marks: list


class _Loader(yaml.SafeLoader):
    pass


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> LDict:
    loader.flatten_mapping(node)
    d = LDict()
    d.mark = node.start_mark
    d.key_marks = {}
    for knode, vnode in node.value:
        key = loader.construct_object(knode, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(None, None, "unhashable key", knode.start_mark) from None
        if key in d:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", knode.start_mark)
        d[key] = loader.construct_object(vnode, deep=True)
        d.key_marks[key] = vnode.start_mark
    return d


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> LList:
    out = LList(loader.construct_object(c, deep=True) for c in node.value)
    out.mark = node.start_mark
    out.item_marks = [c.start_mark for c in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


def span_of(mark) -> Span | None:
    """yaml marks are 0-based; Span is 1-based."""
    if mark is None:
        return None
    return Span(mark.line + 1, mark.column + 1, mark.column + 2)


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML text; syntax errors become SpvError at file:line:col."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader derives from SafeLoader
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        msg = " ".join(x for x in (e.context, e.problem) if x) or "invalid YAML"
        raise SpvError(Diagnostic("error", f"invalid YAML: {msg}", span_of(mark), source=source)) from None
    except yaml.YAMLError as e:
        raise SpvError(Diagnostic("error", f"invalid YAML: {e}", source=source)) from None

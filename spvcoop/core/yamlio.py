"""The one YAML (and JSON) reader of spvcoop: located values, bounded work.

Every YAML file the project reads (run specs, input and expectation files, layout models, device
profiles) goes through `load_yaml`, so every one of them gets the same protections:

- the text is capped in size and must be UTF-8 (a bad byte is reported at its line and column);
- collections nested deeper than `max_depth` are refused before the scanner gets slow: libyaml's
  scanner costs O(tokens x flow depth), so 100,000 nested `[` would take about a minute;
- aliases are counted as they are composed: the alias-expanded size of the document may exceed its
  number of distinct nodes by at most `max_alias_nodes` ("billion laughs": a 600-byte file must not
  become a value that takes gigabytes wherever it is used or printed); recursive aliases are refused;
- integer literals longer than `max_int_chars` are refused (Python refuses more than 4300 digits
  anyway, with a ValueError, and 2^64 needs 20).

Values come back as plain Python objects, with mappings and sequences as `LDict`/`LList`, which carry
the marks (0-based line/column) of themselves, their keys and their items, so that a schema error can
point at the offending node (`mark_at`).

Composition is done here from libyaml's event stream (yaml.CSafeLoader when PyYAML has libyaml,
the pure-Python SafeLoader otherwise), iteratively, so no input can cause a RecursionError. Scalars
are built by PyYAML's SafeConstructor (YAML 1.1 safe tags only).

Long flow lists of plain numbers (`[0.5, -1.25, 3, ...]`, e.g. a buffer of a million floats) are read
in one go (numlists.py): each is checked byte-wise against the plain number forms that YAML 1.1
reads as int or float, converted with numpy, and blanked out of the text (its newlines kept, and its last line as
spaces, so every other mark stays where it was) before libyaml parses the rest; the empty list it then sees at that
place
is filled with the values. Anything the fast path does not accept is left to the general path, and
the whole document is parsed again the general way if a blanked list was not where it was expected
(inside a quoted scalar, say) or the parse failed (so errors are the general path's, at their place).
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, cast

import yaml

from .diagnostics import Diagnostic, InputError, SpvError
from .files import open_input, read_bounded
from .module import Span
from .numlists import FAST_MIN_CHARS, numeric_flows
from .records import FrozenRecord

MiB = 1 << 20


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class YamlLimits(FrozenRecord):
    """Budgets for one YAML/JSON document. Defaults protect a CI machine; the environment variables
    SPVCOOP_YAML_MAX_BYTES, SPVCOOP_YAML_MAX_ALIAS_NODES and SPVCOOP_YAML_MAX_DEPTH raise them."""
    max_bytes: int
    max_alias_nodes: int
    max_depth: int
    max_int_chars: int
    _fields = ("max_bytes", "max_alias_nodes", "max_depth", "max_int_chars")

    def __init__(self, max_bytes: int = 64 * MiB, max_alias_nodes: int = 100_000, max_depth: int = 200,
                 max_int_chars: int = 100) -> None:
        object.__setattr__(self, "max_bytes", max_bytes)
        object.__setattr__(self, "max_alias_nodes", max_alias_nodes)
        object.__setattr__(self, "max_depth", max_depth)
        object.__setattr__(self, "max_int_chars", max_int_chars)

    @staticmethod
    def default() -> YamlLimits:
        return YamlLimits(max_bytes=_env_int("SPVCOOP_YAML_MAX_BYTES", 64 * MiB),
                          max_alias_nodes=_env_int("SPVCOOP_YAML_MAX_ALIAS_NODES", 100_000),
                          max_depth=_env_int("SPVCOOP_YAML_MAX_DEPTH", 200))


class LDict(dict):
    """A dict with `mark` (its own position), `key_marks[key]` (the position of each key's value) and
    `name_marks[key]` (the position of the key itself). The empty key may repeat (SPIRV-Interpreter names each
    unnamed struct member ''): the dict holds the first, `unnamed` every one in order as (value, value mark,
    key mark); any other repeated key is an error."""
    mark: Any = None
    key_marks: dict
    name_marks: dict
    unnamed: list

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.key_marks = {}
        self.name_marks = {}
        self.unnamed = []


class LList(list):
    """A list with `mark` and `item_marks[i]`; a long flow list of plain numbers also keeps them as one
    numpy array in `array` (int64 when all are integers, float64 when all have a decimal point)."""
    mark: Any = None
    item_marks: list
    array: Any = None

    def __init__(self, *args):
        super().__init__(*args)
        self.item_marks = []


def span_of(mark) -> Span | None:
    """yaml marks are 0-based; Span is 1-based."""
    if mark is None:
        return None
    return Span(mark.line + 1, mark.column + 1, mark.column + 2)


def error_at(message: str, source: str, mark=None) -> SpvError:
    return SpvError(Diagnostic("error", message, span_of(mark), source=source))


def mark_at(root, path) -> Any:
    """The mark of the node that `path` (keys and indexes, e.g. a pydantic error's `loc`) leads to from
    `root`; steps that name nothing in the data (union tags, '[key]') are skipped, so the result is
    the deepest node the path reaches."""
    node, mark = root, getattr(root, "mark", None)
    for step in path:
        if isinstance(node, dict):
            key = step if step in node else _same_key(node, step)
            if key is not _MISSING:
                mark = getattr(node, "key_marks", {}).get(key, mark)
                node = node[key]
            continue
        if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            marks = getattr(node, "item_marks", [])
            mark = marks[step] if step < len(marks) else mark
            node = node[step]
    return mark


_MISSING = object()


def _same_key(d: dict, step):
    for k in d:
        if str(k) == str(step):
            return k
    return _MISSING


# ---- reading files ----------------------------------------------------------------------------
def read_bytes(path: str | os.PathLike, source: str | None = None, max_bytes: int = 64 * MiB,
               what: str = "file", mark=None, mark_source: str | None = None) -> bytes:
    """A regular file's bytes, refused (SpvError) when it is not a regular file or is over max_bytes:
    devices such as /dev/zero would otherwise be read until memory runs out. Errors name the file,
    never its contents; with `mark`, they are located at that node of `mark_source`."""
    source = source or str(path)
    where = mark_source or source
    prefix = "" if mark_source is None else f"{what} '{source}': "

    def fail(msg: str) -> SpvError:
        if mark is None:  # the file itself was named (on the command line, or from Python): unreadable input, 2
            return InputError(Diagnostic("error", prefix + msg, None, source=where))
        return error_at(prefix + msg, where, mark)
    try:
        try:
            f = open_input(str(path))  # never blocks on a FIFO: refused like any non-regular file
        except InputError as e:  # its reason: the kind of file, or a link refused and why
            raise fail(e.diagnostics[0].message) from None
        with f:
            st = os.fstat(f.fileno())
            if st.st_size > max_bytes:
                raise fail(f"{what} of {st.st_size} bytes is over the size limit of {max_bytes} bytes")
            data = read_bounded(f, max_bytes)
    except IsADirectoryError:
        raise fail("not a regular file") from None
    except OSError as e:
        raise fail(f"cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:  # grew while we read it
        raise fail(f"{what} is over the size limit of {max_bytes} bytes")
    return data


def decode_utf8(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is dropped); a bad byte is a located error that does not echo the text."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        off = e.start
        line = data.count(b"\n", 0, off)
        col = off - (data.rfind(b"\n", 0, off) + 1)
        raise SpvError(Diagnostic("error", f"not UTF-8 text (byte 0x{data[off]:02x} at offset {off})",
                                  Span(line + 1, col + 1, col + 2), source=source)) from None


def load_file(path: str | os.PathLike, source: str | None = None, limits: YamlLimits | None = None,
              as_json: bool | None = None) -> Any:
    """Read and parse a YAML file, or a JSON file (by its .json suffix, or as_json=True)."""
    limits = limits or YamlLimits.default()
    source = source or str(path)
    data = read_bytes(path, source, limits.max_bytes)
    if as_json or (as_json is None and str(path).lower().endswith(".json")):
        return load_json(data, source, limits)
    return load_yaml(data, source, limits)


# ---- YAML -------------------------------------------------------------------------------------
_MAP_TAGS = (None, "!", "tag:yaml.org,2002:map")
_SEQ_TAGS = (None, "!", "tag:yaml.org,2002:seq")
_INT_TAG = "tag:yaml.org,2002:int"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_VALUE_TAG = "tag:yaml.org,2002:value"


class _PyLoader(yaml.SafeLoader):
    """Pure-Python fallback, with the flow-depth limit checked in the scanner itself."""
    max_flow_depth = 200

    def fetch_flow_collection_start(self, TokenClass):
        if self.flow_level >= self.max_flow_depth:
            raise yaml.scanner.ScannerError(None, None, f"collections nested deeper than {self.max_flow_depth} "
                                            "levels (limit SPVCOOP_YAML_MAX_DEPTH)", self.get_mark())
        super().fetch_flow_collection_start(TokenClass)


_CLoader: type[yaml.CSafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_COMMENT = re.compile(r"(?:^|(?<=\s))#[^\n]*", re.M)


def _flow_depth_bound(text: str, limit: int) -> bool:
    """True when the flow nesting of `text` certainly stays within `limit` (then libyaml is safe to use).

    With no quote characters, brackets outside comments are either real flow indicators or part of
    block plain scalars (which never sit inside a flow collection), so a running count of openers
    minus closers, floored at zero, bounds the real depth from above. With quotes, a bracket may be
    quoted text, and only the total number of openers is a safe bound."""
    openers = text.count("[") + text.count("{")
    if openers <= limit:
        return True
    if '"' in text or "'" in text:
        return False
    import numpy as np
    stripped = _COMMENT.sub("", text) if "#" in text else text
    b = np.frombuffer(stripped.encode("utf-8"), np.uint8)
    step = np.zeros(len(b), np.int32)
    step[(b == 0x5B) | (b == 0x7B)] = 1
    step[(b == 0x5D) | (b == 0x7D)] = -1
    s = np.cumsum(step)
    depth = s - np.minimum(np.minimum.accumulate(s), 0)
    return int(depth.max(initial=0)) <= limit


_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_PLAIN_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?")


class _Composer:
    """Values from parser events, iteratively, counting nodes and alias expansion."""

    def __init__(self, loader, source: str, limits: YamlLimits, fast: dict | None = None):
        self.loader = loader
        self.source = source
        self.limits = limits
        self.anchors: dict[str, tuple[Any, int] | None] = {}   # None: still being composed
        self.distinct = 0
        self.expanded = 0
        self.fast = fast or {}      # (line, column) of a blanked numeric list's ']' -> its values
        self.filled = 0

    def fail(self, msg: str, mark) -> SpvError:
        return error_at(f"invalid YAML: {msg}", self.source, mark)

    def scalar(self, ev) -> Any:
        tag = ev.tag
        if tag is None and ev.style is None:
            # fast path for plain decimal numbers (long numeric lists): the same values the YAML 1.1
            # resolver and SafeConstructor give, without building a node
            v = ev.value
            if len(v) <= 20 and _PLAIN_INT.fullmatch(v):
                return int(v)
            if len(v) <= 40 and _PLAIN_FLOAT.fullmatch(v):
                return float(v)
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, ev.value, ev.implicit)
        if tag == _INT_TAG and len(ev.value) > self.limits.max_int_chars:
            raise self.fail(f"integer literal of {len(ev.value)} characters (limit {self.limits.max_int_chars})",
                            ev.start_mark)
        if tag == _VALUE_TAG:  # a lone '=' (YAML 1.1's value key): SafeConstructor has no constructor for it
            return ev.value
        if tag == _MERGE_TAG:
            return _Merge()
        node = yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, ev.style)
        ctor = self.loader.yaml_constructors.get(tag) or self.loader.yaml_constructors[None]
        return ctor(self.loader, node)

    def compose(self) -> Any:
        get = self.loader.get_event
        get()  # StreamStart
        ev = get()
        if isinstance(ev, yaml.StreamEndEvent):
            return None
        root = self.document(get)
        ev = get()
        if not isinstance(ev, yaml.StreamEndEvent):
            raise self.fail("expected a single document, found another", ev.start_mark)
        return root

    def document(self, get) -> Any:
        # stack entries: [container, anchor, pending key, its mark, expanded size so far, merge sources]
        stack: list[list] = []
        limits = self.limits
        result = _MISSING
        while True:
            ev = get()
            cls = type(ev)
            if cls is yaml.DocumentEndEvent:
                return result
            size = 1
            anchor = getattr(ev, "anchor", None)
            if cls is yaml.ScalarEvent:
                self.distinct += 1
                self.expanded += 1
                value = self.scalar(ev)
            elif cls is yaml.AliasEvent:
                target = self.anchors.get(ev.anchor, _MISSING)
                if target is _MISSING:
                    raise self.fail(f"undefined alias '*{ev.anchor}'", ev.start_mark)
                if target is None:
                    raise self.fail(f"recursive alias '*{ev.anchor}' (it refers to a collection that contains it)",
                                    ev.start_mark)
                value, size = cast("tuple[Any, int]", target)
                self.expanded += size
                if self.expanded - self.distinct > limits.max_alias_nodes:
                    raise error_at(f"YAML aliases expand this document past {limits.max_alias_nodes} extra nodes "
                                   "(limit SPVCOOP_YAML_MAX_ALIAS_NODES)", self.source, ev.start_mark)
                anchor = None
            elif cls is yaml.SequenceStartEvent or cls is yaml.MappingStartEvent:
                self.distinct += 1
                self.expanded += 1
                if len(stack) >= limits.max_depth:
                    raise error_at(f"YAML collections nested deeper than {limits.max_depth} levels "
                                   "(limit SPVCOOP_YAML_MAX_DEPTH)", self.source, ev.start_mark)
                seq = cls is yaml.SequenceStartEvent
                if ev.tag not in (_SEQ_TAGS if seq else _MAP_TAGS):
                    raise self.fail(f"unsupported tag '{ev.tag}' on a {'sequence' if seq else 'mapping'}",
                                    ev.start_mark)
                c = LList() if seq else LDict()
                c.mark = ev.start_mark
                if anchor is not None:
                    self.anchors[anchor] = None
                stack.append([c, anchor, _MISSING, None, 1, []])
                continue
            elif cls is yaml.SequenceEndEvent or cls is yaml.MappingEndEvent:
                c, anchor, _, _, size, merges = stack.pop()
                if merges:
                    self.merge(c, merges)
                fast = self.fast.pop((ev.start_mark.line, ev.start_mark.column), None) \
                    if self.fast and cls is yaml.SequenceEndEvent else None
                if fast is not None:
                    if c:   # pragma: no cover - the blanked list cannot have items
                        raise yaml.YAMLError("a blanked numeric list has items")
                    values, c.array, c.item_marks = fast
                    c.extend(values)
                    n = len(values)   # counted as the general path counts its scalars
                    self.distinct += n
                    self.expanded += n
                    size += n
                    self.filled += 1
                value = c
            else:  # pragma: no cover - the parser emits nothing else inside a document
                raise self.fail(f"unexpected {cls.__name__}", ev.start_mark)
            if anchor is not None:
                self.anchors[anchor] = (value, size)
            if cls is yaml.ScalarEvent:
                mark = ev.start_mark
                if ev.style in ("'", '"') and getattr(mark, "buffer", None) is None:
                    # libyaml's marks have no buffer: keep the opening quote where a reader of the
                    # mark (layouts/model.py) looks for it, so columns inside the scalar come out right
                    mark = yaml.Mark(self.source, mark.index, mark.line, mark.column, ev.style, 0)
            elif cls is yaml.AliasEvent:
                mark = ev.start_mark
            else:
                mark = value.mark
            if not stack:
                result = "<<" if isinstance(value, _Merge) else value
                continue
            top = stack[-1]
            top[4] += size
            c = top[0]
            if isinstance(value, _Merge) and (type(c) is LList or top[2] is not _MISSING):
                value = "<<"  # '<<' is a merge key only as a key
            if type(c) is LList:
                c.append(value)
                c.item_marks.append(mark)
            elif top[2] is _MISSING:  # a key
                if isinstance(value, (dict, list)):
                    raise self.fail("a mapping or sequence as a mapping key is not supported", mark)
                top[2], top[3] = value, mark
            else:
                key, kmark = top[2], top[3]
                top[2] = _MISSING
                if isinstance(key, _Merge):
                    top[5].append((value, mark))
                    continue
                if key == "":
                    c.unnamed.append((value, mark, kmark))
                    if key in c:
                        continue
                elif key in c:
                    raise self.fail(f"duplicate key '{key}'", kmark)
                c[key] = value
                c.key_marks[key] = mark
                c.name_marks[key] = kmark

    def merge(self, c: LDict, merges) -> None:
        """YAML 1.1 merge keys (`<<: *base`): keys of the mapping itself win, then earlier sources."""
        for value, mark in merges:
            sources = value if isinstance(value, list) else [value]
            for s in sources:
                if not isinstance(s, dict):
                    raise self.fail("a merge key '<<' needs a mapping or a list of mappings", mark)
                for k, v in s.items():
                    if k not in c:
                        c[k] = v
                        c.key_marks[k] = getattr(s, "key_marks", {}).get(k, mark)
                        c.name_marks[k] = getattr(s, "name_marks", {}).get(k, mark)


class _Merge:
    """The key `<<`."""

    def __hash__(self) -> int:
        return id(self)


def load_yaml(text: str | bytes, source: str, limits: YamlLimits | None = None) -> Any:
    """Parse one YAML document into LDict/LList/scalars; every problem is an SpvError at file:line:col."""
    limits = limits or YamlLimits.default()
    if isinstance(text, bytes):
        if len(text) > limits.max_bytes:
            raise error_at(f"YAML of {len(text)} bytes is over the size limit of {limits.max_bytes} bytes "
                           "(limit SPVCOOP_YAML_MAX_BYTES)", source)
        text = decode_utf8(text, source)
    elif len(text) > limits.max_bytes:
        raise error_at(f"YAML of {len(text)} characters is over the size limit of {limits.max_bytes} bytes "
                       "(limit SPVCOOP_YAML_MAX_BYTES)", source)
    c_ok = _CLoader is not None and _flow_depth_bound(text, limits.max_depth)
    if c_ok and len(text) > FAST_MIN_CHARS:
        blanked, fast = numeric_flows(text, source)
        if fast:
            expected = len(fast)
            loader = cast("type[yaml.CSafeLoader]", _CLoader)(blanked)  # c_ok: not None
            try:
                composer = _Composer(loader, source, limits, fast)
                value = composer.compose()
                if composer.filled == expected:
                    return value
            except (yaml.YAMLError, SpvError):
                pass   # the general path below reports it, at its place in the real text
            finally:
                loader.dispose()
    return _compose(text, source, limits, c_ok)


def _compose(text: str, source: str, limits: YamlLimits, c_ok: bool) -> Any:
    loader: yaml.CSafeLoader | _PyLoader | None = None
    try:
        if c_ok:
            loader = cast("type[yaml.CSafeLoader]", _CLoader)(text)  # c_ok: not None
        else:
            loader = _PyLoader(text)   # its reader refuses unprintable characters here already
            loader.max_flow_depth = limits.max_depth
        return _Composer(loader, source, limits).compose()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        msg = " ".join(x for x in (e.context, e.problem) if x) or "invalid YAML"
        if "nested deeper" in msg:
            raise error_at(f"YAML {msg}", source, mark) from None
        raise error_at(f"invalid YAML: {msg}", source, mark) from None
    except yaml.YAMLError as e:
        raise error_at(f"invalid YAML: {e}", source) from None
    finally:
        dispose = getattr(loader, "dispose", None)
        if dispose is not None:
            dispose()


# ---- JSON -------------------------------------------------------------------------------------
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def load_json(text: str | bytes, source: str, limits: YamlLimits | None = None) -> Any:
    """Parse JSON as JSON (tabs and all), with the same size, depth and integer limits as YAML.
    Objects become LDict, arrays plain lists (without marks: the json module reports no positions)."""
    limits = limits or YamlLimits.default()
    if isinstance(text, bytes):
        if len(text) > limits.max_bytes:
            raise error_at(f"JSON of {len(text)} bytes is over the size limit of {limits.max_bytes} bytes",
                           source)
        text = decode_utf8(text, source)
    # the json module recurses once per level: bound the depth before parsing (strings cannot hide
    # brackets here, JSON strings are unambiguous)
    bare = _JSON_STRING.sub('""', text)
    depth = 0
    if bare.count("[") + bare.count("{") > limits.max_depth:
        import numpy as np
        b = np.frombuffer(bare.encode("utf-8"), np.uint8)
        step = np.zeros(len(b), np.int32)
        step[(b == 0x5B) | (b == 0x7B)] = 1
        step[(b == 0x5D) | (b == 0x7D)] = -1
        depth = int(np.cumsum(step).max(initial=0))
    if depth > limits.max_depth:
        raise error_at(f"JSON nested deeper than {limits.max_depth} levels (limit SPVCOOP_YAML_MAX_DEPTH)", source)

    def parse_int(s: str) -> int:
        if len(s) > limits.max_int_chars:
            raise ValueError(f"integer literal of {len(s)} characters (limit {limits.max_int_chars})")
        return int(s)

    def pairs(items) -> LDict:
        d = LDict()
        for k, v in items:
            if k == "":
                d.unnamed.append((v, None, None))
                if k in d:
                    continue
            elif k in d:
                raise ValueError(f"duplicate key '{k}'")
            d[k] = v
        return d
    try:
        return json.loads(text, object_pairs_hook=pairs, parse_int=parse_int)
    except json.JSONDecodeError as e:
        raise SpvError(Diagnostic("error", f"invalid JSON: {e.msg}", Span(e.lineno, e.colno, e.colno + 1),
                                  source=source)) from None
    except (ValueError, RecursionError) as e:
        raise error_at(f"invalid JSON: {e}", source) from None


"""An Amber script as a plan (what amber.py and amber_vk.py read, amber_run.py executes): shaders, buffers,
compute pipelines and commands; and the word splitter both readers use."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.diagnostics import InputError
from .amber_types import AmberType


class AmberUnsupported(InputError):
    """Something the script needs that spvcoop does not provide (a graphics pipeline, a device feature): exit 2."""


class Shader:
    def __init__(self, name: str, stage: str, fmt: str, text: str, line: int, text_line: int,
                 target_env: str | None = None) -> None:
        self.name, self.stage, self.fmt, self.text = name, stage, fmt, text
        self.line, self.text_line, self.target_env = line, text_line, target_env
        self.optimizations: list[str] = []


class Buffer:
    def __init__(self, name: str, type: AmberType, layout: str, data: bytearray, line: int) -> None:
        self.name, self.type, self.layout, self.data, self.line = name, type, layout, data, line


class Binding:
    """A buffer at a descriptor: the shader sees its bytes from `offset` (DESCRIPTOR_OFFSET plus a dynamic
    OFFSET), `range` of them (None: to the end); `array`: BUFFER_ARRAY's buffers, one per element of a
    descriptor array (`buffer` is the first)."""

    def __init__(self, buffer: str, kind: str, set: int, binding: int, line: int, offset: int = 0,
                 range: int | None = None, array: list[str] | None = None) -> None:
        self.buffer, self.kind, self.set, self.binding, self.line = buffer, kind, set, binding, line
        self.offset, self.range, self.array = offset, range, array


class Pipeline:
    def __init__(self, name: str, line: int) -> None:
        self.name, self.line = name, line
        self.shader: str | None = None
        self.entry_point = "main"
        self.specs: dict[int, object] = {}
        self.bindings: list[Binding] = []
        self.push: str | None = None
        self.subgroup_size: int | str | None = None   # REQUIRED_SIZE: a number, MIN or MAX
        self.fully_populated = False
        self.varying_size = False
        self.inherited: set[tuple[int, int]] = set()   # bindings a derived pipeline took from its parent

    def derive(self, name: str, line: int) -> Pipeline:
        p = Pipeline(name, line)
        p.shader, p.entry_point, p.specs = self.shader, self.entry_point, dict(self.specs)
        p.bindings, p.push = list(self.bindings), self.push
        p.inherited = {(b.set, b.binding) for b in self.bindings}
        p.subgroup_size, p.fully_populated, p.varying_size = self.subgroup_size, self.fully_populated, self.varying_size
        return p


class Command:
    """One step: kind RUN (pipeline, groups), COPY (src, dst), REPEAT (count, body), EXPECT (buffer, offset,
    op, values, tolerances, type, layout), EXPECT_BUFFER (buffer, other, op EQ_BUFFER|RMSE_BUFFER, tolerance),
    ENTRY (pipeline, name: VkScript's `compute entrypoint`), SET (buffer, type, layout, offset, values: VkScript
    data set between runs)."""

    def __init__(self, kind: str, line: int, col: int = 1, **fields) -> None:
        self.kind, self.line, self.col = kind, line, col
        self.__dict__.update(fields)

    if TYPE_CHECKING:  # the fields depend on the kind
        def __getattr__(self, name: str) -> Any: ...


class Plan:
    def __init__(self, source: str, syntax: str) -> None:
        self.source, self.syntax = source, syntax
        self.shaders: dict[str, Shader] = {}
        self.buffers: dict[str, Buffer] = {}
        self.pipelines: dict[str, Pipeline] = {}
        self.commands: list[Command] = []
        self.features: list[tuple[str, int, int]] = []      # (name, line, col)
        self.device_extensions: list[tuple[str, int, int]] = []
        self.instance_extensions: list[tuple[str, int, int]] = []


class Tok:
    __slots__ = ("text", "line", "col")

    def __init__(self, text: str, line: int, col: int) -> None:
        self.text, self.line, self.col = text, line, col


def tokenize_line(line: str, n: int) -> list[Tok]:
    """The words of one line up to a comment (`#`), with their columns."""
    out: list[Tok] = []
    i, L = 0, len(line)
    while i < L:
        c = line[i]
        if c == "#":
            break
        if c.isspace():
            i += 1
            continue
        j = i
        while j < L and not line[j].isspace() and line[j] != "#":
            j += 1
        out.append(Tok(line[i:j], n, i + 1))
        i = j
    return out

"""The one in-memory form of a SPIR-V module.

The assembler (text), the binary reader, the disassembler, the validator and
the interpreter all read and write this form. A Module is a header plus a list
of Instructions; every Instruction keeps its opcode name, result type id,
result id and typed operands, and, when it came from text, the source span of
the instruction and of every operand (so diagnostics can point at a column).
"""
from __future__ import annotations

from typing import Any, NamedTuple
from collections.abc import Iterator

from .records import Record
from .spirv_grammar import InstructionSpec, load as load_grammar

MAGIC = 0x07230203


class Span(NamedTuple):
    """Where something came from: 1-based line and column in a text file, or,
    for a binary, the word offset (line = 0). A tuple, because modules have
    millions of them and tuples are cheap to make."""
    line: int
    col: int
    end_col: int = 0
    word: int = -1

    def __str__(self) -> str:
        if self.line:
            return f"{self.line}:{self.col}"
        return f"word {self.word}"


# Operand kinds as they appear in Operand.kind. Grammar kinds (IdRef, LiteralInteger,
# MemoryAccess, ...) are kept verbatim; the literal context-dependent numbers are
# resolved to what they turned out to be.
OperandValue = int | float | str | tuple


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Operand(Record):
    """One operand: its grammar kind, value, encoded words and source text."""
    __slots__ = _fields = ("kind", "value", "words", "span", "text")
    kind: str                # grammar operand kind, e.g. "IdRef", "LiteralInteger", "MemoryAccess"
    value: OperandValue      # id number, integer, enumerant/mask value, string, or decoded number
    words: tuple[int, ...]   # the encoded words
    span: Span | None
    text: str | None         # the token as written, when it came from text

    def __init__(self, kind: str, value: OperandValue, words: tuple[int, ...], span: Span | None = None,
                 text: str | None = None) -> None:
        self.kind = kind
        self.value = value
        self.words = words
        self.span = span
        self.text = text

    @property
    def is_id(self) -> bool:
        return self.kind.startswith("Id")

    # Typed reads of `value` for code that knows the operand's kind (an id, an integer literal, an enumerant or
    # mask is an int; a LiteralString a str); a value of another type is a TypeError, never a silent misread.
    @property
    def as_int(self) -> int:
        v = self.value
        if isinstance(v, int):
            return v
        raise TypeError(f"{self.kind} operand holds {type(v).__name__} {v!r}, not an integer")

    @property
    def as_str(self) -> str:
        v = self.value
        if isinstance(v, str):
            return v
        raise TypeError(f"{self.kind} operand holds {type(v).__name__} {v!r}, not a string")


class Instruction(Record):
    """One instruction: opname, operands, result id and type, where it came from."""
    __slots__ = _fields = ("opname", "opcode", "result_type", "result_id", "operands", "span", "index")
    opname: str
    opcode: int
    result_type: int | None
    result_id: int | None
    operands: list[Operand]  # everything after result type/id
    span: Span | None
    index: int               # position in the module, 0-based

    def __init__(self, opname: str, opcode: int, result_type: int | None = None, result_id: int | None = None,
                 operands: list[Operand] | None = None, span: Span | None = None, index: int = 0) -> None:
        self.opname = opname
        self.opcode = opcode
        self.result_type = result_type
        self.result_id = result_id
        self.operands = [] if operands is None else operands
        self.span = span
        self.index = index

    @property
    def spec(self) -> InstructionSpec | None:
        return load_grammar().by_opcode.get(self.opcode)

    def words(self) -> list[int]:
        if self.operands and self.operands[0].kind == "RawHeader":
            # a '!<word>' instruction whose header word is kept verbatim, even if inconsistent
            return [self.operands[0].as_int, *(w for o in self.operands[1:] for w in o.words)]
        body: list[int] = []
        if self.result_type is not None:
            body.append(self.result_type)
        if self.result_id is not None:
            body.append(self.result_id)
        for o in self.operands:
            body.extend(o.words)
        return [((len(body) + 1) << 16) | self.opcode, *body]

    def id_operands(self) -> Iterator[int]:
        for o in self.operands:
            if o.is_id:
                yield o.value  # type: ignore[misc]

    def operand(self, i: int) -> Operand | None:
        return self.operands[i] if i < len(self.operands) else None

    # Reads for analyses that visit every instruction of a large module: a binary's ids-only instructions
    # (binary/reader.py) answer from their words without making Operand records.
    def operand_values(self) -> list[OperandValue]:
        """The operands' values in order (operand i's value at position i); read it, never change it."""
        return [o.value for o in self.operands]

    def ref_ids(self) -> list[int]:
        """The ids of the IdRef operands, in order."""
        return [o.value for o in self.operands if o.kind == "IdRef"]  # type: ignore[misc]


_OPERANDS_SLOT = Instruction.__dict__["operands"]


class LazyInstruction(Instruction):
    """An instruction whose Operand objects are made on first use (a large module has millions
    of operands, and `spvcoop as`/`dis` need only words). Subclasses keep what they need in
    `_pending` and say how to decode it and how to write its words."""
    __slots__ = ("_pending",)
    _pending: Any

    def _decode(self, pending) -> list[Operand]:
        raise NotImplementedError

    def _pending_words(self, pending) -> list[int]:
        raise NotImplementedError

    @property
    def operands(self) -> list[Operand]:
        pending = self._pending
        if pending is not None:
            self._pending = None
            _OPERANDS_SLOT.__set__(self, self._decode(pending))
        return _OPERANDS_SLOT.__get__(self)

    @operands.setter
    def operands(self, value: list[Operand]) -> None:
        self._pending = None
        _OPERANDS_SLOT.__set__(self, value)

    def words(self) -> list[int]:
        pending = self._pending
        if pending is not None:
            return self._pending_words(pending)
        return Instruction.words(self)


class Header(Record):
    """The module header's words: version, generator, bound, schema."""
    __slots__ = _fields = ("version", "generator", "bound", "schema")
    version: int
    generator: int
    bound: int
    schema: int

    def __init__(self, version: int = 0x00010600, generator: int = 0x00070000, bound: int = 1,
                 schema: int = 0) -> None:
        self.version = version
        self.generator = generator
        self.bound = bound
        self.schema = schema

    @property
    def version_tuple(self) -> tuple[int, int]:
        return (self.version >> 16) & 0xFF, (self.version >> 8) & 0xFF


class Module(Record):
    """A SPIR-V module: header, instructions, where it came from."""
    _fields = ("header", "instructions", "source", "text", "id_names")
    __slots__ = (*_fields, "__weakref__")   # core/facts.py memoises a module's facts while it lives
    header: Header
    instructions: list[Instruction]
    source: str                      # file name used in diagnostics
    text: str | None                 # the assembly text it came from, if any
    id_names: dict[int, str]         # id -> name written in the text

    def __init__(self, header: Header, instructions: list[Instruction], source: str = "<input>",
                 text: str | None = None, id_names: dict[int, str] | None = None) -> None:
        self.header = header
        self.instructions = instructions
        self.source = source
        self.text = text
        self.id_names = {} if id_names is None else id_names

    def to_words(self) -> list[int]:
        out = [MAGIC, self.header.version, self.header.generator, self.header.bound, self.header.schema]
        for inst in self.instructions:
            out.extend(inst.words())
        return out

    def to_bytes(self, instruction_words: list[int] | None = None) -> bytes:
        """The binary; instruction_words, where given, replace the instructions' own words."""
        from array import array
        import sys
        if instruction_words is None:
            a = array("I", self.to_words())
        else:
            h = self.header
            a = array("I", (MAGIC, h.version, h.generator, h.bound, h.schema))
            a.extend(instruction_words)
        if sys.byteorder != "little":
            a.byteswap()
        return a.tobytes()

    def source_line(self, line: int) -> str | None:
        if self.text is None or line <= 0:
            return None
        lines = self.text.split("\n")
        return lines[line - 1].rstrip("\r") if line - 1 < len(lines) else None

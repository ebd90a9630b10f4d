"""The assembler's fast path: lines whose shape was seen before are encoded from a template.

A plain line holding one whole instruction (`%r = OpFoo %a %b` or `OpFoo ...`) is, apart from
its id names, often identical to an earlier line. The first such line is encoded by the general
token path of spvcoop.asm.assembler; its words, with the id slots blanked, become the template for that
shape, and later lines only fill in id numbers, through a function generated for the shape that
appends the words to the module's word list. `spvcoop as` wants only those words
(text.assemble_binary); assemble() also makes a lazy instruction per templated line, whose Operand
objects are decoded from the line on first use (LazyInstruction). Instructions whose encoding
depends on other instructions (a literal's width from its type, an extended instruction's name
from its set) never use a template. tests/asm/test_assembler.py and tests/binary/test_fast_text_paths.py
check that both paths give the same Module and the same bytes.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ..core.module import Instruction, LazyInstruction, Operand, Span
from .tokenizer import SPECIAL_CHARS, LineContinues, Token, group_instructions, tokenize, tokenize_line

if TYPE_CHECKING:
    from ..core.diagnostics import Note, SpvError
    from ..core.spirv_grammar import Grammar

_ID_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
_new_span = tuple.__new__
_new_object = object.__new__
Fill = Callable[[list[str]], None]  # encodes one line of a known shape from its id split


class _IdNumbers(Protocol):
    numbers: dict[str, int]  # id name -> number


class TemplatedLines:
    """Mixin for spvcoop.asm.assembler.Assembler: the line-by-line driver and the template cache."""
    # the Assembler's state this mixin uses (annotations only: set by Assembler)
    text: str
    source: str
    g: Grammar
    ids: _IdNumbers
    instructions: list[Instruction]
    value_types: dict[int, int]
    templates: dict[tuple, Fill]
    template_meta: dict[tuple, tuple]
    no_template: set[tuple]
    fill_env: tuple
    last_group: bool
    next_token: Token | None

    if TYPE_CHECKING:  # Assembler defines these; declared for the checker only, no stubs at run time
        def fail(self, message: str, tok: Token | None, notes: list[Note] | None = None) -> SpvError: ...
        def encode_tokens(self, tokens: list[Token], following: Token | None, at_end: bool) -> None: ...
        def instruction(self, group: list[Token]) -> tuple[Instruction, list[Token]]: ...

    def assemble_lines(self, keep_instructions: bool) -> list[int]:
        """Line by line: a plain line holding one whole instruction of a shape seen before is
        encoded from a cached template (its ids filled in by a function made for that shape);
        everything else goes through the general token path, in text order, so ids are still
        numbered by first appearance. Returns the words of every instruction, in order. With
        keep_instructions, self.instructions then holds every instruction too (templated ones as
        lazy instructions whose operands are decoded from their line on first use); without, it
        holds only the general path's (`spvcoop as` needs only the words)."""
        lines = self.text.split("\n")
        n = len(lines)
        split = _ID_SPLIT
        templates = self.templates
        get_template = templates.get
        special = _SPECIAL_LINE.search
        out: list[int] = []
        instructions = self.instructions
        starts: list[int] = []  # word offset of each general-path instruction
        templated: list[tuple] = []  # (line number, line, word offset, shape) with keep_instructions
        pending: list[Token] = []  # tokens of lines for the general path, not yet encoded
        source = self.source
        numbers = self.ids.numbers
        self.fill_env = (numbers.get, numbers, _ID_NAME.match, out.extend, self.value_types)

        def drain() -> None:
            """The words of the general path's new instructions, in order."""
            for inst in instructions[len(starts):]:
                starts.append(len(out))
                out.extend(inst.words())

        # each line's id split ([text, id name, text, ..., text]), shape (everything but the id
        # names) and template, worked out one line ahead (the next line decides where this one ends)
        nparts: list[str] = []
        nkey: tuple = ()
        nfill: Fill | None = None
        if n:
            nparts = split(lines[0])
            nkey = tuple(nparts[0::2])
            nfill = get_template(nkey)
        i = 0
        while i < n:
            parts, key, fill = nparts, nkey, nfill
            if fill is None:
                fill = get_template(key)  # (a template made from the line before, maybe)
            line = lines[i]
            i1 = i + 1
            if i1 < n:
                nparts = split(lines[i1])
                nkey = tuple(nparts[0::2])
                nfill = get_template(nkey)
            m = None
            if fill is not None or (m := _START.match(line)) is not None:
                # the instruction must end on this line: the next line that is not blank begins
                # one (a line of a known shape begins one as the line it was made from did)
                if nfill is not None or i1 == n:
                    j = i1
                    ends = True
                else:
                    j, ends = self._next_instruction_line(lines, i1, nkey)
                if ends:
                    if fill is not None:
                        if pending:  # earlier lines first: ids are numbered in text order
                            self.flush_before(pending, line, i1)
                            drain()
                        start = len(out)
                        try:
                            fill(parts)
                        except _NotPlain:
                            pass  # a new id name that is not plain: the general path below
                        else:
                            if keep_instructions:
                                templated.append((i1, line, start, key))
                            i = i1
                            continue
                    elif not special(line) and self.new_template(i1, line, m.group(1), key, pending, j == n):  # type: ignore[union-attr]  # fill is None: m matched
                        drain()
                        pending = []
                        i = i1
                        continue
            line_tokens = _line_tokens(line, i1, source)
            if line_tokens is None:
                # a string runs over several lines: the general tokenizer on all the rest
                offset = sum(len(earlier) + 1 for earlier in lines[:i])
                pending.extend(tokenize(self.text[offset:], source, first_line=i1))
                break
            pending.extend(line_tokens)
            i = i1
        if pending:
            self.encode_tokens(pending, None, True)
        drain()
        if keep_instructions:
            self.instructions = self._merge(instructions, starts, templated, out)
        return out

    def _next_instruction_line(self, lines: list[str], j: int, key: tuple | None) -> tuple[int, bool]:
        """(the first line from j on that is not blank, or len(lines); whether it begins an
        instruction or the text ends there). key: line j's shape, if known."""
        n = len(lines)
        templates = self.templates
        while j < n:
            if key is None:
                key = tuple(_ID_SPLIT(lines[j])[0::2])
            if key in templates or _START.match(lines[j]):
                return j, True
            if lines[j].strip():
                return j, False
            key = None
            j += 1
        return j, True

    def _merge(self, general: list[Instruction], starts: list[int], templated: list[tuple],
               out: list[int]) -> list[Instruction]:
        """Every instruction in order: the general path's and, for each templated line, a lazy
        instruction (words now, operands on first use)."""
        merged: list[Instruction] = []
        g = 0
        meta = self.template_meta
        for lineno, line, start, key in templated:
            while g < len(general) and starts[g] < start:
                merged.append(general[g])
                g += 1
            spec, has_result, opname, count = meta[key]
            words = out[start:start + count]
            col = len(line) - len(line.lstrip()) + 1
            # the span covers '%r = OpName' (or 'OpName'), as the general path's does
            end = (line.find(opname, col) + 1 if has_result else col) + len(opname)
            inst = _new_object(_LazyInstruction)  # without the dataclass __init__ (which sets operands)
            inst.opname = spec.opname
            inst.opcode = spec.opcode
            inst.result_type = words[1] if spec.has_result_type else None
            inst.result_id = words[1 + spec.has_result_type] if spec.has_result else None
            inst.span = _new_span(Span, (lineno, col, end, -1))
            inst._pending = (self, lineno, line, words)
            merged.append(inst)
        merged.extend(general[g:])
        for k, done in enumerate(merged):
            done.index = k
        return merged

    def flush_before(self, pending: list[Token], line: str, lineno: int) -> None:
        """Encode the general-path tokens waiting before this line (which starts an instruction)."""
        first = line.split(None, 1)[0]
        nxt = ("ID" if first[0] == "%" else "OPNAME", first, lineno, 1)
        self.encode_tokens(pending, nxt, False)
        pending.clear()

    def new_template(self, lineno: int, line: str, opname: str, key: tuple, pending: list[Token],
                     last: bool) -> bool:
        """A line of a shape not seen before: encode it by the general path and keep its template.
        False (nothing done) for instructions that never get one; the caller then sends the
        line down the general path with the lines around it."""
        if key in self.no_template:
            return False
        spec = self.g.instructions.get(opname)
        if spec is None or spec.opname in _CONTEXT_OPCODES or spec.opname.startswith("OpType") \
                or any(o.kind in _CONTEXT_KINDS for o in spec.operands):
            self.no_template.add(key)
            return False
        tokens = [(t[0], t[1], lineno, t[3]) for t in tokenize(line, self.source)]
        lead, groups = group_instructions(tokens)
        if lead or len(groups) != 1:
            # several instructions on one line (names never change how a line groups)
            self.no_template.add(key)
            return False
        if pending:
            self.flush_before(pending, line, lineno)
        self.last_group = last
        self.next_token = None
        inst, left = self.instruction(groups[0])
        inst.index = len(self.instructions)
        self.instructions.append(inst)
        if left:
            raise self.fail(f"Expected <opcode> or <result-id> at the beginning of an "
                            f"instruction, found '{left[0][1]}'.", left[0])
        template = _template_of(inst, groups[0])
        if template is None:
            self.no_template.add(key)
        else:
            spec, words, slots, has_result, _ = template
            # the opcode name as written (an alias, maybe): the span of a lazy instruction ends after it
            self.template_meta[key] = (spec, has_result, opname, len(words))
            templates = self.templates

            plain_fill = _plain_fill(spec, words, slots, *self.fill_env)
            uses = 0

            def first_fills(parts: list[str]) -> None:
                # generating a fill function (exec) costs as much as a few hundred plain fills: only
                # for a shape that keeps coming (a small shader's start-up never pays for it)
                nonlocal uses
                uses += 1
                if uses == _COMPILE_AT_USE:
                    templates[key] = _compile_fill(spec, words, slots, *self.fill_env)
                plain_fill(parts)
            templates[key] = first_fills
        return True

    def materialize(self, lineno: int, line: str) -> list[Operand]:
        """The operands of a templated line, decoded by the general path (ids already numbered)."""
        tokens = [(t[0], t[1], lineno, t[3]) for t in tokenize(line, self.source)]
        _, groups = group_instructions(tokens)
        self.next_token = None
        self.last_group = True
        inst, _ = self.instruction(groups[0])
        return inst.operands


_CONTEXT_OPCODES = frozenset({"OpConstant", "OpSpecConstant", "OpSwitch", "OpExtInst", "OpExtInstImport",
                              "OpExtInstWithForwardRefsKHR", "OpSpecConstantOp"})
_CONTEXT_KINDS = frozenset({"LiteralContextDependentNumber", "LiteralExtInstInteger",
                            "LiteralSpecConstantOpInteger", "PairLiteralIntegerIdRef"})
_ID_SPLIT = re.compile(r"%(\S*)").split
# a line that begins an instruction: 'OpName ...' or '%id = OpName ...' (group 1: the opcode name)
_START = re.compile(r"[ \t\r]*(?:%\S*[ \t\r]+=[ \t\r]+)?(Op[A-Z]\S*)(?![^ \t\r\n])")
_SPECIAL_LINE = SPECIAL_CHARS
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _template_of(inst: Instruction, group: list[Token]):
    """(spec, words with ids as placeholders, [(index among the line's ids, word position)]) for an
    instruction whose every id came from its own token; None where that is not so."""
    spec = inst.spec
    if spec is None or any(o.kind in ("Raw", "RawHeader") for o in inst.operands):
        return None
    words = inst.words()
    id_tokens = [t for t in group if t[0] in ("ID", "RESULT")]
    order = {t[3]: k for k, t in enumerate(id_tokens)}  # column -> index among the line's ids
    slots = []  # in binary order, which is the order spirv-as numbers new ids in
    pos = 1
    op_index = 3 if group[0][0] == "RESULT" else 1  # the first token after the opcode
    if inst.result_type is not None:
        if len(group) <= op_index or group[op_index][3] not in order:
            return None
        slots.append((order[group[op_index][3]], pos))
        pos += 1
    if inst.result_id is not None:
        slots.append((0, pos))
        pos += 1
    for o in inst.operands:
        if o.is_id:
            if o.span is None or o.span.col not in order:
                return None
            slots.append((order[o.span.col], pos))
        pos += len(o.words)
    if len(slots) != len(id_tokens):
        return None
    out = list(words)
    for _, p in slots:
        out[p] = 0
    return spec, tuple(out), tuple(slots), group[0][0] == "RESULT", _LazyInstruction


class _NotPlain(Exception):
    """A templated line holds an id name that is not plain: the line goes the general way."""


def _line_tokens(text: str, lineno: int, source: str) -> list[Token] | None:
    """The tokens of one line, or None where a string goes on past its end."""
    try:
        return tokenize_line(text, source, lineno)
    except LineContinues:
        return None


_COMPILE_AT_USE = 32   # the use of a template (after the line it was made from) that compiles its fill


def _plain_fill(spec, words: tuple[int, ...], slots, get, numbers, plain, extend, value_types):
    """What _compile_fill's function does, in a loop over the slots (for the first uses of a shape)."""
    notes_type = spec.has_result_type and spec.has_result

    def fill(p: list[str]) -> None:
        out = list(words)
        for text_index, word_pos in slots:
            name = p[2 * text_index + 1]
            v = get(name)
            if v is None:
                if plain(name) is None:
                    raise _NotPlain
                v = numbers[name] = len(numbers) + 1
            out[word_pos] = v
        if notes_type:
            value_types[out[2]] = out[1]
        extend(out)
    return fill


def _compile_fill(spec, words: tuple[int, ...], slots, get, numbers, plain, extend, value_types):
    """The function that encodes a line of one shape: from the line's id split (names at the odd
    indices) it looks each id up, numbers new ones (in binary order, which is spirv-as's; never
    with --preserve-numeric-ids, so a new id's number is the count of names so far plus one),
    notes the result's type (OpSwitch selectors need it) and appends the words. A new name that
    is not plain raises _NotPlain before any word is written: the general path then takes the
    line and numbers its ids in the same order, so ids numbered here keep their numbers.
    Generated once per shape, from integers only: the hot path is one call, the ids inline."""
    body = []
    items = [str(w) for w in words]
    for text_index, word_pos in slots:
        part = f"parts[{2 * text_index + 1}]"
        v = f"word_{word_pos}"
        body.append(f"    {v} = get({part})\n"
                    f"    if {v} is None:\n"
                    f"        if plain({part}) is None:\n"
                    f"            raise NotPlain\n"
                    f"        {v} = numbers[{part}] = len(numbers) + 1\n")
        items[word_pos] = v
    if spec.has_result_type and spec.has_result:   # word 2 the result id, word 1 its type
        body.append("    value_types[word_2] = word_1\n")
    src = ("def fill(parts, get=get, numbers=numbers, plain=plain, NotPlain=NotPlain, extend=extend, "
           "value_types=value_types):\n" + "".join(body) + f"    extend(({', '.join(items)},))\n")
    namespace = {"get": get, "numbers": numbers, "plain": plain, "NotPlain": _NotPlain, "extend": extend,
                 "value_types": value_types}
    exec(src, namespace)  # noqa: S102 - source generated above from integers and fixed text only
    return namespace["fill"]

class _LazyInstruction(LazyInstruction):
    """An instruction encoded from a template: words now, operands decoded (by the general path,
    from its line) on first use. _pending = (assembler, line number, line, words)."""
    __slots__ = ()

    def _decode(self, pending) -> list[Operand]:
        assembler, lineno, line, _ = pending
        return assembler.materialize(lineno, line)

    def _pending_words(self, pending) -> list[int]:
        return pending[3]

"""The assembler's fast path: lines whose shape was seen before are encoded from a template.

A plain line holding one whole instruction (`%r = OpFoo %a %b` or `OpFoo ...`) is, apart from
its id names, often identical to an earlier line. The first such line is encoded by the general
token path of spvcoop.text; its words, with the id slots blanked, become the template for that
shape, and later lines only fill in id numbers. Their Operand objects are decoded from the line
on first use (LazyInstruction). Instructions whose encoding depends on other instructions (a
literal's width from its type, an extended instruction's name from its set) never use a template.
tests/test_assembler.py checks that both paths give the same Module.
"""
from __future__ import annotations

import re

from .module import Instruction, LazyInstruction, Operand, Span
from .tokenizer import SPECIAL_CHARS, LineContinues, Token, group_instructions, tokenize, tokenize_line

_ID_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
_new_span = tuple.__new__
_new_object = object.__new__


class TemplatedLines:
    """Mixin for spvcoop.text.Assembler: the line-by-line driver and the template cache."""

    def assemble_lines(self) -> None:
        """Line by line: a plain line holding one whole instruction of a shape seen before is
        encoded from a cached template (ids filled in, operands decoded only when asked for);
        everything else goes through the general token path, in text order, so ids are still
        numbered by first appearance."""
        lines = self.text.split("\n")
        n = len(lines)
        start_match = _START.match   # a line that begins an instruction: its opcode name (group 1)
        special = _SPECIAL_LINE.search
        id_split = _ID_SPLIT
        id_name = _ID_NAME.match
        pending: list[Token] = []  # tokens of lines for the general path, not yet encoded
        offset = 0
        source = self.source

        def line_tokenize(text: str, lineno: int) -> list[Token] | None:
            try:
                return [(t[0], t[1], lineno, t[3]) for t in tokenize_line(text, source)]
            except LineContinues:
                return None

        templates = self.templates
        ids = self.ids
        numbers = ids.numbers
        instructions = self.instructions
        value_types = self.value_types

        def shape(k: int):
            """(id split, shape key, template, start match) of line k. A line of a known shape
            begins an instruction as the line it was made from did (the shape is all of its text
            but the id names), so only a line of an unknown shape needs the start pattern."""
            parts = id_split(lines[k])  # [text, id name, text, id name, ..., text]
            key = tuple(parts[0::2])
            template = templates.get(key)
            return parts, key, template, None if template is not None else start_match(lines[k])

        i = 0
        cur = shape(0) if n else None
        while i < n:
            line = lines[i]
            parts, key, template, m = cur
            nxt = None
            if template is not None or m is not None:
                # the next line that is not blank must begin an instruction too (else this one goes on)
                j = i + 1
                while j < n:
                    nxt = shape(j)
                    if nxt[2] is not None or nxt[3] is not None or lines[j].strip():
                        break
                    j += 1
                if j == n or nxt[2] is not None or nxt[3] is not None:
                    handled = False
                    if template is None:
                        if not special(line):
                            handled = self.new_template(i + 1, line, m.group(1), key, pending, j == n)
                    else:
                        # the hot path (most lines of a large module): fill the ids in. A template's
                        # shape has no special characters (it was made from a plain line) and a known
                        # id name has none, so only a line with a new name needs the check
                        spec, out, slots, has_result, lazy_cls, opname = template
                        out = list(out)
                        names = parts[1::2]
                        checked = False
                        for text_index, word_pos in slots:
                            name = names[text_index]
                            v = numbers.get(name)
                            if v is None:
                                if not checked:
                                    if special(line):
                                        break  # not a plain line after all: the general path below
                                    checked = True
                                    if pending:  # earlier lines first: ids are numbered in text order
                                        self.flush_before(pending, line, i + 1)
                                        pending = []
                                        v = numbers.get(name)   # (defined there, maybe)
                                if v is None and id_name(name) and not ids.used:  # _Ids.get, inline
                                    v = ids.next
                                    ids.next = v + 1
                                    numbers[name] = v
                                    if v > ids.largest:
                                        ids.largest = v
                                elif v is None:
                                    v = self.new_id(name, i + 1, line)
                                    if v is None:
                                        handled = True
                                        break  # the general path took the line
                            out[word_pos] = v
                        else:
                            if pending:
                                self.flush_before(pending, line, i + 1)
                            handled = True
                            col = len(parts[0]) + 1 if has_result else len(line) - len(line.lstrip()) + 1
                            # the span covers '%r = OpName' (or 'OpName'), as the general path's does
                            end = (line.find(opname, col) + 1 if has_result else col) + len(opname)
                            # built without the dataclass __init__ (which would set operands)
                            inst = _new_object(lazy_cls)
                            inst.opname = spec.opname
                            inst.opcode = spec.opcode
                            rt = inst.result_type = out[1] if spec.has_result_type else None
                            rid = inst.result_id = out[1 + spec.has_result_type] if spec.has_result else None
                            inst.span = _new_span(Span, (i + 1, col, end, -1))
                            inst.index = len(instructions)
                            inst._pending = (self, i + 1, line, out)
                            if rt is not None:
                                value_types[rid] = rt
                            instructions.append(inst)
                    if handled:
                        pending = []
                        offset += len(line) + 1
                        i += 1
                        # (a new template may give the next line a shape now known)
                        reuse = nxt is not None and j == i and nxt[2] is not None
                        cur = nxt if reuse else (shape(i) if i < n else None)
                        continue
            line_tokens = line_tokenize(line, i + 1)
            if line_tokens is None:
                # a string runs over several lines: the general tokenizer on all the rest
                pending.extend(tokenize(self.text[offset:], self.source, first_line=i + 1))
                break
            pending.extend(line_tokens)
            offset += len(line) + 1
            i += 1
            cur = nxt if nxt is not None and j == i and nxt[2] is not None else (shape(i) if i < n else None)
        if pending:
            self.encode_tokens(pending, None, True)

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
        if pending:
            self.flush_before(pending, line, lineno)
        tokens = [(t[0], t[1], lineno, t[3]) for t in tokenize(line, self.source)]
        self.last_group = last
        self.next_token = None
        _, groups = group_instructions(tokens)
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
            self.templates[key] = (*template, opname)  # the opcode name as written (an alias, maybe)
        return True

    def new_id(self, name: str, lineno: int, line: str) -> int | None:
        """Number a new id name; for a name that is not a valid id, hand the line to the general
        path (which reports it) and return None."""
        if _ID_NAME.match(name):
            return self.ids.get(name)
        tokens = [(t[0], t[1], lineno, t[3]) for t in tokenize(line, self.source)]
        self.encode_tokens(tokens, None, False)
        return None

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


class _LazyInstruction(LazyInstruction):
    """An instruction encoded from a template: words now, operands decoded (by the general path,
    from its line) on first use. _pending = (assembler, line number, line, words)."""
    __slots__ = ()

    def _decode(self, pending) -> list[Operand]:
        assembler, lineno, line, _ = pending
        return assembler.materialize(lineno, line)

    def _pending_words(self, pending) -> list[int]:
        return pending[3]

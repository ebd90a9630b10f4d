"""`spvcoop dis`'s fast path: a binary's words -> spirv-dis text, most instructions printed
straight from their words, never made into Instruction objects.

Two passes over the words, as spirv-dis makes them: the first gives every result id its
friendly name (FriendlyNames, fed only the instructions that give names), the second prints.
Per instruction shape (its first word: opcode and word count):
- ids only (the reader's id-only plans): printed from the words with a table of id texts;
- ids, then operands that do not depend on other instructions (masks, enumerants, literal
  integers and strings: a load's `Aligned 16`): the first instruction of each distinct tail
  (the words after the ids) is decoded by the general reader and its tail printed by the general
  operand formatter, once; later ones print the ids and reuse that text;
- everything else (names, decorations, types, constants, extended instructions) is decoded and
  printed by the general path (binary.BinaryReader, disassembler.Disassembler).
Whatever the general reader would refuse, an OpSwitch (its literals need the selector's type) or
an id defined twice sends the whole binary down the general path, which then says exactly what
spirv-dis says. tests/binary/test_fast_text_paths.py compares both paths.
"""
from __future__ import annotations

from .reader import _VERSIONS, BinaryReader, _id_only_plan, read_binary, words_from_bytes
from ..core.diagnostics import SpvError
from .disassembler import _NAMING_OPCODES, Disassembler, FriendlyNames, _IdTexts, disassemble, header_lines
from ..core.module import Header, Instruction, Module
from ..core.spirv_grammar import load as load_grammar

# operands whose meaning depends on another instruction (a constant's type, an extended set, an
# OpSwitch selector): instructions holding them always go the general way
_CONTEXT_KINDS = frozenset({"LiteralContextDependentNumber", "LiteralExtInstInteger",
                            "LiteralSpecConstantOpInteger", "PairLiteralIntegerIdRef"})

# plan kinds, by an instruction's first word
_IDS = "ids"            # every word an id
_TAIL = "tail"          # ids, then a tail of operands that depend on nothing else
_GENERAL = "general"    # decoded and printed by the general path


class _Fallback(Exception):
    """The binary needs the general path (it may be refused: that path says how)."""


def disassemble_binary(data: bytes, source: str = "<input>", raw_ids: bool = False, header: bool = True,
                       indent: bool = True) -> str:
    """disassemble(read_binary(data)) with the same flags, the same text and the same refusals."""
    words = words_from_bytes(data, source)
    try:
        return _WordsDisassembler(words, source, raw_ids).text(header, indent)
    except _Fallback:
        return disassemble(read_binary(data, source), raw_ids=raw_ids, header=header, indent=indent)


class _IdTextsOrFallback(_IdTexts):
    """id -> '%name'; id 0 (refused by spirv-dis) sends the binary down the general path."""

    def __missing__(self, n: int) -> str:
        if n == 0:
            raise _Fallback
        return f"%{n}"


class _WordsDisassembler:
    def __init__(self, words: list[int], source: str, raw_ids: bool):
        w = self.w = words
        if len(w) < 5 or w[1] not in _VERSIONS:
            raise _Fallback
        self.g = load_grammar()
        self.reader = BinaryReader(w, source, self.g)
        self.module = Module(Header(w[1], w[2], w[3], w[4]), [], source)
        self.raw_ids = raw_ids
        # first word -> (plan kind, opname, words that are ids (result type and id included),
        # offset of the result id from the first word or 0)
        self.plans: dict[int, tuple] = {}
        self.tails: dict[tuple, Instruction] = {}  # (first word, tail words) -> the first such instruction
        self.marks: list[tuple] = []  # (word position, plan kind, instruction or tail key), in order

    def plan(self, first: int) -> tuple:
        """What to do with instructions whose first word is `first`."""
        count, opcode = first >> 16, first & 0xFFFF
        spec = self.g.by_opcode.get(opcode)
        if count == 0 or spec is None or spec.opname == "OpSwitch":
            raise _Fallback  # refused, or OpSwitch (its literals' width: the selector's type)
        if spec.opname in _NAMING_OPCODES or spec.opname.startswith("OpExtInst") \
                or any(o.kind in _CONTEXT_KINDS for o in spec.operands):
            plan: tuple = (_GENERAL, spec.opname, 0, 0)
        else:
            kinds, required = _id_only_plan(spec)
            rid_offset = 1 + spec.has_result_type if spec.has_result else 0
            if kinds is not None and required < count <= len(kinds) + 1:
                plan = (_IDS, spec.opname, count - 1, rid_offset)
            else:
                plan = (_TAIL, spec.opname, None, rid_offset)  # its ids: known from the first one decoded
        self.plans[first] = plan
        return plan

    def decode(self, pos: int, end: int):
        w = self.w
        try:
            return self.reader.instruction(w[pos] & 0xFFFF, w[pos + 1:end], pos, end - pos)
        except SpvError:
            raise _Fallback from None

    def names(self) -> tuple[dict[int, str], list[int]]:
        """Pass 1: friendly names (FriendlyNames' order: binary order) and every result id."""
        w = self.w
        n = len(w)
        friendly = None if self.raw_ids else FriendlyNames(self.module)
        names = friendly.names if friendly else {}
        used = friendly.used if friendly else set()
        save = friendly.save if friendly else None
        plans = self.plans
        rids: list[int] = []
        add_rid = rids.append
        pos = 5
        try:
            while pos < n:
                first = w[pos]
                plan = plans.get(first) or self.plan(first)
                if plan[0] is not _IDS:
                    plan = self.marked(pos, first, plan, friendly)
                r = plan[3]
                if r:
                    rid = w[pos + r]
                    add_rid(rid)
                    if rid not in names:
                        # a result that names nothing is called by its number (unless taken)
                        name = str(rid)
                        if name in used:
                            save(rid, name)  # type: ignore[misc]  # set: used is empty without friendly names
                        else:
                            used.add(name)
                            names[rid] = name
                pos += first >> 16
        except IndexError:
            raise _Fallback from None  # the last instruction is cut short: refused
        if pos != n or 0 in rids or len(set(rids)) != len(rids):
            raise _Fallback  # cut short, a result id 0 or an id defined twice: refused
        return names, rids

    def marked(self, pos: int, first: int, plan: tuple, friendly: FriendlyNames | None) -> tuple:
        """An instruction that is not ids only: decoded now (pass 2 prints it from the mark) or,
        with a tail seen before, only marked. Returns the plan for its result id."""
        w = self.w
        end = pos + (first >> 16)
        if end > len(w):
            raise _Fallback
        if plan[0] is _GENERAL:
            inst = self.decode(pos, end)
            self.marks.append((pos, _GENERAL, inst))
            if friendly is not None:
                friendly.visit(inst)
            if inst.result_id is not None:
                rid_offset = 1 + (inst.result_type is not None)
                return (_GENERAL, plan[1], 0, rid_offset)  # the caller adds it (visit named it)
            return plan
        lead = plan[2]
        if lead is None:
            inst = self.decode(pos, end)
            lead = (inst.result_type is not None) + (inst.result_id is not None)
            for o in inst.operands:
                if not o.kind.startswith("Id"):
                    break
                lead += 1
            plan = self.plans[first] = (_TAIL, plan[1], lead, plan[3])
            self.tails[(first, tuple(w[pos + 1 + lead:end]))] = inst
        key = (first, tuple(w[pos + 1 + lead:end]))
        if key not in self.tails:
            self.tails[key] = self.decode(pos, end)
        self.marks.append((pos, _TAIL, key))
        return plan

    def text(self, header: bool, indent: bool) -> str:
        names, rids = self.names()
        w = self.w
        n = len(w)
        if self.raw_ids:
            texts = _IdTextsOrFallback({i: f"%{i}" for i in rids})
        else:
            texts = _IdTextsOrFallback({i: "%" + name for i, name in names.items()})
        d = Disassembler(self.module, self.raw_ids, id_texts=texts)
        T = texts.__getitem__
        plans = self.plans
        tails = self.tails
        formats: dict = {}  # first word or tail key -> str.format of the line, ids as arguments
        marks = self.marks
        marks.append((n, 0, None))
        mi = 0
        mpos = marks[0][0]
        lines = header_lines(self.module.header) if header else []
        append = lines.append
        pos = 5
        try:
            while pos < n:
                first = w[pos]
                end = pos + (first >> 16)
                if pos != mpos:
                    fmt = formats.get(first)
                    if fmt is None:
                        _, opname, lead, rid_offset = plans[first]
                        fmt = formats[first] = _line_format(opname, lead, rid_offset, "", indent)
                    append(fmt(*map(T, w[pos + 1:end])))
                else:
                    _, kind, what = marks[mi]
                    mi += 1
                    mpos = marks[mi][0]
                    if kind is _GENERAL:
                        append(d.instruction(what, indent))
                    else:
                        _, opname, lead, rid_offset = plans[first]
                        fmt = formats.get(what)
                        if fmt is None:
                            inst = tails[what]
                            skip = lead - (inst.result_type is not None) - (inst.result_id is not None)
                            tail = " ".join(d.operand(inst, o) for o in inst.operands[skip:])
                            fmt = formats[what] = _line_format(opname, lead, rid_offset, tail, indent)
                        append(fmt(*map(T, w[pos + 1:pos + 1 + lead])))
                pos = end
        except IndexError:
            raise _Fallback from None
        return "\n".join(lines) + "\n"


def _line_format(opname: str, lead: int, rid_offset: int, tail: str, indent: bool):
    """str.format of an instruction's line whose arguments are the texts of its first `lead` words
    after the opcode word (ids, the result id at rid_offset), `tail` printed after them."""
    fields = [f"{{{k}}}" for k in range(lead)]
    head = None
    if rid_offset:
        head = fields.pop(rid_offset - 1)
    if tail:
        fields.append(tail.replace("{", "{{").replace("}", "}}"))
    body = " ".join([opname, *fields])
    if head is None:
        return ((" " * 15 if indent else "") + body).format
    return (f"{head[:-1]}:>12}} = {body}" if indent else f"{head} = {body}").format

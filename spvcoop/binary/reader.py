"""SPIR-V binary <-> Module. Operands are decoded by the grammar, never by hand."""
from __future__ import annotations

import struct
from array import array

from ..core.diagnostics import Diagnostic, Note, SpvError
from ..core.literals import float_type
from ..core.module import MAGIC, Header, Instruction, LazyInstruction, Module, Operand, Span
from ..core.operand_walk import OperandWalk
from ..core.spirv_grammar import SPEC_CONSTANT_OP_OPCODES, Grammar, OperandSpec, load as load_grammar, \
    newer_capability, operand_kind_words


def decode_string(words: list[int] | tuple[int, ...], start: int, end: int | None = None) -> tuple[str, int] | None:
    """The NUL-terminated UTF-8 string at words[start:end], and the word count it takes. Bytes that
    are not UTF-8 are kept as surrogate escapes (encode with errors="surrogateescape" to get them
    back: spirv-dis prints them as they are)."""
    end = len(words) if end is None else min(end, len(words))
    data = struct.pack(f"<{max(end - start, 0)}I", *words[start:end])
    nul = data.find(b"\0")
    if nul < 0:
        return None
    return data[:nul].decode("utf-8", errors="surrogateescape"), nul // 4 + 1


def encode_string(s: str) -> tuple[int, ...]:
    data = s.encode("utf-8", errors="surrogateescape") + b"\0"
    data += b"\0" * (-len(data) % 4)
    return struct.unpack(f"<{len(data) // 4}I", data)


def _encoding(inst: Instruction) -> str | None:
    """The FPEncoding name of an OpTypeFloat, if it has one (shared with the assembler and disassembler)."""
    if len(inst.operands) < 2:
        return None
    e = load_grammar().operand_kinds["FPEncoding"].by_value.get(inst.operands[1].as_int)
    return e.name if e else None


class _NumericTypes:
    """id -> ('int'|'float', width, signed) for OpTypeInt/OpTypeFloat seen so far."""

    def __init__(self) -> None:
        self.types: dict[int, tuple[str, int, bool]] = {}

    def note(self, inst: Instruction) -> None:
        ntype = numeric_type(inst)
        if ntype is not None:
            self.types[inst.result_id] = ntype  # type: ignore[index]  # OpTypeInt/Float have a result id


def numeric_type(inst: Instruction) -> tuple[str, int, bool] | None:
    """(kind, width, signed) of an OpTypeInt / OpTypeFloat, which decides how literals of that type
    are read and printed: kind 'int', 'float' (IEEE) or an encoded float format ('bf16', ...).
    The one place the assembler, the binary reader and the disassembler learn it from."""
    if inst.opname == "OpTypeInt":
        return ("int", inst.operands[0].as_int, bool(inst.operands[1].value))
    if inst.opname == "OpTypeFloat":
        return float_type(inst.operands[0].as_int, _encoding(inst))
    return None


def number_from_words(words, ntype: tuple[str, int, bool] | None):
    """The value of a context-dependent literal number: an integer in its type's width (signed for
    signed types) or a float's bit pattern. Bits beyond the words given do not exist, so a
    hostile width (OpTypeInt 4294967295) costs nothing."""
    bits = 0
    for i, w in enumerate(words):
        bits |= w << (32 * i)
    if ntype is None:
        return bits
    kind, width, signed = ntype
    width = min(width, 32 * len(words))
    if width <= 0:
        return 0
    bits &= (1 << width) - 1
    if kind == "int" and signed and bits >> (width - 1):
        bits -= 1 << width
    return bits  # floats keep their bit pattern; the disassembler formats it


class BinaryReader:
    """Words -> Instructions, refusing what SPIRV-Tools' binary parser (spirv-dis, spirv-val 2025.5)
    refuses, with its message text. strict=False (the assembler's `!<word>` instructions, which
    spirv-as takes verbatim) skips the checks of values and ids but still reads safely."""

    def __init__(self, words: list[int], source: str, grammar: Grammar, strict: bool = True):
        self.w = words
        self.source = source
        self.g = grammar
        self.strict = strict
        self.types = _NumericTypes()
        self.ext_sets: dict[int, str] = {}
        self.insts: list[Instruction] = []
        self.defs: dict[int, Instruction] = {}  # result id -> instruction, filled on demand
        self.scanned = 0

    def fail(self, message: str, word: int) -> SpvError:
        return SpvError(Diagnostic("error", message, Span(0, 0, word=word), source=self.source))

    def read(self) -> Module:
        w = self.w
        n = len(w)
        if n == 0:
            raise self.fail("Missing module.", 0)
        if n < 5:
            raise self.fail(f"Module has incomplete header: only {n} words instead of 5", n)
        header = Header(w[1], w[2], w[3], w[4])
        if header.version not in _VERSIONS:
            # spirv-dis and spirv-val refuse any other version word with this (odd) message
            raise SpvError(Diagnostic(
                "error", "Internal error: unhandled header parse failure", Span(0, 0, word=1),
                notes=[Note(f"the version word 0x{header.version:08x} is not SPIR-V 1.0 to 1.6: "
                            "SPIRV-Tools 2025.5 refuses it with the message above")],
                source=self.source))
        insts = self.insts
        pos = 5
        plans = self.id_plans
        fast = self.use_id_plans
        by_opcode = self.g.by_opcode
        while pos < n:
            first = w[pos]
            count, opcode = first >> 16, first & 0xFFFF
            if count == 0:
                raise self.fail("Invalid instruction word count: 0", pos)
            end = pos + count
            plan = plans.get(opcode)
            if plan is None:
                spec = by_opcode.get(opcode)
                if spec is None:
                    raise self.fail(f"Invalid opcode: {opcode}", pos)
                plan = plans[opcode] = (*_id_only_plan(spec), spec)
            kinds, required, spec = plan
            if fast and kinds is not None and required < count <= len(kinds) + 1 and end <= n:
                # every word is an id (most instructions of a large module): keep the words and make
                # Operand objects only when asked; built without the dataclass __init__
                k = pos + 1
                rt = rid = None
                if spec.has_result_type:
                    rt = w[k]
                    k += 1
                if spec.has_result:
                    rid = w[k]
                    k += 1
                ids = w[k:end]
                if rt == 0 or rid == 0 or 0 in ids:
                    inst = self.instruction(opcode, w[pos + 1:end], pos)  # says which id is 0
                else:
                    inst = _new_object(IdsOnlyInstruction)
                    inst.opname = spec.opname
                    inst.opcode = opcode
                    inst.result_type = rt
                    inst.result_id = rid
                    inst.span = _new_span(Span, (0, 0, 0, pos))
                    inst._pending = (kinds[k - pos - 1:], ids)
            else:
                inst = self.instruction(opcode, w[pos + 1:min(end, n)], pos, count)
            inst.index = len(insts)
            insts.append(inst)
            pos = end
        return Module(header, insts, self.source)

    def instruction(self, opcode: int, body: list[int], pos: int, count: int | None = None) -> Instruction:
        """One instruction from the words after its opcode word; count: its stated word count
        (body is shorter where the module ends first)."""
        inst: Instruction   # the ids-only kind below, else a plain one
        spec = self.g.by_opcode.get(opcode)
        if spec is None:
            raise self.fail(f"Invalid opcode: {opcode}", pos)
        if count is None:
            count = len(body) + 1
        plan = self.id_plans.get(opcode)
        if plan is None:
            plan = self.id_plans[opcode] = (*_id_only_plan(spec), spec)
        kinds, required, _ = plan
        if kinds is not None and required <= len(body) <= len(kinds) and len(body) == count - 1 \
                and self.use_id_plans and (0 not in body or not self.strict):
            # every word is an id: keep the words, make Operand objects only when asked
            inst = _new_object(IdsOnlyInstruction)
            inst.opname = spec.opname
            inst.opcode = opcode
            start = spec.has_result_type + spec.has_result
            inst.result_type = body[0] if spec.has_result_type else None
            inst.result_id = body[spec.has_result_type] if spec.has_result else None
            inst.span = _new_span(Span, (0, 0, 0, pos))
            inst.index = 0
            inst._pending = (kinds[start:], body[start:])
            return inst
        inst = Instruction(spec.opname, opcode, span=Span(0, 0, word=pos))
        self.decode_operands(inst, spec.operands, body, pos, count)
        if inst.opname in ("OpTypeInt", "OpTypeFloat"):
            self.types.note(inst)
        elif inst.opname == "OpExtInstImport":
            name = inst.operands[0].as_str
            if self.strict and not self.g.ext_import_known(name):
                raise self.fail(f"Invalid extended instruction import '{name}'", pos)
            self.ext_sets[inst.result_id] = name  # type: ignore[index]  # OpExtInstImport has a result id
        return inst

    def decode_operands(self, inst: Instruction, specs, body: list[int], pos: int, count: int) -> None:
        """Read body (the words after the opcode word that the module holds) as the operands the
        grammar walk expects; count is the instruction's stated word count."""
        walk = OperandWalk(specs, self.g.operand_kinds)
        stated = count - 1
        avail = len(body)
        i = 0
        where = f"{inst.opname} starting at word {pos}"
        while True:
            o = walk.next(i < stated)
            if o is None:
                break
            if i >= stated:
                raise self.fail(f"End of input reached while decoding {where}: expected more operands "
                                f"after {count} words.", pos)
            if i >= avail:
                raise self.fail(f"End of input reached while decoding {where}: missing "
                                f"{operand_kind_words(o.kind)} operand at word offset {i + 1}.", pos + 1 + i)
            i = self.operand(inst, o, body, i, pos, walk, stated)
            if i > stated:
                raise self.fail(f"Invalid word count: {where} says it has {count} words, but found "
                                f"{i + 1} words instead.", pos)
        if i < stated:
            raise self.fail(f"Invalid instruction {where}: expected no more operands after {i + 1} words, "
                            f"but stated word count is {count}.", pos + 1 + i)

    def add(self, inst: Instruction, kind: str, value, words, pos: int) -> None:
        inst.operands.append(Operand(kind, value, tuple(words), Span(0, 0, word=pos)))

    def operand(self, inst: Instruction, spec: OperandSpec, body: list[int], i: int, pos: int,
                walk: OperandWalk, stated: int) -> int:
        """Read one operand at body[i] (which exists); return the index after it."""
        kind = spec.kind
        wpos = pos + 1 + i
        v = body[i]
        if kind.startswith("Id"):
            if v == 0 and self.strict:
                raise self.fail(_ZERO_ID.get(kind, "Id is 0"), wpos)
            if kind == "IdResultType":
                inst.result_type = v
            elif kind == "IdResult":
                inst.result_id = v
            else:
                self.add(inst, kind, v, (v,), wpos)
            return i + 1
        if kind == "LiteralString":
            r = decode_string(body, i, stated)
            if r is None:
                raise self.fail(f"End of input reached while decoding {inst.opname} starting at word {pos}: "
                                f"truncated literal string operand at word offset {i + 1}.", wpos)
            s, n = r
            self.add(inst, kind, s, body[i:i + n], wpos)
            return i + n
        if kind == "LiteralContextDependentNumber":
            return self.typed_number(inst, kind, self.constant_type(inst, pos), body, i, pos, stated)
        if kind == "LiteralInteger" and inst.opname == "OpSwitch":
            return self.typed_number(inst, kind, self.selector_type(inst, pos), body, i, pos, stated)
        if kind == "LiteralExtInstInteger":
            self.add(inst, kind, v, (v,), wpos)
            set_id = inst.operands[0].as_int if inst.operands else -1
            set_name = self.ext_sets.get(set_id)
            if set_name is None and self.strict:
                raise self.fail(f"OpExtInst set Id {set_id} does not reference an OpExtInstImport result Id",
                                pos)
            ext = self.g.ext_set(set_name) if set_name else None
            espec = ext.by_opcode.get(v) if ext else None
            if espec is None:
                if ext is not None and self.strict:
                    raise self.fail(f"Invalid extended instruction number: {v}", wpos)
                walk.replace(_ID_LIST)
            elif ext is not None:   # always, espec came from it
                walk.replace(espec.operands, ext.operand_kinds)
            return i + 1
        if kind == "LiteralSpecConstantOpInteger":
            self.add(inst, kind, v, (v,), wpos)
            target = self.g.by_opcode.get(v)
            if target is None or (self.strict and target.opname not in SPEC_CONSTANT_OP_OPCODES):
                raise self.fail(f"Invalid OpSpecConstantOp opcode: {v}", wpos)
            walk.insert(s for s in target.operands if s.kind not in ("IdResultType", "IdResult"))
            return i + 1
        if kind in ("LiteralInteger", "LiteralFloat"):
            self.add(inst, kind, v, (v,), wpos)
            return i + 1
        okind = walk.kind(kind)
        if okind is None:
            raise self.fail(f"{inst.opname}: unknown operand kind {kind}", wpos)
        if self.strict:
            if okind.category == "ValueEnum" and v not in okind.by_value:
                suffix = newer_capability(v) if kind == "Capability" else _INVALID_SUFFIX.get(kind, "")
                raise self.fail(f"Invalid {operand_kind_words(kind)} operand: {v}{suffix}", wpos)
            if okind.category == "BitEnum":
                bad = [b for b in range(31, -1, -1) if v >> b & 1 and (1 << b) not in okind.by_value]
                if bad:
                    raise self.fail(f"Invalid {operand_kind_words(kind)} operand: {v} has invalid mask "
                                    f"component {1 << bad[0]}", wpos)
        self.add(inst, kind, v, (v,), wpos)
        if okind.category in ("ValueEnum", "BitEnum"):
            walk.enum_value(okind, v)
        return i + 1

    def typed_number(self, inst: Instruction, kind: str, ntype, body: list[int], i: int, pos: int,
                     stated: int) -> int:
        """A literal whose width is its type's (ceil(width / 32) words, counted as SPIRV-Tools does,
        in 32 bits and then 16); its value is kept within those words whatever the width."""
        n = literal_word_count(ntype[1]) if ntype is not None else len(body) - i
        if i + n > len(body):
            if n and i + n > stated and pos + 1 + i + n <= len(self.w):
                # SPIRV-Tools reads on into the next instruction, then finds the count wrong
                raise self.fail(f"Invalid word count: {inst.opname} starting at word {pos} says it has "
                                f"{stated + 1} words, but found {i + n + 1} words instead.", pos)
            raise self.fail(f"End of input reached while decoding {inst.opname} starting at word {pos}: "
                            f"truncated possibly multi-word literal number operand at word offset {i + 1}.",
                            pos + 1 + i)
        words = body[i:i + n]
        self.add(inst, kind, number_from_words(words, ntype), words, pos + 1 + i)
        return i + n

    def definition(self, id_: int) -> Instruction | None:
        """The instruction read so far that defines id_ (indexed on demand: only error checks and
        OpSwitch ask)."""
        insts = self.insts
        defs = self.defs
        for inst in insts[self.scanned:]:
            if inst.result_id is not None:
                defs.setdefault(inst.result_id, inst)
        self.scanned = len(insts)
        return defs.get(id_)

    def constant_type(self, inst: Instruction, pos: int):
        ntype = self.types.types.get(inst.result_type)  # type: ignore[arg-type]  # a constant has a result type
        if ntype is None and self.strict:
            t = self.definition(inst.result_type)  # type: ignore[arg-type]  # as above
            if t is None or not t.opname.startswith("OpType"):
                raise self.fail(f"Type Id {inst.result_type} is not a type", pos)
            raise self.fail(f"Type Id {inst.result_type} is not a scalar numeric type", pos)
        return ntype

    def selector_type(self, inst: Instruction, pos: int):
        sel = inst.operands[0].as_int
        d = self.definition(sel)
        if d is not None and d.opname.startswith("OpType"):
            if self.strict:
                raise self.fail(f"Invalid OpSwitch: selector id {sel} is a type, not a value", pos)
            return None
        if d is None or d.result_type is None:
            if self.strict:
                raise self.fail(f"Invalid OpSwitch: selector id {sel} has no type", pos)
            return None
        ntype = self.types.types.get(d.result_type)
        if self.strict:
            if ntype is None:
                raise self.fail(f"Type Id {d.result_type} is not a scalar numeric type", pos)
            if ntype[0] != "int":
                raise self.fail(f"Invalid OpSwitch: selector id {sel} is not a scalar integer", pos)
        return ntype

    id_plans: dict = {}
    use_id_plans = True  # False: decode every operand at once (tests compare both)


def literal_word_count(width: int) -> int:
    """Words of a literal of a `width`-bit type, computed as SPIRV-Tools does (measured with
    spirv-dis 2025.5: 'OpTypeInt 4294967295 0' takes 0 words, so its OpConstant is refused)."""
    return (((width + 31) & 0xFFFFFFFF) // 32) & 0xFFFF


# SPIR-V 1.0 .. 1.6: the version words SPIRV-Tools 2025.5 reads
_VERSIONS = frozenset((1 << 16) | (minor << 8) for minor in range(7))
_ZERO_ID = {"IdResultType": "Error: Type Id is 0", "IdResult": "Error: Result Id is 0"}
_INVALID_SUFFIX = {"SourceLanguage": ", if you are creating a new source language please use value 0 "
                                     "(Unknown) and when ready, add your source language to SPIRV-Headers"}



_ID_LIST = (OperandSpec("IdRef", "*", ""),)  # the operands of an instruction of an unknown set
_ID_KINDS = ("IdResultType", "IdResult", "IdRef", "IdScope", "IdMemorySemantics")
_new_object = object.__new__
_new_span = tuple.__new__


def _id_only_plan(spec) -> tuple[tuple[str, ...] | None, int]:
    """(operand kind of each word, required word count) when an instruction whose words are all
    ids can be recognised by its length alone: its operands start with ids (optional ones
    included) and whatever follows is optional. (None, 0) otherwise."""
    kinds: list[str] = []
    required = 0
    ops = spec.operands
    for k, o in enumerate(ops):
        if o.kind not in _ID_KINDS:
            if any(not later.quantifier for later in ops[k:]):
                return None, 0
            break
        if o.quantifier == "*":
            if k != len(ops) - 1:
                return None, 0
            kinds.extend([o.kind] * 256)  # long enough for any practical id list
            break
        kinds.append(o.kind)
        if not o.quantifier:
            required = len(kinds)
    return tuple(kinds), required


class IdsOnlyInstruction(LazyInstruction):
    """An instruction all of whose words are ids, read from a binary: operands made on first use,
    and the disassembler prints them straight from the words. _pending = (kinds, ids)."""
    __slots__ = ()

    def _decode(self, pending) -> list[Operand]:
        kinds, ids = pending
        return [Operand(k, w, (w,)) for k, w in zip(kinds, ids, strict=False)]

    def _pending_words(self, pending) -> list[int]:
        head = [w for w in (self.result_type, self.result_id) if w is not None]
        return [((len(head) + len(pending[1]) + 1) << 16) | self.opcode, *head, *pending[1]]

    def pending_ids(self) -> list[int] | None:
        """The operand ids if operands were not made yet (for fast printing), else None."""
        pending = self._pending
        return pending[1] if pending is not None else None

    def operand_values(self) -> list:
        pending = self._pending
        return pending[1] if pending is not None else Instruction.operand_values(self)

    def ref_ids(self) -> list[int]:
        pending = self._pending
        if pending is None:
            return Instruction.ref_ids(self)
        kinds, ids = pending   # kinds may be longer than ids (a variable id list's kind is repeated)
        return [v for k, v in zip(kinds, ids, strict=False) if k == "IdRef"]


def words_from_bytes(data: bytes, source: str = "<input>") -> list[int]:
    """The words of a binary in either byte order; the checks and messages are spirv-dis's."""
    def fail(message: str, word: int) -> SpvError:
        return SpvError(Diagnostic("error", message, Span(0, 0, word=word), source=source))

    if len(data) >= 4 and not is_binary(data) and _looks_like_text(data):
        raise fail("not a SPIR-V binary (no magic number): this looks like assembly text; assemble it "
                   "with 'spvcoop as'", 0)
    if len(data) % 4:
        raise fail(f"binary size {len(data)} is not a multiple of 4 bytes", len(data) // 4)
    if not data:
        raise fail("Missing module.", 0)
    if len(data) < 20:
        raise fail(f"Module has incomplete header: only {len(data) // 4} words instead of 5", len(data) // 4)
    a = array("I")
    a.frombytes(data)
    magic = a[0]
    if magic != MAGIC:
        a.byteswap()
        if a[0] != MAGIC:
            raise fail(f"Invalid SPIR-V magic number '{magic:x}'.", 0)
    return a.tolist()


def read_binary(data: bytes, source: str = "<input>") -> Module:
    """Decode a SPIR-V binary into a Module (raises SpvError on malformed input)."""
    words = words_from_bytes(data, source)
    return BinaryReader(words, source, load_grammar()).read()


def _looks_like_text(data: bytes) -> bool:
    head = data[:4096].decode("utf-8", "replace").rstrip("\ufffd")  # a cut last character is fine
    return "\ufffd" not in head and all(c.isprintable() or c in "\n\r\t" for c in head)


def is_binary(data: bytes) -> bool:
    return len(data) >= 4 and data[:4] in (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")

"""SPIR-V binary <-> Module. Operands are decoded by the grammar, never by hand."""
from __future__ import annotations

import struct
from array import array

from .diagnostics import SpvError, Diagnostic
from .literals import float_type
from .module import MAGIC, Header, Instruction, LazyInstruction, Module, Operand, Span
from .operand_walk import OperandWalk
from .spirv_grammar import Grammar, OperandSpec, load as load_grammar


def decode_string(words: list[int] | tuple[int, ...], start: int) -> tuple[str, int] | None:
    """The NUL-terminated UTF-8 string at words[start:], and the word count it takes."""
    out = bytearray()
    i = start
    while i < len(words):
        w = words[i]
        i += 1
        for shift in (0, 8, 16, 24):
            b = (w >> shift) & 0xFF
            if b == 0:
                return out.decode("utf-8", errors="surrogateescape"), i - start
            out.append(b)
    return None


def encode_string(s: str) -> tuple[int, ...]:
    data = s.encode("utf-8", errors="surrogateescape") + b"\0"
    data += b"\0" * (-len(data) % 4)
    return struct.unpack(f"<{len(data) // 4}I", data)


def _encoding(inst: Instruction) -> str | None:
    """The FPEncoding name of an OpTypeFloat, if it has one (shared with the assembler and disassembler)."""
    if len(inst.operands) < 2:
        return None
    e = load_grammar().operand_kinds["FPEncoding"].by_value.get(inst.operands[1].value)
    return e.name if e else None


class _NumericTypes:
    """id -> ('int'|'float', width, signed) for OpTypeInt/OpTypeFloat seen so far."""

    def __init__(self) -> None:
        self.types: dict[int, tuple[str, int, bool]] = {}

    def note(self, inst: Instruction) -> None:
        ntype = numeric_type(inst)
        if ntype is not None:
            self.types[inst.result_id] = ntype


def numeric_type(inst: Instruction) -> tuple[str, int, bool] | None:
    """(kind, width, signed) of an OpTypeInt / OpTypeFloat, which decides how literals of that type
    are read and printed: kind 'int', 'float' (IEEE) or an encoded float format ('bf16', ...).
    The one place the assembler, the binary reader and the disassembler learn it from."""
    if inst.opname == "OpTypeInt":
        return ("int", inst.operands[0].value, bool(inst.operands[1].value))
    if inst.opname == "OpTypeFloat":
        return float_type(inst.operands[0].value, _encoding(inst))
    return None


def number_from_words(words, ntype: tuple[str, int, bool] | None):
    """Decode a context-dependent literal number."""
    if ntype is None:
        return words[0] if len(words) == 1 else sum(w << (32 * i) for i, w in enumerate(words))
    kind, width, signed = ntype
    bits = 0
    for i, w in enumerate(words):
        bits |= w << (32 * i)
    bits &= (1 << width) - 1
    if kind == "int":
        if signed and bits >> (width - 1):
            bits -= 1 << width
        return bits
    return bits  # floats keep their bit pattern; the disassembler formats it


class BinaryReader:
    def __init__(self, words: list[int], source: str, grammar: Grammar):
        self.w = words
        self.source = source
        self.g = grammar
        self.types = _NumericTypes()
        self.ext_sets: dict[int, str] = {}

    def fail(self, message: str, word: int) -> SpvError:
        return SpvError(Diagnostic("error", message, Span(0, 0, word=word), source=self.source))

    def read(self) -> Module:
        w = self.w
        if len(w) < 5:
            raise self.fail(f"truncated header: {len(w)} of 5 words", len(w))
        header = Header(w[1], w[2], w[3], w[4])
        insts: list[Instruction] = []
        pos = 5
        n = len(w)
        plans = self.id_plans
        fast = self.use_id_plans
        by_opcode = self.g.by_opcode
        while pos < n:
            first = w[pos]
            count, opcode = first >> 16, first & 0xFFFF
            if count == 0:
                raise self.fail(f"instruction word count is 0 (opcode {opcode})", pos)
            end = pos + count
            if end > n:
                raise self.fail(f"instruction word count {count} runs past the end of the module "
                                f"({n - pos} words left)", pos)
            plan = plans.get(opcode)
            if plan is None:
                spec = by_opcode.get(opcode)
                if spec is None:
                    raise self.fail(f"invalid opcode {opcode}", pos)
                plan = plans[opcode] = (*_id_only_plan(spec), spec)
            kinds, required, spec = plan
            if fast and kinds is not None and required < count <= len(kinds) + 1:
                # every word is an id (most instructions of a large module): keep the words and make
                # Operand objects only when asked; built without the dataclass __init__
                inst = _new_object(IdsOnlyInstruction)
                inst.opname = spec.opname
                inst.opcode = opcode
                k = pos + 1
                if spec.has_result_type:
                    inst.result_type = w[k]
                    k += 1
                else:
                    inst.result_type = None
                if spec.has_result:
                    inst.result_id = w[k]
                    k += 1
                else:
                    inst.result_id = None
                inst.span = _new_span(Span, (0, 0, 0, pos))
                inst._pending = (kinds[k - pos - 1:], w[k:end])
            else:
                inst = self.instruction(opcode, w[pos + 1:end], pos)
            inst.index = len(insts)
            insts.append(inst)
            pos = end
        return Module(header, insts, self.source)

    def instruction(self, opcode: int, body: list[int], pos: int) -> Instruction:
        spec = self.g.by_opcode.get(opcode)
        if spec is None:
            raise self.fail(f"invalid opcode {opcode}", pos)
        plan = self.id_plans.get(opcode)
        if plan is None:
            plan = self.id_plans[opcode] = (*_id_only_plan(spec), spec)
        kinds, required, _ = plan
        if kinds is not None and required <= len(body) <= len(kinds) and self.use_id_plans:
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
        self.decode_operands(inst, spec.operands, body, pos)
        if inst.opname in ("OpTypeInt", "OpTypeFloat"):
            self.types.note(inst)
        elif inst.opname == "OpExtInstImport":
            self.ext_sets[inst.result_id] = inst.operands[0].value
        return inst

    def decode_operands(self, inst: Instruction, specs, body: list[int], pos: int) -> None:
        """Read body (the words after the opcode word) as the operands the grammar walk expects."""
        walk = OperandWalk(specs, self.g.operand_kinds)
        n = len(body)
        i = 0
        while True:
            o = walk.next(i < n)
            if o is None:
                break
            if i >= n:
                raise self.fail(f"{inst.opname}: missing operand '{o.name or o.kind}' ({o.kind})", pos)
            i = self.operand(inst, o, body, i, pos, walk)
        if i < n:
            raise self.fail(f"{inst.opname}: {n - i} word(s) left over after the last operand", pos + 1 + i)

    def add(self, inst: Instruction, kind: str, value, words, pos: int) -> None:
        inst.operands.append(Operand(kind, value, tuple(words), Span(0, 0, word=pos)))

    def operand(self, inst: Instruction, spec: OperandSpec, body: list[int], i: int, pos: int,
                walk: OperandWalk) -> int:
        """Read one operand at body[i] (which exists); return the index after it."""
        kind = spec.kind
        wpos = pos + 1 + i
        if kind == "IdResultType":
            inst.result_type = body[i]
            return i + 1
        if kind == "IdResult":
            inst.result_id = body[i]
            return i + 1
        if kind.startswith("Id"):
            self.add(inst, kind, body[i], body[i:i + 1], wpos)
            return i + 1
        if kind == "LiteralString":
            r = decode_string(body, i)
            if r is None:
                raise self.fail(f"{inst.opname}: string operand is not NUL-terminated", wpos)
            s, n = r
            self.add(inst, kind, s, body[i:i + n], wpos)
            return i + n
        if kind == "LiteralContextDependentNumber":
            ntype = None
            if inst.opname in ("OpConstant", "OpSpecConstant"):
                ntype = self.types.types.get(inst.result_type)
            n = len(body) - i
            if ntype is not None:
                n = 2 if ntype[1] > 32 else 1
            if n > len(body) - i or n <= 0:
                raise self.fail(f"{inst.opname}: literal needs {n} word(s)", wpos)
            self.add(inst, kind, number_from_words(body[i:i + n], ntype), body[i:i + n], wpos)
            return i + n
        if kind == "LiteralExtInstInteger":
            self.add(inst, kind, body[i], body[i:i + 1], wpos)
            set_name = self.ext_sets.get(inst.operands[0].value if inst.operands else -1)
            ext = self.g.ext_set(set_name) if set_name else None
            espec = ext.by_opcode.get(body[i]) if ext else None
            if espec is None:
                walk.replace(_ID_LIST)
            else:
                walk.replace(espec.operands, ext.operand_kinds)
            return i + 1
        if kind == "LiteralSpecConstantOpInteger":
            op = body[i]
            self.add(inst, kind, op, body[i:i + 1], wpos)
            target = self.g.by_opcode.get(op)
            if target is None:
                raise self.fail(f"OpSpecConstantOp: invalid opcode {op}", wpos)
            walk.insert(s for s in target.operands if s.kind not in ("IdResultType", "IdResult"))
            return i + 1
        if kind in ("LiteralInteger", "LiteralFloat"):
            self.add(inst, kind, body[i], body[i:i + 1], wpos)
            return i + 1
        okind = walk.kind(kind)
        if okind is None:
            raise self.fail(f"{inst.opname}: unknown operand kind {kind}", wpos)
        v = body[i]
        self.add(inst, kind, v, body[i:i + 1], wpos)
        if okind.category in ("ValueEnum", "BitEnum"):
            walk.enum_value(okind, v)
        return i + 1

    id_plans: dict = {}
    use_id_plans = True  # False: decode every operand at once (tests compare both)


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
        return [Operand(k, w, (w,)) for k, w in zip(kinds, ids)]

    def _pending_words(self, pending) -> list[int]:
        head = [w for w in (self.result_type, self.result_id) if w is not None]
        return [((len(head) + len(pending[1]) + 1) << 16) | self.opcode, *head, *pending[1]]

    def pending_ids(self) -> list[int] | None:
        """The operand ids if operands were not made yet (for fast printing), else None."""
        pending = self._pending
        return pending[1] if pending is not None else None


def words_from_bytes(data: bytes, source: str = "<input>") -> list[int]:
    if len(data) >= 4 and not is_binary(data) and _looks_like_text(data):
        raise SpvError(Diagnostic("error", "not a SPIR-V binary (no magic number): this looks like assembly "
                                  "text; assemble it with 'spvcoop as'", Span(0, 0, word=0), source=source))
    if len(data) % 4:
        raise SpvError(Diagnostic("error", f"binary size {len(data)} is not a multiple of 4 bytes",
                                  Span(0, 0, word=len(data) // 4), source=source))
    if len(data) < 4:
        raise SpvError(Diagnostic("error", "file too short to hold a SPIR-V module",
                                  Span(0, 0, word=0), source=source))
    a = array("I")
    a.frombytes(data)
    magic = a[0]
    if magic != MAGIC:
        a.byteswap()
        if a[0] != MAGIC:
            raise SpvError(Diagnostic("error", f"invalid magic number 0x{magic:08x} (expected 0x{MAGIC:08x})",
                                      Span(0, 0, word=0), source=source))
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

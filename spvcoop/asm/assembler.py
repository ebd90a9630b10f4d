"""SPIR-V assembly text -> Module, byte-for-byte what spirv-as produces.

The syntax (tokens, instruction boundaries) is grammar/spvasm.lark, implemented
fast by spvcoop.asm.tokenizer. Operand meaning comes from the SPIR-V grammar: each
instruction's operand list (with `?` and `*` quantifiers), enumerants and their
parameters, extended instruction sets, and, for literal numbers, the type of
the result (OpConstant) or of the selector (OpSwitch).
"""
from __future__ import annotations

import re
from collections import deque
from typing import cast

from ..binary.reader import encode_string, numeric_type
from ..core.diagnostics import Diagnostic, Note, SpvError, did_you_mean
from ..core.literals import LiteralError, float_words, int_words, parse_float, parse_int
from ..core.module import Header, Instruction, Module, Operand, Span
from ..core.spirv_grammar import SPEC_CONSTANT_OP_OPCODES, Grammar, InstructionSpec, OperandSpec, \
    load as load_grammar, newer_capability
from .line_templates import Fill, TemplatedLines
from .target_envs import TARGET_ENVS
from ..core.operand_walk import OperandWalk
from .tokenizer import Token, group_instructions, token_span, tokenize


GENERATOR_SPIRV_TOOLS_ASSEMBLER = 0x00070000


def _version_word(version: str) -> int:
    """The grammar's "1.4" as the header's version word (0x10400); "None" (no core version) as above all."""
    major, _, minor = version.partition(".")
    if not (major.isdigit() and minor.isdigit()):
        return 1 << 32
    return int(major) << 16 | int(minor) << 8

_TYPE_OPCODES_PREFIX = "OpType"
_ID_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
_ID_KINDS = frozenset({"IdRef", "IdScope", "IdMemorySemantics"})
_new_span = tuple.__new__
_ID_LIST = (OperandSpec("IdRef", "*", ""),)  # the operands of an instruction of an unknown set


def _string_value(tok: Token) -> str:
    """A quoted string: a backslash makes the next character literal and is dropped."""
    body = tok[1][1:-1]
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(body[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _numeric_id(name: str) -> int | None:
    """The number a numeric id name keeps with --preserve-numeric-ids: decimal digits (leading
    zeros allowed) of a value below 2**32; spirv-as treats any other name, such as %4294967296,
    as a name and numbers it afresh (measured)."""
    if not name.isdigit() or not name.isascii():
        return None
    digits = name.lstrip("0")
    if len(digits) > 10:
        return None
    n = int(digits or "0")
    return n if n <= 0xFFFFFFFF else None


class _Ids:
    """Id names -> numbers: first textual appearance, or kept if numeric and preserving."""

    def __init__(self, preserve_numeric: bool, tokens: list[Token]):
        self.numbers: dict[str, int] = {}
        self.used: set[int] = set()  # numbers taken by numeric names (preserving only)
        self.next = 1
        self.largest = 0
        if preserve_numeric:
            for t in tokens:
                if t[0] in ("ID", "RESULT"):
                    name = t[1][1:]
                    n = _numeric_id(name)
                    if n is not None:
                        self.numbers[name] = n
                        self.used.add(n)
                        if n < 0xFFFFFFFF:  # spirv-as: the bound (n + 1) wraps to 0 and is dropped
                            self.largest = max(self.largest, n)

    def get(self, name: str) -> int:
        n = self.numbers.get(name)
        if n is None:
            if self.used:
                n = self.next
                while n in self.used:
                    n += 1
                self.next = n + 1
            else:
                # numbers handed out in order from 1 (the assembler's templated lines number
                # new ids inline the same way)
                n = len(self.numbers) + 1
            self.numbers[name] = n
            if n > self.largest:
                self.largest = n
        return n

    def bound(self) -> int:
        return (self.largest if self.used else max(self.largest, len(self.numbers))) + 1


class Assembler(TemplatedLines):
    use_templates = True  # False: every line through the general token path (tests compare both)
    ids: _Ids  # (TemplatedLines declares only the names table it reads)
    def __init__(self, text: str, source: str, target_env: str, preserve_numeric_ids: bool,
                 grammar: Grammar):
        self.text = text
        self.source = source
        self.g = grammar
        if target_env not in TARGET_ENVS:
            raise SpvError(Diagnostic(
                "error", f"unknown target environment '{target_env}'{did_you_mean(target_env, TARGET_ENVS)}",
                source=source))
        self.version = TARGET_ENVS[target_env]
        self.preserve = preserve_numeric_ids
        # id -> ('int'|'float', width, signed) for numeric types; set ids -> import name
        self.numeric_types: dict[int, tuple[str, int, bool]] = {}
        self.type_ids: dict[int, Token] = {}
        self.ext_sets: dict[int, str] = {}
        self.value_types: dict[int, int] = {}  # result id -> result type id (for OpSwitch selectors)
        self.plans: dict[int, tuple[tuple[OperandSpec, ...], int]] = {}  # opcode -> (operands after result id, lead)
        self.templates: dict[tuple, Fill] = {}  # line shape -> the function that encodes such a line
        self.template_meta: dict[tuple, tuple] = {}  # line shape -> (spec, has result, opname, word count)
        self.no_template: set[tuple] = set()

    def fail(self, message: str, tok: Token | None, notes: list[Note] | None = None) -> SpvError:
        span = token_span(tok) if tok is not None else None
        return SpvError(Diagnostic("error", message, span, notes=notes or [], source=self.source))

    # ---- driver ----
    def refuse_empty(self) -> None:
        """spirv-as refuses a file of no characters at all (one of only blanks or comments is an empty module)."""
        if not self.text:
            raise SpvError(Diagnostic("error", "Missing assembly text.", Span(1, 1, 1), source=self.source))

    def assemble(self) -> Module:
        self.refuse_empty()
        self.instructions: list[Instruction] = []
        if self.preserve:
            # numeric names must be known before the first id is numbered: one slow pass
            tokens = tokenize(self.text, self.source)
            self.ids = _Ids(True, tokens)
            self.encode_tokens(tokens, None, True)
        elif not self.use_templates:
            self.ids = _Ids(False, [])
            self.encode_tokens(tokenize(self.text, self.source), None, True)
        else:
            self.ids = _Ids(False, [])
            self.assemble_lines(keep_instructions=True)
        names = {v: k for k, v in self.ids.numbers.items()}
        return Module(self.header(), self.instructions, self.source, self.text, names)

    def header(self) -> Header:
        return Header(self.version, GENERATOR_SPIRV_TOOLS_ASSEMBLER, self.ids.bound(), 0)

    def assemble_binary(self) -> bytes:
        """The module's binary, the same bytes as assemble().to_bytes(); templated lines never
        become Instruction objects."""
        if self.preserve or not self.use_templates:
            return self.assemble().to_bytes()
        self.refuse_empty()
        self.instructions = []
        self.ids = _Ids(False, [])
        words = self.assemble_lines(keep_instructions=False)
        return Module(self.header(), []).to_bytes(words)

    def encode_tokens(self, tokens: list[Token], following: Token | None, at_end: bool) -> None:
        """The general path: group tokens into instructions and encode each by the grammar."""
        lead, groups = group_instructions(tokens)
        pending: deque[list[Token]] = deque()
        if lead:
            pending.append(lead)
        pending.extend(groups)
        instructions = self.instructions
        while pending:
            group = pending.popleft()
            self.last_group = not pending and at_end
            self.next_token = (pending[0][0] if pending[0] else None) if pending else following
            inst, rest = self.instruction(group)
            inst.index = len(instructions)
            instructions.append(inst)
            if rest:
                if rest[0][0] != "RAW":
                    raise self.fail(f"Expected <opcode> or <result-id> at the beginning of an "
                                    f"instruction, found '{rest[0][1]}'.", rest[0])
                pending.appendleft(rest)

    def id_of(self, tok: Token) -> int:
        name = tok[1][1:]
        n = self.ids.numbers.get(name)
        if n is not None:
            return n
        if not _ID_NAME.match(name):
            raise self.fail(f"Invalid ID {name}", tok)
        return self.ids.get(name)

    # ---- one instruction ----
    def instruction(self, group: list[Token]) -> tuple[Instruction, list[Token]]:
        first = group[0]
        if first[0] == "RAW":
            return self.raw_instruction(group), []
        result_tok = None
        i = 0
        if first[0] == "RESULT":
            result_tok = first
            if len(group) < 3 or group[2][0] != "OPNAME":
                found = f" but found '{group[2][1]}'" if len(group) > 2 else ""
                raise self.fail(f"Expected opcode after '=' following result id {first[1]}{found}.",
                                group[2] if len(group) > 2 else group[1])
            i = 2
        elif first[0] != "OPNAME":
            if first[0] == "RESULT" or first[0] == "ID":
                raise self.fail(f"'=' expected after result id {first[1]}.", first)
            raise self.fail(f"Expected <opcode> or <result-id> at the beginning of an instruction, "
                            f"found '{first[1]}'.", first)
        op_tok = group[i]
        spec = self.g.instructions.get(op_tok[1])
        if spec is None:
            raise self.fail(f"Invalid Opcode name '{op_tok[1]}'{did_you_mean(op_tok[1], self.g.instructions)}",
                            op_tok)
        if spec.version != "1.0" and not spec.capabilities and not spec.extensions and \
                _version_word(spec.version) > self.version:
            # spirv-as refuses, with its unknown-name message, an opcode that no capability or extension
            # can enable before the target environment's SPIR-V version (OpCopyLogical at spv1.3)
            have = f"{self.version >> 16 & 0xff}.{self.version >> 8 & 0xff}"
            raise self.fail(f"Invalid Opcode name '{op_tok[1]}' ({spec.opname} needs SPIR-V {spec.version}; the "
                            f"target environment has SPIR-V {have})", op_tok)
        inst = Instruction(spec.opname, spec.opcode, span=token_span(op_tok))
        if result_tok is not None:
            inst.span = Span(result_tok[2], result_tok[3], op_tok[3] + len(op_tok[1])) \
                if result_tok[2] == op_tok[2] else token_span(result_tok)
        operands = group[i + 1:]
        if spec.has_result:
            if result_tok is None:
                raise self.fail(f"Expected <result-id> at the beginning of an instruction, found '{op_tok[1]}'.",
                                op_tok)
            if spec.has_result_type and operands and operands[0][0] == "ID":
                self.id_of(operands[0])  # spirv-as numbers the result type before the result id
            inst.result_id = self.id_of(result_tok)
            if spec.opname.startswith(_TYPE_OPCODES_PREFIX):
                if inst.result_id in self.type_ids:
                    prev = self.type_ids[inst.result_id]
                    raise self.fail(f"Value {inst.result_id} has already been used to generate a type",
                                    result_tok, [Note(f"{prev[1]} first defined here", token_span(prev))])
                self.type_ids[inst.result_id] = result_tok
        elif result_tok is not None:
            raise self.fail(f"Cannot set ID {result_tok[1]} because {spec.opname} does not produce a result ID.",
                            result_tok)
        self.cur_tokens = operands or [op_tok]
        rest = self.operands(inst, spec, operands, op_tok)
        self.check_length(inst)
        self.after(inst)
        return inst, rest

    def check_length(self, inst: Instruction) -> None:
        """A word count must fit the 16 bits of the opcode word (spirv-as's message)."""
        total = 1 + (inst.result_type is not None) + (inst.result_id is not None)
        for o in inst.operands:
            total += len(o.words)
            if total > 0xFFFF:
                raise SpvError(Diagnostic("error", "Instruction too long: more than 65535 words.",
                                          o.span or inst.span, source=self.source))

    def after(self, inst: Instruction) -> None:
        """Remember what later instructions' literals depend on."""
        op = inst.opname
        if op in ("OpTypeInt", "OpTypeFloat"):
            self.numeric_types[cast(int, inst.result_id)] = cast("tuple[str, int, bool]", numeric_type(inst))
        elif op == "OpExtInstImport":
            name = inst.operands[0].value
            if not isinstance(name, str):
                return  # `OpExtInstImport !1`: spirv-as takes it; an OpExtInst of this set is refused
            if not self.g.ext_import_known(name):
                raise self.fail(f"Invalid extended instruction import '{name}'", self.cur_tokens[0])
            self.ext_sets[cast(int, inst.result_id)] = name
        if inst.result_type is not None and inst.result_id is not None:
            self.value_types[inst.result_id] = inst.result_type

    def operands(self, inst: Instruction, spec: InstructionSpec, toks: list[Token], op_tok: Token) -> list[Token]:
        plan = self.plans.get(spec.opcode)
        if plan is None:
            ops = tuple(o for o in spec.operands if o.kind != "IdResult")
            lead = 0  # how many leading operands are required ids (the fast path below)
            while lead < len(ops) and not ops[lead].quantifier and (
                    ops[lead].kind in _ID_KINDS or ops[lead].kind == "IdResultType"):
                lead += 1
            plan = self.plans[spec.opcode] = (ops, lead)
        ops, lead = plan
        n = len(toks)
        numbers = self.ids.numbers
        append = inst.operands.append
        pos = 0
        while pos < lead and pos < n:
            tok = toks[pos]
            if tok[0] != "ID":
                break
            v = numbers.get(tok[1][1:])
            if v is None:
                v = self.id_of(tok)
            kind = ops[pos].kind
            if kind == "IdResultType":
                inst.result_type = v
            else:
                text = tok[1]
                col = tok[3]
                append(Operand(kind, v, (v,), _new_span(Span, (tok[2], col, col + len(text), -1)), text))
            pos += 1
        if pos == len(ops):
            return toks[pos:]
        walk = OperandWalk(ops[pos:], self.g.operand_kinds)
        while True:
            more = pos < n
            o = walk.next(more)
            if o is None:
                break
            if more:
                # the common case first: an id operand, already numbered
                tok = toks[pos]
                if tok[0] == "ID" and o.kind in _ID_KINDS:
                    v = numbers.get(tok[1][1:])
                    if v is not None:
                        text = tok[1]
                        col = tok[3]
                        append(Operand(o.kind, v, (v,), _new_span(Span, (tok[2], col, col + len(text), -1)), text))
                        pos += 1
                        continue
            else:
                nxt = self.next_token
                if o.kind == "LiteralSpecConstantOpInteger" and nxt is not None and nxt[0] == "OPNAME":
                    raise self.fail(f"OpSpecConstantOp takes the opcode name without 'Op': write "
                                    f"'{nxt[1][2:]}', not '{nxt[1]}'", nxt)
                raise self.fail(f"Expected operand for {inst.opname} instruction, but found the "
                                f"{'end of the stream' if self.last_group else 'next instruction instead'}.",
                                toks[-1] if toks else op_tok,
                                [Note(f"missing operand '{o.name or o.kind}' ({o.kind})")])
            if tok[0] == "RAW":
                # !<integer>: the word verbatim, then raw mode for the rest of the instruction
                for t in toks[pos:]:
                    self.raw_operand(inst, t)
                return []
            pos = self.operand(inst, o, toks, pos, walk)
        return toks[pos:]

    # ---- operands ----
    def operand(self, inst: Instruction, o: OperandSpec, toks: list[Token], pos: int,
                walk: OperandWalk) -> int:
        tok = toks[pos]
        kind = o.kind
        if kind == "IdResultType":
            inst.result_type = self.expect_id(tok)
            return pos + 1
        if kind.startswith("Id"):
            self.push(inst, kind, self.expect_id(tok), None, tok)
            return pos + 1
        if kind == "LiteralString":
            if tok[0] != "STRING":
                raise self.fail(f"Expected string literal, found '{tok[1]}'.", tok)
            s = self.string_value(tok)
            self.push(inst, kind, s, encode_string(s), tok)
            return pos + 1
        if kind == "LiteralInteger":
            if inst.opname == "OpSwitch":
                return self.switch_case(inst, tok, pos)
            v = self.literal(tok, lambda t: parse_int(t, 32, False))
            self.push(inst, kind, v, (v,), tok)
            return pos + 1
        if kind == "LiteralFloat":
            v = self.literal(tok, lambda t: parse_float(t, 32))
            self.push(inst, kind, v, (v,), tok)
            return pos + 1
        if kind == "LiteralContextDependentNumber":
            return self.context_number(inst, tok, pos)
        if kind == "LiteralExtInstInteger":
            return self.ext_inst(inst, tok, pos, walk)
        if kind == "LiteralSpecConstantOpInteger":
            target = self.g.instructions.get("Op" + tok[1]) if tok[0] == "WORD" else None
            if target is None or tok[1].startswith("Op"):
                hint = did_you_mean("Op" + tok[1], self.g.instructions) if tok[0] == "WORD" else ""
                raise self.fail(f"Invalid Opcode name '{tok[1]}' (OpSpecConstantOp takes the opcode "
                                f"name without 'Op'){hint.replace(' Op', ' ').replace(chr(39) + 'Op', chr(39))}", tok)
            if target.opname not in SPEC_CONSTANT_OP_OPCODES:
                raise self.fail(f"Invalid OpSpecConstantOp opcode '{tok[1]}'.", tok)
            self.push(inst, kind, target.opcode, (target.opcode,), tok)
            walk.insert(s for s in target.operands if s.kind not in ("IdResultType", "IdResult"))
            return pos + 1
        okind = walk.kind(kind)
        if okind is None:
            raise self.fail(f"unknown operand kind {kind}", tok)
        if okind.category == "ValueEnum":
            if tok[0] != "WORD":
                raise self.fail(f"Invalid {_kind_words(kind)} '{tok[1]}'.", tok)
            e = okind.by_name.get(tok[1])
            if e is None:
                hint = newer_capability(tok[1]) if kind == "Capability" else ""
                raise self.fail(f"Invalid {_kind_words(kind)} '{tok[1]}'."
                                f"{hint or did_you_mean(tok[1], okind.by_name)}", tok)
            self.push(inst, kind, e.value, (e.value,), tok)
            walk.enum_value(okind, e.value)
            return pos + 1
        if okind.category == "BitEnum":
            if tok[0] != "WORD":
                raise self.fail(f"Invalid {_kind_words(kind)} operand '{tok[1]}'.", tok)
            value = 0
            for part in tok[1].split("|"):
                e = okind.by_name.get(part)
                if e is None:
                    raise self.fail(f"Invalid {_kind_words(kind)} operand '{tok[1]}'."
                                    f"{did_you_mean(part, okind.by_name)}", tok)
                value |= e.value
            self.push(inst, kind, value, (value,), tok)
            walk.enum_value(okind, value)
            return pos + 1
        raise self.fail(f"unsupported operand kind {kind}", tok)

    def push(self, inst: Instruction, kind: str, value, words, tok: Token) -> None:
        text = tok[1]
        inst.operands.append(Operand(kind, value, tuple(words) if words is not None else (value,),
                                     _new_span(Span, (tok[2], tok[3], tok[3] + len(text), -1)), text))

    def string_value(self, tok: Token) -> str:
        """A string literal's text; a NUL byte would end it early in the binary: spirv-as refuses it
        (its lexer ends the token there), so do we."""
        if "\0" in tok[1]:
            raise self.fail(f"Invalid literal string '{tok[1][:tok[1].index(chr(0))]}'.", tok)
        return _string_value(tok)

    def expect_id(self, tok: Token) -> int:
        if tok[0] not in ("ID", "RESULT"):
            raise self.fail(f"Expected id to start with %, found '{tok[1]}'.", tok)
        return self.id_of(tok)

    def literal(self, tok: Token, parse):
        if tok[0] != "WORD":
            what = "string" if tok[0] == "STRING" else tok[1]
            raise self.fail(f"Expected a literal number, found {what!r}.", tok)
        try:
            return parse(tok[1])
        except LiteralError as e:
            raise self.fail(str(e), tok) from None

    def number_of_type(self, tok: Token, ntype: tuple[str, int, bool]) -> tuple[int, tuple[int, ...]]:
        kind, width, signed = ntype
        if kind == "int":
            v = self.literal(tok, lambda t: parse_int(t, width, signed))
            return v, int_words(v, width)
        bits = self.literal(tok, lambda t: parse_float(t, width, kind))
        return bits, float_words(bits, width)

    def context_number(self, inst: Instruction, tok: Token, pos: int) -> int:
        ntype = self.numeric_types.get(inst.result_type)  # type: ignore[arg-type]  # None finds none: the error below
        if ntype is None:
            raise self.fail("Type for Constant must be a scalar floating point or integer type", tok)
        v, words = self.number_of_type(tok, ntype)
        self.push(inst, "LiteralContextDependentNumber", v, words, tok)
        return pos + 1

    def switch_case(self, inst: Instruction, tok: Token, pos: int) -> int:
        """A case literal of OpSwitch, in the width of the selector's type."""
        selector = inst.operands[0].as_int
        ntype = self.numeric_types.get(self.value_types.get(selector, -1))
        if ntype is None or ntype[0] != "int":
            raise self.fail("The selector operand for OpSwitch must be the result of an instruction that "
                            "generates an integer scalar", tok)
        v, words = self.number_of_type(tok, ntype)
        self.push(inst, "LiteralInteger", v, words, tok)
        return pos + 1

    def ext_inst(self, inst: Instruction, tok: Token, pos: int, walk: OperandWalk) -> int:
        set_id = inst.operands[0].as_int if inst.operands else None
        set_name = self.ext_sets.get(set_id) if set_id is not None else None
        if set_name is None:
            span = inst.operands[0].span if inst.operands else token_span(tok)
            raise SpvError(Diagnostic("error", f"Invalid extended instruction import Id {set_id}", span,
                                      source=self.source))
        ext = self.g.ext_set(set_name) if set_name else None
        if ext is None:
            # unknown (e.g. NonSemantic.*) set: numbers only, then ids
            v = self.literal(tok, lambda t: parse_int(t, 32, False))
            self.push(inst, "LiteralExtInstInteger", v, (v,), tok)
            walk.replace(_ID_LIST)
            return pos + 1
        espec = ext.instructions.get(tok[1])
        if espec is None:
            if tok[0] == "WORD" and tok[1][:1].isdigit() and set_name.startswith("NonSemantic."):
                # NonSemantic sets also take instruction numbers
                v = self.literal(tok, lambda t: parse_int(t, 32, False))
                espec = ext.by_opcode.get(v)
                self.push(inst, "LiteralExtInstInteger", v, (v,), tok)
                walk.replace(espec.operands if espec else _ID_LIST, ext.operand_kinds)
                return pos + 1
            raise self.fail(f"Invalid extended instruction name '{tok[1]}'."
                            f"{did_you_mean(tok[1], ext.instructions)}", tok)
        self.push(inst, "LiteralExtInstInteger", espec.opcode, (espec.opcode,), tok)
        walk.replace(espec.operands, ext.operand_kinds)
        return pos + 1

    # ---- raw words ----
    def raw_operand(self, inst: Instruction, tok: Token) -> None:
        if tok[0] == "RAW":
            v = self.raw_number(tok, tok[1][1:])
            self.push(inst, "Raw", v, (v,), tok)
        elif tok[0] == "STRING":
            s = self.string_value(tok)
            self.push(inst, "LiteralString", s, encode_string(s), tok)
        elif tok[0] in ("ID", "RESULT"):
            self.push(inst, "IdRef", self.id_of(tok), None, tok)
        elif tok[0] == "WORD":
            v = self.raw_number(tok, tok[1])
            self.push(inst, "Raw", v, (v,), tok)
        else:
            raise self.fail(f"Expected a number, string or id, found '{tok[1]}'.", tok)

    def raw_number(self, tok: Token, text: str) -> int:
        try:
            v = int(text, 0) if not (len(text) > 1 and text[0] == "0" and text[1].isdigit()) else int(text, 8)
        except ValueError:
            raise self.fail(f"Invalid immediate integer: !{text}" if tok[0] == "RAW"
                            else f"Invalid immediate integer: {text}", tok) from None
        if not 0 <= v <= 0xFFFFFFFF:
            raise self.fail(f"Immediate {text} does not fit in a 32-bit word", tok)
        return v

    def unknown_instruction(self, tok: Token, head: int, opcode: int, words: list[int]) -> Instruction:
        inst = Instruction("OpUnknown", opcode, span=token_span(tok))
        inst.operands = [Operand("Raw", w, (w,), token_span(tok)) for w in words]
        # keep the header word exact
        inst.operands.insert(0, Operand("RawHeader", head, (), token_span(tok)))
        return inst

    def raw_instruction(self, group: list[Token]) -> Instruction:
        """`!<word> operands...`: a whole instruction as raw words; decoded afterwards."""
        head = self.raw_number(group[0], group[0][1][1:])
        words: list[int] = []
        tmp = Instruction("OpNop", 0)
        for t in group[1:]:
            self.raw_operand(tmp, t)
        for o in tmp.operands:
            words.extend(o.words)
        count, opcode = head >> 16, head & 0xFFFF
        spec = self.g.by_opcode.get(opcode)
        if spec is None or count != len(words) + 1:
            return self.unknown_instruction(group[0], head, opcode, words)
        from ..binary.reader import BinaryReader
        reader = BinaryReader([], self.source, self.g, strict=False)
        reader.types.types = self.numeric_types
        reader.ext_sets = self.ext_sets
        try:
            inst = reader.instruction(opcode, words, 0)
        except SpvError:
            # spirv-as writes `!<word>` instructions verbatim, whether they decode or not
            return self.unknown_instruction(group[0], head, opcode, words)
        inst.span = token_span(group[0])
        for o in inst.operands:
            o.span = token_span(group[0])
        self.after(inst)
        return inst


def _kind_words(kind: str) -> str:
    """'MemoryAccess' -> 'memory access', as spirv-as words its messages."""
    out = []
    for i, c in enumerate(kind):
        if c.isupper() and i and not kind[i - 1].isupper():
            out.append(" ")
        out.append(c.lower())
    return "".join(out)


def assemble(text: str, source: str = "<input>", target_env: str = "spv1.6",
             preserve_numeric_ids: bool = False) -> Module:
    """Assemble SPIR-V text into a Module; raises SpvError with file:line:col on bad input."""
    return Assembler(text, source, target_env, preserve_numeric_ids, load_grammar()).assemble()


def assemble_binary(text: str, source: str = "<input>", target_env: str = "spv1.6",
                    preserve_numeric_ids: bool = False) -> bytes:
    """assemble(...).to_bytes(), made without the Module when only the binary is wanted."""
    return Assembler(text, source, target_env, preserve_numeric_ids, load_grammar()).assemble_binary()

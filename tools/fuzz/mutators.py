"""Input mutators: bytes, SPIR-V words, assembly tokens, YAML trees and YAML text.

Every mutator takes a `random.Random` and returns a new value; the driver seeds that
generator from (campaign seed, entry point, input index), so an input is reproducible from
those three numbers alone.
"""
from __future__ import annotations

import random
import re
import struct

# Numbers an attacker tries first: width edges, overflow, float extremes, huge digit strings.
HOSTILE_NUMBERS = [
    "0", "-1", "1", "-0", "4294967295", "4294967296", "2147483648", "-2147483649",
    "18446744073709551615", "18446744073709551616", "-9223372036854775809",
    "1267650600228229401496703205376", "1e999", "-1e999", "0x1p99999", "0x1p-99999",
    "0x1p99999999999", "-0x1p99999999999", "9" * 5000, "nan", "inf", "0x", "1.5", "0x1.fffffep+127",
    "65536", "65535", "2e-45", "0xFFFFFFFFFFFFFFFFFFFF",
]

# Decimal float literals at the edges of f16/bf16/f32/f64: the largest finite values, just below and above
# the rounding boundary to infinity, halfway to the smallest subnormals (issue 32: 3.479020123082e38 rounds
# past the largest f32 and ended in an OverflowError; 7.006492321624086e-46 was rounded twice).
FLOAT_EDGES = [
    "3.4028234663852886e38", "3.4028235677973362e38", "3.4028235677973366e38", "3.402823567797337e38",
    "3.479020123082e38", "3.49999999e38", "3.5e38", "1e39", "1.401298464324817e-45", "7.006492321624085e-46",
    "7.006492321624086e-46", "1.1754943508222875e-38", "65504", "65519.99", "65520", "5.960464477539063e-08",
    "2.98e-8", "3.3895313892515355e38", "3.3961775292304086e38", "1.7976931348623157e308",
    "1.7976931348623158079e308", "1.7976931348623159e308", "4.9406564584124654e-324", "2.4703282292062328e-324",
]

# Tokens that break structure: stray punctuation, nesting, odd ids, escapes.
HOSTILE_TOKENS = [
    "!1", "!4294967295", "!", "[" * 3000, "!" * 5000, '"', '"\\', "\x00", "%", "%0", "%4294967296",
    "%1267650600228229401496703205376", "=", "OpFunctionCall", "OpFunctionCall %main",
    "OpBranch %main", "OpUnreachable", "OpFunctionEnd", "OpLabel", "OpReturn", "%main",
    "OpTypeInt 4294967295 0", "OpTypeInt 0 1", "OpTypeFloat 1", ";", "\ufffd", "Op", "|", "Volatile|",
    "0x1p99999999999", "\"" + "a" * 70000 + "\"",
]

_NUMBER = re.compile(r"(?<![%\w.])-?(?:0x[0-9a-fA-F.p+-]+|\d+(?:\.\d*)?(?:e[+-]?\d+)?)")
_ID = re.compile(r"%[\w.]+")
_TOKEN = re.compile(r"\S+")


def pick(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


# --- bytes -------------------------------------------------------------------------------------

def flip_bits(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def set_bytes(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = pick(rng, [0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
    return bytes(b)


def truncate(rng: random.Random, data):
    return data[:rng.randrange(len(data) + 1)] if data else data


def splice(rng: random.Random, a, b):
    """A head of `a` joined to a tail of `b` (same type)."""
    return a[:rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):]


def invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    i = rng.randrange(len(data) + 1)
    return data[:i] + pick(rng, [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xfe\xff"]) + data[i:]


def mutate_bytes(rng: random.Random, data: bytes, other: bytes = b"") -> bytes:
    op = rng.randrange(5)
    if op == 0:
        return flip_bits(rng, data)
    if op == 1:
        return set_bytes(rng, data)
    if op == 2:
        return truncate(rng, data)
    if op == 3:
        return splice(rng, data, other or data)
    return invalid_utf8(rng, data)


# --- SPIR-V binaries: 32-bit words -------------------------------------------------------------

HOSTILE_WORDS = [0, 1, 2, 3, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF0000, 0x00010000,
                 0x07230203, 64, 32, 16]


def instruction_starts(words: list[int]) -> list[int]:
    """Word offsets of the instructions after the 5-word header (stops at a bad word count)."""
    starts, i = [], 5
    while i < len(words):
        starts.append(i)
        n = words[i] >> 16
        if n == 0:
            break
        i += n
    return starts


def mutate_words(rng: random.Random, data: bytes, other: bytes = b"") -> bytes:
    if len(data) < 4:
        return mutate_bytes(rng, data, other)
    n = len(data) // 4
    words = list(struct.unpack(f"<{n}I", data[:n * 4]))
    starts = instruction_starts(words) or [0]
    op = rng.randrange(9)
    if op == 0:  # an operand word becomes an edge value
        words[rng.randrange(n)] = pick(rng, HOSTILE_WORDS)
    elif op == 1:  # instruction word count off by a little or a lot
        s = pick(rng, starts)
        count = max(0, (words[s] >> 16) + pick(rng, [-2, -1, 1, 2, 100, 0xFFFF - (words[s] >> 16)]))
        words[s] = ((count & 0xFFFF) << 16) | (words[s] & 0xFFFF)
    elif op == 2:  # opcode replaced by another instruction's
        s, t = pick(rng, starts), pick(rng, starts)
        words[s] = (words[s] & 0xFFFF0000) | (words[t] & 0xFFFF)
    elif op == 3:  # an operand word replaced by another word of the module (ids stay plausible)
        words[rng.randrange(n)] = words[rng.randrange(n)]
    elif op == 4:  # delete one whole instruction
        s = pick(rng, starts)
        del words[s:s + max(1, words[s] >> 16)]
    elif op == 5:  # duplicate one instruction
        s = pick(rng, starts)
        words[s:s] = words[s:s + max(1, words[s] >> 16)]
    elif op == 6:  # drop the last operand of an instruction but keep its word count
        s = pick(rng, starts)
        end = min(len(words), s + max(1, words[s] >> 16))
        if end - 1 > s:
            del words[end - 1]
    elif op == 7 and len(words) >= 5:  # header bound / version / magic (of a module that still has a header)
        words[pick(rng, [0, 1, 3, 4])] = pick(rng, HOSTILE_WORDS)
    else:
        return mutate_bytes(rng, data, other)
    return struct.pack(f"<{len(words)}I", *words) + data[n * 4:]


# --- assembly text: tokens and lines ------------------------------------------------------------

def replace_number(rng: random.Random, text: str) -> str:
    spots = list(_NUMBER.finditer(text))
    if not spots:
        return insert_token(rng, text)
    m = pick(rng, spots)
    return text[:m.start()] + pick(rng, HOSTILE_NUMBERS) + text[m.end():]


def float_edge(rng: random.Random, text: str) -> str:
    """The literal of a float constant (OpConstant / OpSpecConstant of an OpTypeFloat) replaced by a decimal at
    the edge of a float format, of either sign."""
    floats = {m.group(1) for m in re.finditer(r"(%[\w.]+)\s*=\s*OpTypeFloat\b", text)}
    spots = [m for m in re.finditer(r"=\s*Op(?:Spec)?Constant\s+(%[\w.]+)\s+(\S+)", text) if m.group(1) in floats]
    if not spots:
        return replace_number(rng, text)
    m = pick(rng, spots)
    return text[:m.start(2)] + pick(rng, ["", "-"]) + pick(rng, FLOAT_EDGES) + text[m.end(2):]


def swap_ids(rng: random.Random, text: str) -> str:
    spots = list(_ID.finditer(text))
    if len(spots) < 2:
        return replace_number(rng, text)
    a, b = pick(rng, spots), pick(rng, spots)
    return text[:a.start()] + b.group() + text[a.end():]


def huge_id(rng: random.Random, text: str) -> str:
    spots = list(_ID.finditer(text))
    if not spots:
        return insert_token(rng, text)
    m = pick(rng, spots)
    return text[:m.start()] + pick(rng, ["%4294967295", "%1267650600228229401496703205376", "%0",
                                         "%" + "9" * 4400]) + text[m.end():]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def duplicate_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def delete_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def swap_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def insert_token(rng: random.Random, text: str) -> str:
    spots = [m.end() for m in _TOKEN.finditer(text)] or [0]
    i = pick(rng, spots)
    return text[:i] + " " + pick(rng, HOSTILE_TOKENS) + text[i:]


def delete_token(rng: random.Random, text: str) -> str:
    spots = list(_TOKEN.finditer(text))
    if not spots:
        return text
    m = pick(rng, spots)
    return text[:m.start()] + text[m.end():]


def copy_token(rng: random.Random, text: str) -> str:
    """A token of the text moved elsewhere: opcodes and operand kinds land in wrong places."""
    spots = list(_TOKEN.finditer(text))
    if len(spots) < 2:
        return insert_token(rng, text)
    a, b = pick(rng, spots), pick(rng, spots)
    return text[:a.start()] + b.group() + text[a.end():]


TEXT_MUTATORS = [replace_number, replace_number, float_edge, swap_ids, swap_ids, huge_id, duplicate_line,
                 delete_line, delete_line, swap_lines, insert_token, insert_token, delete_token, copy_token, copy_token]


def mutate_text(rng: random.Random, text: str, other: str = "", rounds: int | None = None) -> str:
    """1-3 token/line mutations; now and then a truncation or a splice with another seed."""
    if not text:
        return pick(rng, HOSTILE_TOKENS)
    r = rng.random()
    if r < 0.05:
        return truncate(rng, text)
    if r < 0.10:
        return splice(rng, text, other or text)
    for _ in range(rounds or rng.choice([1, 1, 1, 2, 3])):
        text = pick(rng, TEXT_MUTATORS)(rng, text)
    return text


# --- YAML ---------------------------------------------------------------------------------------

HOSTILE_PATHS = ["/dev/zero", "/etc/passwd", "../../x", "../../../etc/passwd", "link", "dirlink", "missing.npy",
                 "", ".", "/", "/proc/self/status", "a" * 5000]

BOMB = "__FUZZ_BOMB__"
DEEP = "__FUZZ_DEEP__"


def hostile_value(rng: random.Random):
    """A YAML value of the wrong type or an absurd size."""
    return pick(rng, [
        -1, 0, 2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64, 2 ** 70, 300000000, 3000, 10 ** 30, 1.5, -0.5,
        float("inf"), float("-inf"), float("nan"), None, True, "x", "abc", "", [], {}, [1.5], [2 ** 64],
        [3000, 3000, 1], [2 ** 32, 1, 1], [-1, 1, 1], [1, 2], {"a": 1}, {1: 2}, "\ufffd" * 3,
        pick(rng, HOSTILE_PATHS), BOMB, DEEP, [BOMB], {"random": 5}, {"zeros": 300000000},
        {"zeros": -1}, {"random": {"seed": -1, "count": 10}}, {"random": {"seed": None}},
        {"random": {"count": -1}}, {"random": {"low": 5, "high": 1, "count": 4}},
        {"file": pick(rng, HOSTILE_PATHS)}, {"data": [1, 2], "shape": [1.5]}, {"arange": 2 ** 40},
        {"data": [1e999]}, {"data": [], "dtype": "float64"}, {"data": [1], "dtype": "object"},
    ])


def _walk(node, path=()):
    """Every (path, value) of a YAML tree, containers included."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, path + (i,))


def _set(root, path, value):
    if not path:
        return value
    node = root
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return root


def _delete(root, path):
    node = root
    for p in path[:-1]:
        node = node[p]
    del node[path[-1]]
    return root


def mutate_tree(rng: random.Random, data):
    """One structural change: a value replaced, deleted, duplicated or moved; a key renamed."""
    import copy
    data = copy.deepcopy(data)
    nodes = list(_walk(data))
    path, node = pick(rng, nodes)
    op = rng.randrange(6)
    if op <= 1 or not path:
        return _set(data, path, hostile_value(rng))
    if op == 2:
        return _delete(data, path)
    if op == 3:  # another node's value here
        _, other = pick(rng, nodes)
        return _set(data, path, copy.deepcopy(other))
    if op == 4 and isinstance(node, (int, float)) and not isinstance(node, bool):
        return _set(data, path, node * pick(rng, [-1, 1000, 2 ** 32, 10 ** 6]))
    if op == 5:  # a key renamed or given a wrong type
        parent = data
        for p in path[:-1]:
            parent = parent[p]
        if isinstance(parent, dict):
            value = parent.pop(path[-1])
            parent[pick(rng, ["shader ", "Shader", 0, "0:1", "x" * 300, None, path[-1]])] = value
            return data
    return _set(data, path, hostile_value(rng))


def alias_bomb(levels: int = 9, width: int = 9) -> tuple[str, str]:
    """(anchors, alias): YAML lines defining a billion-laughs chain, and the alias naming its top."""
    lines = ["fuzz_bomb:", '  - &l0 ["lol"]']
    for i in range(1, levels):
        lines.append(f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n", f"*l{levels - 1}"


def deep_nesting(rng: random.Random) -> str:
    n = pick(rng, [1000, 3000, 10000])
    return pick(rng, ["[" * n + "]" * n, "{a: " * n + "1" + "}" * n, "[" * n])


def dump_tree(rng: random.Random, data) -> str:
    """YAML text of a mutated tree; the bomb and deep markers become real aliases and nesting."""
    import yaml
    text = yaml.safe_dump(data, default_flow_style=rng.random() < 0.5, sort_keys=False, width=120,
                          allow_unicode=True)
    if BOMB in text:
        anchors, alias = alias_bomb(levels=pick(rng, [6, 9, 10]))
        text = anchors + text.replace(BOMB, alias)
    if DEEP in text:
        text = text.replace(DEEP, deep_nesting(rng))
    return text


def mutate_yaml(rng: random.Random, text: str, data, other: str = "") -> str:
    """Mutated YAML text: mostly a structural change of the parsed tree, else text-level damage."""
    r = rng.random()
    if data is not None and r < 0.65:
        for _ in range(rng.choice([1, 1, 2, 3])):
            data = mutate_tree(rng, data)
        return dump_tree(rng, data)
    if r < 0.72:  # an alias bomb appended and used by a new or existing key
        anchors, alias = alias_bomb(levels=pick(rng, [6, 9, 10]))
        lines = text.split("\n")
        key = pick(rng, [ln.split(":", 1)[0] for ln in lines if re.match(r"^[A-Za-z_]\w*:", ln)] or ["x"])
        lines = [ln for ln in lines if not ln.startswith(key + ":")]
        return anchors + "\n".join(lines) + f"\n{key}: {alias}\n"
    if r < 0.76:
        return text + "\n" + pick(rng, ["x", "buffers", "entries", "combinations"]) + ": " + deep_nesting(rng) + "\n"
    return mutate_text(rng, text, other)


# --- assembly that still assembles but is invalid: for the interpreter under --no-validate ---------

OPCODE_GROUPS = [
    ["OpIAdd", "OpISub", "OpIMul", "OpSDiv", "OpUDiv", "OpSMod", "OpUMod", "OpSRem", "OpFAdd", "OpFSub", "OpFMul",
     "OpFDiv", "OpFMod", "OpFRem", "OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic",
     "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor", "OpIEqual", "OpINotEqual", "OpSLessThan", "OpULessThan",
     "OpFOrdLessThan", "OpFOrdEqual", "OpLogicalAnd", "OpLogicalOr", "OpDot", "OpVectorTimesScalar",
     "OpMatrixTimesScalar", "OpOuterProduct", "OpIAddCarry", "OpUMulExtended", "OpVectorExtractDynamic",
     "OpCooperativeMatrixMulAddNV"],
    ["OpConvertFToS", "OpConvertFToU", "OpConvertSToF", "OpConvertUToF", "OpBitcast", "OpFConvert", "OpSConvert",
     "OpUConvert", "OpFNegate", "OpSNegate", "OpNot", "OpLogicalNot", "OpCopyObject", "OpAny", "OpAll", "OpIsNan",
     "OpBitCount", "OpTranspose", "OpCooperativeMatrixLengthKHR", "OpArrayLength", "OpLoad"],
    ["OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpCompositeExtract", "OpCompositeConstruct",
     "OpVectorShuffle", "OpCompositeInsert", "OpVectorInsertDynamic"],
    ["OpAtomicIAdd", "OpAtomicISub", "OpAtomicSMin", "OpAtomicUMax", "OpAtomicExchange", "OpAtomicAnd",
     "OpAtomicLoad", "OpAtomicIIncrement"],
    ["OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixStoreKHR",
     "OpCooperativeMatrixStoreNV", "OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV"],
    ["OpConstant", "OpSpecConstant"], ["OpConstantTrue", "OpConstantFalse", "OpSpecConstantTrue"],
    ["OpBranchConditional", "OpSwitch"], ["OpSelect", "OpPhi"], ["OpControlBarrier", "OpMemoryBarrier"],
    ["OpTypeInt", "OpTypeFloat"], ["OpTypeArray", "OpTypeRuntimeArray", "OpTypeVector", "OpTypeMatrix"],
]
_OPCODE_INDEX = {op: g for g in OPCODE_GROUPS for op in g}
_DEF = re.compile(r"^\s*(%[\w.]+)\s*=\s*(Op\w+)(.*)$")


def swap_opcode(rng: random.Random, text: str) -> str:
    """An opcode replaced by one taking operands of a similar shape (OpIAdd -> OpFDiv, OpLoad -> OpNot)."""
    spots = [m for m in re.finditer(r"\bOp\w+", text) if m.group() in _OPCODE_INDEX]
    if not spots:
        return swap_operand_id(rng, text)
    m = pick(rng, spots)
    return text[:m.start()] + pick(rng, _OPCODE_INDEX[m.group()]) + text[m.end():]


def swap_operand_id(rng: random.Random, text: str) -> str:
    """An id in operand position (after the opcode) replaced by another defined id: types, constants, variables
    and values of the wrong kind land where the grammar still accepts them."""
    lines = text.split("\n")
    defined = [m.group(1) for ln in lines if (m := _DEF.match(ln))]
    body = [i for i, ln in enumerate(lines) if re.search(r"\bOp\w+\s+%", ln)]
    if not defined or not body:
        return replace_number(rng, text)
    i = pick(rng, body)
    head, op, rest = re.match(r"^(.*?\bOp\w+)(\s)(.*)$", lines[i]).groups()
    ids = list(_ID.finditer(rest))
    if not ids:
        return text
    m = pick(rng, ids)
    lines[i] = head + op + rest[:m.start()] + pick(rng, defined) + rest[m.end():]
    return "\n".join(lines)


def retype_literal(rng: random.Random, text: str) -> str:
    """A literal of a type declaration changed: widths, component counts, matrix sizes, constants' values."""
    spots = list(re.finditer(r"(OpType(?:Int|Float) )(\d+)|(OpType(?:Vector|Matrix) %[\w.]+ )(\d+)|"
                             r"(OpConstant %[\w.]+ )(-?\d+)", text))
    if not spots:
        return swap_operand_id(rng, text)
    m = pick(rng, spots)
    g = 1 if m.group(1) else 3 if m.group(3) else 5
    value = pick(rng, {1: ["8", "16", "64", "0", "7", "128"], 3: ["1", "2", "4", "5", "16", "0"],
                       5: ["0", "-1", "1", "2", "3", "7", "17", "33", "4096", "2147483647", "-2147483648"]}[g])
    return text[:m.start()] + m.group(g) + value + text[m.end():]


SEMANTIC_MUTATORS = [swap_opcode, swap_opcode, swap_operand_id, swap_operand_id, swap_operand_id, retype_literal,
                     retype_literal, delete_line, duplicate_line]


def mutate_semantics(rng: random.Random, text: str) -> str:
    for _ in range(rng.choice([1, 1, 2, 3])):
        text = pick(rng, SEMANTIC_MUTATORS)(rng, text)
    return text

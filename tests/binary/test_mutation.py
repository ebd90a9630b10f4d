"""Mutation fuzzing of the assembler and of the binary reader + disassembler: valid modules of the
test corpus, mutated (words flipped, truncated, spliced, deleted, duplicated; tokens replaced by
hostile ones, lines dropped or repeated), must either work or be refused with SpvError, never
another exception. Bounded (200 examples each, small inputs) and derandomized in CI (CI set),
like every property test here (see conftest.py)."""
from __future__ import annotations

import contextlib
import os
import struct

import pytest

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import DATA
from spvcoop import SpvError
from spvcoop.binary.reader import read_binary
from spvcoop.binary.disassembler import disassemble
from spvcoop.asm.assembler import assemble

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=200, deadline=None, derandomize=bool(os.environ.get("CI")),
                    suppress_health_check=list(HealthCheck))


# A module that holds the operand shapes readers get wrong (pairs, typed literals of odd widths,
# strings, masks with parameters, extended instructions): mutations of it reach those paths.
SEED = """OpCapability Shader
OpCapability Int64
OpCapability Int16
OpCapability Float16
OpCapability Linkage
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpSource GLSL 450 %file "void main() {}"
%file = OpString "a.comp"
OpName %main "main"
OpMemberName %S 0 "x"
OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
%grp = OpDecorationGroup
OpGroupMemberDecorate %grp %S 0
%void = OpTypeVoid
%bool = OpTypeBool
%i3 = OpTypeInt 3 1
%i16 = OpTypeInt 16 1
%u32 = OpTypeInt 32 0
%i64 = OpTypeInt 64 1
%f16 = OpTypeFloat 16
%f32 = OpTypeFloat 32
%f64 = OpTypeFloat 64
%S = OpTypeStruct %u32
%ptr = OpTypePointer Function %u32
%c3 = OpConstant %i3 -3
%c16 = OpConstant %i16 -2
%c32 = OpConstant %u32 7
%c64 = OpConstant %i64 -5000000000
%h = OpConstant %f16 0x1.8p3
%f = OpConstant %f32 1.5
%d = OpConstant %f64 -2.25
%sc = OpSpecConstant %u32 3
%op = OpSpecConstantOp %u32 IAdd %sc %c32
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%e = OpLabel
%v = OpVariable %ptr Function
OpStore %v %c32 Aligned 4
%l = OpLoad %u32 %v Volatile|Aligned 4
%s = OpExtInst %f32 %glsl Sqrt %f
OpSelectionMerge %m None
OpSwitch %c64 %m -1 %a 0x100000000 %b
%a = OpLabel
OpBranch %m
%b = OpLabel
OpBranch %m
%m = OpLabel
%p = OpPhi %u32 %c32 %a %l %b %c32 %e
OpLoopMerge %m %m Unroll|PartialCount 4
OpReturn
OpFunctionEnd
"""


def _corpus() -> list[tuple[str, str]]:
    """(name, text) of the seed and of corpus modules that assemble, smallest first."""
    out = [("seed", SEED)]
    for p in sorted(DATA.rglob("*.spvasm"), key=lambda p: p.stat().st_size):
        if len(out) == 40:
            break
        text = p.read_text()
        try:
            assemble(text, p.name)
        except SpvError:
            continue
        out.append((p.name, text))
    return out


CORPUS = _corpus()
BINARIES = [assemble(text, name).to_words() for name, text in CORPUS]

# words that make readers misbehave: 0, all ones, huge widths and counts, enum values out of range
HOSTILE_WORDS = [0, 1, 2, 3, 0xFFFF, 0x10000, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 4294967295, 0x07230203,
                 0x00020011, 0xFFFF0001, 0x000300F5, 0x0004002B, 64, 65, 96]
words_strategy = st.one_of(st.sampled_from(HOSTILE_WORDS), st.sampled_from(HOSTILE_WORDS),
                           st.sampled_from(HOSTILE_WORDS), st.integers(0, 0xFFFFFFFF))


def _instructions(words: list[int]) -> list[list[int]]:
    out, pos = [], 5
    while pos < len(words):
        count = words[pos] >> 16
        out.append(list(words[pos:pos + count]))
        pos += count
    return out


MODULES = [(list(w[:5]), _instructions(w)) for w in BINARIES]


def _recount(inst: list[int]) -> list[int]:
    return [((len(inst) & 0xFFFF) << 16) | (inst[0] & 0xFFFF), *inst[1:]] if inst else inst


@st.composite
def mutated_binary(draw) -> bytes:
    """Mostly instruction-aware mutations, so that the damage lies deep inside an otherwise well-formed
    module (an operand word replaced, a word dropped or added with the count kept consistent, an
    opcode swapped, instructions dropped, repeated or taken from another module), then sometimes
    raw damage to the word stream (counts, truncation)."""
    # the seed three times in four (hypothesis favours the first choice of a draw: the seed)
    header, insts = MODULES[0] if draw(st.integers(0, 3)) < 3 else draw(st.sampled_from(MODULES))
    header, insts = list(header), [list(i) for i in insts]
    for _ in range(draw(st.integers(1, 3))):
        # mostly instructions with operands beyond a result id (typed literals, pairs, strings, masks)
        rich = [k for k, inst in enumerate(insts) if len(inst) > 3]
        i = draw(st.sampled_from(rich)) if rich and draw(st.integers(0, 3)) else draw(st.integers(0, len(insts) - 1))
        inst = insts[i]
        how = draw(st.sampled_from(["operand", "operand", "operand", "drop word", "drop word", "add word",
                                    "opcode", "drop inst", "repeat inst", "foreign inst", "header"]))
        if how == "operand" and len(inst) > 1:
            inst[draw(st.integers(1, len(inst) - 1))] = draw(words_strategy)
        elif how == "drop word" and len(inst) > 1:
            del inst[draw(st.integers(1, len(inst) - 1))]
            insts[i] = _recount(inst)
        elif how == "add word":
            inst.insert(draw(st.integers(1, len(inst))), draw(words_strategy))
            insts[i] = _recount(inst)
        elif how == "opcode":
            insts[i] = [(inst[0] & 0xFFFF0000) | draw(st.integers(0, 0x1800)), *inst[1:]]
        elif how == "drop inst":
            del insts[i]
        elif how == "repeat inst":
            insts.insert(i, list(inst))
        elif how == "foreign inst":
            _, other = draw(st.sampled_from(MODULES))
            insts.insert(i, list(draw(st.sampled_from(other))))
        elif how == "header":
            header[draw(st.integers(1, 4))] = draw(words_strategy)
        if not insts:
            break
    words = header + [w for inst in insts for w in inst]
    if draw(st.integers(0, 3)) == 0:  # raw damage to the stream
        n = len(words)
        i = draw(st.integers(0, n - 1))
        how = draw(st.sampled_from(["set", "flip", "truncate", "insert", "count"]))
        if how == "set":
            words[i] = draw(words_strategy)
        elif how == "flip":
            words[i] ^= 1 << draw(st.integers(0, 31))
        elif how == "truncate":
            words = words[:i]
        elif how == "insert":
            words[i:i] = draw(st.lists(words_strategy, min_size=1, max_size=6))
        else:
            words[i] = (draw(st.integers(0, 0xFFFF)) << 16) | (words[i] & 0xFFFF)
    data = struct.pack(f"<{len(words)}I", *words)
    if draw(st.integers(0, 15)) == 0:
        data = data[:draw(st.integers(0, len(data)))]  # also cut inside a word
    return data


@SETTINGS
@given(mutated_binary(), st.booleans())
def test_mutated_binaries_are_read_or_refused(data: bytes, raw_ids: bool) -> None:
    try:
        disassemble(read_binary(data, "fuzz.spv"), raw_ids=raw_ids)
    except SpvError as e:
        assert e.diagnostics and e.diagnostics[0].message


HOSTILE_TOKENS = [
    "0x1p99999999999", "-0x1p-99999999999", "1e-40", "300", "1" * 5000, "0" * 5000 + "7", "0x" + "f" * 40,
    "!4294967296", "!0", "!1", '"a\0b"', '"\xff"', "%4294967296", "%" + "9" * 50, "%0", "4294967295",
    "OpTypeInt", "OpConstant", "OpSpecConstantOp", "Load", "IAdd", "OpPhi", "OpSwitch", "OpExtInst",
    "OpExtInstImport", "OpGroupMemberDecorate", "Aligned|Volatile", "Volatile", "%a", "%b", "=", "\n",
    ";", "-", "0x1.8p128", "96", "0", "1", "-1", "OpTypeFloat", "Float8E4M3EXT", "BFloat16KHR",
]


@st.composite
def mutated_text(draw) -> str:
    _, text = CORPUS[0] if draw(st.integers(0, 3)) < 3 else draw(st.sampled_from(CORPUS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["token", "token", "token", "drop", "repeat", "cut", "insert"]))
        tokens = lines[i].split(" ")
        if how == "token":
            # the last token of a line is most often a literal: replace it half the time
            j = len(tokens) - 1 if draw(st.booleans()) else draw(st.integers(0, len(tokens) - 1))
            tokens[j] = draw(st.one_of(st.sampled_from(HOSTILE_TOKENS), st.sampled_from(HOSTILE_TOKENS),
                                       st.sampled_from(HOSTILE_TOKENS), st.text(max_size=8)))
            lines[i] = " ".join(tokens)
        elif how == "drop":
            del lines[i]
            if not lines:
                lines = [""]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "cut":
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        else:
            lines.insert(i, " ".join(draw(st.lists(st.sampled_from(HOSTILE_TOKENS), min_size=1, max_size=6))))
    return "\n".join(lines)


@SETTINGS
@given(mutated_text(), st.booleans())
def test_mutated_text_is_assembled_or_refused(text: str, preserve: bool) -> None:
    try:
        module = assemble(text, "fuzz.spvasm", preserve_numeric_ids=preserve)
        data = module.to_bytes()
    except SpvError as e:
        d = e.diagnostics[0]
        assert d.span is None or d.span.line >= 0
        return
    with contextlib.suppress(SpvError):   # what we wrote reads back, or is refused as spirv-dis would
        disassemble(read_binary(data))


def test_corpus_is_not_empty() -> None:
    # the strategies above draw from it: an empty corpus would make them test nothing
    assert len(CORPUS) >= 20

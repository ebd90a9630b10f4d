"""Bad input gives `file:line:col: error: message`, a non-zero exit, no output file, no traceback."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from spvcoop import SpvError
from spvcoop.binary.reader import read_binary
from spvcoop.binary.disassembler import disassemble
from spvcoop.asm.assembler import assemble
import contextlib

HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%u32 = OpTypeInt 32 0\n"

# (text, line, col, words the message must contain)
BROKEN_TEXT = [
    (HEAD + "%x = OpConstnt %u32 1\n", 4, 6, ["Invalid Opcode name", "did you mean 'OpConstant'"]),
    (HEAD + "%x = OpConstant %u32\n", 4, 17, ["Expected operand"]),
    (HEAD + "%x = OpConstant %u32 1 7\n", 4, 24, ["Expected <opcode> or <result-id>", "'7'"]),
    (HEAD + "%x = OpConstant %u32 1.5\n", 4, 22, ["Invalid unsigned integer literal: 1.5"]),
    (HEAD + "%x = OpConstant %u32 4294967296\n", 4, 22, ["does not fit in a 32-bit unsigned integer"]),
    (HEAD + "%x = OpConstant %u32 -1\n", 4, 22, ["negative number in an unsigned literal"]),
    (HEAD + 'OpSource GLSL 450 "abc\n', 4, 19, ["Invalid literal string"]),
    (HEAD + "%x OpTypeVoid\n", 4, 1, ["Expected <opcode> or <result-id>"]),
    (HEAD + "%x=OpTypeVoid\n", 4, 1, ["Expected <opcode> or <result-id>"]),
    ("OpCapability Shadr\n", 1, 14, ["Invalid capability 'Shadr'", "did you mean 'Shader'"]),
    (HEAD + "%f = OpTypeFunction %u32\n%m = OpFunction %u32 Inlin %f\n", 5, 22, ["Invalid function control", "Inline"]),
    ('OpCapability Shader\n%s = OpExtInstImport "GLSL.std.451"\n', 2, 22, ["Invalid extended instruction import"]),
    ('OpCapability Shader\n%s = OpExtInstImport "GLSL.std.450"\n%f = OpTypeFloat 32\n%x = OpExtInst %f %s Sqrtt %x\n',
     4, 22, ["Invalid extended instruction name 'Sqrtt'", "Sqrt"]),
    (HEAD + "%u32 = OpTypeInt 16 0\n", 4, 1, ["has already been used to generate a type"]),
    (HEAD + "%f = OpTypeFloat 32\n%x = OpConstant %f 1.5f\n", 5, 20, ["Invalid 32-bit float literal: 1.5f"]),
    (HEAD + "%a.b = OpTypeVoid\n", 4, 1, ["Invalid ID a.b"]),
    (HEAD + "%v = OpVariable %u32 Functon\n", 4, 22, ["storage class", "Function"]),
    (HEAD + "%x = OpLoad %u32 %p Volatile | Aligned 4\n", 4, 30, []),
    (HEAD + "%s = OpSpecConstantOp %u32 OpIAdd %u32 %u32\n", 4, 28, ["without 'Op'"]),
    (HEAD + "OpStore %p %v !nope\n", 4, 15, ["Invalid immediate integer"]),
]


@pytest.mark.parametrize("text,line,col,words", BROKEN_TEXT)
def test_broken_text_is_located(text: str, line: int, col: int, words: list[str]) -> None:
    with pytest.raises(SpvError) as info:
        assemble(text, "bad.spvasm")
    d = info.value.diagnostics[0]
    assert (d.span.line, d.span.col) == (line, col), d.headline()
    for w in words:
        assert w in d.message, d.message
    assert re.match(r"bad\.spvasm:\d+:\d+: error: ", d.headline())


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spvcoop", *args], capture_output=True, input=stdin, timeout=60)


def test_cli_as_error_leaves_no_output(tmp_path: Path) -> None:
    src = tmp_path / "bad.spvasm"
    src.write_text(HEAD + "%x = OpConstant %u32 zzz\n")
    out = tmp_path / "bad.spv"
    r = run_cli("as", str(src), "-o", str(out))
    assert r.returncode != 0
    err = r.stderr.decode()
    assert f"{src}:4:22: error: Invalid unsigned integer literal: zzz" in err
    assert "^~~" in err  # the caret under the operand
    assert "Traceback" not in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [src]  # no temporary file left behind


# (binary, words of the message: spirv-dis's own text where spirv-dis refuses it too)
BROKEN_BINARIES = [
    (b"", "Missing module."),
    (b"\x01\x02\x03", "multiple of 4"),
    (b"\x00\x00\x00\x00" * 5, "Invalid SPIR-V magic number '0'."),
    (bytes.fromhex("03022307 00000100 00000700 05000000 00000000"), None),  # header only: valid, empty
    (bytes.fromhex("03022307 00000100 00000700 05000000"), "Module has incomplete header: only 4 words instead of 5"),
    (bytes.fromhex("03022307 00000100 00000700 05000000 00000000 11000200"),
     "End of input reached while decoding OpCapability starting at word 5: "
     "missing capability operand at word offset 1."),
    (bytes.fromhex("03022307 00000100 00000700 05000000 00000000 00000000"), "Invalid instruction word count: 0"),
    (bytes.fromhex("03022307 00000100 00000700 05000000 00000000 ffff0100"), "Invalid opcode: 65535"),
    (bytes.fromhex("03022307 00000100 00000700 05000000 00000000 11000100"),
     "End of input reached while decoding OpCapability starting at word 5: expected more operands after 1 words."),
    (bytes.fromhex("03022307 00000100 00000700 05000000 00000000 0f000400 05000000 01000000 61626364"),
     "truncated literal string operand at word offset 3."),
]


@pytest.mark.slow
@pytest.mark.parametrize("data,words", BROKEN_BINARIES)
def test_broken_binaries(data: bytes, words: str | None, tmp_path: Path) -> None:
    if words is None:
        assert read_binary(data).instructions == []
        return
    with pytest.raises(SpvError) as info:
        read_binary(data, "bad.spv")
    assert words in info.value.diagnostics[0].message
    f = tmp_path / "bad.spv"
    f.write_bytes(data)
    out = tmp_path / "out.txt"
    r = run_cli("dis", str(f), "-o", str(out))
    assert r.returncode == 1 and not out.exists()
    assert re.search(rf"{re.escape(str(f))}:word \d+: error: ", r.stderr.decode())
    assert "Traceback" not in r.stderr.decode()


def test_unreadable_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    r = run_cli("as", str(tmp_path / "missing.spvasm"))
    assert r.returncode != 0 and "Traceback" not in r.stderr.decode()
    assert "cannot read input" in r.stderr.decode()


HYP = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@HYP
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(data: bytes) -> None:
    for blob in (data, bytes.fromhex("03022307 00000100 00000700 05000000 00000000") + data):
        with contextlib.suppress(SpvError):
            disassemble(read_binary(blob))


@pytest.mark.slow
@HYP
@given(st.text(max_size=200))
def test_random_text_never_crashes(text: str) -> None:
    with contextlib.suppress(SpvError):
        assemble(text)


@HYP
@given(st.lists(st.sampled_from(["%a", "=", "OpConstant", "OpTypeInt", "32", "0", "!7", '"s"', "%b", "OpSwitch",
                                 "OpExtInst", "OpSpecConstantOp", "IAdd", "0x1p+3", "-1", "Aligned|Volatile",
                                 "\n", ";", "OpDecorate", "BuiltIn", "OpTypeFloat", "16", "OpExtInstImport"]),
                max_size=40).map(" ".join))
def test_random_token_soup_never_crashes(text: str) -> None:
    with contextlib.suppress(SpvError):
        disassemble(assemble(text))


def test_dis_of_assembly_text_says_what_to_do(tmp_path: Path) -> None:
    f = tmp_path / "shader.spvasm"
    f.write_text(HEAD)
    r = run_cli("dis", str(f))
    assert r.returncode == 1
    assert "looks like assembly text; assemble it with 'spvcoop as'" in r.stderr.decode()


LONG_VECTOR = ("OpCapability Shader\nOpCapability {}\nOpExtension \"SPV_EXT_long_vector\"\n"
               "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %m \"m\"\nOpExecutionMode %m LocalSize 1 1 1\n"
               "%v = OpTypeVoid\n%f = OpTypeFunction %v\n%m = OpFunction %v None %f\n%l = OpLabel\nOpReturn\n"
               "OpFunctionEnd\n")
NEWER = "capability 5425 of SPV_EXT_long_vector: newer than the SPIR-V grammar spvcoop and SPIRV-Tools 2025.5 know"


def test_a_capability_newer_than_the_grammar_is_named(tmp_path: Path, capsys) -> None:
    """Issue 32: SPV_EXT_long_vector's capability is unknown to SPIRV-Tools 2025.5 (the newest on PyPI) and to
    the grammar we read. Every command refuses it in one line that names it (as, by its name: spirv-as's words
    and then what it is; val, dis and run of the binary: spirv-dis's words with its name), exit 1."""
    from conftest import run_cli, run_tool
    src = tmp_path / "lv.spvasm"
    src.write_text(LONG_VECTOR.format("LongVectorEXT"))
    assert run_tool("spirv-as", str(src), "-o", str(tmp_path / "ref.spv")).returncode != 0  # unknown to it too
    rc, _, err = run_cli(capsys, "as", str(src), "-o", str(tmp_path / "o.spv"))
    assert rc == 1 and f"lv.spvasm:2:14: error: Invalid capability 'LongVectorEXT'. ({NEWER}" in err, err
    (tmp_path / "n.spvasm").write_text(LONG_VECTOR.format("!5425"))  # by number it assembles
    assert run_cli(capsys, "as", str(tmp_path / "n.spvasm"), "-o", str(tmp_path / "n.spv"))[0] == 0
    headline = f"word 8: error: Invalid capability operand: 5425 (LongVectorEXT, {NEWER}"
    for argv in (["val", "--no-spirv-val"], ["dis"], ["run"]):
        rc, out, err = run_cli(capsys, *argv, str(tmp_path / "n.spv"))  # val's findings are on stdout
        assert rc == 1 and headline in out + err, (argv, out, err)
        assert len((out + err).strip().splitlines()) == 1, out + err
    rc, _, err = run_cli(capsys, "run", str(tmp_path / "n.spvasm"))  # the text: our validator's rule
    assert rc == 1 and f"error[structure.capability.extension]: unknown capability 5425 (LongVectorEXT, {NEWER}" \
        in err, err
    # a capability number nothing defines keeps spirv-dis's words
    (tmp_path / "u.spvasm").write_text(LONG_VECTOR.format("!5424"))
    assert run_cli(capsys, "as", str(tmp_path / "u.spvasm"), "-o", str(tmp_path / "u.spv"))[0] == 0
    rc, _, err = run_cli(capsys, "dis", str(tmp_path / "u.spv"))
    assert rc == 1 and err.strip().endswith("error: Invalid capability operand: 5424"), err

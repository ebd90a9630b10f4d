"""spvcoop as == spirv-as, byte for byte, on the probe corpus, GLSL output and generated modules."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROBES, probe_env, run_tool
from spvcoop import SpvError
from spvcoop.binary.reader import read_binary
from spvcoop.binary.disassembler import disassemble
from spvcoop.asm.assembler import TARGET_ENVS, assemble

ALL_ASM = sorted(PROBES.glob("*.spvasm")) + sorted((PROBES / "asm_snippets").glob("*.spvasm"))


def reference(text: str, tmp_path: Path, *flags: str) -> bytes | None:
    src = tmp_path / "in.spvasm"
    src.write_text(text)
    out = tmp_path / "ref.spv"
    r = run_tool("spirv-as", *flags, str(src), "-o", str(out))
    return out.read_bytes() if r.returncode == 0 else None


def ours(text: str, target_env: str = "spv1.6", preserve: bool = False) -> bytes | None:
    try:
        return assemble(text, "in.spvasm", target_env=target_env, preserve_numeric_ids=preserve).to_bytes()
    except SpvError:
        return None


@pytest.mark.slow
@pytest.mark.parametrize("path", ALL_ASM, ids=lambda p: p.name)
def test_corpus_matches_spirv_as(path: Path, tmp_path: Path) -> None:
    env = probe_env(path)
    preserve = "preserve" in path.name
    flags = ["--target-env", env] + (["--preserve-numeric-ids"] if preserve else [])
    text = path.read_text()
    assert ours(text, env, preserve) == reference(text, tmp_path, *flags)


@pytest.mark.parametrize("env", ["spv1.0", "spv1.3", "spv1.5", "vulkan1.0", "vulkan1.1", "vulkan1.1spv1.4",
                                 "vulkan1.2", "vulkan1.3", "vulkan1.4", "opencl2.2", "opengl4.5"])
def test_target_env_version_word(env: str, tmp_path: Path) -> None:
    text = (PROBES / "asm_snippets" / "minimal.spvasm").read_text()
    ref = reference(text, tmp_path, "--target-env", env)
    assert ref is not None
    assert ours(text, env) == ref
    assert int.from_bytes(ref[4:8], "little") == TARGET_ENVS[env]


@pytest.mark.slow
def test_glsl_roundtrip_through_text_matches_spirv_as(glsl_binaries: dict[str, Path], tmp_path: Path) -> None:
    """Disassemble glslang output with spirv-dis, assemble that text with both assemblers."""
    assert len(glsl_binaries) >= 20
    for name, spv in glsl_binaries.items():
        for flags in ([], ["--raw-id"]):
            text = run_tool("spirv-dis", *flags, str(spv)).stdout.decode()
            ref = reference(text, tmp_path, "--target-env", "vulkan1.3")
            assert ref is not None, name
            assert ours(text, "vulkan1.3") == ref, f"{name} {flags}"


LITERAL_CASES = [
    ("%t = OpTypeFloat 16", ["0.1", "0.6180340051651001", "-0.6180340051651001", "65535.0", "65536.0", "3e-5",
                             "-0.0", "1", "65504", "0x1p+16", "0x1.8p+16", "6e-8", "70000.0", "0x1p-24",
                             "1.5f", "0x3c00", "1e-10", "2.0009765625", "-65519.99"]),
    ("%t = OpTypeFloat 32", ["0.1", "-0.0", "3.4028234663852886e38", "1e39", "0x1p+128", "0x1.8p+128",
                             "0x1p-149", "1.17549435e-38", ".5", "5.", "1e10", "-1.0e-2", "0x1.fffffep+127",
                             "1.00000005960464477539062500000001", "nan", "inf", "+2"]),
    ("%t = OpTypeFloat 64", ["1.1", "-0x1p+1024", "0x1p+1024", "1e308", "1e309", "4.9e-324", "0x1.8p-1074"]),
    ("%t = OpTypeInt 16 0", ["65535", "65536", "-1", "0xffff", "0x10000", "010", "08", "+7"]),
    ("%t = OpTypeInt 16 1", ["-32768", "32767", "32768", "0xffff", "-0x10", "0x8000"]),
    ("%t = OpTypeInt 32 1", ["2147483648", "-2147483648", "0xFFFFFFFF", "0x100000000", "1.5", "-0"]),
    ("%t = OpTypeInt 64 0", ["0x123456789abcdef0", "18446744073709551615", "18446744073709551616", "-1"]),
    ("%t = OpTypeInt 64 1", ["-9223372036854775808", "0xffffffffffffffff", "9223372036854775807"]),
    ("%t = OpTypeInt 8 1", ["-128", "127", "0xff", "128"]),
]


ENCODED_FLOAT_LITERALS = ["0.1", "1.5", "0.3", "-2.75", "0.001", "1e-40", "3.4e38", "1e39", "0x1.fp+0", "0x1.ffp+0",
                          "0x1p+9", "0x1p+16", "0x1p+128", "60000", "449", "-0.0"]
LITERAL_CASES += [
    ("%t = OpTypeFloat 16 BFloat16KHR", ENCODED_FLOAT_LITERALS),
    # not 1e-40: spirv-as narrows that f32 subnormal to E5M2 0x28 (2^-5), which we do not reproduce
    ("%t = OpTypeFloat 8 Float8E5M2EXT", [v for v in ENCODED_FLOAT_LITERALS if v != "1e-40"]),
    ("%t = OpTypeFloat 8 Float8E4M3EXT", ["0.1", "1.5", "0.3", "-2.75", "0.001", "0x1.fp+0", "240", "-0.0"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("type_decl,literals", LITERAL_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_constant_literals_match_spirv_as(type_decl: str, literals: list[str], tmp_path: Path) -> None:
    for lit in literals:
        text = f"OpCapability Shader\nOpCapability Float16\nOpCapability Int64\nOpCapability Float64\n" \
               f"OpCapability Int16\nOpCapability Int8\nOpCapability BFloat16TypeKHR\nOpCapability Float8EXT\n" \
               f"OpMemoryModel Logical GLSL450\n{type_decl}\n" \
               f"%c = OpConstant %t {lit}\n%s = OpSpecConstant %t {lit}\n"
        ref = reference(text, tmp_path)
        assert ours(text) == ref, f"{type_decl}: {lit}"
        if ref is not None:  # and spirv-dis prints the constant as we do
            (tmp_path / "lit.spv").write_bytes(ref)
            dis = run_tool("spirv-dis", str(tmp_path / "lit.spv")).stdout.decode()
            assert disassemble(read_binary(ref)) == dis, f"{type_decl}: {lit}"


def test_e4m3_top_binade_saturates_as_spirv_as_does() -> None:
    # measured: spirv-as writes 256..448 as 0x7e (448) and refuses more (tests/asm/test_as_refusals.py
    # compares with spirv-as itself)
    text = ("OpCapability Shader\nOpCapability Float8EXT\nOpMemoryModel Logical GLSL450\n"
            "%t = OpTypeFloat 8 Float8E4M3EXT\n%c = OpConstant %t {}\n")
    assert assemble(text.format("300")).to_words()[-1] == 0x7E
    with pytest.raises(SpvError, match="Invalid E4M3 float literal: 449"):
        assemble(text.format("449"))


def test_switch_literals_take_the_selector_width(tmp_path: Path) -> None:
    text = """OpCapability Shader
OpCapability Int64
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%i64 = OpTypeInt 64 1
%c = OpConstant %i64 5
%main = OpFunction %void None %fn
%e = OpLabel
OpSelectionMerge %m None
OpSwitch %c %m -1 %a 0x100000000 %b
%a = OpLabel
OpBranch %m
%b = OpLabel
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd
"""
    ref = reference(text, tmp_path)
    assert ref is not None
    assert ours(text) == ref


def test_preserve_numeric_ids(tmp_path: Path) -> None:
    text = (PROBES / "asm_snippets" / "numeric_names_preserve.spvasm").read_text()
    ref = reference(text, tmp_path, "--preserve-numeric-ids")
    assert ref is not None and ours(text, preserve=True) == ref
    assert ours(text) == reference(text, tmp_path)
    assert ours(text) != ref  # the flag matters for this module


def test_spans_point_at_operands() -> None:
    text = "OpCapability Shader\n  %u32 = OpTypeInt 32 0\n%c = OpConstant   %u32 7\n"
    m = assemble(text, "x.spvasm")
    c = m.instructions[2]
    assert c.opname == "OpConstant"
    assert (c.span.line, c.span.col) == (3, 1)
    lit = c.operands[0]
    assert (lit.span.line, lit.span.col, lit.span.end_col) == (3, 24, 25)
    assert m.instructions[1].operands[0].span.col == 20
    assert m.id_names[m.instructions[1].result_id] == "u32"


def test_cli_as_writes_the_same_bytes(tmp_path: Path) -> None:
    src = PROBES / "khr_ok_basic.spvasm"
    out = tmp_path / "o.spv"
    r = subprocess.run([sys.executable, "-m", "spvcoop", "as", str(src), "-o", str(out)], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == reference(src.read_text(), tmp_path)


def _decoded(module):
    return [(i.opname, i.result_type, i.result_id, i.span,
             [(o.kind, o.value, o.words, o.span, o.text) for o in i.operands], i.words())
            for i in module.instructions]


@pytest.mark.slow
def test_templated_lines_decode_like_the_general_path(glsl_binaries: dict[str, Path]) -> None:
    """Lines encoded from a cached template give the same Module as the token path."""
    from spvcoop.core.spirv_grammar import load
    from spvcoop.asm.assembler import Assembler
    for name, spv in list(glsl_binaries.items())[:12]:
        text = run_tool("spirv-dis", str(spv)).stdout.decode()
        fast = Assembler(text, name, "vulkan1.3", False, load()).assemble()
        slow_asm = Assembler(text, name, "vulkan1.3", False, load())
        slow_asm.use_templates = False
        slow = slow_asm.assemble()
        assert fast.to_bytes() == slow.to_bytes(), name
        assert _decoded(fast) == _decoded(slow), name

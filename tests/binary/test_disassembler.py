"""spvcoop dis == spirv-dis, text for text; dis -> as gives back the same bytes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROBES, probe_env, run_tool
from spvcoop import SpvError
from spvcoop.binary.reader import read_binary
from spvcoop.binary.disassembler import disassemble
from spvcoop.asm.assembler import assemble

FLAG_SETS = [[], ["--raw-id", "--no-indent", "--no-header"]]


def _kwargs(flags: list[str]) -> dict:
    return {"raw_ids": "--raw-id" in flags, "header": "--no-header" not in flags,
            "indent": "--no-indent" not in flags}


def corpus_binaries(tmp: Path) -> dict[str, Path]:
    out = {}
    for src in sorted(PROBES.glob("*.spvasm")) + sorted((PROBES / "asm_snippets").glob("*.spvasm")):
        spv = tmp / (src.stem + ".spv")
        if run_tool("spirv-as", "--target-env", probe_env(src), str(src), "-o", str(spv)).returncode == 0:
            out[src.name] = spv
    return out


def check_same_text(spv: Path, name: str, flag_sets=FLAG_SETS) -> None:
    module = read_binary(spv.read_bytes(), str(spv))
    for flags in flag_sets:
        ref = run_tool("spirv-dis", *flags, str(spv))
        if ref.returncode != 0:
            with pytest.raises(SpvError):
                disassemble(module, **_kwargs(flags))
            continue
        assert disassemble(module, **_kwargs(flags)) == ref.stdout.decode(), f"{name} {flags}"


@pytest.mark.slow
def test_probe_corpus_disassembles_like_spirv_dis(tmp_path: Path) -> None:
    bins = corpus_binaries(tmp_path)
    assert len(bins) > 150
    for name, spv in bins.items():
        check_same_text(spv, name)


@pytest.mark.slow
def test_glsl_output_disassembles_like_spirv_dis(glsl_binaries: dict[str, Path]) -> None:
    every = [[], ["--raw-id"], ["--no-header"], ["--no-indent"], ["--raw-id", "--no-indent", "--no-header"]]
    for name, spv in glsl_binaries.items():
        check_same_text(spv, name, every)


@pytest.mark.slow
def test_dis_then_as_gives_identical_bytes(glsl_binaries: dict[str, Path], tmp_path: Path) -> None:
    bins = {**corpus_binaries(tmp_path), **glsl_binaries}
    for name, spv in bins.items():
        data = spv.read_bytes()
        module = read_binary(data)
        if "redefine" in name:
            continue  # an id defined twice: spirv-dis and spvcoop both refuse it
        text = disassemble(module, raw_ids=True)
        again = assemble(text, name, preserve_numeric_ids=True)
        again.header.version = module.header.version
        again.header.generator = module.header.generator
        assert again.to_bytes() == data, name


def test_float_and_name_rules(tmp_path: Path) -> None:
    text = """OpCapability Shader
OpCapability Float16
OpCapability Float64
OpCapability Int64
OpMemoryModel Logical GLSL450
%h = OpTypeFloat 16
%f = OpTypeFloat 32
%d = OpTypeFloat 64
%l = OpTypeInt 64 1
%s = OpTypeInt 16 1
%c1 = OpConstant %h 1.5
%c2 = OpConstant %h -0.0
%c3 = OpConstant %f 0.01
%c4 = OpConstant %f 3.4028234663852886e38
%c5 = OpConstant %f 0x1p-149
%c6 = OpConstant %f 0x1p+128
%c7 = OpConstant %d 1.1
%c8 = OpConstant %f 2
%c9 = OpConstant %f 2
%c10 = OpConstant %l -5
%c11 = OpConstant %s -7
%c12 = OpConstant %f -0.0
"""
    src = tmp_path / "f.spvasm"
    src.write_text(text)
    spv = tmp_path / "f.spv"
    assert run_tool("spirv-as", str(src), "-o", str(spv)).returncode == 0
    check_same_text(spv, "floats")
    ours = disassemble(read_binary(spv.read_bytes()))
    assert "%float_2_0 = OpConstant %float 2" in ours  # the _0 suffix for a repeated name
    assert "%half_0x1_8p_0 = OpConstant %half 0x1.8p+0" in ours


def test_cli_dis_and_options(tmp_path: Path) -> None:
    src = PROBES / "nv_ok_basic.spvasm"
    spv = tmp_path / "b.spv"
    assert run_tool("spirv-as", str(src), "-o", str(spv)).returncode == 0
    out = tmp_path / "b.txt"
    r = subprocess.run([sys.executable, "-m", "spvcoop", "dis", "--raw-id", str(spv), "-o", str(out)],
                       capture_output=True)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == run_tool("spirv-dis", "--raw-id", str(spv)).stdout.decode()


@pytest.mark.slow
def test_lazy_id_operands_equal_eager_decoding(glsl_binaries: dict[str, Path]) -> None:
    from spvcoop.binary.reader import BinaryReader, words_from_bytes
    from spvcoop.core.spirv_grammar import load
    for name, spv in glsl_binaries.items():
        words = words_from_bytes(spv.read_bytes())
        lazy = BinaryReader(words, name, load()).read()
        eager_reader = BinaryReader(words, name, load())
        eager_reader.use_id_plans = False
        eager = eager_reader.read()
        assert lazy.to_words() == eager.to_words() == words
        for a, b in zip(lazy.instructions, eager.instructions, strict=False):
            assert (a.opname, a.result_type, a.result_id, a.index) == (b.opname, b.result_type, b.result_id, b.index)
            assert [(o.kind, o.value, o.words) for o in a.operands] == [(o.kind, o.value, o.words) for o in b.operands]


def test_friendly_names_sanitize_utf8_bytes(tmp_path: Path) -> None:
    """SPIRV-Tools' Sanitize replaces each byte outside [A-Za-z0-9_]: a two-byte character is '__' (found by
    tests/asm/test_generated.py's hypothesis run with OpName %a "é")."""
    src = tmp_path / "n.spvasm"
    src.write_text('OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %a "é"\nOpName %b "x€y"\n'
                   'OpName %c "ok_1"\n%a = OpTypeVoid\n%b = OpTypeBool\n%c = OpTypeInt 32 0\n', encoding="utf-8")
    spv = tmp_path / "n.spv"
    assert run_tool("spirv-as", str(src), "-o", str(spv)).returncode == 0
    check_same_text(spv, "utf8 names")
    assert "%x___y = OpTypeBool" in disassemble(read_binary(spv.read_bytes()))

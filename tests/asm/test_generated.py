"""Hypothesis: modules generated from the grammar assemble exactly as spirv-as does, and
their binaries disassemble exactly as spirv-dis does."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from hypothesis import HealthCheck, given, settings

from conftest import run_tool
from module_gen import module_text
from spvcoop import SpvError
from spvcoop.binary.reader import read_binary
from spvcoop.binary.disassembler import disassemble
from spvcoop.asm.assembler import assemble

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(module_text())
def test_generated_modules_match_spirv_as_and_dis(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.spvasm"
        src.write_text(text, newline="")
        out = Path(d) / "out.spv"
        ref = run_tool("spirv-as", str(src), "-o", str(out))
        try:
            ours = assemble(text, "in.spvasm").to_bytes()
        except SpvError as e:
            assert ref.returncode != 0, f"we rejected what spirv-as accepts: {e}\n{text}"
            return
        assert ref.returncode == 0, f"spirv-as rejected what we accept: {ref.stderr.decode()}\n{text}"
        binary = out.read_bytes()
        assert ours == binary, text
        for flags in ([], ["--raw-id"]):
            dis = run_tool("spirv-dis", *flags, str(out))
            if dis.returncode == 0:
                assert disassemble(read_binary(binary), raw_ids=bool(flags)) == dis.stdout.decode(), text

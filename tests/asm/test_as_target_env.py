"""`as` refuses what spirv-as refuses for the target environment: an opcode whose SPIR-V version is newer than
--target-env's when no capability or extension enables it earlier, and a file with no text at all. Each case
is compared with spirv-as (acceptance, bytes, line and column)."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import run_tool
from spvcoop import SpvError
from spvcoop.asm.assembler import Assembler, assemble
from spvcoop.core.spirv_grammar import load as load_grammar

HEAD = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n"
CASES = {
    # versions from the grammar: OpCopyLogical/OpPtrEqual 1.4 (no capability), OpExecutionModeId 1.2,
    # OpModuleProcessed 1.1; OpGroupNonUniformElect is 1.3 but has a capability, OpDecorateString 1.4 an extension
    "OpCopyLogical": HEAD + "%u = OpTypeInt 32 0\n%c = OpConstant %u 1\n%x = OpCopyLogical %u %c\n",
    "OpPtrEqual": HEAD + "%b = OpTypeBool\n%x = OpPtrEqual %b %p %q\n",
    "OpExecutionModeId": HEAD + "OpExecutionModeId %f LocalSizeId %a %a %a\n",
    "OpModuleProcessed": HEAD + 'OpModuleProcessed "x"\n',
    "OpGroupNonUniformElect": HEAD + "%u = OpTypeInt 32 0\n%x = OpGroupNonUniformElect %u %s\n",
    "OpDecorateString": HEAD + 'OpDecorateString %x UserSemantic "s"\n',
    "empty file": "",
    "only blanks and a comment": "  \n; nothing\n",
}
ENVS = ["spv1.0", "spv1.1", "spv1.3", "spv1.4", "vulkan1.0", "vulkan1.1", "vulkan1.2", "spv1.2"]


def spirv_as(text: str, env: str) -> tuple[int, bytes | None, str]:
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "in.spvasm", Path(d) / "out.spv"
        src.write_text(text)
        r = run_tool("spirv-as", "--target-env", env, str(src), "-o", str(out))
        return r.returncode, out.read_bytes() if r.returncode == 0 else None, r.stderr.decode(errors="replace")


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("name", list(CASES))
def test_target_env_agrees_with_spirv_as(name: str, env: str) -> None:
    text = CASES[name]
    code, ref, err = spirv_as(text, env)
    for templates in (True, False):  # the templated line path and the general token path
        try:
            a = Assembler(text, "in.spvasm", env, False, load_grammar())
            a.use_templates = templates
            ours = a.assemble_binary()
        except SpvError as e:
            assert code != 0, f"spirv-as accepts what we refuse: {e}"
            d = e.diagnostics[0]
            m = re.match(r"error: (\d+): (\d+): (.*)", err)
            assert m, err
            assert (d.span.line, d.span.col) == (int(m.group(1)), int(m.group(2))), (d.headline(), err)
            assert d.message.startswith(m.group(3).strip().rstrip(".")), (d.message, err)
            continue
        assert code == 0, f"spirv-as refuses what we accept: {err}"
        assert ours == ref


def test_newer_opcode_message_says_why() -> None:
    with pytest.raises(SpvError) as e:
        assemble(CASES["OpCopyLogical"], "in.spvasm", target_env="vulkan1.1")
    assert "OpCopyLogical needs SPIR-V 1.4; the target environment has SPIR-V 1.3" in e.value.diagnostics[0].message


def test_cli_empty_file(tmp_path: Path) -> None:
    src = tmp_path / "empty.spvasm"
    src.write_text("")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "as", str(src), "-o", str(tmp_path / "e.spv")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.startswith(f"{src}:1:1: error: Missing assembly text.")
    assert not (tmp_path / "e.spv").exists()

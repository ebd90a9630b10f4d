"""One core of module facts (issue 33 item 4): the validator's ModuleIndex and the interpreter's Program both take
definitions, names, decorations, entry points and execution modes from `core.facts.ModuleFacts`, built once per
Module object; before, each walked the module and built its own tables."""
from __future__ import annotations


import numpy as np
import pytest
from conftest import REPO

from spvcoop import assemble, read_binary
from spvcoop.cli import main
from spvcoop.core.facts import ModuleFacts
from spvcoop.interp.program import Program
from spvcoop.validator import ModuleIndex, validate

ROOT = REPO
SAXPY = ROOT / "samples" / "saxpy"
GEMM = ROOT / "samples" / "coopmat" / "khr_gemm"   # a profile checks its MulAdds


@pytest.fixture
def built(monkeypatch) -> list[ModuleFacts]:
    """Every ModuleFacts constructed while the test runs."""
    made: list[ModuleFacts] = []
    init = ModuleFacts.__init__

    def counting(self, instructions):
        made.append(self)
        init(self, instructions)
    monkeypatch.setattr(ModuleFacts, "__init__", counting)
    return made


def test_run_spec_with_validation_builds_the_facts_once(built, tmp_path, capsys) -> None:
    """`spvcoop run spec.yaml` validates (the index) and runs (the Program): one ModuleFacts (was one each)."""
    spec = tmp_path / "run.yaml"
    (tmp_path / "saxpy.spvasm").write_bytes((SAXPY / "saxpy.spvasm").read_bytes())
    spec.write_text("shader: saxpy.spvasm\ndispatch: [1, 1, 1]\npush_constants: {a: 2.0, n: 4}\n"
                    "buffers:\n  x: {data: [1.0, 2.0, 3.0, 4.0], dtype: float32}\n"
                    "  y: {data: [1.0, 1.0, 1.0, 1.0], dtype: float32}\noutputs: [y]\n")
    assert main(["run", str(spec), "-q"]) == 0
    assert len(built) == 1


def test_api_run_builds_the_facts_once(built) -> None:
    """api.run with validation on (the rules, then the Program): one ModuleFacts."""
    from spvcoop.api import run
    from spvcoop.loader import load_shader
    module = load_shader(str(SAXPY / "saxpy.spvasm"))
    y = run(module, buffers={"x": np.arange(4, dtype=np.float32), "y": np.ones(4, np.float32)},
            push_constants={"a": 2.0, "n": 4})["y"]
    np.testing.assert_array_equal(y, [1, 3, 5, 7])
    assert len(built) == 1


def test_val_with_a_profile_builds_the_facts_once(built, capsys) -> None:
    """`spvcoop val --profile`: the rules and the profile's MulAdd checks read one ModuleFacts."""
    assert main(["val", str(GEMM / "gemm.spvasm"), "--no-spirv-val", "--profile", "nvidia-h100"]) in (0, 1)
    assert len(built) == 1


def test_the_index_and_the_program_share_the_tables() -> None:
    module = assemble((SAXPY / "saxpy.spvasm").read_text(), "saxpy.spvasm")
    ix, prog = ModuleIndex(module), Program(module)
    assert ix.defs is prog.defs is ModuleFacts.of(module).defs
    assert ix.decorations is ModuleFacts.of(module).decorations


NAMED_TWICE = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %1 "main"
OpExecutionMode %1 LocalSize 1 1 1
OpName %1 "first"
OpName %1 "second"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%1 = OpFunction %void None %fn
%2 = OpLabel
OpReturn
OpFunctionEnd
"""


def test_each_side_keeps_its_reading_of_an_id_named_twice() -> None:
    """The validator names an id by its first OpName (as spirv-dis), the Program by its last: as before."""
    module = read_binary(assemble(NAMED_TWICE, "twice.spvasm").to_bytes())   # no names from the text
    assert ModuleIndex(module).name(1) == "%first"
    assert Program(module).name_of(1) == "second"


def test_facts_follow_a_replaced_or_grown_instruction_list() -> None:
    module = assemble(NAMED_TWICE, "twice.spvasm")
    facts = ModuleFacts.of(module)
    assert ModuleFacts.of(module) is facts
    module.instructions = list(module.instructions)        # another list: built anew
    again = ModuleFacts.of(module)
    assert again is not facts
    module.instructions.pop()                              # fewer instructions: built anew
    assert ModuleFacts.of(module) is not again


def test_an_instruction_edited_in_place_and_a_new_list() -> None:
    """An operand edited in place is not seen by the memo: a new instruction list says the facts are stale."""
    module = assemble(NAMED_TWICE, "twice.spvasm")
    assert ModuleFacts.of(module).names[1] == "first"
    next(i for i in module.instructions if i.opname == "OpName").operands[1].value = "renamed"
    module.instructions = list(module.instructions)
    assert ModuleFacts.of(module).names[1] == "renamed"
    assert not validate(module, spirv_val=False)


def test_function_spans() -> None:
    module = assemble(NAMED_TWICE, "twice.spvasm")
    facts = ModuleFacts.of(module)
    (span,) = facts.functions
    assert span.ended and span.inst.result_id == 1
    assert [i.opname for i in facts.body(span)] == ["OpLabel", "OpReturn"]
    assert facts.bodies == {1: facts.body(span)}


def test_facts_leave_with_their_module() -> None:
    """The memo keeps neither the module alive nor its entry after the module is gone."""
    import gc
    import weakref

    from spvcoop.core import facts as facts_module
    module = assemble(NAMED_TWICE, "twice.spvasm")
    ModuleFacts.of(module)
    key, ref = id(module), weakref.ref(module)
    assert key in facts_module._MEMO
    del module
    gc.collect()
    assert ref() is None
    assert key not in facts_module._MEMO


def test_a_type_used_before_its_declaration_is_named_so() -> None:
    """The Program knows every definition before its walk (from the facts): a type that names a type declared
    further down says so (it said "is not defined", which the later declaration contradicts)."""
    from spvcoop.core.diagnostics import SpvError
    text = NAMED_TWICE.replace("%void = OpTypeVoid\n", "%void = OpTypeVoid\n%v4 = OpTypeVector %f32 4\n"
                                                       "%f32 = OpTypeFloat 32\n")
    with pytest.raises(SpvError, match="component type f32 is declared after its use"):
        Program(assemble(text, "forward.spvasm"))


def test_lint_with_a_profile_reads_each_file_once(built, tmp_path, capsys) -> None:
    """`spvcoop lint DIR --profile`: each file's rules and the profile's coverage (which configurations no kernel
    uses) read one ModuleFacts; the coverage loaded every file a second time (two ModuleFacts a file)."""
    for name in ("gemm.spvasm", "gemm2.spvasm"):
        (tmp_path / name).write_bytes((GEMM / "gemm.spvasm").read_bytes())
    assert main(["lint", str(tmp_path), "--no-spirv-val", "--profile", "nvk-ampere", "-j", "1"]) in (0, 1)
    assert len(built) == 2
    assert "nvk-ampere lists 17 of 18 configuration(s) no kernel uses" in capsys.readouterr().err

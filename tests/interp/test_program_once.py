"""A command indexes its shader once (issue 33 item 4): `Program(module)` costs about two thirds of a validation,
and `spvcoop run` used to build it 2 to 4 times (element typing, an input file, the run, --check). One Program per
command now: made by commands/run.prepare, handed to run() (which accepts it as its shader), the debugger, the
device runner, --check and --emit-amber."""
from __future__ import annotations


import numpy as np
import pytest

from spvcoop.cli import main
from spvcoop.interp.program import Program
from conftest import REPO

ROOT = REPO
PARTICLES = ROOT / "samples" / "particles"
SAXPY = ROOT / "samples" / "saxpy"


@pytest.fixture
def built(monkeypatch) -> list[Program]:
    """Every Program constructed while the test runs."""
    made: list[Program] = []
    init = Program.__init__

    def counting(self, module):
        made.append(self)
        init(self, module)
    monkeypatch.setattr(Program, "__init__", counting)
    return made


def test_run_with_an_input_file_and_a_check_indexes_once(built, capsys) -> None:
    """Element typing, the input file's binding, the run and the SPIRV-Interpreter --check: one Program (was 4)."""
    assert main(["run", str(PARTICLES / "particles.spvasm"), "--input", str(PARTICLES / "in.yaml"),
                 "--check", str(PARTICLES / "out.yaml"), "-q"]) == 0
    assert len(built) == 1


def test_run_spec_with_emit_amber_indexes_once(built, tmp_path, capsys) -> None:
    """A run spec's buffers typed, the run, the Amber script written from the run: one Program (was 3)."""
    spec = tmp_path / "run.yaml"
    (tmp_path / "saxpy.spvasm").write_bytes((SAXPY / "saxpy.spvasm").read_bytes())
    spec.write_text("shader: saxpy.spvasm\ndispatch: [1, 1, 1]\npush_constants: {a: 2.0, n: 4}\n"
                    "buffers:\n  x: {data: [1.0, 2.0, 3.0, 4.0], dtype: float32}\n"
                    "  y: {data: [1.0, 1.0, 1.0, 1.0], dtype: float32}\noutputs: [y]\n")
    assert main(["run", str(spec), "--emit-amber", str(tmp_path / "out.amber"), "-q"]) == 0
    assert len(built) == 1
    assert "EXPECT" in (tmp_path / "out.amber").read_text()


def test_debug_session_indexes_once(built, capsys) -> None:
    """`spvcoop debug`: the buffers typed, the debugger's names and lines, its run: one Program (was 3)."""
    assert main(["debug", str(ROOT / "tests" / "data" / "debug" / "run.yaml"), "-ex", "run", "-ex", "quit"]) == 0
    assert len(built) == 1


def test_run_accepts_a_program_and_gives_what_the_module_gives() -> None:
    """run(Program) is run(Module) without indexing again; the Program may serve another run."""
    from spvcoop.interp import run
    from spvcoop.loader import load_shader
    module = load_shader(str(SAXPY / "saxpy.spvasm"))
    prog = Program(module)
    x = np.arange(8, dtype=np.float32)
    y = np.ones(8, np.float32)
    args = dict(dispatch=(1, 1, 1), buffers={"x": x, "y": y}, push_constants={"a": 2.0, "n": 8})
    want = run(module, **args)["y"]
    np.testing.assert_array_equal(run(prog, **args)["y"], want)
    np.testing.assert_array_equal(run(prog, **args)["y"], want)


ARRAY_OF_SPEC_LENGTH = """
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %out
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %n SpecId 0
               OpMemberDecorate %Out 0 Offset 0
               OpDecorate %Out Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
     %voidfn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
          %n = OpSpecConstant %uint 2
      %uint0 = OpConstant %uint 0
      %uint1 = OpConstant %uint 1
      %uint7 = OpConstant %uint 7
        %nm1 = OpSpecConstantOp %uint ISub %n %uint1
        %arr = OpTypeArray %uint %n
          %S = OpTypeStruct %arr %uint
      %p_fS = OpTypePointer Function %S
     %p_fu = OpTypePointer Function %uint
        %Out = OpTypeStruct %uint
      %p_sO = OpTypePointer StorageBuffer %Out
      %p_su = OpTypePointer StorageBuffer %uint
        %out = OpVariable %p_sO StorageBuffer
       %main = OpFunction %void None %voidfn
      %entry = OpLabel
          %s = OpVariable %p_fS Function
         %pm = OpAccessChain %p_fu %s %uint1
               OpStore %pm %n
         %pl = OpAccessChain %p_fu %s %uint0 %nm1
               OpStore %pl %uint7
          %v = OpLoad %uint %pm
         %po = OpAccessChain %p_su %out %uint0
               OpStore %po %v
               OpReturn
               OpFunctionEnd
"""


def test_a_shared_program_lays_out_each_run_by_its_own_spec_constants() -> None:
    """A struct's member offsets follow its arrays' lengths, which a spec constant may set per run: a Program
    shared by two runs with other lengths lays each out afresh (the struct's offsets are not kept from the first:
    else the array's last element, past the first run's layout, would land on the member after it)."""
    from spvcoop.interp import run
    from spvcoop.loader import load_shader
    prog = Program(load_shader(ARRAY_OF_SPEC_LENGTH))
    out = {0: np.zeros(1, np.uint32)}
    assert run(prog, buffers=out, spec_constants={0: 3})[0][0] == 3
    # with 4 elements the member after the array is at byte 16; the first run put it at 12, where arr[3] now is
    assert run(prog, buffers=out, spec_constants={0: 4})[0][0] == 4

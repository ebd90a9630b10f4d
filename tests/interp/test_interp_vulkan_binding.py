"""What a Vulkan host may leave out (issue 11, defects 6 and 7).

- A buffer variable no function of the entry point's call tree uses (glslang emits one for every
  buffer_reference block) needs no data: Vulkan needs no descriptor for a statically unused variable.
  The run says so in one note. A buffer used only by a called function is used and still needs data.
- Specialization-constant ids the module does not declare are ignored with a note (Vulkan ignores map
  entries for them); a spec-constant *name* that matches nothing is still an error (a typo).
"""
from __future__ import annotations

import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import run

SHADER = """\
               OpCapability Shader
               OpExtension "SPV_KHR_storage_buffer_storage_class"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %used %viacall %unused %orphanbuf
               OpExecutionMode %main LocalSize 4 1 1
               OpName %main "main"
               OpName %helper "helper"
               OpName %orphan "orphan"
               OpName %used "used"
               OpName %viacall "viacall"
               OpName %unused "unused"
               OpName %orphanbuf "orphanbuf"
               OpName %k "K"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %k SpecId 3
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %B 0 Offset 0
               OpDecorate %B Block
               OpDecorate %used DescriptorSet 0
               OpDecorate %used Binding 0
               OpDecorate %viacall DescriptorSet 0
               OpDecorate %viacall Binding 1
               OpDecorate %unused DescriptorSet 0
               OpDecorate %unused Binding 2
               OpDecorate %orphanbuf DescriptorSet 0
               OpDecorate %orphanbuf Binding 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
     %uint_0 = OpConstant %uint 0
     %uint_7 = OpConstant %uint 7
          %k = OpSpecConstant %uint 5
         %rt = OpTypeRuntimeArray %uint
          %B = OpTypeStruct %rt
       %ptrB = OpTypePointer StorageBuffer %B
       %ptru = OpTypePointer StorageBuffer %uint
     %ptrgid = OpTypePointer Input %v3uint
        %gid = OpVariable %ptrgid Input
       %used = OpVariable %ptrB StorageBuffer
    %viacall = OpVariable %ptrB StorageBuffer
     %unused = OpVariable %ptrB StorageBuffer
  %orphanbuf = OpVariable %ptrB StorageBuffer
     %helper = OpFunction %void None %fn
         %h0 = OpLabel
         %h1 = OpAccessChain %ptru %viacall %uint_0 %uint_0
               OpStore %h1 %uint_7
               OpReturn
               OpFunctionEnd
     %orphan = OpFunction %void None %fn
         %o0 = OpLabel
         %o1 = OpAccessChain %ptru %orphanbuf %uint_0 %uint_0
               OpStore %o1 %uint_7
               OpReturn
               OpFunctionEnd
       %main = OpFunction %void None %fn
         %m0 = OpLabel
         %m1 = OpLoad %v3uint %gid
         %m2 = OpCompositeExtract %uint %m1 0
         %m3 = OpIAdd %uint %m2 %k
         %m4 = OpAccessChain %ptru %used %uint_0 %m2
               OpStore %m4 %m3
      %first = OpIEqual %bool %m2 %uint_0
               OpSelectionMerge %m7 None
               OpBranchConditional %first %m6 %m7
         %m6 = OpLabel
         %m5 = OpFunctionCall %void %helper
               OpBranch %m7
         %m7 = OpLabel
               OpReturn
               OpFunctionEnd
"""


@pytest.fixture
def shader(tmp_path):
    p = tmp_path / "bindings.spvasm"
    p.write_text(SHADER)
    return str(p)


def test_statically_unused_buffers_need_no_data(shader, capsys):
    res = run(shader, buffers={"used": np.zeros(4, np.uint32), "viacall": np.zeros(1, np.uint32)})
    assert res["used"].tolist() == [5, 6, 7, 8]
    assert res["viacall"].tolist() == [7]
    assert "unused" not in res.buffers and "orphanbuf" not in res.buffers
    # one note naming both: 'orphanbuf' is used only by a function the entry point never calls; in the
    # result, not on the terminal
    notes = [d for d in res.diagnostics if d.severity == "note"]
    assert len(notes) == 1
    assert "buffers 'unused', 'orphanbuf' are not used by the entry point; no data needed" in notes[0].message
    assert capsys.readouterr().err == ""


def test_a_buffer_used_by_a_called_function_still_needs_data(shader):
    with pytest.raises(SpvError) as e:
        run(shader, buffers={"used": np.zeros(4, np.uint32)})
    assert "no data for buffer 'viacall'" in str(e.value)
    # the binding's note made before the error comes with it (binder.Binder writes to the run's diagnostics at once)
    assert any("are not used by the entry point" in d.message for d in e.value.diagnostics)


def test_unused_buffer_given_data_is_still_bound(shader):
    res = run(shader, buffers={"used": np.zeros(4, np.uint32), "viacall": np.zeros(1, np.uint32),
                               "unused": np.arange(3, dtype=np.uint32)})
    assert res["unused"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("extra", [{13: 1}, {"13": 1}, {13: 1, 14: 2}])
def test_undeclared_spec_constant_ids_are_ignored_with_a_note(shader, capsys, extra):
    res = run(shader, buffers={"used": np.zeros(4, np.uint32), "viacall": np.zeros(1, np.uint32)},
              spec_constants={3: 10, **extra})
    assert res["used"].tolist() == [10, 11, 12, 13]  # the declared id still applies
    err = "\n".join(d.headline() for d in res.diagnostics)   # in the result, not on the terminal
    assert capsys.readouterr().err == ""
    ids = ", ".join(str(k) for k in extra)
    assert f"specialization constant id{'s' if len(extra) > 1 else ''} {ids} " in err
    assert "not declared by the module: ignored, as Vulkan does" in err


def test_an_unknown_spec_constant_name_is_still_an_error(shader):
    with pytest.raises(SpvError) as e:
        run(shader, buffers={"used": np.zeros(4, np.uint32), "viacall": np.zeros(1, np.uint32)},
            spec_constants={"KK": 1})
    assert "no specialization constant 'KK'" in str(e.value) and "did you mean 'K'" in str(e.value)

"""Hand-written SPIR-V assembly: control-flow corner cases and run-time errors (diagnostics, never tracebacks)."""
from __future__ import annotations

import numpy as np
import pytest

from spvcoop import SpvError, assemble
from spvcoop.interp import run
from conftest import TESTS

HEADER = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid %lid
OpExecutionMode %main LocalSize {wg} 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %lid BuiltIn LocalInvocationId
OpDecorate %rt ArrayStride 4
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %sc SpecId 7
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%ptr_in = OpTypePointer Input %v3uint
%gid = OpVariable %ptr_in Input
%lid = OpVariable %ptr_in Input
%rt = OpTypeRuntimeArray %uint
%Buf = OpTypeStruct %rt
%ptr_buf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %ptr_buf StorageBuffer
%ptr_u = OpTypePointer StorageBuffer %uint
%ptr_fu = OpTypePointer Function %uint
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u3 = OpConstant %uint 3
%u264 = OpConstant %uint 264
%sc = OpSpecConstant %uint 5
%sc2 = OpSpecConstantOp %uint IMul %sc %u3
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %g 0
"""


def shader(body: str, wg: int = 4) -> str:
    return HEADER.format(wg=wg) + body.strip() + "\nOpFunctionEnd\n"


def go(body: str, n: int = 8, wg: int = 4, **kw):
    data = np.zeros(n, np.uint32)
    return run(assemble(shader(body, wg), "case.spvasm"), dispatch=(n // wg, 1, 1), buffers={(0, 0): data}, **kw)


LOOP_PHI = """
OpBranch %header
%header = OpLabel
%i = OpPhi %uint %u0 %entry %inext %cont
%acc = OpPhi %uint %u0 %entry %accnext %cont
OpLoopMerge %merge %cont None
OpBranch %check
%check = OpLabel
%c = OpULessThan %bool %i %x
OpBranchConditional %c %body %merge
%body = OpLabel
%accnext = OpIAdd %uint %acc %i
OpBranch %cont
%cont = OpLabel
%inext = OpIAdd %uint %i %u1
OpBranch %header
%merge = OpLabel
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %acc
OpReturn
"""


def test_loop_with_phis_and_break_block_keeps_each_invocations_exit_value():
    r = go(LOOP_PHI)
    x = np.arange(8)
    np.testing.assert_array_equal(r[(0, 0)], x * (x - 1) // 2)


def test_spec_constant_op_default_and_override():
    body = """
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %sc2
OpReturn
"""
    assert go(body)[(0, 0)].tolist() == [15] * 8
    assert go(body, spec_constants={7: 2})[(0, 0)].tolist() == [6] * 8


def test_switch_with_phi_at_merge():
    body = """
%m = OpUMod %uint %x %u3
OpSelectionMerge %merge None
OpSwitch %m %dflt 0 %c0 1 %c1
%c0 = OpLabel
OpBranch %merge
%c1 = OpLabel
%t1 = OpIMul %uint %x %u2
OpBranch %merge
%dflt = OpLabel
OpBranch %merge
%merge = OpLabel
%v = OpPhi %uint %u264 %c0 %t1 %c1 %x %dflt
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %v
OpReturn
"""
    exp = [264 if x % 3 == 0 else 2 * x if x % 3 == 1 else x for x in range(8)]
    assert go(body)[(0, 0)].tolist() == exp


def _error(body: str, **kw) -> str:
    with pytest.raises(SpvError) as e:
        go(body, **kw)
    d = e.value.diagnostics[0]
    text = d.headline() + "\n" + "\n".join(n.message for n in d.notes)
    return text


def test_out_of_bounds_store_reports_offset_size_line_and_invocation():
    body = """
%y = OpIAdd %uint %x %u3
%p = OpAccessChain %ptr_u %buf %u0 %y
OpStore %p %x
OpReturn
"""
    msg = _error(body)
    assert "out-of-bounds store" in msg and "byte offset 32" in msg and "32 bytes" in msg
    assert "case.spvasm:" in msg and "OpStore" in msg
    assert "#5" in msg  # invocation 5 is the first to write past the end (5 + 3 = 8)


def test_integer_division_by_zero():
    body = """
%q = OpUDiv %uint %u1 %x
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %q
OpReturn
"""
    msg = _error(body)
    assert "division by zero" in msg and "OpUDiv" in msg and "#0" in msg


def test_step_limit_stops_infinite_loop():
    body = """
OpBranch %header
%header = OpLabel
OpLoopMerge %merge %header None
OpBranchConditional %true_ %header %merge
%merge = OpLabel
OpReturn
""".replace("%true_", "%always")
    src = shader(body).replace("%main = OpFunction", "%always = OpConstantTrue %bool\n%main = OpFunction")
    with pytest.raises(SpvError) as e:
        run(assemble(src, "loop.spvasm"), buffers={(0, 0): np.zeros(4, np.uint32)}, max_steps=1000)
    assert "step limit of 1000" in e.value.diagnostics[0].message


def test_barrier_in_divergent_control_flow():
    body = """
%c = OpULessThan %bool %x %u2
OpSelectionMerge %merge None
OpBranchConditional %c %then %merge
%then = OpLabel
OpControlBarrier %u2 %u2 %u264
OpBranch %merge
%merge = OpLabel
OpReturn
"""
    msg = _error(body)
    assert "barrier reached by only part of workgroup 0" in msg and "2 of 4" in msg


def test_unsupported_instruction_is_named_with_its_line():
    body = """
%f = OpConvertUToF %float %x
%d = OpDPdx %float %f
OpReturn
"""
    # validation refuses OpDPdx in a compute shader first (next test); without it the
    # interpreter still names what it cannot execute
    with pytest.raises(SpvError) as e:
        go(body, validate=False)
    d = e.value.diagnostics[0]
    assert "unsupported instruction OpDPdx" in d.message
    assert d.span is not None and d.span.line == shader(body).splitlines().index("%d = OpDPdx %float %f") + 1


def test_run_validates_with_spirv_val_first():
    body = """
%f = OpConvertUToF %float %x
%d = OpDPdx %float %f
OpReturn
"""
    with pytest.raises(SpvError) as e:
        go(body)
    d = e.value.diagnostics[0]
    assert d.rule == "spirv-val" and "DPdx" in d.message


def test_uninitialised_function_variable_read():
    body = """
%v = OpVariable %ptr_fu Function
%y = OpLoad %uint %v
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %y
OpReturn
"""
    src = shader(body)
    with pytest.raises(SpvError) as e:
        # (the body's variable is not first in its block, which spirv-val refuses: run unvalidated)
        run(assemble(src, "u.spvasm"), dispatch=(2, 1, 1), buffers={(0, 0): np.zeros(8, np.uint32)}, validate=False)
    assert "read before anything was stored" in e.value.diagnostics[0].message


def test_missing_runtime_sized_buffer_and_unknown_spec_constant_are_errors():
    src = shader("%p = OpAccessChain %ptr_u %buf %u0 %x\nOpStore %p %x\nOpReturn")
    with pytest.raises(SpvError, match="runtime array"):
        run(assemble(src, "m.spvasm"))
    with pytest.raises(SpvError, match="no specialization constant 'NOPE'"):
        run(assemble(src, "m.spvasm"), buffers={(0, 0): np.zeros(4, np.uint32)}, spec_constants={"NOPE": 1})
    # a statically unused buffer needs no data, an undeclared spec-constant id is ignored (Vulkan):
    # tests/interp/test_interp_vulkan_binding.py
    run(assemble(shader("OpReturn"), "m.spvasm"), spec_constants={9: 1})


def test_cost_does_not_grow_with_workgroup_count():
    small = go(LOOP_PHI, n=8).steps
    # the loop runs max(x) times; compare two dispatches with the same longest invocation
    body = LOOP_PHI.replace("%c = OpULessThan %bool %i %x", "%xm = OpUMod %uint %x %u264\n"
                            "%c = OpULessThan %bool %i %xm")
    a = go(body, n=264 * 1, wg=4).steps
    b = go(body, n=264 * 16, wg=4).steps
    assert a == b and small < a


def test_invalid_module_reported_by_the_validator_before_running():
    probe = TESTS / "data" / "coopmat-probes" / "khr_err_fadd_use_mismatch.spvasm"
    with pytest.raises(SpvError) as e:
        run(probe)
    d = e.value.diagnostics[0]
    assert d.rule and d.rule.startswith("coopmat.") and d.span is not None and d.span.line > 0


def test_workgroup_copy_memory_and_dynamic_vector_index():
    body = """
%l = OpLoad %v3uint %lid
%lx = OpCompositeExtract %uint %l 0
%sp = OpAccessChain %ptr_wu %shared %lx
OpStore %sp %x
OpControlBarrier %u2 %u2 %u264
%vec = OpCompositeConstruct %v3uint %u1 %u2 %x
%k = OpUMod %uint %x %u3
%pick = OpVectorExtractDynamic %uint %vec %k
%rev = OpISub %uint %u3 %lx
%rp = OpAccessChain %ptr_wu %shared %rev
%other = OpLoad %uint %rp
OpControlBarrier %u2 %u2 %u264
%sum = OpIAdd %uint %pick %other
OpStore %sp %sum
OpControlBarrier %u2 %u2 %u264
%fv = OpVariable %ptr_farr Function
OpCopyMemory %fv %shared
%fp = OpAccessChain %ptr_fu %fv %lx
%y = OpLoad %uint %fp
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %y
OpReturn
"""
    src = shader(body).replace("%main = OpFunction", """%u4 = OpConstant %uint 4
%arr4 = OpTypeArray %uint %u4
%ptr_warr = OpTypePointer Workgroup %arr4
%ptr_farr = OpTypePointer Function %arr4
%ptr_wu = OpTypePointer Workgroup %uint
%shared = OpVariable %ptr_warr Workgroup
%main = OpFunction""")
    # OpVariable must come first in the function's first block
    src = src.replace("%x = OpCompositeExtract %uint %g 0\n", "")
    src = src.replace("%entry = OpLabel\n%g = OpLoad %v3uint %gid\n",
                      "%entry = OpLabel\n%fv = OpVariable %ptr_farr Function\n%g = OpLoad %v3uint %gid\n"
                      "%x = OpCompositeExtract %uint %g 0\n", 1)
    src = src.replace("%fv = OpVariable %ptr_farr Function\nOpCopyMemory", "OpCopyMemory")
    r = run(assemble(src, "copy.spvasm"), dispatch=(2, 1, 1), buffers={(0, 0): np.zeros(8, np.uint32)})
    x = np.arange(8)
    pick = np.where(x % 3 == 0, 1, np.where(x % 3 == 1, 2, x))
    lx = x % 4
    other = (x // 4) * 4 + (3 - lx)  # the value stored by the mirrored invocation of the same workgroup
    np.testing.assert_array_equal(r[(0, 0)], pick + other)


def test_shift_by_the_bit_width_is_reported():
    body = """
%y = OpIMul %uint %x %u264
%s = OpShiftLeftLogical %uint %u1 %y
%p = OpAccessChain %ptr_u %buf %u0 %x
OpStore %p %s
OpReturn
"""
    msg = _error(body)  # invocation 0 shifts by 0 (fine); invocation 1 by 264
    assert "shift by 264 bits of a 32-bit integer" in msg and "#1" in msg


@pytest.mark.slow
def test_bfloat16_scalars_are_computed_as_bfloat16_not_as_half(tmp_path):
    """A BFloat16KHR value is not an IEEE half (it used to be refused; now it is ml_dtypes' bfloat16):
    1.5 (0x3FC0) widened to f32, doubled and narrowed back is 3.0 (0x4040); read as a half, 0x3FC0
    would be 1.9375."""
    import subprocess
    import sys
    import numpy as np
    import spvcoop
    shader = TESTS / "data" / "bf16_scalar.spvasm"
    res = spvcoop.run(str(shader), dispatch=(1, 1, 1), buffers={0: np.array([0x3FC0, 0], np.uint16)})
    assert res[0].tolist() == [0x3FC0, 0x4040]
    spec = tmp_path / "bf.yaml"
    spec.write_text(f"shader: {shader}\ndispatch: [1, 1, 1]\nbuffers:\n  0: {{data: [16320, 0], dtype: uint16}}\n")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec), "--allow-outside-files"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "Traceback" not in r.stderr and "16448" in r.stdout, r.stderr


def test_non_semantic_instructions_may_name_functions_and_types():
    """NonSemantic.* extended instructions take any id (glslang -gV's DebugFunctionDefinition names the
    function, its DebugTypeBasic a type); they are not executed, so their operands are not values."""
    text = shader("""
%st = OpStore %p %u3
OpReturn""").replace("OpMemoryModel", 'OpExtension "SPV_KHR_non_semantic_info"\n%ns = OpExtInstImport '
                     '"NonSemantic.spvcoop.test"\nOpMemoryModel', 1)
    text = text.replace("%g = OpLoad", "%dbg = OpExtInst %void %ns 7 %main %uint %fn\n%g = OpLoad", 1)
    text = text.replace("%st = OpStore %p %u3", "%p = OpAccessChain %ptr_u %buf %u0 %x\nOpStore %p %u3")
    res = run(assemble(text, "case.spvasm"), dispatch=(1, 1, 1), buffers={(0, 0): np.zeros(4, np.uint32)})
    assert list(res[(0, 0)]) == [3, 3, 3, 3]


def test_non_semantic_instructions_between_blocks_are_skipped():
    """Issue 32: Slang -g (and hand-edited glslang -gVS output) puts DebugNoScope after OpReturn, between blocks
    and before OpFunctionEnd; spirv-val and our rules accept it, and run refused it ("OpExtInst is outside a
    block"). Nothing executes them: the run gives what the shader computes."""
    from spvcoop.validator import validate
    shader = TESTS / "data" / "nonsemantic" / "debug_noscope.spvasm"
    text = shader.read_text()
    assert text.count("= OpExtInst %void %2 DebugNoScope") == 4
    assert "OpReturn\n        %902 = OpExtInst %void %2 DebugNoScope\n               OpFunctionEnd" in text
    module = assemble(text, str(shader))
    assert not [d for d in validate(module, "vulkan1.3") if d.severity == "error"]  # spirv-val's findings too
    res = run(module, buffers={(0, 0): np.array([1, 2, 3, 4], np.float32)})
    assert res[(0, 0)].tolist() == [3.0, 5.0, 3.0, 4.0]  # v[i] * 2 + 1 where i < 2

"""Invalid modules run without validation, runaway loops, memory, recursion and singular matrices: every one is a
located SpvError (or a defined result), never a Python exception from inside the interpreter."""
import numpy as np
import pytest

from spvcoop import assemble
from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import run
from spvcoop.interp.config import DEFAULT_MAX_MEMORY, DEFAULT_MAX_TIME

HEAD = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%bool = OpTypeBool
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%one = OpConstant %int 1
%fone = OpConstant %float 1
%true = OpConstantTrue %bool
%fn = OpTypeFunction %void
%pfi = OpTypePointer Function %int
"""
MAIN = "%main = OpFunction %void None %fn\n%entry = OpLabel\n"
END = "OpReturn\nOpFunctionEnd\n"

# (name, module text, words the message must contain)
BROKEN = [
    ("undefined value", MAIN + "%x = OpIAdd %int %one %nowhere\n" + END, "nowhere"),
    ("result type is a constant", MAIN + "%x = OpIAdd %one %one %one\n" + END, "not a type"),
    ("type used as a value", MAIN + "%x = OpIAdd %int %int %one\n" + END, "not a value"),
    ("label used as a value", MAIN + "%x = OpIAdd %int %entry %one\n" + END, "not a value"),
    ("function used as a value", MAIN + "%x = OpIAdd %int %main %one\n" + END, "not a value"),
    ("vector of a constant", "%v = OpTypeVector %one 4\n" + MAIN + END, "not a type"),
    ("pointer to nothing", "%p = OpTypePointer Function %ghost\n" + MAIN + END, "ghost"),
    ("struct member not a type", "%s = OpTypeStruct %int %one\n" + MAIN + END, "not a type"),
    ("array length not a constant", "%a = OpTypeArray %int %int\n" + MAIN + END, "constant"),
    ("int of width 7", "%i7 = OpTypeInt 7 0\n%c7 = OpConstant %i7 1\n" + MAIN + END, "width"),
    ("float of width 8", "%f8 = OpTypeFloat 8\n" + MAIN + END, "width"),
    ("no terminator", MAIN + "%x = OpIAdd %int %one %one\nOpFunctionEnd\n", "terminator"),
    ("branch to a constant", MAIN + "OpBranch %one\n%b = OpLabel\n" + END, "not a label"),
    ("branch to another function's label", MAIN + "OpBranch %other\nOpFunctionEnd\n"
     "%f2 = OpFunction %void None %fn\n%other = OpLabel\n" + END, "this function"),
    ("call of a constant", MAIN + "%r = OpFunctionCall %void %one\n" + END, "not a function"),
    ("call with missing arguments", "%fi = OpTypeFunction %void %int\n" + MAIN + "%r = OpFunctionCall %void %g\n"
     + END + "%g = OpFunction %void None %fi\n%gp = OpFunctionParameter %int\n%gl = OpLabel\n" + END, "argument"),
    ("recursion", MAIN + "%r = OpFunctionCall %void %main\n" + END, "recursion"),
    ("indirect recursion", MAIN + "%r = OpFunctionCall %void %g\n" + END + "%g = OpFunction %void None %fn\n"
     "%gl = OpLabel\n%r2 = OpFunctionCall %void %main\n" + END, "recursion"),
    ("ext inst of a non-import", MAIN + "%x = OpExtInst %float %one 31 %fone\n" + END, "OpExtInstImport"),
    ("variable of a non-pointer type", MAIN + "%v = OpVariable %int Function\n" + END, "pointer"),
    ("true of an integer type", "%ct = OpConstantTrue %int\n" + MAIN + END, "boolean"),
    ("composite constant of a non-constant", "%v2 = OpTypeVector %int 2\n%cc = OpConstantComposite %v2 %one %int\n"
     + MAIN + END, "constant"),
    ("entry point names a constant", "", "function"),
    ("function without blocks", "%main = OpFunction %void None %fn\nOpFunctionEnd\n", "no blocks"),
    ("instruction after the terminator", MAIN + "OpReturn\n%x = OpIAdd %int %one %one\nOpFunctionEnd\n",
     "terminator"),
    ("phi parent is not a label", MAIN + "OpBranch %b\n%b = OpLabel\n%p = OpPhi %int %one %one\n" + END, "label"),
    ("load from a constant", MAIN + "%x = OpLoad %int %one\n" + END, "pointer"),
    ("struct index out of range", "%s = OpTypeStruct %int\n%ps = OpTypePointer Function %s\n%nine = OpConstant %int 9\n"
     + MAIN + "%v = OpVariable %ps Function\n%c = OpAccessChain %pfi %v %nine\n" + END, "9"),
    ("extract index out of range", "%v2 = OpTypeVector %int 2\n%cv = OpConstantComposite %v2 %one %one\n" + MAIN
     + "%x = OpCompositeExtract %int %cv 7\n" + END, "7"),
    ("merge target undefined", MAIN + "OpSelectionMerge %nomerge None\nOpBranchConditional %true %b %b\n"
     "%b = OpLabel\n" + END, "nomerge"),
]


@pytest.mark.parametrize("name, body, words", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_module_is_a_located_error(name, body, words):
    text = HEAD + body
    if name == "entry point names a constant":
        text = text.replace('OpEntryPoint GLCompute %main "main"', 'OpEntryPoint GLCompute %one "main"')
        text = text.replace("OpExecutionMode %main", "OpExecutionMode %one") + MAIN + END
    if name == "ext inst of a non-import":
        # spirv-as and spvcoop's assembler refuse this text, so build the module in code: a valid
        # OpExtInst whose set operand is then pointed at a constant
        text = text.replace("OpCapability Shader\n",
                            "OpCapability Shader\n%glsl = OpExtInstImport \"GLSL.std.450\"\n", 1)
        module = assemble(text.replace("OpExtInst %float %one 31", "OpExtInst %float %glsl Sqrt"), "broken.spvasm")
        one = next(i.result_id for i in module.instructions if module.id_names.get(i.result_id) == "one")
        next(i for i in module.instructions if i.opname == "OpExtInst").operands[0].value = one
    else:
        module = assemble(text, "broken.spvasm")
    with pytest.raises(SpvError) as e:
        run(module, validate=False)
    d = e.value.diagnostics[0]
    assert words.lower() in d.message.lower(), d.message
    assert d.source == "broken.spvasm"
    assert d.span is not None and d.span.line, d.headline()  # located at an instruction


def test_a_valid_module_of_the_same_kind_runs():
    """The table's modules differ from this one by the one mistake each names."""
    res = run(assemble(HEAD + MAIN + "%x = OpIAdd %int %one %one\n" + END), validate=False)
    assert res.steps == 2


INFINITE = HEAD + MAIN + "OpBranch %h\n%h = OpLabel\nOpLoopMerge %m %h None\nOpBranch %h\n%m = OpLabel\n" + END


def test_infinite_loop_stops_at_a_step_limit():
    with pytest.raises(SpvError) as e:
        run(assemble(INFINITE, "loop.spvasm"), max_steps=5000)
    d = e.value.diagnostics[0]
    assert "step limit of 5000" in d.message and "max_steps" in d.message and "--max-steps" in d.message
    assert d.span is not None and d.span.line


def test_an_endless_loop_stops_at_the_time_limit_located():
    """Issue 22: the default limit is time (no step limit), and it stops an endless loop with a located
    error naming the option to raise."""
    import time
    from spvcoop.interp.config import RunConfig
    assert RunConfig().max_steps is None and RunConfig().max_time == DEFAULT_MAX_TIME == 60
    t = time.monotonic()
    with pytest.raises(SpvError) as e:
        run(assemble(INFINITE, "loop.spvasm"), max_time=0.2)
    assert time.monotonic() - t < 5
    d = e.value.diagnostics[0]
    assert d.rule == "interp.max-time" and "time limit of 0.2 s reached at OpBranch" in d.message, d.message
    assert "max_time=" in d.message and "--max-time" in d.message
    branch_line = INFINITE.count("\n", 0, INFINITE.index("OpBranch %h\n%m")) + 1
    assert d.source == "loop.spvasm" and d.span is not None and d.span.line == branch_line


@pytest.mark.parametrize("text, value", [("100M", 100 << 20), ("64K", 64 << 10), ("2G", 2 << 30), ("5000", 5000),
                                         (5000, 5000)])
def test_max_steps_takes_the_suffixes_of_the_other_limits(text, value):
    from spvcoop.interp.config import RunConfig
    assert RunConfig(max_steps=text).max_steps == value


def _mem_error(text, **kw):
    with pytest.raises(SpvError) as e:
        run(assemble(text, "mem.spvasm"), validate=False, **kw)
    d = e.value.diagnostics[0]
    assert "memory budget" in d.message and "max_memory" in d.message and "--max-memory" in d.message, d.message
    return d


def test_huge_dispatch_is_refused_before_allocating():
    _mem_error(HEAD + MAIN + END, dispatch=(3000, 3000, 100))


def test_huge_function_array_is_refused_before_allocating():
    text = HEAD + ("%big = OpConstant %int 1073741824\n%arr = OpTypeArray %float %big\n"
                   "%pa = OpTypePointer Function %arr\n") + MAIN + "%v = OpVariable %pa Function\n" + END
    d = _mem_error(text)
    assert d.span is not None and d.span.line


def test_huge_private_and_workgroup_arrays_are_refused():
    for storage in ("Private", "Workgroup"):
        text = HEAD + (f"%big = OpConstant %int 1073741824\n%arr = OpTypeArray %float %big\n"
                       f"%pa = OpTypePointer {storage} %arr\n%v = OpVariable %pa {storage}\n") + MAIN + END
        _mem_error(text)


def test_huge_null_constant_is_refused():
    text = HEAD + ("%big = OpConstant %int 1073741824\n%arr = OpTypeArray %float %big\n%z = OpConstantNull %arr\n"
                   ) + MAIN + END
    _mem_error(text)


def test_memory_budget_is_an_option():
    text = HEAD + ("%n = OpConstant %int 65536\n%arr = OpTypeArray %float %n\n%pa = OpTypePointer Private %arr\n"
                   "%v = OpVariable %pa Private\n") + MAIN + END
    run(assemble(text), validate=False, dispatch=(64, 1, 1))  # 16 MiB: inside the default budget
    _mem_error(text, dispatch=(64, 1, 1), max_memory=1 << 20)
    assert DEFAULT_MAX_MEMORY == 2 << 30


SINGULAR = """OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpMemberDecorate %blk 0 ColMajor
OpMemberDecorate %blk 0 MatrixStride 8
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v2 = OpTypeVector %float 2
%m2 = OpTypeMatrix %v2 2
%blk = OpTypeStruct %m2
%pb = OpTypePointer StorageBuffer %blk
%pm = OpTypePointer StorageBuffer %m2
%buf = OpVariable %pb StorageBuffer
%int = OpTypeInt 32 1
%zero = OpConstant %int 0
%main = OpFunction %void None %fn
%l = OpLabel
%p = OpAccessChain %pm %buf %zero
%m = OpLoad %m2 %p
%inv = OpExtInst %m2 %glsl MatrixInverse %m
OpStore %p %inv
OpReturn
OpFunctionEnd
"""


def test_matrix_inverse_of_a_singular_matrix_is_not_finite():
    singular = np.array([1, 2, 2, 4], np.float32)  # columns (1, 2) and (2, 4): determinant 0
    out = run(assemble(SINGULAR), buffers={0: singular.tobytes()}).raw(0)
    assert not np.isfinite(np.frombuffer(out, np.float32)).all()


def test_matrix_inverse_of_a_regular_matrix_is_its_inverse():
    m = np.array([[2, 1], [1, 3]], np.float32)  # column-major in memory: columns are m[:, j]
    out = run(assemble(SINGULAR), buffers={0: m.T.tobytes()}).raw(0)
    got = np.frombuffer(out, np.float32).reshape(2, 2).T
    assert np.allclose(got, np.linalg.inv(m.astype(np.float64)), rtol=1e-6)

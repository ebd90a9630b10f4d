"""Cooperative-matrix element-wise ops, conversions, functions/arrays, spec-constant sizes (GLSL corpus) and the
run-time checks (hand-written SPIR-V), against numpy references."""
from __future__ import annotations

import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from test_interp_coopmat_glsl import MODELS, f16, ref_f16_gemm, run

from spvcoop.core.reference_tools import find_tool

needs_glslang = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")


@needs_glslang
@pytest.mark.parametrize("layout", MODELS)
def test_khr_elementwise(layout):
    rng = np.random.default_rng(20)
    X, Y = rng.standard_normal(1024).astype(np.float32) * 3, rng.standard_normal(1024).astype(np.float32) * 3
    res = run("khr_elementwise", (4, 1, 1), {0: X, 1: Y, 2: np.zeros(1024, np.float32), 3: np.zeros(1024, np.float16)},
              layout)
    S = ((X + Y) * (X - Y) / (Y * Y + np.float32(1)) * np.float32(2) - X).astype(np.float32)
    S = np.clip(S, -4, 4)
    np.testing.assert_allclose(res[2], np.maximum(-S, 0), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(res[3], S.astype(np.float16))


@needs_glslang
@pytest.mark.parametrize("layout", MODELS)
def test_nv_elementwise(layout):
    rng = np.random.default_rng(21)
    X, Y = f16(rng, 1024), f16(rng, 1024)
    res = run("nv_elementwise", (4, 1, 1), {0: X, 1: Y, 2: np.zeros(1024, np.float32), 3: np.zeros(1024, np.float16)},
              layout)
    T = np.maximum((X * np.float16(0.5) + Y).astype(np.float16), np.float16(0))
    Z = -((T.astype(np.float32) * np.float32(3) - 1) / 2)
    np.testing.assert_allclose(res[2], Z, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(res[3], Z.astype(np.float16))


@needs_glslang
@pytest.mark.parametrize("layout", ["nvidia", "shuffled"])
def test_khr_convert(layout):
    rng = np.random.default_rng(22)
    F = (rng.standard_normal(256) * 100).astype(np.float32)
    Ints = rng.integers(-1000, 1000, 256).astype(np.int32)
    U8 = rng.integers(0, 256, 512).astype(np.uint8)
    res = run("khr_convert", (1, 1, 1), {0: F, 1: Ints, 2: U8, 3: np.zeros(1024, np.float32),
                                         4: np.zeros(256, np.int32),
                                         5: np.zeros(512, np.int8), 6: np.zeros(256, np.float16)}, layout)
    Out = res[3]
    np.testing.assert_array_equal(Out[:256], np.trunc(F))
    np.testing.assert_array_equal(Out[256:512], F.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(Out[512:768], np.maximum(Ints, 0).astype(np.float32))
    np.testing.assert_array_equal(Out[768:], Ints.astype(np.float32) * np.float32(0.25))
    np.testing.assert_array_equal(res[4], np.trunc(F).astype(np.int32) + Ints)
    np.testing.assert_array_equal(res[5], U8.view(np.int8))
    np.testing.assert_array_equal(res[6], F.astype(np.float16))


@needs_glslang
@pytest.mark.parametrize("layout", MODELS)
def test_nv_functions_arrays_branch(layout):
    rng = np.random.default_rng(23)
    W = 2
    A, B = f16(rng, 16, 64), f16(rng, 64, 16 * W)
    res = run("nv_functions_arrays", (W, 1, 1), {0: A, 1: B, 2: np.zeros(16 * 16 * W, np.float32)}, layout)
    C = ref_f16_gemm(A, B, np.float32, 16)
    C[:, 16:32] *= -1
    np.testing.assert_allclose(res[2].reshape(16, 16 * W), C, rtol=1e-5, atol=1e-5)


@needs_glslang
@pytest.mark.parametrize("layout", MODELS)
def test_khr_functions_arrays(layout):
    rng = np.random.default_rng(24)
    A, B = f16(rng, 32, 32), f16(rng, 32, 64)
    res = run("khr_functions_arrays", (2, 2, 1), {0: A, 1: B, 2: np.zeros(32 * 64, np.float32)}, layout)
    want = np.maximum(ref_f16_gemm(A, B, np.float32, 16), 0) - np.float32(0.5)
    np.testing.assert_allclose(res[2].reshape(32, 64), want, rtol=1e-5, atol=1e-5)


@needs_glslang
@pytest.mark.parametrize("tm,tn,tk", [(16, 16, 16), (16, 8, 16), (16, 8, 8)])
def test_khr_specconst_sizes_and_length(tm, tn, tk):
    rng = np.random.default_rng(25)
    A, B = f16(rng, 32, 32), f16(rng, 32, 32)
    res = run("khr_specconst_sizes", (32 // tn, 32 // tm, 1), {0: A, 1: B, 2: np.zeros(1024, np.float32),
                                                             3: np.zeros(1, np.uint32)},
              spec_constants={0: tm, 1: tn, 2: tk})
    np.testing.assert_allclose(res[2].reshape(32, 32), 2 * ref_f16_gemm(A, B, np.float32, tk), rtol=1e-5, atol=1e-5)
    assert res[3][0] == tm * tn // 32  # nvidia: every element held once by 32 invocations


@needs_glslang
@pytest.mark.parametrize("colmajor", [False, True])
def test_nv_specconst_sizes_colmajor(colmajor):
    rng = np.random.default_rng(26)
    A, B = f16(rng, 32, 32), f16(rng, 32, 32)
    Bin = np.ascontiguousarray(B.T) if colmajor else B
    res = run("nv_specconst_sizes", (4, 2, 1), {0: A, 1: Bin, 2: np.zeros(1024, np.float32)},
              spec_constants={3: colmajor}, layout="striped")
    np.testing.assert_allclose(res[2].reshape(32, 32), ref_f16_gemm(A, B, np.float32, 16), rtol=1e-5, atol=1e-5)


# ---- hand-written SPIR-V: storage classes, strides, run-time checks -----------------------------------------
HEADER = """
OpCapability Shader
OpCapability Float16
OpCapability Int8
OpCapability StorageBuffer16BitAccess
OpCapability StorageBuffer8BitAccess
OpCapability VulkanMemoryModel
OpCapability CooperativeMatrixKHR
OpExtension "SPV_KHR_cooperative_matrix"
OpExtension "SPV_KHR_vulkan_memory_model"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main" %inbuf %outbuf %lid %shared
OpExecutionMode %main LocalSize {wg} 1 1
OpDecorate %lid BuiltIn LocalInvocationId
OpDecorate %rtin ArrayStride {esize}
OpDecorate %rtout ArrayStride {osize}
OpDecorate %In Block
OpMemberDecorate %In 0 Offset 0
OpDecorate %Out Block
OpMemberDecorate %Out 0 Offset 0
OpDecorate %inbuf DescriptorSet 0
OpDecorate %inbuf Binding 0
OpDecorate %outbuf DescriptorSet 0
OpDecorate %outbuf Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%u32 = OpTypeInt 32 0
%v3u = OpTypeVector %u32 3
%elem = {etype}
%oelem = {otype}
%rtin = OpTypeRuntimeArray %elem
%rtout = OpTypeRuntimeArray %oelem
%In = OpTypeStruct %rtin
%Out = OpTypeStruct %rtout
%pIn = OpTypePointer StorageBuffer %In
%pOut = OpTypePointer StorageBuffer %Out
%pe = OpTypePointer StorageBuffer %elem
%po = OpTypePointer StorageBuffer %oelem
%pv3 = OpTypePointer Input %v3u
%inbuf = OpVariable %pIn StorageBuffer
%outbuf = OpVariable %pOut StorageBuffer
%lid = OpVariable %pv3 Input
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%rows = OpConstant %u32 {rows}
%cols = OpConstant %u32 {cols}
%nshared = OpConstant %u32 {nshared}
%sharr = OpTypeArray %elem %nshared
%psh = OpTypePointer Workgroup %sharr
%pshe = OpTypePointer Workgroup %elem
%shared = OpVariable %psh Workgroup
%mat = OpTypeCooperativeMatrixKHR %elem %c3 %rows %cols %c2
%omat = OpTypeCooperativeMatrixKHR %oelem %c3 %rows %cols %c2
%main = OpFunction %void None %fn
%entry = OpLabel
"""


def _header(**fields) -> str:
    """HEADER with its element types; a component type equal to %u32's is that type (SPIR-V forbids
    declaring a non-aggregate type twice, and run validates)."""
    text = HEADER.format(**fields)
    for name, decl in (("%elem", fields["etype"]), ("%oelem", fields["otype"])):
        if decl == "OpTypeInt 32 0":
            text = text.replace(f"{name} = {decl}\n", "").replace(name + " ", "%u32 ").replace(name + "\n", "%u32\n")
    return text


def _module(body: str, etype="OpTypeFloat 16", otype="OpTypeFloat 32", esize=2, osize=4, rows=16, cols=16, wg=32,
            nshared=16, decls: str = ""):
    from spvcoop.asm.assembler import assemble
    text = _header(etype=etype, otype=otype, esize=esize, osize=osize, rows=rows, cols=cols, wg=wg,
                   nshared=nshared)
    head, tail = text.split("%main = OpFunction", 1)
    return assemble(head + decls + "%main = OpFunction" + tail + body + "OpReturn\nOpFunctionEnd\n",
                    "coop_test.spvasm")


def _run(mod, inp, out, layout="nvidia", dispatch=(1, 1, 1)):
    from spvcoop.interp import run as interp_run
    # 32 lanes under every model (without subgroup_size a model's own default applies: tinytc's is 16)
    return interp_run(mod, dispatch=dispatch, buffers={0: inp, 1: out}, layout=layout, subgroup_size=32)


LOAD_CONVERT_STORE = """
%p = OpAccessChain %pe %inbuf %c0 %{inoff}
%m = OpCooperativeMatrixLoadKHR %mat %p %{inlayout} %{instride}
%o = {convert} %omat %m
%q = OpAccessChain %po %outbuf %c0 %{outoff}
OpCooperativeMatrixStoreKHR %q %o %{outlayout} %{outstride}
"""


def _consts(**vals):
    return "".join(f"%k{v} = OpConstant %u32 {v}\n" for v in sorted(set(vals.values())))


COMBOS = [  # (component type, result type, numpy in, numpy out, conversion)
    ("OpTypeFloat 16", "OpTypeFloat 32", np.float16, np.float32, "OpFConvert"),
    ("OpTypeFloat 32", "OpTypeFloat 16", np.float32, np.float16, "OpFConvert"),
    ("OpTypeInt 8 1", "OpTypeInt 32 1", np.int8, np.int32, "OpSConvert"),
    ("OpTypeInt 8 0", "OpTypeInt 32 0", np.uint8, np.uint32, "OpUConvert"),
    ("OpTypeInt 32 1", "OpTypeFloat 32", np.int32, np.float32, "OpConvertSToF"),
    ("OpTypeFloat 32", "OpTypeInt 32 1", np.float32, np.int32, "OpConvertFToS"),
]


@pytest.mark.parametrize("combo", COMBOS, ids=lambda c: f"{c[2].__name__}-{c[3].__name__}")
@pytest.mark.parametrize("in_major,out_major", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_load_convert_store_majors_odd_strides(combo, in_major, out_major):
    et, ot, nin, nout, conv = combo
    rows, cols, ins, outs, inoff, outoff = 16, 16, 19, 17, 3, 5
    body = LOAD_CONVERT_STORE.format(
        inoff=f"k{inoff}", outoff=f"k{outoff}", instride=f"k{ins}", outstride=f"k{outs}",
        inlayout=f"c{in_major}", outlayout=f"c{out_major}", convert=conv)
    mod = _module(body, et, ot, np.dtype(nin).itemsize, np.dtype(nout).itemsize,
                  decls=_consts(a=ins, b=outs, c=inoff, d=outoff))
    rng = np.random.default_rng(30)
    n_in = inoff + ins * 16 + 16
    data = (rng.standard_normal(n_in) * 50).astype(nin) if np.dtype(nin).kind == "f" else \
        rng.integers(np.iinfo(nin).min, np.iinfo(nin).max, n_in).astype(nin)
    out0 = np.zeros(outoff + outs * 16 + 16, nout)
    res = _run(mod, data, out0.copy())
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    M = data[inoff + (c * ins + r if in_major else r * ins + c)]
    conv_np = np.trunc(M.astype(np.float64)).astype(nout) if conv == "OpConvertFToS" else M.astype(nout)
    want = out0.copy()
    want[outoff + (c * outs + r if out_major else r * outs + c)] = conv_np
    np.testing.assert_array_equal(res[1], want)


MULADD = """
%pa = OpAccessChain %pe %inbuf %c0 %c0
%a = OpCooperativeMatrixLoadKHR %amat %pa %c0 %kk
%pb = OpAccessChain %pe %inbuf %c0 %kb
%b = OpCooperativeMatrixLoadKHR %bmat %pb %c0 %kn
%pc = OpAccessChain %po %outbuf %c0 %c0
%c = OpCooperativeMatrixLoadKHR %omat %pc %c0 %kn
%d = OpCooperativeMatrixMulAddKHR %omat %a %b %c {operands}
OpCooperativeMatrixStoreKHR %pc %d %c0 %kn
"""


@pytest.mark.parametrize("signed,operands,saturate", [
    (True, "MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|"
           "MatrixResultSignedComponentsKHR", False),
    (False, "", False),
    (True, "MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|"
           "MatrixResultSignedComponentsKHR|SaturatingAccumulationKHR", True),
])
def test_int8_muladd_signedness_and_saturation(signed, operands, saturate):
    M, N, K = 16, 16, 32
    et, ot = ("OpTypeInt 8 1", "OpTypeInt 32 1") if signed else ("OpTypeInt 8 0", "OpTypeInt 32 0")
    body = (f"%kk = OpConstant %u32 {K}\n%kn = OpConstant %u32 {N}\n%kb = OpConstant %u32 {M * K}\n"
            f"%amat = OpTypeCooperativeMatrixKHR %elem %c3 %rows %kk %c0\n"
            f"%bmat = OpTypeCooperativeMatrixKHR %elem %c3 %kk %kn %c1\n" + MULADD.format(operands=operands))
    # types must come before the function: move the extra declarations up
    decl, code = body.split("%pa =", 1)
    mod = _module_with_decls(decl, "%pa =" + code, et, ot)
    rng = np.random.default_rng(31)
    nin = np.int8 if signed else np.uint8
    nout = np.int32 if signed else np.uint32
    A = rng.integers(np.iinfo(nin).min, np.iinfo(nin).max, (M, K)).astype(nin)
    B = rng.integers(np.iinfo(nin).min, np.iinfo(nin).max, (K, N)).astype(nin)
    C = rng.integers(np.iinfo(nout).max - 100000 if not saturate else np.iinfo(nout).max - 300000,
                     np.iinfo(nout).max, (M, N)).astype(nout)
    if saturate:
        A = np.full((M, K), 127, nin)
        B = np.full((K, N), 127, nin)
    res = _run(mod, np.concatenate([A.ravel(), B.ravel()]), C.ravel().copy())
    exact = A.astype(np.int64) @ B.astype(np.int64) + C.astype(np.int64)
    if saturate:
        want = np.clip(exact, np.iinfo(nout).min, np.iinfo(nout).max).astype(nout)
        assert (exact > np.iinfo(nout).max).any()
    else:
        want = (exact % 2**32).astype(np.uint32).view(nout)
    np.testing.assert_array_equal(res[1].reshape(M, N), want)


def _module_with_decls(decls: str, code: str, et, ot):
    from spvcoop.asm.assembler import assemble
    text = _header(etype=et, otype=ot, esize=1, osize=4, rows=16, cols=16, wg=32, nshared=16)
    head, tail = text.split("%main = OpFunction", 1)
    return assemble(head + decls + "%main = OpFunction" + tail + code + "OpReturn\nOpFunctionEnd\n", "muladd.spvasm")


WORKGROUP_ROUNDTRIP = """
%p = OpAccessChain %pe %inbuf %c0 %c0
%m = OpCooperativeMatrixLoadKHR %mat %p %c0 %cols
%s = OpAccessChain %pshe %shared %c0
OpCooperativeMatrixStoreKHR %s %m %c1 %rows
OpControlBarrier %c2 %c2 %k264
%m2 = OpCooperativeMatrixLoadKHR %mat %s %c1 %rows
%o = OpFConvert %omat %m2
%q = OpAccessChain %po %outbuf %c0 %c0
OpCooperativeMatrixStoreKHR %q %o %c0 %cols
"""


@pytest.mark.parametrize("layout", ["nvidia", "striped", "shuffled"])
def test_workgroup_storage_roundtrip(layout):
    mod = _module(WORKGROUP_ROUNDTRIP, nshared=256, decls="%k264 = OpConstant %u32 264\n")
    A = np.random.default_rng(32).standard_normal(256).astype(np.float16)
    res = _run(mod, A, np.zeros(256, np.float32), layout)
    np.testing.assert_array_equal(res[1], A.astype(np.float32))


def test_out_of_bounds_load_names_element_and_offset():
    mod = _module(LOAD_CONVERT_STORE.format(inoff="c0", outoff="c0", instride="cols", outstride="cols",
                                            inlayout="c0", outlayout="c0", convert="OpFConvert"))
    with pytest.raises(SpvError) as e:
        _run(mod, np.zeros(255, np.float16), np.zeros(256, np.float32))
    msg = str(e.value.diagnostics[0].message)
    assert "out of bounds" in msg and "row 15, col 15" in msg and "byte offset 510" in msg, msg


def test_out_of_bounds_workgroup_store():
    mod = _module(WORKGROUP_ROUNDTRIP, nshared=255, decls="%k264 = OpConstant %u32 264\n")
    with pytest.raises(SpvError) as e:
        _run(mod, np.zeros(256, np.float16), np.zeros(256, np.float32))
    assert "Workgroup" in e.value.diagnostics[0].message and "row 15, col 15" in e.value.diagnostics[0].message


DIVERGENT = """
%v = OpLoad %v3u %lid
%x = OpCompositeExtract %u32 %v 0
%cond = OpULessThan %bool %x %k{limit}
OpSelectionMerge %end None
OpBranchConditional %cond %then %end
%then = OpLabel
%p = OpAccessChain %pe %inbuf %c0 %c0
%m = OpCooperativeMatrixLoadKHR %mat %p %c0 %cols
%o = OpFConvert %omat %m
%q = OpAccessChain %po %outbuf %c0 %c0
OpCooperativeMatrixStoreKHR %q %o %c0 %cols
OpBranch %end
%end = OpLabel
"""


def test_non_uniform_reach_is_an_error():
    mod = _module(DIVERGENT.format(limit=20), decls="%k20 = OpConstant %u32 20\n")
    with pytest.raises(SpvError) as e:
        _run(mod, np.zeros(256, np.float16), np.zeros(256, np.float32))
    msg = e.value.diagnostics[0].message
    assert "OpCooperativeMatrixLoadKHR" in msg and "20 of 32" in msg and "inactive" in msg and "20, 21" in msg, msg


def test_uniform_branch_per_subgroup_is_fine():
    """A branch that is uniform within each subgroup (64 invocations, x < 32 takes it) is legal."""
    mod = _module(DIVERGENT.format(limit=32), wg=64, decls="%k32 = OpConstant %u32 32\n")
    A = np.arange(256).astype(np.float16)
    res = _run(mod, A, np.zeros(256, np.float32))
    np.testing.assert_array_equal(res[1], A.astype(np.float32))


PER_LANE_POINTER = """
%v = OpLoad %v3u %lid
%x = OpCompositeExtract %u32 %v 0
%p = OpAccessChain %pe %inbuf %c0 %x
%m = OpCooperativeMatrixLoadKHR %mat %p %c0 %cols
%o = OpFConvert %omat %m
%q = OpAccessChain %po %outbuf %c0 %c0
OpCooperativeMatrixStoreKHR %q %o %c0 %cols
"""


def test_pointer_differing_within_subgroup_is_an_error():
    mod = _module(PER_LANE_POINTER)
    with pytest.raises(SpvError) as e:
        _run(mod, np.zeros(512, np.float16), np.zeros(256, np.float32))
    msg = e.value.diagnostics[0].message
    assert "Pointer" in msg and "differs within subgroup 0" in msg, msg
    assert "invocation 1 has 2, invocation 0 has 0" in msg, msg


EXTRACT_OOR = """
%p = OpAccessChain %pe %inbuf %c0 %c0
%m = OpCooperativeMatrixLoadKHR %mat %p %c0 %cols
%e = OpCompositeExtract %elem %m 8
"""


def test_element_index_out_of_range_for_layout():
    mod = _module(EXTRACT_OOR)
    with pytest.raises(SpvError) as e:  # nvidia f16 16x16 accumulator: length 8
        _run(mod, np.zeros(256, np.float16), np.zeros(256, np.float32))
    assert "element index 8" in e.value.diagnostics[0].message and "length 8" in e.value.diagnostics[0].message


def test_overlapping_stride_warns(capsys):
    mod = _module(LOAD_CONVERT_STORE.format(inoff="c0", outoff="c0", instride="c3", outstride="cols",
                                            inlayout="c0", outlayout="c0", convert="OpFConvert"))
    data = np.arange(64).astype(np.float16)
    res = _run(mod, data, np.zeros(256, np.float32))
    warnings = [d for d in res.diagnostics if d.severity == "warning"]   # in the result, not on the terminal
    assert len(warnings) == 1 and "overlap" in warnings[0].message, res.diagnostics
    assert capsys.readouterr().err == ""
    r, c = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    np.testing.assert_array_equal(res[1].reshape(16, 16), data[r * 3 + c].astype(np.float32))


VALUES_DECLS = """%f2 = OpConstant %oelem 2
%k32 = OpConstant %u32 32
%k256 = OpConstant %u32 256
%two = OpConstantComposite %omat %f2
%null = OpConstantNull %omat
"""
VALUES = """
%v = OpLoad %v3u %lid
%x = OpCompositeExtract %u32 %v 0
%sg = OpUDiv %u32 %x %k32
%odd = OpIEqual %bool %sg %c1
%off = OpIMul %u32 %sg %k256
%p = OpAccessChain %pe %inbuf %c0 %c0
%m = OpCooperativeMatrixLoadKHR %mat %p %c0 %cols
%o = OpFConvert %omat %m
%s = OpSelect %omat %odd %two %null
%r = OpFAdd %omat %o %s
OpSelectionMerge %join None
OpBranchConditional %odd %then %join
%then = OpLabel
%neg = OpFNegate %omat %r
OpBranch %join
%join = OpLabel
%res = OpPhi %omat %r %entry %neg %then
%q = OpAccessChain %po %outbuf %c0 %off
OpCooperativeMatrixStoreKHR %q %res %c0 %cols
"""


@pytest.mark.parametrize("layout", ["nvidia", "shuffled"])
def test_select_phi_constant_composite_and_null(layout):
    """Per-subgroup uniform OpSelect and OpPhi between matrices; OpConstantComposite / OpConstantNull."""
    mod = _module(VALUES, wg=64, decls=VALUES_DECLS)
    A = np.random.default_rng(33).standard_normal(256).astype(np.float16)
    res = _run(mod, A, np.zeros(512, np.float32), layout)
    np.testing.assert_array_equal(res[1][:256], A.astype(np.float32))
    np.testing.assert_array_equal(res[1][256:], -(A.astype(np.float32) + 2))


INSERT_DECLS = """%amat = OpTypeCooperativeMatrixKHR %elem %c3 %rows %cols %c0
%len = OpSpecConstantOp %u32 CooperativeMatrixLengthKHR %amat
%k300 = OpConstant %u32 300
"""
INSERT = """
%p = OpAccessChain %pe %inbuf %c0 %c0
%m = OpCooperativeMatrixLoadKHR %amat %p %c0 %cols
%e = OpCompositeExtract %elem %m 1
%m1 = OpCompositeInsert %amat %e %m 0
{second}
%q = OpAccessChain %pe %inbuf %c0 %c0
OpCooperativeMatrixStoreKHR %q %m2 %c0 %cols
%lf = OpConvertUToF %oelem %len
%lv = OpLoad %v3u %lid
%lx = OpCompositeExtract %u32 %lv 0
%slot = OpIAdd %u32 %k300 %lx
%pl = OpAccessChain %po %outbuf %c0 %slot
OpStore %pl %lf
"""
# (each invocation stores the length to its own slot 300 + x: all storing to one word would be a data race)


@pytest.mark.parametrize("layout", ["nvidia", "striped", "tinytc"])
def test_composite_extract_insert_and_spec_constant_length(layout):
    """Element 0 of every invocation := its element 1, then stored: numpy applies the same per-invocation edit
    to the model's own index arrays."""
    from spvcoop.layouts import load_model
    mod = _module(INSERT.format(second="%m2 = OpCopyObject %amat %m1"), decls=INSERT_DECLS)
    A = np.random.default_rng(34).standard_normal(256).astype(np.float16)
    res = _run(mod, A, np.zeros(512, np.float32), layout)
    lay = load_model(layout).layout("f16", 16, 16, "a", 32)
    lanes = lay.to_lanes(A.reshape(16, 16))
    lanes[:, 0] = lanes[:, 1]
    np.testing.assert_array_equal(res[0].reshape(16, 16), lay.from_lanes(lanes))
    assert res[1][300] == lay.length


def test_replicated_copies_must_agree_when_read_back():
    """wmma-sm80 A holds every element twice in one invocation (index i and i+8): changing one copy and
    storing is an error; changing both copies the same way is fine."""
    mod = _module(INSERT.format(second="%m2 = OpCopyObject %amat %m1"), decls=INSERT_DECLS)
    A = np.arange(256).astype(np.float16)
    with pytest.raises(SpvError) as e:
        _run(mod, A, np.zeros(512, np.float32), "wmma-sm80")
    assert "replicated copies" in e.value.diagnostics[0].message
    both = _module(INSERT.format(second="%m2 = OpCompositeInsert %amat %e %m1 8"), decls=INSERT_DECLS)
    res = _run(both, A, np.zeros(512, np.float32), "wmma-sm80")
    # invocation 0 holds (0,0) at 0 and 8 and (0,1) at 1 and 9: (0,0) becomes A[0,1]
    assert res[0][0] == A[1]


def test_matrix_in_a_private_global_variable(tmp_path):
    """GLSL globals are Private variables: a matrix held in one, indexed per invocation with length(),
    gives each invocation the sum of the elements the H100 layout puts there (tests/data/h100-vulkan)."""
    import json
    from conftest import DATA, GLSL, compile_glsl
    from spvcoop.interp import run
    spv = compile_glsl(GLSL / "coopmat" / "khr_private_global.comp", tmp_path / "p.spv")
    a = np.arange(256).astype(np.float16)
    res = run(str(spv), dispatch=(1, 1, 1), buffers={0: a, 1: np.zeros(32, np.float32)}, layout="nvidia")
    truth = json.loads((DATA / "h100-vulkan" / "layouts.json").read_text())["khr_f16_16x16_A"]
    expected = [sum(16 * r + c for r, c in lane) for lane in truth["map"]]
    assert res[1].tolist() == expected

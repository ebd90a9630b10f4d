"""Issue 26: tensor loads and stores as whole tiles (interp/coopmat2/tiles.py) against the plain per-element path
(the fast path `tensor` off: SPVCOOP_NO_FAST_TENSOR=1, interp/fastpaths.py). Generated kernels (clamp mode,
view, permutation, dimensions, scope, component, load or store fixed in the module) run with random layout fields
per scope instance (dimensions, block sizes, strides, offsets crossing every edge, spans, clamp values, view
dimensions, strides and clips) read from a buffer, both ways: the same output bytes, or the same located error
(out of bounds, out of range under clamp mode Undefined, a field differing within a scope instance)."""
from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

import spvcoop
from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import fastpaths
from spvcoop.interp.coopmat2 import memory as cm2_memory, tiles

TENSOR_OFF = fastpaths.BY_NAME["tensor"].env   # the plain path: the fast path `tensor` off
GROUPS_OFF = fastpaths.BY_NAME["tensor_groups"].env   # layouts per invocation, each field checked (issue 33)

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

MODES = ["Undefined", "Constant", "ClampToEdge", "Repeat", "RepeatMirrored"]


def _kernel(*, scope: str, R: int, C: int, comp: str, D: int, mode: int, view: str, perm: tuple[int, ...],
            set_stride: bool, op: str, bda: bool = False, slice_first: bool = False) -> str:
    """SPIR-V assembly: instance w (its workgroup) reads its layout fields from params[w * P ...], then
    op = load: LoadTensor from `src` over a matrix of -1 and KHR-stores it to out[w * R * C ...] (row-major);
    op = store: KHR-loads its matrix from out[w * R * C ...] and StoreTensors it to `src`. With bda, `src` is
    reached through a PhysicalStorageBuffer pointer in push constant `src` (a device address) instead. With
    slice_first the layout is sliced before its clamp value is set (a sliced layout updated again)."""
    P = 7 * D + 2 + 4
    local = 64 if scope == "Workgroup" else 32
    scope_id = 2 if scope == "Workgroup" else 3
    ft = {"f16": "%f16", "f32": "%f32", "bf16": "%bf16"}[comp]
    lines = [
        "OpCapability Shader", "OpCapability Float16", "OpCapability StorageBuffer16BitAccess",
        "OpCapability VulkanMemoryModel", "OpCapability CooperativeMatrixKHR",
        "OpCapability CooperativeMatrixTensorAddressingNV", "OpCapability TensorAddressingNV",
        "OpCapability BFloat16TypeKHR", "OpCapability BFloat16CooperativeMatrixKHR",
        'OpExtension "SPV_KHR_cooperative_matrix"', 'OpExtension "SPV_NV_cooperative_matrix2"',
        'OpExtension "SPV_KHR_bfloat16"',
        'OpExtension "SPV_NV_tensor_addressing"',
        *(["OpCapability PhysicalStorageBufferAddresses", 'OpExtension "SPV_KHR_physical_storage_buffer"',
            "OpMemoryModel PhysicalStorageBuffer64 Vulkan"] if bda else ["OpMemoryModel Logical Vulkan"]),
        f'OpEntryPoint GLCompute %main "main" {"%pc" if bda else "%src"} %out %params %wgid %lid',
        f"OpExecutionMode %main LocalSize {local} 1 1",
        "OpDecorate %wgid BuiltIn WorkgroupId", "OpDecorate %lid BuiltIn LocalInvocationIndex",
        "OpDecorate %rte ArrayStride " + ("4" if comp == "f32" else "2"), "OpDecorate %rtu ArrayStride 4",
        "OpMemberDecorate %se 0 Offset 0", "OpMemberDecorate %su 0 Offset 0",
        "OpDecorate %se Block", "OpDecorate %su Block",
        *(['OpName %pcs "PC"', 'OpMemberName %pcs 0 "src"', "OpDecorate %pcs Block",
            "OpMemberDecorate %pcs 0 Offset 0"] if bda else ["OpDecorate %src DescriptorSet 0",
                                                            "OpDecorate %src Binding 0"]),
        "OpDecorate %out DescriptorSet 0", "OpDecorate %out Binding 1",
        "OpDecorate %params DescriptorSet 0", "OpDecorate %params Binding 2",
        "%void = OpTypeVoid", "%fn = OpTypeFunction %void", "%f32 = OpTypeFloat 32", "%f16 = OpTypeFloat 16",
        "%bf16 = OpTypeFloat 16 BFloat16KHR",
        "%u32 = OpTypeInt 32 0", "%bool = OpTypeBool", "%true = OpConstantTrue %bool",
        "%false = OpConstantFalse %bool", "%vec3 = OpTypeVector %u32 3",
        *(f"%u{i} = OpConstant %u32 {i}" for i in range(max(D, 5) + 1)),
        f"%uP = OpConstant %u32 {P}", f"%uRC = OpConstant %u32 {R * C}", f"%uR = OpConstant %u32 {R}",
        f"%uC = OpConstant %u32 {C}", f"%scope = OpConstant %u32 {scope_id}", "%useAcc = OpConstant %u32 2",
        f"%m1 = OpConstant {ft} -1",
        f"%mt = OpTypeCooperativeMatrixKHR {ft} %scope %uR %uC %useAcc",
        "%neg = OpConstantComposite %mt %m1",
        f"%tl = OpTypeTensorLayoutNV %u{D} %u{mode}",
        f"%tv = OpTypeTensorViewNV %u{D} {'%true' if view == 'dims' else '%false'} "
        + " ".join(f"%u{p}" for p in perm),
        f"%rte = OpTypeRuntimeArray {ft}", "%rtu = OpTypeRuntimeArray %u32",
        "%se = OpTypeStruct %rte", "%su = OpTypeStruct %rtu",
        "%pse = OpTypePointer StorageBuffer %se", "%psu = OpTypePointer StorageBuffer %su",
        f"%pe = OpTypePointer StorageBuffer {ft}", "%pu = OpTypePointer StorageBuffer %u32",
        "%pv3 = OpTypePointer Input %vec3", "%pin = OpTypePointer Input %u32",
        *(["%ppsb = OpTypePointer PhysicalStorageBuffer %se", f"%ppe = OpTypePointer PhysicalStorageBuffer {ft}",
            "%pcs = OpTypeStruct %ppsb", "%ppc = OpTypePointer PushConstant %pcs",
            "%ppcm = OpTypePointer PushConstant %ppsb", "%pc = OpVariable %ppc PushConstant"] if bda
          else ["%src = OpVariable %pse StorageBuffer"]),
        "%out = OpVariable %pse StorageBuffer",
        "%params = OpVariable %psu StorageBuffer", "%wgid = OpVariable %pv3 Input", "%lid = OpVariable %pin Input",
        "%main = OpFunction %void None %fn", "%entry = OpLabel",
        "%wv = OpLoad %vec3 %wgid", "%w = OpCompositeExtract %u32 %wv 0", "%l = OpLoad %u32 %lid",
        "%pbase = OpIMul %u32 %w %uP",
    ]
    at = lines.index("%main = OpFunction %void None %fn")   # constants for the parameter indices
    lines[at:at] = [f"%kc{k} = OpConstant %u32 {k}" for k in range(P)]
    for k in range(P):
        lines += [f"%ix{k} = OpIAdd %u32 %pbase %kc{k}", f"%pp{k} = OpAccessChain %pu %params %u0 %ix{k}",
                  f"%p{k} = OpLoad %u32 %pp{k}"]
    blk = " ".join(f"%p{d}" for d in range(D))
    dim = " ".join(f"%p{D + d}" for d in range(D))
    strd = " ".join(f"%p{2 * D + d}" for d in range(D))
    bad = f"%p{5 * D + 1}"
    lines += [f"%lb = OpIMul %u32 %l {bad}", f"%off0 = OpIAdd %u32 %p{3 * D} %lb"]
    sl = " ".join(f"{'%off0' if d == 0 else f'%p{3 * D + d}'} %p{4 * D + d}" for d in range(D))
    lines += ["%t0 = OpCreateTensorLayoutNV %tl", f"%t1 = OpTensorLayoutSetBlockSizeNV %tl %t0 {blk}",
              f"%t2 = OpTensorLayoutSetDimensionNV %tl %t1 {dim}"]
    last = "%t2"
    if set_stride:
        lines.append(f"%t3 = OpTensorLayoutSetStrideNV %tl %t2 {strd}")
        last = "%t3"
    if slice_first:
        lines += [f"%t4 = OpTensorLayoutSliceNV %tl {last} {sl}",
                  f"%t5 = OpTensorLayoutSetClampValueNV %tl %t4 %p{5 * D}"]
    else:
        lines += [f"%t4 = OpTensorLayoutSetClampValueNV %tl {last} %p{5 * D}",
                  f"%t5 = OpTensorLayoutSliceNV %tl %t4 {sl}"]
    addressing = "None"
    if view != "none":
        v0 = 5 * D + 2
        lines.append("%v0 = OpCreateTensorViewNV %tv")
        vlast = "%v0"
        if view == "dims":
            vd = " ".join(f"%p{v0 + d}" for d in range(D))
            vs = " ".join(f"%p{v0 + D + d}" for d in range(D))
            lines += [f"%v1 = OpTensorViewSetDimensionNV %tv %v0 {vd}", f"%v2 = OpTensorViewSetStrideNV %tv %v1 {vs}"]
            vlast = "%v2"
        clip = " ".join(f"%p{v0 + 2 * D + i}" for i in range(4))
        lines.append(f"%v3 = OpTensorViewSetClipNV %tv {vlast} {clip}")
        addressing = "TensorView %v3"
    lines += ["%mo = OpIMul %u32 %w %uRC", "%pm = OpAccessChain %pe %out %u0 %mo",
              *(["%pcp = OpAccessChain %ppcm %pc %u0", "%sb = OpLoad %ppsb %pcp",
                 "%ps = OpAccessChain %ppe %sb %u0 %u0"] if bda else ["%ps = OpAccessChain %pe %src %u0 %u0"])]
    if op == "load":
        lines += [f"%x = OpCooperativeMatrixLoadTensorNV %mt %ps %neg %t5 None {addressing}",
                  "OpCooperativeMatrixStoreKHR %pm %x %u0 %uC"]
    else:
        lines += ["%x = OpCooperativeMatrixLoadKHR %mt %pm %u0 %uC",
                  f"OpCooperativeMatrixStoreTensorNV %ps %x %t5 None {addressing}"]
    lines += ["OpReturn", "OpFunctionEnd"]
    return "\n".join(lines) + "\n"


def _params(rng, D: int, G: int, R: int, C: int, view: str, errors: bool) -> np.ndarray:
    """(G, P) u32 layout and view fields, one row per scope instance; offsets inside, across and outside every
    edge. The dimensions, block sizes, strides, spans and view are shared (as in real kernels) most of the time."""
    def shared():
        block = np.where(rng.random(D) < 0.25, rng.integers(1, 5, D), 1)
        stride = rng.integers(0, 50, D)
        span = np.ones(D, np.int64)   # the spans' product covers the R x C (or the view's clip) elements
        span[-1] = C if D == 2 else rng.choice([c for c in (1, 2, C) if C % c == 0])
        if D == 3:
            span[1] = C // span[-1]
        span[0] = R
        if view != "none" and rng.random() < 0.5:
            span = span[::-1].copy()   # a transposing view reads the span the other way round
        dim = span * block + rng.integers(0, 30, D)   # usually larger than a tile: interior tiles
        if rng.random() < 0.3:
            dim = rng.integers(1, 40, D)
        if rng.random() < 0.2:
            dim[rng.integers(D)] = 1
        vdim = rng.integers(1, 24, D)
        vstride = rng.integers(0, 30, D)
        if rng.random() < 0.5:   # the view's dimensions as the span's, packed strides (as real kernels have)
            vdim = span.copy()
            vstride = np.cumprod(np.r_[span[1:], 1][::-1])[::-1].astype(np.int64)
        clip = [0, 0xFFFFFFFF, 0, 0xFFFFFFFF]
        if view != "none" and rng.random() < 0.5:
            clip = [int(rng.integers(0, R)), int(rng.integers(0, R + 2)), int(rng.integers(0, C)),
                    int(rng.integers(0, C + 2))]
        return block, dim, stride, span, vdim, vstride, clip
    common = shared()
    rows = []
    for _ in range(G):
        block, dim, stride, span, vdim, vstride, clip = common if rng.random() < 0.95 else shared()
        off = np.array([int(rng.integers(0, max(int(dim[d]) // int(block[d]) - int(span[d]), 0) + 1)) * int(block[d])
                        if rng.random() < 0.75 else int(rng.integers(-int(span[d]) - 3, int(dim[d]) + 3))
                        for d in range(D)])
        bad = 1 if errors and rng.random() < 0.05 else 0
        cv = int(rng.integers(0, 1 << 32))
        rows.append([*block, *dim, *stride, *(int(o) & 0xFFFFFFFF for o in off), *span, cv, bad,
                     *vdim, *vstride, *clip])
    return np.array(rows, np.uint64).astype(np.uint32)


def _run(text: str, params: np.ndarray, src: np.ndarray, out: np.ndarray, G: int, bda: bool = False):
    try:
        if bda:   # src only by its device address
            r = spvcoop.run(text, dispatch=(G, 1, 1), buffers={"srcbuf": src.view(np.uint8).copy(), 1: out.copy(),
                                                                2: params.reshape(-1)},
                            push_constants={"src": "&srcbuf"}, validate=False)
            return "ok", bytes(np.asarray(r["srcbuf"]).tobytes()), bytes(np.asarray(r[1]).tobytes())
        r = spvcoop.run(text, dispatch=(G, 1, 1), buffers={0: src.copy(), 1: out.copy(), 2: params.reshape(-1)},
                        validate=False)
        return "ok", bytes(np.asarray(r[0]).tobytes()), bytes(np.asarray(r[1]).tobytes())
    except SpvError as e:
        return "error", e.diagnostics[0].message, str(e.diagnostics[0].span)


def _both(monkeypatch, *args, off=(TENSOR_OFF, GROUPS_OFF)):
    """(the run with the fast paths, the run with those whose variables `off` names off)."""
    for v in off:
        monkeypatch.delenv(v, raising=False)
    fast = _run(*args)
    for v in off:
        monkeypatch.setenv(v, "1")
    plain = _run(*args)
    for v in off:
        monkeypatch.delenv(v)
    return fast, plain


def _dtype(comp: str):
    if comp == "bf16":
        from spvcoop.interp.encodings import BF16
        return BF16
    return np.float16 if comp == "f16" else np.float32


SHAPES = [("Workgroup", 16, 8), ("Subgroup", 16, 16), ("Workgroup", 8, 24)]
CASES = [dict(scope=s, R=r, C=c, comp=comp, D=d, mode=m, view=v, op=op)
         for (s, r, c), comp, d, m, v, op in itertools.product(SHAPES, ["f32", "f16", "bf16"], [2, 3], range(5),
                                                               ["none", "perm", "dims"], ["load", "store"])]


@pytest.mark.parametrize("case", CASES[::7], ids=lambda c: "-".join(str(v) for v in c.values()))
def test_fast_path_agrees_with_the_plain_path(monkeypatch, case):
    """Every seventh combination (78 modules), four random dispatches each: identical bytes or errors."""
    rng = np.random.default_rng(zlib.crc32(repr(case).encode()))   # the same cases in every process
    D, R, C = case["D"], case["R"], case["C"]
    perm = tuple(int(x) for x in rng.permutation(D)) if case["view"] != "none" else tuple(range(D))
    bda = bool(rng.random() < 0.3)   # the tensor reached through a device address (a PhysicalStorageBuffer pointer)
    text = _kernel(perm=perm, set_stride=bool(rng.random() < 0.5), bda=bda, **case)
    dt = _dtype(case["comp"])
    outcomes = set()
    for trial in range(4):
        G = int(rng.integers(1, 7))
        params = _params(rng, D, G, R, C, case["view"], errors=trial == 3)
        n = int(rng.integers(500, 6000))
        src = (rng.standard_normal(n) * 8).astype(dt)
        out = (rng.standard_normal(G * R * C) * 8).astype(dt)
        fast, plain = _both(monkeypatch, text, params, src, out, G, bda)
        assert fast == plain
        outcomes.add(fast[0])
    assert outcomes   # (both kinds occur over the cases; test_generated_cases_reach_both_paths counts them)


@pytest.mark.parametrize("case", CASES[2::13], ids=lambda c: "-".join(str(v) for v in c.values()))
def test_layouts_per_workgroup_agree_with_per_invocation_layouts(monkeypatch, case):
    """The fast path `tensor_groups` alone off (issue 33): the sliced layouts held per invocation and every field
    checked within each scope instance give the same bytes or the same located error (a field that differs within
    a workgroup, trial 3, leaves the slice to the plain path); the rows per workgroup were taken."""
    made: list = []
    real = fastpaths.for_run
    monkeypatch.setattr(fastpaths, "for_run", lambda config: made.append(real(config)) or made[-1])
    rng = np.random.default_rng(zlib.crc32(repr(case).encode()) + 33)
    D, R, C = case["D"], case["R"], case["C"]
    perm = tuple(int(x) for x in rng.permutation(D)) if case["view"] != "none" else tuple(range(D))
    text = _kernel(perm=perm, set_stride=bool(rng.random() < 0.5), slice_first=bool(rng.random() < 0.5), **case)
    dt = _dtype(case["comp"])
    taken = 0
    for trial in range(4):
        G = int(rng.integers(2, 7))
        params = _params(rng, D, G, R, C, case["view"], errors=trial == 3)
        src = (rng.standard_normal(int(rng.integers(500, 6000))) * 8).astype(dt)
        out = (rng.standard_normal(G * R * C) * 8).astype(dt)
        made.clear()
        fast, plain = _both(monkeypatch, text, params, src, out, G, off=(GROUPS_OFF,))
        assert fast == plain
        taken += "tensor_groups" in made[0].taken
        assert "tensor_groups" not in made[1].on
    assert taken >= 2


def test_generated_cases_reach_both_paths(monkeypatch):
    """The generator is not vacuous: over a few cases, the fast path plans tiles (interior, masked and edge
    instances all occur), and both results and errors come out."""
    seen = {"interior": 0, "masked": 0, "edge": 0, "plain": 0}
    real = tiles.plan

    def counting(*a, **k):
        t = real(*a, **k)
        seen["plain"] += t is None
        if t is not None:
            seen["interior"] += len(t.interior)
            seen["masked"] += 0 if t.masked is None else len(t.masked)
            seen["edge"] += len(t.edge)
        return t
    monkeypatch.setattr(tiles, "plan", counting)
    kinds = set()
    rng = np.random.default_rng(26)
    for mode in (1, 0, 2):
        case = dict(scope="Workgroup", R=16, C=8, comp="f32", D=2, mode=mode, view="none", op="load")
        text = _kernel(perm=(0, 1), set_stride=False, **case)
        for _trial in range(6):
            params = _params(rng, 2, 6, 16, 8, "none", errors=False)
            out = _run(text, params, rng.standard_normal(3000).astype(np.float32), np.zeros(6 * 128, np.float32), 6)
            kinds.add(out[0])
    assert all(seen.values()), seen
    assert kinds == {"ok", "error"}


def test_fast_path_used_for_a_tiled_gemm(monkeypatch):
    """The Workgroup-scope GEMM with clamped edges (tests/data/coopmat2/wg_gemm.spvasm) plans every load and store
    as tiles, and gives the plain path's bytes."""
    from conftest import DATA
    planned = []
    real = cm2_memory._tiles
    monkeypatch.setattr(cm2_memory, "_tiles", lambda *a: planned.append(real(*a)) or planned[-1])
    rng = np.random.default_rng(3)
    M, N, K = 50, 40, 70
    a = rng.standard_normal(M * K).astype(np.float16)
    b = rng.standard_normal(K * N).astype(np.float16)
    kw = dict(dispatch=(2, 2, 1), spec_constants={0: M, 1: N, 2: K})
    fast = spvcoop.run(str(DATA / "coopmat2" / "wg_gemm.spvasm"), buffers={0: a, 1: b, 2: np.zeros(M * N, np.float32)},
                       **kw)
    assert planned and all(t is not None for t in planned)
    monkeypatch.setenv(TENSOR_OFF, "1")
    plain = spvcoop.run(str(DATA / "coopmat2" / "wg_gemm.spvasm"),
                        buffers={0: a, 1: b, 2: np.zeros(M * N, np.float32)}, **kw)
    assert np.asarray(fast[2]).tobytes() == np.asarray(plain[2]).tobytes()


def test_f16_widening_table_is_astype():
    from spvcoop.interp.coopmat.math import _widen
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16).reshape(256, 256)
    assert _widen(x, np.float32).tobytes() == x.astype(np.float32).tobytes()


def _elements(t) -> tuple[np.ndarray, np.ndarray]:
    """(position, element index into the buffer) of every element a tiles.TileAccess reads or writes, flat: which
    bytes (index * E .. + E) each scope instance touches, what a memory-access hook would record."""
    pos, idx = [], []
    if len(t.interior):
        ix = t.base[:, None, None] + t.template[None]
        sel = np.broadcast_to(t.inside if t.inside is not None else True, ix.shape)
        pos.append(np.broadcast_to(t.interior[:, None, None], ix.shape)[sel])
        idx.append(ix[sel])
    if t.masked is not None and t.mindex is not None and t.valid is not None:
        pos.append(np.broadcast_to(t.masked[:, None, None], t.valid.shape)[t.valid])
        idx.append(t.mindex[t.valid])
    if t.edge_a is not None and t.estart is not None:
        j, r, c = np.nonzero(t.edge_a.access)
        pos.append(t.edge[j])
        idx.append(t.estart[j] + t.edge_a.index[j, r, c])
    if not pos:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(pos), np.concatenate(idx)


@pytest.mark.parametrize("case", CASES[3::17], ids=lambda c: "-".join(str(v) for v in c.values()))
def test_elements_are_the_plain_paths_elements(monkeypatch, case):
    """The elements of a whole-tile access (what a memory-access hook would record) are exactly the elements the
    plain path reads or writes, scope instance by scope instance."""
    from spvcoop.interp.coopmat2.addressing import tensor_addresses
    checked = []
    real = cm2_memory._tiles

    def check(ex, info, lt, L, vt, V, where, groups, store, what):
        t = real(ex, info, lt, L, vt, V, where, groups, store, what)
        if t is not None:
            a = tensor_addresses(lt, L, vt, V, info.rows, info.cols, store)
            j, r, c = np.nonzero(a.access)
            plain = sorted(zip(j.tolist(), (where.start[j] // info.itemsize + a.index[j, r, c]).tolist(),
                               strict=True))
            pos, idx = _elements(t)
            assert sorted(zip(pos.tolist(), idx.tolist(), strict=True)) == plain
            checked.append(len(plain))
        return t
    monkeypatch.setattr(cm2_memory, "_tiles", check)
    rng = np.random.default_rng(7 + len(case["view"]) + case["mode"])
    D, R, C = case["D"], case["R"], case["C"]
    perm = tuple(int(x) for x in rng.permutation(D)) if case["view"] != "none" else tuple(range(D))
    text = _kernel(perm=perm, set_stride=False, **case)
    dt = _dtype(case["comp"])
    for _trial in range(12):
        if len(checked) >= 3:
            break
        G = int(rng.integers(2, 7))
        _run(text, _params(rng, D, G, R, C, case["view"], errors=False), (rng.standard_normal(6000)).astype(dt),
             np.zeros(G * R * C, dt), G)
    assert checked


@pytest.mark.parametrize("shader", ["wg_tensor_gemm64.spv", "mul_mm_cm2_style_opt.spv"])
def test_bench_kernels_with_edge_tiles(monkeypatch, shader):
    """bench/shaders' Workgroup-scope tensor-layout GEMMs (64 x 64 tiles, K step 32, 128 invocations) at
    M, N, K = 200, 136, 100 (edge tiles in every dimension): numpy's product, and the plain path's bytes."""
    from conftest import TESTS
    M, N, K = 200, 136, 100
    rng = np.random.default_rng(26)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    b = B if shader.startswith("wg") else np.ascontiguousarray(B.T)   # the mul_mm_cm2 style takes B^T (N x K)
    kw = dict(dispatch=(-(-N // 64), -(-M // 64), 1), spec_constants={0: M, 1: N, 2: K})
    path = str(TESTS.parent / "bench" / "shaders" / shader)
    fast = spvcoop.run(path, buffers={0: A, 1: b, 2: np.zeros(M * N, np.float32)}, **kw)[2]
    want = A.astype(np.float32) @ B.astype(np.float32)
    assert np.allclose(np.asarray(fast).reshape(M, N), want, rtol=1e-5, atol=1e-4)
    monkeypatch.setenv(TENSOR_OFF, "1")
    plain = spvcoop.run(path, buffers={0: A, 1: b, 2: np.zeros(M * N, np.float32)}, **kw)[2]
    assert np.asarray(fast).tobytes() == np.asarray(plain).tobytes()


def test_shared_tiles_are_widened_once(monkeypatch):
    """bench/shaders' Workgroup-scope GEMM at 320^3 (5 x 5 workgroups, every tile interior): each A and B tile is
    read by 5 workgroups, so the fast path gathers it once and MulAdd widens 5 distinct tiles per operand, not 25
    (CoopMat.shared); the bytes are the plain path's and numpy's product."""
    from conftest import TESTS
    from spvcoop.interp.coopmat import math as coop_math
    n = 320
    rng = np.random.default_rng(260)
    A, B = rng.standard_normal((2, n, n)).astype(np.float16)
    widened: list[int] = []
    real = coop_math._widen
    monkeypatch.setattr(coop_math, "_widen", lambda x, acc: widened.append(x.shape[0]) or real(x, acc))
    path = str(TESTS.parent / "bench" / "shaders" / "wg_tensor_gemm64.spv")

    def once():
        widened.clear()
        out = spvcoop.run(path, buffers={0: A, 1: B, 2: np.zeros(n * n, np.float32)}, dispatch=(5, 5, 1),
                          spec_constants={0: n, 1: n, 2: n})[2]
        return np.asarray(out).tobytes(), sorted(set(widened))
    monkeypatch.delenv(TENSOR_OFF, raising=False)
    fast, fast_sizes = once()
    monkeypatch.setenv(TENSOR_OFF, "1")
    plain, plain_sizes = once()
    assert fast == plain
    assert fast_sizes == [5] and plain_sizes == [25]
    want = A.astype(np.float32) @ B.astype(np.float32)
    np.testing.assert_allclose(np.frombuffer(fast, np.float32).reshape(n, n), want, rtol=1e-5, atol=1e-3)



@pytest.mark.parametrize("shader, M, N, K, buf", [("wg_tensor_gemm64.spv", 320, 320, 320, ""),
                                                  ("wg_tensor_gemm64.spv", 128, 192, 100, ""),
                                                  ("wg_tensor_gemm64.spv", 128, 192, 100, "padded"),
                                                  ("wg_tensor_gemm64.spv", 128, 128, 128, "short"),
                                                  ("mul_mm_cm2_style_opt.spv", 128, 128, 96, ""),
                                                  ("rotating", 256, 256, 256, "")])
def test_moved_plans_are_new_plans(monkeypatch, shader, M, N, K, buf):
    """A tensor load of a loop's next trip whose offsets moved by one row for all moves its last plan (tiles.Trip,
    the fast path `tensor_groups`): the bytes (or the error) are those of new plans (`tensor_groups` off) and of
    the plain path (`tensor` off too), with K not a multiple of the K step (the last trip's tiles cross the edge:
    no move; in a buffer longer than the tensor, padded, only the tensor's edge says so), with the last trip's A
    tile past the end of a short buffer (the located error), and with per-workgroup offsets that change every trip
    (A's rows in tests/data/coopmat2/wg_gemm_rotating.spvasm: no move)."""
    from conftest import DATA, TESTS
    path = str(DATA / "coopmat2" / "wg_gemm_rotating.spvasm" if shader == "rotating" else
               TESTS.parent / "bench" / "shaders" / shader)
    rng = np.random.default_rng(M + N + K)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    b = np.ascontiguousarray(B.T) if shader.startswith("mul_mm") else B
    a = A.reshape(-1)
    if buf == "padded":
        a, b = np.r_[a, np.ones(64 * K, np.float16)], np.r_[b.reshape(-1), np.ones(64 * N, np.float16)]
    elif buf == "short":
        a = a[:-8]   # the end of A's last row is missing: only the last trip's tile reads past the end
    kw = dict(dispatch=(-(-N // 64), -(-M // 64), 1), spec_constants={0: M, 1: N, 2: K})
    moved: list = []
    real = tiles.Trip.moved
    monkeypatch.setattr(tiles.Trip, "moved", lambda self, d: moved.append(real(self, d)) or moved[-1])

    def once(*off):
        for v in (TENSOR_OFF, GROUPS_OFF):
            monkeypatch.delenv(v, raising=False)
        for v in off:
            monkeypatch.setenv(v, "1")
        try:
            r = spvcoop.run(path, buffers={0: a, 1: b, 2: np.zeros(M * N, np.float32)}, validate=False, **kw)
        except SpvError as e:
            return e.diagnostics[0].message + str(e.diagnostics[0].span)
        return np.asarray(r[2]).tobytes()
    fast = once()
    hits = sum(m is not None for m in moved)
    assert fast == once(GROUPS_OFF) == once(TENSOR_OFF, GROUPS_OFF)
    assert hits >= (K // 32 - 1) * (1 if shader == "rotating" else 2) - 2
    if K % 32 or buf:
        assert any(m is None for m in moved)
    if buf == "short":
        assert isinstance(fast, str) and "out of bounds" in fast
    elif shader != "rotating":
        want = A.astype(np.float32) @ B.astype(np.float32)
        np.testing.assert_allclose(np.frombuffer(fast, np.float32).reshape(M, N), want, rtol=1e-5, atol=1e-3)


def test_rows_per_workgroup_of_any_instances():
    """Grouped.per gives each scope instance its workgroup's row, whichever instances are active: three subgroups
    of 32 in three workgroups of 64 (lanes 0, 32, 128: two of workgroup 0) are not the three workgroups in order."""
    from spvcoop.interp.coopmat2.core import Grouped
    rows = {"offset": np.array([[0, 1], [10, 11], [20, 21]], np.int64), "dim": np.array([[7, 8]], np.int64)}
    g = Grouped(rows, 64, 192)
    for lanes in ([0, 32, 128], [0, 64, 128], [32, 64], [0]):
        got = g.per(np.array(lanes, np.int64))
        assert got["offset"].tolist() == rows["offset"][np.array(lanes) // 64].tolist()
        assert got["dim"].tolist() == [[7, 8]] * len(lanes)

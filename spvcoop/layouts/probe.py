"""The probe shader that reveals a driver's layout, and turning its output into a model.

The shader (one subgroup of S invocations) loads two row-major R x C matrices of the
probed type with stride C, ROW[r*C+c] = r + 1 and COL[r*C+c] = c + 1 (one more than
the index, so that the zero a padding slot reads is told apart from element (0,0)),
and every invocation p writes into the uint32 buffer OUT:

    OUT[p]                        = length (OpCooperativeMatrixLength)
    OUT[S + 2*(p*R*C + i)]        = ROW-matrix[i]  (row + 1 of its i-th element, 0 = padding)
    OUT[S + 2*(p*R*C + i) + 1]    = COL-matrix[i]  (col + 1)

Bindings (descriptor set 0): 0 = ROW, 1 = COL, 2 = OUT. `probe_inputs` makes the two
input matrices; `import_buffer` turns OUT into per-invocation tables.
(The H100 measurement in tests/data/h100-vulkan used r and c without the +1.)
"""
from __future__ import annotations

import re
from typing import cast

import numpy as np

from ..core.module import Span
from .layout import COMPONENTS, LayoutError, check_component, check_int, normalize_use
from .limits import DEFAULT_LIMITS, LayoutLimits

_USE_VALUE = {"a": 0, "b": 1, "acc": 2}


def _scalar_decls(component: str) -> tuple[list[str], list[str], list[str]]:
    """(capabilities, extensions, type lines) for a component type."""
    bits, kind = COMPONENTS[component]
    if component in ("e4m3", "e5m2"):  # the probe writes row/column numbers as values: FP8 is exact only to 16
        raise LayoutError(f"no probe shader for {component}: FP8 values cannot hold the row and column numbers")
    caps, exts = [], []
    if component == "bf16":
        caps += ["BFloat16TypeKHR", "BFloat16CooperativeMatrixKHR"]
        exts += ["SPV_KHR_bfloat16"]
        ty = "%elem = OpTypeFloat 16 BFloat16KHR"
    elif kind == "float":
        ty = f"%elem = OpTypeFloat {bits}"
    else:
        ty = f"%elem = OpTypeInt {bits} {1 if kind == 'sint' else 0}"
    if bits == 16:
        caps += ["Float16"] if kind == "float" and component != "bf16" else ["Int16"] if kind != "float" else []
        caps += ["StorageBuffer16BitAccess"]
        exts += ["SPV_KHR_16bit_storage"]
    elif bits == 8:
        caps += ["Int8", "StorageBuffer8BitAccess"]
        exts += ["SPV_KHR_8bit_storage"]
    elif bits == 64:
        caps += ["Float64" if kind == "float" else "Int64"]
    return caps, exts, [ty]


def probe_shader(api: str, component: str, rows: int, cols: int, use: str | None = None,
                 subgroup_size: int = 32, limits: LayoutLimits = DEFAULT_LIMITS, scope: str = "Subgroup") -> str:
    """SPIR-V assembly (spv1.6 / vulkan1.3) of the layout probe for one type.

    scope "Workgroup" (KHR types, VK_NV_cooperative_matrix2): the matrix belongs to one workgroup of
    `subgroup_size` invocations (the scope's size), and invocation p is the local invocation index."""
    if scope not in ("Subgroup", "Workgroup"):
        raise LayoutError(f"unknown scope '{scope}': expected Subgroup or Workgroup")
    if scope == "Workgroup" and api != "khr":
        raise LayoutError("Workgroup-scope matrices are KHR types (VK_NV_cooperative_matrix2): use --api khr")
    check_component(component)
    use = normalize_use(use)
    if api not in ("nv", "khr"):
        raise LayoutError(f"unknown api '{api}': expected nv or khr")
    if api == "khr" and use is None:
        raise LayoutError("a KHR probe needs --use a, b or acc")
    if api == "nv" and use is not None:
        raise LayoutError("NV cooperative matrices have no use: drop --use for --api nv")
    rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
    subgroup_size = check_int(subgroup_size, "the subgroup size")
    if rows < 1 or cols < 1 or subgroup_size < 1:
        raise LayoutError("rows, cols and subgroup size must be positive")
    why = limits.check_type(rows, cols, subgroup_size)
    if why:
        raise LayoutError(why)
    if subgroup_size * (1 + 2 * rows * cols) >= 1 << 32:
        raise LayoutError(f"the probe's OUT buffer ({subgroup_size} * (1 + 2 * {rows} * {cols}) words) cannot be "
                          f"indexed with 32-bit integers")
    bits, kind = COMPONENTS[component]
    caps, exts, tylines = _scalar_decls(component)
    S, R, C = subgroup_size, rows, cols
    if api == "khr":
        caps = ["VulkanMemoryModel", "CooperativeMatrixKHR"] + caps
        exts = ["SPV_KHR_cooperative_matrix"] + exts
        memory_model = "OpMemoryModel Logical Vulkan"
        mat = "%mat = OpTypeCooperativeMatrixKHR %elem %scope %rows %cols %use"
        load = "OpCooperativeMatrixLoadKHR %mat {ptr} %rowmajor %stride"
        length = "OpCooperativeMatrixLengthKHR %u32 %mat"
        # khr: use is set (checked above)
        extra_consts = [f"%use = OpConstant %u32 {_USE_VALUE[cast(str, use)]}", "%rowmajor = OpConstant %u32 0"]
        desc = f"khr {component} {R}x{C} use {use}"
    else:
        caps = ["CooperativeMatrixNV"] + caps
        exts = ["SPV_NV_cooperative_matrix"] + exts
        memory_model = "OpMemoryModel Logical GLSL450"
        mat = "%mat = OpTypeCooperativeMatrixNV %elem %scope %rows %cols"
        load = "OpCooperativeMatrixLoadNV %mat {ptr} %stride %false"
        length = "OpCooperativeMatrixLengthNV %u32 %mat"
        extra_consts = ["%false = OpConstantFalse %bool"]
        desc = f"nv {component} {R}x{C}"
    elem_stride = max(1, bits // 8)
    conv_r, conv_c = _to_u32(kind, bits, "%x", "%u"), _to_u32(kind, bits, "%xc", "%uc")
    lines = [
        f"; spvcoop layout probe: {desc}, " + (f"subgroup size {S}" if scope == "Subgroup" else
                                               f"Workgroup scope, {S} invocations (p = local invocation index)"),
        "; Bindings (set 0): 0 = ROW (R*C elements, ROW[r*C+c] = r+1), 1 = COL (COL[r*C+c] = c+1), 2 = OUT (uint32).",
        f"; OUT[p] = length; OUT[{S} + 2*(p*{R * C} + i)] = row+1, next word col+1 of invocation p's element i"
        " (0 = padding).",
        f"; OUT needs {S + 2 * S * R * C} uint32 words. Dispatch one workgroup; import with 'spvcoop layout import'.",
        "OpCapability Shader",
        "OpCapability GroupNonUniform",
        *[f"OpCapability {c}" for c in caps],
        *[f'OpExtension "{e}"' for e in exts],
        memory_model,
        'OpEntryPoint GLCompute %main "main" %rowbuf %colbuf %outbuf %sgid',
        f"OpExecutionMode %main LocalSize {S} 1 1",
        "OpDecorate %sgid BuiltIn " + ("SubgroupLocalInvocationId" if scope == "Subgroup" else
                                        "LocalInvocationIndex"),
        f"OpDecorate %elemarr ArrayStride {elem_stride}",
        "OpMemberDecorate %elemblk 0 Offset 0",
        "OpDecorate %elemblk Block",
        "OpDecorate %uarr ArrayStride 4",
        "OpMemberDecorate %ublk 0 Offset 0",
        "OpDecorate %ublk Block",
        "OpDecorate %rowbuf DescriptorSet 0", "OpDecorate %rowbuf Binding 0", "OpDecorate %rowbuf NonWritable",
        "OpDecorate %colbuf DescriptorSet 0", "OpDecorate %colbuf Binding 1", "OpDecorate %colbuf NonWritable",
        "OpDecorate %outbuf DescriptorSet 0", "OpDecorate %outbuf Binding 2",
        "%void = OpTypeVoid", "%voidfn = OpTypeFunction %void", "%bool = OpTypeBool",
        "%u32 = OpTypeInt 32 0", "%i32 = OpTypeInt 32 1",
        *tylines,
        f"%scope = OpConstant %u32 {3 if scope == 'Subgroup' else 2}",
        f"%rows = OpConstant %u32 {R}", f"%cols = OpConstant %u32 {C}", f"%stride = OpConstant %u32 {C}",
        f"%S = OpConstant %u32 {S}", f"%RC = OpConstant %u32 {R * C}",
        "%u0 = OpConstant %u32 0", "%u1 = OpConstant %u32 1", "%u2 = OpConstant %u32 2",
        *extra_consts,
        mat,
        "%elemarr = OpTypeRuntimeArray %elem", "%elemblk = OpTypeStruct %elemarr",
        "%p_elemblk = OpTypePointer StorageBuffer %elemblk", "%p_elem = OpTypePointer StorageBuffer %elem",
        "%uarr = OpTypeRuntimeArray %u32", "%ublk = OpTypeStruct %uarr",
        "%p_ublk = OpTypePointer StorageBuffer %ublk", "%p_u32 = OpTypePointer StorageBuffer %u32",
        "%p_in_u32 = OpTypePointer Input %u32",
        "%p_fn_mat = OpTypePointer Function %mat", "%p_fn_elem = OpTypePointer Function %elem",
        "%rowbuf = OpVariable %p_elemblk StorageBuffer", "%colbuf = OpVariable %p_elemblk StorageBuffer",
        "%outbuf = OpVariable %p_ublk StorageBuffer",
        "%sgid = OpVariable %p_in_u32 Input",
        "%main = OpFunction %void None %voidfn",
        "%entry = OpLabel",
        "%vrow = OpVariable %p_fn_mat Function",
        "%vcol = OpVariable %p_fn_mat Function",
        "%p = OpLoad %u32 %sgid",
        "%prow = OpAccessChain %p_elem %rowbuf %u0 %u0",
        "%pcol = OpAccessChain %p_elem %colbuf %u0 %u0",
        "%mrow = " + load.format(ptr="%prow"),
        "%mcol = " + load.format(ptr="%pcol"),
        "OpStore %vrow %mrow",
        "OpStore %vcol %mcol",
        "%len = " + length,
        "%plen = OpAccessChain %p_u32 %outbuf %u0 %p",
        "OpStore %plen %len",
        "%pRC = OpIMul %u32 %p %RC",
        "OpBranch %header",
        "%header = OpLabel",
        "%i = OpPhi %u32 %u0 %entry %inext %continue",
        "%more = OpULessThan %bool %i %len",
        "OpLoopMerge %merge %continue None",
        "OpBranchConditional %more %body %merge",
        "%body = OpLabel",
        "%pxr = OpAccessChain %p_fn_elem %vrow %i",
        "%x = OpLoad %elem %pxr",
        "%pxc = OpAccessChain %p_fn_elem %vcol %i",
        "%xc = OpLoad %elem %pxc",
        *conv_r, *conv_c,
        "%slot = OpIAdd %u32 %pRC %i",
        "%slot2 = OpIMul %u32 %slot %u2",
        "%wr = OpIAdd %u32 %slot2 %S",
        "%wc = OpIAdd %u32 %wr %u1",
        "%pwr = OpAccessChain %p_u32 %outbuf %u0 %wr",
        "OpStore %pwr %u",
        "%pwc = OpAccessChain %p_u32 %outbuf %u0 %wc",
        "OpStore %pwc %uc",
        "OpBranch %continue",
        "%continue = OpLabel",
        "%inext = OpIAdd %u32 %i %u1",
        "OpBranch %header",
        "%merge = OpLabel",
        "OpReturn",
        "OpFunctionEnd",
    ]
    if kind != "float" and bits == 32:   # the component is %u32 / %i32 itself
        name = "%i32" if kind == "sint" else "%u32"
        lines = [re.sub(r"%elem\b", name, ln) for ln in lines if not ln.startswith("%elem = ")]
    return _align(lines)


def _to_u32(kind: str, bits: int, src: str, dst: str) -> list[str]:
    """Instructions turning the probed value src into the uint32 dst (values are small and >= 0)."""
    if kind == "float":
        return [f"{dst} = OpConvertFToU %u32 {src}"]
    if bits == 32:
        return [f"{dst} = OpBitcast %u32 {src}"] if kind == "sint" else [f"{dst} = OpCopyObject %u32 {src}"]
    if kind == "uint":
        return [f"{dst} = OpUConvert %u32 {src}"]
    return [f"{dst}w = OpSConvert %i32 {src}", f"{dst} = OpBitcast %u32 {dst}w"]


def _align(lines: list[str]) -> str:
    """spirv-dis style: result ids right-aligned before a column of opcodes."""
    out = []
    for ln in lines:
        if ln.startswith(";"):
            out.append(ln)
        elif " = " in ln and ln.startswith("%"):
            lhs, rhs = ln.split(" = ", 1)
            out.append(f"{lhs:>14} = {rhs}")
        else:
            out.append(" " * 17 + ln)
    return "\n".join(out) + "\n"


def probe_inputs(component: str, rows: int, cols: int,
                 limits: LayoutLimits = DEFAULT_LIMITS) -> tuple[np.ndarray, np.ndarray]:
    """The ROW and COL input matrices (row-major, r + 1 and c + 1) as numpy arrays of the component type."""
    check_component(component)
    rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
    why = limits.check_type(rows, cols, 1)
    if why:
        raise LayoutError(why)
    bits, kind = COMPONENTS[component]
    r, c = np.meshgrid(np.arange(rows) + 1, np.arange(cols) + 1, indexing="ij")
    if component == "bf16":  # small integers are exact in bf16: the upper half of the f32 bits
        def conv(a):
            return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        dtype = cast("dict[str, dict[int, type]]", {"float": {16: np.float16, 32: np.float32, 64: np.float64},
                 "sint": {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64},
                 "uint": {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}})[kind][bits]
        def conv(a):
            return a.astype(dtype)
    return conv(r).reshape(-1), conv(c).reshape(-1)


def import_buffer(words: np.ndarray, rows: int, cols: int, subgroup_size: int,
                  limits: LayoutLimits = DEFAULT_LIMITS) -> list[list]:
    """Per-invocation tables [[ [r, c] | None, ...], ...] from a probe's OUT buffer (uint32 words).

    LayoutError for a malformed buffer, located at the word it is about."""
    rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
    subgroup_size = check_int(subgroup_size, "the subgroup size")
    why = limits.check_type(rows, cols, subgroup_size)
    if why:
        raise LayoutError(why)
    S, RC = subgroup_size, rows * cols
    words = np.asarray(words, dtype=np.int64).reshape(-1)
    need = S + 2 * S * RC
    if words.size < S:
        raise LayoutError(f"truncated probe buffer: it has {words.size} words; at least {S} (the lengths) are "
                          f"needed", span=_word(words.size))
    lengths = words[:S]
    odd = np.flatnonzero(lengths != lengths[0])
    if len(odd):
        raise LayoutError(f"invocations report different lengths ({lengths[0]} in invocation 0, "
                          f"{lengths[odd[0]]} in invocation {odd[0]}): a layout needs one length",
                          span=_word(int(odd[0])))
    L = int(lengths[0])
    if not 1 <= L <= RC:
        raise LayoutError(f"probe buffer reports length {L}, outside 1..{RC}", span=_word(0))
    why = limits.slots_error(S, L)
    if why:
        raise LayoutError(why, span=_word(0))
    if words.size < need:
        raise LayoutError(f"truncated probe buffer: it has {words.size} words; a {rows}x{cols} probe at "
                          f"subgroup size {S} writes {need}", span=_word(words.size))
    pairs = words[S:need].reshape(S, RC, 2)[:, :L, :]
    tables = []
    for p in range(S):
        lane: list[list[int] | None] = []
        for i in range(L):
            r, c = int(pairs[p, i, 0]), int(pairs[p, i, 1])
            if r == 0 and c == 0:
                lane.append(None)
            elif 1 <= r <= rows and 1 <= c <= cols:
                lane.append([r - 1, c - 1])
            else:
                raise LayoutError(f"invocation {p} index {i} reports row+1={r}, col+1={c}: outside the "
                                  f"{rows}x{cols} matrix (and not padding)", span=_word(S + 2 * (p * RC + i)))
        tables.append(lane)
    return tables


def _word(n: int) -> Span:
    """The location of word n of a buffer (printed as 'word n')."""
    return Span(0, 0, 0, n)

"""What a module needs of a Vulkan device: its capabilities, extensions and Workgroup-scope cooperative matrices
mapped to device features and extensions, each checked by name against what the device has before dispatch.

A driver given a module that uses a feature not enabled is undefined behaviour (a crash, a hang, at best a
refused pipeline), so every need is either enabled (compute.Device enables everything the device reports) or
refused here, by its Vulkan name, before anything runs. Pure data and functions: no Vulkan call, so CI tests it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.diagnostics import Diagnostic, SpvError
from ..core.facts import ModuleFacts
from ..core.module import Module

# feature structures by the short names compute.Device records them under
CORE10, V11, V12, V13 = "VkPhysicalDeviceFeatures", "Vulkan11", "Vulkan12", "Vulkan13"
COOP_KHR, COOP_NV, COOP2 = "cooperativeMatrixKHR", "cooperativeMatrixNV", "coopmat2"
BF16, FP8 = "bfloat16", "float8"

# SPIR-V capability -> (feature structure, feature) it needs on Vulkan (the Vulkan spec's table "SPIR-V
# Capabilities"); capabilities every Vulkan 1.3 device has (Shader, Matrix, GroupNonUniform...) need none.
CAPABILITY_FEATURES: dict[str, tuple[str, str]] = {
    "Float64": (CORE10, "shaderFloat64"),
    "Int64": (CORE10, "shaderInt64"),
    "Int16": (CORE10, "shaderInt16"),
    "Float16": (V12, "shaderFloat16"),
    "Int8": (V12, "shaderInt8"),
    "StorageBuffer16BitAccess": (V11, "storageBuffer16BitAccess"),
    "UniformAndStorageBuffer16BitAccess": (V11, "uniformAndStorageBuffer16BitAccess"),
    "StoragePushConstant16": (V11, "storagePushConstant16"),
    "StorageBuffer8BitAccess": (V12, "storageBuffer8BitAccess"),
    "UniformAndStorageBuffer8BitAccess": (V12, "uniformAndStorageBuffer8BitAccess"),
    "StoragePushConstant8": (V12, "storagePushConstant8"),
    "VariablePointersStorageBuffer": (V11, "variablePointersStorageBuffer"),
    "VariablePointers": (V11, "variablePointers"),
    "VulkanMemoryModel": (V12, "vulkanMemoryModel"),
    "VulkanMemoryModelDeviceScope": (V12, "vulkanMemoryModelDeviceScope"),
    "PhysicalStorageBufferAddresses": (V12, "bufferDeviceAddress"),
    "Int64Atomics": (V12, "shaderBufferInt64Atomics"),
    "DemoteToHelperInvocation": (V13, "shaderDemoteToHelperInvocation"),
    "CooperativeMatrixKHR": (COOP_KHR, "cooperativeMatrix"),
    "CooperativeMatrixNV": (COOP_NV, "cooperativeMatrix"),
    # coopmat2 features under the field names of vk.py's Coopmat2Features (Vulkan: cooperativeMatrix<Name>)
    "CooperativeMatrixReductionsNV": (COOP2, "reductions"),
    "CooperativeMatrixConversionsNV": (COOP2, "conversions"),
    "CooperativeMatrixPerElementOperationsNV": (COOP2, "perElementOperations"),
    "CooperativeMatrixTensorAddressingNV": (COOP2, "tensorAddressing"),
    "TensorAddressingNV": (COOP2, "tensorAddressing"),
    "CooperativeMatrixBlockLoadsNV": (COOP2, "blockLoads"),
    "BFloat16TypeKHR": (BF16, "shaderBFloat16Type"),
    "BFloat16DotProductKHR": (BF16, "shaderBFloat16DotProduct"),
    "BFloat16CooperativeMatrixKHR": (BF16, "shaderBFloat16CooperativeMatrix"),
    "Float8EXT": (FP8, "shaderFloat8"),
    "Float8CooperativeMatrixEXT": (FP8, "shaderFloat8CooperativeMatrix"),
}
# SPIR-V extension -> the device extension it needs (extensions promoted to Vulkan 1.3 core need none)
EXTENSION_DEVICE_EXTENSIONS: dict[str, str] = {
    "SPV_KHR_cooperative_matrix": "VK_KHR_cooperative_matrix",
    "SPV_NV_cooperative_matrix": "VK_NV_cooperative_matrix",
    "SPV_NV_cooperative_matrix2": "VK_NV_cooperative_matrix2",
    "SPV_NV_tensor_addressing": "VK_NV_cooperative_matrix2",
    "SPV_KHR_bfloat16": "VK_KHR_shader_bfloat16",
    "SPV_EXT_float8": "VK_EXT_shader_float8",
    "SPV_KHR_workgroup_memory_explicit_layout": "VK_KHR_workgroup_memory_explicit_layout",
    "SPV_NV_shader_atomic_fp16_vector": "VK_NV_shader_atomic_float16_vector",
    "SPV_EXT_shader_atomic_float_add": "VK_EXT_shader_atomic_float",
}
WORKGROUP_SCOPE = 2


@dataclass(frozen=True)
class Need:
    """One thing the module needs: a feature (structure, name) or a device extension (structure '')."""
    struct: str
    name: str
    why: str     # what in the module needs it ("capability Float16", "a Workgroup-scope cooperative matrix")

    def describe(self) -> str:
        if not self.struct:
            what = f"extension {self.name}"
        elif self.struct == COOP2:
            what = f"feature cooperativeMatrix{self.name[0].upper()}{self.name[1:]} (VK_NV_cooperative_matrix2)"
        else:
            what = f"feature {self.name} ({self.struct})"
        return f"{what}, needed by {self.why}"


def module_needs(module: Module) -> list[Need]:
    """The device features and extensions `module` needs, in the order its instructions name them (capabilities,
    extensions, execution modes, types: the module's layout), from its facts (core/facts.py)."""
    from ..interp.program import enum_name
    facts = ModuleFacts.of(module)
    needs: dict[tuple[str, str], Need] = {}
    # a capability's aliases map to its one instruction: each instruction once, in module order
    caps = {id(i): i for i in facts.capabilities.values()}
    for inst in caps.values():
        value = inst.operands[0].value
        cap = enum_name("Capability", value) if isinstance(value, int) else str(value)
        if cap in CAPABILITY_FEATURES:
            s, f = CAPABILITY_FEATURES[cap]
            needs.setdefault((s, f), Need(s, f, f"capability {cap}"))
    for ext in facts.extensions:
        if ext in EXTENSION_DEVICE_EXTENSIONS:
            name = EXTENSION_DEVICE_EXTENSIONS[ext]
            needs.setdefault(("", name), Need("", name, f"extension {ext}"))
    for inst in (i for modes in facts.exec_modes.values() for i in modes):
        if inst.opname == "OpExecutionModeId" and len(inst.operands) > 1:
            value = inst.operands[1].value
            mode = enum_name("ExecutionMode", value) if isinstance(value, int) else str(value)
            if mode == "LocalSizeId":   # Vulkan: VUID-RuntimeSpirv-LocalSizeId-06434 (run's allow-localsizeid)
                needs.setdefault((V13, "maintenance4"), Need(V13, "maintenance4", "execution mode LocalSizeId"))
    constants = _int_constants(facts)
    for inst in facts.defs.values():
        if inst.opname in ("OpTypeCooperativeMatrixKHR", "OpTypeCooperativeMatrixNV"):
            scope_id = inst.operands[1].value   # operands: component type, scope, rows, cols (, use)
            scope = constants.get(scope_id) if isinstance(scope_id, int) else None
            if scope == WORKGROUP_SCOPE:
                needs.setdefault((COOP2, "workgroupScope"),
                                 Need(COOP2, "workgroupScope", "a Workgroup-scope cooperative matrix"))
    return list(needs.values())


def _int_constants(facts: ModuleFacts) -> dict[int, int]:
    """OpConstant id -> its value, for the one-word integer (and float bit-pattern) constants."""
    return {rid: inst.operands[0].value for rid, inst in facts.defs.items()
            if inst.opname == "OpConstant" and len(inst.operands) == 1 and isinstance(inst.operands[0].value, int)}


def missing(needs: list[Need], features: dict[str, dict[str, bool]], extensions: set[str] | dict) -> list[Need]:
    """The needs the device lacks: features false or absent in `features` (struct -> name -> supported),
    extensions not in `extensions`."""
    out = []
    for n in needs:
        if not n.struct:
            if n.name not in extensions:
                out.append(n)
        elif not features.get(n.struct, {}).get(n.name, False):
            out.append(n)
    return out


def refuse_missing(needs: list[Need], features: dict[str, dict[str, bool]], extensions: set[str] | dict,
                   device_name: str, source: str) -> None:
    """SpvError naming every need the device lacks (nothing is dispatched then)."""
    lack = missing(needs, features, extensions)
    if lack:
        raise SpvError(Diagnostic("error", f"{device_name} lacks what the module needs: "
                                  + "; ".join(n.describe() for n in lack), source=source))


SUBGROUP_SCOPE = 3
ENCODINGS = {0: "bf16", "BFloat16KHR": "bf16", 4214: "e4m3", "Float8E4M3EXT": "e4m3", 4215: "e5m2",
             "Float8E5M2EXT": "e5m2"}
MULADDS = {"OpCooperativeMatrixMulAddKHR": "coopmat_khr", "OpCooperativeMatrixMulAddNV": "coopmat_nv"}


def _component(types: dict, tid) -> str | None:
    """The device lists' name of a component type (f16, bf16, s8, ...); None for what they cannot name."""
    t = types.get(tid)
    if t is None:
        return None
    if t.opname == "OpTypeFloat":
        width = t.operands[0].value
        if len(t.operands) > 1:   # an FP encoding (SPIR-V FPEncoding values)
            return ENCODINGS.get(t.operands[1].value)
        return f"f{width}"
    if t.opname == "OpTypeInt":
        return f"{'s' if t.operands[1].value else 'u'}{t.operands[0].value}"
    return None


def unsupported_muladds(module: Module, coopmat_khr: list, coopmat_nv: list) -> list[str]:
    """Subgroup-scope MulAdds whose (M, N, K, A, B, C, Result) is not one of the device's configurations (the
    Vulkan spec requires one: VUID-RuntimeSpirv-MSize-10164 and its kin; a driver given another may fail in its
    compiler: a 4x8x4 KHR MulAdd made an H200's driver raise SIGFPE). Integers match by width (the KHR
    operands, not the types, say which are signed)."""
    facts = ModuleFacts.of(module)
    types = {rid: i for rid, i in facts.defs.items() if i.opname.startswith("OpType")}
    consts = _int_constants(facts)
    values = {rid: i.result_type for rid, i in facts.defs.items() if i.result_type}

    def shape(tid):
        t = types.get(tid)
        if t is None or t.opname not in ("OpTypeCooperativeMatrixKHR", "OpTypeCooperativeMatrixNV"):
            return None
        comp, scope, rows, cols = (o.as_int for o in t.operands[:4])
        return _component(types, comp), consts.get(scope), consts.get(rows), consts.get(cols)

    def same(a: str | None, b: str) -> bool:
        return a == b or (a is not None and a[0] in "su" and b[0] in "su" and a[1:] == b[1:])

    out = []
    seen = set()
    for inst in module.instructions:
        if inst.opname not in MULADDS:
            continue
        shapes = [shape(values.get(o.as_int)) for o in inst.operands[:3]] + [shape(inst.result_type)]
        if any(s is None or None in s for s in shapes) or shapes[3][1] != SUBGROUP_SCOPE:
            continue   # spec-constant sizes or Workgroup scope (flexible dimensions): not checked here
        (a, _, M, K), (b, _, _, N), (c, *_), (r, *_) = shapes
        key = (inst.opname, M, N, K, a, b, c, r)
        if key in seen:
            continue
        seen.add(key)
        table = coopmat_khr if MULADDS[inst.opname] == "coopmat_khr" else coopmat_nv
        if not any(e["M"] == M and e["N"] == N and e["K"] == K and e.get("scope", "Subgroup") == "Subgroup"
                   and all(same(x, e[k]) for x, k in ((a, "A"), (b, "B"), (c, "C"), (r, "Result")))
                   for e in table):
            out.append(f"{inst.opname} {M}x{N}x{K} {a} x {b} + {c} -> {r}")
    return out

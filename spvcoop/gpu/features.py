"""What a module needs of a Vulkan device: its capabilities, extensions and Workgroup-scope cooperative matrices
mapped to device features and extensions, each checked by name against what the device has before dispatch.

A driver given a module that uses a feature not enabled is undefined behaviour (a crash, a hang, at best a
refused pipeline), so every need is either enabled (compute.Device enables everything the device reports) or
refused here, by its Vulkan name, before anything runs. Pure data and functions: no Vulkan call, so CI tests it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.diagnostics import Diagnostic, SpvError
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
    """The device features and extensions `module` needs, in the order its instructions name them."""
    from ..interp.program import enum_name
    needs: dict[tuple[str, str], Need] = {}
    constants: dict[int, int] = {}
    for inst in module.instructions:
        op = inst.opname
        if op == "OpCapability":
            value = inst.operands[0].value
            cap = enum_name("Capability", value) if isinstance(value, int) else str(value)
            if cap in CAPABILITY_FEATURES:
                s, f = CAPABILITY_FEATURES[cap]
                needs.setdefault((s, f), Need(s, f, f"capability {cap}"))
        elif op == "OpExtension":
            ext = str(inst.operands[0].value)
            if ext in EXTENSION_DEVICE_EXTENSIONS:
                name = EXTENSION_DEVICE_EXTENSIONS[ext]
                needs.setdefault(("", name), Need("", name, f"extension {ext}"))
        elif op == "OpConstant" and len(inst.operands) == 1 and inst.result_id is not None:
            value = inst.operands[0].value
            if isinstance(value, int):
                constants[inst.result_id] = value
        elif op in ("OpTypeCooperativeMatrixKHR", "OpTypeCooperativeMatrixNV"):
            scope_id = inst.operands[1].value   # operands: component type, scope, rows, cols (, use)
            scope = constants.get(scope_id) if isinstance(scope_id, int) else None
            if scope == WORKGROUP_SCOPE:
                needs.setdefault((COOP2, "workgroupScope"),
                                 Need(COOP2, "workgroupScope", "a Workgroup-scope cooperative matrix"))
    return list(needs.values())


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

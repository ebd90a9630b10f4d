"""Vulkan instances, physical devices and what they report about cooperative matrices."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from . import GpuUnavailable
from .vk import (ST_COOPMAT2_FLEX_PROPERTIES, ST_COOPMAT2_PROPERTIES, ST_COOPMAT_KHR_PROPERTIES,
                 ST_COOPMAT_NV_PROPERTIES, as_vk_pointer, extra, proc, vulkan)

# VkComponentTypeKHR -> the component names of validator profiles and layout models
COMPONENTS = {0: "f16", 1: "f32", 2: "f64", 3: "s8", 4: "s16", 5: "s32", 6: "s64", 7: "u8", 8: "u16", 9: "u32",
              10: "u64", 1000141000: "bf16", 1000491000: "s8packed", 1000491001: "u8packed",
              1000491002: "e4m3", 1000491003: "e5m2"}
SCOPES = {1: "Device", 2: "Workgroup", 3: "Subgroup", 5: "QueueFamily"}
EXTENSIONS_OF_INTEREST = ("VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix", "VK_NV_cooperative_matrix2",
                          "VK_KHR_shader_bfloat16", "VK_EXT_shader_float8", "VK_KHR_shader_float16_int8",
                          "VK_KHR_vulkan_memory_model", "VK_EXT_subgroup_size_control",
                          "VK_KHR_buffer_device_address")


@dataclass
class DeviceInfo:
    """What `spvcoop device info` shows; plain data (lists of dicts), so it prints as YAML/JSON."""
    index: int
    name: str
    vendor_id: int
    device_id: int
    device_type: str
    api_version: str
    driver_version: int
    driver_name: str = ""
    driver_info: str = ""
    subgroup_size: int = 0
    min_subgroup_size: int = 0
    max_subgroup_size: int = 0
    extensions: dict = field(default_factory=dict)      # name -> spec version, those of interest
    coopmat_khr: list = field(default_factory=list)     # VkCooperativeMatrixPropertiesKHR
    coopmat_nv: list = field(default_factory=list)      # VkCooperativeMatrixPropertiesNV
    coopmat2: dict = field(default_factory=dict)        # features and properties of VK_NV_cooperative_matrix2
    flexible: list = field(default_factory=list)        # VkCooperativeMatrixFlexibleDimensionsPropertiesNV
    features: dict = field(default_factory=dict)        # bf16 / fp8 features where present

    def as_dict(self) -> dict:
        from dataclasses import asdict
        return asdict(self)


def _version(v: int) -> str:
    return f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"


class Instance:
    """A Vulkan instance (API 1.3) and its physical devices; close() or use as a context manager."""

    def __init__(self):
        vk = vulkan()
        self.vk = vk
        app = vk.VkApplicationInfo(pApplicationName="spvcoop", apiVersion=vk.VK_MAKE_VERSION(1, 3, 0))
        try:
            self.handle = vk.vkCreateInstance(vk.VkInstanceCreateInfo(pApplicationInfo=app), None)
        except (vk.VkError, vk.VkException) as e:
            raise GpuUnavailable(f"no Vulkan driver: vkCreateInstance failed ({type(e).__name__}); "
                                 "is an ICD installed (VK_ICD_FILENAMES)?") from None
        try:
            self.physical = list(vk.vkEnumeratePhysicalDevices(self.handle))
        except (vk.VkError, vk.VkException) as e:
            self.close()
            raise GpuUnavailable(f"no Vulkan device: vkEnumeratePhysicalDevices failed ({type(e).__name__})") \
                from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        if getattr(self, "handle", None) is not None:
            self.vk.vkDestroyInstance(self.handle, None)
            self.handle = None

    def device(self, index: int):
        if not self.physical:
            raise GpuUnavailable("no Vulkan device: the loader found no physical device")
        if not 0 <= index < len(self.physical):
            raise GpuUnavailable(f"no Vulkan device {index}: there are {len(self.physical)} "
                                 f"(vulkan:0 to vulkan:{len(self.physical) - 1})")
        return self.physical[index]

    def extensions(self, pd) -> dict[str, int]:
        vk = self.vk
        return {e.extensionName: e.specVersion for e in vk.vkEnumerateDeviceExtensionProperties(pd, None)}

    def info(self, index: int) -> DeviceInfo:
        vk, pd = self.vk, self.device(index)
        props = vk.vkGetPhysicalDeviceProperties(pd)
        exts = self.extensions(pd)
        types = {0: "other", 1: "integrated-gpu", 2: "discrete-gpu", 3: "virtual-gpu", 4: "cpu"}
        info = DeviceInfo(index, props.deviceName, props.vendorID, props.deviceID,
                          types.get(props.deviceType, str(props.deviceType)), _version(props.apiVersion),
                          props.driverVersion)
        info.extensions = {n: exts[n] for n in EXTENSIONS_OF_INTEREST if n in exts}
        self._subgroup(pd, info, props.apiVersion)
        ffi = extra()
        if "VK_KHR_cooperative_matrix" in exts:
            fn = proc(self.handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR", "PFN_coopKHR")
            for p in _enumerate(fn, pd, "CoopmatPropertiesKHR", ST_COOPMAT_KHR_PROPERTIES):
                info.coopmat_khr.append(dict(M=p.MSize, N=p.NSize, K=p.KSize, A=_c(p.AType), B=_c(p.BType),
                                             C=_c(p.CType), Result=_c(p.ResultType),
                                             saturating=bool(p.saturatingAccumulation), scope=_s(p.scope)))
        if "VK_NV_cooperative_matrix" in exts:
            fn = proc(self.handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV", "PFN_coopNV")
            for p in _enumerate(fn, pd, "CoopmatPropertiesNV", ST_COOPMAT_NV_PROPERTIES):
                info.coopmat_nv.append(dict(M=p.MSize, N=p.NSize, K=p.KSize, A=_c(p.AType), B=_c(p.BType),
                                            C=_c(p.CType), Result=_c(p.DType), scope=_s(p.scope)))
        if "VK_NV_cooperative_matrix2" in exts:
            feats = self.extension_features(pd)
            info.coopmat2 = {"features": feats.get("coopmat2", {})}
            p2 = ffi.new("Coopmat2Properties *", {"sType": ST_COOPMAT2_PROPERTIES})
            p = vk.ffi.new("VkPhysicalDeviceProperties2 *", {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                                           "pNext": as_vk_pointer(p2)})
            vk.lib.vkGetPhysicalDeviceProperties2(pd, p)
            info.coopmat2.update(workgroupScopeMaxWorkgroupSize=p2.workgroupScopeMaxWorkgroupSize,
                                 flexibleDimensionsMaxDimension=p2.flexibleDimensionsMaxDimension,
                                 workgroupScopeReservedSharedMemory=p2.workgroupScopeReservedSharedMemory)
            fn = proc(self.handle, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV", "PFN_flex")
            for q in _enumerate(fn, pd, "Coopmat2FlexProperties", ST_COOPMAT2_FLEX_PROPERTIES):
                info.flexible.append(dict(MGranularity=q.MGranularity, NGranularity=q.NGranularity,
                                          KGranularity=q.KGranularity, A=_c(q.AType), B=_c(q.BType),
                                          C=_c(q.CType), Result=_c(q.ResultType),
                                          saturating=bool(q.saturatingAccumulation), scope=_s(q.scope),
                                          workgroupInvocations=q.workgroupInvocations))
        else:
            feats = self.extension_features(pd)
        info.features = {k: v for k, v in feats.items() if k != "coopmat2"}
        return info

    def _subgroup(self, pd, info: DeviceInfo, api: int) -> None:
        vk = self.vk
        sub = vk.ffi.new("VkPhysicalDeviceSubgroupProperties *",
                         {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES})
        head = sub
        ctl = drv = None
        if api >= vk.VK_MAKE_VERSION(1, 3, 0):
            ctl = vk.ffi.new("VkPhysicalDeviceVulkan13Properties *",
                             {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES, "pNext": head})
            head = ctl
        if api >= vk.VK_MAKE_VERSION(1, 2, 0):
            drv = vk.ffi.new("VkPhysicalDeviceDriverProperties *",
                             {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, "pNext": head})
            head = drv
        p = vk.ffi.new("VkPhysicalDeviceProperties2 *",
                       {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, "pNext": head})
        vk.lib.vkGetPhysicalDeviceProperties2(pd, p)
        info.subgroup_size = sub.subgroupSize
        info.min_subgroup_size = ctl.minSubgroupSize if ctl is not None else sub.subgroupSize
        info.max_subgroup_size = ctl.maxSubgroupSize if ctl is not None else sub.subgroupSize
        if drv is not None:
            info.driver_name = vk.ffi.string(drv.driverName).decode(errors="replace")
            info.driver_info = vk.ffi.string(drv.driverInfo).decode(errors="replace")

    def extension_features(self, pd) -> dict:
        """Features of the extensions newer than the binding, those the device has."""
        vk, ffi = self.vk, extra()
        exts = self.extensions(pd)
        out: dict = {}
        chain = []
        if "VK_NV_cooperative_matrix2" in exts:
            chain.append(("coopmat2", ffi.new("Coopmat2Features *", {"sType": 1000593000})))
        if "VK_KHR_shader_bfloat16" in exts:
            chain.append(("bfloat16", ffi.new("Bfloat16Features *", {"sType": 1000141000})))
        if "VK_EXT_shader_float8" in exts:
            chain.append(("float8", ffi.new("Float8Features *", {"sType": 1000567000})))
        if not chain:
            return out
        for (_, a), (_, b) in zip(chain, chain[1:], strict=False):
            a.pNext = ffi.cast("void *", b)
        f2 = vk.ffi.new("VkPhysicalDeviceFeatures2 *", {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                                      "pNext": as_vk_pointer(chain[0][1])})
        vk.lib.vkGetPhysicalDeviceFeatures2(pd, f2)
        for name, s in chain:
            t = ffi.typeof(s).item
            out[name] = {f: bool(getattr(s, f)) for f, _ in t.fields if f not in ("sType", "pNext")}
        return out


def _c(t: int) -> str:
    return COMPONENTS.get(t, str(t))


def _s(s: int) -> str:
    return SCOPES.get(s, str(s))


def _enumerate(fn, pd, ctype: str, stype: int) -> list:
    """The two-call enumeration of a property list, each element's sType set as the spec requires."""
    if fn is None:
        return []
    from .vk import address
    ffi = extra()
    handle = ffi.cast("void *", address(pd))
    n = ffi.new("uint32_t *")
    if fn(handle, n, ffi.NULL) != 0:
        return []
    arr = ffi.new(f"{ctype}[]", n[0])
    for i in range(n[0]):
        arr[i].sType = stype
    if fn(handle, n, arr) not in (0, 5):  # VK_INCOMPLETE (5): the list may have grown; take what came
        return []
    # copied out while `arr` is alive: an element of a cffi array does not keep the array's memory
    names = [f for f, _ in ffi.typeof(ctype).fields]
    return [SimpleNamespace(**{f: getattr(arr[i], f) for f in names}) for i in range(n[0])]


def list_devices() -> list[DeviceInfo]:
    with Instance() as inst:
        return [inst.info(i) for i in range(len(inst.physical))]

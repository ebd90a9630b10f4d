"""One compute dispatch on a Vulkan device: a logical device with everything the device supports enabled,
host-visible buffers (with device addresses where the device has them), a pipeline, a fence.

Every wait on the GPU has a timeout (`timeout_s`, 30 s by default): a dispatch still running then, or a lost
device, is a `GpuFailure` (one line, exit 1), and the device is left alone afterwards (no vkDeviceWaitIdle,
which would wait for the stuck dispatch forever)."""
from __future__ import annotations

from collections.abc import Sequence

from ..core.diagnostics import Diagnostic, SpvError
from .device import Instance
from .vk import as_vk_pointer, extra

# device extensions enabled whenever present (the shaders spvcoop runs may need any of them)
WANTED_EXTENSIONS = ("VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix", "VK_NV_cooperative_matrix2",
                     "VK_KHR_shader_bfloat16", "VK_EXT_shader_float8", "VK_KHR_workgroup_memory_explicit_layout")
DEFAULT_TIMEOUT_S = 30.0   # a compute dispatch of spvcoop's sizes takes milliseconds: 30 s is a stuck one


class GpuFailure(SpvError):
    """The device timed out or was lost while running the shader: a finding about this run (exit 1)."""

    def __init__(self, message: str):
        super().__init__(Diagnostic("error", message, source="vulkan"))


def wait_for_fence(vk, device, fence, timeout_s: float) -> None:
    """vkWaitForFences with a timeout; VK_TIMEOUT and VK_ERROR_DEVICE_LOST (or any other failure) become a
    GpuFailure saying which, in one line."""
    try:
        vk.vkWaitForFences(device, 1, [fence], vk.VK_TRUE, max(0, int(timeout_s * 1e9)))
    except (vk.VkError, vk.VkException) as e:
        raise GpuFailure(_failure_text(type(e).__name__, timeout_s)) from None


def _failure_text(name: str, timeout_s: float) -> str:
    if name == "VkTimeout":
        return (f"the dispatch did not finish within {timeout_s:g} s (VK_TIMEOUT; an endless loop on the GPU? "
                f"--gpu-timeout sets the limit)")
    if name == "VkErrorDeviceLost":
        return "the device was lost while running the shader (VK_ERROR_DEVICE_LOST: the shader faulted or hung)"
    return f"the dispatch failed: {name}"


class Device:
    """A logical device on physical device `index`, with one compute queue."""

    def __init__(self, index: int = 0, instance: Instance | None = None, timeout_s: float = DEFAULT_TIMEOUT_S):
        self.timeout_s = timeout_s
        self.lost = False   # set after a timeout or a lost device: nothing may wait on the device any more
        self.instance = instance or Instance()
        self.owns_instance = instance is None
        self.vk = vk = self.instance.vk
        self.physical = pd = self.instance.device(index)
        self.index = index
        self.props = vk.vkGetPhysicalDeviceProperties(pd)
        exts = self.instance.extensions(pd)
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)
        self.family = next(i for i, f in enumerate(families) if f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
        self._keep: list = []   # structures the device create info points to
        names = [e for e in WANTED_EXTENSIONS if e in exts]
        self.extensions = set(names)
        self.features: dict[str, dict[str, bool]] = {}   # structure -> feature -> enabled (features.py's names)
        chain = self._feature_chain(pd, exts)
        queue = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1, pQueuePriorities=[1.0])
        info = vk.VkDeviceCreateInfo(pNext=chain, queueCreateInfoCount=1, pQueueCreateInfos=[queue],
                                     enabledExtensionCount=len(names), ppEnabledExtensionNames=names)
        try:
            self.handle = vk.vkCreateDevice(pd, info, None)
        except (vk.VkError, vk.VkException) as e:
            raise SpvError(Diagnostic("error", f"vkCreateDevice failed: {type(e).__name__}", source="vulkan")) from None
        self.queue = vk.vkGetDeviceQueue(self.handle, self.family, 0)
        self.memory_types = vk.vkGetPhysicalDeviceMemoryProperties(pd)
        self.pool = vk.vkCreateCommandPool(self.handle, vk.VkCommandPoolCreateInfo(queueFamilyIndex=self.family), None)

    def _feature_chain(self, pd, exts):
        """VkPhysicalDeviceFeatures2 with every feature the device reports switched on (as vkrun does),
        except robust buffer access, which only slows shaders down."""
        vk, ffi = self.vk, extra()
        head = vk.ffi.NULL
        ours = []
        if "VK_NV_cooperative_matrix2" in exts:
            ours.append(ffi.new("Coopmat2Features *", {"sType": 1000593000}))
        if "VK_KHR_shader_bfloat16" in exts:
            ours.append(ffi.new("Bfloat16Features *", {"sType": 1000141000}))
        if "VK_EXT_shader_float8" in exts:
            ours.append(ffi.new("Float8Features *", {"sType": 1000567000}))
        for a, b in zip(ours, ours[1:], strict=False):
            a.pNext = ffi.cast("void *", b)
        if ours:
            head = as_vk_pointer(ours[0])
        structs = []
        if "VK_KHR_cooperative_matrix" in exts:
            structs.append(("VkPhysicalDeviceCooperativeMatrixFeaturesKHR",
                            vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR))
        if "VK_NV_cooperative_matrix" in exts:
            structs.append(("VkPhysicalDeviceCooperativeMatrixFeaturesNV",
                            vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV))
        if "VK_KHR_workgroup_memory_explicit_layout" in exts:
            structs.append(("VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR",
                            vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_FEATURES_KHR))
        structs += [("VkPhysicalDeviceVulkan11Features", vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES),
                    ("VkPhysicalDeviceVulkan12Features", vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)]
        if self.props.apiVersion >= vk.VK_MAKE_VERSION(1, 3, 0):
            structs.append(("VkPhysicalDeviceVulkan13Features",
                            vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES))
        made = {}
        for name, st in structs:
            s = vk.ffi.new(name + " *", {"sType": st, "pNext": head})
            made[name] = s
            head = s
        f2 = vk.ffi.new("VkPhysicalDeviceFeatures2 *", {"sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                                      "pNext": head})
        vk.lib.vkGetPhysicalDeviceFeatures2(pd, f2)
        f2.features.robustBufferAccess = 0
        for name in ("VkPhysicalDeviceCooperativeMatrixFeaturesKHR", "VkPhysicalDeviceCooperativeMatrixFeaturesNV"):
            if name in made:
                made[name].cooperativeMatrixRobustBufferAccess = 0
        v12 = made["VkPhysicalDeviceVulkan12Features"]
        self.device_addresses = bool(v12.bufferDeviceAddress)
        v12.bufferDeviceAddressCaptureReplay = 0
        v12.bufferDeviceAddressMultiDevice = 0
        self._record_features(f2, made, ours)
        self._keep += [ours, made, f2]
        return f2

    def _record_features(self, f2, made: dict, ours: list) -> None:
        """self.features: what is enabled, under features.py's structure names, for the per-module check."""
        from .features import BF16, COOP2, COOP_KHR, COOP_NV, CORE10, FP8, V11, V12, V13
        vk, ffi = self.vk, extra()

        def fields(s, lib) -> dict[str, bool]:
            return {f: bool(getattr(s, f)) for f, _ in lib.typeof(s).item.fields if f not in ("sType", "pNext")}
        self.features[CORE10] = {f: bool(getattr(f2.features, f))
                                 for f, _ in vk.ffi.typeof("VkPhysicalDeviceFeatures").fields}
        short = {"VkPhysicalDeviceVulkan11Features": V11, "VkPhysicalDeviceVulkan12Features": V12,
                 "VkPhysicalDeviceVulkan13Features": V13, "VkPhysicalDeviceCooperativeMatrixFeaturesKHR": COOP_KHR,
                 "VkPhysicalDeviceCooperativeMatrixFeaturesNV": COOP_NV}
        for name, s in made.items():
            self.features[short.get(name, name)] = fields(s, vk.ffi)
        by_type = {1000593000: COOP2, 1000141000: BF16, 1000567000: FP8}
        for s in ours:
            self.features[by_type[s.sType]] = fields(s, ffi)

    def check_needs(self, module, source: str) -> None:
        """Refuse, by name, every feature or extension `module` needs that this device does not have, and every
        Subgroup-scope MulAdd configuration it does not report (before the driver's compiler sees it)."""
        from .features import module_needs, refuse_missing, unsupported_muladds
        refuse_missing(module_needs(module), self.features, self.extensions, self.props.deviceName, source)
        if any(i.opname in ("OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV")
               for i in module.instructions):
            bad = unsupported_muladds(module, *self.coopmat_configurations())
            if bad:
                raise SpvError(Diagnostic("error", f"{self.props.deviceName} reports no cooperative-matrix "
                                          f"configuration for {'; '.join(bad)} (`spvcoop device info` lists "
                                          "the ones it has)", source=source))

    def coopmat_configurations(self) -> tuple[list, list]:
        """The KHR and NV cooperative-matrix configurations the device reports (gpu/device.py's lists)."""
        info = self.instance.info(self.index)
        return info.coopmat_khr, info.coopmat_nv

    # ---- buffers ---------------------------------------------------------------------------------
    def _memory_types(self, bits: int) -> list[int]:
        """Host-visible coherent memory types for a buffer, device-local ones first: memory the GPU reads as its
        own (on an H200, Workgroup-scope tensor loads through device addresses into host memory never finished)."""
        vk = self.vk
        want = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        mt = self.memory_types
        ok = [i for i in range(mt.memoryTypeCount)
              if bits & (1 << i) and (mt.memoryTypes[i].propertyFlags & want) == want]
        if not ok:
            raise SpvError(Diagnostic("error", "the device has no host-visible coherent memory", source="vulkan"))
        local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
        return sorted(ok, key=lambda i: not mt.memoryTypes[i].propertyFlags & local)

    def buffer(self, size: int, uniform: bool = False):
        """(buffer, memory, size, device address or 0) of at least `size` bytes (16 at least), zeroed."""
        vk = self.vk
        size = max(16, (size + 15) // 16 * 16)
        usage = vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT if uniform else vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
        if self.device_addresses:
            usage |= 0x20000  # VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (None in the binding)
        buf = vk.vkCreateBuffer(self.handle, vk.VkBufferCreateInfo(size=size, usage=usage,
                                                                   sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        req = vk.vkGetBufferMemoryRequirements(self.handle, buf)
        flags = None
        if self.device_addresses:
            flags = vk.VkMemoryAllocateFlagsInfo(flags=0x2)  # VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
        types = self._memory_types(req.memoryTypeBits)
        for k, t in enumerate(types):
            try:
                mem = vk.vkAllocateMemory(self.handle, vk.VkMemoryAllocateInfo(
                    pNext=flags, allocationSize=req.size, memoryTypeIndex=t), None)
                break
            except (vk.VkErrorOutOfDeviceMemory, vk.VkErrorOutOfHostMemory):
                if k == len(types) - 1:   # a small device-local window (no resizable BAR): the next type
                    raise
        vk.vkBindBufferMemory(self.handle, buf, mem, 0)
        addr = 0
        if self.device_addresses:
            info = vk.ffi.new("VkBufferDeviceAddressInfo *", {
                "sType": vk.VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, "buffer": buf})
            addr = vk.lib.vkGetBufferDeviceAddress(self.handle, info)  # the binding's wrapper loses the result
        self.write(mem, bytes(size))
        return buf, mem, size, int(addr)

    def write(self, mem, data: bytes, offset: int = 0) -> None:
        if not data:
            return
        m = self.vk.vkMapMemory(self.handle, mem, offset, len(data), 0)
        m[:] = data
        self.vk.vkUnmapMemory(self.handle, mem)

    def read(self, mem, size: int) -> bytes:
        m = self.vk.vkMapMemory(self.handle, mem, 0, size, 0)
        out = bytes(m[:])
        self.vk.vkUnmapMemory(self.handle, mem)
        return out

    def free(self, buf, mem) -> None:
        if self.lost:   # a stuck dispatch may still use it
            return
        self.vk.vkDestroyBuffer(self.handle, buf, None)
        self.vk.vkFreeMemory(self.handle, mem, None)

    # ---- one dispatch ---------------------------------------------------------------------------
    def dispatch(self, code: bytes, entry: str, groups, buffers: dict, push: bytes = b"",
                 spec: Sequence[tuple[int, bytes]] = (), required_subgroup_size: int | None = None) -> None:
        """Run `code` (SPIR-V bytes) once. buffers: {(set, binding): (buffer, size, uniform)};
        spec: [(SpecId, value bytes)]."""
        vk, dev = self.vk, self.handle
        made = []   # (destroy function, handle), undone in reverse
        try:
            sm = vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(codeSize=len(code), pCode=code), None)
            made.append((vk.vkDestroyShaderModule, sm))
            sets = sorted({s for s, _ in buffers})
            layouts = []
            for s in range(max(sets) + 1 if sets else 0):
                lb = [vk.VkDescriptorSetLayoutBinding(
                    binding=b, descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                    descriptorType=vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER if u else vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
                      for (ss, b), (_, _, u) in sorted(buffers.items()) if ss == s]
                dsl = vk.vkCreateDescriptorSetLayout(dev, vk.VkDescriptorSetLayoutCreateInfo(
                    bindingCount=len(lb), pBindings=lb or None), None)
                made.append((vk.vkDestroyDescriptorSetLayout, dsl))
                layouts.append(dsl)
            ranges = [vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT, offset=0,
                                             size=(len(push) + 3) // 4 * 4)] if push else None
            pl = vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
                setLayoutCount=len(layouts), pSetLayouts=layouts or None,
                pushConstantRangeCount=1 if push else 0, pPushConstantRanges=ranges), None)
            made.append((vk.vkDestroyPipelineLayout, pl))
            spec_info = None
            if spec:
                entries, blob = [], b""
                for sid, val in spec:
                    entries.append(vk.VkSpecializationMapEntry(constantID=sid, offset=len(blob), size=len(val)))
                    blob += val
                spec_info = vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries,
                                                    dataSize=len(blob), pData=vk.ffi.from_buffer(blob))
            stage_next = None
            if required_subgroup_size:
                stage_next = vk.VkPipelineShaderStageRequiredSubgroupSizeCreateInfo(
                    requiredSubgroupSize=required_subgroup_size)
            stage = vk.VkPipelineShaderStageCreateInfo(pNext=stage_next, stage=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                                       module=sm, pName=entry, pSpecializationInfo=spec_info)
            try:
                pipe = vk.vkCreateComputePipelines(dev, vk.VK_NULL_HANDLE, 1,
                                                   [vk.VkComputePipelineCreateInfo(stage=stage, layout=pl)], None)[0]
            except (vk.VkError, vk.VkException) as e:
                raise SpvError(Diagnostic("error", f"the driver refused the pipeline: vkCreateComputePipelines "
                                          f"failed ({type(e).__name__})", source="vulkan")) from None
            made.append((vk.vkDestroyPipeline, pipe))
            sets_h = []
            if layouts:
                n_sb = sum(1 for v in buffers.values() if not v[2])
                n_ub = len(buffers) - n_sb
                sizes = [vk.VkDescriptorPoolSize(type=t, descriptorCount=max(1, n)) for t, n in
                         ((vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n_sb), (vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, n_ub))]
                dp = vk.vkCreateDescriptorPool(dev, vk.VkDescriptorPoolCreateInfo(
                    maxSets=len(layouts), poolSizeCount=len(sizes), pPoolSizes=sizes), None)
                made.append((vk.vkDestroyDescriptorPool, dp))
                sets_h = vk.vkAllocateDescriptorSets(dev, vk.VkDescriptorSetAllocateInfo(
                    descriptorPool=dp, descriptorSetCount=len(layouts), pSetLayouts=layouts))
                writes = [vk.VkWriteDescriptorSet(
                    dstSet=sets_h[s], dstBinding=b, dstArrayElement=0, descriptorCount=1,
                    descriptorType=vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER if u else vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                    # range: VK_WHOLE_SIZE (-1 in the binding)
                    pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=buf, offset=0, range=(1 << 64) - 1)])
                    for (s, b), (buf, _, u) in sorted(buffers.items())]
                vk.vkUpdateDescriptorSets(dev, len(writes), writes, 0, None)
            cb = vk.vkAllocateCommandBuffers(dev, vk.VkCommandBufferAllocateInfo(
                commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
            vk.vkBeginCommandBuffer(cb, vk.VkCommandBufferBeginInfo(
                flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
            vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipe)
            if sets_h:
                vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, len(sets_h), sets_h, 0, None)
            if push:
                padded = push + bytes(-len(push) % 4)
                vk.vkCmdPushConstants(cb, pl, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0, len(padded),
                                      vk.ffi.from_buffer(padded))
            vk.vkCmdDispatch(cb, *groups)
            barrier = vk.VkMemoryBarrier(srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT,
                                         dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)
            vk.vkCmdPipelineBarrier(cb, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.VK_PIPELINE_STAGE_HOST_BIT, 0,
                                    1, [barrier], 0, None, 0, None)
            vk.vkEndCommandBuffer(cb)
            fence = vk.vkCreateFence(dev, vk.VkFenceCreateInfo(), None)
            made.append((vk.vkDestroyFence, fence))
            try:
                vk.vkQueueSubmit(self.queue, 1, [vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[cb])],
                                 fence)
            except (vk.VkError, vk.VkException) as e:
                raise GpuFailure(_failure_text(type(e).__name__, self.timeout_s)) from None
            wait_for_fence(vk, dev, fence, self.timeout_s)
            vk.vkFreeCommandBuffers(dev, self.pool, 1, [cb])
        except GpuFailure:
            self.lost = True   # the dispatch may still run: destroying what it uses, or waiting, could hang
            raise
        finally:
            if not self.lost:
                for destroy, h in reversed(made):
                    destroy(dev, h, None)

    def close(self) -> None:
        if self.lost:
            # a stuck or lost device: the process's exit releases it. Destroying it, or its instance, waits for the
            # stuck dispatch (vkDestroyInstance blocked for good on an H200 after a VK_TIMEOUT), so both are left
            self.handle = None
            if self.owns_instance:
                self.instance.handle = None
            return
        if getattr(self, "handle", None) is not None:
            self.vk.vkDeviceWaitIdle(self.handle)
            self.vk.vkDestroyCommandPool(self.handle, self.pool, None)
            self.vk.vkDestroyDevice(self.handle, None)
            self.handle = None
        if self.owns_instance:
            self.instance.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

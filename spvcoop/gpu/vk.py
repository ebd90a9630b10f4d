"""The `vulkan` binding, imported on first use, plus the structures it lacks.

The PyPI `vulkan` package (cffi, generated from Vulkan 1.3.275 headers) loads the system's libvulkan.so.1
when imported and raises OSError when there is none. It predates VK_NV_cooperative_matrix2 and
VK_KHR_shader_bfloat16: those structures are declared here with our own cffi FFI (layouts from the Vulkan
registry's vk.xml) and their entry points are reached through vkGetInstanceProcAddr. Handles and pointers
cross between the two FFIs as integers.
"""
from __future__ import annotations

from . import GpuUnavailable

_VK = None

# VkStructureType values of extensions newer than the binding (extension number n: 1000000000 + (n-1)*1000)
ST_COOPMAT2_FLEX_PROPERTIES = 1000593001
ST_COOPMAT2_PROPERTIES = 1000593002
ST_COOPMAT_KHR_PROPERTIES = 1000506001
ST_COOPMAT_NV_PROPERTIES = 1000249001

_CDEF = """
typedef struct { uint32_t sType; void *pNext; uint32_t workgroupScope, flexibleDimensions, reductions, conversions,
    perElementOperations, tensorAddressing, blockLoads; } Coopmat2Features;
typedef struct { uint32_t sType; void *pNext; uint32_t workgroupScopeMaxWorkgroupSize,
    flexibleDimensionsMaxDimension, workgroupScopeReservedSharedMemory; } Coopmat2Properties;
typedef struct { uint32_t sType; void *pNext; uint32_t MGranularity, NGranularity, KGranularity;
    int32_t AType, BType, CType, ResultType; uint32_t saturatingAccumulation; int32_t scope;
    uint32_t workgroupInvocations; } Coopmat2FlexProperties;
typedef struct { uint32_t sType; void *pNext; uint32_t shaderBFloat16Type, shaderBFloat16DotProduct,
    shaderBFloat16CooperativeMatrix; } Bfloat16Features;
typedef struct { uint32_t sType; void *pNext; uint32_t shaderFloat8, shaderFloat8CooperativeMatrix; } Float8Features;
typedef struct { uint32_t sType; void *pNext; uint32_t MSize, NSize, KSize; int32_t AType, BType, CType,
    ResultType; uint32_t saturatingAccumulation; int32_t scope; } CoopmatPropertiesKHR;
typedef struct { uint32_t sType; void *pNext; uint32_t MSize, NSize, KSize; int32_t AType, BType, CType,
    DType; int32_t scope; } CoopmatPropertiesNV;
typedef int32_t (*PFN_flex)(void *physicalDevice, uint32_t *count, Coopmat2FlexProperties *props);
typedef int32_t (*PFN_coopKHR)(void *physicalDevice, uint32_t *count, CoopmatPropertiesKHR *props);
typedef int32_t (*PFN_coopNV)(void *physicalDevice, uint32_t *count, CoopmatPropertiesNV *props);
"""
_EXTRA = None


def vulkan():
    """The `vulkan` module; GpuUnavailable (one line) without the package or a Vulkan loader."""
    global _VK
    if _VK is None:
        try:
            import vulkan as vk
        except ImportError:
            raise GpuUnavailable("no GPU backend: the Python package 'vulkan' is not installed "
                                 "(pip install 'spvcoop[gpu]')") from None
        except OSError:
            raise GpuUnavailable("no Vulkan loader: libvulkan.so.1 was not found (install the Vulkan loader, "
                                 "or set LD_LIBRARY_PATH to a folder holding it)") from None
        _VK = vk
    return _VK


def extra():
    """Our FFI with the structures the binding lacks."""
    global _EXTRA
    if _EXTRA is None:
        from cffi import FFI
        ffi = FFI()
        ffi.cdef(_CDEF)
        _EXTRA = ffi
    return _EXTRA


def address(cdata) -> int:
    """The address behind a handle or pointer of either FFI."""
    vk = vulkan()
    try:
        return int(vk.ffi.cast("uintptr_t", cdata))
    except TypeError:
        return int(extra().cast("uintptr_t", cdata))


def as_vk_pointer(cdata):
    """A pointer of our FFI as a `void *` of the binding's (for pNext chains)."""
    return vulkan().ffi.cast("void *", int(extra().cast("uintptr_t", cdata)))


def proc(instance, name: str, pfn_type: str):
    """An instance-level entry point by name, as a function of our FFI; None where the loader has none."""
    vk = vulkan()
    fn = vk.lib.vkGetInstanceProcAddr(instance, name.encode())
    if fn == vk.ffi.NULL:
        return None
    return extra().cast(pfn_type, int(vk.ffi.cast("uintptr_t", fn)))

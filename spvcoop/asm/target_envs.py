"""The assembler's target environments and the version word each gives the header: a module of its own so that
`spvcoop as`'s parser lists them without importing the assembler (issue 33: the parser starts at once)."""
from __future__ import annotations

# --target-env -> version word (spirv-as 2025.5, measured)
TARGET_ENVS = {
    "universal1.0": 0x10000, "universal1.1": 0x10100, "universal1.2": 0x10200, "universal1.3": 0x10300,
    "universal1.4": 0x10400, "universal1.5": 0x10500, "universal1.6": 0x10600,
    "spv1.0": 0x10000, "spv1.1": 0x10100, "spv1.2": 0x10200, "spv1.3": 0x10300, "spv1.4": 0x10400,
    "spv1.5": 0x10500, "spv1.6": 0x10600,
    "vulkan1.0": 0x10000, "vulkan1.1": 0x10300, "vulkan1.1spv1.4": 0x10400, "vulkan1.2": 0x10500,
    "vulkan1.3": 0x10600, "vulkan1.4": 0x10600,
    "opencl1.2": 0x10000, "opencl1.2embedded": 0x10000, "opencl2.0": 0x10000, "opencl2.0embedded": 0x10000,
    "opencl2.1": 0x10000, "opencl2.1embedded": 0x10000, "opencl2.2": 0x10200, "opencl2.2embedded": 0x10200,
    "opengl4.0": 0x10000, "opengl4.1": 0x10000, "opengl4.2": 0x10000, "opengl4.3": 0x10000,
    "opengl4.5": 0x10000,
}

"""The GPU backend: Vulkan devices through the optional `vulkan` package (`pip install spvcoop[gpu]`).

- `vk.py`: importing the binding (a missing package or loader is `GpuUnavailable`, one line, exit 2) and
  the structures of extensions newer than the binding (VK_NV_cooperative_matrix2, VK_KHR_shader_bfloat16,
  VK_EXT_shader_float8), defined with cffi and called through vkGetInstanceProcAddr.
- `device.py`: instances, physical devices and their properties (`DeviceInfo`: subgroup sizes, the
  cooperative-matrix property lists of VK_KHR/NV_cooperative_matrix and VK_NV_cooperative_matrix2).
- `compute.py`: a logical device with every feature the device has, host-visible buffers with device
  addresses, one compute dispatch.
- `bindings.py` + `runner.py`: a run spec's buffers, push and specialization constants onto a Module's
  interface; `run_on_device` returns the interpreter's `RunResult`, so outputs are written alike.
- `profile.py`: a device's combinations as a validator profile (spvcoop/validator/profiles.py).
- `compare.py`: interpreter vs GPU outputs, per buffer (bit-identical, or count, max ulp, first index).
Nothing here imports the CLI; nothing outside `commands/` and the pytest plugin imports this package
unless the GPU is asked for.
"""
from __future__ import annotations

from ..core.diagnostics import Diagnostic, InputError


class GpuUnavailable(InputError):
    """No Vulkan package, loader or device: every GPU command says why in one line and exits 2."""

    def __init__(self, reason: str):
        super().__init__(Diagnostic("error", reason, source="vulkan"))
        self.reason = reason


def device_error(text: str) -> str | None:
    """Why `text` is not a --device value ('vulkan' or 'vulkan:N', N in ASCII digits), or None."""
    name, sep, index = text.partition(":")
    if name == "vulkan" and (not sep or (index.isascii() and index.isdigit() and len(index) <= 9)):
        return None
    from ..core.diagnostics import printable
    shown = printable(text[:40], keep_newlines=False) + ("..." if len(text) > 40 else "")
    return f"wants vulkan or vulkan:N (N a device index, see `spvcoop device list`), got '{shown}'"


def parse_device(text: str) -> int:
    """'vulkan' or 'vulkan:N' -> the physical device index N (0 by default)."""
    reason = device_error(text)
    if reason is not None:
        raise InputError(Diagnostic("error", f"--device {reason}", source="vulkan"))
    return int(text.partition(":")[2] or 0)

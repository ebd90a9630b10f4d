"""A fake Vulkan binding and a compute.Device over it, for the GPU runner without a GPU (CI has none): shared by
the tests of gpu/ (tests/gpu/test_gpu_backend.py) and of the stages whose data or probes go through the GPU runner
(tests/interp/test_binding_views.py, tests/runspec/test_encoded_data.py, tests/numerics/test_numerics_compiled.py)."""
from __future__ import annotations

from spvcoop.gpu import compute


class VkException(Exception):
    pass


class VkError(Exception):
    pass


class VkTimeout(VkException):
    pass


class VkErrorDeviceLost(VkError):
    pass


class Anything:
    """Any handle, structure or constant of the fake Vulkan binding."""

    def __getattr__(self, name):
        return self

    def __call__(self, *a, **k):
        return self

    def __getitem__(self, i):
        return self

    def __len__(self):
        return 1


class FakeVk(Anything):
    """The calls a dispatch makes; vkWaitForFences (or vkQueueSubmit) fails as asked and records its timeout."""
    VkError, VkException = VkError, VkException

    def __init__(self, fail=None, fail_at="vkWaitForFences"):
        self.fail, self.fail_at, self.calls, self.waits = fail, fail_at, [], []

    def __getattr__(self, name):
        if name.startswith("vk"):
            def call(*a, **k):
                self.calls.append(name)
                if name == "vkWaitForFences":
                    self.waits.append(a[4])
                if name == self.fail_at and self.fail is not None:
                    raise self.fail()
                return Anything()
            return call
        return Anything()


class FakeDevice(compute.Device):
    """compute.Device over FakeVk: buffers are bytes with made-up device addresses; everything is supported
    unless `features` says otherwise."""

    def __init__(self, vk, timeout_s=compute.DEFAULT_TIMEOUT_S, features=None, extensions=None):
        self.vk, self.timeout_s, self.lost = vk, timeout_s, False
        self.handle = self.queue = self.pool = object()
        self.owns_instance = False
        self.props = type("Props", (), {"deviceName": "Fake GPU"})()
        self.features = features if features is not None else _ALL
        self.extensions = extensions if extensions is not None else _ALL
        self.mem: dict[int, bytearray] = {}
        self.freed: list[int] = []
        self.dispatched: list = []

    def coopmat_configurations(self):
        """An H100's Subgroup-scope KHR list (f16 and bf16 rows of `vkrun info`)."""
        khr = [dict(M=16, N=n, K=k, A=a, B=a, C=c, Result=c, scope="Subgroup")
               for n, k in ((16, 16), (8, 16), (8, 8)) for a in ("f16",) for c in ("f16", "f32")]
        khr.append(dict(M=16, N=16, K=16, A="bf16", B="bf16", C="f32", Result="f32", scope="Subgroup"))
        return khr, []

    def buffer(self, size, uniform=False):
        addr = 0x10000 * (len(self.mem) + 1)
        self.mem[addr] = bytearray(max(16, size))
        return addr, addr, size, addr

    def write(self, mem, data, offset=0):
        self.mem[mem][offset:offset + len(data)] = data

    def read(self, mem, size):
        return bytes(self.mem[mem][:size])

    def free(self, buf, mem):
        if not self.lost:
            self.freed.append(mem)

    def dispatch(self, code, entry, groups, buffers, push=b"", spec=(), required_subgroup_size=None):
        self.dispatched.append((buffers, push))
        super().dispatch(code, entry, groups, buffers, push, spec, required_subgroup_size)


class _Everything(dict):
    def get(self, k, default=None):
        return self

    def __contains__(self, k):
        return True

    def __bool__(self):
        return True


_ALL = _Everything()

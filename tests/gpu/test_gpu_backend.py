"""The GPU backend without a GPU: the Vulkan layer replaced by a fake (CI has no device). Every wait has a
timeout, VK_TIMEOUT and VK_ERROR_DEVICE_LOST are one line and exit 1 and leave the device alone, '&name'
pointer values become the named buffers' device addresses, and a module's features are refused by name."""
from __future__ import annotations


import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.gpu import compute
from spvcoop.gpu.features import module_needs, refuse_missing
from spvcoop.loader import load_shader
from conftest import DATA, REPO
from gpu_fakes import FakeDevice, FakeVk, VkErrorDeviceLost, VkTimeout

ROOT = REPO


def _saxpy(dev, **kw):
    from spvcoop.gpu.runner import run_on_device
    return run_on_device(ROOT / "samples" / "saxpy" / "saxpy.spvasm", device=dev,
                         buffers={"x": np.arange(8, dtype=np.float32), "y": np.ones(8, np.float32)},
                         push_constants={"a": 2.0, "n": 8}, **kw)


@pytest.mark.parametrize("fail, fail_at, words", [
    (VkTimeout, "vkWaitForFences", ["within 2.5 s", "VK_TIMEOUT", "--gpu-timeout"]),
    (VkErrorDeviceLost, "vkWaitForFences", ["VK_ERROR_DEVICE_LOST"]),
    (VkErrorDeviceLost, "vkQueueSubmit", ["VK_ERROR_DEVICE_LOST"])])
def test_a_stuck_or_lost_dispatch_is_one_line_and_leaves_the_device_alone(fail, fail_at, words):
    vk = FakeVk(fail, fail_at)
    dev = FakeDevice(vk)
    with pytest.raises(compute.GpuFailure) as e:
        _saxpy(dev, timeout_s=2.5)
    d = e.value.diagnostics[0]
    assert e.value.exit_status == 1 and "\n" not in d.message
    assert all(w in d.message for w in words), d.message
    assert dev.lost and dev.freed == []          # buffers a stuck dispatch may still use are not freed
    destroyed = [c for c in vk.calls if c.startswith("vkDestroy") or c == "vkDeviceWaitIdle"]
    closed = []
    dev.owns_instance = True                     # as run_on_device's own Device: the instance is left alone too
    dev.instance = type("Inst", (), {"handle": object(), "close": lambda self: closed.append(self)})()
    dev.close()
    assert destroyed == [] and [c for c in vk.calls if c.startswith("vkDestroy") or c == "vkDeviceWaitIdle"] == []
    assert closed == [] and dev.instance.handle is None
    if fail_at == "vkWaitForFences":
        assert vk.waits == [2_500_000_000]


def test_every_wait_has_the_default_timeout():
    vk = FakeVk()
    dev = FakeDevice(vk)
    res = _saxpy(dev)
    assert vk.waits == [int(compute.DEFAULT_TIMEOUT_S * 1e9)] and not dev.lost
    assert sorted(dev.freed) == sorted(dev.mem)      # a finished dispatch frees its buffers
    assert "vkDestroyFence" in vk.calls
    assert res is not None


def test_run_gpu_timeout_is_one_line_exit_1(monkeypatch, capsys):
    from spvcoop.cli import main
    made = []

    def fake_init(self, index=0, instance=None, timeout_s=compute.DEFAULT_TIMEOUT_S):
        FakeDevice.__init__(self, FakeVk(VkTimeout), timeout_s)
        made.append(self)
    monkeypatch.setattr(compute.Device, "__init__", fake_init)
    monkeypatch.setattr(compute.Device, "buffer", FakeDevice.buffer)
    monkeypatch.setattr(compute.Device, "write", FakeDevice.write)
    monkeypatch.setattr(compute.Device, "read", FakeDevice.read)
    rc = main(["run", str(ROOT / "samples" / "saxpy" / "run.yaml"), "--device", "vulkan", "--gpu-timeout", "0.25"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1, err
    assert "error: the dispatch did not finish within 0.25 s (VK_TIMEOUT" in err[0]
    assert made[0].vk.waits == [250_000_000]


def test_gpu_timeout_must_be_positive(capsys):
    from spvcoop.cli import main
    with pytest.raises(SystemExit) as e:
        main(["run", str(ROOT / "samples" / "saxpy" / "run.yaml"), "--device", "vulkan", "--gpu-timeout", "0"])
    assert e.value.code == 2 and "--gpu-timeout" in capsys.readouterr().err


def test_pointer_values_are_the_named_buffers_addresses():
    """A uniform block of four buffer_reference pointers ('&matA' ...), as vk_cooperative_matrix_perf passes
    its matrices: the block holds the addresses of the buffers those names were given to."""
    import yaml
    from spvcoop.gpu.runner import run_on_device
    k = ROOT / "tests" / "kernels" / "cmperf_khr_tiled"
    spec = yaml.safe_load((k / "run_fp16_fp32.yaml").read_text())
    bufs = {n: np.load(k / v["file"]) for n, v in spec["buffers"].items() if "file" in v}
    bufs["matD"] = np.zeros(4096, np.float32)
    bufs["params"] = spec["buffers"]["params"]
    dev = FakeDevice(FakeVk())
    res = run_on_device(k / "fp16_fp32.spvasm", dispatch=spec["dispatch"], buffers=bufs, device=dev,
                        spec_constants=spec["spec_constants"])
    (bound, push), = dev.dispatched
    params = np.frombuffer(dev.read(bound[(0, 0)][0], 32), "<u8")
    assert list(params) == [res.addresses[n] for n in ("matA", "matB", "matC", "matD")]
    assert len(set(params)) == 4 and all(params)
    # the pointed-to buffers hold their data
    assert dev.read(res.addresses["matA"], bufs["matA"].nbytes) == bufs["matA"].tobytes()


def test_pointer_in_push_constants_and_a_buffer_named_by_its_block():
    """'&name' may name a bound buffer by any name the run spec used for it (here its block's member)."""
    from spvcoop.gpu.runner import run_on_device
    dev = FakeDevice(FakeVk())
    data = np.arange(16, dtype=np.uint32)
    res = run_on_device(ROOT / "tests" / "data" / "gpu_bda.spvasm", device=dev,
                        buffers={"src": data, "o": np.zeros(16, np.uint32)}, push_constants={"p": "&o"})
    (_, push), = dev.dispatched
    assert int(np.frombuffer(push[:8], "<u8")[0]) == res.addresses["o"] == res.addresses["Out"] != 0


def test_needs_of_a_module_are_named():
    m = load_shader(ROOT / "samples" / "coopmat2" / "tensor_gemm" / "gemm.spvasm")
    needs = {(n.struct, n.name): n.why for n in module_needs(m)}
    assert needs[("coopmat2", "workgroupScope")] == "a Workgroup-scope cooperative matrix"
    assert needs[("Vulkan12", "vulkanMemoryModel")] == "capability VulkanMemoryModel"
    assert needs[("cooperativeMatrixKHR", "cooperativeMatrix")] == "capability CooperativeMatrixKHR"
    assert needs[("", "VK_NV_cooperative_matrix2")].startswith("extension SPV_NV_")
    sub = load_shader(ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm")
    assert ("coopmat2", "workgroupScope") not in {(n.struct, n.name) for n in module_needs(sub)}


def test_a_missing_feature_is_refused_by_name_before_dispatch():
    from spvcoop.gpu.runner import run_on_device
    m = load_shader(ROOT / "samples" / "coopmat2" / "tensor_gemm" / "gemm.spvasm")
    feats: dict = {}
    for n in module_needs(m):
        feats.setdefault(n.struct, {})[n.name] = True
    exts = {n.name for n in module_needs(m) if not n.struct}
    refuse_missing(module_needs(m), feats, exts, "GPU", "gemm")    # all there: nothing refused
    feats["coopmat2"]["workgroupScope"] = False
    with pytest.raises(SpvError, match=r"GPU lacks what the module needs: feature "
                                       r"cooperativeMatrixWorkgroupScope \(VK_NV_cooperative_matrix2\), needed by a "
                                       r"Workgroup-scope cooperative matrix$"):
        refuse_missing(module_needs(m), feats, exts, "GPU", "gemm")
    vk = FakeVk()
    dev = FakeDevice(vk, features={"Vulkan12": {"shaderFloat16": True}}, extensions={"VK_KHR_cooperative_matrix"})
    with pytest.raises(SpvError) as e:
        run_on_device(ROOT / "tests" / "kernels" / "flash_attn" / "flash_attn.spvasm", device=dev,
                      spec_constants={}, push_constants={"S": 16, "scale": 0.25})
    assert not dev.dispatched and vk.calls == [] and e.value.exit_status == 1
    msg = e.value.diagnostics[0].message
    assert msg.startswith("Fake GPU lacks what the module needs: ") and "\n" not in msg
    assert "feature cooperativeMatrix (cooperativeMatrixKHR), needed by capability CooperativeMatrixKHR" in msg
    assert "feature vulkanMemoryModel (Vulkan12), needed by capability VulkanMemoryModel" in msg
    assert "shaderFloat16" not in msg and "extension VK_KHR_cooperative_matrix" not in msg


def test_workgroup_probe_reads_back_the_layout_it_runs_under():
    """The Workgroup-scope probe, run by the interpreter under the nvidia model, measures that model's layout
    (invocation p = local invocation index, the whole workgroup's matrix)."""
    from spvcoop import assemble
    from spvcoop.interp import run
    from spvcoop.layouts import load_model
    from spvcoop.layouts.probe import import_buffer, probe_inputs, probe_shader
    nv = load_model("nvidia")
    for W, comp, r, c, use in ((128, "f32", 32, 32, "acc"), (64, "f16", 16, 32, "a"), (256, "u8", 32, 32, "b")):
        text = probe_shader("khr", comp, r, c, use, W, scope="Workgroup")
        assert f"LocalSize {W} 1 1" in text and "LocalInvocationIndex" in text
        row, col = probe_inputs(comp, r, c)
        res = run(assemble(text, "probe", target_env="vulkan1.3"), layout="nvidia",
                  buffers={(0, 0): row, (0, 1): col, (0, 2): np.zeros(W + 2 * W * r * c, np.uint32)})
        lanes = import_buffer(np.frombuffer(res.raw((0, 2)), "<u4"), r, c, W)
        want = [[None if x is None else list(x) for x in lane] for lane in nv.layout(comp, r, c, use, W).lanes()]
        assert lanes == want, (W, comp, use)


def test_workgroup_types_come_from_the_flexible_list():
    import json

    from spvcoop.gpu.device import DeviceInfo
    from spvcoop.gpu.layouts import workgroup_types
    raw = json.loads((ROOT / "tests" / "data" / "h100-vulkan" / "workgroup" / "device-info.json").read_text())
    info = DeviceInfo(**raw)
    types = workgroup_types(info, (64, 128, 256))
    assert len(types) == 66 and {t[5] for t in types} == {64, 128, 256}
    assert ("khr", "f32", 64, 64, "acc", 256) in types and ("khr", "bf16", 16, 16, "a", 64) in types
    assert workgroup_types(info, (32,)) and not workgroup_types(info, (512,))


def test_numpy_data_of_another_dtype_reaches_the_device_by_value():
    """As on the CPU (issue 21): float64 data for a float buffer is converted where exact, else refused; its
    bytes reinterpreted as float32 would be wrong numbers with exit status 0."""
    from spvcoop import SpvError
    from spvcoop.gpu.runner import run_on_device
    dev = FakeDevice(FakeVk())
    x = np.arange(64, dtype=np.float64)
    run_on_device(ROOT / "samples" / "saxpy" / "saxpy.spvasm", device=dev, dispatch=(1, 1, 1),
                  buffers={"x": x, "y": np.zeros(64, np.float32)}, push_constants={"a": 2.0, "n": 64})
    (bound, _), = dev.dispatched
    sent = np.frombuffer(dev.read(bound[(0, 0)][0], 256), np.float32)
    assert list(sent) == list(range(64))
    with pytest.raises(SpvError, match="value 0.1 at index \\[0\\] \\(float64\\) has no exact value in float32"):
        run_on_device(ROOT / "samples" / "saxpy" / "saxpy.spvasm", device=FakeDevice(FakeVk()),
                      buffers={"x": np.full(64, 0.1), "y": np.zeros(64, np.float32)},
                      push_constants={"a": 2.0, "n": 64})


def test_variables_sharing_a_binding_are_one_buffer_given_the_datas_view():
    """glslang declares `layout(buffer_reference) buffer Data {...} data;` as an unused StorageBuffer variable at
    (0, 0), beside the uniform block of pointers that sits there (vk_cooperative_matrix_perf's kernels do this).
    One buffer is bound there, a uniform buffer holding the pointers: a buffer per variable used to bind the
    last one (zeros), and the GPU dereferenced null pointers until the timeout."""
    from spvcoop.gpu.runner import run_on_device
    from spvcoop.loader import compile_glsl_text
    src = """#version 450
#extension GL_EXT_buffer_reference : require
layout(buffer_reference) buffer Data { uint x[]; } data;
layout(set = 0, binding = 0) uniform Params { Data data; } params;
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(local_size_x = 1) in;
void main() { Data d = params.data; o[0] = d.x[0]; }
"""
    module = compile_glsl_text(src, "bda_alias.comp")
    shared = [i for i in module.instructions if i.opname == "OpDecorate" and i.operands[1].value == 33]
    assert len([i for i in shared if i.operands[2].value == 0]) >= 2     # two variables at binding 0
    dev = FakeDevice(FakeVk())
    res = run_on_device(module, device=dev, buffers={"params": {"data": "&a"}, "a": np.array([7, 8], np.uint32),
                                                     "Out": np.zeros(1, np.uint32)})
    (buffers, _push), = dev.dispatched
    buf0, _size, uniform = buffers[(0, 0)]
    assert uniform
    assert int.from_bytes(dev.mem[buf0][:8], "little") == res.addresses["a"] != 0


def test_a_muladd_configuration_the_device_lacks_is_refused_before_dispatch():
    """A 4x8x4 KHR MulAdd (tests/kernels/small_tiles) made an H200's driver die of SIGFPE in its compiler: refused
    by name, in one line, before anything is created on the device."""
    from spvcoop.core.diagnostics import SpvError
    from spvcoop.gpu.runner import run_on_device
    vk = FakeVk()
    dev = FakeDevice(vk)
    k = ROOT / "tests" / "kernels" / "small_tiles"
    with pytest.raises(SpvError) as e:
        run_on_device(k / "small_tiles.spvasm", device=dev, dispatch=(4, 1, 1),
                      buffers={"a": np.load(k / "in_a.npy"), "b": np.load(k / "in_b.npy"),
                               "bias": np.load(k / "in_bias.npy"), "c": np.zeros(64, np.float32)})
    msg = e.value.diagnostics[0].message
    assert "4x4x8 f16 x f16 + f32 -> f32" in msg and "\n" not in msg, msg
    assert dev.dispatched == [] and "vkCreateComputePipelines" not in vk.calls
    # a configuration the device has goes through
    run_on_device(ROOT / "tests" / "kernels" / "cmperf_khr_tiled" / "fp16_fp32.spvasm", device=dev,
                  dispatch=(1, 1, 1), validate=False)
    assert dev.dispatched


def test_array_lengths_from_spec_constant_expressions():
    """A buffer's array sized by a spec-constant expression (`float16_t v[R * C]`, an OpSpecConstantOp) is sized as
    the interpreter sizes it, spec constants applied: the runner refused it ('the length of f16[0] is not a plain
    constant', the length shown unset) and left such lengths elsewhere at whatever they were."""
    from spvcoop.gpu.runner import run_on_device
    shader = DATA / "sicompat" / "peer" / "coop-matrix-arg-and-return" / "shader.comp"
    for (r, c), spec in (((16, 16), {0: 32}), ((8, 16), {0: 32, 1: 8})):
        dev = FakeDevice(FakeVk())
        data = np.arange(r * c, dtype=np.float16)
        res = run_on_device(shader, buffers={"data": data}, spec_constants=spec, device=dev)
        (bound, _), = dev.dispatched
        assert bound[(0, 0)][1] == r * c * 2   # the buffer's size
        assert res.buffers[(0, 0)].tolist() == data.tolist()   # the fake device runs nothing
    with pytest.raises(SpvError, match="no specialization constant 'K'"):   # refused as the interpreter refuses it
        run_on_device(shader, buffers={"data": data}, spec_constants={"K": 2}, device=FakeDevice(FakeVk()))

"""Tests on a real Vulkan device (marked gpu; skipped with the reason where there is none). On an H100 they are
the acceptance of the GPU loop: profile, layouts, fitted numerics on fresh tiles, run --compare-interpreter."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO

ROOT = REPO
pytestmark = pytest.mark.gpu


def _bits(x):
    return x.view(f"u{x.dtype.itemsize}")


def test_saxpy_on_the_gpu_equals_the_interpreter(spvcoop_gpu):
    from spvcoop.interp import run
    x = np.arange(64, dtype=np.float32)
    kw = dict(buffers={"x": x, "y": np.ones(8, np.float32)}, push_constants={"a": 2.0, "n": 8})
    gpu = spvcoop_gpu(ROOT / "samples" / "saxpy" / "saxpy.spvasm", **kw)
    cpu = run(ROOT / "samples" / "saxpy" / "saxpy.spvasm", **kw)
    assert (gpu["y"] == cpu["y"]).all() and (gpu["y"] == 2 * x[:8] + 1).all()


def test_device_addresses_reach_the_shader(spvcoop_gpu):
    """A buffer reached only through its address in a push constant (PhysicalStorageBuffer)."""
    shader = ROOT / "tests" / "data" / "gpu_bda.spvasm"
    data = np.arange(16, dtype=np.uint32)
    res = spvcoop_gpu(shader, buffers={"src": data, (0, 0): np.zeros(16, np.uint32)}, push_constants={"p": "&src"})
    assert (res[(0, 0)] == data * 2).all()


def test_profile_equals_builtin(spvcoop_gpu_device, tmp_path):
    from profile_compare import same_combinations
    from spvcoop.gpu.profile import profile_yaml
    from spvcoop.validator.profiles import load_profile
    info = spvcoop_gpu_device.instance.info(spvcoop_gpu_device.index)
    if "H100" not in info.name:
        pytest.skip(f"the built-in profile is an H100's; this is {info.name}")
    p = tmp_path / "gpu.yaml"
    p.write_text(profile_yaml(info, "gpu"))
    assert same_combinations(load_profile(str(p)), load_profile("nvidia-h100")) == []


def test_layout_measure_equals_nvidia(spvcoop_gpu_device):
    from spvcoop.gpu.layouts import measure
    from spvcoop.layouts import load_model
    info = spvcoop_gpu_device.instance.info(spvcoop_gpu_device.index)
    if info.vendor_id != 0x10DE:
        pytest.skip("the nvidia model is NVIDIA's")
    entries, skipped = measure(spvcoop_gpu_device, info)
    nv = load_model("nvidia")
    assert entries and not skipped
    for e in entries:
        lay = nv.layout(e["component"], e["rows"], e["cols"], e["use"])
        assert [[None if x is None else list(x) for x in lane] for lane in lay.lanes()] == e["lanes"], e["name"]


def test_layout_measure_workgroup_equals_nvidia(spvcoop_gpu_device):
    from spvcoop.gpu.layouts import measure
    from spvcoop.layouts import load_model
    info = spvcoop_gpu_device.instance.info(spvcoop_gpu_device.index)
    if info.vendor_id != 0x10DE or not info.flexible:
        pytest.skip("the nvidia model's Workgroup-scope entries are NVIDIA's (VK_NV_cooperative_matrix2)")
    entries, skipped = measure(spvcoop_gpu_device, info, workgroup=(64, 128, 256))
    nv = load_model("nvidia")
    assert entries and not skipped
    for e in entries:
        lay = nv.layout(e["component"], e["rows"], e["cols"], e["use"], e["subgroup_size"])
        assert [[None if x is None else list(x) for x in lane] for lane in lay.lanes()] == e["lanes"], e["name"]


def test_tensorcore_model_on_fresh_stress_tiles(spvcoop_gpu_device):
    """Fresh tiles (seeds no fit has seen) of every distribution and combination: 100% bit-identical."""
    from spvcoop.gpu.numerics import combinations, run_tiles
    from spvcoop.numerics.fit import Sample, predict
    from spvcoop.numerics.model import NVIDIA_TENSORCORE
    from spvcoop.numerics.tiles import distributions, make_tiles
    info = spvcoop_gpu_device.instance.info(spvcoop_gpu_device.index)
    if "H100" not in info.name:
        pytest.skip("nvidia-tensorcore is an H100's model")
    for combo in combinations(info):
        for i, dist in enumerate(distributions(combo[0])):
            A, B, C = make_tiles(*combo, dist, 64, seed=1000 + i)
            D = run_tiles(spvcoop_gpu_device, combo, A, B, C)
            s = Sample(*combo, dist, A, B, C, D)
            assert (_bits(predict(NVIDIA_TENSORCORE, s)) == _bits(D)).all(), (combo, dist)


@pytest.mark.parametrize("sample", ["khr_gemm", "nv_gemm", "int8_gemm", "shared_gemm", "elementwise", "nonportable"])
def test_run_compare_is_bit_identical(spvcoop_gpu_device, sample):
    if not spvcoop_gpu_device.instance.info(spvcoop_gpu_device.index).coopmat_khr:
        pytest.skip("the device has no cooperative matrices")
    p = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(ROOT / "samples" / "coopmat" / sample / "run.yaml"),
                        "--device", "vulkan", "--compare-interpreter", "--layout", "nvidia", "--coop-numerics",
                        "nvidia-tensorcore"], capture_output=True, text=True)
    assert p.returncode == 0 and "bit-identical" in p.stdout, p.stdout + p.stderr

"""The GPU loop tested everywhere: against what an H100 recorded through spvcoop's Vulkan backend
(tests/data/h100-vulkan/vulkan-loop, see its README), and the comparison and profile logic on their own."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from spvcoop.gpu.compare import compare_outputs, diff_arrays, ulp_distance
from spvcoop.gpu.device import DeviceInfo
from spvcoop.gpu.layouts import device_types
from spvcoop.gpu.numerics import load_measurement
from profile_compare import same_combinations
from spvcoop.gpu.profile import profile_yaml
from spvcoop.numerics.fit import integer_muladd, samples_from_tiles
from spvcoop.numerics.model import NVIDIA_TENSORCORE, muladd
from spvcoop.validator.profiles import load_profile
from conftest import TESTS

DATA = TESTS / "data" / "h100-vulkan" / "vulkan-loop"


def _info() -> DeviceInfo:
    return DeviceInfo(**json.loads((DATA / "device-info.json").read_text()))


def _bits(x):
    return x.view(f"u{x.dtype.itemsize}")


# ---- device info and profile ------------------------------------------------------------------------------
def test_recorded_info_is_the_h100():
    info = _info()
    assert info.name == "NVIDIA H100 80GB HBM3" and info.subgroup_size == 32
    assert len(info.coopmat_khr) == 11 and len(info.coopmat_nv) == 10
    assert info.coopmat2["flexibleDimensionsMaxDimension"] == 1024
    assert info.coopmat2["features"]["workgroupScope"] is True
    assert len(info.flexible) == 25 and {f["workgroupInvocations"] for f in info.flexible} == {0, 32, 64, 128, 256}


def test_profile_of_the_recorded_info_equals_the_builtin(tmp_path):
    p = tmp_path / "h100.yaml"
    p.write_text(profile_yaml(_info(), "nvidia-h100"))
    assert same_combinations(load_profile(str(p)), load_profile("nvidia-h100")) == []
    assert p.read_text() == (DATA / "profile.yaml").read_text()   # what the command wrote on the H100


def test_profile_comparison_sees_a_missing_combination(tmp_path):
    info = _info()
    info.coopmat_khr = info.coopmat_khr[:-1]    # drop bf16
    p = tmp_path / "less.yaml"
    p.write_text(profile_yaml(info, "less"))
    diff = same_combinations(load_profile(str(p)), load_profile("nvidia-h100"))
    assert len(diff) == 1 and "bf16" in diff[0]


# ---- layouts ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_measured_layouts_equal_the_nvidia_model():
    from spvcoop.layouts import load_model
    measured, nvidia = load_model(str(DATA / "layout-measured.yaml")), load_model("nvidia")
    types = measured.types()
    # the 36 types the driver's lists imply, and nv f16 8x16 (`--also nv:f16:8x16`: the earlier measurement's 37th)
    assert len(types) == 37 and len(device_types(_info())) == 36
    for t in types:
        a, b = measured.layout(*t), nvidia.layout(*t)
        assert (a.row == b.row).all() and (a.col == b.col).all(), t


@pytest.mark.slow
def test_measured_layouts_equal_the_earlier_vkrun_measurement():
    from spvcoop.layouts import load_model
    old = json.loads((DATA.parent / "layouts.json").read_text())
    measured = load_model(str(DATA / "layout-measured.yaml"))
    seen = 0
    for key, e in old.items():
        use = {"A": "a", "B": "b", "C": "acc"}.get(key.rsplit("_", 1)[-1]) if e["api"] == "khr" else None
        if not measured.defines(e["type"], e["rows"], e["cols"], use):
            continue
        lay = measured.layout(e["type"], e["rows"], e["cols"], use)
        for lane, pairs in enumerate(e["map"]):
            assert [list(x) for x in lay.lanes()[lane]] == pairs
        seen += 1
    assert seen == 37 == len(old)   # every type of the earlier measurement


def test_samples_were_bit_identical_on_the_gpu():
    text = (DATA / "run-compare.txt").read_text()
    assert text.count("# exit 0") == 8 and "differ" not in text


# ---- numerics ---------------------------------------------------------------------------------------------
def test_tensorcore_model_reproduces_every_recorded_tile():
    samples = samples_from_tiles(load_measurement(DATA / "muladd-tiles.npz")[0])
    assert len(samples) == 11 * 2 * 6 - 4 * 2 * 4    # float combos: 6 distributions, integer ones: 2
    for s in samples:
        got = muladd(NVIDIA_TENSORCORE, s.A, s.B, s.C, s.D.dtype, s.a, s.b) if s.is_float else integer_muladd(s)
        assert (_bits(got) == _bits(s.D)).all(), (s.combo, s.dist)


def test_subnormal_inputs_align_with_their_stored_exponent():
    """The known gap: a single K=16 MulAdd with subnormal f16 inputs. The rule that aligned with a subnormal's
    true exponent (the model before 2026-11-25) differs from the H100; the stored exponent (-14) agrees."""
    old_rule = NVIDIA_TENSORCORE.with_(subnormal_inputs="true")
    for s in samples_from_tiles(load_measurement(DATA / "subnormal-k16.npz")[0]):
        if s.D.dtype != np.float32:
            continue
        new = muladd(NVIDIA_TENSORCORE, s.A, s.B, s.C, np.float32)
        old = muladd(old_rule, s.A, s.B, s.C, np.float32)
        assert (_bits(new) == _bits(s.D)).all()
        assert (_bits(old) != _bits(s.D)).any()


def test_numerics_measure_on_the_h100_fitted_nvidia_tensorcore():
    """What `spvcoop numerics measure` wrote on the H100: the family instance nvidia-tensorcore, 100% agreement on
    the fitted and on fresh tiles of every distribution, nothing left unidentified."""
    import yaml

    from spvcoop.numerics.fit import load_model_file
    # recorded before numerics measure ran the per-element and conversion probes: the MulAdd parameters only
    assert load_model_file(str(DATA / "numerics-measured.yaml")).muladd_params() == NVIDIA_TENSORCORE.muladd_params()
    doc = yaml.safe_load((DATA / "numerics-measured.yaml").read_text())
    assert doc["not_identified"] == []
    for part in ("agreement_fit", "agreement_fresh"):
        eq, n = doc[part]["total"].split("/")
        assert eq == n and int(n) > 500_000
        assert all(v.split("/")[0] == v.split("/")[1]
                   for dists in doc[part]["per_combination"].values() for v in dists.values())


def test_interpreter_runs_the_probe_shader_like_the_gpu():
    """The MulAdd probe shader through the interpreter (--coop-numerics nvidia-tensorcore) gives the recorded D."""
    from spvcoop.interp import run
    from spvcoop.numerics.shader import muladd_shader
    from spvcoop.numerics.tiles import to_bytes
    from spvcoop.asm.assembler import assemble
    data = load_measurement(DATA / "subnormal-k16.npz")[0]
    for combo, per in data.items():
        a, b, c, M, N, K = combo
        A, B, C, D = per[("subnormal", 1)]
        A, B, C, D = A[:4], B[:4], C[:4], D[:4]
        mod = assemble(muladd_shader(a, b, c, M, N, K), "probe", target_env="vulkan1.3")
        res = run(mod, dispatch=(4, 1, 1), layout="nvidia", coop_numerics="nvidia-tensorcore", validate=False,
                  buffers={(0, 0): to_bytes(a, A), (0, 1): to_bytes(b, B), (0, 2): to_bytes(c, C),
                           (0, 3): bytes(D.nbytes)})
        assert res.raw((0, 3)) == D.tobytes()


# ---- comparison -------------------------------------------------------------------------------------------
def test_ulp_distance():
    a = np.array([1.0, 1.0, 0.0, -0.0, 1.0, np.nan], np.float32)
    b = np.array([1.0, np.nextafter(np.float32(1), np.float32(2)), -0.0, np.float32(1e-45), 2.0, 1.0], np.float32)
    d = ulp_distance(a, b)
    assert list(d[:5]) == [0, 1, 0, 1, 1 << 23] and d[5] == np.inf
    h = np.array([65504], np.float16)
    assert ulp_distance(h, np.array([np.inf], np.float16))[0] == 1


def test_diff_arrays_reports_count_ulp_and_first_index():
    a = np.arange(8, dtype=np.float32)
    b = a.copy()
    b[3] = np.nextafter(b[3], np.float32(9))
    b[6] = 6.5
    d = diff_arrays("c", a, b)
    assert (d.count, d.first, d.a_value, d.b_value) == (2, 3, 3.0, float(b[3]))
    assert d.max_ulp == 2 ** 20     # 6 -> 6.5: 0.5 / 2^-21
    assert "2 of 8 elements differ" in d.text("interpreter", "vulkan")
    assert diff_arrays("c", a, a.copy()).text("x", "y") == "c: bit-identical (8 elements)"
    zero = diff_arrays("z", np.zeros(2, np.float32), -np.zeros(2, np.float32))   # equal values, other bits
    assert zero.count == 2 and zero.max_ulp == 0


def test_compare_outputs_integers_and_structures():
    lines, differ = compare_outputs({"i": np.array([1, 2, 3], np.int32), "s": {"x": [1.0, 2.0]}},
                                    {"i": np.array([1, 5, 3], np.int32), "s": {"x": [1.0, 2.0]}}, "a", "b")
    assert differ == 1 and lines[0].startswith("i: 1 of 3 elements differ, max 3 ulp; first at [1]: a 2, b 5")
    assert lines[1] == "s: bit-identical (2 elements)"
    lines, differ = compare_outputs({"W": {"dt": np.float32(1), "p": [{"a": np.int32(1)}, {"a": np.int32(2)}]}},
                                    {"W": {"dt": np.float32(1), "p": [{"a": np.int32(1)}, {"a": np.int32(7)}]}},
                                    "a", "b")
    assert differ == 1 and lines == ["W: 1 of 3 elements differ, max 5 ulp; first at W.p[1].a[0]: a 2, b 7"]


# ---- commands without a GPU -------------------------------------------------------------------------------
def _spvcoop(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "spvcoop", *argv], capture_output=True, text=True, env=env)


@pytest.mark.slow
def test_gpu_commands_say_in_one_line_why_there_is_no_gpu(tmp_path):
    import os
    env = dict(os.environ, VK_ICD_FILENAMES=str(tmp_path / "none.json"), LD_LIBRARY_PATH=str(tmp_path))
    for argv in (("device", "list"), ("device", "info"), ("layout", "measure", "-o", str(tmp_path / "m.yaml")),
                 ("numerics", "measure", "-o", str(tmp_path / "n.yaml")),
                 ("run", "samples/saxpy/run.yaml", "--device", "vulkan")):
        p = _spvcoop(*argv, env=env)
        if p.returncode == 0:
            pytest.skip("a Vulkan device is present here")
        assert p.returncode == 2, (argv, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and "vulkan" in p.stderr.lower(), (argv, p.stderr)


def test_compare_needs_a_device():
    p = _spvcoop("run", "samples/saxpy/run.yaml", "--compare")
    assert p.returncode == 2 and "--device" in p.stderr


def test_bad_device_name():
    p = _spvcoop("run", "samples/saxpy/run.yaml", "--device", "cuda:0")
    assert p.returncode == 2 and "vulkan or vulkan:N" in p.stderr

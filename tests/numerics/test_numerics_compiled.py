"""`numerics measure`'s compiled-code probes (numerics/compiled.py): the bf16 conversion, per-element function and
plain-code rules read off what an H200 (the H100's driver family) and an H100 computed
(tests/data/h100-vulkan/ext-numerics, float-model), off IEEE results, and off a fake device; the numerics file that
carries them."""
from __future__ import annotations

import fnmatch
import subprocess
import sys
import tomllib

import numpy as np
import pytest

import spvcoop
from conftest import DATA, REPO
from spvcoop.core.diagnostics import SpvError
from spvcoop.gpu.numerics import interpret_probe, load_measurement, measure_probes, save_tiles
from spvcoop.numerics.compiled import (PROBE_DIR, PROBES, fit_compiled, make_inputs, probe_module, summary, tiles_of,
                                       to_doc)
from spvcoop.numerics.fit import Fit, load_model_file, to_yaml
from spvcoop.numerics.model import CODE_DEFAULTS, COMPILED_DEFAULTS, NVIDIA_TENSORCORE, MulAddModel
from gpu_fakes import FakeDevice, FakeVk

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

EXT = DATA / "h100-vulkan" / "ext-numerics"
FM = DATA / "h100-vulkan" / "float-model"
SCALAR = ("scalar_f32", "scalar_f16")
# not reproduced by the model (docs/interpreter-coopmat.md, "Float code under nvidia-tensorcore")
NOT_REPRODUCED: dict[str, set[str]] = {"scalar_f32": set(), "scalar_f16": set()}
ROOT = REPO


def subset(name: str, data: dict, tiles) -> dict:
    """The probe's data restricted to some tiles (indexes), outputs included (a faster fit)."""
    T = tiles_of(name, data)
    idx = np.asarray(tiles)
    out = {k: v.reshape(T, -1)[idx].ravel() for k, v in data.items() if k.startswith("in")}
    for k, v in data.items():
        if k.startswith("gpu"):
            per = v.reshape(-1, T, 256)          # perelem: function-major; cvt: one "function"
            out[k] = per[:, idx].ravel()
    return out


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


def _scalar(fmt: str, per: int = 1024) -> dict:
    """The scalar probe recorded on the H100 (scalar.npz), the first `per` elements of each block of 1,024 (the
    blocks' kinds in turn)."""
    d = np.load(FM / "scalar.npz")
    idx = np.concatenate([np.arange(b * 1024, b * 1024 + per) for b in range(d[f"{fmt}_in0"].size // 1024)])
    return {**{f"in{i}": d[f"{fmt}_in{i}"][idx] for i in range(4)}, "gpu4": d[f"{fmt}_gpu"][:, idx].ravel()}


def _recorded(small: bool = True) -> dict:
    """The recorded probes; small: one per-element tile of each kind (tiles 8k are kind k), the first 1,024 f32
    patterns (the special ones and NaNs), 128 scalar inputs of each block."""
    probes = {n: dict(np.load(EXT / f"{n}.npz")) for n in PROBES if n not in SCALAR}
    probes["cvt"] = {k: v for k, v in probes["cvt"].items() if k != "in1"}   # the f32 view of in0
    if small:
        probes = {n: subset(n, d, range(4) if n == "cvt" else range(0, 64, 8)) for n, d in probes.items()}
    for n in SCALAR:
        probes[n] = _scalar(n[-3:], 128 if small else 1024)
    return probes


@pytest.fixture(scope="module")
def gpu_fit():
    return fit_compiled(_recorded(), interpret_probe, MulAddModel(name="fitted"))


def test_the_gpus_outputs_give_nvidias_values(gpu_fit):
    assert gpu_fit.model.compiled_params() == NVIDIA_TENSORCORE.compiled_params()
    assert gpu_fit.model.code_params() == NVIDIA_TENSORCORE.code_params()   # plain code: the scalar probes
    assert gpu_fit.unidentified == [] and gpu_fit.not_measured == {}
    agr = gpu_fit.agreement
    for p in SCALAR:   # all bit for bit but what the model does not reproduce (documented)
        assert {f for f, v in agr[p].items() if v[0] != v[1]} == NOT_REPRODUCED[p], p
    assert agr["cvt"] == {"scalars": [1024, 1024], "matrix": [1024, 1024]}
    for p in ("perelem_f32", "perelem_f16"):   # division too: x * rcp(s), code_functions off the scalar probes
        assert all(v[0] == v[1] for v in agr[p].values())
    lines = summary(gpu_fit)
    assert lines[0] == "cvt: bf16_convert truncate: 2048/2048 elements bit-identical"
    assert "pe_flush_f32 true, pe_nan_f32 0x7fffffff, pe_contract without-matrix-operands" in lines[1]
    assert lines[3].startswith("scalar_f32: code_flush_f32 true, code_nan_f32 0x7fffffff, code_contract single-use, "
                               "code_functions nvidia-h100")


def test_the_h100s_scalar_probe_alone_gives_nvidias_code_parameters():
    """Each code_* parameter off the whole recorded scalar probe (16,384 inputs of each format)."""
    f = fit_compiled({n: _scalar(n[-3:]) for n in SCALAR}, interpret_probe, MulAddModel())
    assert f.model.code_params() == NVIDIA_TENSORCORE.code_params()
    assert f.model.pe_max_zeros == NVIDIA_TENSORCORE.pe_max_zeros
    assert f.unidentified == ["pe_factorise"]   # no x*s + x*c in scalar.comp
    assert set(f.not_measured) == {"cvt", "perelem_f32", "perelem_f16"}


def test_ieee_results_give_the_ieee_defaults():
    probes = {n: {**d, **interpret_probe(n, MulAddModel(), d)} for n, d in _recorded().items()}
    f = fit_compiled(probes, interpret_probe, NVIDIA_TENSORCORE)
    assert f.model.compiled_params() == COMPILED_DEFAULTS and f.model.code_params() == CODE_DEFAULTS
    assert f.model.muladd_params() == NVIDIA_TENSORCORE.muladd_params()   # the MulAdd's own are kept
    assert all(v[0] == v[1] for agr in f.agreement.values() for v in agr.values())


def test_probes_not_measured_keep_the_defaults():
    probes = _recorded()
    del probes["cvt"]
    f = fit_compiled({"perelem_f16": probes["perelem_f16"]}, interpret_probe, MulAddModel(),
                     {"cvt": "no bf16", "perelem_f32": "skipped"})
    assert f.model.bf16_convert == "rne" and f.model.pe_flush_f32 is False and f.model.pe_nan_f32 is None
    assert f.model.pe_nan_f16 == 0x7FFF and f.model.pe_contract == "without-matrix-operands"
    assert f.model.code_params() == CODE_DEFAULTS   # no scalar probe: plain code keeps the IEEE rules
    assert f.not_measured == {"cvt": "no bf16", "perelem_f32": "skipped", "scalar_f32": "no data",
                              "scalar_f16": "no data"}
    assert "cvt: not measured (no bf16): defaults kept" in summary(f)


def test_numerics_file_carries_the_compiled_parameters(gpu_fit, tmp_path):
    mf = Fit(gpu_fit.model.with_(name="gpu"))
    text = to_yaml(mf, None, "recorded", to_doc(gpu_fit))
    p = tmp_path / "gpu.yaml"
    p.write_text(text)
    assert "pe_nan_f32: '0x7fffffff'" in text and "bf16_convert: truncate" in text and "x / s:" in text
    m = load_model_file(str(p))
    assert m.params() == mf.model.params() and m.compiled_params() == NVIDIA_TENSORCORE.compiled_params()


def test_old_numerics_files_load_with_the_defaults(tmp_path):
    p = tmp_path / "old.yaml"
    p.write_text("params: {bits: 25, nan_f32: '0x7fffffff'}\n")
    assert load_model_file(str(p)).compiled_params() == COMPILED_DEFAULTS


@pytest.mark.parametrize("text, words, line", [
    ("name: x\nparams:\n  bits: 25\n  pe_contract: sometimes\n", "pe_contract must be one of never, always", 4),
    ("name: x\nparams:\n  pe_flush_f32: 1\n", "pe_flush_f32 must be bool", 3),
    ("params:\n  pe_nan_f16: '0x7c00'\n", "pe_nan_f16 must be the bit pattern of a 16-bit NaN", 2),
    ("params:\n  pe_nan_f32: 'nan'\n", "params.pe_nan_f32: 'nan' is not a number", 2),
    ("params:\n  bits: 25\n  pe_colour: red\n", "unknown parameter(s) pe_colour", 3),
    ("params:\n  bf16_convert: floor\n", "bf16_convert must be one of rne, truncate", 2),
])
def test_bad_compiled_parameters_are_located(tmp_path, text, words, line):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(SpvError) as e:
        load_model_file(str(p))
    d = e.value.diagnostics[0]
    assert words in d.message and d.span is not None and d.span.line == line
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(ROOT / "samples" / "coopmat" / "khr_gemm" /
                                                                      "run.yaml"), "--coop-numerics", str(p)],
                       capture_output=True, text=True)
    assert r.returncode in (1, 2) and f"bad.yaml:{line}:" in r.stderr and "Traceback" not in r.stderr


def test_fitted_file_runs_per_element_functions_like_the_gpu(gpu_fit, tmp_path):
    """--coop-numerics FILE with the fitted values: perelem_f32 bit for bit with the GPU and with
    nvidia-tensorcore, division (x * rcp(s) with the GPU's rcp: code_functions, read off the scalar probes) too."""
    p = tmp_path / "fitted.yaml"
    mf = Fit(gpu_fit.model)
    p.write_text(to_yaml(mf, None, "recorded"))
    d = np.load(EXT / "perelem_f32.npz")
    x, s, c = d["in0"], d["in1"], d["in2"]
    z = np.zeros(15 * len(x), np.float32)
    outs = [np.asarray(spvcoop.run(str(EXT / "perelem_f32.spv"), dispatch=(len(x) // 256, 1, 1),
                                   buffers={0: x, 1: s, 2: c, 3: z, 4: z.copy()}, coop_numerics=n)[3])
            for n in (str(p), "nvidia-tensorcore")]
    gpu = d["gpu3"].reshape(15, -1)
    for out in outs:
        for k in range(15):
            assert np.array_equal(_bits(out.reshape(15, -1)[k]), _bits(gpu[k])), k
    assert np.array_equal(_bits(outs[0]), _bits(outs[1]))


def test_numerics_fit_refits_the_probes_from_the_tiles_file(tmp_path):
    tiles = {k: {ds: v for ds, v in per.items() if ds[0] in ("normal", "subnormal")}
             for k, per in load_measurement(DATA / "h100-vulkan" / "vulkan-loop" / "muladd-tiles.npz")[0].items()
             if k == ("f16", "f16", "f32", 16, 16, 16)}
    npz = tmp_path / "tiles.npz"
    save_tiles(npz, tiles, _recorded())
    back, probes = load_measurement(npz)
    assert set(probes) == set(PROBES) and set(back) == set(tiles)
    out = tmp_path / "fitted.yaml"
    r = subprocess.run([sys.executable, "-m", "spvcoop", "numerics", "fit", str(npz), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "cvt: bf16_convert truncate: 2048/2048 elements bit-identical" in r.stderr
    assert load_model_file(str(out)).compiled_params() == NVIDIA_TENSORCORE.compiled_params()
    # without probe data: the defaults, and the file says why
    save_tiles(npz, tiles)
    r = subprocess.run([sys.executable, "-m", "spvcoop", "numerics", "fit", str(npz), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "cvt: not measured (not in " in r.stderr
    assert load_model_file(str(out)).compiled_params() == COMPILED_DEFAULTS
    # damaged probe data: a usage error, no traceback
    bad = _recorded()
    bad["perelem_f32"]["gpu3"] = bad["perelem_f32"]["gpu3"][:-1]
    save_tiles(npz, tiles, bad)
    r = subprocess.run([sys.executable, "-m", "spvcoop", "numerics", "fit", str(npz), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "cannot read tiles: probe perelem_f32/gpu3" in r.stderr


class InterpreterGpu(FakeDevice):
    """A fake device whose dispatches the interpreter computes under nvidia-tensorcore: a simulated H100."""

    def dispatch(self, code, entry, groups, buffers, push=b"", spec=(), required_subgroup_size=None):
        from spvcoop.interp import run
        self.dispatched.append((buffers, push))
        res = run(code, dispatch=groups,
                  buffers={k: self.read(b, s) for k, (b, s, _) in buffers.items()},
                  coop_numerics="nvidia-tensorcore", layout="nvidia")
        for k, (b, s, _) in buffers.items():
            self.write(b, res.raw(k)[:s])


def test_measure_runs_the_probes_on_a_device_and_skips_what_it_lacks():
    dev = InterpreterGpu(FakeVk())
    data, skipped = measure_probes(dev, probes=("cvt",))
    assert skipped == {} and len(dev.dispatched) == 1
    assert np.array_equal(data["cvt"]["gpu2"], (data["cvt"]["in0"] >> 16).astype(np.uint16))
    f = fit_compiled(data, interpret_probe, MulAddModel())
    assert f.model.bf16_convert == "truncate"
    lacking = InterpreterGpu(FakeVk(), features={"Vulkan12": {"shaderFloat16": True}})
    data, skipped = measure_probes(lacking)
    assert set(data) == {"scalar_f32"} and set(skipped) == set(PROBES) - {"scalar_f32"}
    assert "perElementOperations" in skipped["perelem_f32"] or "PerElement" in skipped["perelem_f32"]


def test_probes_ship_with_the_package_and_are_the_recorded_kernels():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "spvcoop.numerics"]
    for f in PROBE_DIR.iterdir():
        assert any(fnmatch.fnmatch(f"probes/{f.name}", g) for g in globs), f.name
    from spvcoop import disassemble, read_binary
    for name in PROBES:
        rec = read_binary(((FM if name in SCALAR else EXT) / f"{name}.spv").read_bytes())
        # the same instructions and ids; the header's generator differs (glslang's, ours)
        assert disassemble(probe_module(name)).splitlines()[3:] == disassemble(rec).splitlines()[3:], name
        assert make_inputs(name)["in0"].size == (8192 if name in SCALAR else 256 * 32)


def test_measure_command_end_to_end_on_a_fake_device(monkeypatch, capsys, tmp_path):
    """`spvcoop numerics measure` through its own path (tiles, probes, fit, file) on a fake Vulkan device whose
    dispatches the interpreter computes under nvidia-tensorcore: the file it writes holds nvidia-tensorcore's
    code_* (and pe_*) parameters, read off the probes' outputs."""
    import spvcoop.gpu.compute
    import spvcoop.numerics.compiled as compiled
    from conftest import run_cli
    from spvcoop.gpu.device import DeviceInfo

    class Measured(InterpreterGpu):
        def __init__(self, index, timeout_s=None):
            super().__init__(FakeVk())
            self.instance = self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def info(self, index):
            info = DeviceInfo(index, "Fake H100", 0x10DE, 0x2330, "discrete-gpu", "1.4.312", 0, "NVIDIA", "580")
            info.coopmat_khr = [dict(M=16, N=16, K=16, A="f16", B="f16", C="f32", Result="f32", scope="Subgroup")]
            return info
    monkeypatch.setattr(spvcoop.gpu.compute, "Device", Measured)
    # small probes: the fit runs each in the interpreter a few dozen times
    monkeypatch.setattr(compiled, "CVT_TILES", 2)
    monkeypatch.setattr(compiled, "PERELEM_TILES", 8)
    monkeypatch.setattr(compiled, "SCALAR_N", 1024)
    out = tmp_path / "fake.yaml"
    rc, _, err = run_cli(capsys, "numerics", "measure", "--tiles", "1", "-o", str(out))
    assert rc == 0, err
    assert "scalar_f32: code_flush_f32 true, code_nan_f32 0x7fffffff, code_contract single-use, code_functions " \
        "nvidia-h100" in err
    m = load_model_file(str(out))
    assert m.code_params() == NVIDIA_TENSORCORE.code_params()
    assert m.compiled_params() == NVIDIA_TENSORCORE.compiled_params()

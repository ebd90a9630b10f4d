"""The device features a run assumes, named as spirv-val takes them (issue 32, item 15): a SPIR-V 1.5 module with
`LocalSizeId` needs maintenance4, which spirv-val's vulkan1.2 environment does not assume, and `run` had no way to
say the device has it short of `--no-validate`. The run options `spirv_val_options` (`--spirv-val-options`, run-spec
key `spirv_val_options`) and `target_env` (`--target-env`) reach the validation before a run, on the CPU and for the
GPU runner, as `spvcoop val` passes them."""
from __future__ import annotations


import numpy as np
import pytest

from conftest import REPO, run_cli
from spvcoop import SpvError, assemble, run

ROOT = REPO
SAXPY = ROOT / "samples" / "saxpy" / "saxpy.spvasm"


def _local_size_id_text() -> str:
    text = SAXPY.read_text().replace("OpExecutionMode %main LocalSize 64 1 1",
                                      "OpExecutionModeId %main LocalSizeId %c64 %c1 %c1")
    return text.replace("%uint = OpTypeInt 32 0\n", "%uint = OpTypeInt 32 0\n%c64 = OpConstant %uint 64\n"
                        "%c1 = OpConstant %uint 1\n", 1)


@pytest.fixture(scope="module")
def module():
    m = assemble(_local_size_id_text(), "lsid.spvasm", target_env="vulkan1.2")   # SPIR-V 1.5: validated as vulkan1.2
    assert m.header.version_tuple == (1, 5)
    return m


ARGS = dict(push_constants={"a": 2.0, "n": 8}, buffers={"x": np.arange(64, dtype=np.float32),
                                                         "y": np.ones(64, np.float32)})


def test_refused_without_the_feature(module) -> None:
    with pytest.raises(SpvError) as e:
        run(module, **ARGS)
    assert "LocalSizeId" in str(e.value) and "maintenance4" in str(e.value)


@pytest.mark.parametrize("options", [dict(spirv_val_options=["--allow-localsizeid"]),
                                     dict(spirv_val_options="allow-localsizeid"),
                                     dict(target_env="vulkan1.3")])
def test_runs_with_the_feature_named(module, options) -> None:
    res = run(module, **ARGS, **options)
    np.testing.assert_array_equal(res["y"][:8], 2 * np.arange(8, dtype=np.float32) + 1)
    assert not [d for d in res.diagnostics if "LocalSizeId" in d.message]


def test_gpu_runner_validates_alike(module) -> None:
    """The GPU runner's validation (before any device is opened) takes the same options."""
    from spvcoop.gpu.runner import _prepare
    with pytest.raises(SpvError, match="maintenance4"):
        _prepare(module, True, None, None)
    assert _prepare(module, True, None, None, None, ("--allow-localsizeid",))[2] == "main"


def _spec(tmp_path, module, extra: str = "") -> str:
    (tmp_path / "lsid.spv").write_bytes(module.to_bytes())
    (tmp_path / "run.yaml").write_text("shader: lsid.spv\npush_constants: {a: 2.0, n: 8}\nbuffers:\n"
                                       "  x: {arange: 64}\n  y: {zeros: 64, dtype: float32}\noutputs: [y]\n" + extra)
    return str(tmp_path / "run.yaml")


def test_command_line_and_run_spec(capsys, tmp_path, module) -> None:
    spec = _spec(tmp_path, module)
    rc, _, err = run_cli(capsys, "run", spec)
    assert rc == 1 and "maintenance4" in err
    rc, out, err = run_cli(capsys, "run", spec, "--spirv-val-options", "allow-localsizeid,scalar-block-layout")
    assert rc == 0 and out.startswith("y: [0.0, 2.0, 4.0"), err
    rc, out, err = run_cli(capsys, "run", spec, "--target-env", "vulkan1.3")
    assert rc == 0, err
    spec = _spec(tmp_path, module, "spirv_val_options: [--allow-localsizeid]\n")
    rc, out, err = run_cli(capsys, "run", spec)
    assert rc == 0 and out.startswith("y: [0.0, 2.0, 4.0"), err


@pytest.mark.parametrize("argv, says", [
    (["--spirv-val-options", "allow-localsizid"], "(did you mean '--allow-localsizeid'?)"),
    (["--spirv-val-options", "max-id-bound=0"], "needs a number from 1 to 4294967295"),
    (["--target-env", "vulkan13"], "(did you mean 'vulkan1.3'?)"),
])
def test_bad_values_are_usage_errors(capsys, tmp_path, module, argv, says) -> None:
    rc, out, err = run_cli(capsys, "run", _spec(tmp_path, module), *argv)
    assert rc == 2 and says in err and out == "", err


def test_bad_spec_value_is_located(capsys, tmp_path, module) -> None:
    rc, _, err = run_cli(capsys, "run", _spec(tmp_path, module, "spirv_val_options: [--output, x]\n"))
    assert rc in (1, 2) and "run.yaml:7:20: error: spirv_val_options:" in err, err
    assert "'--output' is not a spirv-val option" in err


def test_gpu_device_must_have_maintenance4(module) -> None:
    """What the run assumes of the device is checked on the device too: LocalSizeId needs maintenance4."""
    from spvcoop.gpu.features import module_needs, refuse_missing
    needs = {(n.struct, n.name): n.why for n in module_needs(module)}
    assert needs[("Vulkan13", "maintenance4")] == "execution mode LocalSizeId"
    feats = {"Vulkan13": {"maintenance4": True}}
    refuse_missing([n for n in module_needs(module) if n.struct == "Vulkan13"], feats, set(), "GPU", "lsid")
    with pytest.raises(SpvError, match=r"feature maintenance4 \(Vulkan13\), needed by execution mode LocalSizeId"):
        refuse_missing(module_needs(module), {"Vulkan13": {"maintenance4": False}}, set(), "GPU", "lsid")

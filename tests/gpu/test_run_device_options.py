"""`spvcoop run --device` and the options only the interpreter's run reads: each is a one-line usage error naming
it and --device (exit 2), not dropped without a word; with --compare-interpreter the interpreter runs too and
takes the run options (--trace traces its run). The device is the fake of test_gpu_backend.py."""
from __future__ import annotations

import inspect

import pytest
from conftest import REPO
from gpu_fakes import FakeDevice, FakeVk

from spvcoop.commands import run as run_cmd
from spvcoop.gpu import compute
from spvcoop.interp.options import OPTIONS

ROOT = REPO
SAXPY = str(ROOT / "samples" / "saxpy" / "run.yaml")
# a value for each interpreter-only flag (None: the flag takes none); the test below requires one for every such
# flag, so a new run option is classified (DEVICE_OPTIONS or here) when it is added
VALUES = {"layout": "nvidia", "coop_numerics": "ieee", "max_time": "10", "max_steps": "1000", "max_work": "1M",
          "max_memory": "1G", "trace": "0", "races": None, "nonfinite": None, "robust_buffer_access": "on",
          "races_report": "summary", "races_suppress": "y:1", "coverage": "cov.info", "emit_amber": "out.amber"}


@pytest.fixture
def fake_device(monkeypatch):
    made: list = []

    def fake_init(self, index=0, instance=None, timeout_s=compute.DEFAULT_TIMEOUT_S):
        FakeDevice.__init__(self, FakeVk(), timeout_s)
        made.append(self)
    monkeypatch.setattr(compute.Device, "__init__", fake_init)
    for name in ("buffer", "write", "read", "free"):
        monkeypatch.setattr(compute.Device, name, getattr(FakeDevice, name))
    return made


def _flags() -> list[tuple[str, str]]:
    flags = [(o.name, o.flag) for o in OPTIONS if o.flag and o.name not in run_cmd.DEVICE_OPTIONS]
    return flags + [(dest, flag) for dest, flag, _ in run_cmd.INTERPRETER_FLAGS]


def test_every_interpreter_only_flag_has_a_case() -> None:
    assert {name for name, _ in _flags()} == set(VALUES)


@pytest.mark.parametrize("name, flag", _flags())
def test_interpreter_only_flag_with_device_is_a_usage_error(name, flag, fake_device, capsys, tmp_path,
                                                            monkeypatch) -> None:
    from spvcoop.cli import main
    monkeypatch.chdir(tmp_path)
    value = VALUES[name]
    rc = main(["run", SAXPY, "--device", "vulkan", flag, *([value] if value is not None else [])])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1, err
    assert flag in err[0] and "--device" in err[0], err
    assert not fake_device   # refused before any device is opened


def test_the_device_options_are_the_device_runs_keywords() -> None:
    from spvcoop.gpu.runner import run_on_device
    assert set(run_cmd.DEVICE_OPTIONS) <= set(inspect.signature(run_on_device).parameters)


def test_device_options_still_run(fake_device, capsys) -> None:
    from spvcoop.cli import main
    rc = main(["run", SAXPY, "--device", "vulkan", "--subgroup-size", "32", "--entry-point", "main", "-q"])
    assert rc == 0, capsys.readouterr().err
    assert fake_device


def test_compare_interpreter_takes_the_interpreter_options(fake_device, capsys) -> None:
    """With --compare-interpreter the interpreter's run takes --trace (its lines on stderr) and the limits."""
    from spvcoop.cli import main
    rc = main(["run", SAXPY, "--device", "vulkan", "--compare-interpreter", "--trace", "0", "--max-steps", "100000"])
    err = capsys.readouterr().err
    assert rc in (0, 1), err   # the fake device computes nothing: the outputs may differ
    assert "[1] " in err and "OpLoad" in err, err   # the interpreter's trace of invocation 0

"""`--device` values (issue 32, item 3): an empty or malformed device is a usage error, exit 2, wherever the option
is taken; never a value read as 'no device' (`--device ''` ran on the CPU and exited 0) nor an internal error."""
from __future__ import annotations

import pytest

from conftest import REPO, run_cli

BAD = ["", "vulkan:", "vulkan:-1", "vulkan:+1", "Vulkan", "vulkan:0:1", "vulkan:\u00b2", "vulkan:\u0663",
       "vulkan:1e3", "vulkan:99999999999", "cuda:0", "vulkan:\x1b[2J"]


@pytest.mark.parametrize("value", BAD)
@pytest.mark.parametrize("command", [["run", "samples/saxpy/run.yaml"], ["layout", "measure"],
                                     ["numerics", "measure", "-o", "n.yaml"]])
def test_malformed_device_is_a_usage_error(capsys, tmp_path, monkeypatch, command, value) -> None:
    import os
    monkeypatch.chdir(tmp_path)
    command = [os.path.join(REPO, c) if c.endswith("run.yaml") else c for c in command]
    rc, out, err = run_cli(capsys, *command, "--device", value)
    assert rc == 2, (out, err)
    assert "argument --device: wants vulkan or vulkan:N" in err and out == ""
    assert "\x1b" not in err   # echoed escaped
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("value, index", [("vulkan", 0), ("vulkan:0", 0), ("vulkan:3", 3), ("vulkan:007", 7)])
def test_wellformed_device(value, index) -> None:
    from spvcoop.commands.common import device_arg
    from spvcoop.gpu import parse_device
    assert device_arg(value) == value and parse_device(value) == index

"""The portability check splits a run's options in one place, the library's `devtools.portability.run_options`:
the subgroup size given among them is the size every model runs at (check() dropped it and ran each vendor's
sizes), a layout given is the check's to vary (it made check() fail with a TypeError), and `run --layout all`
calls it; `--layout all --trace` is refused instead of tracing nothing."""
from __future__ import annotations


import numpy as np

from conftest import DATA, run_cli
from spvcoop.devtools import portability
from spvcoop.layouts import load_model
from spvcoop.loader import load_shader

PORTABILITY = DATA / "portability"
SPEC = "samples/coopmat/nonportable/run.yaml"


def _kwargs(**extra) -> dict:
    x = np.arange(256, dtype=np.float16)
    return dict(dispatch=(1, 1, 1), buffers={0: x, 1: np.zeros_like(x)}, **extra)


def test_run_options_split() -> None:
    opts = {"layout": "amd", "subgroup_size": 16, "max_steps": 10, "races": False}
    assert portability.run_options(opts) == ({"max_steps": 10, "races": False}, 16)
    assert portability.run_options({"max_steps": 10}) == ({"max_steps": 10}, None)


def test_check_runs_at_the_subgroup_size_among_the_run_options() -> None:
    module = load_shader(str(PORTABILITY / "lane_offset.spvasm"))
    models = [(n, load_model(n)) for n in ("nvidia", "radv-gfx11")]   # RADV's vendor sizes are 32 and 64
    outcomes = portability.check(module, _kwargs(subgroup_size=32, layout="nvidia"), models=models)
    assert [(o.name, o.subgroup_size) for o in outcomes] == [("nvidia", 32), ("radv-gfx11", 32)]


def test_layout_all_takes_its_options_from_the_library(capsys, monkeypatch) -> None:
    calls = []
    split = portability.run_options

    def spy(options):
        calls.append(dict(options))
        return split(options)
    monkeypatch.setattr(portability, "run_options", spy)
    rc, out, err = run_cli(capsys, "run", SPEC, "--layout", "all", "--subgroup-size", "32")
    assert rc in (0, 1), err
    assert calls and calls[0]["subgroup_size"] == 32 and calls[0]["layout"] == "all"
    assert "layout portability at subgroup size 32" in out


def test_layout_all_refuses_trace(capsys) -> None:
    rc, out, err = run_cli(capsys, "run", SPEC, "--layout", "all", "--trace", "0")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "--trace" in err and "--layout all" in err, err

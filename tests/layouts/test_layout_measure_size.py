"""What `layout measure` writes, `layout diff` / `show` and `run --layout` read with their default limits (issue 32,
item 19): `--workgroup 64,128,256` on an H100 wrote 1 MB of tables that `layout diff` refused ("larger than the
limit of 262144 bytes"). The 66 layouts recorded then (tests/data/h100-vulkan/workgroup/wg-layouts.npz) go
through the command's own writing path here, with the device and the probes faked."""
from __future__ import annotations

import argparse
import re

import numpy as np
import pytest

from conftest import TESTS, run_cli
from spvcoop.layouts import load_model

REC = TESTS / "data" / "h100-vulkan" / "workgroup" / "wg-layouts.npz"
NAME = re.compile(r"(?P<api>\w+)-(?P<comp>\w+)-(?P<R>\d+)x(?P<C>\d+)(?:-(?P<use>a|b|acc))?-wg(?P<S>\d+)$")


def _recorded() -> list[dict]:
    """The entries spvcoop.gpu.layouts.measure returned on the H100 (the npz holds their lanes)."""
    out = []
    with np.load(REC) as z:
        for name in z.files:
            m = NAME.match(name)
            assert m, name
            lanes = [[None if r < 0 else (int(r), int(c)) for r, c in lane] for lane in z[name].tolist()]
            out.append({"name": name, "component": m["comp"], "rows": int(m["R"]), "cols": int(m["C"]),
                        "use": m["use"], "subgroup_size": int(m["S"]), "lanes": lanes})
    return out


@pytest.fixture
def fake_gpu(monkeypatch):
    import spvcoop.gpu.compute
    import spvcoop.gpu.layouts

    class FakeDevice:
        def __init__(self, index, timeout_s=None):
            self.instance = self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def info(self, index):
            return argparse.Namespace(name="Fake H100", driver_name="NVIDIA", driver_info="580",
                                      api_version="1.4.312")

    entries = _recorded()

    def fake_measure(dev, info, progress=None, extra=(), workgroup=()):
        assert workgroup == (64, 128, 256)
        return entries, []

    monkeypatch.setattr(spvcoop.gpu.compute, "Device", FakeDevice)
    monkeypatch.setattr(spvcoop.gpu.layouts, "measure", fake_measure)
    return entries


def test_measured_workgroup_model_is_read_with_default_limits(capsys, tmp_path, fake_gpu) -> None:
    out = tmp_path / "wg.yaml"
    rc, _, err = run_cli(capsys, "layout", "measure", "--workgroup", "64,128,256", "-o", str(out))
    assert rc == 0, err
    assert out.stat().st_size < 64 << 10 and "warning" not in err
    rc, diff, err = run_cli(capsys, "layout", "diff", str(out), "nvidia")
    assert rc == 0, err
    assert "larger than the limit" not in err
    model = load_model(str(out))            # default limits
    for e in fake_gpu:
        lay = model.layout(e["component"], e["rows"], e["cols"], e["use"], e["subgroup_size"])
        assert lay.lanes() == e["lanes"], e["name"]


def test_linear_bases_only_for_an_exact_table() -> None:
    from spvcoop.layouts.render import linear_bases, to_yaml_model
    e = _recorded()[0]
    bases = linear_bases(e["lanes"])
    assert bases is not None
    bad = [list(lane) for lane in e["lanes"]]
    bad[5][1], bad[6][1] = bad[6][1], bad[5][1]       # two slots swapped: no XOR of bases gives that
    assert linear_bases(bad) is None
    padded = [list(lane) for lane in e["lanes"]]
    padded[3][0] = None
    assert linear_bases(padded) is None
    assert linear_bases([[(0, 0), (0, 1), (0, 2)]]) is None          # L = 3
    text = to_yaml_model("m", "d", [dict(e, lanes=bad)], linear=True)
    assert "table:" in text and "linear:" not in text


@pytest.mark.slow
def test_tables_no_bases_give_say_how_to_read_them(capsys, tmp_path, fake_gpu) -> None:
    """The fallback: non-linear tables over the default size are written with a warning naming the option."""
    biggest = sorted(fake_gpu, key=lambda e: -len(e["lanes"]) * len(e["lanes"][0]))[:20]   # ~300 KB of tables
    fake_gpu[:] = biggest
    for e in fake_gpu:
        e["lanes"] = [list(lane) for lane in e["lanes"]]
        e["lanes"][0][0], e["lanes"][0][1] = e["lanes"][0][1], e["lanes"][0][0]
    out = tmp_path / "wg.yaml"
    rc, _, err = run_cli(capsys, "layout", "measure", "--workgroup", "64,128,256", "-o", str(out))
    assert rc == 0, err
    size = out.stat().st_size
    assert size > 256 << 10
    assert f"read it with --max-model-bytes {size}" in err

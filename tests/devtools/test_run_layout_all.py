"""`run --layout all` / `portability` with the options a single run takes (issue 32, items 4 and 7): a given
subgroup size, `-o` (each model's outputs), and the options it cannot honour refused instead of dropped."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from spvcoop.commands.run import _model_dir
import yaml

from conftest import REPO, run_cli

ROOT = REPO
NONPORTABLE = ROOT / "samples" / "coopmat" / "nonportable"
SPEC = str(NONPORTABLE / "run.yaml")


@pytest.mark.parametrize("argv", [["run", SPEC, "--layout", "all", "--subgroup-size", "4"],
                                  ["portability", SPEC, "--subgroup-size", "4"]])
def test_subgroup_size_flag(capsys, argv) -> None:
    """It was passed to every model's run twice: a TypeError, exit 3."""
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 1, err
    assert "layout portability at subgroup size 4" in out and "internal error" not in err
    assert re.search(r"\n  random:1 +reference\n", out)   # nvidia does not define the type at 4


def test_subgroup_size_from_the_spec(capsys, tmp_path) -> None:
    spec = yaml.safe_load((NONPORTABLE / "run.yaml").read_text())
    for name in ("rowsum.spvasm", "in_x.npy"):
        (tmp_path / name).write_bytes((NONPORTABLE / name).read_bytes())
    (tmp_path / "run.yaml").write_text(yaml.safe_dump(dict(spec, subgroup_size=4)))
    rc, out, err = run_cli(capsys, "portability", str(tmp_path / "run.yaml"))
    assert rc == 1 and "at subgroup size 4" in out, err


def _models(out: str) -> dict[str, str]:
    """model label -> its line's verdict, from the report."""
    found = (re.match(r"  (\S.*?) {2,}(\S.*)$", ln) for ln in out.splitlines())   # not the indented "why:" lines
    return {m.group(1): m.group(2) for m in found if m}


def test_output_directory_gets_each_model(capsys, tmp_path) -> None:
    """`-o DIR/` wrote nothing and said nothing; now DIR/MODEL/BUFFER.npy for every model that ran, each the
    same array as that model's own run."""
    # at one subgroup size the directories are the models' names (a sweep adds _S_<size>)
    rc, out, err = run_cli(capsys, "run", SPEC, "--layout", "all", "--subgroup-size", "32", "-o", f"{tmp_path}/out/")
    assert rc == 1, err
    ran = [m for m, verdict in _models(out).items() if not verdict.startswith(("skipped", "error"))]
    assert len(ran) >= 3
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.npy"))
    assert written == sorted(f"{_model_dir(m)}/s.npy" for m in ran)
    assert _model_dir("shuffled(seed=1)") == "shuffled_seed_1" and _model_dir("radv-gfx11 S=64") == "radv-gfx11_S_64"
    rc, _, err = run_cli(capsys, "run", SPEC, "--layout", "striped", "-o", str(tmp_path / "striped.npy"), "-q")
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "striped" / "s.npy"), np.load(tmp_path / "striped.npy"))
    ref = np.load(tmp_path / "out" / "nvidia" / "s.npy")
    assert not np.array_equal(np.load(tmp_path / "out" / "striped" / "s.npy"), ref)   # not one run copied


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_output_file_maps_models_to_outputs(capsys, tmp_path, suffix) -> None:
    out_file = tmp_path / f"out{suffix}"
    rc, out, err = run_cli(capsys, "run", SPEC, "--layout", "all", "--subgroup-size", "32", "-o", str(out_file))
    assert rc == 1, err
    data = (json.loads if suffix == ".json" else yaml.safe_load)(out_file.read_text())
    ran = [m for m, verdict in _models(out).items() if not verdict.startswith(("skipped", "error"))]
    assert "nvidia" in data and "striped" in data and "lavapipe" not in data   # lavapipe does not define it
    assert list(data) == ran
    rc, single, err = run_cli(capsys, "run", SPEC, "--layout", "striped")
    assert rc == 0, err
    assert data["striped"]["s"] == yaml.safe_load(single)["s"]


@pytest.mark.parametrize("extra, says", [
    (["-o", "x.npy"], "--layout all writes one set of outputs per model"),
    (["--check", str(NONPORTABLE / "expected.yaml")], "--check compares one run's outputs"),
    (["--device", "vulkan"], "cannot be combined with --device"),
])
def test_what_layout_all_cannot_do_is_refused(capsys, tmp_path, monkeypatch, extra, says) -> None:
    """These were silently dropped (nothing written, nothing checked, the CPU run instead of the device's)."""
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli(capsys, "run", SPEC, "--layout", "all", *extra)
    assert rc == 2 and says in err, err
    assert out == "" and not list(tmp_path.iterdir())   # refused before any model ran


def test_nothing_written_when_no_model_runs(capsys, tmp_path) -> None:
    """Found by the fuzz driver (run:634): exit 2 ('no layout model could run the shader') left an empty -o file."""
    rc, _, err = run_cli(capsys, "run", SPEC, "--layout", "all", "--entry-point", "nosuch", "-o",
                         str(tmp_path / "out.json"))
    assert rc == 2 and "no layout model could run the shader" in err
    assert not (tmp_path / "out.json").exists()

"""`spvcoop layout ...`: list, show (all formats), diff, probe (checked by spirv-val) and import."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from spvcoop.cli import main
from spvcoop.layouts import load_model
from spvcoop.core.reference_tools import find_tool
from conftest import TESTS

DATA = TESTS / "data"


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_list(capsys):
    rc, out, _ = run(capsys, "layout", "list")
    assert rc == 0
    for name in ("nvidia", "tinytc", "striped", "shuffled", "amd-rdna3-wmma", "vdmfma-8x16x64"):
        assert f"\n{name}  (" in "\n" + out
    assert "f16 16x16" in out


def test_show_table_matches_h100(capsys):
    rc, out, _ = run(capsys, "layout", "show", "nvidia", "--component", "f16", "--rows", "16", "--cols", "16")
    assert rc == 0
    rows = [ln.split() for ln in out.splitlines()[3:]]
    assert len(rows) == 8
    h100 = json.loads((DATA / "h100-vulkan" / "layouts.json").read_text())["nv_f16_16x16"]["map"]
    for i, cells in enumerate(rows):
        assert cells[0] == str(i) and cells[1] == "|"
        assert cells[2:] == [f"{h100[p][i][0]},{h100[p][i][1]}" for p in range(32)]


def test_show_json_exact(capsys, tmp_path):
    out_file = tmp_path / "l.json"
    rc, out, _ = run(capsys, "layout", "show", "nvidia", "--component", "u8", "--rows", "32", "--cols", "8",
                     "--use", "b", "--format", "json", "-o", str(out_file))
    assert rc == 0 and out == ""
    obj = json.loads(out_file.read_text())
    h100 = json.loads((DATA / "h100-vulkan" / "layouts.json").read_text())["khr_u8_32x8_B"]
    assert obj == {"model": "nvidia", "component": "u8", "rows": 32, "cols": 8, "use": "b", "subgroup_size": 32,
                   "length": 8, "lanes": h100["map"]}


@pytest.mark.parametrize("fmt", ["svg", "html"])
def test_show_pictures(capsys, fmt):
    rc, out, _ = run(capsys, "layout", "show", "tinytc", "-t", "f32", "--rows", "4", "--cols", "15",
                     "--use", "acc", "--format", fmt)
    assert rc == 0
    if fmt == "svg":
        root = ET.fromstring(out)
        assert len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) == 60 + 16   # cells, legend (S = 16)
    else:
        assert "<svg" in out and out.rstrip().endswith("</html>")


def test_show_subgroup_size_and_seed(capsys):
    rc, a, _ = run(capsys, "layout", "show", "shuffled", "-t", "f16", "--rows", "8", "--cols", "8", "-S", "16",
                   "--format", "json", "--seed", "7")
    rc2, b, _ = run(capsys, "layout", "show", "shuffled", "-t", "f16", "--rows", "8", "--cols", "8", "-S", "16",
                    "--format", "json", "--seed", "8")
    assert rc == rc2 == 0
    ja, jb = json.loads(a), json.loads(b)
    assert ja["subgroup_size"] == 16 and ja["length"] == 4 and ja["lanes"] != jb["lanes"]


def test_show_undefined_type_is_an_error(capsys):
    rc, out, err = run(capsys, "layout", "show", "ptx-m16n8k8", "-t", "f64", "--rows", "16", "--cols", "16")
    assert rc == 1 and out == ""
    assert "does not define f64 16x16" in err and "Traceback" not in err


def test_show_unknown_component(capsys):
    rc, _, err = run(capsys, "layout", "show", "nvidia", "-t", "fp16", "--rows", "16", "--cols", "16")
    assert rc == 1 and "unknown component type 'fp16'" in err


def test_bad_yaml_reports_file_line_without_traceback(tmp_path):
    bad = tmp_path / "mine.yaml"
    bad.write_text("name: mine\nsubgroup_size: 32\nentries:\n  - name: e\n    components: [f16]\n"
                   "    formula:\n      length: 8\n      row: \"lane +* 2\"\n      col: \"i\"\n")
    p = subprocess.run([sys.executable, "-m", "spvcoop", "layout", "show", str(bad), "-t", "f16", "--rows", "16",
                        "--cols", "16"], capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stderr.startswith(f"{bad}:8:"), p.stderr
    assert "entry 'e': row: syntax error" in p.stderr and "Traceback" not in p.stderr


def test_user_yaml_model(capsys, tmp_path):
    mine = tmp_path / "lavapipe.yaml"
    mine.write_text("name: lavapipe\nsubgroup_size: 8\nentries:\n"
                    "  - name: a-c\n    components: [f16, f32]\n    rows: 8\n    cols: 8\n    use: [a, acc]\n"
                    "    formula: {length: 8, row: i, col: lane}\n"
                    "  - name: b\n    components: [f16]\n    rows: 8\n    cols: 8\n    use: b\n"
                    "    formula: {length: 8, row: lane, col: i}\n")
    rc, out, _ = run(capsys, "layout", "show", str(mine), "-t", "f16", "--rows", "8", "--cols", "8", "--use", "b",
                     "--format", "json")
    assert rc == 0
    assert json.loads(out)["lanes"][3] == [[3, c] for c in range(8)]


def test_diff(capsys):
    rc, out, _ = run(capsys, "layout", "diff", "nvidia", "ptx-m16n8k16", "--exit-code")
    assert rc == 1
    assert "f16 16x16 use a S=32: nvidia != ptx-m16n8k16: same elements per invocation, different order" in out
    assert "f16 16x8 use b S=32: nvidia = ptx-m16n8k16" in out
    rc, out, _ = run(capsys, "layout", "diff", "nvidia", "ptx-m16n8k8", "-t", "f16", "--rows", "16", "--cols", "8",
                     "--use", "acc", "--exit-code")
    assert rc == 0 and "1 comparison(s), 0 difference(s)" in out


def _assemble_and_validate(tmp_path, text):
    asm, val = find_tool("spirv-as"), find_tool("spirv-val")
    if not asm or not val:
        pytest.skip("spirv-as/spirv-val not installed")
    src, spv = tmp_path / "p.spvasm", tmp_path / "p.spv"
    src.write_text(text)
    p = asm.run("--target-env", "spv1.6", str(src), "-o", str(spv), text=True)
    assert p.returncode == 0, p.stderr
    p = val.run("--target-env", "vulkan1.3", str(spv), text=True)
    assert p.returncode == 0, p.stderr + p.stdout


@pytest.mark.parametrize("api,comp,R,C,use", [
    ("khr", "f16", 16, 16, "a"), ("khr", "bf16", 16, 16, "b"), ("khr", "u8", 16, 32, "a"), ("khr", "s8", 32, 8, "b"),
    ("khr", "s32", 16, 16, "acc"), ("khr", "f32", 16, 8, "acc"), ("khr", "u16", 8, 8, "acc"),
    ("khr", "f64", 8, 8, "acc"), ("nv", "f16", 16, 8, None), ("nv", "s8", 32, 16, None), ("nv", "u32", 16, 8, None)])
def test_probe_is_valid_spirv(capsys, tmp_path, api, comp, R, C, use):
    out = tmp_path / "probe.spvasm"
    argv = ["layout", "probe", "--api", api, "-t", comp, "--rows", str(R), "--cols", str(C), "-o", str(out),
            "--inputs", str(tmp_path / "in")]
    if use:
        argv += ["--use", use]
    rc, _, err = run(capsys, *argv)
    assert rc == 0, err
    text = out.read_text()
    assert ("OpCooperativeMatrixLengthKHR" if api == "khr" else "OpCooperativeMatrixLengthNV") in text
    _assemble_and_validate(tmp_path, text)
    elem = {8: 1, 16: 2, 32: 4, 64: 8}[{"f16": 16, "bf16": 16, "u8": 8, "s8": 8, "s32": 32, "f32": 32,
                                         "u16": 16, "f64": 64, "u32": 32}[comp]]
    assert (tmp_path / "in.row.bin").stat().st_size == R * C * elem


def test_probe_inputs_hold_indices_plus_one(capsys, tmp_path):
    rc, _, _ = run(capsys, "layout", "probe", "--api", "khr", "-t", "f16", "--rows", "4", "--cols", "3",
                   "--use", "a", "-o", str(tmp_path / "p.spvasm"), "--inputs", str(tmp_path / "in"))
    assert rc == 0
    row = np.frombuffer((tmp_path / "in.row.bin").read_bytes(), dtype="<f2")
    col = np.frombuffer((tmp_path / "in.col.bin").read_bytes(), dtype="<f2")
    assert row.tolist() == [r + 1 for r in range(4) for _ in range(3)]
    assert col.tolist() == [c + 1 for _ in range(4) for c in range(3)]


def test_probe_argument_errors(capsys):
    rc, _, err = run(capsys, "layout", "probe", "--api", "khr", "-t", "f16", "--rows", "16", "--cols", "16")
    assert rc == 1 and "needs --use" in err
    rc, _, err = run(capsys, "layout", "probe", "--api", "nv", "-t", "f16", "--rows", "16", "--cols", "16",
                     "--use", "a")
    assert rc == 1 and "no use" in err


def fake_driver_output(lay) -> np.ndarray:
    """What the probe writes on a driver with layout `lay` (see spvcoop.layouts.probe)."""
    S, R, C = lay.subgroup_size, lay.rows, lay.cols
    words = np.zeros(S + 2 * S * R * C, dtype="<u4")
    words[:S] = lay.length
    for p in range(S):
        for i in range(lay.length):
            base = S + 2 * (p * R * C + i)
            if lay.row[p, i] >= 0:
                words[base], words[base + 1] = lay.row[p, i] + 1, lay.col[p, i] + 1
    return words


@pytest.mark.parametrize("model,comp,R,C,use", [("nvidia", "s8", 16, 32, "a"), ("tinytc", "f32", 4, 15, "acc"),
                                                ("shuffled", "f16", 8, 8, "b")])
def test_import_round_trip(capsys, tmp_path, model, comp, R, C, use):
    m = load_model(model)
    lay = m.layout(comp, R, C, use, m.default_subgroup_size or 32)
    buf = tmp_path / "buf2.bin"
    buf.write_bytes(fake_driver_output(lay).tobytes())
    out = tmp_path / "imported.yaml"
    rc, _, err = run(capsys, "layout", "import", str(buf), "-t", comp, "--rows", str(R), "--cols", str(C),
                     "--use", use, "-S", str(lay.subgroup_size), "--name", "mydriver", "-o", str(out))
    assert rc == 0, err
    back = load_model(str(out))
    assert back.name == "mydriver"
    assert back.layout(comp, R, C, use, lay.subgroup_size).same_as(lay)


def test_import_json_and_errors(capsys, tmp_path):
    lay = load_model("nvidia").layout("f16", 8, 8)
    words = fake_driver_output(lay)
    j = tmp_path / "out.json"
    j.write_text(json.dumps(words.tolist()))
    rc, out, _ = run(capsys, "layout", "import", str(j), "-t", "f16", "--rows", "8", "--cols", "8")
    assert rc == 0 and "table:" in out
    words[3] = 5   # invocation 3 reports another length
    bad = tmp_path / "bad.bin"
    bad.write_bytes(words.tobytes())
    rc, _, err = run(capsys, "layout", "import", str(bad), "-t", "f16", "--rows", "8", "--cols", "8")
    assert rc == 1 and "different lengths" in err
    bad.write_bytes(b"\x01\x02\x03")
    rc, _, err = run(capsys, "layout", "import", str(bad), "-t", "f16", "--rows", "8", "--cols", "8")
    assert rc == 1 and "whole number" in err


@pytest.mark.parametrize("buf,comp,R,C,use,key", [
    ("h100_probe_nv_f16_16x8.bin", "f16", 16, 8, None, "nv_f16_16x8"),
    ("h100_probe_khr_s8_32x8_b.bin", "s8", 32, 8, "b", "khr_s8_32x8_B")])
def test_import_real_h100_probe_output(capsys, tmp_path, buf, comp, R, C, use, key):
    """Buffers written by our probe shaders on an H100 import to the measured layouts."""
    out = tmp_path / "h100.yaml"
    argv = ["layout", "import", str(DATA / "layouts" / buf), "-t", comp, "--rows", str(R), "--cols", str(C),
            "-o", str(out)]
    if use:
        argv += ["--use", use]
    rc, _, err = run(capsys, *argv)
    assert rc == 0, err
    lay = load_model(str(out)).layout(comp, R, C, use)
    h100 = json.loads((DATA / "h100-vulkan" / "layouts.json").read_text())[key]
    assert lay.lanes() == [[tuple(x) for x in lane] for lane in h100["map"]]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("model,comp,R,C,use,S", [("nvidia", "u8", 32, 16, None, 32),
                                                  ("amd-rdna3-wmma", "bf16", 16, 16, "b", 64),
                                                  ("tinytc", "f32", 4, 15, "acc", 16),
                                                  ("shuffled", "s16", 5, 7, "a", 8)])
def test_show_output_imports_back(capsys, tmp_path, fmt, model, comp, R, C, use, S):
    """`show --format table|json` round-trips through `import` into an identical model."""
    shown = tmp_path / f"shown.{'json' if fmt == 'json' else 'txt'}"
    argv = ["layout", "show", model, "-t", comp, "--rows", str(R), "--cols", str(C), "-S", str(S),
            "--format", fmt, "-o", str(shown)]
    if use:
        argv += ["--use", use]
    assert run(capsys, *argv)[0] == 0
    out = tmp_path / "back.yaml"
    rc, _, err = run(capsys, "layout", "import", str(shown), "-o", str(out))
    assert rc == 0, err
    back = load_model(str(out)).layout(comp, R, C, use, S)
    assert back.same_as(load_model(model).layout(comp, R, C, use, S))


def test_import_needs_type_for_buffers(capsys, tmp_path):
    buf = tmp_path / "b.bin"
    buf.write_bytes(fake_driver_output(load_model("nvidia").layout("f16", 8, 8)).tobytes())
    rc, _, err = run(capsys, "layout", "import", str(buf))
    assert rc == 1 and "does not say its type" in err and str(buf) in err
    bad = tmp_path / "t.txt"
    bad.write_text("hello: not a table\n")
    rc, _, err = run(capsys, "layout", "import", str(bad))
    assert rc == 1 and "not a layout table" in err


@pytest.mark.parametrize("text, want", [("nv:f16:8x16", ("nv", "f16", 8, 16, None)),
                                        ("KHR:bf16:16X16:B", ("khr", "bf16", 16, 16, "b")),
                                        ("khr:u8:32x8:acc", ("khr", "u8", 32, 8, "acc"))])
def test_measure_also_takes_a_type(text, want):
    from spvcoop.commands.layout import _measure_type
    assert _measure_type(text) == want


@pytest.mark.parametrize("text, says", [("nv:f16", "is not API"), ("amd:f16:8x8", "nv or khr"),
                                        ("nv:q16:8x8", "unknown component"), ("nv:f16:0x8", "1 to 256"),
                                        ("nv:f16:8x9999", "1 to 256"), ("khr:f16:16x16", "needs a use"),
                                        ("nv:f16:16x16:a", "needs a use"), ("nv:f16:8x8:a:b", "nv or khr")])
def test_measure_also_refuses_a_bad_type(text, says, capsys):
    with pytest.raises(SystemExit) as e:   # argparse's usage error
        main(["layout", "measure", "--also", text])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err

"""`spvcoop run SHADER --template FILE` (issue 22): every buffer, push-constant member and specialization constant
with its type and default, as a run spec `spvcoop run` takes as it is, or in SPIRV-Interpreter's input form."""
from __future__ import annotations

import shutil
from pathlib import Path

from spvcoop.cli import main

ROOT = Path(__file__).resolve().parent.parent
SI = ROOT / "tests" / "data" / "sicompat"


def _shader(tmp_path: Path, src: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst


def test_run_spec_template_lists_everything_and_runs(tmp_path, capsys):
    shader = _shader(tmp_path, SI / "spec-constants" / "shader.spvasm")
    out = tmp_path / "t.yaml"
    assert main(["run", str(shader), "--template", str(out)]) == 0
    text = out.read_text()
    assert "shader: 'shader.spvasm'\ndispatch: [1, 1, 1]\n" in text
    assert "  'N': 2  # SpecId 0, u32, its default\n  SCALE: 1.0  # SpecId 1, f32, its default\n" in text
    assert "  NEGATE: false  # SpecId 2, bool, its default\n" in text
    assert "push_constants:  # Push\n  bias: 0.0\n" in text
    assert "  '0:0':  # set 0, binding 0: result (StorageBuffer, Out)\n    lanes: 0\n    v: [0.0, 0.0]\n" in text
    capsys.readouterr()
    assert main(["run", str(out)]) == 0
    assert capsys.readouterr().out == "result:\n  lanes: 1\n  v: [0.0, 0.0]\n"


def test_runtime_arrays_are_marked(tmp_path, capsys):
    shader = _shader(tmp_path, ROOT / "samples" / "saxpy" / "saxpy.spvasm")
    out = tmp_path / "t.yaml"
    assert main(["run", str(shader), "--template", str(out)]) == 0
    text = out.read_text()
    assert "'0:0':  # set 0, binding 0: X (StorageBuffer, X); runtime array: one element shown; give as many " \
           "as the run needs\n    x: [0.0]\n" in text
    assert "push_constants:  # Params\n  a: 0.0\n  'n': 0\n" in text
    assert main(["run", str(out)]) == 0


def test_sicompat_template_names_unnamed_members_by_repeated_empty_keys(tmp_path, capsys):
    shader = _shader(tmp_path, SI / "unnamed-members" / "shader.spvasm")
    out = tmp_path / "in.yaml"
    assert main(["run", str(shader), "--template", str(out), "--template-format", "sicompat"]) == 0
    text = out.read_text()
    assert "'2':  # set 0, binding 0 (StorageBuffer, struct %6)\n  '': [0, 0, 0]\n  '': [0, 0, 0]\n" \
           "  '': {'': 0, '': 0, '': 0.0}\n" in text
    capsys.readouterr()
    assert main(["run", str(shader), "--input", str(out)]) == 0
    assert "m0: [0, 0, 0, 0]" in capsys.readouterr().out


def test_an_existing_file_is_kept_unless_forced(tmp_path, capsys):
    shader = _shader(tmp_path, SI / "named" / "shader.spvasm")
    out = tmp_path / "t.yaml"
    out.write_text("mine\n")
    assert main(["run", str(shader), "--template", str(out)]) == 2
    assert f"error: {out} exists; -f/--force overwrites it" in capsys.readouterr().err
    assert out.read_text() == "mine\n"
    assert main(["run", str(shader), "--template", str(out), "-f"]) == 0
    assert out.read_text().startswith("# Run spec template of shader.spvasm")


def test_a_run_spec_is_not_a_shader_to_template(tmp_path, capsys):
    assert main(["run", str(ROOT / "samples" / "saxpy" / "run.yaml"), "--template", str(tmp_path / "t.yaml")]) == 2
    assert "--template takes a shader" in capsys.readouterr().err

"""`spvcoop run SHADER --template FILE` (issue 22): every buffer, push-constant member and specialization constant
with its type and default, as a run spec `spvcoop run` takes as it is, or in SPIRV-Interpreter's input form."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spvcoop.cli import main
from conftest import REPO

ROOT = REPO
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


# ---- round trips (issue 32, item 11): spvcoop reads back and runs every template it writes ----------------------
KERNELS = ROOT / "tests" / "kernels"
ALIASED = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer OutF { float o[]; };
layout(set = 0, binding = 0) buffer OutV4 { vec4 o4[]; };
layout(set = 0, binding = 1) readonly buffer In { float x[]; };
void main() { o4[0] = vec4(x[0] + 1.0); o[1] += 1.0; }
"""


def _round_trip(tmp_path: Path, shader: Path, capsys, fmt: str = "runspec") -> tuple[int, str, str]:
    """Write the template, then run it as `spvcoop run` reads it: (exit status, stdout, stderr). A template spvcoop
    cannot read back fails at the template's own lines."""
    out = tmp_path / ("in.yaml" if fmt == "sicompat" else "t.yaml")
    assert main(["run", str(shader), "--template", str(out), "--template-format", fmt, "-f", "-q"]) == 0
    capsys.readouterr()
    rc = main(["run", str(shader), "--input", str(out)] if fmt == "sicompat" else ["run", str(out)])
    got = capsys.readouterr()
    assert f"{out}:" not in got.err and "internal error" not in got.err, got.err
    return rc, got.out, got.err


@pytest.mark.slow
def test_aliased_bindings_are_one_entry_that_runs(tmp_path, capsys):
    """A binding declared as two blocks was written twice under one key ('0:0'): a duplicate YAML key."""
    shader = tmp_path / "aliased.comp"
    shader.write_text(ALIASED)
    rc, out, err = _round_trip(tmp_path, shader, capsys)
    text = (tmp_path / "t.yaml").read_text()
    assert text.count("set 0, binding 0") == 1 and "also read as OutF (OutF) (one buffer: give it once)" in text
    assert rc == 0, err
    assert "[1.0, 2.0, 1.0, 1.0]" in out   # o4[0] = x[0] + 1 through the vec4 view, o[1] += 1 through the float one
    rc, out, err = _round_trip(tmp_path, shader, capsys, "sicompat")
    assert rc == 0 and "[1.0, 2.0, 1.0, 1.0]" in out, err


@pytest.mark.slow
def test_ggml_views_template_reads_back(tmp_path, capsys):
    shader = _shader(tmp_path, ROOT / "tests" / "data" / "aliasing" / "ggml_views.comp")
    rc, _out, err = _round_trip(tmp_path, shader, capsys)
    assert rc == 1 and "out-of-bounds" in err   # one element of each runtime array: the shader reads four
    text = (tmp_path / "t.yaml").read_text()
    assert "  A_SCALAR:  # set 0, binding 0" in text and "also read as A (A)" in text
    _round_trip(tmp_path, shader, capsys, "sicompat")


def test_device_addresses_in_a_uniform_block_name_buffers_the_template_adds(tmp_path, capsys):
    """vk_cooperative_matrix_perf's KHR build: pointers in a uniform block (an internal error: no template value
    for a pointer), beside the four unused buffer_reference instance variables at the same binding."""
    shader = _shader(tmp_path, KERNELS / "cmperf_khr_tiled" / "fp16_fp32.spvasm")
    rc, _out, err = _round_trip(tmp_path, shader, capsys)
    assert rc == 0, err
    text = (tmp_path / "t.yaml").read_text()
    assert "  params:  # set 0, binding 0: params (Uniform, Params); also read as inputA (InputA, unused by the " \
           "entry point)" in text
    assert "    inputA: '&inputA_data'\n" in text   # 'inputA' is a variable's name: the buffer gets another
    assert "  inputA_data:  # device-address-only buffer, reached through 'inputA' (InputA); runtime array" in text
    assert "    zeros: 1\n    dtype: 'float16'\n" in text
    _round_trip(tmp_path, shader, capsys, "sicompat")


def test_device_addresses_in_push_constants_and_bf16_buffers(tmp_path, capsys):
    nv = _shader(tmp_path, KERNELS / "cmperf_nv_tiled" / "fp16_fp32.spv")
    rc, _out, err = _round_trip(tmp_path, nv, capsys)
    assert rc == 0, err
    assert "push_constants:  # Params\n  inputA: '&inputA_data'\n" in (tmp_path / "t.yaml").read_text()
    bf16 = _shader(tmp_path, KERNELS / "bf16_bda_gemm" / "O0.spv")
    rc, _out, err = _round_trip(tmp_path, bf16, capsys)
    assert rc == 1 and "load out of bounds" in err, err   # 'a' holds one bf16: the run reaches the kernel
    assert "  a:  # device-address-only buffer, reached through 'a' (MatBF16); runtime array" in \
        (tmp_path / "t.yaml").read_text()


def test_names_that_read_as_other_keys_are_not_used_as_keys(tmp_path, capsys):
    """The fuzz driver's `template` entry (tools/fuzz) with hostile OpNames: a variable named '0:0' (SPIRV-Interpreter's
    form reads that as binding 0), two push-constant members both named 'a' (one mapping cannot hold both), a
    specialization constant named '0' (SpecId 0's text) and two named 'N' (each sets both), a view named '0:1' (the
    run spec reads that as binding 1): each is written as something that reads back as itself."""
    text = (ROOT / "samples" / "saxpy" / "saxpy.spvasm").read_text()
    saxpy = tmp_path / "saxpy.spvasm"
    saxpy.write_text(text.replace('OpMemberName %Params 1 "n"', 'OpMemberName %Params 1 "a"')
                     .replace('OpName %Y "Y"', 'OpName %Y "0:0"'))
    for fmt in ("runspec", "sicompat"):
        rc, out, err = _round_trip(tmp_path, saxpy, capsys, fmt)
        assert rc == 0 and out == "y: [0.0]\nx: [0.0]\n", err
    assert "push_constants: [0.0, 0]  # Params\n" in (tmp_path / "t.yaml").read_text()
    assert "'5':  # set 0, binding 1: 0:0 (StorageBuffer, 0:0)" in (tmp_path / "in.yaml").read_text()

    text = (SI / "spec-constants" / "shader.spvasm").read_text()
    spec = tmp_path / "spec.spvasm"
    spec.write_text(text.replace('OpName %SCALE "SCALE"', 'OpName %SCALE "0"')
                    .replace('OpName %NEGATE "NEGATE"', 'OpName %NEGATE "N"'))
    rc, _out, err = _round_trip(tmp_path, spec, capsys)
    assert rc == 0, err
    written = (tmp_path / "t.yaml").read_text()
    assert "  '0': 2  # SpecId 0" in written and "  '1': 1.0  # SpecId 1" in written
    assert "  '2': false  # SpecId 2" in written and "N:" not in written

    from spvcoop import disassemble
    from spvcoop.loader import compile_glsl_text
    module_text = disassemble(compile_glsl_text(ALIASED, "aliased.comp"))
    hostile = module_text.replace('OpName %OutV4 "OutV4"', 'OpName %OutV4 "0:1"')
    assert hostile != module_text
    aliased = tmp_path / "aliased.spvasm"
    aliased.write_text(hostile)
    rc, out, err = _round_trip(tmp_path, aliased, capsys)
    assert rc == 0 and "[1.0, 2.0, 1.0, 1.0]" in out, err
    assert "  '0:0':  # set 0, binding 0: 0:1 (StorageBuffer, 0:1)" in (tmp_path / "t.yaml").read_text()


def test_a_json_template_is_json_and_a_run_spec_template_is_yaml(tmp_path, capsys):
    """`--template in.json` wrote YAML text, which `--input in.json` reads as JSON (the fuzz driver's `template`
    entry: "invalid JSON"); a run spec named .json is no spec `run` reads, and TOML is not written."""
    import json
    shader = _shader(tmp_path, SI / "unnamed-members" / "shader.spvasm")
    out = tmp_path / "in.json"
    assert main(["run", str(shader), "--template", str(out), "--template-format", "sicompat"]) == 0
    text = out.read_text()
    assert json.loads(text) and '"": [0, 0, 0], "": [0, 0, 0]' in text   # unnamed members repeat '', as in YAML
    capsys.readouterr()
    assert main(["run", str(shader), "--input", str(out)]) == 0
    assert "m0: [0, 0, 0, 0]" in capsys.readouterr().out
    for name, fmt, words in (("t.json", "runspec", "a run-spec template is YAML"),
                             ("in.toml", "sicompat", "not TOML")):
        assert main(["run", str(shader), "--template", str(tmp_path / name), "--template-format", fmt]) == 2
        assert words in capsys.readouterr().err and not (tmp_path / name).exists()

"""SPIRV-Interpreter's input and expected-output files: our own example set (tests/data/sicompat/, one
shader with in/out files per form), its comparison at significant digits, located errors for names and
members that match nothing, and the README section "Coming from SPIRV-Interpreter" executed as shown."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import spvcoop
from spvcoop import SpvError
from spvcoop.cli import main
from spvcoop.runspec.sicompat import si_close
from spvcoop.core.reference_tools import require_tool
from conftest import REPO

ROOT = REPO
DATA = ROOT / "tests" / "data" / "sicompat"


def _files(d: Path) -> tuple[Path, Path]:
    return next(d.glob("in.*")), next(d.glob("out.*"))


# peer/ holds the equivalents of SPIRV-Interpreter's own examples (tests/runspec/test_sicompat_peer.py), shipped/
# its own files (tests/runspec/test_sicompat_shipped.py)
EXAMPLES = sorted(p.name for p in DATA.iterdir() if p.is_dir() and p.name not in ("peer", "shipped"))


def _run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(["run", *map(str, argv)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_every_form_has_an_example():
    assert {"named", "block-name", "result-id", "spec-constants", "descriptors", "precision", "toml",
            "coopmat-arith", "coopmat-muladd", "coopmat-element"} <= set(EXAMPLES)
    suffixes = {f.suffix for d in EXAMPLES for f in _files(DATA / d)}
    assert suffixes == {".yaml", ".json", ".toml"}


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_passes_its_check(name, capsys):
    d = DATA / name
    inp, out = _files(d)
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", inp, "--check", out)
    assert rc == 0, err
    assert f"check passed: {len(_top_keys(out))} buffer(s) match {out}" in err


def _top_keys(path: Path) -> list[str]:
    from spvcoop.runspec.spec import read_yaml
    return list(read_yaml(str(path)))


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in EXAMPLES if (DATA / n / "shader.comp").exists()])
def test_committed_spvasm_is_the_glsl_compiled(name, tmp_path):
    """The .spvasm next to each GLSL file is glslang's output today (so the GLSL documents what runs)."""
    glslang = require_tool("glslangValidator")
    d = DATA / name
    spv = tmp_path / "s.spv"
    p = glslang.run("-V", "--target-env", "vulkan1.3", str(d / "shader.comp"), "-o", str(spv), text=True,
                    timeout=None)
    assert p.returncode == 0, p.stdout + p.stderr
    assert main(["dis", str(spv), "-o", str(tmp_path / "s.spvasm")]) == 0
    assert (tmp_path / "s.spvasm").read_text() == (d / "shader.spvasm").read_text()


def test_result_ids_of_a_binary_are_the_compilers(tmp_path, capsys):
    """glslang numbered the local_size_x_id constant 7; a .spv keeps that number (a .spvasm gets spirv-as's)."""
    d = DATA / "spec-constants"
    spv = tmp_path / "shader.spv"
    assert main(["as", "--preserve-numeric-ids", str(d / "shader.spvasm"), "-o", str(spv)]) == 0
    data = json.loads((d / "in.json").read_text())
    data["7"] = data.pop("6")
    (tmp_path / "in.json").write_text(json.dumps(data))
    rc, _, err = _run(capsys, spv, "--input", tmp_path / "in.json", "--check", d / "out.yaml")
    assert rc == 0, err
    data["7"] = 2   # the workgroup size really comes from this id: 2 lanes do not reach v[2]
    (tmp_path / "in.json").write_text(json.dumps(data))
    rc, _, err = _run(capsys, spv, "--input", tmp_path / "in.json", "--check", d / "out.yaml")
    assert rc == 1 and "result.v[2]: expected -10.5, got 4.0" in err and "result.lanes: expected 4, got 2" in err


# ---- differences are reported with the value's name and both numbers --------------------------------
def _edit(tmp_path: Path, name: str, old: str, new: str) -> Path:
    src = DATA / name / "out.yaml"
    text = src.read_text()
    assert old in text
    out = tmp_path / "out.yaml"
    out.write_text(text.replace(old, new, 1))
    return out


def test_f16_value_differing_at_the_third_digit_fails(tmp_path, capsys):
    out = _edit(tmp_path, "precision", "half_third: [0.333, 0.667,", "half_third: [0.333, 0.68,")
    d = DATA / "precision"
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.yaml", "--check", out)
    assert rc == 1
    assert "check failed: 1 value(s) differ" in err
    assert "values.half_third[1]: expected 0.68, got 0.66650390625 (not equal at 3 significant digits, f16)" in err


def test_f32_value_differing_at_the_sixth_digit_fails(tmp_path, capsys):
    out = _edit(tmp_path, "precision", "third: [0.333333, 0.666667,", "third: [0.333333, 0.66668,")
    d = DATA / "precision"
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.yaml", "--check", out)
    assert rc == 1
    assert "values.third[1]: expected 0.66668, got 0.6666667 (not equal at 6 significant digits, f32)" in err


def test_nested_member_difference_is_named_by_its_path(tmp_path, capsys):
    out = _edit(tmp_path, "named", "motion: {vel: [-0.125, 0.25], drag: 0.5}",
                "motion: {vel: [-0.25, 0.25], drag: 0.5}")
    d = DATA / "named"
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.yaml", "--check", out)
    assert rc == 1 and "world.bodies[1].motion.vel[0]: expected -0.25, got -0.125" in err


def test_integer_difference_in_an_unnamed_member(tmp_path, capsys):
    out = _edit(tmp_path, "result-id", "[10, 21, 32, 43]", "[10, 21, 33, 43]")
    d = DATA / "result-id"
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.yaml", "--check", out)
    assert rc == 1 and "3.m0[2]: expected 33, got 32" in err


def test_nan_expected_where_a_number_came_out(tmp_path, capsys):
    out = _edit(tmp_path, "precision", "root: [1.0, 1.41421, 0.316228, .nan]", "root: [1.0, 1.41421, .nan, .nan]")
    d = DATA / "precision"
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.yaml", "--check", out)
    assert rc == 1 and "values.root[2]: expected nan, got 0.31622776 (not equal" in err


def test_wrong_length_is_reported(tmp_path, capsys):
    d = DATA / "block-name"
    (tmp_path / "out.json").write_text('{"Samples": {"v": [2.0, 5.0, 8.0]}}')
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.json", "--check", tmp_path / "out.json")
    assert rc == 1 and "Samples.v: expected 3 value(s), the output has 6 value(s)" in err


def test_tolerances_instead_of_digits(capsys):
    d = DATA / "precision"
    args = (d / "shader.spvasm", "--input", d / "in.yaml", "--check", d / "out.yaml")
    rc, _, err = _run(capsys, *args, "--check-floats", "tolerance")
    assert rc == 1 and "values.half_third[2]: expected 0.0333, got 0.0333251953125 (difference 2.52e-05)" in err
    rc, _, err = _run(capsys, *args, "--rtol", "1e-3")      # an explicit tolerance means tolerance mode
    assert rc == 0, err
    rc, _, err = _run(capsys, *args, "--rtol", "1e-3", "--check-floats", "digits")
    assert rc == 0, err


def test_run_spec_check_can_compare_at_digits(tmp_path, capsys):
    """--check-floats digits also applies to a run spec's --check (defaults there stay rtol/atol)."""
    d = DATA / "precision"
    (tmp_path / "shader.spvasm").write_text((d / "shader.spvasm").read_text())
    (tmp_path / "run.yaml").write_text("shader: shader.spvasm\nbuffers:\n  values: {x: [1.0, 2.0, 0.1, -1.0], "
                                       "half_third: [0, 0, 0, 0], third: [0, 0, 0, 0], wide_third: [0, 0, 0, 0], "
                                       "root: [0, 0, 0, 0]}\n")
    (tmp_path / "exp.yaml").write_text("values: {half_third: [0.333, 0.667, 0.0333, -0.333]}\n")
    args = (tmp_path / "run.yaml", "--check", tmp_path / "exp.yaml")
    rc, _, err = _run(capsys, *args)
    assert rc == 1 and "values.half_third[1]: expected 0.667, got 0.666503906" in err
    rc, _, err = _run(capsys, *args, "--check-floats", "digits")
    assert rc == 0, err


# ---- the comparison itself ----------------------------------------------------------------------------
@pytest.mark.parametrize("got, expected, digits, same", [
    (0.47998046875, 0.48, 3, True),       # 0.48 has 3 digits: the units 0 counts
    (0.469970703125, 0.47, 3, True),
    (0.0333251953125, 0.0333, 3, True),
    (0.0333251953125, 0.035, 3, False),
    (1.123456, 1.12346, 6, True),
    (1.123454, 1.12346, 6, False),
    (1.999996, 2.0, 6, True),             # rounds up to 2.00000
    (1.99999, 2.0, 6, False),
    (123456.7, 123457.0, 6, True),
    (1234567.0, 1234568.0, 6, True),      # both 1.23457e6
    (1234564.0, 1234566.0, 6, False),
    (0.0003, 0.00031, 6, False),
    (3e-6, 0.0, 6, False),                # below 1e-4: digits from the first nonzero one
    (1.0000004e-6, 1.0e-6, 6, True),
    (-0.0004, 0.0004, 3, True),           # both round to 0.00
    (-0.004, 0.004, 3, True),             # both 0.00, as it decides too
    (-0.006, 0.006, 3, False),
    (float("nan"), float("nan"), 6, True),
    (float("inf"), float("inf"), 6, True),
    (float("inf"), 3e38, 6, False),
    (float("nan"), 1.0, 6, False),
    (65504.0, 65500.0, 3, True),
    (65504.0, 65600.0, 3, False),
])
def test_si_close(got, expected, digits, same):
    assert bool(si_close(got, expected, digits)) is same
    assert bool(si_close(expected, got, digits)) is same


def test_si_close_is_elementwise():
    got = np.array([0.1, 0.2, 0.3], np.float32)
    assert si_close(got, [0.1, 0.2, 0.31], 6).tolist() == [True, True, False]


# ---- names and members that match nothing: located errors ---------------------------------------------
def _fails_with(capsys, argv, *parts):
    rc, _, err = _run(capsys, *argv)
    assert rc == 1, err
    for p in parts:
        assert p in err, err


def test_unknown_variable_is_located_with_a_suggestion(tmp_path, capsys):
    d = DATA / "named"
    (tmp_path / "in.yaml").write_text("# misspelt\nwrold:\n  dt: 0.5\n")
    _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.yaml"),
                "in.yaml:2:1: error: 'wrold' names no variable or specialization constant of the shader "
                "(did you mean 'world'?)")


def test_unknown_member_is_located(tmp_path, capsys):
    d = DATA / "named"
    (tmp_path / "in.yaml").write_text("world:\n  dt: 0.5\n  cuont: 3\n")
    _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.yaml"),
                "in.yaml:3:3: error: World has no member 'cuont' (did you mean 'count'?)")


def test_unknown_nested_member_in_expected_file_is_located(tmp_path, capsys):
    d = DATA / "named"
    (tmp_path / "out.yaml").write_text("world:\n  bodies:\n  - {pos: [0.5, 1.0], motoin: {drag: 0.0}}\n")
    _fails_with(capsys, (d / "shader.spvasm", "--input", d / "in.yaml", "--check", tmp_path / "out.yaml"),
                "out.yaml:3:23: error: Body has no member 'motoin' (did you mean 'motion'?)")


def test_builtin_and_location_inputs_are_refused(tmp_path, capsys):
    d = DATA / "named"
    (tmp_path / "in.yaml").write_text("gl_LocalInvocationID: [0, 0, 0]\n")
    _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.yaml"),
                "'gl_LocalInvocationID' is the built-in input LocalInvocationId", "remove it")
    (tmp_path / "in.yaml").write_text("'@location0': [1, 2]\n")
    _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.yaml"),
                "in.yaml:1:1: error: '@location0': variables matched by location")


def test_a_spec_constant_in_the_expected_file_is_an_error(tmp_path, capsys):
    d = DATA / "spec-constants"
    (tmp_path / "out.yaml").write_text("result: {lanes: 4}\nN: 3\n")
    _fails_with(capsys, (d / "shader.spvasm", "--input", d / "in.json", "--check", tmp_path / "out.yaml"),
                "out.yaml:2:1: error: 'N' is a specialization constant, not an output buffer")


@pytest.mark.parametrize("key, value, why", [
    ("N", "1e400", "spec constant 'N': inf is not a u32 (out of range)"),  # OverflowError in _override, exit 3
    ("N", "4294967296", "4294967296 is not a u32 (out of range -2147483648..4294967295)"),  # wrapped to 0
    ("N", "99999999999999999999999", "is not a u32 (out of range"),  # wrapped to 4135583743
    ("N", "2.5", "spec constant 'N': 2.5 is not a u32 (not a whole number)"),  # truncated to 2
    ("N", "true", "spec constant 'N': True is not a u32"),  # became 1
    ("SCALE", "1e39", "is not a f32 (beyond its largest finite value 3.40282e+38)"),  # infinity
    ("NEGATE", "5", "spec constant 'NEGATE': 5 is not a bool"),  # became true
])
def test_spec_constant_value_out_of_its_range_is_refused(tmp_path, capsys, key, value, why):
    """Issue 32: a value its specialization constant cannot hold is an error at its key (exit 1), never an
    internal error nor a wrapped, truncated or infinite value; in the JSON form (no positions) and in YAML."""
    d = DATA / "spec-constants"
    text = (d / "in.json").read_text()
    old = {"N": '"N": 3', "SCALE": '"SCALE": 2.5', "NEGATE": '"NEGATE": true'}[key]
    assert old in text
    (tmp_path / "in.json").write_text(text.replace(old, f'"{key}": {value}'))
    _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.json"), "in.json: error: ", why)
    line = next(i for i, ln in enumerate(text.split("\n"), 1) if old in ln) - 1  # YAML: no opening brace line
    (tmp_path / "in.yaml").write_text(text.replace(old, f'"{key}": {value}').replace("{\n", "", 1)
                                      .rsplit("}", 1)[0].replace(",\n", "\n"))
    if value != "1e400":  # YAML reads 1e400 as text, not a number
        _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.yaml"), f"in.yaml:{line}:", why)
    # the same values given through the Python API, and by a run spec (at its key there)
    with pytest.raises(SpvError, match="is not a"):
        spvcoop.run(str(d / "shader.spvasm"), spec_constants={key: json.loads(value)})
    if value not in ("1e400", "true", "1e39", "99999999999999999999999"):  # the run spec refuses those itself
        (tmp_path / "shader.spvasm").write_text((d / "shader.spvasm").read_text())
        (tmp_path / "run.yaml").write_text(f"shader: shader.spvasm\nspec_constants:\n  {key}: {value}\n")
        _fails_with(capsys, (tmp_path / "run.yaml",), "run.yaml:3:3: error: spec constant", why.split("'")[-1])


def test_spec_constant_without_spec_id_is_refused(tmp_path, capsys):
    text = (DATA / "result-id" / "shader.spvasm").read_text().replace("OpDecorate %k SpecId 7\n",
                                                                       "OpDecorate %k RelaxedPrecision\n")
    (tmp_path / "k.spvasm").write_text(text)
    (tmp_path / "in.yaml").write_text("'4': 10\n'3': {'': [1, 2, 3, 4]}\n")
    _fails_with(capsys, (tmp_path / "k.spvasm", "--input", tmp_path / "in.yaml"),
                "in.yaml:1:1: error: '4': specialization constant 4 has no SpecId decoration")


def test_empty_member_name_is_ambiguous_with_two_unnamed_members(tmp_path, capsys):
    text = (DATA / "result-id" / "shader.spvasm").read_text()
    text = text.replace("%blk = OpTypeStruct %rt", "%blk = OpTypeStruct %int %rt").replace(
        "OpMemberDecorate %blk 0 Offset 0", "OpMemberDecorate %blk 0 Offset 0\nOpMemberDecorate %blk 1 Offset 4")
    text = text.replace("%p = OpAccessChain %p_int %buf %int_0 %x", "%p = OpAccessChain %p_int %buf %int_1 %x").replace(
        "%int_0 = OpConstant %int 0", "%int_0 = OpConstant %int 0\n%int_1 = OpConstant %int 1")
    (tmp_path / "k.spvasm").write_text(text)
    (tmp_path / "in.yaml").write_text("'4': 10\n'3': {'': [1, 2]}\n")
    _fails_with(capsys, (tmp_path / "k.spvasm", "--input", tmp_path / "in.yaml"),
                "in.yaml:2:7: error: '' is ambiguous: 2 members of the struct have no name")
    (tmp_path / "in.yaml").write_text("'4': 10\n'3': [5, [1, 2, 3, 4]]\n")     # the list form names no member
    assert main(["run", str(tmp_path / "k.spvasm"), "--input", str(tmp_path / "in.yaml"), "-o",
                 str(tmp_path / "o.json")]) == 0
    # named by its %buf
    assert json.loads((tmp_path / "o.json").read_text()) == {"buf": {"m0": 5, "m1": [10, 21, 32, 43]}}


def test_toml_syntax_error_is_located(tmp_path, capsys):
    d = DATA / "toml"
    (tmp_path / "in.toml").write_text('"" = { particles = [\n  { position = 0.25, velocity = },\n] }\n')
    _fails_with(capsys, (d / "shader.spvasm", "--input", tmp_path / "in.toml"), "in.toml:2:", "invalid TOML")


# ---- issue 11 defects 3, 4, 5 (fixed by another helper), checked here through these files --------------
F16_OUT = """OpCapability Shader
OpCapability Float16
OpCapability StorageBuffer16BitAccess
OpExtension "SPV_KHR_16bit_storage"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %buf "buf"
OpMemberName %blk 0 "h"
OpDecorate %arr ArrayStride 2
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%half = OpTypeFloat 16
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%two = OpConstant %uint 2
%arr = OpTypeArray %half %two
%blk = OpTypeStruct %arr
%pb = OpTypePointer StorageBuffer %blk
%buf = OpVariable %pb StorageBuffer
%ph = OpTypePointer StorageBuffer %half
%i0 = OpConstant %int 0
%i1 = OpConstant %int 1
%big = OpConstant %half 65504
%odd = OpConstant %half 1.7001953125
%main = OpFunction %void None %fn
%l = OpLabel
%p0 = OpAccessChain %ph %buf %i0 %i0
OpStore %p0 %big
%p1 = OpAccessChain %ph %buf %i0 %i1
OpStore %p1 %odd
OpReturn
OpFunctionEnd
"""


def test_defect_3_f16_printed_exactly_and_compared_at_its_precision(tmp_path, capsys):
    (tmp_path / "k.spvasm").write_text(F16_OUT)
    (tmp_path / "in.yaml").write_text("buf: {h: [0, 0]}\n")
    rc, out, err = _run(capsys, tmp_path / "k.spvasm", "--input", tmp_path / "in.yaml")
    assert rc == 0, err
    assert out == "h: [65504.0, 1.7001953125]\n"            # not 65500, not 1.7
    for expected in ("buf: {h: [65504, 1.7002]}\n", "h: [65504, 1.7002]\n"):
        (tmp_path / "out.yaml").write_text(expected)
        for mode in ("digits", "tolerance"):
            rc, _, err = _run(capsys, tmp_path / "k.spvasm", "--input", tmp_path / "in.yaml", "--check",
                              tmp_path / "out.yaml", "--check-floats", mode, "--atol", "0", "--rtol", "0")
            assert rc == 0, (mode, err)
    (tmp_path / "out.yaml").write_text("buf: {h: [65504, 1.71]}\n")   # 1.71 is another f16 value
    rc, _, err = _run(capsys, tmp_path / "k.spvasm", "--input", tmp_path / "in.yaml", "--check", tmp_path / "out.yaml",
                      "--check-floats", "tolerance", "--atol", "0", "--rtol", "0")
    assert rc == 1 and "buf.h[1]: expected 1.71, got 1.7001953125" in err


def test_defect_4_result_ids_for_variables_and_spec_constants(capsys):
    d = DATA / "result-id"
    rc, out, err = _run(capsys, d / "shader.spvasm", "--input", d / "in.yaml")
    assert rc == 0, err
    assert out == "m0: [10, 21, 32, 43]\n"   # (v * spec constant 10) + i: both ids were applied


def test_defect_5_json_with_tabs_as_json(tmp_path, capsys):
    d = DATA / "block-name"
    assert "\t" in (d / "in.json").read_text() and "\t" in (d / "out.json").read_text()
    # a JSON-only spelling that YAML would read differently: "1e3" is a string in YAML 1.1, a number in JSON
    (tmp_path / "in.json").write_text('{\n\t"Samples": {"gain": 1e0, "v": [1e3, 2]}\n}\n')
    (tmp_path / "out.json").write_text('{\n\t"Samples": {"v": [1e3, 3]}\n}\n')
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", tmp_path / "in.json", "--check", tmp_path / "out.json")
    assert rc == 0, err


# ---- README: the section's console examples run as shown -----------------------------------------------
def _readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Coming from SPIRV-Interpreter")
    end = text.index("\n## ", start + 10)
    return text[start:end]


def _console_examples(section: str) -> list[tuple[str, str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        cmd, lines = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    out.append((cmd, "".join(lines)))
                cmd, lines = line[2:], []
            else:
                lines.append(line + "\n")
        out.append((cmd, "".join(lines)))
    return out


def test_readme_section_console_examples(monkeypatch, capsys):
    examples = _console_examples(_readme_section())
    assert len(examples) == 4
    monkeypatch.chdir(ROOT)
    for cmd, shown in examples:
        argv = shlex.split(cmd)
        assert argv[0] == "spvcoop"
        rc = main(argv[1:])
        cap = capsys.readouterr()
        assert cap.out + cap.err == shown, cmd
        assert rc == (1 if "check failed" in shown else 0), cmd


def test_readme_section_names_every_example_form():
    section = _readme_section()
    for form in ("'@set0binding1'", "`''`", "`.toml`", "`'6':`", "`Samples:`", "`M: 8`", "3 significant digits"):
        assert form in section, form


def test_deeply_nested_toml_is_a_located_error() -> None:
    from spvcoop.core.diagnostics import SpvError
    from spvcoop.runspec.spec import load_toml
    with pytest.raises(SpvError, match="nested too deeply"):
        load_toml(b"a = " + b"[" * 100000 + b"]" * 100000, "deep.toml")


def test_more_unnamed_values_than_unnamed_members_is_a_located_error(tmp_path, capsys):
    d = DATA / "unnamed-members"
    text = (d / "in.yaml").read_text().replace("    '': 1.75\n", "    '': 1.75\n    '': 4\n")
    (tmp_path / "in.yaml").write_text(text)
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", tmp_path / "in.yaml")
    assert rc == 1
    assert "in.yaml:10:5: error: 4 values named '' but the struct has 3 unnamed member(s)" in err


def test_a_repeated_named_key_is_still_a_duplicate(tmp_path, capsys):
    d = DATA / "pointers"
    (tmp_path / "in.yaml").write_text("vals: {a: [1, 2, 3, 4], a: [5, 6, 7, 8]}\n")
    rc, _, err = _run(capsys, d / "shader.spvasm", "--input", tmp_path / "in.yaml")
    assert rc == 1 and "in.yaml:1:25: error: invalid YAML: duplicate key 'a'" in err

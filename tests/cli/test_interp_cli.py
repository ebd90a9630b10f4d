"""`spvcoop run` from the command line, the samples, the SPIRV-Interpreter in/out.yaml convention and the pytest
fixture."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from spvcoop.cli import main
from spvcoop.core.reference_tools import find_tool
from conftest import REPO

ROOT = REPO
SAMPLES = ROOT / "samples"
needs_glslang = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")


@needs_glslang
def test_saxpy_sample_and_check(capsys):
    assert main(["run", str(SAMPLES / "saxpy" / "run.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("y: [1.0, 3.0, 5.0")
    assert main(["run", str(SAMPLES / "saxpy" / "run.yaml"), "--check", str(SAMPLES / "saxpy" / "expected.yaml")]) == 0
    assert "check passed" in capsys.readouterr().err


@needs_glslang
def test_check_failure_prints_first_differences(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("y: {data: [1, 3, 5, 7, 9, 11, 13, 14.5], atol: 0.1}\n")
    assert main(["run", str(SAMPLES / "saxpy" / "run.yaml"), "--check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "y[7]: expected 14.5, got 15" in err and "1 value(s) differ" in err


@needs_glslang
def test_spirv_interpreter_style_input_and_check(capsys):
    d = SAMPLES / "particles"
    assert main(["run", str(d / "particles.comp"), "--input", str(d / "in.yaml"), "--check", str(d / "out.yaml")]) == 0
    assert main(["run", str(d / "particles.comp"), "--input", str(d / "in.yaml")]) == 0
    out = capsys.readouterr().out
    assert "- pos: [0.75, 0.5]" in out and "hits: 7" in out


@needs_glslang
def test_outputs_json_and_npy(tmp_path):
    j = tmp_path / "out.json"
    assert main(["run", str(SAMPLES / "saxpy" / "run.yaml"), "-o", str(j)]) == 0
    assert json.loads(j.read_text())["y"] == [1, 3, 5, 7, 9, 11, 13, 15]
    d = tmp_path / "npy"
    d.mkdir()
    assert main(["run", str(SAMPLES / "saxpy" / "run.yaml"), "-o", str(d)]) == 0
    np.testing.assert_array_equal(np.load(d / "y.npy"), [1, 3, 5, 7, 9, 11, 13, 15])


@needs_glslang
def test_generated_buffers_and_spec_constants(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"""
shader: {ROOT / 'tests/glsl/interp/spec_const.comp'}
dispatch: [4, 1, 1]
spec_constants: {{0: 2, SCALE: 10}}
buffers:
  "0:0": {{arange: 8}}
""")
    assert main(["run", str(spec), "--allow-outside-files", "-o", str(tmp_path / "o.yaml")]) == 0
    import yaml
    got = yaml.safe_load((tmp_path / "o.yaml").read_text())["v"]
    assert got == [i * 10 + 20 + 2 for i in range(8)]  # int buffer: arange typed by the shader as int32


@needs_glslang
def test_random_data_is_reproducible(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"""
shader: {ROOT / 'tests/glsl/interp/saxpy.comp'}
dispatch: 2
push_constants: {{a: 0.0, n: 128}}
buffers:
  x: {{zeros: 128}}
  y: {{random: {{seed: 3, distribution: normal, count: 128}}}}
""")
    assert main(["run", str(spec), "--allow-outside-files", "-o", str(tmp_path / "o.json")]) == 0
    y = json.loads((tmp_path / "o.json").read_text())["y"]
    exp = np.random.default_rng(3).normal(0, 1, 128).astype(np.float32)
    np.testing.assert_array_equal(np.array(y, np.float32), exp)


def test_bad_spec_is_a_diagnostic_not_a_traceback(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text("shader: x.spvasm\ndispatchh: 1\n")
    assert main(["run", str(spec)]) == 1
    err = capsys.readouterr().err
    assert "unknown key 'dispatchh'" in err and "did you mean 'dispatch'" in err and "Traceback" not in err


def test_max_steps_and_trace(tmp_path, capsys):
    src = tmp_path / "loop.spvasm"
    src.write_text("""OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 2 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%t = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %h
%h = OpLabel
OpLoopMerge %m %h None
OpBranchConditional %t %h %m
%m = OpLabel
OpReturn
OpFunctionEnd
""")
    assert main(["run", str(src), "--max-steps", "50", "--trace", "1"]) == 1
    err = capsys.readouterr().err
    assert "step limit of 50 executed instructions reached" in err and "--max-steps" in err
    assert "OpBranchConditional" in err and "loop.spvasm:" in err


def test_fixture_runs_glsl_source_in_one_line(spvcoop_run):
    if find_tool("glslangValidator") is None:
        pytest.skip("glslangValidator not installed")
    res = spvcoop_run("""
        #version 450
        layout(local_size_x = 32) in;
        layout(binding = 0) buffer B { float v[]; };
        void main() { v[gl_GlobalInvocationID.x] = v[gl_GlobalInvocationID.x] * 2.0 + 1.0; }
    """, dispatch=(2, 1, 1), buffers={0: np.arange(64, dtype=np.float32)})
    np.testing.assert_array_equal(res["v"], np.arange(64) * 2 + 1)


def test_plugin_imports_cheaply():
    code = "import sys, spvcoop.pytest_plugin; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


@needs_glslang
@pytest.mark.parametrize("sample", ["saxpy", "reduce"])
def test_samples_match_their_expected_output(sample, capsys):
    d = SAMPLES / sample
    assert main(["run", str(d / "run.yaml"), "--check", str(d / "expected.yaml"), "-q"]) == 0


@needs_glslang
def test_list_form_buffers_by_set_and_binding(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"""
shader: {ROOT / 'tests/glsl/interp/saxpy.comp'}
dispatch: 1
push_constants: {{a: 3.0, n: 4}}
buffers:
  - {{set: 0, binding: 0, data: [1, 2, 3, 4]}}
  - {{set: 0, binding: 1, data: [10, 10, 10, 10], dtype: float32}}
outputs: ["0:1"]
""")
    assert main(["run", str(spec), "--allow-outside-files", "-o", str(tmp_path / "o.json")]) == 0
    assert json.loads((tmp_path / "o.json").read_text()) == {"0:1": [13, 16, 19, 22]}


def test_progress_indicator_only_after_a_second(monkeypatch, capsys):
    from spvcoop.commands.run import Progress
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    p = Progress(True)
    p(1024)
    assert capsys.readouterr().err == ""
    p.line.start -= 2.0
    p(2048)
    p.done()
    err = capsys.readouterr().err
    assert "running: 2,048 instructions" in err


def test_readme_sample_runs_without_glslang_and_matches_its_glsl_source(tmp_path):
    """The README's first command runs samples/saxpy/run.yaml, whose shader is the .spvasm
    compiled from saxpy.comp (so `pip install .` needs no GLSL compiler): both give the same y."""
    import numpy as np
    import spvcoop
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, dtype=np.float32)
    outs = [spvcoop.run(f"samples/saxpy/saxpy.{ext}", dispatch=(1, 1, 1), buffers={"x": x, "y": y.copy()},
                        push_constants={"a": 2.0, "n": 64})["y"] for ext in ("spvasm", "comp")]
    assert (outs[0] == outs[1]).all()
    assert (outs[0] == 2 * x + 1).all()

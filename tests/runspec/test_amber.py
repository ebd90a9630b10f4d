"""Amber scripts (issue 35): `spvcoop run FILE.amber` for AmberScript and VkScript compute tests, on our own files
(tests/data/amber/, one per construct and SPIR-V area) and on google/amber's compute files
(tests/data/amber/upstream/); failed EXPECTs, unsupported features and malformed scripts."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, TESTS, run_cli
from spvcoop.core.diagnostics import SpvError
from spvcoop.core.reference_tools import find_tool
from spvcoop.runspec.amber import AmberUnsupported, parse
from spvcoop.runspec.amber_run import run_plan

DATA = TESTS / "data" / "amber"
OWN = sorted(p for p in DATA.iterdir() if p.suffix in (".amber", ".vkscript"))
pytestmark = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")

# upstream files that do not pass, and why (the README lists them)
UPSTREAM_NOT_PASSING = {
    "compute_robust_buffer_access_ssbo.amber": "race",   # every invocation increments the same words
    "compute_one_buffer_in_multiple_bindings.amber": "unsupported",   # texel buffers
}
# google/amber's compute tests and the Vulkan CTS's
UPSTREAM = sorted(p for d in ("upstream", "cts") for p in (DATA / d).rglob("*") if p.suffix in (".amber", ".vkscript"))


def _run(path: Path, **options):
    return run_plan(parse(path.read_text(), str(path)), options)


@pytest.mark.parametrize("path", OWN, ids=lambda p: p.name)
def test_own_scripts_pass(path):
    out = _run(path)
    assert not out.failures, out.failures
    assert out.expects > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", UPSTREAM, ids=lambda p: p.name)
def test_upstream_scripts(path):
    why = UPSTREAM_NOT_PASSING.get(path.name)
    if why == "race":
        with pytest.raises(SpvError, match="data race"):
            _run(path)
        return
    if why == "unsupported":
        with pytest.raises(AmberUnsupported):
            _run(path)
        return
    out = _run(path)
    assert not out.failures, out.failures


def test_cli_passes_and_counts(capsys):
    rc, out, err = run_cli(capsys, "run", str(DATA / "core.amber"))
    assert rc == 0 and out == ""
    assert err.strip() == f"{DATA / 'core.amber'}: 6 EXPECT(s) passed after 2 RUN(s)"
    assert run_cli(capsys, "run", str(DATA / "core.amber"), "-q")[2] == ""


def test_buffers_carry_over_between_runs():
    out = _run(DATA / "core.amber")
    assert out.runs == 2
    assert np.frombuffer(bytes(out.buffers["out_buf"]), np.int32).tolist() == [2 * a + 2 for a in range(1, 9)]


def _script(tmp_path, text: str, name: str = "t.amber") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_failed_expect_is_reported_at_its_line(tmp_path, capsys):
    text = (DATA / "core.amber").read_text().replace("IDX 16 EQ 12 14 16 18", "IDX 16 EQ 12 14 17 18")
    path = _script(tmp_path, text)
    line = text.splitlines().index("EXPECT out_buf IDX 16 EQ 12 14 17 18") + 1
    rc, out, err = run_cli(capsys, "run", path)
    assert rc == 1
    assert err.startswith(f"{path}:{line}:1: error: EXPECT out_buf IDX 16 failed at value 2 (byte 24): got 16, "
                          "expected == 17\n")
    # floats: the value as the buffer's type holds it, the tolerance said
    text = (DATA / "layouts.amber").read_text().replace("TOLERANCE 0.01 EQ 3.005", "TOLERANCE 0.001 EQ 3.005")
    rc, out, err = run_cli(capsys, "run", _script(tmp_path, text, "f.amber"))
    assert rc == 1 and "got 3, expected ~= 3.005 within 0.001" in err


def test_every_failed_expect_reported(tmp_path):
    text = "#!amber\nBUFFER a DATA_TYPE float DATA 1.5 2.5 END\nBUFFER b DATA_TYPE float DATA 1.5 2.0 END\n" \
           "EXPECT a IDX 0 GT 1.5\nEXPECT a IDX 4 LE 2.0\nEXPECT a EQ_BUFFER b\n" \
           "EXPECT a RMSE_BUFFER b TOLERANCE 0.3\nEXPECT a RMSE_BUFFER b TOLERANCE 0.4\nEXPECT a IDX 0 NE 1.5\n"
    out = run_plan(parse(text, "t.amber"))
    assert [d.span.line for d in out.failures] == [4, 5, 6, 7, 9]
    assert "1 value(s) differ, the first at value 1: 2.5 and 2" in out.failures[2].message
    assert "root mean square error 0.353553 is greater than the tolerance 0.3" in out.failures[3].message


def test_unsupported_feature_is_one_line_exit_2(tmp_path, capsys):
    for line in ("DEVICE_FEATURE geometryShader", "DEVICE_EXTENSION VK_KHR_ray_query",
                 "INSTANCE_EXTENSION VK_EXT_debug_utils"):
        path = _script(tmp_path, f"#!amber\n{line}\n")
        rc, out, err = run_cli(capsys, "run", path)
        name = line.split()[1]
        assert rc == 2 and err.splitlines()[0] == \
            f"{path}:2:{len(line) - len(name) + 1}: error: {line} is not supported by spvcoop's interpreter"
    # VkScript's [require] alike
    path = _script(tmp_path, "[require]\nsparseBinding\n[compute shader]\n#version 450\nvoid main() {}\n",
                   "v.amber")
    rc, out, err = run_cli(capsys, "run", path)
    assert rc == 2 and "DEVICE_FEATURE sparseBinding is not supported" in err


@pytest.mark.parametrize("text, line, col, message", [
    ("#!amber\nBUFFER b DATA_TYPE int33 DATA 1 END\n", 2, 20, "unknown data type 'int33'"),
    ("#!amber\nBUFFER b DATA_TYPE int8 DATA 300 END\n", 2, 30, "bad value '300' for int8: 300 does not fit in 8 bits"),
    ("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 2\n", 2, 33, "expected a value or END, found the end of the file"),
    ("#!amber\nBUFFER b DATA_TYPE int32 SIZE 4\n", 2, 32, "expected FILL or SERIES_FROM after '4'"),
    ("#!amber\nRUN nothing 1 1 1\n", 2, 5, "no pipeline named 'nothing'"),
    ("#!amber\nFROB\n", 2, 1, "unknown command 'FROB'"),
    ("#!amber\nSHADER compute s GLSL\n#version 450\n", 2, 1, "shader 's' has no END"),
    ("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 END\nEXPECT b IDX 0 ABOUT 1\n", 3, 16, "unknown comparator 'ABOUT'"),
    ("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 END\nEXPECT b IDX 2 EQ 1\n", 3, 1, "not a multiple of the element size"),
    ("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 END\nEXPECT b IDX 0 EQ 1 2\n", 3, 1, "would read past the buffer's end"),
    ("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 END\nREPEAT 2\nBUFFER c DATA_TYPE int32 DATA 1 END\nEND\n", 4, 1,
     "BUFFER cannot be used inside REPEAT"),
    ("#!amber\nSHADER compute s GLSL\nEND\nPIPELINE compute p\nATTACH s\nBIND BUFFER nope AS storage "
     "DESCRIPTOR_SET 0 BINDING 0\nEND\n", 6, 13, "no buffer named 'nope'"),
    ("#!amber\nSHADER compute s GLSL\nEND\nPIPELINE compute p\nATTACH s\nSUBGROUP s\nREQUIRED_SIZE 12\nEND\nEND\n",
     7, 15, "REQUIRED_SIZE 12 is not a power of two"),
    ("[compute shader]\n#version 450\nvoid main() {}\n[test]\nprobe ssbo float 0 0 =~ 1\n", 5, 22,
     "unknown comparison '=~'"),
    ("[compute shader]\n#version 450\nvoid main() {}\n[test]\nssbo 0 subdata vec2 0 1 2 3\n", 5, 23,
     "expected a multiple of 2 values for vec2"),
    ("[test]\ncompute 1 1\n", 2, 1, "compute takes three workgroup counts"),
    ("some words\n", 1, 1, "expected a section such as [compute shader] or [test]"),
])
def test_malformed_scripts_are_located_errors(tmp_path, capsys, text, line, col, message):
    path = _script(tmp_path, text)
    rc, out, err = run_cli(capsys, "run", path)
    assert rc == 1, err
    head = err.splitlines()[0]
    assert head.startswith(f"{path}:{line}:{col}: error: ") and message in head, head
    assert "Traceback" not in err


@pytest.mark.parametrize("text, word", [
    ("#!amber\nPIPELINE graphics g\nEND\n", "graphics pipelines are not supported"),
    ("#!amber\nSHADER vertex v PASSTHROUGH\n", "PASSTHROUGH vertex shaders"),
    ("#!amber\nBUFFER img FORMAT B8G8R8A8_UNORM\n", "FORMAT B8G8R8A8_UNORM is not supported"),
    ("#!amber\nBUFFER img FORMAT R32_SFLOAT\n", "an image buffer"),
    ("#!amber\nSHADER compute s OPENCL-C\nEND\n", "OPENCL-C shaders are not supported"),
    ("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 END\nEXPECT b IDX 0 0 SIZE 1 1 EQ_RGB 1 2 3\n", "image probe"),
    ("[vertex shader passthrough]\n", "graphics pipelines are not supported"),
    ("[compute shader]\n#version 450\nvoid main() {}\n[test]\ndraw rect 0 0 1 1\n", "graphics command"),
])
def test_graphics_and_images_are_unsupported_exit_2(tmp_path, capsys, text, word):
    rc, out, err = run_cli(capsys, "run", _script(tmp_path, text))
    assert rc == 2 and word in err.splitlines()[0]


def test_shader_errors_point_into_the_script(tmp_path, capsys):
    text = "#!amber\n\nSHADER compute s GLSL\n#version 450\nvoid main() { undeclared = 1; }\nEND\n" \
           "PIPELINE compute p\n  ATTACH s\nEND\nRUN p 1 1 1\n"
    path = _script(tmp_path, text)
    rc, out, err = run_cli(capsys, "run", path)
    assert rc == 1 and f"{path}:5:" in err and "undeclared" in err and "/tmp" not in err.replace(str(tmp_path), "")
    text = "#!amber\nSHADER compute s SPIRV-ASM\n  OpCapability Shader\n  OpBogus\nEND\n"
    path = _script(tmp_path, text, "asm.amber")
    rc, out, err = run_cli(capsys, "run", path)
    assert rc == 0   # a shader no pipeline attaches is not compiled
    text += "PIPELINE compute p\n  ATTACH s\nEND\nRUN p 1 1 1\n"
    rc, out, err = run_cli(capsys, "run", _script(tmp_path, text, "asm.amber"))
    assert rc == 1 and err.startswith(f"{path}:4:3: error:")   # before the first RUN


def test_runtime_error_names_the_run(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "run", str(DATA / "robust.amber"), "--robust-buffer-access", "off")
    assert rc == 1 and "out-of-bounds load of 4 bytes at byte offset 32 of 'In'" in err
    assert f"in RUN p at {DATA / 'robust.amber'}:26" in err


def test_robust_buffer_access_option():
    """Off by default in run() and run specs (an out-of-bounds access is an error); on: loads read zero, stores are
    dropped, and the race detector ignores what they did not touch."""
    import spvcoop
    src = """#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer In { uint x[4]; };
layout(set = 0, binding = 1) buffer Out { uint y[]; };
void main() { uint i = gl_GlobalInvocationID.x; y[i] = x[i] + 1; x[i + 4] = 9; }"""
    bufs = {(0, 0): np.arange(4, dtype=np.uint32), (0, 1): np.zeros(6, np.uint32)}
    with pytest.raises(SpvError, match="index 4 out of bounds for u32"):
        spvcoop.run(src, buffers=bufs)
    res = spvcoop.run(src, buffers=bufs, robust_buffer_access=True)
    assert res[(0, 1)].tolist() == [1, 2, 3, 4, 1, 1]
    assert res[(0, 0)].tolist() == [0, 1, 2, 3]
    assert not [d for d in res.diagnostics if d.rule == "interp.race"]


def test_subgroup_size_as_required(tmp_path):
    out = _run(DATA / "subgroup.amber")
    assert not out.failures
    text = (DATA / "subgroup.amber").read_text().replace("REQUIRED_SIZE 8", "REQUIRED_SIZE 64", 1)
    with pytest.raises(SpvError, match="FULLY_POPULATED: the workgroup's x size 32 is not a multiple of the "
                                       "subgroup size 64"):
        run_plan(parse(text, "s.amber"))


def test_subgroup_min_max(tmp_path):
    text = (DATA / "subgroup.amber").read_text().replace("REQUIRED_SIZE 8", "REQUIRED_SIZE MIN", 1)
    text = text.split("RUN by8")[0] + "RUN by8 2 1 1\nEXPECT sums IDX 0 EQ 4 4 4 4 4 4 4 4\n"
    out = run_plan(parse(text, "s.amber"))
    assert not out.failures and out.runs == 1


def test_benign_race_is_a_warning(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "run", str(DATA / "upstream" / "compute_push_constant_and_ssbo.amber"))
    assert rc == 0 and "warning[interp.race]: benign data race on 'block0'" in err


_BUFFER_ARRAY = """#!amber
SHADER compute s GLSL
#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const int N = 1;
layout(binding = 0) buffer block0 { int data[N]; } arr[2];
layout(binding = 1) buffer Idx { int i; int got; int one; } idx;
void main() {
  idx.got = arr[0].data[idx.i];
  arr[1].data[idx.one] = arr[0].data[0] + arr[0].data[idx.one];
}
END
BUFFER b0 DATA_TYPE int32 DATA 1 2 END
BUFFER b1 DATA_TYPE int32 DATA 3 4 END
BUFFER ix DATA_TYPE int32 DATA INDEX 0 1 END
PIPELINE compute p
  ATTACH s SPECIALIZE 0 AS int32 2
  BIND BUFFER_ARRAY b0 b1 AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER ix AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT ix IDX 4 EQ 2
EXPECT b1 IDX 0 EQ 3 3
"""


def test_buffer_array_of_blocks_holding_arrays():
    """Each buffer of a BUFFER_ARRAY sits at its element's place, the block's size counting the arrays in it (their
    lengths from spec constants too): the shader read and wrote all-zero, empty buffers before."""
    out = run_plan(parse(_BUFFER_ARRAY.replace("INDEX", "1"), "a.amber"))
    assert not out.failures, out.failures
    assert np.frombuffer(bytes(out.buffers["b1"]), np.int32).tolist() == [3, 3]


def test_buffer_array_index_past_one_block_is_an_error():
    """arr[0].data[2] lies past b0's block: with robustBufferAccess (on for Amber) it read and wrote b1, the next
    buffer of the array in the interpreter's one memory; now every index into a descriptor array is checked."""
    with pytest.raises(SpvError) as e:
        run_plan(parse(_BUFFER_ARRAY.replace("INDEX", "2"), "a.amber"))
    d = e.value.diagnostics[0]
    assert "index 2 out of bounds for i32[2] in 'arr'" in d.message and d.span.line == 9
    assert any("robustBufferAccess does not cover the buffers of a BUFFER_ARRAY" in n.message for n in d.notes)


def test_expect_reads_vec3_components_at_their_places(tmp_path, capsys):
    """A vec3 takes a vec4's room: EXPECT reads each element's three components and never its padding word (99
    here); an offset inside an element is refused as Amber's verifier refuses it, in VkScript too (it compared the
    padding as the third value before)."""
    text = ("[compute shader]\n#version 450\nlayout(local_size_x = 1) in;\n"
            "layout(set = 0, binding = 0) buffer A { vec3 v[]; };\nvoid main() { v[1].y += 10.0; }\n\n[test]\n"
            "ssbo 0 subdata float 0 1 2 3 99 4 5 6 99\ncompute 1 1 1\nprobe ssbo vec3 0 0 == 1 2 3 4 15 6\n"
            "probe ssbo vec3 0 16 == 4 15 6\n")
    out = run_plan(parse(text, "v.vkscript"))
    assert not out.failures and out.expects == 2
    rc, _, err = run_cli(capsys, "run", _script(tmp_path, text + "probe ssbo vec3 0 4 == 2 3 99\n", "v.vkscript"))
    assert rc == 1 and "v.vkscript:12:1: error: EXPECT 0:0 IDX 4: the byte offset is not a multiple of the element " \
        "size (16 bytes of vec3)" in err
    amber = ("#!amber\nBUFFER v DATA_TYPE vec3<float> DATA 1 2 3 4 5 6 END\nEXPECT v IDX 16 EQ 4 5 6\n"
             "EXPECT v IDX 0 EQ 1 2 3 4 5\nEXPECT v IDX 0 EQ 1 2 3 0\n")
    out = run_plan(parse(amber, "v.amber"))
    assert [f.message for f in out.failures] == ["EXPECT v IDX 0 failed at value 3 (byte 16): got 4, expected == 0"]


def test_buffer_array_needs_an_array_of_fixed_blocks(tmp_path, capsys):
    text = (DATA / "cts" / "write_ssbo_array.amber").read_text().replace("} ssbo_array[2];", "} ssbo_array[3];")
    rc, out, err = run_cli(capsys, "run", _script(tmp_path, text))
    assert rc == 2 and "BUFFER_ARRAY of 2 buffers at descriptor set 0 binding 0: the shader's variable there is " \
        "block0[3], not an array of that many blocks" in err


def test_amber_refuses_run_spec_flags(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "run", str(DATA / "core.amber"), "--check", "x.yaml")
    assert rc == 2 and "--check does not apply to an Amber script" in err


@pytest.mark.slow
def test_pytest_collects_amber_files_when_asked(tmp_path):
    """The plugin's ini option: one test item per .amber/.vkscript file; a failed EXPECT fails it with the short
    report at the script's line, an unsupported feature skips it; without the option nothing is collected."""
    import shutil
    import subprocess
    import sys
    shutil.copy(DATA / "core.amber", tmp_path / "good.amber")
    shutil.copy(DATA / "vkscript.vkscript", tmp_path / "old.vkscript")
    bad = (DATA / "core.amber").read_text().replace("IDX 16 EQ 12 14 16 18", "IDX 16 EQ 12 14 17 18")
    (tmp_path / "bad.amber").write_text(bad)
    (tmp_path / "gfx.amber").write_text("#!amber\nPIPELINE graphics g\nEND\n")

    def pytest(*args):
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *args],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
    p = pytest(".")
    assert "no tests ran" in p.stdout, p.stdout
    (tmp_path / "pytest.ini").write_text("[pytest]\nspvcoop_amber = true\n")
    p = pytest(".")
    assert p.returncode == 1, p.stdout + p.stderr
    out = p.stdout
    assert "1 failed, 2 passed, 1 skipped" in out, out
    line = bad.splitlines().index("EXPECT out_buf IDX 16 EQ 12 14 17 18") + 1
    assert f"bad.amber:{line}:1: error: EXPECT out_buf IDX 16 failed at value 2 (byte 24): got 16, expected == 17" \
        in out
    assert "graphics pipelines are not supported" in out   # the skip's reason
    failure = out[out.index("_ amber: bad.amber _"):out.index("short test summary")]
    assert len(failure.splitlines()) < 8 and "Traceback" not in failure and "spvcoop/" not in failure, failure


def test_emit_amber_round_trip(tmp_path, capsys):
    """--emit-amber writes the run as an Amber script that passes on the interpreter (the outputs it computed are
    the EXPECTs); a different output fails it; an existing file needs --force."""
    root = REPO
    out = tmp_path / "saxpy.amber"
    rc, stdout, err = run_cli(capsys, "run", str(root / "samples/saxpy/run.yaml"), "--emit-amber", str(out), "-q")
    assert rc == 0 and out.exists()
    text = out.read_text()
    for line in ("SHADER compute shader SPIRV-ASM TARGET_ENV spv1.", "BIND BUFFER push_constants AS push_constant",
                 "RUN pipeline 1 1 1", "EXPECT y EQ_BUFFER y_expected"):
        assert line in text
    assert "BUFFER y_expected DATA_TYPE float DATA\n1 3 5 7 9 11 13 15\nEND" in text
    res = run_plan(parse(text, str(out)))
    assert not res.failures and res.runs == 1 and res.expects == 2
    wrong = run_plan(parse(text.replace("1 3 5 7 9 11 13 15", "1 3 5 7 9 11 13 16"), str(out)))
    assert len(wrong.failures) == 1 and "EQ_BUFFER y_expected failed: 1 value(s) differ" in wrong.failures[0].message
    rc, stdout, err = run_cli(capsys, "run", str(root / "samples/saxpy/run.yaml"), "--emit-amber", str(out))
    assert rc == 2 and "exists; -f/--force overwrites it" in err
    assert run_cli(capsys, "run", str(root / "samples/saxpy/run.yaml"), "--emit-amber", str(out), "-f", "-q")[0] == 0


def test_emit_amber_structured_buffers_and_spec_constants(tmp_path, capsys):
    (tmp_path / "s.comp").write_text("""#version 450
layout(local_size_x = 2) in;
layout(constant_id = 3) const int K = 1;
struct P { float a; int b; };
layout(set = 0, binding = 0) buffer B { P p[2]; uint n; } buf;
layout(set = 0, binding = 1) uniform U { vec4 scale; } u;
void main() { uint i = gl_LocalInvocationID.x; buf.p[i].a *= u.scale.x; buf.p[i].b += K; if (i == 0) buf.n = 7; }
""")
    (tmp_path / "run.yaml").write_text("shader: s.comp\nspec_constants: {3: 5}\nbuffers:\n"
                                       "  buf: {p: [{a: 1.5, b: 1}, {a: -2, b: 2}], n: 0}\n"
                                       "  u: {scale: [2, 0, 0, 0]}\n")
    out = tmp_path / "s.amber"
    rc, stdout, err = run_cli(capsys, "run", str(tmp_path / "run.yaml"), "--emit-amber", str(out), "-q")
    assert rc == 0, err
    text = out.read_text()
    assert "SPECIALIZE 3 AS uint32 5" in text and "AS uniform DESCRIPTOR_SET 0 BINDING 1" in text
    assert "BUFFER buf DATA_TYPE uint32 DATA\n0x3fc00000 0x00000001 0xc0000000 0x00000002 0x00000000\nEND" in text
    res = run_plan(parse(text, str(out)))
    assert not res.failures and res.expects == 1   # the uniform buffer is input only
    assert np.frombuffer(bytes(res.buffers["buf"]), np.float32)[[0, 2]].tolist() == [3.0, -4.0]


@pytest.mark.parametrize("name, layout, stride, offsets", [
    ("float", "std430", 4, [0]), ("float", "std140", 4, [0]), ("vec3<float>", "std430", 16, [0, 4, 8]),
    ("vec2<int16>", "std430", 4, [0, 2]), ("vec2<float>", "std140", 8, [0, 4]),
    ("vec3<float>", "std140", 16, [0, 4, 8]),
    ("float[]", "std430", 4, [0]), ("float[]", "std140", 16, [0]), ("vec2<float>[]", "std140", 16, [0, 4]),
    ("float16[]", "std140", 8, [0]), ("mat2x2<double>", "std140", 64, [0, 8, 32, 40]),
    ("mat2x2<float>", "std430", 16, [0, 4, 8, 12]), ("mat2x2<float>", "std140", 32, [0, 4, 16, 20]),
    ("mat3x3<float>", "std430", 48, [0, 4, 8, 16, 20, 24, 32, 36, 40]), ("mat2x3<double>", "std430", 64,
                                                                          [0, 8, 16, 32, 40, 48]),
])
def test_amber_type_layouts(name, layout, stride, offsets):
    """Where Amber puts each component of an element (amber_types.py, as google/amber's Format and its parser tests:
    `uint32 STD140` is 4 bytes an element, `uint32[] STD140` 16): a vec3 takes a vec4's room; std140 pads a
    matrix's columns and an array type's elements to four components (it padded every element to 16 bytes before,
    so a plain `float STD140` buffer's values sat 16 bytes apart)."""
    from spvcoop.runspec.amber_types import amber_type
    t = amber_type(name)
    assert t is not None and t.stride(layout) == stride and t.offsets(layout).tolist() == offsets


def test_std140_pads_matrices_and_array_types_only(tmp_path):
    """As google/amber lays buffers out: `float STD140` values packed, `float[] STD140` ones 16 bytes apart (every
    std140 element took 16 bytes before); VkScript's `uniform ubo` data is std140 (a mat2's columns 16 bytes apart;
    it was written std430, so the shader read the second column from the wrong bytes)."""
    text = ("#!amber\nBUFFER a DATA_TYPE float STD140 DATA 1 2 3 END\nBUFFER b DATA_TYPE float[] STD140 DATA 1 2 END\n"
            "EXPECT a IDX 4 EQ 2 3\nEXPECT b IDX 16 EQ 2\n")
    out = run_plan(parse(text, "l.amber"))
    assert not out.failures and out.expects == 2
    assert np.frombuffer(bytes(out.buffers["a"]), np.float32).tolist() == [1, 2, 3]
    assert np.frombuffer(bytes(out.buffers["b"]), np.float32).tolist() == [1, 0, 0, 0, 2, 0, 0, 0]
    vk = ("[compute shader]\n#version 450\nlayout(local_size_x = 1) in;\n"
          "layout(set = 0, binding = 0) uniform U { mat2 m; };\nlayout(set = 0, binding = 1) buffer O { float o[]; };\n"
          "void main() { o[0] = m[1][0]; o[1] = m[1][1]; }\n\n[test]\nuniform ubo 0:0 mat2 0 1 2 3 4\nssbo 0:1 8\n"
          "compute 1 1 1\nprobe ssbo float 0:1 0 == 3 4\n")
    out = run_plan(parse(vk, "m.vkscript"))
    assert not out.failures, out.failures


def test_amber_values():
    from spvcoop.runspec.amber_types import amber_type, parse_number, to_array, vk_type
    f16, u32, i8 = amber_type("float16"), amber_type("uint32"), amber_type("int8")
    assert to_array([parse_number("0x3c00", f16)], f16).tolist() == [1.0]       # hex: the bit pattern
    assert to_array([parse_number("-1", u32)], u32).tolist() == [0xFFFFFFFF]    # negative unsigned wraps
    assert to_array([parse_number("2.0", i8)], i8).tolist() == [2]
    with pytest.raises(ValueError, match="is not an integer"):
        parse_number("2.5", i8)
    assert (vk_type("mat2x3").cols, vk_type("mat2x3").rows) == (2, 3) and vk_type("uvec").rows == 4
    assert vk_type("i8vec2").name == "i8vec2" and vk_type("i8vec2").bits == 8 and vk_type("nope") is None


def test_emit_amber_requirements():
    """The module's capabilities become the DEVICE_EXTENSIONs and DEVICE_FEATUREs Amber enables for them, and the
    script still runs here."""
    import spvcoop
    from spvcoop.loader import compile_glsl_text
    from spvcoop.runspec.amber_emit import emit_amber
    module = compile_glsl_text("""#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer A { int8_t a[]; };
void main() { a[gl_GlobalInvocationID.x] = int8_t(-a[gl_GlobalInvocationID.x]); }""")
    inputs = {"dispatch": (1, 1, 1), "buffers": {(0, 0): np.array([1, -2, 3, 127], np.int8)}}
    res = spvcoop.run(module, **inputs)
    text = emit_amber(module, inputs, {}, res, "spec.yaml")
    for line in ("DEVICE_EXTENSION VK_KHR_8bit_storage", "DEVICE_EXTENSION VK_KHR_shader_float16_int8",
                 "DEVICE_FEATURE Storage8BitFeatures.storageBuffer8BitAccess",
                 "DEVICE_FEATURE Float16Int8Features.shaderInt8", "BUFFER A DATA_TYPE int8 DATA\n1 -2 3 127\nEND",
                 "BUFFER A_expected DATA_TYPE int8 DATA\n-1 2 -3 -127\nEND", "OpSource GLSL 450 %"):
        assert line in text, line
    assert "void main()" not in text   # the GLSL that OpSource quotes is left out (a line of it could read END)
    out = run_plan(parse(text, "e.amber"))
    assert not out.failures and out.expects == 1


def test_a_module_is_validated_once(monkeypatch):
    """Every RUN of a REPEAT runs the same module: it is validated (spirv-val included) at its first RUN only."""
    import spvcoop.validator.for_run as for_run
    calls = []
    real = for_run.validate_for_run
    monkeypatch.setattr(for_run, "validate_for_run", lambda m, *a, **k: calls.append(m) or real(m, *a, **k))
    text = "#!amber\n" + (DATA / "core.amber").read_text().split("\n", 1)[1].replace(
        "RUN pipe 2 1 1\nEXPECT out_buf IDX 0 EQ 2 3 4 5 6 7 8 9", "REPEAT 5\nRUN pipe 2 1 1\nEND")
    out = run_plan(parse(text, "r.amber"))
    assert out.runs == 6 and len(calls) == 1
    assert np.frombuffer(bytes(out.buffers["out_buf"]), np.int32)[0] == 12   # 6 runs of b += a + 1, a = 1

"""Hostile run specs and data files (issue 10): each is a located diagnostic, never a traceback,
and is refused before any large allocation or read."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from spvcoop.cli import main
from spvcoop.core.diagnostics import SpvError
from spvcoop.runspec.spec import FileOptions, generate, load_spec, read_npy
from conftest import REPO

ROOT = REPO
SAXPY = ROOT / "samples" / "saxpy" / "saxpy.spvasm"
LOC = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error: ", re.M)


@pytest.fixture
def work(tmp_path):
    shutil.copy(SAXPY, tmp_path / "saxpy.spvasm")
    return tmp_path


def run_spec(work: Path, text: str | bytes, capsys, *extra: str) -> tuple[int, str]:
    spec = work / "spec.yaml"
    spec.write_bytes(text if isinstance(text, bytes) else text.encode())
    rc = main(["run", str(spec), *extra])
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return rc, out.err


LOL = "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9))

# (spec body after "shader: ...", expected message fragment, line of the offending node in the body)
HOSTILE = [
    ("buffers:\n  x: {random: 5}\n", "buffers.x.random: expected a mapping", 2),
    ("buffers:\n  x: {random: {seed: null}}\n", "buffers.x.random.seed: expected an integer", 2),
    ("buffers:\n  x: {random: {seed: -1}}\n", "seed: must be at least 0", 2),
    ("buffers:\n  x: {random: {seed: 18446744073709551616}}\n", "seed: must be at most", 2),
    ("buffers:\n  x: {zeros: 4, shape: [1.5]}\n", "shape[0]: expected an integer", 2),
    ("buffers:\n  x: {zeros: 4, shape: [0]}\n", "shape[0]: must be at least 1", 2),
    ("buffers:\n  x:\n    random: {count: -1}\n", "count: must be at least 0", 3),
    ("buffers:\n  x: {random: {low: 5, high: 1}}\n", "low (5) must not be greater than high (1)", 2),
    ("buffers:\n  x: {random: {distribution: integers, low: 3, high: 3}}\n", "low < high", 2),
    ("buffers:\n  x: {random: {distribution: poisson}}\n", "distribution: must be one of", 2),
    ("buffers:\n  x: {random: {std: .nan}}\n", "finite", 2),
    ("max_steps: \"x\"\n", "max_steps: expected a positive integer, optionally with K, M, G or T", 1),
    ("max_steps: 0\n", "max_steps: must be a positive integer, got 0", 1),
    ("max_time: -1\n", "max_time: must be a positive number of seconds, got -1", 1),
    ("max_work: 1.5\n", "max_work: must be a positive integer, got 1.5", 1),
    ("subgroup_size: abc\n", "subgroup_size: must be a power of two from 1 to 128, got 'abc'", 1),
    ("subgroup_size: 48\n", "power of two", 1),
    ("subgroup_size: 256\n", "power of two", 1),
    ("spec_constants: [1, 2]\n", "spec_constants: expected a mapping", 1),
    ("spec_constants: {0: .inf}\n", "finite", 1),
    ("spec_constants: {0: 1180591620717411303424}\n", "does not fit 64 bits", 1),
    ("spec_constants: {0: [1]}\n", "boolean or a number", 1),
    ("buffers: 5\n", "buffers: expected a mapping", 1),
    ("dispatch: [18446744073709551616, 1, 1]\n", "dispatch[0]: must be at most 2147483647", 1),
    ("dispatch: [0, 1, 1]\n", "dispatch[0]: must be at least 1", 1),
    ("dispatch: [65536, 65536, 65536]\n", "workgroups is over", 1),
    ("dispatch: [1, 1, 1, 1]\n", "at most 3", 1),
    ("dispatch: 1.5\n", "expected a list", 1),
    ("outputs: 5\n", "outputs: expected a list", 1),
    ("entry_point: [main]\n", "entry_point: must be a name, got ['main']", 1),
    ("buffers:\n  x: {zeros: 4, dtype: object}\n", "unknown dtype 'object'", 2),
    ("buffers:\n  x: {zeros: 4, data: [1]}\n", "exactly one of", 2),
    ("buffers:\n  x: {dtype: float32}\n", "exactly one of", 2),
    ("buffers:\n  - {set: -1, binding: 0, data: [1]}\n", "buffers[0].set", 2),
    ("buffers:\n  - {data: [1]}\n", "needs 'name' or 'set'/'binding'", 2),
    ("dispatchh: 1\n", "unknown key 'dispatchh' (did you mean 'dispatch'?)", 1),
    ("buffers:\n  x: {random: {sede: 1}}\n", "did you mean 'seed'", 2),
    ("x: " + "{" * 10000 + "\n", "nested deeper than", 1),
    (LOL, "aliases expand", None),
]


@pytest.mark.parametrize("body,message,line", HOSTILE, ids=[f"{i}" for i in range(len(HOSTILE))])
def test_hostile_spec_is_a_located_error(work, capsys, body, message, line):
    rc, err = run_spec(work, "shader: saxpy.spvasm\n" + body, capsys)
    assert rc != 0
    m = LOC.search(err)
    assert m, err
    assert message in err, err
    if line is not None:
        assert int(m.group("line")) == line + 1, err  # the table counts lines of the body


def test_all_violations_at_once(work):
    spec = work / "spec.yaml"
    spec.write_text("shader: saxpy.spvasm\ndispatch: [0]\nsubgroup_size: 3\nmax_steps: -5\n"
                    "buffers:\n  x: {random: {seed: -1, count: -2}}\n")
    with pytest.raises(SpvError) as info:
        load_spec(str(spec))
    lines = sorted(d.span.line for d in info.value.diagnostics)
    assert lines == [2, 3, 4, 6, 6]
    assert all(d.source == str(spec) for d in info.value.diagnostics)


@pytest.mark.parametrize("entry,message", [
    ("{data: [1180591620717411303424], dtype: int32}", "more than 64 bits"),
    ("{data: [.inf, 1], dtype: int32}", "not finite"),
    ("{data: [1.5], dtype: uint8}", "fraction"),
    ("{data: [300], dtype: uint8}", "does not fit uint8"),
    ("{data: [[1, 2], [3]], dtype: float32}", "nested lists of equal lengths"),
    ("{data: [a, b], dtype: float32}", "nested lists of equal lengths"),
    ("{zeros: 300000000}", "over the data limit"),
    ("{random: {count: 300000000}}", "over the data limit"),
    ("{arange: 4, shape: [3]}", "holds 3 elements, the data has 4"),
])
def test_hostile_data_is_located(work, capsys, entry, message):
    rc, err = run_spec(work, f"shader: saxpy.spvasm\npush_constants: {{a: 1.0, n: 4}}\nbuffers:\n  x: {entry}\n",
                       capsys)
    assert rc == 1 and message in err, err
    assert int(LOC.search(err).group("line")) == 4, err


def test_inline_values_that_do_not_fit_the_shader_type(work, capsys):
    rc, err = run_spec(work, "shader: saxpy.spvasm\npush_constants: {a: 1.0, n: 1180591620717411303424}\n"
                       "buffers:\n  x: [1]\n  y: [1]\n", capsys)
    assert rc == 1 and "does not fit" in err and "out of range" in err
    rc, err = run_spec(work, "shader: saxpy.spvasm\npush_constants: {a: 1.0, n: .inf}\nbuffers:\n  x: [1]\n"
                       "  y: [1]\n", capsys)
    assert rc == 1 and "not a finite number" in err


def test_spec_that_is_not_utf8(work, capsys):
    rc, err = run_spec(work, b"shader: saxpy.spvasm\ndispatch: [1]\n# \xff\xfe\n", capsys)
    assert rc == 1 and "not UTF-8" in err
    assert LOC.search(err).group("line", "col") == ("3", "3")


def _npy_header(descr: str, shape: tuple) -> bytes:
    h = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}".encode()
    h += b" " * (118 - len(h)) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h


@pytest.mark.parametrize("name,content,message", [
    ("a.npy", None, "a .npz archive"),
    ("a.npy", b"", "empty file"),
    ("a.npy", _npy_header("<f4", (1 << 40,)) + bytes(64), "the header asks for 4398046511104 bytes"),
    ("a.npy", _npy_header("<f4", (100,)) + bytes(64), "the file holds 64"),
    ("a.npy", _npy_header("|O", (1,)) + bytes(8), "not supported"),
    ("a.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': 5}   \n", "not a valid .npy file"),
    ("a.npy", b"not numpy at all", "not a valid .npy file"),
    ("a.bin", b"\x00" * 7, "not a whole number"),
])
def test_hostile_data_files(work, capsys, name, content, message):
    if content is None:
        np.savez(work / "a.npz", a=np.arange(3))
        (work / "a.npz").rename(work / name)
    else:
        (work / name).write_bytes(content)
    rc, err = run_spec(work, f"shader: saxpy.spvasm\nbuffers:\n  x: {{file: {name}, dtype: float32}}\n", capsys)
    assert rc == 1 and message in err, err
    assert LOC.search(err).group("line", "col") == ("3", "13"), err  # the file name


def test_forged_header_is_refused_before_reading():
    """The check runs on the header alone: a 128-byte file claiming 3.6 TiB costs nothing."""
    data = _npy_header("<f8", (450_000_000_000,))
    with pytest.raises(SpvError) as info:
        read_npy(data, "x.npy", "spec.yaml", max_bytes=1 << 45)  # even under a budget of 32 TiB
    assert "the file holds 0" in info.value.diagnostics[0].message


def test_data_files_of_each_kind(work):
    np.save(work / "a.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    np.save(work / "f.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    (work / "b.bin").write_bytes(np.arange(4, dtype=np.uint16).tobytes())
    (work / "c.yaml").write_text("[1, 2, 3]\n")
    (work / "d.json").write_text("[\n\t4,\n\t5\n]\n")
    got = {k: generate({"file": k, **extra}, "x", work, "spec.yaml")
           for k, extra in (("a.npy", {}), ("f.npy", {}), ("b.bin", {"dtype": "uint16"}),
                            ("c.yaml", {"dtype": "int32"}), ("d.json", {"dtype": "float32"}))}
    np.testing.assert_array_equal(got["a.npy"], np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(got["f.npy"], np.arange(6).reshape(2, 3))
    assert got["b.bin"].dtype == np.uint16 and list(got["b.bin"]) == [0, 1, 2, 3]
    assert got["c.yaml"].dtype == np.int32 and list(got["c.yaml"]) == [1, 2, 3]
    assert got["d.json"].dtype == np.float32 and list(got["d.json"]) == [4, 5]


# ---- files named by a spec ----------------------------------------------------------------------
def test_shader_dev_zero_fails_at_once(work, capsys):
    rc, err = run_spec(work, "shader: /dev/zero\n", capsys, "--allow-outside-files")
    assert rc == 1 and "not a regular file" in err and LOC.search(err)
    rc, err = run_spec(work, "shader: /dev/zero\n", capsys)
    assert rc == 1 and "outside the spec's directory" in err and "--allow-outside-files" in err


def test_text_file_outside_is_not_quoted(work, capsys, tmp_path_factory):
    secret = tmp_path_factory.mktemp("elsewhere") / "passwd"
    secret.write_text("root:x:0:0:secret-first-line\n")
    (work / "link.spvasm").symlink_to(secret)
    for shader in (str(secret), "link.spvasm", f"../{secret.parent.name}/passwd"):
        rc, err = run_spec(work, f"shader: {shader}\n", capsys)
        assert rc == 1 and "outside the spec's directory" in err and "secret" not in err.replace(str(secret), "")
        rc, err = run_spec(work, f"shader: {shader}\n", capsys, "--allow-outside-files")
        assert rc == 1 and "is not SPIR-V" in err and "root:x" not in err, err


def test_data_file_outside_and_through_symlinks(work, capsys, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    np.save(other / "x.npy", np.arange(4, dtype=np.float32))
    (work / "x.npy").symlink_to(other / "x.npy")
    body = "shader: saxpy.spvasm\npush_constants: {a: 1.0, n: 4}\nbuffers:\n  x: {file: x.npy}\n  y: [0, 0, 0, 0]\n"
    rc, err = run_spec(work, body, capsys)
    assert rc == 1 and "outside the spec's directory" in err
    assert LOC.search(err).group("line") == "4"
    rc, err = run_spec(work, body, capsys, "--allow-outside-files")
    assert rc == 0, err


def test_files_inside_the_tree_and_the_size_cap(work, capsys):
    (work / "sub").mkdir()
    shutil.move(work / "saxpy.spvasm", work / "sub" / "saxpy.spvasm")
    body = "shader: sub/saxpy.spvasm\npush_constants: {a: 2.0, n: 2}\nbuffers:\n  x: [1, 2]\n  y: [0, 0]\n"
    rc, _ = run_spec(work, body, capsys)
    assert rc == 0
    rc, err = run_spec(work, body, capsys, "--max-file-size", "1K")
    assert rc == 1 and "over the limit of 1024" in err and "--max-file-size" in err


def test_api_allow_outside(work, tmp_path_factory):
    from spvcoop.runspec.spec import load_spec_shader
    spec = work / "spec.yaml"
    spec.write_text(f"shader: {SAXPY}\n")
    with pytest.raises(SpvError):
        load_spec_shader(load_spec(str(spec)))
    assert load_spec_shader(load_spec(str(spec), FileOptions(allow_outside=True))).instructions


def test_check_file_json_with_tabs_and_bad_expectations(work, capsys):
    body = "shader: saxpy.spvasm\npush_constants: {a: 2.0, n: 2}\nbuffers:\n  x: [1, 2]\n  y: [0, 0]\n"
    (work / "exp.json").write_text(json.dumps({"y": {"data": [2, 4], "rtol": 0}}, indent="\t"))
    rc, err = run_spec(work, body, capsys, "--check", str(work / "exp.json"))
    assert rc == 0, err
    (work / "exp.yaml").write_text("y: {data: [2, 4], rtol: -1}\nz: {file: /dev/zero}\n")
    rc, err = run_spec(work, body, capsys, "--check", str(work / "exp.yaml"))
    assert rc == 1 and "y.rtol: must be at least 0" in err and LOC.search(err).group("line") == "1"
    (work / "exp.yaml").write_text("y: {file: /dev/zero}\n")
    rc, err = run_spec(work, body, capsys, "--check", str(work / "exp.yaml"))
    assert rc == 1 and "outside the spec's directory" in err


# ---- issue 11: output precision, JSON inputs, result ids, -q with -o ------------------------------------
def test_f16_values_print_exactly_and_compare_at_their_precision():
    from spvcoop.runspec.numtext import short_floats
    from spvcoop.runspec.spec import compare
    a = np.array([65504, 1.7001953125], np.float16)
    assert short_floats(a) == [65504.0, 1.7001953125]
    out: list[str] = []
    assert compare("y", a, [65504, 1.7002], 0.0, 0.0, out) == 0, out
    assert compare("y", a, [65504, 1.71], 0.0, 0.0, out) == 1 and "expected 1.71" in out[0]
    assert short_floats(np.array([0.9], np.float32)) == [0.9]


def test_quiet_still_writes_the_output_file(work, capsys):
    body = "shader: saxpy.spvasm\npush_constants: {a: 2.0, n: 2}\nbuffers:\n  x: [1, 2]\n  y: [0, 0]\noutputs: [y]\n"
    rc, _ = run_spec(work, body, capsys, "-q", "-o", str(work / "o.json"))
    assert rc == 0 and json.loads((work / "o.json").read_text()) == {"y": [2, 4]}
    assert capsys.readouterr().out == ""


def test_inputs_keyed_by_result_id(work, capsys):
    (work / "k.spvasm").write_text("""OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %k SpecId 3
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%k = OpSpecConstant %uint 1
%blk = OpTypeStruct %uint
%ptr = OpTypePointer StorageBuffer %blk
%buf = OpVariable %ptr StorageBuffer
%pu = OpTypePointer StorageBuffer %uint
%int = OpTypeInt 32 1
%zero = OpConstant %int 0
%main = OpFunction %void None %fn
%l = OpLabel
%p = OpAccessChain %pu %buf %zero
%v = OpLoad %uint %p
%s = OpIAdd %uint %v %k
OpStore %p %s
OpReturn
OpFunctionEnd
""")
    (work / "in.json").write_text('{\n\t"2": 5,\n\t"4": {"m0": 10}\n}\n')  # %k is id 2, %buf id 4 (tabs: JSON)
    rc = main(["run", str(work / "k.spvasm"), "--input", str(work / "in.json"), "-o", str(work / "o.json")])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert json.loads((work / "o.json").read_text()) == {"buf": {"m0": 15}}  # 10 + spec constant 5
    (work / "in.yaml").write_text("99: 1\n")
    rc = main(["run", str(work / "k.spvasm"), "--input", str(work / "in.yaml")])
    err = capsys.readouterr().err
    assert rc == 1 and "'99' names no variable" in err and "in.yaml:1:" in err

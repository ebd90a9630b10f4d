"""Inputs the fuzzing driver (tools/fuzz) found to escape as Python exceptions, each now a located
error: one small reproducer per class."""
from __future__ import annotations


import numpy as np
import pytest

import spvcoop
from spvcoop import SpvError, cli
from conftest import REPO, TESTS

SAXPY = REPO / "samples" / "saxpy"
REDUCE = REPO / "samples" / "reduce"


def _saxpy() -> spvcoop.Module:
    return spvcoop.assemble((SAXPY / "saxpy.spvasm").read_text(), "saxpy.spvasm")


def test_ragged_data_for_an_address_only_buffer() -> None:
    # a shader with PhysicalStorageBuffer pointers: an unmatched name is a device-address-only buffer
    bda = TESTS / "data" / "gpu_bda.spvasm"
    with pytest.raises(SpvError, match="buffer 'zz' matches no variable of the shader, and its data is not a "
                                       "regular array"):
        spvcoop.run(str(bda), buffers={"o": np.zeros(16, np.uint32), "zz": [[1, 2], [3]]},
                    push_constants={"p": 0})


def test_truncated_module_without_validation() -> None:
    text = (SAXPY / "saxpy.spvasm").read_text().rsplit("OpReturn", 1)[0]
    module = spvcoop.assemble(text, "cut.spvasm")
    with pytest.raises(SpvError, match="has no OpFunctionEnd"):
        spvcoop.run(module, validate=False, buffers={"x": np.zeros(64, np.float32), "y": np.zeros(64, np.float32)},
                    push_constants={"a": 1.0, "n": 8})


def test_npy_header_that_numpy_cannot_tokenize(tmp_path, capsys) -> None:
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (64, \n"
    header = header[:-1] + b" " * (118 - len(header)) + b"\n"
    (tmp_path / "x.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 256)
    (tmp_path / "saxpy.spvasm").write_text((SAXPY / "saxpy.spvasm").read_text())
    spec = (SAXPY / "run.yaml").read_text().replace("x: {arange: 64}", "x: {file: x.npy}")
    (tmp_path / "run.yaml").write_text(spec)
    assert cli.main(["run", str(tmp_path / "run.yaml"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "run.yaml:9:" in err and "file 'x.npy': not a valid .npy file" in err


@pytest.mark.slow
def test_glslang_messages_that_are_not_utf8(tmp_path, capsys) -> None:
    src = tmp_path / "bad.comp"
    src.write_bytes((REDUCE / "reduce.comp").read_bytes().replace(b"void main", b"\x80void main", 1))
    assert cli.main(["run", str(src), "-q"]) == 1
    assert "glslangValidator failed" in capsys.readouterr().err


def test_profile_name_too_long_for_the_file_system(capsys) -> None:
    assert cli.main(["val", str(SAXPY / "saxpy.spvasm"), "--no-spirv-val", "--profile", "a" * 3000]) == 2
    assert "unknown profile" in capsys.readouterr().err


def test_lint_does_not_walk_a_huge_tree(tmp_path, capsys) -> None:
    for i in range(30):
        (tmp_path / f"d{i}").mkdir()
    assert cli.main(["lint", str(tmp_path), "--no-spirv-val", "--max-files", "10"]) == 2
    assert "more than 10 files and directories" in capsys.readouterr().err


@pytest.mark.slow
def test_layout_all_verdict_is_said_on_stderr_even_quiet(capsys) -> None:
    spec = REPO / "samples" / "coopmat" / "nonportable" / "run.yaml"
    assert cli.main(["run", str(spec), "--layout", "all", "-q"]) == 1
    cap = capsys.readouterr()
    assert cap.out == "" and "error: NOT PORTABLE: output(s) 's': the set of elements each lane holds" in cap.err


def test_layout_model_name_too_long_for_the_file_system(capsys) -> None:
    assert cli.main(["layout", "list", "a" * 3000]) in (1, 2)
    assert "unknown layout model" in capsys.readouterr().err


@pytest.mark.parametrize("style", ["yaml", "json"])
def test_f32_zeros_and_specials_take_the_array_path(style) -> None:
    # a buffer of 4 million zeros went value by value (30 s); zeros, infinities and NaN now have
    # fixed spellings: they must be exactly the per-value ones
    from spvcoop.runspec import numtext
    rng = np.random.default_rng(5)
    a = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, 3.1e-39, -2.5e38, 0.1], np.float32), 5000)
    got = [t.decode() for t in numtext.tokens(a, style)]
    want = [numtext.float_text(float(str(x)) if np.isfinite(x) else float(x), style) for x in a]
    assert got == want


def test_text_output_is_bounded(tmp_path, capsys) -> None:
    spec = tmp_path / "run.yaml"
    (tmp_path / "saxpy.spvasm").write_text((SAXPY / "saxpy.spvasm").read_text())
    spec.write_text((SAXPY / "run.yaml").read_text())
    assert cli.main(["run", str(spec), "-q", "-o", str(tmp_path / "o.yaml"), "--max-text-values", "5"]) == 1
    assert "over the limit of 5 for YAML/JSON text" in capsys.readouterr().err
    assert not (tmp_path / "o.yaml").exists()
    assert cli.main(["run", str(spec), "-q", "-o", str(tmp_path / "d") + "/", "--max-text-values", "5"]) == 0


def test_yaml_with_a_nul_character_is_a_located_error(tmp_path, capsys) -> None:
    bad = tmp_path / "model.yaml"
    bad.write_bytes(b"name: x\nlayouts: [\x00]\n")
    assert cli.main(["layout", "list", str(bad)]) in (1, 2)
    assert "unacceptable character #x0000" in capsys.readouterr().err


def test_long_mixed_number_list_with_a_huge_literal(tmp_path) -> None:
    from spvcoop.core.yamlio import load_yaml
    text = "x: [" + ", ".join(["1.5", "2"] * 600) + ", " + "7" * 5000 + "]\n"
    with pytest.raises(SpvError, match="integer literal of 5000 characters"):
        load_yaml(text.encode(), "big.yaml")


@pytest.mark.parametrize("style", ["yaml", "json"])
def test_empty_integer_output(style) -> None:
    from spvcoop.runspec import numtext
    assert numtext.tokens(np.zeros(0, np.uint32), style).size == 0


def test_length_of_a_scalar_type_stops_a_run() -> None:
    # coopmat.length is an error for run as for val: the interpreter cannot give it a meaning
    path = TESTS / "data" / "length_of_a_scalar.spvasm"
    with pytest.raises(SpvError) as e:
        spvcoop.run(spvcoop.assemble(path.read_text(), path.name), buffers={"x": np.zeros(256, np.float32),
                                                                           "s": np.zeros(16, np.uint32)})
    assert any(d.rule == "coopmat.length" for d in e.value.diagnostics)


def test_values_of_an_address_only_buffer_say_why_they_cannot_be_decoded() -> None:
    """A buffer reached only by its address has no SPIR-V type: values() was an AttributeError traceback."""
    bda = TESTS / "data" / "gpu_bda.spvasm"
    res = spvcoop.run(str(bda), buffers={"o": np.zeros(16, np.uint32), "zz": np.arange(16, dtype=np.uint32)},
                      push_constants={"p": "&zz"})
    assert list(res["zz"]) == list(range(16))
    with pytest.raises(SpvError, match="'zz' is reached only by its device address"):
        res.values("zz")

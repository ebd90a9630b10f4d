"""Issue 21, "internal errors are bugs": every input that made spvcoop exit 3 (or raise from an inner frame)
is a located error with exit status 1 or 2, one test per class."""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import spvcoop
from spvcoop.cli import main
from spvcoop.core.diagnostics import SpvError
from conftest import REPO, TESTS

ROOT = REPO
DATA = TESTS / "data" / "internal_errors"
SAMPLES = ROOT / "samples"


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_string_in_check_file(tmp_path, capsys):
    shutil.copytree(SAMPLES / "saxpy", tmp_path / "saxpy")
    (tmp_path / "saxpy" / "c.yaml").write_text('y: "hello"\n')
    code, err = cli(capsys, "run", str(tmp_path / "saxpy" / "run.yaml"), "--check", str(tmp_path / "saxpy" / "c.yaml"))
    assert code == 1 and "internal error" not in err


@pytest.mark.parametrize("out", ["outdir/", "one.npy"])
def test_structured_output_as_npy(tmp_path, capsys, out):
    shutil.copytree(SAMPLES / "particles", tmp_path / "p")
    d = tmp_path / "p"
    code, err = cli(capsys, "run", str(d / "particles.spvasm"), "--input", str(d / "in.yaml"),
                    "-o", f"{tmp_path}/{out}")
    assert code == 1
    assert "error: -o DIR/: " in err or "error: -o FILE.npy: " in err
    assert "'World' holds structures" in err
    assert not (tmp_path / out).exists()  # refused before the directory was made


def test_fault_inside_a_decode_function_is_the_located_out_of_bounds_load():
    # the decode function reads past the end of the buffer: its lanes are matrix elements (256 of them), not
    # the 32 invocations; the report must be the out-of-bounds OpLoad, not an IndexError naming the lanes
    with pytest.raises(SpvError) as e:
        spvcoop.run(str(ROOT / "tests" / "data" / "coopmat2" / "decode.spvasm"), dispatch=(1, 1, 1),
                    buffers={0: np.ones(256, np.float16), 1: np.zeros(256, np.float16)})
    d = e.value.diagnostics[0]
    assert d.rule == "interp.runtime" and "OpLoad: out-of-bounds load" in d.message and d.span.line == 78
    assert any("in invocation #" in n.message for n in d.notes)


def test_constant_index_past_a_vector_end(tmp_path, capsys):
    shutil.copy(DATA / "vector_index.spvasm", tmp_path)
    (tmp_path / "run.yaml").write_text("shader: vector_index.spvasm\nbuffers:\n  buf: {data: [0], dtype: uint32}\n")
    code, err = cli(capsys, "run", str(tmp_path / "run.yaml"))
    assert code == 1
    assert "vector_index.spvasm:28:11: error[interp.runtime]: OpAccessChain: index 5 out of bounds for vec3<u32>" in err


def test_numerics_model_with_an_out_of_range_nan_field(tmp_path):
    from spvcoop.numerics.fit import load_model_file
    from spvcoop.numerics.model import MulAddModel
    text = (ROOT / "tests/data/h100-vulkan/vulkan-loop/numerics-measured.yaml").read_text()
    for bad in ("'0x17fffffff'", "-5", "'0x7f800000'"):  # over 32 bits, negative, infinity (not a NaN)
        p = tmp_path / "m.yaml"
        p.write_text(text.replace("nan_f32: '0x7fffffff'", f"nan_f32: {bad}"))
        with pytest.raises(SpvError, match="nan_f32 must be the bit pattern of a 32-bit NaN"):
            load_model_file(str(p))
    with pytest.raises(ValueError, match="nan_f16"):
        MulAddModel(nan_f16=0x10000)
    assert MulAddModel(nan_f32=0xFFC00000, nan_f16=0x7E01).nan_f16 == 0x7E01


def _tiles(tmp_path: Path, name: str, edit) -> str:
    src = np.load(ROOT / "tests/data/h100-vulkan/vulkan-loop/subnormal-k16.npz")
    data = edit({k: src[k] for k in src.files})
    p = tmp_path / name
    np.savez(p, **data)
    return str(p)


@pytest.mark.parametrize("name, edit, message", [
    ("odd_shape.npz", lambda d: {k: (v[:, :8] if k.endswith("/1/A") else v) for k, v in d.items()},
     "shape (48, 8, 16), expected (tiles, 16, 16)"),
    ("odd_count.npz", lambda d: {k: (v[:10] if k.endswith("/1/A") else v) for k, v in d.items()},
     "same number of tiles as A (10)"),
    ("unknown_format.npz", lambda d: {k.replace("f16_f16", "e9_e9"): v for k, v in d.items()},
     "unknown component format 'e9'"),
    ("wrong_dtype.npz", lambda d: {k: (v.astype(np.float64) if k.endswith("/1/A") else v) for k, v in d.items()},
     "float64 values, but f16 tiles hold float16"),
    ("wrong_size.npz", lambda d: {k.replace("16x16x16", "16x16x8"): v for k, v in d.items()},
     "expected (tiles, 16, 8)"),
])
def test_numerics_fit_refuses_odd_tiles(tmp_path, capsys, name, edit, message):
    code, err = cli(capsys, "numerics", "fit", _tiles(tmp_path, name, edit), "-o", str(tmp_path / "fit.yaml"))
    assert code == 1 and f"{name}: error: tiles: " in err and message in err
    assert not (tmp_path / "fit.yaml").exists()


@pytest.mark.parametrize("rows", [-16, 0, 4294967295])
def test_coopmat_load_with_a_bad_spec_constant_size(tmp_path, capsys, rows):
    shutil.copy(DATA / "coopmat_spec_rows.spvasm", tmp_path)
    (tmp_path / "run.yaml").write_text(f"shader: coopmat_spec_rows.spvasm\nspec_constants: {{0: {rows}}}\n"
                                       "buffers:\n  0: {zeros: 256, dtype: float32}\n"
                                       "  1: {zeros: 256, dtype: float32}\n")
    code, err = cli(capsys, "run", str(tmp_path / "run.yaml"), "-q")
    assert code == 1
    assert "coopmat_spec_rows.spvasm:38:11: error[interp.runtime]: OpCooperativeMatrixLoadKHR: cooperative matrix " \
           "type cm has" in err and "both must be at least 1" in err


@pytest.mark.parametrize("timeout", [math.nan, 0, -1.0])
def test_validate_with_a_bad_spirv_val_timeout(timeout):
    m = spvcoop.assemble((SAMPLES / "reduce" / "reduce.spvasm").read_text())
    with pytest.raises(ValueError, match="validate\\(\\) argument 'spirv_val_timeout' must be a number of seconds"):
        spvcoop.validate(m, spirv_val_timeout=timeout)


def test_validate_with_no_spirv_val_time_limit():
    m = spvcoop.assemble((SAMPLES / "reduce" / "reduce.spvasm").read_text())
    assert not [d for d in spvcoop.validate(m, "vulkan1.3", spirv_val_timeout=math.inf) if d.severity == "error"]


@pytest.mark.parametrize("words, expected", [
    ("!65536", 'OpName %_ ""'),   # the word is a string: bytes 00 00 01 00, ending at the first NUL
    ("!0x00636261", 'OpName %abc "abc"'),
])
def test_disassemble_raw_words_where_a_string_belongs(words, expected):
    m = spvcoop.assemble(f"OpCapability Shader\nOpName %x {words}\n")
    assert spvcoop.disassemble(m, header=False).splitlines()[1].strip() == expected


def test_disassemble_raw_words_that_make_a_malformed_binary():
    m = spvcoop.assemble("OpCapability Shader\nOpName %x !65536 !1\n")
    with pytest.raises(SpvError, match="expected no more operands"):
        spvcoop.disassemble(m)


def test_coopmat_too_large_for_the_memory_budget(tmp_path, capsys):
    # 2^31 - 1 rows (a spec constant: validation saw 16): numpy's MemoryError used to escape as exit 3
    shutil.copy(DATA / "coopmat_spec_rows.spvasm", tmp_path)
    (tmp_path / "run.yaml").write_text("shader: coopmat_spec_rows.spvasm\nspec_constants: {0: 2147483647}\n"
                                       "buffers:\n  0: {zeros: 256, dtype: float32}\n"
                                       "  1: {zeros: 256, dtype: float32}\n")
    code, err = cli(capsys, "run", str(tmp_path / "run.yaml"), "-q")
    assert code == 1
    assert "error[interp.max-memory]: memory budget of 2 GiB exceeded" in err

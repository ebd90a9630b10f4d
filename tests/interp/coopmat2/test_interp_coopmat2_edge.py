"""Issue 22, coopmat2 as real code uses it: a ClampModeConstant layout set in a branch only edge-tile workgroups
take, and glslang's unoptimised OpLoad of an uninitialised matrix as coopMatLoadTensorNV's Object. Modules:
tests/data/coopmat2/edge_clamp/ (GLSL written for spvcoop, compiled by glslang 16.5, see tests/data/README.md)."""
from __future__ import annotations

import numpy as np
import pytest

import spvcoop
from spvcoop.cli import main
from spvcoop.core.diagnostics import SpvError

D = __import__("conftest").DATA / "coopmat2" / "edge_clamp"
M, N, PAD = 40, 24, -7.0
BUILDS = ["edge_clamp", "edge_clamp_init", "edge_clamp_lane", "edge_clamp_use", "edge_clamp_clip"]


def _run(name: str):
    a = np.arange(M * N, dtype=np.float32) * np.float32(0.5)
    pc = np.array([M, N], np.uint32).tobytes() + np.float32(PAD).tobytes()
    return a, spvcoop.run(str(D / f"{name}.spv"), dispatch=(3, 2, 1),
                          buffers={0: a, 1: np.zeros(48 * 32, np.float32)}, push_constants=pc)


def _expected(a: np.ndarray) -> np.ndarray:
    out = np.full((48, 32), PAD, np.float32)   # every element past M x N is the clamp value
    out[:M, :N] = a.reshape(M, N)
    return out


@pytest.mark.parametrize("name", ["edge_clamp_init", "edge_clamp"])
def test_clamp_value_set_in_an_edge_tile_branch(name):
    """Workgroups (2, *) and (*, 1) set the clamp value, the others do not: one value per workgroup (it was kept
    per invocation and grew to an (n, n) array: an internal error)."""
    a, r = _run(name)
    assert (r[1].reshape(48, 32) == _expected(a)).all()


def test_clamp_value_differing_within_a_workgroup_is_a_located_error():
    with pytest.raises(SpvError) as e:
        _run("edge_clamp_lane")
    d = e.value.diagnostics[0]
    assert d.rule == "interp.runtime" and d.message.startswith("OpCooperativeMatrixLoadTensorNV: the TensorLayout "
                                                               "operand (clamp_value) differs within workgroup 2")


def test_undefined_matrix_used_by_arithmetic_is_refused_at_its_load():
    with pytest.raises(SpvError) as e:
        _run("edge_clamp_use")
    m = e.value.diagnostics[0].message
    assert m.startswith("OpLoad: 't' is read before anything was stored to it, and OpMatrixTimesScalar at ")
    assert m.endswith("uses the loaded (undefined) value")


def test_undefined_object_elements_kept_by_a_clip_region_are_refused():
    with pytest.raises(SpvError) as e:
        _run("edge_clamp_clip")
    m = e.value.diagnostics[0].message
    assert "the Object operand is undefined" in m and "(row 8, col 0) in workgroup 0" in m
    assert "128 of 256 elements would be undefined" in m


def test_undefined_scalar_copied_through_a_variable_then_stored_to_a_buffer():
    """`y = x` with x never stored passes the undefined value on (no error there); writing y to a buffer is the
    use that is refused, at that store (tests/data/undefined_copy.spvasm, its GLSL in its header)."""
    src = str(D.parent.parent / "undefined_copy.spvasm")
    with pytest.raises(SpvError) as e:
        spvcoop.run(src, dispatch=(1, 1, 1), buffers={0: np.zeros(4, np.uint32)})
    d = e.value.diagnostics[0]
    assert d.message == ("OpStore: stores the value loaded from 'y', read before anything was stored to it "
                         "(undefined), into 'Out' (StorageBuffer)")
    assert d.span.line == 77


@pytest.mark.parametrize("name", BUILDS)
def test_committed_assembly_is_the_binary_disassembled(name, tmp_path):
    assert main(["dis", str(D / f"{name}.spv"), "-o", str(tmp_path / "x.spvasm")]) == 0
    assert (tmp_path / "x.spvasm").read_text() == (D / f"{name}.spvasm").read_text()

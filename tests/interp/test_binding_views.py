"""One rule for the data of a binding declared as several blocks (ggml's `A` and `A_SCALAR`, `K` and `KV4`, `O` and
`OV4`), the same on the interpreter and in the GPU runner's encoding (issue 32, item 1): data given under a view's
name is converted to that view's element type; data given by "set:binding" must mean the same bytes through every
view that takes it, else a numpy array is taken by the view whose element type is its dtype, else it is refused.
glslang declares the variables in the order of first use, so A_SCALAR comes before A in the module: "the first view
declared" converted a float16 array for binding 0 to float32 on the CPU, while the GPU runner refused the spec."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spvcoop
from spvcoop import SpvError
from spvcoop.gpu.runner import run_on_device
from spvcoop.loader import load_shader
from gpu_fakes import FakeDevice, FakeVk
from conftest import TESTS

SHADER = TESTS / "data" / "aliasing" / "ggml_views.comp"
A16 = np.arange(32, dtype=np.float16)                     # binding 0: A's 32 halves are A_SCALAR's 4 vec4s
K = np.arange(16, dtype=np.float32) / 4                    # binding 1: exact in f16 (K and KV4 agree on it)


@pytest.fixture(scope="module")
def module():
    return load_shader(str(SHADER))


def expected(a16: np.ndarray = A16) -> np.ndarray:
    """data_ov4[i] = data_a_scalar[i] + vec4(data_kv4[i]) + vec4(data_a[i], data_k[4 i + 1], 0, 0), in f32."""
    a32 = a16.view(np.float32).reshape(4, 4)
    k = K.astype(np.float16).astype(np.float32).reshape(4, 4)
    extra = np.zeros((4, 4), np.float32)
    extra[:, 0] = a16[:4].astype(np.float32)
    extra[:, 1] = k[:, 1]
    return ((a32 + k) + extra).reshape(-1)


def test_module_declares_the_f32_view_first(module) -> None:
    """What the tests below rely on: A_SCALAR (f32) is declared before A (f16), as glslang orders them."""
    text = spvcoop.disassemble(module)
    assert text.index("OpVariable %_ptr_StorageBuffer_A_SCALAR") < text.index("OpVariable %_ptr_StorageBuffer_A ")


BY_KEY = {"0:0": A16, "0:1": K, "0:2": np.zeros(16, np.float32)}


def test_data_by_binding_fills_the_binding_with_the_view_of_its_dtype(module) -> None:
    res = spvcoop.run(module, buffers=BY_KEY)
    assert res.raw((0, 0)) == A16.tobytes()                 # taken as it is: the f16 view's, not converted to f32
    assert res.raw((0, 1)) == K.astype(np.float16).tobytes()   # both views of binding 1 are f16: by value
    np.testing.assert_array_equal(res["O"], expected())
    np.testing.assert_array_equal(res["A"], A16)             # each view under its own names
    np.testing.assert_array_equal(res["A_SCALAR"], A16.view(np.float32).reshape(-1, 4))


def test_named_views_give_the_same_bytes(module) -> None:
    by_view = {"A_SCALAR": A16.view(np.float32).reshape(-1, 4), "KV4": K.reshape(4, 4), "OV4": np.zeros((4, 4))}
    res = spvcoop.run(module, buffers=by_view)
    assert res.raw((0, 0)) == A16.tobytes() and res.raw((0, 1)) == K.astype(np.float16).tobytes()
    np.testing.assert_array_equal(res["O"], expected())
    res = spvcoop.run(module, buffers={"A": A16.astype(np.float64), "K": K, "O": np.zeros(16)})   # by value
    assert res.raw((0, 0)) == A16.tobytes()


def test_lists_by_binding_are_read_by_the_view_that_takes_them(module) -> None:
    flat = spvcoop.run(module, buffers=dict(BY_KEY, **{"0:0": A16.tolist()}))      # A_SCALAR wants vec4s
    assert flat.raw((0, 0)) == A16.tobytes()
    a32 = A16.view(np.float32).reshape(-1, 4)
    nested = spvcoop.run(module, buffers=dict(BY_KEY, **{"0:0": a32.tolist()}))    # A wants numbers
    assert nested.raw((0, 0)) == A16.tobytes()


def test_a_mapping_by_binding_is_read_by_the_block_with_those_members(module) -> None:
    a32 = A16.view(np.float32).reshape(-1, 4)
    res = spvcoop.run(module, buffers=dict(BY_KEY, **{"0:0": {"data_a_scalar": a32.tolist()}}))
    assert res.raw((0, 0)) == A16.tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_data_the_views_disagree_on_is_refused(module, dtype) -> None:
    """Values exact in both f16 and f32 would make different bytes through A and A_SCALAR: no view decides."""
    with pytest.raises(SpvError, match=r"buffer '0:0' \(set 0, binding 0\) is one buffer read through views that "
                                       r"make different bytes of a (float64|int32) array: 'A_SCALAR' \(vec4<f32> "
                                       r"elements\), 'A' \(f16 elements\); give the data under the name of the view"):
        spvcoop.run(module, buffers=dict(BY_KEY, **{"0:0": A16.astype(dtype)}))


def test_gpu_encoding_is_the_interpreters(module) -> None:
    """The GPU runner binds the same bytes the interpreter runs on (it refused the spec: "'A' and 'A_SCALAR' are
    the same buffer"), reports the views by their names, and refuses what the interpreter refuses."""
    cpu = spvcoop.run(module, buffers=BY_KEY)
    dev = FakeDevice(FakeVk())
    res = run_on_device(module, device=dev, buffers=BY_KEY)
    (bound, _push), = dev.dispatched
    for key in ((0, 0), (0, 1)):
        buf, size, uniform = bound[key]
        assert not uniform and bytes(dev.mem[buf][:size]) == cpu.raw(key), key
    assert bound[(0, 2)][1] == 64
    np.testing.assert_array_equal(res["A"], A16)
    np.testing.assert_array_equal(res["A_SCALAR"], A16.view(np.float32).reshape(-1, 4))
    assert res.bindings[(0, 0)].name == "A"
    with pytest.raises(SpvError, match="is one buffer read through views that make different bytes"):
        run_on_device(module, device=FakeDevice(FakeVk()), buffers=dict(BY_KEY, **{"0:0": A16.astype(np.float64)}))
    with pytest.raises(SpvError, match=r"buffers 'A' and '0:0' are one descriptor"):
        run_on_device(module, device=FakeDevice(FakeVk()), buffers={"A": A16, "0:0": A16})


def test_run_spec_by_binding(tmp_path: Path) -> None:
    """A run spec's .npy by "set:binding": its dtype names the view (the spec's element-type hint for the binding
    used to be the first view's, and the file was converted to it)."""
    (tmp_path / "v.comp").write_bytes(SHADER.read_bytes())
    np.save(tmp_path / "a.npy", A16)
    np.save(tmp_path / "k.npy", K)
    (tmp_path / "run.yaml").write_text("shader: v.comp\nbuffers:\n  '0:0': {file: a.npy}\n  '0:1': {file: k.npy}\n"
                                       "  '0:2': {zeros: 16}\noutputs: ['0:2']\n")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml"), "-o",
                        str(tmp_path / "out.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = np.asarray(json.loads((tmp_path / "out.json").read_text())["0:2"], np.float32)   # shortest f32 text
    np.testing.assert_array_equal(got, expected())


def test_both_backends_refuse_alike_what_the_interpreter_refuses(module) -> None:
    """The fuzz driver's `views` entry (tools/fuzz): a used binding with a runtime array and no data was bound
    empty on the GPU (the interpreter refuses it), and a name matching nothing became a device-address buffer in a
    shader that takes no addresses; errors come in the interpreter's order."""
    cases = [{"0:0": A16, "0:2": np.zeros(16, np.float32)},                      # no K
             dict(BY_KEY, nothing=np.zeros(4)),                                   # a name of nothing
             {"A_SCALAR": [5.5, 1.0], "OV4": np.zeros(4, np.float32)}]            # A_SCALAR's error before K's
    for buffers in cases:
        with pytest.raises(SpvError) as cpu:
            spvcoop.run(module, buffers=buffers)
        with pytest.raises(SpvError) as gpu:
            run_on_device(module, device=FakeDevice(FakeVk()), buffers=buffers)
        assert gpu.value.diagnostics[0].message == cpu.value.diagnostics[0].message


QUANTIZED = """#version 450
// ggml's quantized K beside its f16vec4 view (flash attention with q4_0 K/V): one binding, raw blocks
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x = 2) in;
struct block_q4_0 { float16_t d; uint8_t qs[16]; };
layout(set = 0, binding = 0) readonly buffer K_PACKED { block_q4_0 k_packed[]; };
layout(set = 0, binding = 0) readonly buffer KV4 { f16vec4 data_kv4[]; };
layout(set = 0, binding = 1) writeonly buffer D { float d[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    d[i] = float(k_packed[i].d) + float(uint(k_packed[i].qs[15])) + 0.0 * float(data_kv4[0].x);
}
"""


def test_raw_blocks_from_a_npy_by_binding(tmp_path: Path) -> None:
    """A uint8 .npy of q4_0 blocks by "set:binding": the spec took the f16vec4 view's element type for the binding
    and converted the bytes by value to f16 (garbage K in ggml's flash_attn_cm1 until K was named by block)."""
    (tmp_path / "q.comp").write_text(QUANTIZED)
    blocks = np.zeros(2, [("d", "<f2"), ("qs", "u1", 16)])
    blocks["d"] = [1.5, -2.0]
    blocks["qs"][:, 15] = [7, 9]
    np.save(tmp_path / "k.npy", np.frombuffer(blocks.tobytes(), np.uint8))
    (tmp_path / "run.yaml").write_text("shader: q.comp\ndispatch: [1, 1, 1]\nbuffers:\n  '0:0': {file: k.npy}\n"
                                       "  '0:1': {zeros: 2}\noutputs: [d]\n")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(tmp_path / "run.yaml")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "d: [8.5, 7.0]\n"

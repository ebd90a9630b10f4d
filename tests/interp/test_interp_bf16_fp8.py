"""bf16 and FP8 (E4M3, E5M2) values end to end: constants, storage, conversions (saturating too), bitcasts,
element access and cooperative matrices. Expected values come from ml_dtypes and numpy, computed here
independently of the interpreter; modules are hand-written SPIR-V assembly (glslang 13.1 has neither type)
with the GLSL they stand for in their comments, and each is validated by spirv-val."""
from __future__ import annotations

import struct
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import spvcoop
from conftest import DATA, run_tool

FP8 = DATA / "fp8"
E4, E5, BF = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.bfloat16


def _valid(path: Path, tmp_path: Path) -> Path:
    spv = tmp_path / (path.stem + ".spv")
    r = run_tool("spirv-as", "--target-env", "vulkan1.3", str(path), "-o", str(spv))
    assert r.returncode == 0, r.stderr
    r = run_tool("spirv-val", "--target-env", "vulkan1.3", str(spv))
    assert r.returncode == 0, r.stderr
    return spv


def _saturated(x: np.ndarray, dt) -> np.ndarray:
    """Reference for SaturatedToLargestFloat8NormalConversionEXT: clip to the largest finite value, then round."""
    big = float(ml_dtypes.finfo(dt).max)
    with np.errstate(invalid="ignore"):
        return np.clip(x.astype(np.float64), -big, big).astype(np.float32).astype(dt)


# ---- scalars ----------------------------------------------------------------------------------------
X = np.array([0, -0.0, 1, 1.5, 0.1, 448, 449, 464, 465, 480, 500, -1000, 57344, 61439, 61440, 1e6, np.inf, -np.inf,
              np.nan, 2**-9, 2**-10, 2**-17, 3.14159, -2.75, 0.3, 240, 15.5, -0.0009765625], np.float32)
N = np.array([0, 1, -1, 448, 449, 1000, -100000, 17, 2**31 - 1, -(2**31)], np.int32)
H = np.array([0, 1, 0.1, 57344, 60000, 65504, np.inf, -np.inf, 2**-14, 2**-24], np.float16)


def _pad(a: np.ndarray, n: int = 64) -> np.ndarray:
    return np.concatenate([a, np.zeros(n - len(a), a.dtype)])


@pytest.fixture(scope="module")
def fp8_scalars(tmp_path_factory):
    _valid(FP8 / "fp8_convert.spvasm", tmp_path_factory.mktemp("fp8"))
    bufs = {0: _pad(X), 9: _pad(N), 11: _pad(H), 13: np.zeros(6, np.uint32)}
    for i in (1, 2, 3, 4, 10, 12):
        bufs[i] = np.zeros(64, np.uint8)
    for i, dt in ((5, np.float32), (6, np.float32), (7, np.uint32), (8, np.int32)):
        bufs[i] = np.zeros(64, dt)
    res = spvcoop.run(str(FP8 / "fp8_convert.spvasm"), dispatch=(1, 1, 1), buffers=bufs)
    return {k: np.asarray(res[k]) for k in range(14)}


def test_f32_to_fp8_rounds_to_nearest_even_and_overflows_to_nan_or_infinity(fp8_scalars) -> None:
    n = len(X)
    with np.errstate(invalid="ignore", over="ignore"):
        e4 = X.astype(E4).view(np.uint8)
        e5 = X.astype(E5).view(np.uint8)
    assert (fp8_scalars[1][:n] == e4).all() and (fp8_scalars[3][:n] == e5).all()
    # the extension's rule, checked on the expectations: out of range -> NaN (E4M3) / infinity (E5M2)
    assert np.isnan(fp8_scalars[1][:n].view(E4)[[8, 9, 10, 11, 15, 16, 17]].astype(np.float32)).all()
    assert (fp8_scalars[3][:n].view(E5)[[14, 15, 16]].astype(np.float32) == np.inf).all()


def test_saturating_conversions_give_the_largest_finite_value(fp8_scalars) -> None:
    n = len(X)
    s4, s5 = fp8_scalars[2][:n], fp8_scalars[4][:n]
    fin = ~np.isnan(X)
    assert (s4[fin] == _saturated(X, E4).view(np.uint8)[fin]).all()
    assert (s5[fin] == _saturated(X, E5).view(np.uint8)[fin]).all()
    assert np.isnan(s4.view(E4)[~fin].astype(np.float32)).all() and np.isnan(s5.view(E5)[~fin].astype(np.float32)).all()
    assert s4[16] == 0x7E and s4[17] == 0xFE and s5[16] == 0x7B and s5[17] == 0xFB   # +-448, +-57344
    sn = fp8_scalars[10][:len(N)]                                      # OpConvertSToF, saturating
    assert (sn == _saturated(N.astype(np.float32), E4).view(np.uint8)).all()


def test_fp8_widening_bitcast_and_integer_conversion(fp8_scalars) -> None:
    n = len(X)
    with np.errstate(invalid="ignore", over="ignore"):
        e4, e5 = X.astype(E4), X.astype(E5)
    np.testing.assert_array_equal(fp8_scalars[5][:n], e4.astype(np.float32))
    np.testing.assert_array_equal(fp8_scalars[6][:n], e5.astype(np.float32))
    assert (fp8_scalars[7][:n] == e4.view(np.uint8)).all()            # OpBitcast to u8
    fin = np.isfinite(e5.astype(np.float32))
    assert (fp8_scalars[8][:n][fin] == np.trunc(e5.astype(np.float64)[fin]).astype(np.int64)).all()
    with np.errstate(over="ignore"):
        assert (fp8_scalars[12][:len(H)] == H.astype(E5).view(np.uint8)).all()   # f16 -> E5M2 directly


def test_fp8_constants_are_the_assembled_words(fp8_scalars, tmp_path: Path) -> None:
    """The interpreter's constants are spirv-as's words, and those are ml_dtypes' encodings of the literals."""
    want = [np.float32(448).astype(E4), np.float32(-0.015625).astype(E4), np.float32(57344).astype(E5),
            np.float32(2**-13).astype(E5), np.float32(1.5).astype(E4), np.float32(0).astype(E5)]
    assert fp8_scalars[13].tolist() == [int(np.array([w]).view(np.uint8)[0]) for w in want]


# ---- literals: spirv-as against ml_dtypes ---------------------------------------------------------------
LITERALS = [("bf", "1.5"), ("bf", "-0.0078125"), ("bf", "3.3895313892515355e+38"), ("bf", "0x1.02p+0"),
            ("bf", "1e-40"), ("e4", "448"), ("e4", "-0.001953125"), ("e4", "0.875"), ("e5", "57344"),
            ("e5", "1.52587890625e-05"), ("e5", "-3.5"),
            # not representable: spirv-as narrows toward zero, ml_dtypes (and our conversions) to nearest even
            ("bf", "0.1"), ("e4", "0.1"), ("e5", "0.12"), ("e5", "1e-5"),
            # E4M3's top binade: spirv-as gives 448 for every literal in [256, 448], even representable ones
            ("e4", "288"), ("e4", "-320")]
DT = {"bf": BF, "e4": E4, "e5": E5}


def _assembled_constants(tmp_path: Path) -> list[int]:
    lines = ["OpCapability Shader", "OpCapability Float8EXT", "OpCapability BFloat16TypeKHR",
             'OpExtension "SPV_EXT_float8"', 'OpExtension "SPV_KHR_bfloat16"', "OpMemoryModel Logical GLSL450",
             "%e4 = OpTypeFloat 8 Float8E4M3EXT", "%e5 = OpTypeFloat 8 Float8E5M2EXT",
             "%bf = OpTypeFloat 16 BFloat16KHR"]
    lines += [f"%k{i} = OpConstant %{t} {lit}" for i, (t, lit) in enumerate(LITERALS)]
    src, spv = tmp_path / "k.spvasm", tmp_path / "k.spv"
    src.write_text("\n".join(lines) + "\n")
    r = run_tool("spirv-as", str(src), "-o", str(spv))
    assert r.returncode == 0, r.stderr
    words = struct.unpack(f"<{len(spv.read_bytes()) // 4}I", spv.read_bytes())[5:]
    out, i = [], 0
    while i < len(words):
        n, op = words[i] >> 16, words[i] & 0xFFFF
        if op == 43:  # OpConstant: type, id, value
            out.append(words[i + 3])
        i += n
    return out


def test_spirv_as_literals_against_ml_dtypes(tmp_path: Path) -> None:
    got = _assembled_constants(tmp_path)
    assert len(got) == len(LITERALS)
    exact = 11
    for (t, lit), w in zip(LITERALS[:exact], got[:exact], strict=False):
        v = float.fromhex(lit) if lit.startswith(("0x", "-0x")) else float(lit)
        bits = np.array([v], np.float64).astype(np.float32).astype(DT[t]).view(f"u{np.dtype(DT[t]).itemsize}")
        assert w == int(bits[0]), lit
    for (_t, lit), w in zip(LITERALS[-2:], got[-2:], strict=False):
        assert float(np.float32(lit).astype(E4)) == float(lit) and w & 0x7F == 0x7E, (lit, hex(w))
    for (t, lit), w in zip(LITERALS[exact:-2], got[exact:-2], strict=False):
        v = np.array([float(lit)], np.float64)
        nearest = int(v.astype(np.float32).astype(DT[t]).view(f"u{np.dtype(DT[t]).itemsize}")[0])
        assert w == nearest - 1, (lit, hex(w), hex(nearest))   # positive literals: one below


# ---- bf16 vectors, OpDot, OpSelect, storage formats -------------------------------------------------------
def test_bf16_vectors_dot_and_select(tmp_path: Path) -> None:
    shader = DATA / "fp8" / "bf16_vectors.spvasm"
    _valid(shader, tmp_path)
    rng = np.random.default_rng(3)
    a = rng.standard_normal(4 * 32).astype(np.float32).astype(BF)
    b = rng.standard_normal(4 * 32).astype(np.float32).astype(BF)
    res = spvcoop.run(str(shader), dispatch=(1, 1, 1), buffers={0: a.view(np.uint16), 1: b.view(np.uint16),
                                                                2: np.zeros(32, np.uint16), 3: np.zeros(32, np.uint16)})
    A, B = a.astype(np.float32).reshape(32, 4), b.astype(np.float32).reshape(32, 4)
    dot = (A.astype(np.float64) * B).sum(axis=1)            # exact products; the f32 sum of 4 is within an ulp
    got = res[2].view(BF).astype(np.float64)
    assert (np.abs(got - dot) <= np.abs(dot) * 2.0 ** -7 + 1e-30).all()
    ref = np.sum(A * B, axis=1, dtype=np.float32).astype(BF).view(np.uint16)
    assert (res[2] == ref).all()
    sel = np.where(A[:, 0] < B[:, 0], a.reshape(32, 4)[:, 1], b.reshape(32, 4)[:, 2])
    assert (res[3] == sel.view(np.uint16)).all()


# ---- FP8 cooperative matrices ---------------------------------------------------------------------------------
def _fp8_gemm(layout: str, numerics: str = "ieee"):
    rng = np.random.default_rng(8)
    A = (rng.standard_normal(512) * 4).astype(np.float32).astype(E4)
    B = (rng.standard_normal(512) * 4).astype(np.float32).astype(E5)
    C = (rng.standard_normal(256) * 8).astype(np.float32)
    C[:3] = [1000.0, -5000.0, 70000.0]      # D past E4M3's 448 (saturated) and E5M2's range (infinity)
    CH = (rng.standard_normal(256) * 8).astype(np.float16)
    bufs = {0: A.view(np.uint8), 1: B.view(np.uint8), 2: C, 3: np.zeros(256, np.float32), 4: CH,
            5: np.zeros(256, np.float16), 6: np.zeros(256, np.uint8), 7: np.zeros(256, np.uint8),
            8: np.zeros(512, np.uint8), 9: np.zeros(128, np.float32), 10: np.zeros(32, np.uint32)}
    # 32 lanes under every model (without subgroup_size a model's own default applies: tinytc's is 16)
    res = spvcoop.run(str(FP8 / "fp8_gemm.spvasm"), dispatch=(1, 1, 1), layout=layout, buffers=bufs,
                      coop_numerics=numerics, subgroup_size=32)
    return A, B, C, CH, res


def test_fp8_gemm_module_is_valid(tmp_path: Path) -> None:
    _valid(FP8 / "fp8_gemm.spvasm", tmp_path)


@pytest.mark.parametrize("numerics", ["ieee", "nvidia-tensorcore"])
def test_fp8_muladd_with_f32_and_f16_accumulators(numerics: str) -> None:
    A, B, C, CH, res = _fp8_gemm("nvidia", numerics)
    P = A.astype(np.float64).reshape(16, 32) @ B.astype(np.float64).reshape(32, 16)   # exact
    D, DH = res[3].reshape(16, 16), res[5].reshape(16, 16)
    scale = np.abs(A.astype(np.float64)).reshape(16, 32) @ np.abs(B.astype(np.float64)).reshape(32, 16)
    assert (np.abs(D - (P + C.reshape(16, 16))) <= (scale + np.abs(C.reshape(16, 16))) * 2.0 ** -21).all()
    exact_h = P + CH.astype(np.float64).reshape(16, 16)
    # f16 accumulator: rounded once per block of 16 k (measured for f16 inputs,
    # tests/numerics/test_gpu_ext_numerics.py), so twice for K = 32: each rounding within half an f16 ulp of what it
    # rounds (at most scale + |C| in size)
    ch = np.abs(CH.astype(np.float64).reshape(16, 16))
    assert (np.abs(DH.astype(np.float64) - exact_h) <= (np.abs(exact_h) + scale + ch) * 2.0 ** -11
            + scale * 2.0 ** -20).all()
    assert (res[8] == A.view(np.uint8)).all()                          # E4M3 store of an E4M3 load


def test_fp8_matrix_conversions_saturate_only_when_decorated() -> None:
    A, B, C, CH, res = _fp8_gemm("nvidia")
    D = res[3]
    assert (res[6] == _saturated(D, E4).view(np.uint8)).all()          # decorated: +-448 past the range
    assert res[6][0] == 0x7E and res[6][1] == 0xFE
    with np.errstate(over="ignore"):
        assert (res[7] == D.astype(E5).view(np.uint8)).all()           # plain: infinity past the range
    assert res[7][2] == 0x7C


@pytest.mark.parametrize("layout", ["nvidia", "striped", "tinytc"])
def test_fp8_element_access_follows_the_layout_model(layout: str) -> None:
    from spvcoop.layouts import load_model
    A, B, C, CH, res = _fp8_gemm(layout)
    lay = load_model(layout).layout("e4m3", 16, 32, "a", 32)
    assert (res[10] == lay.length).all()
    mat = A.astype(np.float32).reshape(16, 32)
    held = lay.row[:, :4] >= 0
    want = np.where(held, mat[lay.row[:, :4].clip(0), lay.col[:, :4].clip(0)], 0)
    assert (res[9].reshape(32, 4)[held] == want[held]).all()


# ---- bf16 element access under every layout model that defines bf16 ----------------------------------------------
def _bf16_models():
    from spvcoop.layouts import builtin_models, load_model
    out = []
    for name in builtin_models():
        m = load_model(name)
        for S in (16, 32, 64):
            if m.defines("bf16", 16, 16, "a", S) and m.defines("bf16", 16, 16, "b", S):
                out.append((name, S))
    return out


def test_every_model_defining_bf16_16x16_is_checked() -> None:
    names = {n for n, _ in _bf16_models()}
    # (mesa-nvk defines no bf16 since it follows nak_nir_lower_cmat.c, whose types are f16, f32 and integers)
    assert {"nvidia", "radv-gfx11", "intel-anv", "amd-rdna3-wmma", "amd-cdna3-mfma", "striped"} <= names


@pytest.mark.parametrize("model,S", _bf16_models())
def test_bf16_element_access_under_every_model(model: str, S: int, tmp_path: Path) -> None:
    """int(m[i]) through a Function variable (dynamic index) on bf16 A and B: invocation t, element i holds
    (row, col) = the model's layout at position t % S."""
    from spvcoop.layouts import load_model
    shader = FP8 / "bf16_access.spvasm"
    vals = (np.arange(256, dtype=np.float32) + 1).astype(BF).view(np.uint16)     # exact: integers to 256
    res = spvcoop.run(str(shader), dispatch=(1, 1, 1), layout=model, subgroup_size=S,
                      buffers={0: vals, 1: vals, 2: np.zeros(128 + 2 * 64 * 32, np.uint32)})
    out = res[2]
    for base, use, lens in ((128, "a", out[:64]), (2176, "b", out[64:128])):
        lay = load_model(model).layout("bf16", 16, 16, use, S)
        assert (lens == lay.length).all()
        got = out[base:base + 64 * 32].reshape(64, 32)[:, :lay.length]
        p = np.arange(64) % S
        want = np.where(lay.row[p] >= 0, lay.row[p] * 16 + lay.col[p] + 1, 0)
        assert (got == want).all(), use


# ---- run specs: bf16 / FP8 buffers in and out ---------------------------------------------------------------
@pytest.mark.slow
def test_run_spec_reads_and_writes_fp8_and_bf16_buffers(tmp_path: Path) -> None:
    """Buffers of FP8 / bf16 values in a run spec: given as numbers with dtype float8_e4m3fn / bfloat16 (or typed
    by the shader through their binding), printed as the numbers they hold, written to .npy as float32."""
    import subprocess
    import sys
    import yaml
    shader = tmp_path / "fp8_convert.spvasm"
    shader.write_text((FP8 / "fp8_convert.spvasm").read_text())
    xs = [float(v) for v in np.linspace(-500, 500, 64, dtype=np.float32)]
    outs = "\n".join(f'  "0:{b}": {{zeros: 64}}' for b in (1, 3, 5, 6, 7, 8, 12))
    spec = tmp_path / "run.yaml"
    spec.write_text(f"shader: fp8_convert.spvasm\ndispatch: [1, 1, 1]\nbuffers:\n  X: {{data: {xs}}}\n"
                    f"  N: {{arange: 64, dtype: int32}}\n  H: {{data: {[0.1] * 64}, dtype: float16}}\n{outs}\n"
                    f"  S4: {{zeros: 64, dtype: float8_e4m3fn}}\n  S5: {{zeros: 64, dtype: float8_e5m2}}\n"
                    f"  SN: {{zeros: 64, dtype: float8_e4m3fn}}\n  K: {{zeros: 6, dtype: uint32}}\n")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = yaml.safe_load(r.stdout)
    x = np.array(xs, np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        e4 = x.astype(E4).astype(np.float64)
    g = np.array(got["E4"], np.float64)
    assert ((g == e4) | (np.isnan(g) & np.isnan(e4))).all()
    assert got["S4"] == _saturated(x, E4).astype(np.float64).tolist()
    assert got["S5"] == _saturated(x, E5).astype(np.float64).tolist()
    assert got["H5"] == np.full(64, 0.1, np.float16).astype(E5).astype(np.float64).tolist()
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec), "-q", "-o", str(tmp_path / "out") + "/"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    s4 = np.load(tmp_path / "out" / "S4.npy")
    assert s4.dtype == np.float32 and (s4 == _saturated(x, E4).astype(np.float32)).all()


def test_run_spec_bfloat16_inline_data(tmp_path: Path) -> None:
    """dtype: bfloat16 turns the numbers into bf16 (nearest even) before the run; bf16_scalar doubles element 0."""
    import subprocess
    import sys
    import yaml
    shader = tmp_path / "bf.spvasm"
    shader.write_text((DATA / "bf16_scalar.spvasm").read_text())
    spec = tmp_path / "run.yaml"
    spec.write_text("shader: bf.spvasm\ndispatch: [1, 1, 1]\nbuffers:\n  0: {data: [1.1, 0], dtype: bfloat16}\n")
    r = subprocess.run([sys.executable, "-m", "spvcoop", "run", str(spec)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    b = float(np.float32(1.1).astype(BF))
    assert list(yaml.safe_load(r.stdout).values())[0] == [b, float(np.float32(2 * b).astype(BF))]

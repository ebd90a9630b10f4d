"""The interpreter against numpy references, on GLSL compute shaders compiled by glslangValidator."""
from __future__ import annotations


import numpy as np
import pytest

from spvcoop.core.reference_tools import find_tool
from conftest import TESTS

GLSL = TESTS / "glsl" / "interp"
pytestmark = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")


def run(name: str, **kw):
    from spvcoop.interp import run as _run
    return _run(GLSL / name, **kw)


def test_saxpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    r = run("saxpy.comp", dispatch=(16, 1, 1), buffers={(0, 0): x, (0, 1): y},
            push_constants={"a": 1.5, "n": 1000})
    np.testing.assert_array_equal(r[(0, 1)], np.float32(1.5) * x + y)
    np.testing.assert_array_equal(r["y"], r[(0, 1)])  # also keyed by member name
    np.testing.assert_array_equal(r[(0, 0)], x)


def test_shared_memory_reduction():
    data = np.arange(128 * 8, dtype=np.float32) % 17
    r = run("reduce_shared.comp", dispatch=(8, 1, 1),
            buffers={(0, 0): data, (0, 1): np.zeros(8, np.float32)})
    np.testing.assert_allclose(r[(0, 1)], data.reshape(8, 128).sum(axis=1))


def test_prefix_scan():
    v = np.random.default_rng(2).integers(-50, 50, 64 * 5).astype(np.int32)
    r = run("prefix_scan.comp", dispatch=(5, 1, 1), buffers={(0, 0): v})
    np.testing.assert_array_equal(r[(0, 0)], np.cumsum(v.reshape(5, 64), axis=1).ravel())


def test_matmul_with_early_return():
    rng = np.random.default_rng(3)
    M, N, K = 13, 19, 7
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    r = run("matmul.comp", dispatch=(3, 2, 1), buffers={(0, 0): a, (0, 1): b, (0, 2): np.zeros((M, N), np.float32)},
            push_constants={"M": M, "N": N, "K": K})
    np.testing.assert_allclose(r[(0, 2)], a @ b, rtol=1e-5, atol=1e-5)


def test_histogram_atomics():
    vals = np.random.default_rng(4).integers(0, 5000, 256 * 6).astype(np.uint32)
    hist = {"bins": [0] * 16, "total": 0, "minv": 10**6}
    r = run("histogram.comp", dispatch=(6, 1, 1), buffers={(0, 0): vals, (0, 1): hist})
    out = r.values((0, 1))
    assert out["bins"] == np.bincount(vals % 16, minlength=16).tolist()
    assert out["total"] == 256 * 6
    assert out["minv"] == int(vals.min()) - 1000


def _classify(x: int) -> int:
    m = x % 7  # OpSMod: sign of the divisor
    if m == 0:
        return x * 2
    if m in (1, 2, 3):
        if m in (1, 2):
            x += 10
        return x - 3
    if m == 4:
        s = 0
        for i in range(x % 5):
            if i == 3:
                break
            s += i
        return s
    return -x


def test_switch_fallthrough_continue_break():
    v = np.arange(-40, 88, dtype=np.int32)
    r = run("switch_heavy.comp", dispatch=(4, 1, 1), buffers={(0, 0): v})
    exp = [sum(_classify(x + k) for k in range(3) if (x + k) & 1) for x in v.tolist()]
    assert r[(0, 0)].tolist() == exp


def test_16_and_8_bit_storage():
    rng = np.random.default_rng(5)
    h = rng.standard_normal(64).astype(np.float16)
    s8 = rng.integers(-128, 127, 64).astype(np.int8)
    u16 = rng.integers(0, 65535, 64).astype(np.uint16)
    r = run("storage16_8.comp", buffers={(0, 0): h, (0, 1): s8, (0, 2): u16, (0, 3): np.zeros(64, np.float32)})
    exp = (h * np.float16(2)).astype(np.float32) + s8.astype(np.float32) + u16.astype(np.float32)
    np.testing.assert_array_equal(r[(0, 3)], exp)


def test_8_bit_output():
    a = np.arange(128, dtype=np.uint32) * 37
    r = run("u8_out.comp", dispatch=(2, 1, 1), buffers={(0, 0): a, (0, 1): np.zeros(128, np.uint8)})
    np.testing.assert_array_equal(r[(0, 1)], ((a * 3 + 7) & 0xFF).astype(np.uint8))


@pytest.mark.slow
@pytest.mark.parametrize("spec, scale, neg, wg", [({}, 3, False, 1), ({0: 4, 1: 5, 2: True}, 5, True, 4),
                                                  ({"SCALE": -2}, -2, False, 1)])
def test_spec_constants(spec, scale, neg, wg):
    v = np.arange(16, dtype=np.int32)
    r = run("spec_const.comp", dispatch=(16 // wg, 1, 1), buffers={(0, 0): v}, spec_constants=spec)
    exp = v * scale + 2 * scale + wg
    np.testing.assert_array_equal(r[(0, 0)], -exp if neg else exp)
    assert r.workgroup_size == (wg, 1, 1)


def test_buffer_reference_push_constants():
    src = np.linspace(0, 1, 50).astype(np.float32)
    r = run("buffer_ref.comp", dispatch=(2, 1, 1),
            buffers={"src": src, "dst": np.zeros(64, np.float32)},
            push_constants={"src": "&src", "dst": "&dst", "n": 50})
    exp = np.zeros(64, np.float32)
    exp[:50] = src * np.float32(10) + np.arange(50, dtype=np.float32)
    np.testing.assert_array_equal(r["dst"], exp)


RES = np.dtype([("sum", "<i4"), ("incl", "<i4"), ("excl", "<i4"), ("ballot", "<u4"), ("mx", "<i4"),
                ("shuf", "<i4")])


@pytest.mark.slow
@pytest.mark.parametrize("sg", [32, 16, 64])
def test_subgroup_ops(sg):
    v = np.random.default_rng(6).integers(-9, 10, 128).astype(np.int32)
    r = run("subgroup_reduce.comp", dispatch=(2, 1, 1), subgroup_size=sg,
            buffers={(0, 0): v, (0, 1): np.zeros(128, RES)})
    out = np.frombuffer(r.raw((0, 1)), RES)
    g = v.reshape(-1, sg)
    np.testing.assert_array_equal(out["sum"], np.repeat(g.sum(1), sg))
    np.testing.assert_array_equal(out["incl"], np.cumsum(g, 1).ravel())
    np.testing.assert_array_equal(out["excl"], (np.cumsum(g, 1) - g).ravel())
    np.testing.assert_array_equal(out["mx"], np.repeat(g.max(1), sg))
    bits = (g[:, :32] > 0).astype(np.uint64) << np.arange(min(sg, 32), dtype=np.uint64)
    np.testing.assert_array_equal(out["ballot"], np.repeat(bits.sum(1).astype(np.uint32), sg))
    elect = (np.arange(128) % sg == 0) * 1000
    np.testing.assert_array_equal(out["shuf"], v.reshape(-1, 2)[:, ::-1].ravel() + elect)


def _collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
        if steps > 500:
            return 9999
    return steps


def test_divergent_loops_and_calls():
    v = np.arange(1, 49, dtype=np.uint32)
    r = run("control_flow.comp", dispatch=(3, 1, 1), buffers={(0, 0): v})
    assert r[(0, 0)].tolist() == [_collatz(n) for n in v.tolist()]


def test_integer_semantics():
    rng = np.random.default_rng(7)
    a = rng.integers(-2**31, 2**31 - 1, 64).astype(np.int32)
    b = rng.integers(-1000, 1000, 64).astype(np.int32)
    b[b == 0] = 7
    res_t = np.dtype([("q", "<i4"), ("r", "<i4"), ("uq", "<u4"), ("sh", "<i4"), ("bits", "<i4")])
    r = run("int_math.comp", buffers={(0, 0): a, (0, 1): b, (0, 2): np.zeros(64, res_t)})
    out = np.frombuffer(r.raw((0, 2)), res_t)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.array([(abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)
                  for x, y in zip(a64.tolist(), b64.tolist(), strict=True)])
    np.testing.assert_array_equal(out["q"], q)
    np.testing.assert_array_equal(out["r"], a64 % b64)  # glslang emits OpSMod: sign of the divisor
    np.testing.assert_array_equal(out["uq"], a.view(np.uint32) // b.view(np.uint32))
    sh = (a >> 3) ^ (a.view(np.uint32) >> 5).view(np.int32) ^ (b << 2)
    np.testing.assert_array_equal(out["sh"], sh)
    popc = np.array([bin(x & 0xFFFFFFFF).count("1") for x in a.tolist()])
    msb = np.array([(x if x >= 0 else ~x).bit_length() - 1 for x in b.tolist()])
    ext = ((a >> 4) & 0xFF).astype(np.int32)
    ext = np.where(ext >= 128, ext - 256, ext)
    np.testing.assert_array_equal(out["bits"], popc + msb * 100 + ext)


def test_float_math_and_matrices():
    a = np.random.default_rng(8).standard_normal((64, 4)).astype(np.float32)
    r = run("float_math.comp", buffers={(0, 0): a, (0, 1): np.zeros((64, 4), np.float32),
                                        (0, 2): np.zeros(64, np.float32)})
    x = a.astype(np.float64)
    m = np.stack([x[:, [0, 2]], x[:, [1, 3]]], axis=1)  # rows of mat2(x, y, z, w) (column-major)
    mv = m @ np.array([1.0, 2.0])
    exp = np.stack([np.clip(x[:, 0], -0.5, 0.5), np.sqrt(np.abs(x[:, 1])) + np.floor(x[:, 2]), mv[:, 0],
                    mv[:, 1]], axis=1)
    np.testing.assert_allclose(r[(0, 1)], exp, rtol=1e-5, atol=1e-6)
    y3 = x[:, 1] * 3.5
    d = x[:, :3] @ [1, 2, 3] + np.hypot(x[:, 2], x[:, 3]) + x[:, 0] * 0.75 + x[:, 3] * 0.25 + (y3 - np.floor(y3))
    np.testing.assert_allclose(r[(0, 2)], d, rtol=1e-4, atol=1e-5)


def test_std140_uniform_and_std430_structs():
    rng = np.random.default_rng(9)
    xform = rng.standard_normal((4, 4))
    items = [{"pos": rng.standard_normal(3).tolist(), "w": float(i), "id": [i, i + 2]} for i in range(4)]
    params = {"xform": xform.T.tolist(), "offset": [1.0, 2.0, 3.0], "scale": 0.5}  # columns
    r = run("struct_std140.comp", buffers={(0, 0): params, (0, 1): {"items": items}})
    out = r.values((0, 1))["items"]
    for i, it in enumerate(items):
        p = xform.astype(np.float32) @ np.array(it["pos"] + [1.0], np.float32)
        np.testing.assert_allclose(out[i]["pos"], p[:3] * 0.5 + [1, 2, 3], rtol=1e-5, atol=1e-5)
        assert out[i]["w"] == float(i) + i * (i + 2)
        assert out[i]["id"] == [i + 2, i]


def test_transpose_2d_dispatch():
    w, h = 24, 16
    src = np.arange(w * h, dtype=np.uint32).reshape(h, w)
    r = run("workgroup_2d.comp", dispatch=(w // 8, h // 8, 1),
            buffers={(0, 0): src, (0, 1): np.zeros((w, h), np.uint32)}, push_constants={"width": w, "height": h})
    np.testing.assert_array_equal(r[(0, 1)], src.T)


def _functions_private_reference(x0: int, i: int) -> tuple[int, int]:
    table = [3, 1, 4, 1, 5]
    x = x0
    s, lo, hi = 0, 0xFFFFFFFF, 0
    hist = []
    for _ in range(4):
        odd = x & 1 == 1
        x = (x * 3 + 1) & 0xFFFFFFFF if odd else x // 2
        hist.append(x)
        if odd:
            t = table[x % 5]
            s += t
            lo, hi = min(lo, t), max(hi, t)
    big = [h > 10 for h in hist]
    h = [hist[0], hist[3], hist[2], hist[1]]
    v = s * 1000 + (100 if any(big) else 0) + (10 if all(big) else 0) + h[1] % 10
    s16 = ((i * -3000 + 2**15) % 2**16) - 2**15  # int16 multiply wraps
    w = ((lo << 40) | hi) + s16
    return v & 0xFFFFFFFF, w % 2**64


def test_functions_out_params_private_const_arrays_64_and_16_bit():
    v = np.array([7, 8, 27, 1, 2, 3, 100, 255, 1000, 31, 6, 5, 12, 13, 77, 9], np.uint32)
    r = run("functions_private.comp", buffers={(0, 0): v, (0, 1): np.zeros(16, np.uint64)})
    exp = [_functions_private_reference(int(x), i) for i, x in enumerate(v)]
    assert r[(0, 0)].tolist() == [e[0] for e in exp]
    assert r[(0, 1)].tolist() == [e[1] for e in exp]


def test_runtime_error_points_at_the_glsl_line(tmp_path):
    from spvcoop import SpvError
    from spvcoop.interp import run as _run
    src = tmp_path / "oob.comp"
    src.write_text("#version 450\nlayout(local_size_x = 4) in;\nlayout(binding = 0) buffer B { uint v[]; };\n"
                   "void main() {\n    v[gl_GlobalInvocationID.x + 3] = 1;\n}\n")
    with pytest.raises(SpvError) as e:
        _run(src, dispatch=(2, 1, 1), buffers={0: np.zeros(8, np.uint32)})
    d = e.value.diagnostics[0]
    assert d.source.endswith("oob.comp") and d.span.line == 5
    assert "byte offset 32" in d.message and "32 bytes" in d.message
    assert any("v[gl_GlobalInvocationID.x + 3] = 1;" in n.message for n in d.notes)


def test_atomic_operations_serialise_per_address():
    n = 128
    state = {"counter": 5, "andv": 0xFFFFFFFF, "orv": 0, "xorv": 0, "maxv": 0, "minv": 0, "swapped": 0, "cas": 0}
    r = run("atomics.comp", dispatch=(n // 64, 1, 1), buffers={(0, 0): state, (0, 1): np.zeros(n, np.uint32)})
    out = r.values((0, 0))
    tickets = r[(0, 1)]
    assert sorted(tickets.tolist()) == list(range(5, 5 + 2 * n, 2))  # every invocation saw a distinct value
    assert out["counter"] == 5 + 2 * n + 1000000  # exactly one compare-exchange won
    assert out["andv"] == 0x80000000
    assert out["orv"] == 0xFFFF
    x = 0
    for i in range(n):
        x ^= (i * 2654435761) & 0xFFFFFFFF
    assert out["xorv"] == x
    assert out["maxv"] == max((i * 37) % 101 for i in range(n))
    assert out["minv"] == -49
    assert 1000 <= out["swapped"] < 1000 + n
    assert 1 <= out["cas"] <= n


SUB = np.dtype([("bcast", "<i4"), ("first", "<i4"), ("up", "<i4"), ("down", "<i4"), ("votes", "<u4"),
                ("bitcount", "<u4"), ("clustered", "<i4"), ("partial_min", "<i4")])


@pytest.mark.slow
@pytest.mark.parametrize("sg", [16, 32])
def test_subgroup_broadcast_shuffles_votes_clusters_and_partial_activity(sg):
    v = np.random.default_rng(10).integers(-20, 20, 128).astype(np.int32)
    v[5] = 7
    r = run("subgroup_more.comp", dispatch=(2, 1, 1), subgroup_size=sg,
            buffers={(0, 0): v, (0, 1): np.zeros(128, SUB)})
    out = np.frombuffer(r.raw((0, 1)), SUB)
    g = v.reshape(-1, sg)
    lane = np.arange(128) % sg
    np.testing.assert_array_equal(out["bcast"], np.repeat(g[:, 3], sg))
    up = np.where(lane >= 1, np.roll(v, 1), v)
    np.testing.assert_array_equal(out["up"], up)
    down = np.where(lane + 2 < sg, np.roll(v, -2), v)
    np.testing.assert_array_equal(out["down"], down)
    votes = 1 + 2 * (g == 7).any(1) + 4 * (g == g[:, :1]).all(1)
    np.testing.assert_array_equal(out["votes"], np.repeat(votes, sg))
    np.testing.assert_array_equal(out["bitcount"], np.cumsum(g > 0, axis=1).ravel())
    np.testing.assert_array_equal(out["clustered"], np.repeat(v.reshape(-1, 4).sum(1), 4))
    active = v % 3 == 0  # GLSL % on ints is OpSMod here: sign of the divisor, same zero test
    mins = np.where(active.reshape(-1, sg), g, 10**9).min(1)
    np.testing.assert_array_equal(out["partial_min"], np.where(active, np.repeat(mins, sg), 12345))
    firsts = np.array([row[np.argmax(act)] if act.any() else 0
                       for row, act in zip(g, active.reshape(-1, sg), strict=False)])
    np.testing.assert_array_equal(out["first"], np.where(active, np.repeat(firsts, sg), -1))


def test_builtins_with_2d_workgroups_and_partial_subgroups():
    r = run("builtins.comp", dispatch=(2, 3, 1), buffers={(0, 0): np.zeros((6 * 48, 2, 4), np.uint32)})
    out = r[(0, 0)]
    exp_ids, exp_sg = [], []
    for wy in range(3):
        for wx in range(2):
            for ly in range(12):
                for lx in range(4):
                    li = ly * 4 + lx
                    exp_ids.append([wx * 4 + lx, wy * 12 + ly, ly * 100 + lx, wy * 2 + wx])
                    exp_sg.append([li // 32, 2 * 100 + 32, li % 32, 32 if li < 32 else 16])
    np.testing.assert_array_equal(out[:, 0], exp_ids)
    np.testing.assert_array_equal(out[:, 1], exp_sg)

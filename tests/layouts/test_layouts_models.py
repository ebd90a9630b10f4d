"""Every built-in layout model against its source: the H100 measurement, the seed
documents' tables and the PTX / CUDA / AMD / IREE formulas, written here
independently of the YAML files (plain Python loops over the source's own wording)."""
from __future__ import annotations

import json

import pytest

from spvcoop.layouts import LayoutError, builtin_models, load_model
from conftest import TESTS

DATA = TESTS / "data"
H100 = json.loads((DATA / "h100-vulkan" / "layouts.json").read_text())
USE = {"A": "a", "B": "b", "C": "acc", None: None}


def lanes_of(fn, S: int, L: int) -> list[list[tuple[int, int] | None]]:
    return [[fn(lane, e) for e in range(L)] for lane in range(S)]


def test_builtin_models_listed():
    assert set(builtin_models()) >= {
        "nvidia", "striped", "shuffled", "tinytc", "wmma-sm70", "wmma-sm80", "ptx-m16n8k16", "ptx-m16n8k8",
        "amd-cdna3-mfma", "amd-rdna3-wmma", "vdmfma-8x16x64"}


@pytest.mark.parametrize("key", sorted(H100))
def test_nvidia_reproduces_h100(key):
    entry = H100[key]
    lay = load_model("nvidia").layout(entry["type"], entry["rows"], entry["cols"], USE[entry["use"]])
    assert lay.subgroup_size == 32
    assert [lay.length] * 32 == entry["length"]
    assert lay.lanes() == [[tuple(x) for x in lane] for lane in entry["map"]]
    assert not lay.replicated


def test_h100_has_37_entries():
    assert len(H100) == 37


def vk_nv(bits: int, R: int, C: int, transposed: bool):
    """The vk-nv rule as worded in layouts.md 1.3 (e = j + w*(cb + (C/4w)*rb))."""
    w = 4 if bits == 8 else 2
    def fn(lane, e):
        g, t = lane >> 2, lane & 3
        j, q = e % w, e // w
        if not transposed:
            nblk = C // (4 * w)
            cb, rb = q % nblk, q // nblk
            return (g + 8 * rb, w * t + j + 4 * w * cb)
        nblk = R // (4 * w)
        kb, nb = q % nblk, q // nblk
        return (w * t + j + 4 * w * kb, g + 8 * nb)
    return fn


@pytest.mark.parametrize("comp,bits", [("f16", 16), ("f32", 32), ("u8", 8), ("s32", 32), ("bf16", 16)])
@pytest.mark.parametrize("R,C", [(8, 32), (16, 32), (32, 32), (24, 16), (32, 64), (64, 32)])
def test_nvidia_extends_by_rule(comp, bits, R, C):
    m = load_model("nvidia")
    w = 4 if bits == 8 else 2
    if C % (4 * w) == 0 and R % 8 == 0:
        lay = m.layout(comp, R, C, "a")
        assert lay.lanes() == lanes_of(vk_nv(bits, R, C, False), 32, R * C // 32)
        assert m.layout(comp, R, C, "acc").same_as(lay)
    if R % (4 * w) == 0 and C % 8 == 0:
        lay = m.layout(comp, R, C, "b")
        assert lay.lanes() == lanes_of(vk_nv(bits, R, C, True), 32, R * C // 32)


def test_nvidia_nv_8bit_tall_is_column_layout_and_square_is_row_layout():
    m = load_model("nvidia")
    assert m.layout("s8", 64, 16).lanes() == lanes_of(vk_nv(8, 64, 16, True), 32, 32)
    assert m.layout("u8", 32, 32).lanes() == lanes_of(vk_nv(8, 32, 32, False), 32, 32)


def test_nvidia_refuses_what_the_rule_does_not_cover():
    m = load_model("nvidia")
    assert not m.defines("f64", 16, 16, "a")
    assert not m.defines("f16", 12, 16, "a")          # rows not a multiple of 8
    assert not m.defines("u8", 16, 24, "a")           # cols not a multiple of 16 for 8-bit
    assert not m.defines("f16", 16, 16, "a", 16)      # subgroup size 16
    # 64, 128 and 256 are the Workgroup-scope entries (S = the workgroup's invocations); 512 is not measured
    assert m.defines("f16", 16, 16, "a", 64) and not m.defines("f16", 32, 32, "a", 512)
    assert not m.defines("f16", 16, 16, "acc", 128)   # the driver's granularity at 128 invocations: M = 32
    assert m.defines("f16", 32, 16, "acc", 128) and not m.defines("u8", 32, 16, "a", 128)   # 8-bit: K = 32
    with pytest.raises(LayoutError, match="does not define f64 16x16"):
        m.layout("f64", 16, 16, "a")


# ---------------------------------------------------------------- PTX mma.sync (PTX ISA fragments)

def ptx16816(op):
    def A(lane, i):
        g, t = lane >> 2, lane & 3
        row = g if i in (0, 1, 4, 5) else g + 8
        col = 2 * t + (i & 1) + (8 if i >= 4 else 0)
        return (row, col)
    def B(lane, i):
        g, t = lane >> 2, lane & 3
        return (2 * t + (i & 1) + (8 if i >= 2 else 0), g)
    def Cf(lane, i):
        g, t = lane >> 2, lane & 3
        return (g if i < 2 else g + 8, 2 * t + (i & 1))
    return {"a": A, "b": B, "acc": Cf}[op]


@pytest.mark.parametrize("use,comp,R,C,L", [("a", "f16", 16, 16, 8), ("a", "bf16", 16, 16, 8),
                                            ("b", "f16", 16, 8, 4), ("acc", "f32", 16, 8, 4),
                                            ("acc", "f16", 16, 8, 4)])
def test_ptx_m16n8k16(use, comp, R, C, L):
    lay = load_model("ptx-m16n8k16").layout(comp, R, C, use)
    assert lay.lanes() == lanes_of(ptx16816(use), 32, L)


def test_ptx_m16n8k16_check_table():
    m = load_model("ptx-m16n8k16")
    a = m.layout("f16", 16, 16, "a").lanes()
    assert a[0] == [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    assert a[31] == [(7, 6), (7, 7), (15, 6), (15, 7), (7, 14), (7, 15), (15, 14), (15, 15)]
    b = m.layout("f16", 16, 8, "b").lanes()
    assert b[1] == [(2, 0), (3, 0), (10, 0), (11, 0)] and b[31] == [(6, 7), (7, 7), (14, 7), (15, 7)]


def test_ptx_m16n8k16_int8():
    m = load_model("ptx-m16n8k16")
    a = m.layout("s8", 16, 16, "a")
    assert a.lanes() == lanes_of(lambda lane, i: ((lane >> 2) + (0 if i < 4 else 8), 4 * (lane & 3) + (i & 3)), 32, 8)
    b = m.layout("u8", 16, 8, "b")
    assert b.lanes() == lanes_of(lambda lane, i: (4 * (lane & 3) + i, lane >> 2), 32, 4)


def test_ptx_m16n8k8():
    m = load_model("ptx-m16n8k8")
    a = m.layout("f16", 16, 8, "a")
    assert a.lanes() == lanes_of(lambda lane, i: ((lane >> 2) + (8 if i >= 2 else 0), 2 * (lane & 3) + (i & 1)), 32, 4)
    assert a.lanes()[5] == [(1, 2), (1, 3), (9, 2), (9, 3)]
    b = m.layout("f16", 8, 8, "b")
    assert b.lanes() == lanes_of(lambda lane, i: (2 * (lane & 3) + i, lane >> 2), 32, 2)
    assert b.lanes()[5] == [(2, 1), (3, 1)]
    assert m.layout("f32", 16, 8, "acc").lanes() == lanes_of(ptx16816("acc"), 32, 4)


# ---------------------------------------------------------------- CUDA WMMA

def test_wmma_sm80_accumulator_is_two_ptx_c_fragments():
    C = ptx16816("acc")
    for comp in ("f16", "f32"):
        lay = load_model("wmma-sm80").layout(comp, 16, 16, "acc")
        exp = lanes_of(lambda lane, e: C(lane, e) if e < 4 else (C(lane, e - 4)[0], C(lane, e - 4)[1] + 8), 32, 8)
        assert lay.lanes() == exp


def test_wmma_sm80_a_b_replicated_within_lane():
    m = load_model("wmma-sm80")
    a = m.layout("f16", 16, 16, "a")
    assert a.length == 16 and a.replicated
    assert (a.copies == 2).all()
    lanes = a.lanes()
    assert all(lane[:8] == lane[8:] for lane in lanes)
    assert [lane[:8] for lane in lanes] == lanes_of(ptx16816("a"), 32, 8)
    b = m.layout("f16", 16, 16, "b").lanes()
    assert b[0][:8] == [(0, 0), (1, 0), (8, 0), (9, 0), (0, 8), (1, 8), (8, 8), (9, 8)]


def test_wmma_sm70_accumulators():
    m = load_model("wmma-sm70")
    h = m.layout("f16", 16, 16, "acc").lanes()
    assert h[0] == [(0, c) for c in range(8)] and h[4] == [(8, c) for c in range(8)]
    assert h[8] == [(0, c) for c in range(8, 16)] and h[16] == [(4, c) for c in range(8)]
    f = m.layout("f32", 16, 16, "acc").lanes()
    assert f[0] == [(0, 0), (0, 1), (2, 0), (2, 1), (0, 4), (0, 5), (2, 4), (2, 5)]
    assert f[2] == [(0, 2), (0, 3), (2, 2), (2, 3), (0, 6), (0, 7), (2, 6), (2, 7)]
    assert f[4][:3] == [(8, 0), (8, 1), (10, 0)] and f[16][:3] == [(4, 0), (4, 1), (6, 0)]
    assert not m.defines("f16", 16, 16, "a")


# ---------------------------------------------------------------- AMD

def test_cdna3_16x16x16_forward_form():
    m = load_model("amd-cdna3-mfma")
    assert m.default_subgroup_size == 64
    a = m.layout("f16", 16, 16, "a")
    for i in range(16):
        for k in range(16):
            lane, e = 16 * (k // 4) + i, k % 4
            assert (a.row[lane, e], a.col[lane, e]) == (i, k)
    for use, comp in (("b", "bf16"), ("acc", "f32")):
        lay = m.layout(comp, 16, 16, use)
        assert lay.lanes() == lanes_of(lambda lane, e: (4 * (lane // 16) + e, lane % 16), 64, 4)


def test_cdna3_32x32x8():
    m = load_model("amd-cdna3-mfma")
    assert m.layout("f16", 32, 8, "a").lanes() == lanes_of(lambda lane, e: (lane % 32, 4 * (lane // 32) + e), 64, 4)
    assert m.layout("f16", 8, 32, "b").lanes() == lanes_of(lambda lane, e: (4 * (lane // 32) + e, lane % 32), 64, 4)
    c = m.layout("f32", 32, 32, "acc")
    for i in range(32):
        for j in range(32):
            gpr, lane = 4 * (i // 8) + i % 4, 32 * ((i // 4) % 2) + j
            assert (c.row[lane, gpr], c.col[lane, gpr]) == (i, j)
    assert c.lanes()[32][:4] == [(4, 0), (5, 0), (6, 0), (7, 0)]


def test_cdna3_int8():
    m = load_model("amd-cdna3-mfma")
    assert m.layout("s8", 16, 32, "a").lanes() == lanes_of(lambda lane, e: (lane % 16, 8 * (lane // 16) + e), 64, 8)
    assert m.layout("u8", 32, 16, "b").lanes() == lanes_of(lambda lane, e: (8 * (lane // 16) + e, lane % 16), 64, 8)


def test_rdna3_replication_and_accumulators():
    m = load_model("amd-rdna3-wmma")
    for S in (32, 64):
        a = m.layout("f16", 16, 16, "a", S)
        assert a.length == 16 and a.replicated and (a.copies == S // 16).all()
        assert a.lanes() == lanes_of(lambda lane, e: (lane % 16, e), S, 16)
        b = m.layout("bf16", 16, 16, "b", S)
        assert b.lanes() == lanes_of(lambda lane, e: (e, lane % 16), S, 16)
    c = m.layout("f32", 16, 16, "acc", 32)
    for i in range(16):
        for j in range(16):
            assert (c.row[16 * (i % 2) + j, i // 2], c.col[16 * (i % 2) + j, i // 2]) == (i, j)
    c64 = m.layout("f32", 16, 16, "acc", 64).lanes()
    assert c64[0] == [(0, 0), (4, 0), (8, 0), (12, 0)] and c64[16] == [(1, 0), (5, 0), (9, 0), (13, 0)]
    assert c64[32] == [(2, 0), (6, 0), (10, 0), (14, 0)] and c64[63] == [(3, 15), (7, 15), (11, 15), (15, 15)]


def test_vdmfma():
    m = load_model("vdmfma-8x16x64")
    a = m.layout("f16", 8, 64, "a").lanes()
    assert a[0] == [(0, c) for c in range(8)] and a[1] == [(0, c) for c in range(8, 16)]
    assert a[2] == [(1, c) for c in range(8)] and a[16] == [(0, c) for c in range(16, 24)]
    assert a[63] == [(7, c) for c in range(56, 64)]
    assert m.layout("f16", 64, 16, "b").lanes() == lanes_of(lambda lane, e: (16 * (lane // 16) + e, lane % 16), 64, 16)
    assert m.layout("f32", 8, 16, "acc").lanes() == lanes_of(lambda lane, e: (2 * (lane // 16) + e, lane % 16), 64, 2)


# ---------------------------------------------------------------- tinytc

def tinytc_reference(M: int, N: int, S: int, K1: int) -> list[list]:
    """The doc's linearization: A*[i,k1,j,k2] = A[i + k1 I + k2 I K1, j] at L = i + k1 I + j I K1 + k2 I K1 J,
    held by lane L mod S at v = L div S."""
    I_ = min(M, S)
    J = -(-I_ * N // S) * S // I_
    K = M // I_
    K2 = K // K1
    V = I_ * K * J // S
    out = [[None] * V for _ in range(S)]
    for i in range(I_):
        for k1 in range(K1):
            for j in range(J):
                for k2 in range(K2):
                    L = i + k1 * I_ + j * I_ * K1 + k2 * I_ * K1 * J
                    row = i + k1 * I_ + k2 * I_ * K1
                    out[L % S][L // S] = (row, j) if j < N else None
    return out


def test_tinytc_seed_tables():
    m = load_model("tinytc")
    t = m.layout("f32", 4, 15, "acc", 16)
    assert t.length == 4
    lanes = t.lanes()
    assert lanes[0] == [(0, 0), (0, 4), (0, 8), (0, 12)]
    assert lanes[5] == [(1, 1), (1, 5), (1, 9), (1, 13)]
    assert all(lanes[p][3] is None for p in range(12, 16))
    assert sum(x is None for lane in lanes for x in lane) == 4
    t = m.layout("f32", 1, 17, "acc", 16)
    assert t.length == 2
    lanes = t.lanes()
    assert lanes[0] == [(0, 0), (0, 16)]
    assert all(lanes[p] == [(0, p), None] for p in range(1, 16))


def test_tinytc_other_check_tables():
    m = load_model("tinytc")
    acc = m.layout("f32", 32, 16, "acc", 16).lanes()
    assert acc[0] == [(0, c) for c in range(16)] + [(16, c) for c in range(16)]
    assert acc[15] == [(15, c) for c in range(16)] + [(31, c) for c in range(16)]
    b = m.layout("s8", 32, 16, "b", 16).lanes()
    assert b[0][:6] == [(0, 0), (16, 0), (0, 1), (16, 1), (0, 2), (16, 2)]
    small = m.layout("f32", 8, 16, "acc", 16).lanes()
    assert small[0] == [(0, c) for c in range(0, 16, 2)] and small[8] == [(0, c) for c in range(1, 16, 2)]
    assert small[15] == [(7, c) for c in range(1, 16, 2)]


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("M,N", [(1, 17), (4, 15), (8, 16), (16, 16), (32, 16), (64, 8), (16, 5), (2, 33)])
@pytest.mark.parametrize("comp,use", [("f32", "acc"), ("f16", "a"), ("s8", "b"), ("f16", "b"), ("s8", "a")])
def test_tinytc_matches_linearization(S, M, N, comp, use):
    bytes_ = {"f32": 4, "f16": 2, "s8": 1}[comp]
    K1 = max(1, 2 // bytes_) if (use == "b" and M // S > 1) else 1
    lay = load_model("tinytc").layout(comp, M, N, use, S)
    assert lay.lanes() == tinytc_reference(M, N, S, K1)


def test_tinytc_refuses_non_power_of_two_rows():
    assert not load_model("tinytc").defines("f32", 12, 16, "acc", 16)
    assert not load_model("tinytc").defines("f32", 16, 16, "acc", 64)


# ---------------------------------------------------------------- striped / shuffled

def test_striped_definition():
    lay = load_model("striped").layout("f32", 5, 7, "acc", 8)
    assert lay.length == 5
    for p in range(8):
        for i in range(5):
            k = p + i * 8
            assert lay.lanes()[p][i] == ((k // 7, k % 7) if k < 35 else None)


def test_striped_needs_a_subgroup_size():
    m = load_model("striped")
    assert m.default_subgroup_size is None
    with pytest.raises(LayoutError, match="subgroup size"):
        m.layout("f32", 16, 16, "acc")


def test_shuffled_is_seeded_bijection_per_type():
    a = load_model("shuffled").layout("f16", 16, 16, "a", 32)
    again = load_model("shuffled", seed=0).layout("f16", 16, 16, "a", 32)
    other_seed = load_model("shuffled", seed=1).layout("f16", 16, 16, "a", 32)
    other_use = load_model("shuffled").layout("f16", 16, 16, "b", 32)
    assert a.same_as(again)
    assert not a.same_as(other_seed) and not a.same_as(other_use)
    assert a.length == 8 and (a.copies == 1).all()
    striped = load_model("striped").layout("f16", 16, 16, "a", 32)
    assert not a.same_as(striped)


# ---------------------------------------------------------------- other drivers (layouts.md 1.4, 5.2, 6)

def test_mesa_nvk_formulas_and_agreement_with_proprietary():
    nvk, nv = load_model("mesa-nvk"), load_model("nvidia")
    assert nvk.layout("f16", 16, 16, "a").lanes() == lanes_of(ptx16816("a"), 32, 8)   # PTX/WMMA order
    i8 = nvk.layout("s8", 16, 32, "a").lanes()
    assert i8[0] == [(0, 0), (0, 1), (0, 2), (0, 3), (8, 0), (8, 1), (8, 2), (8, 3),
                     (0, 16), (0, 17), (0, 18), (0, 19), (8, 16), (8, 17), (8, 18), (8, 19)]
    compared = differ = 0
    for key, entry in H100.items():
        t = (entry["type"], entry["rows"], entry["cols"], USE[entry["use"]])
        if not nvk.defines(*t):
            continue
        compared += 1
        a, b = nvk.layout(*t), nv.layout(*t)
        assert [sorted(x) for x in a.lanes()] == [sorted(x) for x in b.lanes()]    # same elements per lane
        order_differs = (entry["rows"], entry["cols"]) in ((16, 16), (16, 32)) and entry["use"] != "B"
        assert a.same_as(b) != order_differs, key
        differ += order_differs
    # layouts.md: "NVK-order identical: False" for 12 entries; one of them, bf16 A 16x16, is not an NVK type
    # (nak_nir_lower_cmat.c determine_matrix_type lists float16, float32 and int types only)
    assert compared >= 25 and differ == 11


def test_lavapipe():
    m = load_model("lavapipe")
    assert m.default_subgroup_size == 8
    assert m.layout("f16", 8, 8, "a").lanes() == lanes_of(lambda lane, e: (e, lane), 8, 8)
    assert m.layout("f32", 8, 8, "acc").lanes()[7] == [(r, 7) for r in range(8)]
    assert m.layout("f16", 8, 8, "b").lanes()[7] == [(7, c) for c in range(8)]
    assert not m.defines("f16", 16, 16, "a")


def anv(lane, e, S, R, C, bits, use):
    P = 32 // bits
    k, j = divmod(e, P)
    if use == "b":
        return ((lane // C + k * (S // C)) * P + j, lane % C)
    cp = C // P
    return (lane // cp + k * (S // cp), (lane % cp) * P + j)


@pytest.mark.parametrize("S,comp,bits,R,C,use", [
    (8, "f16", 16, 8, 16, "a"), (8, "f16", 16, 16, 8, "b"), (8, "f32", 32, 8, 8, "acc"),
    (16, "f16", 16, 8, 16, "a"), (16, "f16", 16, 16, 16, "b"), (16, "f32", 32, 8, 16, "acc"),
    (16, "s8", 8, 8, 32, "a"), (16, "u8", 8, 32, 16, "b"), (8, "s8", 8, 8, 32, "a")])
def test_intel_anv(S, comp, bits, R, C, use):
    lay = load_model("intel-anv").layout(comp, R, C, use, S)
    assert lay.lanes() == lanes_of(lambda lane, e: anv(lane, e, S, R, C, bits, use), S, R * C // S)


def test_intel_anv_check_tables():
    m = load_model("intel-anv")
    a8 = m.layout("f16", 8, 16, "a", 8).lanes()
    assert a8[0] == [(r, c) for r in range(8) for c in (0, 1)] and a8[7][-2:] == [(7, 14), (7, 15)]
    assert m.layout("f16", 16, 8, "b", 8).lanes()[0] == [(k, 0) for k in range(16)]
    a16 = m.layout("f16", 8, 16, "a", 16).lanes()
    assert a16[0] == [(0, 0), (0, 1), (2, 0), (2, 1), (4, 0), (4, 1), (6, 0), (6, 1)]
    assert a16[15][:3] == [(1, 14), (1, 15), (3, 14)]
    assert m.layout("s8", 8, 32, "a", 16).lanes()[0] == [(r, c) for r in (0, 2, 4, 6) for c in range(4)]

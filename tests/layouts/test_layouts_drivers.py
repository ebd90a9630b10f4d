"""The driver models (issue 38) against their sources.

For every model two kinds of test: a check table of worked examples read off the source (its header
comments, the Length it returns, specific lane -> element pairs), and a differential test against a
direct transcription of the source's own load loop or coordinate function, written here in plain
Python independently of the YAML formula (the model's file cites the file and commit).
"""
from __future__ import annotations

import json
import re

import pytest
import yaml

from conftest import run_cli
from spvcoop.layouts import load_model

BITS = {"f16": 16, "bf16": 16, "f32": 32, "s8": 8, "u8": 8, "s32": 32, "u32": 32, "e4m3": 8, "e5m2": 8}


def model_lanes(name, comp, R, C, use, S):
    return load_model(name).layout(comp, R, C, use, S).lanes()


# ---------------------------------------------------------------- RADV (radv_nir_lower_cooperative_matrix.c)

def bitfield_reverse32(x: int) -> int:
    return int(f"{x & 0xFFFFFFFF:032b}"[::-1], 2)


def radv_load(gfx: int, S: int, use: str, bits: int, old_isa_ab: bool = False):
    """The cmat_load loop of radv_nir_lower_cooperative_matrix.c for a 16x16 matrix, giving for each
    lane the (row, col) that element index i = slot / length_mul is loaded from. `old_isa_ab`: the older
    GFX12 code (commit 8d2b05de) with the ISA's A/B layout (base row 4g, row_iter i + (i & 4) on wave32)."""
    if gfx >= 12:
        length, mul = 256 // S, 1
    elif use != "acc":
        length, mul = 16, 1
    else:
        mul = 2 if bits == 16 else 1
        length = 16 * 16 // S * mul
    lanes = []
    for lane in range(S):
        inner = lane & 15
        if gfx >= 12:
            g = lane // 16
            if old_isa_ab and use != "acc":
                base = g * 4
            elif S == 64:
                base = bitfield_reverse32(g) >> (30 - 2)
            else:
                base = g * 8
        else:
            base = lane // 16 if use == "acc" else 0
        lanes_per_iter = S if use == "acc" else 16
        out = []
        for i in range(length // mul):
            if gfx >= 12:
                row_iter = i + (i & 4) if (old_isa_ab and use != "acc" and S == 32) else i
            else:
                row_iter = i * lanes_per_iter // 16
            row_offset, col_offset = base + row_iter, inner
            # column-major memory: address col_offset * stride + row_offset; A is loaded transposed
            out.append((col_offset, row_offset) if use == "a" else (row_offset, col_offset))
        lanes.append(out)
    return lanes


@pytest.mark.parametrize("S", [32, 64])
@pytest.mark.parametrize("comp,use", [("f16", "a"), ("bf16", "b"), ("s8", "a"), ("u8", "b"), ("f32", "acc"),
                                      ("f16", "acc"), ("s32", "acc"), ("u8", "acc")])
def test_radv_gfx11_is_the_load_loop(S, comp, use):
    assert model_lanes("radv-gfx11", comp, 16, 16, use, S) == radv_load(11, S, use, BITS[comp])


@pytest.mark.parametrize("S", [32, 64])
@pytest.mark.parametrize("comp,use", [("f16", "a"), ("e4m3", "b"), ("s8", "a"), ("f32", "acc"), ("f16", "acc")])
def test_radv_gfx12_is_the_load_loop(S, comp, use):
    assert model_lanes("radv-gfx12", comp, 16, 16, use, S) == radv_load(12, S, use, BITS[comp])


@pytest.mark.parametrize("S", [32, 64])
@pytest.mark.parametrize("comp,use", [("f16", "a"), ("bf16", "b"), ("f32", "acc")])
def test_amd_rdna4_isa_is_the_older_load_loop(S, comp, use):
    assert model_lanes("amd-rdna4-isa", comp, 16, 16, use, S) == radv_load(12, S, use, BITS[comp], True)


def test_radv_gfx11_check_table():
    m = load_model("radv-gfx11")
    # "A&B matrices are always vectors of 16 elements", on both wave sizes
    for S in (32, 64):
        for use in ("a", "b"):
            assert m.layout("f16", 16, 16, use, S).length == 16
    # accumulator Length: R*C/S, for 16-bit types the vector of 16 (8) over length_mul 2
    assert [m.layout(c, 16, 16, "acc", S).length for c in ("f32", "f16") for S in (32, 64)] == [8, 4, 8, 4]
    # "lanes 0..15 are replicated to 16..31 and for wave64 also into lanes 32..47 and 48..63"
    a32, a64 = m.layout("f16", 16, 16, "a", 32), m.layout("f16", 16, 16, "a", 64)
    assert a32.lanes()[17] == a32.lanes()[1] == [(1, k) for k in range(16)]
    assert a64.lanes()[49] == a64.lanes()[33] == a64.lanes()[1] and int(a64.copies.max()) == 4
    assert int(a32.copies.min()) == 2 and a32.replicated
    # the accumulator: wave32 lane 16 holds rows 1, 3, ..., 15 of column 0; wave64 lane 48 rows 3, 7, 11, 15
    assert m.layout("f32", 16, 16, "acc", 32).lanes()[16] == [(r, 0) for r in range(1, 16, 2)]
    assert m.layout("f16", 16, 16, "acc", 64).lanes()[48] == [(3, 0), (7, 0), (11, 0), (15, 0)]
    assert not m.layout("f32", 16, 16, "acc", 64).replicated
    # the model agrees with the IREE-derived RDNA3 WMMA model wherever both define a type
    rdna3 = load_model("amd-rdna3-wmma")
    for t in m.types():
        if rdna3.defines(*t):
            assert m.layout(*t).same_as(rdna3.layout(*t)), t
    assert not m.defines("f16", 16, 8, "a") and not m.defines("f16", 16, 16, "a", 16)


def test_radv_gfx12_check_table():
    m = load_model("radv-gfx12")
    # the header's C table, wave32: lanes 0..15 rows 0..7, lanes 16..31 rows 8..15
    c32 = m.layout("f32", 16, 16, "acc", 32).lanes()
    assert c32[0] == [(r, 0) for r in range(8)] and c32[31] == [(r, 15) for r in range(8, 16)]
    # wave64: lane groups at base rows 0, 8, 4, 12 ("v0 lo: row 0 | row 8 | row 4 | row 12")
    c64 = m.layout("f32", 16, 16, "acc", 64).lanes()
    assert [c64[16 * g][0][0] for g in range(4)] == [0, 8, 4, 12]
    assert c64[47] == [(4, 15), (5, 15), (6, 15), (7, 15)]
    # the C layout for every use: B is C, A its transpose; Length 256 / S
    for S in (32, 64):
        b, c = m.layout("f16", 16, 16, "b", S), m.layout("f16", 16, 16, "acc", S)
        a = m.layout("f16", 16, 16, "a", S)
        assert b.same_as(c) and b.length == 256 // S and not b.replicated
        assert a.lanes() == [[(col, row) for row, col in lane] for lane in c.lanes()]


def test_amd_rdna4_isa_check_table_and_difference():
    isa, radv = load_model("amd-rdna4-isa"), load_model("radv-gfx12")
    # the older header's A&B table, wave32: lanes 0..15 rows 0-3, 8-11; lanes 16..31 rows 4-7, 12-15
    b32 = isa.layout("f16", 16, 16, "b", 32).lanes()
    assert [r for r, _ in b32[0]] == [0, 1, 2, 3, 8, 9, 10, 11]
    assert [r for r, _ in b32[16]] == [4, 5, 6, 7, 12, 13, 14, 15]
    b64 = isa.layout("f16", 16, 16, "b", 64).lanes()
    assert [b64[16 * g][0][0] for g in range(4)] == [0, 4, 8, 12]
    # same accumulators, A/B K-permuted: the elements per lane differ from radv-gfx12 (not only their order)
    assert isa.layout("f32", 16, 16, "acc", 64).same_as(radv.layout("f32", 16, 16, "acc", 64))
    a_isa, a_radv = isa.layout("f16", 16, 16, "a", 32), radv.layout("f16", 16, 16, "a", 32)
    assert sorted(a_isa.lanes()[16]) != sorted(a_radv.lanes()[16])


# ---------------------------------------------------------------- NVK (nak_nir_lower_cmat.c)

def nak_lanes(comp: str, R: int, C: int, use: str):
    """determine_matrix_type + compute_mat + compute_matrix_offsets for a row-major load (address
    row_offset * stride + col_offset): lanes[l][idx] = (row, col)."""
    int8 = comp in ("s8", "u8")
    g = 4 if int8 and use in ("a", "b") else 2          # NAK_MAT_16x32_INT8 vs NAK_MAT_16X16
    row_bound = (2 if use == "b" else 1) * g
    col_bound = (1 if use == "b" else 2) * g
    lanes = []
    for lane in range(32):
        quad, tq = lane >> 2, lane & 3
        out = []
        for idx in range(R * C // 32):
            row = quad + (8 if idx & row_bound else 0)
            col = tq * g + (idx & (g - 1)) + (g * 4 if idx & col_bound else 0)
            # "col and row being swapped for B row-major": B's logical row is compute_mat's col
            out.append((col, row) if use == "b" else (row, col))
        lanes.append(out)
    return lanes


NAK_TYPES = [("f16", 8, 8, "a"), ("f16", 8, 8, "b"), ("f16", 16, 8, "a"), ("f16", 16, 8, "b"), ("f16", 16, 8, "acc"),
             ("f16", 16, 16, "a"), ("f16", 16, 16, "b"), ("f16", 16, 16, "acc"), ("f32", 16, 8, "acc"),
             ("f32", 16, 16, "acc"), ("s32", 8, 8, "acc"), ("u32", 16, 8, "acc"), ("s32", 16, 16, "acc"),
             ("s8", 8, 16, "a"), ("u8", 16, 16, "a"), ("s8", 16, 32, "a"), ("u8", 16, 8, "b"), ("s8", 32, 8, "b"),
             ("u8", 32, 16, "b")]


@pytest.mark.parametrize("comp,R,C,use", NAK_TYPES)
def test_mesa_nvk_is_compute_mat(comp, R, C, use):
    assert model_lanes("mesa-nvk", comp, R, C, use, 32) == nak_lanes(comp, R, C, use)


def test_mesa_nvk_defines_every_int8_shape_nvk_compiles():
    m = load_model("mesa-nvk")
    # nvk_physical_device.c advertises 16x16x32 (Turing+), 16x8x16 (Ampere+) and 8x8x16 int8 MulAdds
    for M, N, K in ((16, 16, 32), (16, 8, 16), (8, 8, 16)):
        assert m.defines("s8", M, K, "a") and m.defines("u8", K, N, "b") and m.defines("s32", M, N, "acc")
    assert [m.layout("s8", R, C, u).length for R, C, u in ((8, 16, "a"), (16, 16, "a"), (32, 16, "b"))] == [4, 8, 16]
    # 32-bit accumulators with 8 rows are s32 only (determine_matrix_type's list), no f32 8x8
    assert not m.defines("f32", 8, 8, "acc") and not m.defines("bf16", 16, 16, "a")


# ---------------------------------------------------------------- IGC (IBiF_matrix.cl DEFINE_GET_COORD)

def igc_get_coord(S, bits, R, C, use):
    """DEFINE_GET_COORD(layout, sg, elem_bitwidth, contrib_bitwidth, R, C, VF) for every work item."""
    contrib = 16 if (use == "a" and S == 16) else 32     # PVC PackedA instances use 16-bit contributions
    vf = 32 // bits if use == "b" else 1
    pack = contrib // bits
    sg_cols = (C * vf) // pack
    skip = S // sg_cols
    out = []
    for wi in range(S):
        lane = []
        for index in range(R * C // S):
            row = (wi // sg_cols + index // pack * skip) * vf + index % vf
            col = (wi % sg_cols * pack + index % pack) // vf
            lane.append((row, col))
        out.append(lane)
    return out


# the instances the file defines (PVC at subgroup 16, XMX8 at 8), then larger shapes of the same rule
IGC_TYPES = [(16, "s8", 8, 32, "a"), (16, "u8", 32, 16, "b"), (16, "bf16", 8, 16, "a"), (16, "f16", 16, 16, "a"),
             (16, "bf16", 16, 16, "b"), (16, "f32", 8, 16, "acc"), (16, "f32", 16, 16, "acc"), (8, "s8", 8, 32, "a"),
             (8, "u8", 32, 8, "b"), (8, "bf16", 8, 16, "a"), (8, "f16", 16, 8, "b"), (8, "s32", 8, 8, "acc"),
             (16, "f16", 32, 16, "a"), (16, "f32", 32, 16, "acc")]


@pytest.mark.parametrize("S,comp,R,C,use", IGC_TYPES)
def test_intel_igc_is_get_coord(S, comp, R, C, use):
    assert model_lanes("intel-igc", comp, R, C, use, S) == igc_get_coord(S, BITS[comp], R, C, use)


def test_intel_igc_check_table_and_anv_difference():
    igc, anv = load_model("intel-igc"), load_model("intel-anv")
    # the file's worked example: use::A 8x32 i8 on PVC (subgroup 16), "the small o item in work_item_0.
    # The index here is 3" -> row 1, col 1; each work item holds an 8x2 slice, 16 elements
    a = igc.layout("s8", 8, 32, "a", 16)
    assert a.length == 16 and a.lanes()[0][3] == (1, 1) and a.lanes()[0][:2] == [(0, 0), (0, 1)]
    assert a.lanes()[1][0] == (0, 2)
    # equal to ANV at subgroup 8, for B and for accumulators; A at subgroup 16 differs
    for S, comp, R, C, use in IGC_TYPES:
        if anv.defines(comp, R, C, use, S):
            same = igc.layout(comp, R, C, use, S).same_as(anv.layout(comp, R, C, use, S))
            assert same == (S == 8 or use != "a"), (S, comp, R, C, use)
    assert igc.layout("f16", 8, 16, "a", 16).lanes()[3] == [(r, 3) for r in range(8)]


# ---------------------------------------------------------------- PanVK, lavapipe

def panvk_load(comp, R, C, use, S=16):
    """lower_cmat_load_store of panvk_nir_lower_cooperative_matrix.c, for a shader with an fp16 MulAdd."""
    fp16_packed = comp == "f16" and use != "acc"
    length = R * C // S
    if fp16_packed:
        length = max(length, 2)
    lanes = []
    for lane in range(S):
        if length == 1:
            lanes.append([(lane // C, lane % C)])
            continue
        g0, g1 = lane // 4, lane % 4
        out = []
        for p in range(length):
            if fp16_packed:
                row, col = g0, (g1 & (C // 2 - 1)) * 2 + p
            else:
                pack_rows = use == "b"
                off = (g0 if pack_rows else g1) + p * 4
                row, col = (off, g1) if pack_rows else (g0, off)
            out.append((row, col))
        lanes.append(out)
    return lanes


@pytest.mark.parametrize("comp,R,C,use", [("f16", 4, 4, "a"), ("f16", 4, 4, "b"), ("f32", 4, 4, "acc"),
                                          ("s32", 4, 4, "acc"), ("f32", 4, 8, "a"), ("f32", 8, 4, "b"),
                                          ("s8", 4, 16, "a"), ("u8", 16, 4, "b"), ("s8", 4, 32, "a")])
def test_panvk_is_the_load_loop(comp, R, C, use):
    assert model_lanes("panvk", comp, R, C, use, 16) == panvk_load(comp, R, C, use)


def test_panvk_check_table():
    m = load_model("panvk")
    # "element (R,C) -> lane 4R + C/2, halfword C&1. It uses 8 of the 16 lanes": lanes 2, 3 copy 0, 1
    a = m.layout("f16", 4, 4, "a")
    assert a.length == 2 and a.lanes()[5] == [(1, 2), (1, 3)] and a.lanes()[7] == a.lanes()[5]
    assert a.replicated and int(a.copies.min()) == 2
    assert m.layout("f32", 4, 4, "acc").lanes()[6] == [(1, 2)]          # one element per lane
    assert m.layout("s8", 4, 16, "a").lanes()[1] == [(0, 1), (0, 5), (0, 9), (0, 13)]   # K slices, stride 4


def lavapipe_load(S, use):
    """lower_cmat_load_store: col_offset = lane, row_offset = i (column-major), B stored transposed."""
    return [[(lane, i) if use == "b" else (i, lane) for i in range(S)] for lane in range(S)]


@pytest.mark.parametrize("S", [4, 8, 16])
@pytest.mark.parametrize("use", ["a", "b", "acc"])
def test_lavapipe_is_the_load_loop(S, use):
    lay = load_model("lavapipe").layout("f32", S, S, use, S)
    assert lay.length == S and lay.lanes() == lavapipe_load(S, use)
    assert not load_model("lavapipe").defines("f32", 16, 16, "a", 8)


# ---------------------------------------------------------------- names users rely on

@pytest.mark.parametrize("name", ["radv-gfx11", "radv-gfx12", "amd-rdna4-isa", "intel-igc", "panvk", "lavapipe",
                                  "mesa-nvk"])
def test_driver_models_listed_and_cited(capsys, name):
    rc, out, _ = run_cli(capsys, "layout", "list", name)
    assert rc == 0 and out.startswith(f"{name}  (")
    from spvcoop.layouts.model import MODELS_DIR
    sources = yaml.safe_load((MODELS_DIR / f"{name}.yaml").read_text())["sources"]
    assert sources and all(re.search(r"\S+\.(c|cl) @ [0-9a-f]{40}", s) for s in sources), sources


def test_show_json_radv_wave64(capsys):
    rc, out, _ = run_cli(capsys, "layout", "show", "radv-gfx11", "-t", "f16", "--rows", "16", "--cols", "16",
                         "--use", "acc", "-S", "64", "-f", "json")
    assert rc == 0
    data = json.loads(out)
    assert data["length"] == 4 and data["lanes"][48] == [[3, 0], [7, 0], [11, 0], [15, 0]]

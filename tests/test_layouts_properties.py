"""Property tests over shapes and subgroup sizes: every model that claims a type gives
one length for all invocations and holds every element exactly once (or, for the
replicating models, the same number of times)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from spvcoop.layouts import COMPONENTS, load_model

COMPS = sorted(COMPONENTS)
USES = st.sampled_from(["a", "b", "acc", None])


def assert_bijection(lay, R, C, S):
    assert lay.row.shape == (S, lay.length) and lay.col.shape == (S, lay.length)
    held = [(r, c) for lane in lay.lanes() for (r, c) in filter(None, lane)]
    assert sorted(held) == [(r, c) for r in range(R) for c in range(C)]   # each element exactly once
    assert ((lay.row < 0) == (lay.col < 0)).all()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COMPS), st.integers(1, 40), st.integers(1, 40), USES, st.integers(1, 64))
def test_striped_is_a_bijection(comp, R, C, use, S):
    lay = load_model("striped").layout(comp, R, C, use, S)
    assert lay.length == -(-R * C // S)
    assert_bijection(lay, R, C, S)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COMPS), st.integers(1, 40), st.integers(1, 40), USES, st.integers(1, 64),
       st.integers(0, 2 ** 32 - 1))
def test_shuffled_is_a_bijection_with_striped_length(comp, R, C, use, S, seed):
    lay = load_model("shuffled", seed=seed).layout(comp, R, C, use, S)
    assert lay.length == -(-R * C // S)
    assert_bijection(lay, R, C, S)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COMPS), st.integers(0, 6), st.integers(1, 40), USES, st.sampled_from([8, 16, 32]))
def test_tinytc_is_a_bijection(comp, log_rows, C, use, S):
    R = 1 << log_rows
    lay = load_model("tinytc").layout(comp, R, C, use, S)
    I = min(R, S)
    J = -(-I * C // S) * S // I
    assert lay.length == I * (R // I) * J // S
    assert_bijection(lay, R, C, S)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["f16", "bf16", "f32", "s8", "u8", "s16", "u16", "s32", "u32"]),
       st.integers(1, 8), st.integers(1, 8), st.sampled_from(["a", "b", "acc", None]))
def test_nvidia_rule_bijection_and_transpose(comp, rb, cb, use):
    bits = COMPONENTS[comp][0]
    w = 4 if bits == 8 else 2
    m = load_model("nvidia")
    if use == "b":
        R, C = 4 * w * rb, 8 * cb
    else:
        R, C = 8 * rb, 4 * w * cb
    if use is None and bits == 8 and R > C:
        R, C = 4 * w * rb, 8 * cb
        if not R > C:
            return
    lay = m.layout(comp, R, C, use)
    assert lay.length == R * C // 32
    assert_bijection(lay, R, C, 32)
    if use == "b":   # B of R x C is the transpose of A of C x R (as measured on the H100)
        a = m.layout(comp, C, R, "a")
        assert np.array_equal(lay.row, a.col) and np.array_equal(lay.col, a.row)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["amd-rdna3-wmma", "amd-cdna3-mfma", "ptx-m16n8k16", "ptx-m16n8k8", "wmma-sm70",
                        "wmma-sm80", "vdmfma-8x16x64"]), st.data())
def test_hardware_models_cover_every_element_equally(name, data):
    m = load_model(name)
    t = data.draw(st.sampled_from(m.types()))
    lay = m.layout(*t)
    comp, R, C, use, S = t
    copies = lay.copies
    assert (copies == copies[0, 0]).all() and copies[0, 0] >= 1
    assert lay.replicated == (copies[0, 0] > 1)
    assert lay.length * S >= R * C

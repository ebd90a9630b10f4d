"""Device profiles for the drivers of the layout models (issue 38): RADV on RDNA3 and NVK on Ampere/Ada,
transcribed from their GetPhysicalDeviceCooperativeMatrixPropertiesKHR; checked against the layout models,
against the samples (`val --profile`), and over a shader set (`lint --profile`: what the profile lists that no
kernel uses)."""
from __future__ import annotations

import pytest

from conftest import REPO, run_cli
from spvcoop.layouts import load_model
from spvcoop.loader import load_shader
from spvcoop.validator.profiles import load_profile, muladd_configurations, unused_combinations

PAIRS = [("radv-gfx11", "radv-gfx11", (32, 64)), ("radv-gfx12", "radv-gfx12", (32, 64)),
         ("nvk-ampere", "mesa-nvk", (32,)), ("lavapipe", "lavapipe", (8,)),
         ("intel-anv-xehp", "intel-anv", (8,)), ("intel-anv-xe2", "intel-anv", (16,))]


@pytest.mark.parametrize("profile,model,sizes", PAIRS)
def test_every_listed_configuration_has_layouts_in_the_drivers_model(profile, model, sizes):
    m = load_model(model)
    for cb in load_profile(profile).combos:
        for S in sizes:
            assert m.defines(cb.A, cb.M, cb.K, "a", S), (cb.text(), S)
            assert m.defines(cb.B, cb.K, cb.N, "b", S), (cb.text(), S)
            assert m.defines(cb.C, cb.M, cb.N, "acc", S) and m.defines(cb.Result, cb.M, cb.N, "acc", S), cb.text()


def test_profiles_transcribe_the_sources():
    radv = load_profile("radv-gfx11")
    assert {(cb.M, cb.N, cb.K) for cb in radv.combos} == {(16, 16, 16)}
    assert all(cb.apis == ("KHR",) for cb in radv.combos)
    # 2 f16 + 4 A/B signedness pairs x (s32 with and without saturation, u32 without) = 14
    assert len(radv.combos) == 14 and not any(cb.C == "u32" and cb.saturating for cb in radv.combos)
    nvk = load_profile("nvk-ampere")
    assert {(cb.M, cb.N, cb.K) for cb in nvk.combos if cb.A == "s8"} == {(8, 8, 16), (16, 8, 16), (16, 8, 32),
                                                                         (16, 16, 32)}
    assert len(nvk.combos) == 18
    lvp = load_profile("lavapipe")
    assert {(cb.M, cb.N, cb.K) for cb in lvp.combos} == {(8, 8, 8)} and len(lvp.combos) == 4
    assert [(f.M, f.N, f.K, f.scope) for f in lvp.flexible] == [(8, 8, 8, 3)] * 4


def test_radv_gfx12_transcribes_the_source():
    rdna4 = load_profile("radv-gfx12")
    assert {(cb.M, cb.N, cb.K) for cb in rdna4.combos} == {(16, 16, 16)} and not rdna4.flexible
    # GFX12 adds the four FP8 pairs (f32 accumulator only) and bf16 (own type or f32) to RDNA3's 14
    fp8 = [(cb.A, cb.B, cb.C) for cb in rdna4.combos if cb.A in ("e4m3", "e5m2")]
    assert fp8 == [("e4m3", "e4m3", "f32"), ("e4m3", "e5m2", "f32"), ("e5m2", "e4m3", "f32"), ("e5m2", "e5m2", "f32")]
    assert {cb.C for cb in rdna4.combos if cb.A == "bf16"} == {"bf16", "f32"}
    rdna3 = {cb.text() for cb in load_profile("radv-gfx11").combos}
    assert rdna3 < {cb.text() for cb in rdna4.combos} and len(rdna4.combos) == 20


def test_intel_anv_transcribes_the_source():
    # intel_device_info.c: M = 8, N = the subgroup size (8 on Xe-HPG, 16 on Xe2), K = 16 (16-bit) or 32 (8-bit);
    # DPAS has no .sat, so no saturating configuration where it is not lowered (verx10 >= 125)
    for name, n, count in (("intel-anv-xehp", 8, 4), ("intel-anv-xe2", 16, 6)):
        p = load_profile(name)
        assert len(p.combos) == count and not p.flexible and not any(cb.saturating for cb in p.combos)
        assert {(cb.M, cb.N, cb.K, cb.A) for cb in p.combos if cb.A in ("s8", "u8")} == {(8, n, 32, "s8"),
                                                                                           (8, n, 32, "u8")}
    xehp = {cb.text() for cb in load_profile("intel-anv-xehp").combos}
    assert "8x8x16 f16*f16+f32->f32" in xehp and "8x8x16 f16*f16+f16->f16" not in xehp   # only Xe2 has f16 acc
    assert "8x16x16 bf16*bf16+bf16->bf16" in {cb.text() for cb in load_profile("intel-anv-xe2").combos}


def test_val_profile_on_the_samples(capsys):
    # RADV on RDNA3 has 16x16x16 only: the 16x16x32 int8 GEMM is a configuration no RADV profile lists
    rc, out, _ = run_cli(capsys, "val", "samples/coopmat/int8_gemm/gemm.spvasm", "--profile", "radv-gfx11",
                         "--no-spirv-val")
    assert rc == 1 and "radv-gfx11 does not support MulAdd 16x16x32 s8*s8+s32->s32" in out
    assert "note: the validation layers report it at pipeline creation as " \
        "VUID-RuntimeSpirv-OpCooperativeMatrixMulAddKHR-10060" in out
    assert "VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163" in out      # the 16x32 A type
    rc, out, _ = run_cli(capsys, "val", "samples/coopmat/int8_gemm/gemm.spvasm", "--profile", "nvk-ampere",
                         "--no-spirv-val")
    assert rc == 0, out
    rc, out, _ = run_cli(capsys, "val", "samples/coopmat/khr_gemm/gemm.spvasm", "--profile", "radv-gfx11",
                         "--no-spirv-val")
    assert rc == 0, out
    rc, out, _ = run_cli(capsys, "val", "samples/coopmat/nv_gemm/gemm.spvasm", "--profile", "radv-gfx11",
                         "--no-spirv-val")
    assert rc == 1 and "radv-gfx11 does not support cooperative matrix type" in out   # no NV extension


@pytest.mark.slow
def test_configurations_a_shader_set_uses_and_leaves_unused(capsys):
    used = muladd_configurations(load_shader("samples/coopmat/khr_gemm/gemm.spvasm"))
    assert used == {("KHR", 16, 16, 16, "f16", "f16", "f32", "f32", 3, False)}
    nvk = load_profile("nvk-ampere")
    unused = unused_combinations(nvk, used)
    assert len(unused) == len(nvk.combos) - 1 and all(cb.text() != "16x16x16 f16*f16+f32->f32" for cb in unused)
    rc, out, err = run_cli(capsys, "lint", "samples/coopmat", "--profile", "nvk-ampere", "--no-spirv-val", "-j", "1")
    assert "spvcoop lint: nvk-ampere lists 16 of 18 configuration(s) no kernel uses: 16x8x8 f16*f16+f16->f16" in err
    assert "16x16x32 s8*s8+s32->s32," not in err        # int8_gemm uses it (without saturation)
    assert "16x16x32 s8*s8+s32->s32 saturating" in err


def test_val_profile_on_the_samples_for_rdna4_and_intel(capsys):
    # RDNA4 keeps RDNA3's 16x16x16 f16 GEMM; ANV's shapes have M = 8, so a 16x16x16 GEMM is one no Intel profile lists
    rc, out, _ = run_cli(capsys, "val", "samples/coopmat/khr_gemm/gemm.spvasm", "--profile", "radv-gfx12",
                         "--no-spirv-val")
    assert rc == 0, out
    for name in ("intel-anv-xehp", "intel-anv-xe2"):
        rc, out, _ = run_cli(capsys, "val", "samples/coopmat/khr_gemm/gemm.spvasm", "--profile", name,
                             "--no-spirv-val")
        assert rc == 1 and f"{name} does not support MulAdd 16x16x16 f16*f16+f32->f32" in out, out


def test_val_help_names_every_built_in_profile(capsys) -> None:
    """`--profile`'s help lists the built-in profiles: each file in validator/profiles/ (it missed the new ones)."""

    from conftest import run_cli
    names = sorted(p.stem for p in (REPO / "spvcoop" / "validator" /
                                    "profiles").glob("*.yaml"))
    _, out, _ = run_cli(capsys, "val", "--help")
    text = " ".join(out.split()).replace("- ", "-")   # argparse may wrap a line at a name's hyphen
    for name in names:
        assert name in text, name

"""spvcoop val vs. spirv-val 2025.5 on every probe of tests/data/coopmat-probes.

Each probe is assembled with the `; env:` of its header, validated by both (ours with
--no-spirv-val: our cooperative-matrix rules alone, else spirv-val would be compared with itself;
the merged report is tested in test_validate_spirv_val.py), and the verdicts (valid / invalid) must agree, except for
the deliberate differences listed here and explained in docs/divergences.md (spirv-val lax: we reject; spirv-val
false positive: we accept).
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import spvcoop
from spvcoop.core.reference_tools import require_tool
from spvcoop.validator import validate
from conftest import REPO, TESTS

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

PROBES = TESTS / "data" / "coopmat-probes"

# probe -> rule that makes us reject what spirv-val 2025.5 accepts (section 5.1, L-numbers)
WE_REJECT = {
    "khr_lax_bitcast_width": "coopmat.bitcast.width",            # L14
    "khr_lax_bitcast_float": "coopmat.bitcast.integer",          # L14: float components
    "khr_lax_fadd_width_mismatch": "coopmat.arith.operand_type",  # L12
    "khr_lax_imul_shape_mismatch": "coopmat.arith.operand_type",  # L11
    "khr_lax_layout_u64": "coopmat.khr.layout",                   # L7
    "khr_lax_layout_value_7": "coopmat.khr.layout",               # L7
    "khr_lax_muladd_result_use_a": "coopmat.muladd.use",          # L5
    "khr_lax_muladd_signed_on_float": "coopmat.muladd.operands",  # L6
    "khr_ok_memoperands": "coopmat.muladd.operands",              # L6 (its note says so)
    "khr_lax_psb_no_aligned": "coopmat.memaccess.psb_aligned",    # L10
    "khr_lax_ptr_not_into_array": "coopmat.pointer.into_array",   # L9
    "khr_load_ptr_function_universal": "coopmat.pointer.into_array",  # L9: a lone Function variable
    "khr_lax_rows_u64": "coopmat.type.width32",                   # L2
    "khr_lax_store_stride_zero": "coopmat.stride.positive",       # L8
    "khr_lax_use_value_7": "coopmat.type.use.value",              # L4
    "nv_lax_bitcast_width_mismatch": "coopmat.bitcast.width",     # L14
    "nv_lax_iadd_float_operands": "coopmat.arith.operand_type",   # L11
    "nv_lax_iadd_shape_mismatch": "coopmat.arith.operand_type",   # L11
    "nv_lax_psb_no_aligned": "coopmat.memaccess.psb_aligned",     # L10
    "nv_lax_specconstop_length_not_coopmat": "coopmat.length",    # L15
    "nv_lax_specconstop_length_signed": "coopmat.length",         # L15
    "nv_lax_spirv10": "coopmat.version",                          # L1
    "nv_lax_type_rows_constnull": "coopmat.type.positive",        # L2
    "nv_lax_type_rows_i64": "coopmat.type.width32",               # L2
    "nv_lax_type_rows_negative": "coopmat.type.positive",         # L2
    "nv_scope_invalid_value": "coopmat.type.scope.value",         # L3
}
# probes spirv-val rejects although the spec allows them (false positives S1-S3)
WE_ACCEPT = {"khr_strict_barrier_specconst_scope", "khr_strict_spec_use_muladd", "nv_strict_select_coopmat"}

FILES = sorted(PROBES.glob("*.spvasm"))


def _env(text: str) -> str:
    m = re.search(r"^; env:\s*(\S+)", text, re.M)
    return m.group(1) if m else "spv1.6"


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess:
    return require_tool(name).run(*args, text=True, timeout=None)


def _spirv_val(data: bytes, env: str, tmp_path: Path) -> tuple[int, str]:
    out = tmp_path / "m.spv"
    out.write_bytes(data)
    r = run_tool("spirv-val", "--target-env", env, str(out))
    return r.returncode, r.stdout + r.stderr


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_probe_verdict_matches_spirv_val(path: Path, tmp_path: Path) -> None:
    text = path.read_text()
    env = _env(text)
    module = spvcoop.assemble(text, path.name, target_env=env)
    diags = validate(module, env, spirv_val=False)
    errors = [d for d in diags if d.severity == "error"]
    rc, out = _spirv_val(module.to_bytes(), env, tmp_path)
    name = path.stem
    shown = "\n".join(d.headline() for d in diags)
    if name in WE_REJECT:
        assert rc == 0, f"spirv-val now rejects {name}: {out}"
        assert any(d.rule == WE_REJECT[name] for d in errors), shown
    elif name in WE_ACCEPT:
        assert rc != 0, f"spirv-val now accepts {name}"
        assert not errors, shown
    else:
        assert bool(errors) == (rc != 0), f"spirv-val rc={rc}: {out}\nspvcoop:\n{shown}"


def test_difference_lists_name_real_probes() -> None:
    names = {p.stem for p in FILES}
    assert set(WE_REJECT) <= names and names >= WE_ACCEPT


def test_differences_are_documented() -> None:
    doc = (REPO / "docs" / "divergences.md").read_text()
    for name in WE_ACCEPT | set(WE_REJECT):
        assert name in doc, name


# ---- everything glslang produces from the project's GLSL shaders (tests/glsl/) ---------------------

GLSL = sorted((TESTS / "glsl").glob("**/*.comp"))


@pytest.mark.skipif(not GLSL, reason="no GLSL shaders in tests/glsl")
@pytest.mark.parametrize("path", GLSL, ids=[f"{p.parent.name}/{p.stem}" for p in GLSL])
def test_glslang_output_matches_spirv_val(path: Path, tmp_path: Path) -> None:
    from spvcoop.binary.reader import read_binary
    spv = tmp_path / "g.spv"
    r = run_tool("glslangValidator", "-V", "--target-env", "vulkan1.3", str(path), "-o", str(spv))
    if r.returncode != 0:
        pytest.skip(f"glslang cannot compile {path.name}: {r.stdout[-200:]}")
    data = spv.read_bytes()
    module = read_binary(data, path.name)
    profile = "nvidia-h100" if path.parent.name == "coopmat" else None  # those shaders use H100 sizes
    diags = validate(module, "vulkan1.3", profile=profile, spirv_val=False)
    rc, out = _spirv_val(data, "vulkan1.3", tmp_path)
    errors = [d.headline() for d in diags if d.severity == "error"]
    assert bool(errors) == (rc != 0), f"spirv-val rc={rc}: {out}\nspvcoop: {errors}"

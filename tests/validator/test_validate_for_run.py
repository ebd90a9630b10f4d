"""Validation before a run: findings that drivers accept are warnings, structural errors stop it."""
from __future__ import annotations


import spvcoop
from spvcoop.validator.for_run import target_env_for, validate_for_run
from conftest import TESTS

DATA = TESTS / "data"
KERNELS = TESTS / "kernels"


def _probe(name: str, env: str) -> spvcoop.Module:
    path = DATA / "coopmat-probes" / f"{name}.spvasm"
    return spvcoop.assemble(path.read_text(), path.name, target_env=env)


def test_target_env_follows_the_module_version() -> None:
    assert target_env_for(_probe("nv_lax_spirv10", "spv1.0")) == "vulkan1.0"
    assert target_env_for(_probe("khr_ok_basic", "spv1.6")) == "vulkan1.3"


def test_spirv_10_nv_module_runs_with_warnings() -> None:
    errors, warnings = validate_for_run(_probe("nv_lax_spirv10", "spv1.0"))
    assert errors == []
    assert any(w.rule == "coopmat.version" for w in warnings)
    # `val` keeps it an error
    assert any(d.rule == "coopmat.version" and d.severity == "error"
               for d in spvcoop.validate(_probe("nv_lax_spirv10", "spv1.0"), "vulkan1.0"))


def test_glslang_nv_kernel_at_spirv_10_runs_with_warnings() -> None:
    path = KERNELS / "cmperf_nv_tiled" / "fp16_fp32.spv"
    module = spvcoop.read_binary(path.read_bytes(), str(path))
    errors, warnings = validate_for_run(module)
    assert errors == []
    msgs = [w.message for w in warnings if w.rule == "spirv-val"]
    assert any("SPV_KHR_vulkan_memory_model extension requires SPIR-V version 1.3" in m for m in msgs), msgs
    assert all(w.severity == "warning" for w in warnings)


def test_an_error_behind_a_version_finding_still_stops_the_run() -> None:
    # spirv-val stops at its first error (the version): the module is checked again as SPIR-V 1.3
    path = KERNELS / "cmperf_nv_tiled" / "fp16_fp32.spv"
    module = spvcoop.read_binary(path.read_bytes(), str(path))
    cut = [i for i in module.instructions if i.opname != "OpFunctionEnd"]
    broken = spvcoop.Module(module.header, cut, module.source)
    errors, _ = validate_for_run(broken)
    assert errors and all(e.rule == "spirv-val" for e in errors)
    assert any("OpFunctionEnd" in e.message or "function" in e.message.lower() for e in errors), \
        [e.message for e in errors]


def test_structural_errors_stop_the_run() -> None:
    text = (DATA / "coopmat-probes" / "khr_ok_basic.spvasm").read_text()
    # a use of an id that is never defined
    text = text.replace("OpReturn", "%bad = OpIAdd %u32 %undefined_id %undefined_id\nOpReturn", 1)
    module = spvcoop.assemble(text, "broken.spvasm")
    errors, _ = validate_for_run(module)
    assert any("%undefined_id is used by OpIAdd but never defined" in e.message for e in errors)


def test_incomplete_interface_list_is_a_warning_and_the_rest_is_still_checked() -> None:
    text = (DATA / "coopmat-probes" / "khr_ok_basic.spvasm").read_text()
    text = text.replace('OpEntryPoint GLCompute %main "main" %ssbo', 'OpEntryPoint GLCompute %main "main"')
    errors, warnings = validate_for_run(spvcoop.assemble(text, "noiface.spvasm"))
    assert errors == []
    assert any("is not listed as an interface" in w.message and w.severity == "warning" for w in warnings)
    # an error behind it (a block without a terminator) is still found on the repaired module
    broken = text.replace("               OpReturn\n", "")
    errors, _ = validate_for_run(spvcoop.assemble(broken, "noiface.spvasm"))
    assert errors and any(e.rule == "spirv-val" for e in errors)

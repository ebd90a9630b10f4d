"""Every built-in layout model under the interpreter: per-invocation views (a loop over length() through a Function
variable) and GEMMs give the numpy answer whatever the layout; the CLI's --layout and portability report."""
from __future__ import annotations

import re

import subprocess
import sys

import numpy as np
import pytest

from spvcoop.layouts import builtin_models, load_model
from spvcoop.core.reference_tools import find_tool
from conftest import REPO

ROOT = REPO
SAMPLES = ROOT / "samples" / "coopmat"

COMPONENTS = {  # layout component -> (SPIR-V type, numpy dtype, add op)
    "f16": ("OpTypeFloat 16", np.float16, "OpFAdd"), "f32": ("OpTypeFloat 32", np.float32, "OpFAdd"),
    "f64": ("OpTypeFloat 64", np.float64, "OpFAdd"),
    "s8": ("OpTypeInt 8 1", np.int8, "OpIAdd"), "u8": ("OpTypeInt 8 0", np.uint8, "OpIAdd"),
    "s16": ("OpTypeInt 16 1", np.int16, "OpIAdd"), "u16": ("OpTypeInt 16 0", np.uint16, "OpIAdd"),
    "s32": ("OpTypeInt 32 1", np.int32, "OpIAdd"), "u32": ("OpTypeInt 32 0", np.uint32, "OpIAdd"),
}
USE = {"a": 0, "b": 1, "acc": 2}

DOUBLE_EACH_ELEMENT = """OpCapability Shader
OpCapability Float16
OpCapability Float64
OpCapability Int8
OpCapability Int16
OpCapability StorageBuffer16BitAccess
OpCapability StorageBuffer8BitAccess
OpCapability VulkanMemoryModel
OpCapability CooperativeMatrixKHR
OpExtension "SPV_KHR_cooperative_matrix"
OpExtension "SPV_KHR_vulkan_memory_model"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main" %inbuf %outbuf
OpExecutionMode %main LocalSize {S} 1 1
OpDecorate %rt ArrayStride {esize}
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %inbuf DescriptorSet 0
OpDecorate %inbuf Binding 0
OpDecorate %outbuf DescriptorSet 0
OpDecorate %outbuf Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%u32 = OpTypeInt 32 0
%elem = {etype}
%rt = OpTypeRuntimeArray %elem
%Buf = OpTypeStruct %rt
%pBuf = OpTypePointer StorageBuffer %Buf
%pe = OpTypePointer StorageBuffer %elem
%inbuf = OpVariable %pBuf StorageBuffer
%outbuf = OpVariable %pBuf StorageBuffer
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c3 = OpConstant %u32 3
%rows = OpConstant %u32 {rows}
%cols = OpConstant %u32 {cols}
%use = OpConstant %u32 {use}
%mat = OpTypeCooperativeMatrixKHR %elem %c3 %rows %cols %use
%pmat = OpTypePointer Function %mat
%pfe = OpTypePointer Function %elem
%main = OpFunction %void None %fn
%entry = OpLabel
%var = OpVariable %pmat Function
%p = OpAccessChain %pe %inbuf %c0 %c0
%m = OpCooperativeMatrixLoadKHR %mat %p %c0 %cols
OpStore %var %m
%len = OpCooperativeMatrixLengthKHR %u32 %mat
OpBranch %header
%header = OpLabel
%i = OpPhi %u32 %c0 %entry %inext %cont
%cond = OpULessThan %bool %i %len
OpLoopMerge %merge %cont None
OpBranchConditional %cond %body %merge
%body = OpLabel
%ep = OpAccessChain %pfe %var %i
%v = OpLoad %elem %ep
%v2 = {add} %elem %v %v
OpStore %ep %v2
OpBranch %cont
%cont = OpLabel
%inext = OpIAdd %u32 %i %c1
OpBranch %header
%merge = OpLabel
%m2 = OpLoad %mat %var
%q = OpAccessChain %pe %outbuf %c0 %c0
OpCooperativeMatrixStoreKHR %q %m2 %c0 %cols
OpReturn
OpFunctionEnd
"""


def _model_types():
    out = []
    for name in builtin_models():
        model = load_model(name, seed=7) if name == "shuffled" else load_model(name)
        picked = []
        fallback = [("f16", 16, 16, "a", None), ("f16", 16, 16, "b", None), ("f32", 16, 16, "acc", None),
                    ("s8", 16, 32, "a", None), ("u8", 32, 16, "b", None), ("s32", 16, 16, "acc", None)]
        for t in list(model.types()) + fallback:
            comp, rows, cols, use, S = t[0], t[1], t[2], t[3], (t[4] if len(t) > 4 else None)
            S = S or model.default_subgroup_size or 32
            if comp in COMPONENTS and (use or "acc") in USE and rows * cols <= 4096 and \
                    model.defines(comp, rows, cols, use, S) and (comp, use) not in {(p[0], p[3]) for p in picked}:
                picked.append((comp, rows, cols, use, S))
        out += [pytest.param(name, *p, id=f"{name}-{p[0]}-{p[1]}x{p[2]}-{p[3]}-S{p[4]}") for p in picked[:3]]
    return out


MODEL_TYPES = _model_types()


def test_every_model_is_covered():
    covered = {p.values[0] for p in MODEL_TYPES}
    assert covered == set(builtin_models()), set(builtin_models()) - covered


@pytest.mark.slow
@pytest.mark.parametrize("model,comp,rows,cols,use,S", MODEL_TYPES)
def test_length_loop_through_function_variable(model, comp, rows, cols, use, S):
    """Each invocation doubles the elements it holds (length() loop, access chain into a matrix variable):
    whatever the layout (padding, replication), the stored matrix is 2 * the loaded one."""
    from spvcoop.interp import run
    from spvcoop.asm.assembler import assemble
    etype, dt, add = COMPONENTS[comp]
    mod = assemble(DOUBLE_EACH_ELEMENT.format(S=S, esize=np.dtype(dt).itemsize, etype=etype, rows=rows, cols=cols,
                                              use=USE[use or "acc"], add=add), "double.spvasm")
    rng = np.random.default_rng(rows * 100 + cols)
    x = rng.integers(-20, 20, rows * cols).astype(dt) if np.dtype(dt).kind == "i" else \
        rng.integers(0, 40, rows * cols).astype(dt)
    lay = load_model(model, seed=7) if model == "shuffled" else model
    res = run(mod, buffers={0: x, 1: np.zeros_like(x)}, layout=lay, subgroup_size=S)
    np.testing.assert_array_equal(res[1], (x * 2).astype(dt))


needs_glslang = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")


def _gemm_cases() -> list[tuple[str, tuple[int, int, int]]]:
    """(model, tile) for every built-in model and H100 tile the model defines at its own subgroup size."""
    cases = []
    for model in builtin_models():
        m = load_model(model)
        S = m.default_subgroup_size or 32
        for tm, tn, tk in [(16, 16, 16), (16, 8, 16), (16, 8, 8), (8, 8, 8), (4, 4, 4)]:   # lavapipe, panvk: small
            if m.defines("f16", tm, tk, "a", S) and m.defines("f16", tk, tn, "b", S) and \
                    m.defines("f32", tm, tn, "acc", S):
                cases.append((model, (tm, tn, tk)))
    return cases


def test_most_models_define_some_gemm_tile():
    assert len({model for model, _ in _gemm_cases()}) >= len(builtin_models()) - 3


@pytest.mark.parametrize("model,tile", _gemm_cases())
def test_gemm_and_length_under_each_model(model, tile):
    """khr_specconst_sizes (GEMM + a length() loop) at the model's own subgroup size, where it defines the types."""
    from spvcoop.interp import run
    from test_interp_coopmat_glsl import f16, module, ref_f16_gemm
    tm, tn, tk = tile
    m = load_model(model)
    S = m.default_subgroup_size or 32
    rng = np.random.default_rng(40)
    A, B = f16(rng, 32, 32), f16(rng, 32, 32)
    res = run(module("khr_specconst_sizes"), dispatch=(32 // tn, 32 // tm, 1),
              buffers={0: A, 1: B, 2: np.zeros(1024, np.float32), 3: np.zeros(1, np.uint32)},
              spec_constants={0: tm, 1: tn, 2: tk, 3: S}, layout=model, subgroup_size=S)
    np.testing.assert_allclose(res[2].reshape(32, 32), 2 * ref_f16_gemm(A, B, np.float32, tk), rtol=1e-5, atol=1e-5)
    assert res[3][0] == m.layout("f32", tm, tn, "acc", S).length


# ---- samples and the command line ----------------------------------------------------------------------------
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "spvcoop", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["nv_gemm", "khr_gemm", "int8_gemm", "shared_gemm", "elementwise", "nonportable",
                                    "wave64"])
def test_sample_checks_under_nvidia(sample):
    p = _cli("run", f"samples/coopmat/{sample}/run.yaml", "--layout", "nvidia", "--check",
             f"samples/coopmat/{sample}/expected.yaml")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "check passed" in p.stdout + p.stderr


@pytest.mark.slow
def test_portability_report_finds_the_non_portable_sample():
    p = _cli("run", "samples/coopmat/nonportable/run.yaml", "--layout", "all", "--subgroup-size", "32")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "NOT PORTABLE" in p.stdout and "'s'" in p.stdout and "random:2" in p.stdout
    assert "skipped: layout model 'lavapipe' does not define" in p.stdout
    assert "verdict: samples/coopmat/nonportable/run.yaml: NOT PORTABLE: output(s) 's': the set of elements each " \
        "lane holds differs under amd-rdna3-wmma" in p.stdout


@pytest.mark.slow
def test_portability_report_passes_a_portable_gemm():
    """At one subgroup size (the layouts alone) a GEMM is portable; swept over the vendors' sizes it is not:
    at 16 (Intel) its workgroup of 32 is two subgroups that both compute and store the one tile."""
    p = _cli("run", "samples/coopmat/khr_gemm/run.yaml", "--layout", "all", "--subgroup-size", "32")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verdict: samples/coopmat/khr_gemm/run.yaml: portable" in p.stdout and "wmma-sm80" in p.stdout
    p = _cli("portability", "samples/coopmat/khr_gemm/run.yaml")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "NOT PORTABLE: data races under intel-anv S=16" in p.stdout
    assert re.search(r"\n  intel-anv S=16 +races: 1 data race: 'BufC' \(StorageBuffer\)", p.stdout)


@pytest.mark.slow
def test_nonportable_sample_differs_from_h100_under_striped():
    p = _cli("run", "samples/coopmat/nonportable/run.yaml", "--layout", "striped", "--check",
             "samples/coopmat/nonportable/expected.yaml")
    assert p.returncode == 1


@pytest.mark.slow
def test_layout_from_user_yaml_file(tmp_path):
    (tmp_path / "mine.yaml").write_text((ROOT / "spvcoop/layouts/models/striped.yaml").read_text()
                                        .replace("name: striped", "name: mine"))
    p = _cli("run", "samples/coopmat/elementwise/run.yaml", "--layout", str(tmp_path / "mine.yaml"), "--check",
             "samples/coopmat/elementwise/expected.yaml")
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.slow
def test_unknown_layout_is_a_clean_error():
    p = _cli("run", "samples/coopmat/elementwise/run.yaml", "--layout", "nvida")
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert "unknown layout model 'nvida'" in p.stderr and "nvidia" in p.stderr


@pytest.mark.slow
def test_model_that_does_not_define_the_type_is_a_clean_error():
    p = _cli("run", "samples/coopmat/elementwise/run.yaml", "--layout", "lavapipe")
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert "does not define f32 16x16 use acc" in p.stderr, p.stderr


@pytest.mark.slow
def test_portability_command_module(capsys):
    """spvcoop.commands.portability (`spvcoop portability SPEC` once listed in cli.COMMAND_MODULES)."""
    import argparse
    from spvcoop.commands import portability
    p = argparse.ArgumentParser()
    portability.register(p.add_subparsers())
    args = p.parse_args(["portability", str(SAMPLES / "nonportable" / "run.yaml")])
    assert args.func(args) == 1
    assert "NOT PORTABLE" in capsys.readouterr().out


@pytest.mark.slow
@needs_glslang
@pytest.mark.parametrize("sample", ["khr_gemm", "nonportable", "wave64"])
def test_sample_spvasm_is_its_glsl_source(sample):
    """The samples ship the compiled .spvasm (no GLSL compiler needed); the .comp gives the same output."""
    import yaml
    from spvcoop.interp import run
    spec = yaml.safe_load((SAMPLES / sample / "run.yaml").read_text())
    shader = SAMPLES / sample / spec["shader"]
    bufs = {k: (np.load(SAMPLES / sample / v["file"]) if "file" in v else np.zeros(v["zeros"], v["dtype"]))
            for k, v in spec["buffers"].items()}
    outs = [run(str(shader.with_suffix(ext)), dispatch=spec["dispatch"], buffers=dict(bufs),
                spec_constants=spec.get("spec_constants"), layout="nvidia")[spec["outputs"][0]]
            for ext in (".spvasm", ".comp")]
    assert np.array_equal(outs[0], outs[1]) and outs[0].any()

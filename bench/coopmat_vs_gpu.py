"""Compare the interpreter (--layout nvidia) with a real driver through vkrun (a development aid, never a test).

    python bench/coopmat_vs_gpu.py prepare .vkrun/cases      # compile shaders, write inputs and run.sh
    # on the GPU machine: copy /work/shared/tools/vkrun into .vkrun/ first, then
    #   cd .vkrun/cases && sh run.sh $OUT                    # writes $OUT/<case>/bufI.bin
    python bench/coopmat_vs_gpu.py compare .vkrun/cases GPU_OUT_DIR [ieee|nvidia-tensorcore]

Every case binds storage buffers 0..n-1 in set 0 (vkrun has no push constants). Integer outputs and the
layout probes must match bit for bit; float outputs are compared element by element (identical, else the
largest difference in units of the last place of the output type).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
G = ROOT / "tests" / "glsl" / "coopmat"
S = ROOT / "samples" / "coopmat"


def _cases() -> dict:
    rng = np.random.default_rng(99)
    h = lambda *s: rng.standard_normal(s).astype(np.float16)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s).astype(np.int8)  # noqa: E731
    u8 = lambda *s: rng.integers(0, 256, s).astype(np.uint8)  # noqa: E731
    z = lambda n, dt: np.zeros(n, dt)  # noqa: E731
    big = rng.integers(2**32 - 3_000_000, 2**32, (32, 16), dtype=np.uint64).astype(np.uint32)

    def wide(*shape):  # f16 with exponents from subnormal to large, zeros and both signs
        x = rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(-26, 9, shape)) * rng.uniform(1, 2, shape)
        x[rng.random(shape) < 0.05] = 0
        return x.astype(np.float16)
    return {
        "stress_wide_f32acc": (S / "nv_gemm/gemm.comp", (4, 4, 1), {}, [wide(64, 64), wide(64, 64),
                               z(4096, np.float32)]),
        "stress_big_c0": (S / "khr_gemm/gemm.comp", (8, 8, 1), {0: 128, 1: 128},
                          [h(128, 128), h(128, 128), (rng.standard_normal(16384) * 3e4).astype(np.float32),
                           z(16384, np.float32)]),
        "stress_wide_f16acc": (G / "nv_gemm_f16_f16_16x8x16.comp", (4, 2, 1), {}, [wide(32, 64), wide(64, 32),
                               z(1024, np.float16)]),
        "stress_cancel_16x8x8": (G / "khr_gemm_f16_f16_16x8x8.comp", (2, 2, 1), {}, [
            np.tile(np.array([1024, -1024, 0.0009765625, 3], np.float16), (32, 8)),
            np.tile(np.array([[1], [1], [1], [0.0001]], np.float16), (8, 16)), z(512, np.float16)]),
        "nv_layout_dump": (G / "nv_layout_dump.comp", (1, 1, 1), {}, [np.arange(256).astype(np.float16),
                           np.arange(128, dtype=np.float32), np.arange(256, dtype=np.int32),
                           np.full(3072, -1, np.float32), z(3, np.uint32)]),
        "khr_layout_dump": (G / "khr_layout_dump.comp", (1, 1, 1), {}, [np.arange(256).astype(np.float16),
                            np.arange(256, dtype=np.float32), (np.arange(512) % 256).astype(np.uint8),
                            np.full(4096, -1, np.float32), z(4, np.uint32)]),
        "sample_nonportable": (S / "nonportable/rowsum.comp", (1, 1, 1), {}, [np.arange(256, dtype=np.float32),
                               z(16, np.uint32)]),
        "sample_int8_gemm": (S / "int8_gemm/gemm.comp", (3, 2, 1), {}, [i8(32, 128), i8(48, 128), z(1536, np.int32)]),
        "sample_khr_gemm": (S / "khr_gemm/gemm.comp", (8, 8, 1), {0: 128, 1: 128},
                            [h(128, 128), h(128, 128), rng.standard_normal(16384).astype(np.float32),
                             z(16384, np.float32)]),
        "sample_nv_gemm": (S / "nv_gemm/gemm.comp", (4, 4, 1), {}, [h(64, 64), h(64, 64), z(4096, np.float32)]),
        "sample_shared_gemm": (S / "shared_gemm/gemm.comp", (2, 2, 1), {}, [h(64, 64), h(64, 64),
                               z(4096, np.float32)]),
        "sample_elementwise": (S / "elementwise/elementwise.comp", (8, 1, 1), {},
                               [(rng.standard_normal(2048) * 4).astype(np.float32), z(2048, np.float32)]),
        "khr_u8_u32_wrap": (G / "khr_gemm_u8_u32_16x8x32.comp", (2, 2, 1), {}, [u8(32, 64), u8(64, 16), big,
                            z(512, np.uint32)]),
        "nv_s8_s32": (G / "nv_gemm_s8_s32.comp", (2, 2, 1), {}, [i8(32, 64), i8(64, 32), z(1024, np.int32)]),
        "nv_f16_acc": (G / "nv_gemm_f16_f16_16x8x16.comp", (4, 2, 1), {}, [h(32, 64), h(64, 32),
                       z(1024, np.float16)]),
        "khr_f16_acc": (G / "khr_gemm_f16_f16_16x8x8.comp", (2, 2, 1), {}, [h(32, 32), h(32, 16),
                        z(512, np.float16)]),
        "khr_convert": (G / "khr_convert.comp", (1, 1, 1), {}, [(rng.standard_normal(256) * 100).astype(np.float32),
                        rng.integers(-1000, 1000, 256).astype(np.int32), u8(512), z(1024, np.float32),
                        z(256, np.int32), z(512, np.int8), z(256, np.float16)]),
        "khr_elementwise": (G / "khr_elementwise.comp", (4, 1, 1), {}, [
            (rng.standard_normal(1024) * 3).astype(np.float32), (rng.standard_normal(1024) * 3).astype(np.float32),
            z(1024, np.float32), z(1024, np.float16)]),
        "nv_elementwise": (G / "nv_elementwise.comp", (4, 1, 1), {}, [h(1024), h(1024), z(1024, np.float32),
                           z(1024, np.float16)]),
        "khr_functions_arrays": (G / "khr_functions_arrays.comp", (2, 2, 1), {}, [h(32, 32), h(32, 64),
                                 z(2048, np.float32)]),
        "nv_colmajor_strides": (G / "nv_colmajor_strides.comp", (1, 1, 1), {}, [h(308), h(334),
                                rng.standard_normal(276).astype(np.float32), np.array([21, 17], np.uint32)]),
        "khr_shared_staged": (G / "khr_shared_staged_gemm.comp", (2, 2, 1), {}, [
            h(64, 64).view(np.uint32).reshape(-1, 4), h(64, 64).view(np.uint32).reshape(-1, 4), z(4096, np.float32)]),
    }


def prepare(d: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from spvcoop.core.reference_tools import require_tool
    d.mkdir(parents=True, exist_ok=True)
    lines = ["set -u", 'OUT="$1"', "export VK_ICD_FILENAMES=$PWD/../egl_icd.json LD_LIBRARY_PATH=$PWD/..",
             "../vkrun info > \"$OUT/info.txt\" 2>&1"]
    meta = {}
    for name, (shader, disp, spec, bufs) in _cases().items():
        c = d / name
        c.mkdir(exist_ok=True)
        require_tool("glslangValidator").run(*["-V", "--target-env", "vulkan1.3", str(shader), "-o",
                        str(c / "shader.spv")], check=True)
        args = []
        for i, b in enumerate(bufs):
            np.save(c / f"in{i}.npy", b)
            (c / f"in{i}.bin").write_bytes(np.ascontiguousarray(b).tobytes())
            args.append(f"{name}/in{i}.bin")
        sp = ",".join(f"{k}={v}" for k, v in spec.items())
        lines.append(f'mkdir -p "$OUT/{name}"; VKRUN_OUT="$OUT/{name}" VKRUN_SPEC="{sp}" ../vkrun run '
                     f'{name}/shader.spv {disp[0]} {disp[1]} {disp[2]} {" ".join(args)} > "$OUT/{name}/log.txt" 2>&1 '
                     f'|| echo "{name} failed: $(tail -3 "$OUT/{name}/log.txt")"')
        meta[name] = {"shader": str(shader.relative_to(ROOT)), "dispatch": disp, "spec": spec,
                      "dtypes": [str(b.dtype) for b in bufs]}
    lines.append('echo done')
    (d / "run.sh").write_text("\n".join(lines) + "\n")
    (d / "cases.json").write_text(json.dumps(meta, indent=1))
    print(f"prepared {len(meta)} cases in {d}")


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    k = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(k).astype(np.int64), b.view(k).astype(np.int64)
    ia = np.where(ia < 0, np.iinfo(k).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(k).min - ib, ib)
    return int(np.max(np.abs(ia - ib))) if a.size else 0


def compare(d: Path, gpu: Path, numerics: str = "ieee") -> int:
    sys.path.insert(0, str(ROOT))
    from spvcoop.interp import run
    from spvcoop.loader import load_module
    meta = json.loads((d / "cases.json").read_text())
    worst = 0
    for name, m in meta.items():
        bufs = [np.load(d / name / f"in{i}.npy") for i in range(len(m["dtypes"]))]
        res = run(load_module(str(d / name / "shader.spv")), dispatch=tuple(m["dispatch"]),
                  buffers={i: b for i, b in enumerate(bufs)}, spec_constants={int(k): v for k, v in m["spec"].items()},
                  layout="nvidia", coop_numerics=numerics)
        parts = []
        for i, b in enumerate(bufs):
            f = gpu / name / f"buf{i}.bin"
            if not f.exists():
                parts.append(f"buf{i}: no GPU output")
                worst = max(worst, 2)
                continue
            want = np.frombuffer(f.read_bytes(), b.dtype)[:b.size]
            got = np.frombuffer(res.raw(i), b.dtype)[:b.size]
            same = np.array_equal(got.view(np.uint8), want.view(np.uint8))
            if same:
                continue
            n = int((got.view(np.uint8).reshape(b.size, -1) != want.view(np.uint8).reshape(b.size, -1)).any(1).sum())
            extra = f", max {_ulps(got, want)} ulp" if b.dtype.kind == "f" else ""
            parts.append(f"buf{i} ({b.dtype}): {n} of {b.size} differ{extra}")
            worst = max(worst, 1)
        print(f"{name:<22} {'bit-identical' if not parts else '; '.join(parts)}")
    return worst


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        prepare(Path(sys.argv[2]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3]), *sys.argv[4:5]))
    else:
        print(__doc__)
        sys.exit(2)

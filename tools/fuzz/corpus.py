"""Seed inputs: the valid files of the repository, loaded once per process in a fixed order."""
from __future__ import annotations

import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _sorted(paths) -> list[Path]:
    return sorted(set(paths), key=lambda p: str(p))


@functools.cache
def spvasm_paths() -> tuple[Path, ...]:
    found = list((ROOT / "tests" / "data").rglob("*.spvasm")) + list((ROOT / "samples").rglob("*.spvasm"))
    return tuple(_sorted(found))


@functools.cache
def spvasm_text(i: int) -> str:
    paths = spvasm_paths()
    return paths[i % len(paths)].read_text(encoding="utf-8")


@functools.cache
def binary(i: int) -> bytes:
    """The binary of the i-th assembly seed that assembles (the next one that does, if not)."""
    import spvcoop
    paths = spvasm_paths()
    for k in range(len(paths)):
        try:
            return spvcoop.assemble(spvasm_text(i + k), str(paths[(i + k) % len(paths)])).to_bytes()
        except Exception:  # a seed meant to be rejected: take the next one
            continue
    raise RuntimeError("no assembly seed assembles")


@functools.cache
def coopmat_module_paths() -> tuple[Path, ...]:
    """Seeds declaring a cooperative-matrix capability (the ones a device profile applies to)."""
    return tuple(p for p in spvasm_paths() if "CooperativeMatrix" in p.read_text(encoding="utf-8"))


@functools.cache
def layout_model_paths() -> tuple[Path, ...]:
    return tuple(_sorted((ROOT / "spvcoop" / "layouts" / "models").glob("*.yaml")))


@functools.cache
def profile_paths() -> tuple[Path, ...]:
    return tuple(_sorted(list((ROOT / "spvcoop" / "validate" / "profiles").glob("*.yaml"))
                         + list((ROOT / "tests" / "data" / "validate").glob("profile*.yaml"))))


@functools.cache
def probe_buffers() -> tuple[tuple[Path, list[str]], ...]:
    """(probe OUT buffer, the `layout import` type options its name encodes)."""
    out = []
    for p in _sorted((ROOT / "tests" / "data" / "layouts").glob("h100_probe_*.bin")):
        m = re.match(r"h100_probe_(nv|khr)_(\w+?)_(\d+)x(\d+)(?:_(\w+))?\.bin", p.name)
        if m:
            opts = ["--component", m.group(2), "--rows", m.group(3), "--cols", m.group(4)]
            if m.group(5):
                opts += ["--use", m.group(5)]
            out.append((p, opts))
    return tuple(out)


@functools.cache
def run_samples() -> tuple[tuple[Path, str, tuple[str, ...]], ...]:
    """(sample directory, spec file name, extra argv) for every runnable sample."""
    out = []
    for spec in _sorted((ROOT / "samples").rglob("run.yaml")):
        out.append((spec.parent, "run.yaml", ()))
    for inp in _sorted((ROOT / "samples").rglob("in.yaml")):  # shader + --input values
        shaders = sorted(inp.parent.glob("*.spvasm")) or sorted(inp.parent.glob("*.comp"))
        if shaders:
            out.append((inp.parent, shaders[0].name, ("--input", "in.yaml")))
    return tuple(out)


def sample_files(directory: Path) -> dict[str, bytes]:
    """The files of a sample directory a run may need (no expected outputs)."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())
            if p.is_file() and not p.name.startswith("expected") and p.suffix in (".yaml", ".spvasm", ".comp",
                                                                                    ".npy", ".spv")}


@functools.cache
def glsl_runs() -> tuple[tuple[Path, str, tuple[str, ...], str], ...]:
    """(sample directory, spec or shader argument, extra argv, .comp name) for every sample with GLSL source:
    the run spec's shader (or the shader argument) swapped for the .comp."""
    out = []
    for d, spec, extra in run_samples():
        comps = sorted(p.name for p in d.glob("*.comp"))
        if comps:
            out.append((d, spec if spec.endswith(".yaml") else comps[0], extra, comps[0]))
    return tuple(out)


@functools.cache
def numerics_model_text() -> str:
    return (ROOT / "tests" / "data" / "h100-vulkan" / "vulkan-loop" / "numerics-measured.yaml").read_text()


@functools.cache
def numerics_tiles() -> tuple[tuple[str, object], ...]:
    """(npz key, array) of saved MulAdd tiles, two tiles of each (the fit stays fast)."""
    import numpy as np
    with np.load(ROOT / "tests" / "data" / "h100-vulkan" / "vulkan-loop" / "subnormal-k16.npz") as z:
        return tuple((k, z[k][:2].copy()) for k in sorted(z.files))


@functools.cache
def template_modules() -> tuple[Path, ...]:
    """Every sample's and kernel's shader (and tests/data/aliasing's), what `run --template` is asked of: its
    assembly, or its GLSL where a folder has no assembly (kernels' GLSL needs a newer glslang or -D defines; their
    builds are the .spvasm)."""
    found = []
    tops = (ROOT / "samples", ROOT / "tests" / "kernels", ROOT / "tests" / "data" / "aliasing")
    for d in sorted({p.parent for top in tops for p in top.rglob("*") if p.suffix in (".spvasm", ".comp")}):
        asm = sorted(d.glob("*.spvasm"))
        found += asm or sorted(d.glob("*.comp"))
    return tuple(_sorted(found))

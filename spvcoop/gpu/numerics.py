"""MulAdd probe tiles on a device: the KHR combinations it reports, each distribution of numerics/tiles.py,
one MulAdd per workgroup (numerics/shader.py); the compiled-code probes (numerics/compiled.py) on the device and,
for the fit, in the interpreter; the .npz file that holds both."""
from __future__ import annotations

import numpy as np

from .device import DeviceInfo

SUPPORTED = {"f16", "bf16", "f32", "s8", "u8", "s32", "u32"}


def combinations(info: DeviceInfo) -> list[tuple[str, str, str, int, int, int]]:
    """(A, B, C, M, N, K) of the Subgroup-scope KHR combinations whose components the probes handle
    (and whose result type is C's)."""
    out = []
    for e in info.coopmat_khr:
        if e["scope"] == "Subgroup" and {e["A"], e["B"], e["C"]} <= SUPPORTED and e["C"] == e["Result"]:
            out.append((e["A"], e["B"], e["C"], e["M"], e["N"], e["K"]))
    return out


def run_tiles(device, combo, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """D = A x B + C of every tile, computed by the device."""
    from ..numerics.shader import muladd_shader
    from ..numerics.tiles import from_bytes, to_bytes
    from ..asm.assembler import assemble
    from .runner import run_on_device
    a, b, c, M, N, K = combo
    n = A.shape[0]
    module = assemble(muladd_shader(a, b, c, M, N, K, 32), f"muladd-{a}-{c}-{M}x{N}x{K}", target_env="vulkan1.3")
    res = run_on_device(module, dispatch=(n, 1, 1), validate=False, device=device,
                        buffers={(0, 0): to_bytes(a, A), (0, 1): to_bytes(b, B), (0, 2): to_bytes(c, C),
                                 (0, 3): bytes(len(to_bytes(c, C)))})
    return from_bytes(c, res.raw((0, 3))[:len(to_bytes(c, C))], C.shape)


def measure_tiles(device, info: DeviceInfo, tiles: int, seeds=(1, 2), progress=None) -> dict:
    """{combo: {(dist, seed): (A, B, C, D)}} for every supported combination and distribution."""
    from ..numerics.tiles import distributions, make_tiles
    out: dict = {}
    for combo in combinations(info):
        a, b, c, M, N, K = combo
        per = out.setdefault(combo, {})
        for dist in distributions(a):
            for seed in seeds:
                A, B, C = make_tiles(a, b, c, M, N, K, dist, tiles, seed)
                per[(dist, seed)] = (A, B, C, run_tiles(device, combo, A, B, C))
        if progress:
            progress(combo)
    return out


def measure_probes(device, probes=None, progress=None) -> tuple[dict, dict]:
    """({probe: {"in<b>": inputs, "gpu<b>": outputs}}, {probe: why not measured}) of the compiled-code probes.
    A probe whose features the device lacks (bf16 for cvt, coopmat2 per-element operations for perelem, f16
    arithmetic for perelem_f16 and scalar_f16), or
    whose dispatch fails, is not measured: its parameters keep their defaults."""
    from ..core.diagnostics import SpvError
    from ..numerics.compiled import PROBES, make_inputs, probe_module, read_outputs, run_args
    from .runner import run_on_device
    data: dict = {}
    skipped: dict = {}
    for name in probes or PROBES:
        module = probe_module(name)
        inputs = make_inputs(name)
        groups, bufs = run_args(name, inputs)
        try:
            device.check_needs(module, name)
            res = run_on_device(module, dispatch=(groups, 1, 1), validate=False, device=device, buffers=bufs)
        except SpvError as e:   # a missing feature (named), or a failed or timed-out dispatch
            skipped[name] = e.diagnostics[0].message if e.diagnostics else str(e)
        else:
            data[name] = {**inputs, **read_outputs(name, inputs, res.raw)}
        if progress:
            progress(name)
    return data, skipped


def interpret_probe(name: str, model, data: dict) -> dict:
    """What the interpreter computes for a compiled-code probe under `model` (numerics/compiled.py's Predict)."""
    from ..interp import run
    from ..numerics.compiled import probe_module, read_outputs, run_args
    groups, bufs = run_args(name, data)
    res = run(probe_module(name), dispatch=(groups, 1, 1), buffers=bufs, coop_numerics=model)
    return read_outputs(name, data, res.raw)


PROBE_PREFIX = "probe/"


def save_tiles(path, data: dict, probes: dict | None = None) -> None:
    """One .npz: arrays named '<a>_<b>_<c>_<M>x<N>x<K>/<dist>/<seed>/<A|B|C|D>' (bf16 as float32 values), and
    the compiled-code probes' arrays as 'probe/<name>/<in|gpu><b>'."""
    arrays = {}
    for (a, b, c, M, N, K), per in data.items():
        for (dist, seed), quad in per.items():
            for name, arr in zip("ABCD", quad, strict=False):
                arrays[f"{a}_{b}_{c}_{M}x{N}x{K}/{dist}/{seed}/{name}"] = arr
    for probe, arrs in (probes or {}).items():
        for key, arr in arrs.items():
            arrays[f"{PROBE_PREFIX}{probe}/{key}"] = arr
    np.savez_compressed(path, **arrays)


def load_measurement(path, max_bytes: int | None = None) -> tuple[dict, dict]:
    """(tiles, probes) as save_tiles wrote them. Bounded before anything is inflated: the arrays' sizes as the
    archive declares them may total at most max_bytes (default: the input limit, --max-input-size), so a small .npz
    that inflates to gigabytes is refused at once (zipfile stops every member at its declared size); each member
    must be a plain numeric .npy whose header matches its data (runspec.spec.read_npy). Raises
    InputError/SpvError, or zipfile.BadZipFile / OSError / ValueError / KeyError for a damaged or foreign
    archive; probe data of an unknown probe or with missing arrays is a ValueError too."""
    import zipfile

    from ..core import files
    from ..core.diagnostics import Diagnostic, InputError
    from ..runspec.spec import read_npy
    limit = files.max_input_bytes if max_bytes is None else max_bytes
    source = str(path)
    arrays: dict[str, np.ndarray] = {}
    with files.open_input(source) as f, zipfile.ZipFile(f) as zf:
        members = zf.infolist()
        total = sum(m.file_size for m in members)
        if total > limit:
            raise InputError(Diagnostic("error", f"the arrays inflate to {total} bytes, over the limit of {limit} "
                                        "bytes (raise it with --max-input-size)", source=source))
        for m in members:
            with zf.open(m) as member:
                data = files.read_bounded(member, m.file_size)
            arrays[m.filename.removesuffix(".npy")] = read_npy(data, m.filename, source, max_bytes=limit)
    out: dict = {}
    probes: dict = {}
    for key, arr in arrays.items():
        if key.startswith(PROBE_PREFIX):
            probe, _, name = key[len(PROBE_PREFIX):].partition("/")
            probes.setdefault(probe, {})[name] = arr
            continue
        combo, dist, seed, name = key.split("/")
        a, b, c, shape = combo.split("_")
        M, N, K = (int(x) for x in shape.split("x"))
        out.setdefault((a, b, c, M, N, K), {}).setdefault((dist, int(seed)), {})[name] = arr
    _check_probes(probes)
    return {k: {ds: tuple(v[n] for n in "ABCD") for ds, v in per.items()} for k, per in out.items()}, probes


def _check_probes(probes: dict) -> None:
    """Every probe known, with its inputs and outputs of the types and sizes the probe kernel has."""
    from ..numerics.compiled import PROBES, functions_of, group_size, inputs_of, outputs, tiles_of
    for name, arrs in probes.items():
        if name not in PROBES:
            raise ValueError(f"unknown probe '{name}' (known: {', '.join(PROBES)})")
        ins = inputs_of(name)
        want = {k: np.uint32 if name == "cvt" else next(iter(outputs(name).values())) for k in ins}
        for b, dt in outputs(name).items():
            want[f"gpu{b}"] = dt
        for k, dt in want.items():
            if k not in arrs:
                raise ValueError(f"probe {name}: the array {k} is missing")
            if arrs[k].dtype != np.dtype(dt) or arrs[k].ndim != 1:
                raise ValueError(f"probe {name}/{k}: {arrs[k].dtype} {arrs[k].shape}, expected a flat "
                                 f"{np.dtype(dt)} array")
        n, g = arrs["in0"].size, group_size(name)
        if n == 0 or n % g or any(arrs[k].size != n for k in ins):
            raise ValueError(f"probe {name}: the inputs must be groups of {g} elements, all of one length")
        per = len(functions_of(name))
        for k in want:
            if k.startswith("gpu") and arrs[k].size != per * tiles_of(name, arrs) * g:
                raise ValueError(f"probe {name}/{k}: {arrs[k].size} elements, expected {per * n}")


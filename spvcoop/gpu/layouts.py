"""`layout measure`: run `spvcoop layout probe`'s shader on a device for every cooperative-matrix type it
reports and turn the probe buffers into a layout model (layouts/probe.py does both halves)."""
from __future__ import annotations

import numpy as np

from .device import DeviceInfo


def device_types(info: DeviceInfo) -> list[tuple[str, str, int, int, str | None]]:
    """(api, component, rows, cols, use) of every matrix type the property lists imply: KHR A (MxK), B (KxN),
    C and Result (MxN); NV the same shapes without a use. Subgroup scope only (what probes run on)."""
    seen: dict = {}
    for e in info.coopmat_khr:
        if e["scope"] != "Subgroup":
            continue
        M, N, K = e["M"], e["N"], e["K"]
        for comp, r, c, use in ((e["A"], M, K, "a"), (e["B"], K, N, "b"), (e["C"], M, N, "acc"),
                                (e["Result"], M, N, "acc")):
            seen.setdefault(("khr", comp, r, c, use), None)
    for e in info.coopmat_nv:
        if e["scope"] != "Subgroup":
            continue
        M, N, K = e["M"], e["N"], e["K"]
        for comp, r, c in ((e["A"], M, K), (e["B"], K, N), (e["C"], M, N), (e["Result"], M, N)):
            seen.setdefault(("nv", comp, r, c, None), None)
    return list(seen)


def workgroup_types(info: DeviceInfo, invocations) -> list[tuple[str, str, int, int, str | None, int]]:
    """(api, component, rows, cols, use, invocations) of Workgroup-scope types to probe, from the device's
    flexible-dimension list (VK_NV_cooperative_matrix2): for every combination listed at one of `invocations`,
    A (Mg x Kg), B (Kg x Ng) and the accumulators (Mg x Ng) at its granularities, and for 16/32-bit float
    combinations also twice the granularity in each dimension (a layout seen at one size only is no rule)."""
    seen: dict = {}
    for e in info.flexible:
        W = e["workgroupInvocations"]
        if e["scope"] != "Workgroup" or W not in invocations:
            continue
        Mg, Ng, Kg = e["MGranularity"], e["NGranularity"], e["KGranularity"]
        scales = [(1, 1, 1)]
        if e["A"] in ("f16", "bf16") and e["C"] in ("f16", "f32") and e["A"] == "f16":
            scales += [(2, 2, 2), (2, 1, 2), (1, 2, 1)]
        for sm, sn, sk in scales:
            M, N, K = Mg * sm, Ng * sn, Kg * sk
            for comp, r, c, use in ((e["A"], M, K, "a"), (e["B"], K, N, "b"), (e["C"], M, N, "acc"),
                                    (e["Result"], M, N, "acc")):
                seen.setdefault(("khr", comp, r, c, use, W), None)
    return list(seen)


def measure(device, info: DeviceInfo, progress=None, extra=(), workgroup=()) -> tuple[list[dict], list[str]]:
    """(model entries, skipped types with the reason) from probes run on an open compute.Device: every type the
    device's lists imply, then the `extra` (api, component, rows, cols, use) types not among them. With
    `workgroup` (invocation counts, e.g. 64, 128, 256) the Workgroup-scope types of workgroup_types instead:
    each entry's subgroup_size is then the scope's size, the workgroup's invocation count."""
    from ..core.diagnostics import SpvError
    from ..layouts.layout import COMPONENTS, LayoutError
    from ..layouts.probe import import_buffer, probe_inputs, probe_shader
    from ..asm.assembler import assemble
    from .runner import run_on_device
    entries: list[dict] = []
    skipped: list[str] = []
    if workgroup:
        types = workgroup_types(info, workgroup)
        if not types:
            skipped.append(f"no Workgroup-scope type at {', '.join(map(str, workgroup))} invocations in the "
                           "device's flexible-dimension list")
    else:
        types = [(*t, info.subgroup_size) for t in device_types(info)]
        types += [(*t, info.subgroup_size) for t in dict.fromkeys(extra) if (*t, info.subgroup_size) not in types]
    scope = "Workgroup" if workgroup else "Subgroup"
    for api, comp, rows, cols, use, S in types:
        label = f"{api} {comp} {rows}x{cols}" + (f" use {use}" if use else "") + (f" at {S} invocations"
                                                                                  if workgroup else "")
        if comp not in COMPONENTS:
            skipped.append(f"{label}: no layout probe for component {comp}")
            continue
        text = probe_shader(api, comp, rows, cols, use, S, scope=scope)
        row, col = probe_inputs(comp, rows, cols)
        out = np.zeros(S + 2 * S * rows * cols, np.uint32)
        try:
            res = run_on_device(assemble(text, f"probe-{api}-{comp}-{rows}x{cols}-{use}"), device=device,
                                buffers={(0, 0): row, (0, 1): col, (0, 2): out}, validate=False)
        except SpvError as e:
            skipped.append(f"{label}: {e.diagnostics[0].message}")
            if getattr(device, "lost", False):   # timed out or lost: nothing more can run on it
                break
            continue
        words = np.frombuffer(res.raw((0, 2)), "<u4").astype(np.int64)
        try:
            lanes = import_buffer(words, rows, cols, S)
        except LayoutError as e:
            skipped.append(f"{label}: {e.diagnostics[0].message}")
            continue
        name = f"{api}-{comp}-{rows}x{cols}" + (f"-{use}" if use else "") + (f"-wg{S}" if workgroup else "")
        entry = {"name": name, "component": comp, "rows": rows, "cols": cols, "use": use, "subgroup_size": S,
                 "lanes": lanes}
        # NV and KHR types with the same key share one model entry: keep the first, report a disagreement
        twin = next((x for x in entries if (x["component"], x["rows"], x["cols"], x["use"], x["subgroup_size"]) ==
                     (comp, rows, cols, use, S)), None)
        if twin is not None:
            if twin["lanes"] != lanes:
                skipped.append(f"{label}: differs from {twin['name']} (a model holds one layout per type)")
            continue
        entries.append(entry)
        if progress:
            progress(label)
    return entries, skipped

"""A device's cooperative-matrix combinations as a validator profile (spvcoop/validator/profiles.py).

NV and KHR entries with the same M, N, K, types and scope become one combination with api [NV, KHR];
`saturating` is written as the KHR list reports it (NV has no such field). VK_NV_cooperative_matrix2's
flexible-dimension entries and flexibleDimensionsMaxDimension are written as the profile's `flexible` list
(granularities, not fixed shapes), where the device reports them."""
from __future__ import annotations

from .device import DeviceInfo

KEYS = ("M", "N", "K", "A", "B", "C", "Result", "scope")
FLEX_KEYS = ("MGranularity", "NGranularity", "KGranularity", "A", "B", "C", "Result", "scope")


def profile_dict(info: DeviceInfo, name: str) -> dict:
    combos: dict[tuple, dict] = {}
    for api, entries in (("NV", info.coopmat_nv), ("KHR", info.coopmat_khr)):
        for e in entries:
            key = tuple(e[k] for k in KEYS)
            c = combos.setdefault(key, {"api": [], **{k: e[k] for k in KEYS}})
            c["api"].append(api)
            if "saturating" in e:
                c["saturating"] = bool(e["saturating"])
    return {"name": name, "description": f"{info.name}, driver {info.driver_name} {info.driver_info}, "
                                         f"Vulkan {info.api_version}, subgroup size {info.subgroup_size} "
                                         f"(written by spvcoop device info --write-profile)",
            "combinations": list(combos.values()), **_flexible(info)}


def _flexible(info: DeviceInfo) -> dict:
    if not info.flexible:
        return {}
    out = []
    for e in info.flexible:
        f = {k: e[k] for k in FLEX_KEYS}
        if "saturating" in e:
            f["saturating"] = bool(e["saturating"])
        f["workgroupInvocations"] = e.get("workgroupInvocations", 0)
        out.append(f)
    return {"flexibleDimensionsMaxDimension": info.coopmat2.get("flexibleDimensionsMaxDimension", 0),
            "flexible": out}


def profile_yaml(info: DeviceInfo, name: str) -> str:
    """The profile as YAML, one flow mapping per combination (as the built-in profiles are written)."""
    d = profile_dict(info, name)
    lines = [f"name: {d['name']}", f"description: {d['description']}", "combinations:"]
    for c in d["combinations"]:
        parts = [f"api: [{', '.join(c['api'])}]"] + [f"{k}: {c[k]}" for k in KEYS]
        if "saturating" in c:
            parts.append(f"saturating: {'true' if c['saturating'] else 'false'}")
        lines.append("  - {" + ", ".join(parts) + "}")
    if "flexible" in d:
        lines.append(f"flexibleDimensionsMaxDimension: {d['flexibleDimensionsMaxDimension']}")
        lines.append("flexible:")
        for f in d["flexible"]:
            parts = [f"{k}: {f[k]}" for k in FLEX_KEYS]
            if "saturating" in f:
                parts.append(f"saturating: {'true' if f['saturating'] else 'false'}")
            parts.append(f"workgroupInvocations: {f['workgroupInvocations']}")
            lines.append("  - {" + ", ".join(parts) + "}")
    return "\n".join(lines) + "\n"

"""A device's cooperative-matrix combinations as a validator profile (spvcoop/validator/profiles.py).

NV and KHR entries with the same M, N, K, types and scope become one combination with api [NV, KHR];
`saturating` is written as the KHR list reports it (NV has no such field). Flexible-dimension entries of
VK_NV_cooperative_matrix2 are not fixed shapes and stay out (they are in `device info`)."""
from __future__ import annotations

from .device import DeviceInfo

KEYS = ("M", "N", "K", "A", "B", "C", "Result", "scope")


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
            "combinations": list(combos.values())}


def profile_yaml(info: DeviceInfo, name: str) -> str:
    """The profile as YAML, one flow mapping per combination (as the built-in profiles are written)."""
    d = profile_dict(info, name)
    lines = [f"name: {d['name']}", f"description: {d['description']}", "combinations:"]
    for c in d["combinations"]:
        parts = [f"api: [{', '.join(c['api'])}]"] + [f"{k}: {c[k]}" for k in KEYS]
        if "saturating" in c:
            parts.append(f"saturating: {'true' if c['saturating'] else 'false'}")
        lines.append("  - {" + ", ".join(parts) + "}")
    return "\n".join(lines) + "\n"


def same_combinations(a, b) -> list[str]:
    """What differs between two validator Profiles' combinations (empty: equal). A combination whose
    saturating is unrecorded (None) matches either setting."""
    def key(c):
        return (tuple(sorted(c.apis)), c.M, c.N, c.K, c.A, c.B, c.C, c.Result, c.scope)
    ka = {key(c): c.saturating for c in a.combos}
    kb = {key(c): c.saturating for c in b.combos}
    out = [f"only in {a.name}: {k}" for k in ka if k not in kb]
    out += [f"only in {b.name}: {k}" for k in kb if k not in ka]
    out += [f"saturating differs for {k}: {ka[k]} vs {kb[k]}" for k in ka if k in kb and
            None not in (ka[k], kb[k]) and ka[k] != kb[k]]
    return out

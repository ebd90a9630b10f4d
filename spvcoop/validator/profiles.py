"""Device profiles: which cooperative-matrix combinations a device supports.

A profile is YAML (built-in ones live in `profiles/NAME.yaml`; users pass a file):

    name: my-gpu
    combinations:
      - {api: [NV, KHR], M: 16, N: 8, K: 16, A: f16, B: f16, C: f32, Result: f32, scope: Subgroup,
         saturating: false}

like VkCooperativeMatrixPropertiesNV/KHR. `check_profile` reports every coopmat type and
MulAdd that no combination covers, as the Vulkan validation layers do at pipeline creation.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import Diagnostic, Note, SpvError
from .coopmat_types import describe
from .index import CoopMat
from .registry import RULES, Context, Rule

PROFILE_DIR = Path(__file__).parent / "profiles"
SCOPES = {"CrossDevice": 0, "Device": 1, "Workgroup": 2, "Subgroup": 3, "Invocation": 4, "QueueFamily": 5}
_TYPE_ALIASES = {"i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64", "bfloat16": "bf16",
                 "float16": "f16", "float32": "f32", "float64": "f64"}

RULES["profile.type"] = Rule("profile.type", (), "The device must report a cooperative-matrix combination that "
                             "contains this type (VkCooperativeMatrixProperties*).", "error", None,  # type: ignore[arg-type]
                             "Vulkan VK_NV/KHR_cooperative_matrix")
RULES["profile.muladd"] = Rule("profile.muladd", (), "The M, N, K, component types, scope (and saturating "
                               "accumulation) of a MulAdd must match one combination the device reports.",
                               "error", None, "Vulkan VK_NV/KHR_cooperative_matrix")  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Combo:
    apis: tuple[str, ...]
    M: int
    N: int
    K: int
    A: str
    B: str
    C: str
    Result: str
    scope: int
    saturating: bool | None  # None: not recorded, both accepted

    def text(self) -> str:
        return f"{self.M}x{self.N}x{self.K} {self.A}*{self.B}+{self.C}->{self.Result}"


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    combos: tuple[Combo, ...]
    description: str = ""


def available_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


def _bad(source: str, message: str) -> SpvError:
    return SpvError(Diagnostic("error", message, source=source))


def load_profile(name_or_path: str) -> Profile:
    """A built-in profile by name, or a YAML file; malformed profiles raise SpvError."""
    from ..yamlio import load_file
    path = Path(name_or_path)
    if not (name_or_path.endswith((".yaml", ".yml")) or path.exists()):
        path = PROFILE_DIR / f"{name_or_path}.yaml"
        if not path.exists():
            from ..diagnostics import did_you_mean
            raise _bad(name_or_path, f"unknown profile '{name_or_path}'"
                       f"{did_you_mean(name_or_path, available_profiles())}; built-in: "
                       f"{', '.join(available_profiles())} (or pass a .yaml file)")
    src = str(path)
    data = load_file(path, src, as_json=False)  # located errors; alias, depth and size budgets
    if not isinstance(data, dict) or not isinstance(data.get("combinations"), list):
        raise _bad(src, "a profile must be a mapping with a 'combinations' list")
    combos = []
    for n, c in enumerate(data["combinations"], start=1):
        combos.append(_combo(src, n, c))
    return Profile(str(data.get("name", path.stem)), tuple(combos), str(data.get("description", "")))


def _combo(src: str, n: int, c) -> Combo:
    if not isinstance(c, dict):
        raise _bad(src, f"combination {n} must be a mapping")
    try:
        apis = c.get("api", ["NV", "KHR"])
        apis = tuple(str(a).upper() for a in (apis if isinstance(apis, list) else [apis]))
        scope = c.get("scope", "Subgroup")
        scope_v = SCOPES[scope] if isinstance(scope, str) else int(scope)
        types = {k: _TYPE_ALIASES.get(str(c[k]).lower(), str(c[k]).lower()) for k in ("A", "B", "C")}
        result = _TYPE_ALIASES.get(str(c.get("Result", c["C"])).lower(), str(c.get("Result", c["C"])).lower())
        sat = c.get("saturating")
        return Combo(apis, int(c["M"]), int(c["N"]), int(c["K"]), types["A"], types["B"], types["C"], result,
                     scope_v, None if sat is None else bool(sat))
    except KeyError as e:
        raise _bad(src, f"combination {n} lacks {e} (needs M, N, K, A, B, C; optional Result, scope, api, "
                   "saturating)") from None
    except (TypeError, ValueError) as e:
        raise _bad(src, f"combination {n} is malformed: {e}") from None


def component_name(ctx: Context, type_id: int) -> str | None:
    """Profile spelling of a component type: f16, f32, bf16, e4m3, e5m2, s8, u8, s32, ..."""
    sk = ctx.ix.scalar_kind(type_id)
    if sk is None:
        return None
    kind, width = sk
    if kind == "float":
        t = ctx.ix.defs[type_id]
        if len(t.operands) > 1:
            return {0: "bf16", 4214: "e4m3", 4215: "e5m2"}.get(t.operands[1].value, f"f{width}")
        return f"f{width}"
    return ("s" if kind == "int" else "u") + str(width)


def _type_fits(ctx: Context, cm: CoopMat, c: Combo) -> bool:
    if cm.flavour not in c.apis or cm.scope is None or cm.scope.value != c.scope:
        return False
    comp = component_name(ctx, cm.component)
    r, k = cm.rows.value, cm.cols.value  # type: ignore[union-attr]
    roles = {0: [(c.M, c.K, c.A)], 1: [(c.K, c.N, c.B)], 2: [(c.M, c.N, c.C), (c.M, c.N, c.Result)]}
    if cm.flavour == "KHR" and cm.use is not None:
        cands = roles.get(cm.use.value, [])
    else:
        cands = [x for v in roles.values() for x in v]
    return any((r, k, comp) == x for x in cands)


def check_profile(ctx: Context, profile: Profile) -> None:
    ix = ctx.ix
    for inst in ix.module.instructions:
        if inst.opname.startswith("OpTypeCooperativeMatrix"):
            cm = ix.coopmat(inst.result_id)
            if cm is None or cm.rows is None or cm.cols is None or cm.scope is None:
                continue
            if not any(_type_fits(ctx, cm, c) for c in profile.combos):
                ctx.report(inst, None, f"{profile.name} does not support cooperative matrix type "
                           f"{ix.name(cm.id)} = {ix.type_text(cm.id)}, scope {ix.scope_name(cm.scope)}",
                           [Note(f"supported: {_summary(profile, cm.flavour)}")], rule_id="profile.type",
                           spec_dependent=cm.rows.spec or cm.cols.spec)
        elif inst.opname.startswith("OpCooperativeMatrixMulAdd"):
            _check_muladd(ctx, profile, inst)


def _check_muladd(ctx: Context, profile: Profile, inst) -> None:
    ix = ctx.ix
    a, b, c = (ix.coopmat_of(o.value) for o in inst.operands[:3])
    r = ix.coopmat(inst.result_type)
    if None in (a, b, c, r):
        return
    if any(v is None for v in (a.rows, a.cols, b.cols, a.scope)):  # type: ignore[union-attr]
        return
    M, K, N = a.rows.value, a.cols.value, b.cols.value  # type: ignore[union-attr]
    comps = tuple(component_name(ctx, m.component) for m in (a, b, c, r))  # type: ignore[union-attr]
    mask = next((o.value for o in inst.operands[3:] if o.kind == "CooperativeMatrixOperands"), 0)
    sat = bool(mask & 16)
    flavour = a.flavour  # type: ignore[union-attr]
    for cb in profile.combos:
        if flavour in cb.apis and (cb.M, cb.N, cb.K) == (M, N, K) and (cb.A, cb.B, cb.C, cb.Result) == comps \
                and cb.scope == a.scope.value and (cb.saturating is None or cb.saturating == sat):  # type: ignore[union-attr]
            return
    same_types = [cb.text() for cb in profile.combos if flavour in cb.apis and (cb.A, cb.B) == comps[:2]]
    ctx.report(inst, None, f"{profile.name} does not support MulAdd {M}x{N}x{K} "
               f"{comps[0]}*{comps[1]}+{comps[2]}->{comps[3]} (scope {ix.scope_name(a.scope)}"  # type: ignore[union-attr]
               f"{', saturating' if sat else ''})",
               [describe(ctx, a, "A"), describe(ctx, b, "B"), describe(ctx, c, "C"),  # type: ignore[arg-type]
                Note("supported with these A/B types: " + (", ".join(same_types) or "none"))],
               rule_id="profile.muladd")


def _summary(profile: Profile, flavour: str) -> str:
    return ", ".join(cb.text() for cb in profile.combos if flavour in cb.apis)

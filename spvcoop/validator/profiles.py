"""Device profiles: which cooperative-matrix combinations a device supports.

A profile is YAML (built-in ones live in `profiles/NAME.yaml`; users pass a file):

    name: my-gpu
    combinations:
      - {api: [NV, KHR], M: 16, N: 8, K: 16, A: f16, B: f16, C: f32, Result: f32, scope: Subgroup,
         saturating: false}

like VkCooperativeMatrixPropertiesNV/KHR. VK_NV_cooperative_matrix2 devices also report flexible
dimensions (VkCooperativeMatrixFlexibleDimensionsPropertiesNV): sizes that are multiples of a granularity, up
to a maximum, for Subgroup scope or for Workgroup scope with a given number of invocations:

    flexibleDimensionsMaxDimension: 1024
    flexible:
      - {MGranularity: 16, NGranularity: 16, KGranularity: 16, A: f16, B: f16, C: f32, Result: f32,
         scope: Workgroup, workgroupInvocations: 128}

Flexible entries apply to modules that declare SPV_NV_cooperative_matrix2 (they need the device's
VK_NV_cooperative_matrix2 features). `check_profile` reports every coopmat type and MulAdd that no combination
covers, as the Vulkan validation layers do at pipeline creation.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..core.diagnostics import Diagnostic, Note, SpvError
from .coopmat_types import describe
from .index import CoopMat
from .registry import Context

PROFILE_DIR = Path(__file__).parent / "profiles"
MAX_DIMENSION = 1 << 16     # no device reports a larger M, N or K
SCOPES = {"CrossDevice": 0, "Device": 1, "Workgroup": 2, "Subgroup": 3, "Invocation": 4, "QueueFamily": 5}
_TYPE_ALIASES = {"i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64", "bfloat16": "bf16",
                 "float16": "f16", "float32": "f32", "float64": "f64"}


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
        return f"{self.M}x{self.N}x{self.K} {self.A}*{self.B}+{self.C}->{self.Result}" + \
            (" saturating" if self.saturating else "")


@dataclass(frozen=True, slots=True)
class Flexible:
    """A VkCooperativeMatrixFlexibleDimensionsPropertiesNV entry (SPV_NV_cooperative_matrix2, KHR types)."""
    M: int                   # granularities: the sizes must be multiples of these
    N: int
    K: int
    A: str
    B: str
    C: str
    Result: str
    scope: int
    saturating: bool | None
    invocations: int         # workgroupInvocations: the workgroup size Workgroup scope needs (0: any)

    def text(self) -> str:
        wg = f" in workgroups of {self.invocations}" if self.invocations else ""
        return f"{self.M}k x {self.N}k x {self.K}k {self.A}*{self.B}+{self.C}->{self.Result}{wg}"


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    combos: tuple[Combo, ...]
    description: str = ""
    flexible: tuple[Flexible, ...] = ()
    max_dimension: int = MAX_DIMENSION  # flexibleDimensionsMaxDimension


def available_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


def _bad(source: str, message: str) -> SpvError:
    return SpvError(Diagnostic("error", message, source=source))


def load_profile(name_or_path: str) -> Profile:
    """A built-in profile by name, or a YAML file; malformed profiles raise SpvError, each
    violation at its file:line:col."""
    from pydantic import ValidationError

    from ..core.schema import schema_errors
    from ..core.yamlio import load_file
    name_or_path = os.fspath(name_or_path)  # a pathlib.Path too
    path = Path(name_or_path)
    # os.path.exists is False for a name too long for the file system (Path.exists raises)
    if not (name_or_path.endswith((".yaml", ".yml")) or os.path.exists(path)):
        path = PROFILE_DIR / f"{name_or_path}.yaml"
        if "/" in name_or_path or "\0" in name_or_path or len(name_or_path) > 200 or not path.exists():
            from ..core.diagnostics import did_you_mean
            raise _bad(name_or_path, f"unknown profile '{name_or_path}'"
                       f"{did_you_mean(name_or_path, available_profiles())}; built-in: "
                       f"{', '.join(available_profiles())} (or pass a .yaml file)")
    src = str(path)
    data = load_file(path, src, as_json=False)  # located errors; alias, depth and size budgets
    try:
        model = _profile_schema().validate_python(data)
    except ValidationError as e:
        raise schema_errors(e, data, src, keys_of=_profile_keys) from None
    combos = tuple(Combo(c.api, c.M, c.N, c.K, c.A, c.B, c.C, c.Result or c.C, c.scope, c.saturating)
                   for c in model.combinations)
    flexible = tuple(Flexible(f.MGranularity, f.NGranularity, f.KGranularity, f.A, f.B, f.C, f.Result or f.C,
                              f.scope, f.saturating, f.workgroupInvocations) for f in model.flexible)
    return Profile(str(model.name) if model.name is not None else path.stem, combos, model.description, flexible,
                   model.flexibleDimensionsMaxDimension)


COMPONENT_TYPES = ("f16", "f32", "f64", "bf16", "e4m3", "e5m2", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64")
MAX_COMBINATIONS = 4096


def _profile_keys(node, root, path) -> list[str]:
    if node is root:
        return ["name", "description", "combinations", "flexible", "flexibleDimensionsMaxDimension"]
    if path and path[0] == "flexible":
        return ["MGranularity", "NGranularity", "KGranularity", "A", "B", "C", "Result", "scope", "saturating",
                "workgroupInvocations"]
    return ["api", "M", "N", "K", "A", "B", "C", "Result", "scope", "saturating"]


def _profile_schema():
    """The profile's pydantic schema, built on first use (pydantic costs start-up time)."""
    global _PROFILE_SCHEMA
    if _PROFILE_SCHEMA is not None:
        return _PROFILE_SCHEMA
    from typing import Annotated

    from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter

    def to_component(v):
        if not isinstance(v, str):
            raise ValueError(f"a component type is a name such as f16 or s8 ({', '.join(COMPONENT_TYPES)})")
        name = _TYPE_ALIASES.get(v.lower(), v.lower())
        if name not in COMPONENT_TYPES:
            raise ValueError(f"unknown component type '{v}' (one of: {', '.join(COMPONENT_TYPES)})")
        return name

    def to_scope(v):
        if isinstance(v, str) and v in SCOPES:
            return SCOPES[v]
        if isinstance(v, int) and not isinstance(v, bool) and v in SCOPES.values():
            return v
        raise ValueError(f"a scope is one of {', '.join(SCOPES)} (or its value)")

    def to_apis(v):
        items = v if isinstance(v, list) else [v]
        out = []
        for a in items:
            if not isinstance(a, str) or a.upper() not in ("NV", "KHR"):
                raise ValueError("api is NV, KHR or a list of them")
            out.append(a.upper())
        return tuple(out)

    Dim = Annotated[StrictInt, Field(ge=1, le=MAX_DIMENSION)]
    Component = Annotated[str, BeforeValidator(to_component)]

    class ComboModel(BaseModel):
        model_config = ConfigDict(extra="forbid")
        api: Annotated[tuple[str, ...], BeforeValidator(to_apis)] = ("NV", "KHR")
        M: Dim
        N: Dim
        K: Dim
        A: Component
        B: Component
        C: Component
        Result: Component | None = None
        scope: Annotated[int, BeforeValidator(to_scope)] = SCOPES["Subgroup"]
        saturating: StrictBool | None = None

    class FlexibleModel(BaseModel):
        model_config = ConfigDict(extra="forbid")
        MGranularity: Dim
        NGranularity: Dim
        KGranularity: Dim
        A: Component
        B: Component
        C: Component
        Result: Component | None = None
        scope: Annotated[int, BeforeValidator(to_scope)] = SCOPES["Subgroup"]
        saturating: StrictBool | None = None
        workgroupInvocations: Annotated[StrictInt, Field(ge=0, le=MAX_DIMENSION)] = 0

    class ProfileModel(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: StrictStr | StrictInt | None = None
        description: StrictStr = ""
        combinations: Annotated[list[ComboModel], Field(max_length=MAX_COMBINATIONS)]
        flexible: Annotated[list[FlexibleModel], Field(max_length=MAX_COMBINATIONS)] = []
        flexibleDimensionsMaxDimension: Dim = MAX_DIMENSION

    _PROFILE_SCHEMA = TypeAdapter(ProfileModel)
    return _PROFILE_SCHEMA


_PROFILE_SCHEMA = None


def _type_fits(ctx: Context, cm: CoopMat, c: Combo) -> bool:
    if cm.flavour not in c.apis or cm.scope is None or cm.scope.value != c.scope:
        return False
    if cm.rows is None or cm.cols is None:  # check_profile passes only matrices of known shape
        return False
    comp = ctx.ix.component_name(cm.component)
    r, k = cm.rows.value, cm.cols.value
    roles = {0: [(c.M, c.K, c.A)], 1: [(c.K, c.N, c.B)], 2: [(c.M, c.N, c.C), (c.M, c.N, c.Result)]}
    if cm.flavour == "KHR" and cm.use is not None:
        cands = roles.get(cm.use.value, [])
    else:
        cands = [x for v in roles.values() for x in v]
    return any((r, k, comp) == x for x in cands)


def workgroup_sizes(ctx: Context) -> set[int | None]:
    """The number of invocations of each entry point's workgroup (None where it is not a known constant)."""
    ix = ctx.ix
    sizes: set[int | None] = set()
    modes = ix.grammar.operand_kinds["ExecutionMode"].by_value
    for ep in ix.entry_points:
        size = None
        for m in ix.exec_modes.get(ep.operands[1].as_int, []):
            e = modes.get(m.operands[1].as_int) if len(m.operands) > 1 else None
            if e is None or e.name not in ("LocalSize", "LocalSizeId") or len(m.operands) < 5:
                continue
            dims = [o.as_int for o in m.operands[2:5]] if e.name == "LocalSize" else \
                [v.value if (v := ix.int_value(o.as_int)) is not None else None for o in m.operands[2:5]]
            known = cast("list[int]", dims)  # multiplied only when no entry is None
            size = None if None in dims else known[0] * known[1] * known[2]
        sizes.add(size)
    return sizes


def _flexible_fits(ctx: Context, profile: Profile, dims: tuple[int | None, int | None, int | None], types: tuple,
                   f: Flexible, scope: int, wg_sizes: set[int | None]) -> bool:
    """Whether M x N x K (None: not constrained) with these component types (None: any) fits `f`."""
    if f.scope != scope or any(t is not None and t != ft
                               for t, ft in zip(types, (f.A, f.B, f.C, f.Result), strict=False)):
        return False
    for d, g in zip(dims, (f.M, f.N, f.K), strict=False):
        if d is not None and (d % g or d > profile.max_dimension):
            return False
    return not (f.invocations and any(s is not None and s != f.invocations for s in wg_sizes))


def _type_fits_flexible(ctx: Context, profile: Profile, cm: CoopMat, wg_sizes: set[int | None]) -> bool:
    if cm.flavour != "KHR" or cm.use is None:
        return False
    if cm.rows is None or cm.cols is None or cm.scope is None:  # check_profile passes only matrices of known shape
        return False
    comp = ctx.ix.component_name(cm.component)
    r, c = cm.rows.value, cm.cols.value
    use = cm.use.value
    for f in profile.flexible:
        if use == 0:
            ok = _flexible_fits(ctx, profile, (r, None, c), (comp, None, None, None), f, cm.scope.value, wg_sizes)
        elif use == 1:
            ok = _flexible_fits(ctx, profile, (None, c, r), (None, comp, None, None), f, cm.scope.value, wg_sizes)
        else:
            ok = any(_flexible_fits(ctx, profile, (r, c, None), t, f, cm.scope.value, wg_sizes)
                     for t in ((None, None, comp, None), (None, None, None, comp)))
        if ok:
            return True
    return False


def check_profile(ctx: Context, profile: Profile) -> None:
    ix = ctx.ix
    # Flexible dimensions and Workgroup scope are VK_NV_cooperative_matrix2 features: a module is taken to
    # enable them when it declares SPV_NV_cooperative_matrix2 (a plain KHR module must fit a fixed combination)
    if "SPV_NV_cooperative_matrix2" not in ix.extensions:
        profile = Profile(profile.name, profile.combos, profile.description)
    wg_sizes = workgroup_sizes(ctx) if profile.flexible else set()
    for inst in ix.module.instructions:
        if inst.opname.startswith("OpTypeCooperativeMatrix"):
            cm = ix.coopmat(inst.result_id)
            if cm is None or cm.rows is None or cm.cols is None or cm.scope is None:
                continue
            if not any(_type_fits(ctx, cm, c) for c in profile.combos) \
                    and not _type_fits_flexible(ctx, profile, cm, wg_sizes):
                ctx.report(inst, None, f"{profile.name} does not support cooperative matrix type "
                           f"{ix.name(cm.id)} = {ix.type_text(cm.id)}, scope {ix.scope_name(cm.scope)}",
                           [Note("supported: "
                                 + _summary(profile, cm.flavour, cm.scope.value, ctx.ix.component_name(cm.component)))]
                           + _vuid_note(cm.flavour, "type", bool(profile.flexible))
                           + ([Note(f"the workgroup has {', '.join(sorted(str(x) for x in wg_sizes))} invocations")]
                              if profile.flexible and cm.scope.value == SCOPES["Workgroup"] and wg_sizes else []),
                           rule_id="profile.type",
                           spec_dependent=cm.rows.spec or cm.cols.spec)
        elif inst.opname.startswith("OpCooperativeMatrixMulAdd"):
            _check_muladd(ctx, profile, inst, wg_sizes)


def _check_muladd(ctx: Context, profile: Profile, inst, wg_sizes: set[int | None]) -> None:
    ix = ctx.ix
    a, b, c = (ix.coopmat_of(o.value) for o in inst.operands[:3])
    r = ix.coopmat(inst.result_type)
    if None in (a, b, c, r):
        return
    if any(v is None for v in (a.rows, a.cols, b.cols, a.scope)):  # type: ignore[union-attr]
        return
    M, K, N = a.rows.value, a.cols.value, b.cols.value  # type: ignore[union-attr]
    comps = tuple(ctx.ix.component_name(m.component) for m in (a, b, c, r))  # type: ignore[union-attr]
    mask = next((o.value for o in inst.operands[3:] if o.kind == "CooperativeMatrixOperands"), 0)
    sat = bool(mask & 16)
    flavour = a.flavour  # type: ignore[union-attr]
    for cb in profile.combos:
        if flavour in cb.apis and (cb.M, cb.N, cb.K) == (M, N, K) and (cb.A, cb.B, cb.C, cb.Result) == comps \
                and cb.scope == a.scope.value and (cb.saturating is None or cb.saturating == sat):  # type: ignore[union-attr]
            return
    if flavour == "KHR" and any(_flexible_fits(ctx, profile, (M, N, K), comps, f, a.scope.value, wg_sizes)  # type: ignore[union-attr]
                                and (f.saturating is None or f.saturating == sat) for f in profile.flexible):
        return
    same_types = [cb.text() for cb in profile.combos if flavour in cb.apis and comps[:2] == (cb.A, cb.B)]
    ctx.report(inst, None, f"{profile.name} does not support MulAdd {M}x{N}x{K} "
               f"{comps[0]}*{comps[1]}+{comps[2]}->{comps[3]} (scope {ix.scope_name(a.scope)}"  # type: ignore[union-attr]
               f"{', saturating' if sat else ''})",
               [describe(ctx, a, "A"), describe(ctx, b, "B"), describe(ctx, c, "C"),  # type: ignore[arg-type]
                Note("supported with these A/B types: " + (", ".join(same_types) or "none"))]
               + _vuid_note(flavour, "muladd", bool(profile.flexible)),
               rule_id="profile.muladd")


# What the Vulkan validation layers report at pipeline creation for the same mismatch (KHR types and MulAdds;
# Vulkan-ValidationLayers, layers/core_checks/cc_spirv.cpp): without and with flexible dimensions enabled.
VUIDS = {"type": ("VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163",
                  "VUID-RuntimeSpirv-cooperativeMatrixFlexibleDimensions-10165"),
         "muladd": ("VUID-RuntimeSpirv-OpCooperativeMatrixMulAddKHR-10060",
                    "VUID-RuntimeSpirv-cooperativeMatrixFlexibleDimensions-10166")}


def _vuid_note(flavour: str, what: str, flexible: bool) -> list:
    if flavour != "KHR":
        return []
    return [Note(f"the validation layers report it at pipeline creation as {VUIDS[what][flexible]}")]


def _summary(profile: Profile, flavour: str, scope: int | None = None, component: str | None = None) -> str:
    """The fixed combinations of the flavour; the flexible ones of this scope that use this component type."""
    fixed = [cb.text() for cb in profile.combos if flavour in cb.apis]
    flexible = [f"{f.text()} ({_SCOPE_NAMES.get(f.scope, f.scope)})" for f in profile.flexible
                if flavour == "KHR" and (scope is None or f.scope == scope)
                and (component is None or component in (f.A, f.B, f.C, f.Result))]
    return ", ".join(fixed) + (f"; flexible (multiples, at most {profile.max_dimension}): " + ", ".join(flexible)
                               if flexible else "")


_SCOPE_NAMES = {v: k for k, v in SCOPES.items()}


def muladd_configurations(module, spec_constants: dict[int, int] | None = None) -> set[tuple]:
    """The MulAdd configurations a module uses: (api, M, N, K, A, B, C, Result, scope, saturating), for MulAdds
    whose shapes are known (spec-constant sizes at their default or given values)."""
    from .index import ModuleIndex
    ix = ModuleIndex(module, "universal", spec_constants)
    out = set()
    for inst in module.instructions:
        if not inst.opname.startswith("OpCooperativeMatrixMulAdd"):
            continue
        a, b, c = (ix.coopmat_of(o.value) for o in inst.operands[:3])
        r = ix.coopmat(inst.result_type)
        if a is None or b is None or c is None or r is None or None in (a.rows, a.cols, b.cols, a.scope):
            continue
        comps = tuple(ix.component_name(m.component) for m in (a, b, c, r))
        mask = next((o.value for o in inst.operands[3:] if o.kind == "CooperativeMatrixOperands"), 0)
        out.add((a.flavour, a.rows.value, b.cols.value, a.cols.value, *comps,  # type: ignore[union-attr]
                 a.scope.value, bool(mask & 16)))  # type: ignore[union-attr]
    return out


def unused_combinations(profile: Profile, used: set[tuple]) -> list[Combo]:
    """The profile's fixed combinations that no configuration in `used` (muladd_configurations of a shader
    set) matches: what the device offers and the kernels never ask for."""
    def matches(cb: Combo, u: tuple) -> bool:
        api, M, N, K, A, B, C, R, scope, sat = u
        return (api in cb.apis and (cb.M, cb.N, cb.K, cb.A, cb.B, cb.C, cb.Result, cb.scope) ==
                (M, N, K, A, B, C, R, scope) and (cb.saturating is None or cb.saturating == sat))
    return [cb for cb in profile.combos if not any(matches(cb, u) for u in used)]

"""Portability check: run one shader under every layout model, at the subgroup sizes each model's vendor
uses, and compare the outputs with the reference (nvidia at subgroup size 32, else the first that ran).

A shader that only moves matrices through Load/Store/MulAdd/element-wise ops gives the same buffers under
every layout; one that indexes elements assuming a layout (or writes what each invocation holds), that
assumes a subgroup size, or that makes the replicated copies of an element disagree does not. For each
model that differs the report says why: the lanes hold another *set* of elements (replication, packing,
another Length or subgroup size), the *same elements in another order*, or the same layouts and yet other
values (the subgroup size itself changed what the shader computes). It ends with one verdict line.

Subgroup sizes: with one given (`subgroup_size=`), every model runs at it; else each model runs at every
size it defines (RADV 32 and 64, ANV/IGC 8 and 16, lavapipe 4/8/16, ...), open-ended models at 8, 16, 32 and
64. A size larger than the workgroup runs as a partial subgroup (the run warns). `random` runs with several
seeds. Named (spec) constants such as WARP = 32 that disagree with the size a run uses are listed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..core.diagnostics import SpvError
from ..core.facts import ModuleFacts
from ..interp.runner import run

RANDOM_SEEDS = (1, 2, 3)
OPEN_SIZES = (8, 16, 32, 64)        # sizes for models that define any subgroup size
REFERENCE = ("nvidia", 32)
SIZE_NAME = re.compile(r"warp|wave|subgroup|simd|lanes", re.IGNORECASE)
SIZE_VALUES = (4, 8, 16, 32, 64, 128)


@dataclass
class ModelOutcome:
    name: str                         # label: model, seed and size ("radv-gfx11 S=64")
    status: str                       # "ran", "skipped", "error", "races" (data races under this model)
    message: str = ""
    outputs: dict = field(default_factory=dict)
    differs: dict = field(default_factory=dict)   # buffer -> (count, total, first index, ours, reference)
    diagnostics: list = field(default_factory=list)   # the run's warnings and notes (RunResult.diagnostics)
    subgroup_size: int = 32
    layouts: dict = field(default_factory=dict)   # (component, rows, cols, use) -> Layout the run used
    cause: str = ""                   # why it differs or fails: "elements", "order", "size", "replica", "fault"
    why: str = ""                     # the cause in words
    partial: bool = False             # the workgroup is not a whole number of subgroups of this size
    workgroup_size: tuple = (1, 1, 1)


class _Recording:
    """A layout model that remembers every layout a run asks for (the types the shader uses)."""

    def __init__(self, model, seen: dict):
        self._model = model
        self._seen = seen

    def layout(self, component, rows, cols, use=None, subgroup_size=None):
        lay = self._model.layout(component, rows, cols, use, subgroup_size)
        self._seen[(component, rows, cols, lay.use)] = lay
        return lay

    def __getattr__(self, name):
        return getattr(self._model, name)


def model_sizes(model) -> tuple[int, ...]:
    """The subgroup sizes a model's vendor runs (`subgroup_sizes` in its file), else the subgroup sizes its
    entries define up to 128 (larger ones are Workgroup scopes), OPEN_SIZES for open-ended ones."""
    if getattr(model, "vendor_sizes", None):
        return tuple(model.vendor_sizes)
    sizes: set[int] = set()
    for e in model.entries:
        if e.sizes.values is None:
            return OPEN_SIZES
        sizes.update(v for v in e.sizes.values if v <= 128)
    return tuple(sorted(sizes)) or OPEN_SIZES


def candidate_models(seeds=RANDOM_SEEDS) -> list[tuple[str, object]]:
    """(label, model) for every built-in model but `shuffled` (grown into `random`, run once per seed);
    nvidia first (the reference)."""
    from ..layouts import builtin_models, load_model
    names = sorted((n for n in builtin_models() if n != "shuffled"), key=lambda n: (n != "nvidia", n))
    out: list[tuple[str, object]] = []
    for n in names:
        if n == "random":
            out += [(f"random:{s}", load_model(n, seed=s)) for s in seeds]
        else:
            out.append((n, load_model(n)))
    return out


def size_constants(module, spec_constants: dict | None = None) -> list[tuple[str, int, bool]]:
    """(name, value, is a spec constant) of the named integer constants whose name says they hold a subgroup
    size (WARP, SUBGROUP_SIZE, wave_size...) and whose value is one (4..128); spec constants as overridden."""
    facts = ModuleFacts.of(module)   # names and SpecIds as the validator and the interpreter read them
    names, spec_ids = facts.names, facts.spec_ids
    overrides = spec_constants or {}
    out = []
    for inst in facts.defs.values():   # in module order
        if inst.opname not in ("OpConstant", "OpSpecConstant") or inst.result_id not in names:
            continue
        name = names[inst.result_id]
        if not SIZE_NAME.search(name) or not inst.operands or not isinstance(inst.operands[-1].value, int):
            continue
        value = inst.operands[-1].value
        spec = inst.opname == "OpSpecConstant"
        if spec:
            for key in (name, spec_ids.get(inst.result_id), str(spec_ids.get(inst.result_id))):
                if key is not None and key in overrides:
                    value = int(np.asarray(overrides[key]).reshape(-1)[0])
        if value in SIZE_VALUES:
            out.append((name, value, spec))
    return out


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def _outputs(res, wanted) -> dict:
    keys = wanted or [k for k in res.bindings if not isinstance(k, str) or k not in ("push_constants",)]
    out = {}
    for k in keys:
        try:
            out[str(k)] = np.asarray(res[k])
        except KeyError:
            continue
    return out


PARTIAL_RULE = "interp.coopmat.partial-subgroup"
LIMIT_RULES = ("interp.max-steps", "interp.max-time", "interp.max-work", "interp.max-memory")


def _runs(models, subgroup_size: int | None) -> list[tuple[str, object, int]]:
    """(label, model, size) for every run: the reference first."""
    runs = []
    for label, model in models:
        sizes = (subgroup_size,) if subgroup_size else model_sizes(model)
        for S in sizes:
            runs.append((label if len(sizes) == 1 else f"{label} S={S}", model, S))
    name, size = REFERENCE
    ref = [r for r in runs if getattr(r[1], "name", None) == name and (subgroup_size or r[2] == size)][:1]
    return ref + [r for r in runs if r not in ref]


# the run options the check sets for each run itself: the layout model and the subgroup size it varies
PER_RUN = ("layout", "subgroup_size")


def run_options(options: dict) -> tuple[dict, int | None]:
    """A run's options (interp.run keywords) as the check takes them: (the options every model's run gets, the
    subgroup size every model runs at, None: the sizes each model's vendor uses). A layout given is dropped: the
    check runs every model. The one place that splits them (check() and the CLI's `--layout all` call it)."""
    return {k: v for k, v in options.items() if k not in PER_RUN}, options.get("subgroup_size")


def check(module, run_kwargs: dict, wanted=None, models=None, on_model=None, on_result=None,
          subgroup_size: int | None = None) -> list[ModelOutcome]:
    """Run under each model (at `subgroup_size`, else at run_kwargs' own, else at the sizes each model defines);
    the first run is the reference the others are compared with. `on_model(k, n, label)` is called before the
    k-th of n runs, `on_result(label, result)` with the RunResult of each run that ran (the CLI's `-o`)."""
    outcomes: list[ModelOutcome] = []
    ref: ModelOutcome | None = None
    run_kwargs, given_size = run_options(run_kwargs)
    subgroup_size = subgroup_size or given_size
    runs = _runs(list(models or candidate_models()), subgroup_size)
    # one work and one time budget for the whole check, shared among the runs
    from ..interp.options import DEFAULT_MAX_TIME, DEFAULT_MAX_WORK
    run_kwargs = dict(run_kwargs, max_work=max(1, (run_kwargs.get("max_work") or DEFAULT_MAX_WORK) // len(runs)),
                      max_time=(run_kwargs.get("max_time") or DEFAULT_MAX_TIME) / len(runs))
    for k, (label, model, S) in enumerate(runs, 1):
        if on_model is not None:
            on_model(k, len(runs), label)
        seen: dict = {}
        try:
            res = run(module, layout=_Recording(model, seen), subgroup_size=S, **run_kwargs)
        except SpvError as e:
            if e.diagnostics and e.diagnostics[0].rule in LIMIT_RULES:
                raise  # every other model would hit it too
            races = [d for d in e.diagnostics if d.rule == "interp.race"]
            if races:   # matrix loads and stores touch the elements this model gives each lane (issue 37)
                o = ModelOutcome(label, "races", _race_line(races), diagnostics=list(e.diagnostics),
                                 subgroup_size=S, layouts=seen)
                o.cause, o.why = "races", "data races under this model's layouts"
                outcomes.append(o)
                continue
            msg = e.diagnostics[0].message
            undefined = "does not define" in msg or "has no default subgroup size" in msg
            msg = msg.split(". It defines")[0]
            msg = msg.split(": ", 1)[1] if msg.startswith("Op") and ": " in msg else msg
            o = ModelOutcome(label, "skipped" if undefined else "error", msg, subgroup_size=S, layouts=seen)
            if not undefined:
                o.cause = "replica" if "replicated copies" in msg else "fault"
                o.why = ("a shader that makes the replicated copies of an element disagree" if o.cause == "replica"
                         else "the run fails")
            outcomes.append(o)
            continue
        if on_result is not None:
            on_result(label, res)
        o = ModelOutcome(label, "ran", outputs=_outputs(res, wanted), diagnostics=res.diagnostics,
                         subgroup_size=S, layouts=seen, workgroup_size=tuple(res.workgroup_size))
        if ref is None:
            ref = o
        else:
            for name, a in o.outputs.items():
                b = ref.outputs.get(name)
                if b is None or a.shape != b.shape:
                    continue
                same = _same(a, b)
                if not same.all():
                    bad = np.argwhere(~same)
                    i = tuple(int(x) for x in bad[0])
                    o.differs[name] = (int((~same).sum()), int(same.size), i, a[i].item(), b[i].item())
            if o.differs:
                o.cause, o.why = classify(ref, o)
        outcomes.append(o)
    # a size that does not divide the workgroup leaves a partial subgroup: drivers require full subgroups for
    # cooperative matrices, so what such a run computes is the interpreter's convention, not a finding
    wg = int(np.prod(ref.workgroup_size)) if ref is not None else 0
    for o in outcomes:
        o.partial = bool(wg) and wg % o.subgroup_size != 0
        if o.partial:   # the report lists these runs; their warning would repeat it
            o.diagnostics = [d for d in o.diagnostics if d.rule != PARTIAL_RULE]
    return outcomes


def _race_line(races: list) -> str:
    """A model's races in one line: how many, the first with its invocations, both source lines."""
    d = races[0]
    first = d.message.split(", with nothing ordering them")[0].replace("data race on ", "", 1)
    first = re.sub(r" \(global \([^)]*\), workgroup \([^)]*\), local \([^)]*\)\)", "", first)   # ids: in the report
    other = next((n.message.split("(from ")[-1].split(":")[1] for n in d.notes
                  if n.message.startswith("the other access") and "(from " in n.message), None)
    where = f" (lines {other} and {d.span.line})" if other and d.span is not None else ""
    return f"{len(races)} data race{'s' if len(races) > 1 else ''}: {first}{where}"


def classify(ref: ModelOutcome, o: ModelOutcome) -> tuple[str, str]:
    """Why `o`'s outputs differ from the reference's: ("elements" | "order" | "size", words). A run at another
    subgroup size differs because of the size (the shader's own arithmetic on it, its tiling), whatever its
    layouts; at the reference's size, because of the layouts' element sets or only their order."""
    if o.subgroup_size != ref.subgroup_size:
        return "size", f"subgroup size {o.subgroup_size} (reference {ref.subgroup_size}) changes the outputs"
    elements, order = [], []
    for key, lay in o.layouts.items():
        base = ref.layouts.get(key)
        what = f"{key[0]} {key[1]}x{key[2]} {key[3] or 'NV'}"
        if base is None:
            continue
        if lay.same_as(base):
            continue
        if lay.subgroup_size == base.subgroup_size and lay.length == base.length and \
                [sorted(x) for x in lay.lanes()] == [sorted(x) for x in base.lanes()]:
            order.append(what)
            continue
        detail = []
        if lay.length != base.length:
            detail.append(f"Length {lay.length}, not {base.length}")
        if lay.replicated and not base.replicated:
            detail.append(f"replicated ({int(lay.copies.max())} copies of an element)")
        if int(lay.padding.sum()) != int(base.padding.sum()):
            detail.append(f"{int(lay.padding.sum())} padding slots")
        elements.append(what + (f" ({', '.join(detail)})" if detail else ""))
    if elements:
        return "elements", "the lanes hold other sets of elements: " + "; ".join(elements)
    if order:
        return "order", "the lanes hold the same elements in another order: " + "; ".join(order)
    return "size", "the same layouts, yet other values (the shader depends on something else of the run)"


def _some(names: list[str], n: int = 4) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def _gist(message: str) -> str:
    """The kind of a run's error, without the invocation and offset details that differ between runs."""
    text = re.sub(r"\s*\([^)]*\)", "", message)
    return re.split(r": | at byte| by the", text, maxsplit=1)[0].strip()[:80]


def report(outcomes: list[ModelOutcome], subgroup_size: int | None, constants=(), kernel: str = "") -> \
        tuple[list[str], int]:
    """Text lines and exit status (0 portable, 1 not portable, 2 nothing ran); the last line is the verdict."""
    ran = [o for o in outcomes if o.status == "ran"]
    sizes = sorted({o.subgroup_size for o in outcomes if o.status != "skipped"})
    at = f"subgroup size {subgroup_size}" if subgroup_size else \
        "subgroup sizes " + ", ".join(map(str, sizes or [32]))
    lines = [f"layout portability at {at} ({len(ran)} run(s), reference: {ran[0].name if ran else 'none'}):"]
    width = max((len(o.name) for o in outcomes), default=8)
    for o in outcomes:
        if o.status != "ran":
            lines.append(f"  {o.name:<{width}}  {o.status}: {o.message}")
        elif o is ran[0]:
            lines.append(f"  {o.name:<{width}}  reference")
        elif not o.differs:
            lines.append(f"  {o.name:<{width}}  same")
        else:
            parts = [f"'{k}' differs in {n} of {tot} elements (first at {list(i)}: {x!r} vs {y!r})"
                     for k, (n, tot, i, x, y) in o.differs.items()]
            lines.append(f"  {o.name:<{width}}  " + "; ".join(parts))
            lines.append(f"  {'':<{width}}    why: {o.why}")
    for name, value, spec in constants:
        other = sorted({o.subgroup_size for o in outcomes if o.status != "skipped" and o.subgroup_size != value})
        if other:
            lines.append(f"  {'spec constant' if spec else 'constant'} {name} = {value} assumes a subgroup size of "
                         f"{value}; runs at {', '.join(map(str, other))} disagree with it")
    what = f"{kernel}: " if kernel else ""
    if not ran:
        lines.append(f"verdict: {what}no layout model could run the shader")
        return lines, 2
    partial = [o for o in outcomes if o.cause and o.partial]
    if partial:
        wg = int(np.prod(ran[0].workgroup_size))
        lines.append(f"  partial subgroups (a workgroup of {wg} invocations at subgroup size "
                     f"{', '.join(map(str, sorted({o.subgroup_size for o in partial})))}): {len(partial)} run(s) "
                     "differ or fail; not counted, drivers require full subgroups for cooperative matrices")
    bad = [o for o in outcomes if o.cause and not o.partial]
    if not bad:
        lines.append(f"verdict: {what}portable: all outputs identical under {len(ran)} run(s) "
                     f"({len({o.name.split(' S=')[0] for o in ran})} model(s), subgroup sizes "
                     f"{', '.join(map(str, sorted({o.subgroup_size for o in ran})))})")
        return lines, 0
    reasons = []
    for cause, words in (("elements", "the set of elements each lane holds differs"),
                         ("order", "only the element order differs"),
                         ("replica", "replicated copies of an element disagree"),
                         ("size", "the subgroup size changes the values")):
        hit = [o.name for o in bad if o.cause == cause]
        if hit:
            reasons.append(f"{words} under {_some(hit)}")
    faults: dict[str, list[str]] = {}
    for o in bad:
        if o.cause == "fault":
            faults.setdefault(_gist(o.message), []).append(o.name)
    reasons += [f"the run fails under {_some(names)} ({gist})" for gist, names in faults.items()]
    racy = [o.name for o in bad if o.cause == "races"]
    if racy:   # matrix staging that races under some layouts only (issue 37)
        clean = [o.name for o in ran if not o.partial]   # partial subgroups: not counted either way
        reasons.append(f"data races under {_some(racy)}" + (f", not under {_some(clean)}" if clean else
                                                           " (every run)"))
    bufs = sorted({k for o in bad for k in o.differs})
    outs = f"output(s) {', '.join(repr(b) for b in bufs)}: " if bufs else ""
    lines.append(f"verdict: {what}NOT PORTABLE: {outs}{'; '.join(reasons)}")
    return lines, 1

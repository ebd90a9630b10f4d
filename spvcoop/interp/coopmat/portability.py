"""Portability check: run one shader under every layout model that defines its matrix types and compare outputs.

A shader that only moves matrices through Load/Store/MulAdd/element-wise ops
gives the same buffers under every layout; one that indexes elements assuming a
layout (or writes what each invocation holds) does not. The subgroup size stays
fixed (the spec's, or 32) so that only the layout varies; models that do not
define the shader's types at that size are listed as skipped. `shuffled` runs
with several seeds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.diagnostics import SpvError
from ..runner import run

SHUFFLE_SEEDS = (1, 2, 3)


@dataclass
class ModelOutcome:
    name: str
    status: str                       # "ran", "skipped", "error"
    message: str = ""
    outputs: dict = field(default_factory=dict)
    differs: dict = field(default_factory=dict)   # buffer -> (count, total, first index, ours, reference)
    diagnostics: list = field(default_factory=list)   # the run's warnings and notes (RunResult.diagnostics)


def candidate_models(seeds=SHUFFLE_SEEDS) -> list[tuple[str, object]]:
    """(label, model) for every built-in model, `shuffled` once per seed; nvidia first (the reference)."""
    from ...layouts import builtin_models, load_model
    names = sorted(builtin_models(), key=lambda n: (n != "nvidia", n))
    out: list[tuple[str, object]] = []
    for n in names:
        if n == "shuffled":
            out += [(f"shuffled(seed={s})", load_model(n, seed=s)) for s in seeds]
        else:
            out.append((n, load_model(n)))
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


LIMIT_RULES = ("interp.max-steps", "interp.max-time", "interp.max-work", "interp.max-memory")


def check(module, run_kwargs: dict, wanted=None, models=None, on_model=None, on_result=None) -> list[ModelOutcome]:
    """Run under each model; the first model that runs is the reference the others are compared with.
    `on_model(k, n, label)` is called before the k-th of n models runs (the CLI's progress line),
    `on_result(label, result)` with the RunResult of each model that ran (the CLI's `-o`)."""
    outcomes: list[ModelOutcome] = []
    ref: ModelOutcome | None = None
    models = list(models or candidate_models())
    # one work and one time budget for the whole check, shared among the models
    from ..options import DEFAULT_MAX_TIME, DEFAULT_MAX_WORK
    run_kwargs = dict(run_kwargs, max_work=max(1, (run_kwargs.get("max_work") or DEFAULT_MAX_WORK) // len(models)),
                      max_time=(run_kwargs.get("max_time") or DEFAULT_MAX_TIME) / len(models))
    for k, (label, model) in enumerate(models, 1):
        if on_model is not None:
            on_model(k, len(models), label)
        try:
            res = run(module, layout=model, **run_kwargs)
        except SpvError as e:
            if e.diagnostics and e.diagnostics[0].rule in LIMIT_RULES:
                raise  # every other model would hit it too
            msg = e.diagnostics[0].message
            undefined = "does not define" in msg or "has no default subgroup size" in msg
            msg = msg.split(". It defines")[0]
            msg = msg.split(": ", 1)[1] if msg.startswith("Op") and ": " in msg else msg
            outcomes.append(ModelOutcome(label, "skipped" if undefined else "error", msg))
            continue
        if on_result is not None:
            on_result(label, res)
        o = ModelOutcome(label, "ran", outputs=_outputs(res, wanted), diagnostics=res.diagnostics)
        if ref is None:
            ref = o
        else:
            for k, a in o.outputs.items():
                b = ref.outputs.get(k)
                if b is None or a.shape != b.shape:
                    continue
                same = _same(a, b)
                if not same.all():
                    bad = np.argwhere(~same)
                    i = tuple(int(x) for x in bad[0])
                    o.differs[k] = (int((~same).sum()), int(same.size), i, a[i].item(), b[i].item())
        outcomes.append(o)
    return outcomes


def report(outcomes: list[ModelOutcome], subgroup_size: int) -> tuple[list[str], int]:
    """Text lines and exit status (0 portable, 1 outputs differ, 2 nothing ran)."""
    ran = [o for o in outcomes if o.status == "ran"]
    lines = [f"layout portability at subgroup size {subgroup_size} "
             f"({len(ran)} model(s) ran, reference: {ran[0].name if ran else 'none'}):"]
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
    if not ran:
        lines.append("result: no layout model could run the shader")
        return lines, 2
    diff_models = [o for o in ran if o.differs]
    if diff_models:
        bufs = sorted({k for o in diff_models for k in o.differs})
        lines.append(f"result: NOT PORTABLE: output(s) {', '.join(repr(b) for b in bufs)} depend on the layout "
                     f"(differ under {len(diff_models)} of {len(ran) - 1} other model(s))")
        return lines, 1
    lines.append(f"result: portable: all outputs are identical under {len(ran)} layouts")
    return lines, 0

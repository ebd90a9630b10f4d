"""Fitting the MulAdd family (model.py) to measured tiles, and the files that hold the result.

A measurement is a list of `Sample`s: one type combination and distribution, with A, B, C and the device's D.
`fit` searches the family's discrete parameters for the model that reproduces the most elements bit for bit:
first jointly over (align, bits, drop, final), then one parameter at a time until nothing improves; NaN bit
patterns are read off the data. Parameters no sample can tell apart (e.g. exact products for 16-bit inputs)
keep their defaults and are listed as not identified. `agreement` scores a model per combination and
distribution; integer combinations are scored against exact products and sums wrapped to the result width.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .model import (ALIGN, DROP, F16_RESULT, FINAL, OVERFLOW, SUBNORMAL, ZERO_SIGN, MulAddModel,
                    improve_one_at_a_time, muladd)

FLOATS = ("f16", "bf16", "f32")
SEARCH = {"subnormal_inputs": SUBNORMAL, "f16_result": F16_RESULT, "overflow": OVERFLOW, "zero_sign": ZERO_SIGN,
          "block": (8, 16, 32), "exact_products": (True, False)}
BITS = tuple(range(20, 31))


@dataclass
class Sample:
    a: str
    b: str
    c: str
    M: int
    N: int
    K: int
    dist: str
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray

    @property
    def combo(self) -> str:
        return f"{self.a}x{self.b}+{self.c} {self.M}x{self.N}x{self.K}"

    @property
    def is_float(self) -> bool:
        return self.a in FLOATS


@dataclass
class Fit:
    model: MulAddModel
    agreement: dict = field(default_factory=dict)     # combo -> dist -> [equal, total]
    unidentified: list = field(default_factory=list)

    def total(self) -> tuple[int, int]:
        eq = sum(v[0] for d in self.agreement.values() for v in d.values())
        n = sum(v[1] for d in self.agreement.values() for v in d.values())
        return eq, n


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


def predict(model: MulAddModel, s: Sample) -> np.ndarray:
    if not s.is_float:
        return integer_muladd(s)
    with np.errstate(all="ignore"):
        return muladd(model, s.A, s.B, s.C, s.D.dtype, s.a, s.b)


def integer_muladd(s: Sample) -> np.ndarray:
    """Exact integer products and sums, wrapped to the result width (what the H100 does)."""
    D = np.matmul(s.A.astype(np.int64), s.B.astype(np.int64)) + s.C.astype(np.int64)
    w = s.D.dtype.itemsize
    return D.astype(f"u{w}").view(s.D.dtype)


def equal(model: MulAddModel, s: Sample) -> int:
    return int((_bits(predict(model, s)) == _bits(s.D)).sum())


def agreement(model: MulAddModel, samples: list[Sample]) -> dict:
    out: dict = {}
    for s in samples:
        v = out.setdefault(s.combo, {}).setdefault(s.dist, [0, 0])
        v[0] += equal(model, s)
        v[1] += s.D.size
    return out


def _score(model: MulAddModel, samples: list[Sample]) -> int:
    return sum(equal(model, s) for s in samples if s.is_float)


def _nan_bits(samples: list[Sample], width: int) -> int | None:
    found = [_bits(s.D)[np.isnan(s.D)] for s in samples if s.D.dtype.itemsize == width and s.D.dtype.kind == "f"]
    pats = np.concatenate(found) if found else np.zeros(0)
    if not pats.size:
        return None
    vals, counts = np.unique(pats, return_counts=True)
    return int(vals[np.argmax(counts)])


def fit(samples: list[Sample], start: MulAddModel | None = None, name: str = "fitted") -> Fit:
    floats = [s for s in samples if s.is_float]
    model = (start or MulAddModel()).with_(name=name, nan_f32=_nan_bits(floats, 4), nan_f16=_nan_bits(floats, 2))
    if floats:
        candidates = [model.with_(align="none", final=f) for f in FINAL]
        candidates += [model.with_(align="max", bits=b, drop=d, final=f) for b in BITS for d in DROP for f in FINAL]
        scores = [_score(m, floats) for m in candidates]
        model = candidates[int(np.argmax(scores))]
        known = dict(zip(candidates, scores, strict=True))   # models are frozen: a model's score is computed once

        def score(_name: str, m: MulAddModel) -> int:
            if m not in known:
                known[m] = _score(m, floats)
            return known[m]
        model = improve_one_at_a_time(model, SEARCH, score, 3)
    unidentified = []
    rest: list[tuple[str, tuple[str | int, ...]]] = [("bits", BITS), ("drop", DROP), ("final", FINAL), ("align", ALIGN)]
    for name_, values in list(SEARCH.items()) + rest:
        base = _score(model, floats)
        if all(_score(model.with_(**{name_: v}), floats) == base for v in values if v != getattr(model, name_)):
            unidentified.append(name_)
    return Fit(model, agreement(model, samples), unidentified)


def samples_from_tiles(data: dict, seed: int | None = None) -> list[Sample]:
    """Samples from gpu.numerics tile data {combo: {(dist, seed): (A, B, C, D)}}, of one seed or all."""
    out = []
    for (a, b, c, M, N, K), per in data.items():
        for (dist, sd), (A, B, C, D) in sorted(per.items()):
            if seed is None or sd == seed:
                out.append(Sample(a, b, c, M, N, K, dist, A, B, C, D))
    return out


# ---- files -----------------------------------------------------------------------------------------------
def to_yaml(fit_: Fit, fresh: dict | None, device: str, compiled: dict | None = None) -> str:
    """The numerics file; `compiled`: the compiled-code probes' section (numerics/compiled.py to_doc)."""
    import yaml
    m = fit_.model
    params = m.params()
    for k in ("nan_f32", "nan_f16", "pe_nan_f32", "pe_nan_f16"):
        if params[k] is not None:
            params[k] = f"0x{params[k]:x}"

    def table(agr):
        return {combo: {d: f"{v[0]}/{v[1]}" for d, v in dists.items()} for combo, dists in agr.items()}
    eq, n = fit_.total()
    doc = {"name": m.name, "device": device,
           "family": "spvcoop MulAdd numerics (docs/interpreter-coopmat.md, spvcoop/numerics/model.py)",
           "params": params, "not_identified": fit_.unidentified,
           "agreement_fit": {"total": f"{eq}/{n}", "per_combination": table(fit_.agreement)}}
    if fresh is not None:
        feq = sum(v[0] for d in fresh.values() for v in d.values())
        fn = sum(v[1] for d in fresh.values() for v in d.values())
        doc["agreement_fresh"] = {"total": f"{feq}/{fn}", "per_combination": table(fresh)}
    if compiled is not None:
        doc["compiled"] = compiled
    return "# written by spvcoop numerics measure: the fitted MulAdd model and compiled-code rules, used with " \
        "--coop-numerics FILE\n" + \
        yaml.safe_dump(doc, sort_keys=False, width=120)


def load_model_file(path: str) -> MulAddModel:
    """A numerics file's model; SpvError located in the file (at the offending key or value) for anything wrong.
    Parameters a file leaves out keep their defaults (files written before a parameter existed still load)."""
    from ..core.diagnostics import Diagnostic, SpvError
    from ..core.yamlio import error_at, load_file
    data = load_file(path, path, as_json=False)
    if not isinstance(data, dict) or not isinstance(data.get("params"), dict):
        raise SpvError(Diagnostic("error", "a numerics file maps 'params' to the model's parameters "
                                  "(written by spvcoop numerics measure)", source=path))
    raw = data["params"]
    key_marks, name_marks = getattr(raw, "key_marks", {}), getattr(raw, "name_marks", {})
    params = dict(raw)
    unknown = sorted(set(params) - set(MulAddModel.__dataclass_fields__) - {"name"}, key=str)
    if unknown:
        raise error_at(f"unknown parameter(s) {', '.join(map(str, unknown))} in 'params'", path,
                       name_marks.get(unknown[0], getattr(raw, "mark", None)))
    for k in ("nan_f32", "nan_f16", "pe_nan_f32", "pe_nan_f16"):
        if isinstance(params.get(k), str):
            try:
                params[k] = int(params[k], 0)
            except ValueError:
                raise error_at(f"params.{k}: {params[k]!r} is not a number", path, key_marks.get(k)) from None
    types = {"exact_products": bool, "bits": int, "block": int, "pe_flush_f32": bool, "pe_flush_f16": bool,
             "pe_factorise": bool}
    for k, t in types.items():
        if k in params and type(params[k]) is not t:
            raise error_at(f"params: {k} must be {t.__name__}, not {params[k]!r}", path, key_marks.get(k))
    try:
        return MulAddModel(name=str(data.get("name", path)), **params)
    except (TypeError, ValueError) as e:
        # the model's messages start with the parameter's name (or name two: "bits ... and block ...")
        first = str(e).split(" ", 1)[0]
        raise error_at(f"params: {e}", path, key_marks.get(first, getattr(raw, "mark", None))) from None

"""Measuring the compiled-code parameters of the numerics model (model.py: bf16_convert, the pe_* rules of
per-element functions and the code_* rules of ordinary float code): the probe kernels, their inputs, and the fit
that reads the parameters off a device's outputs.

The probes are kernels recorded on an H100 in tests/data/h100-vulkan/ext-numerics (cvt.comp, perelem.comp) and
tests/data/h100-vulkan/float-model (scalar.comp), shipped as assembly text in probes/ (probes/README.md says how
they were built) and assembled at run time:
- `cvt`: f32 -> bf16 of 256 f32 bit patterns per workgroup (NaNs, subnormals, halfway cases), as scalars
  (binding 2) and as a 16x16 matrix (binding 3): shows `bf16_convert`;
- `perelem_f32`, `perelem_f16`: 15 per-element functions of (x, s, c) on 16x16 tiles of eight kinds (binding 3;
  binding 4 holds the same functions in plain code, recorded but not fitted): shows the pe_* parameters;
- `scalar_f32`, `scalar_f16`: 36 functions of four inputs x, y, z, w (bindings 0-3) in plain scalar code
  (contraction shapes, dot, mix, division, the special functions...; binding 4) on blocks of eight kinds
  (normal, cancelling, subnormal, special, wide range...): shows the code_* parameters (flushing, NaN results,
  contraction, the special-function unit), and the pe_max_zeros / pe_factorise rules plain code shares.

A probe's data is a dict of arrays named as the recorded .npz files name them (scalar.npz's `<fmt>_in<b>` and
`<fmt>_gpu` are the scalar probes' `in<b>` and `gpu4`, flattened): `in<b>` the inputs of binding b,
`gpu<b>` what the device left in output binding b. `fit_compiled` tries, one parameter at a time until nothing
improves, every value of each parameter against the outputs (predicted by running the probe in the interpreter
through the `predict` callable the caller passes: the interpreter is a later stage than this one), keeps the one
that reproduces the most elements bit for bit (ties keep the IEEE default), and lists what no probe told apart.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from .model import (CODE_CONTRACT, CODE_DEFAULTS, CODE_FUNCTIONS, COMPILED_DEFAULTS, PE_CONTRACT, PE_MAX_ZEROS,
                    MulAddModel, improve_one_at_a_time)

PROBE_DIR = Path(__file__).resolve().parent / "probes"
PROBES = ("cvt", "perelem_f32", "perelem_f16", "scalar_f32", "scalar_f16")
FUNCTIONS = ("x * s + c", "x * s - c", "c - x * s", "x * s", "x + s", "x - s", "x", "x / s",
             "x * s + c (scalar s, c)", "fma(x, s, c)", "(x * s) * c", "x * s + x * c", "max(x, s)",
             "precise x * s + c", "-x")
# scalar.comp's functions (k = index)
SCALAR_FUNCTIONS = ("a*b+c", "a*b+c*d", "(a*b)*c+d", "dot2", "dot3", "dot4", "mix", "fma", "smoothstep", "length2",
                    "normalize2", "a*b-c", "c-a*b", "precise a*b+c*d", "a*b-c*d", "a/b", "1/a", "exp", "exp2", "log",
                    "log2", "sqrt", "inversesqrt", "sin", "cos", "tanh", "pow", "a*b", "a+b", "(a+b)*c+d",
                    "a*b+c+d", "length3", "distance2", "max", "-a", "a")
# the parameters each probe shows
SHOWN_BY = {"cvt": ("bf16_convert",),
            "perelem_f32": ("pe_flush_f32", "pe_nan_f32", "pe_contract", "pe_factorise", "pe_max_zeros"),
            "perelem_f16": ("pe_flush_f16", "pe_nan_f16", "pe_contract", "pe_factorise", "pe_max_zeros"),
            # plain code shares max(+0, -0) and x*s + x*c with per-element functions (CodeFloats)
            "scalar_f32": ("code_flush_f32", "code_nan_f32", "code_contract", "code_functions", "pe_factorise",
                           "pe_max_zeros"),
            "scalar_f16": ("code_nan_f16", "code_contract", "code_functions", "pe_factorise", "pe_max_zeros")}
CANDIDATES: dict[str, tuple] = {"bf16_convert": ("rne", "truncate"), "pe_flush_f32": (False, True),
                                "pe_flush_f16": (False, True), "pe_contract": PE_CONTRACT,
                                "pe_factorise": (False, True), "pe_max_zeros": PE_MAX_ZEROS,
                                "code_flush_f32": (False, True), "code_contract": CODE_CONTRACT,
                                "code_functions": CODE_FUNCTIONS}
# the NaN parameters whose candidates are read off a probe's outputs: (probe, output key, parameter)
NAN_PARAMS = (("perelem_f32", "gpu3", "pe_nan_f32"), ("perelem_f16", "gpu3", "pe_nan_f16"),
              ("scalar_f32", "gpu4", "code_nan_f32"), ("scalar_f16", "gpu4", "code_nan_f16"))
_FLOAT = {"perelem_f32": np.float32, "perelem_f16": np.float16, "scalar_f32": np.float32, "scalar_f16": np.float16}
CVT_TILES, PERELEM_TILES, SCALAR_N = 32, 32, 8192

Probe = dict[str, np.ndarray]
# (probe name, model, data) -> {"gpu<b>": the outputs the model predicts}
Predict = Callable[[str, MulAddModel, Probe], Probe]


@cache
def probe_text(name: str) -> str:
    return (PROBE_DIR / f"{name}.spvasm").read_text(encoding="utf-8")


@cache
def probe_module(name: str):
    """Assembled once per process (a fit runs each probe a dozen times); runs do not change a Module."""
    from ..asm.assembler import assemble
    # the numbered ids of the recorded kernel kept (its named ones, %main, take the lowest free numbers)
    return assemble(probe_text(name), f"{name}.spvasm", target_env="vulkan1.3", preserve_numeric_ids=True)


def outputs(name: str) -> dict[int, type]:
    """The output bindings the fit compares, and their element types (bf16 as its uint16 bits)."""
    if name == "cvt":
        return {2: np.uint16, 3: np.uint16}
    if name.startswith("scalar"):
        return {4: _FLOAT[name]}
    return {3: _FLOAT[name], 4: _FLOAT[name]}


def inputs_of(name: str) -> tuple[str, ...]:
    return ("in0",) if name == "cvt" else ("in0", "in1", "in2", "in3") if name.startswith("scalar") else \
        ("in0", "in1", "in2")


def functions_of(name: str) -> tuple[str, ...]:
    """The functions whose results an output holds one after another (cvt: one)."""
    return ("",) if name == "cvt" else SCALAR_FUNCTIONS if name.startswith("scalar") else FUNCTIONS


def group_size(name: str) -> int:
    """Elements per workgroup (the inputs are whole groups)."""
    return 64 if name.startswith("scalar") else 256


def tiles_of(name: str, data: Probe) -> int:
    """The probe's workgroups."""
    return data["in0"].size // group_size(name)


def run_args(name: str, data: Probe) -> tuple[int, dict[tuple[int, int], bytes]]:
    """(workgroups, {(set, binding): bytes}) of one run of the probe on data's inputs."""
    x = data["in0"]
    if name == "cvt":
        n = x.size
        return n // 256, {(0, 0): x.tobytes(), (0, 1): x.tobytes(), (0, 2): bytes(2 * n), (0, 3): bytes(2 * n)}
    if name.startswith("scalar"):
        return tiles_of(name, data), {**{(0, b): data[f"in{b}"].tobytes() for b in range(4)},
                                      (0, 4): bytes(len(SCALAR_FUNCTIONS) * x.nbytes)}
    size = len(FUNCTIONS) * x.nbytes
    return tiles_of(name, data), {(0, 0): x.tobytes(), (0, 1): data["in1"].tobytes(),
                                  (0, 2): data["in2"].tobytes(), (0, 3): bytes(size), (0, 4): bytes(size)}


def read_outputs(name: str, data: Probe, raw: Callable[[tuple[int, int]], bytes]) -> Probe:
    """{"gpu<b>": array} from a run's raw buffers (raw((set, binding)) -> bytes)."""
    groups, bufs = run_args(name, data)
    return {f"gpu{b}": np.frombuffer(raw((0, b))[:len(bufs[(0, b)])], dt).copy() for b, dt in outputs(name).items()}


# ---- inputs ----------------------------------------------------------------------------------------------
def make_inputs(name: str, seed: int = 24, tiles: int | None = None) -> Probe:
    rng = np.random.default_rng(seed)
    if name == "cvt":
        return {"in0": _f32_patterns(rng, 256 * (tiles or CVT_TILES))}
    if name.startswith("scalar"):
        return {f"in{b}": v for b, v in enumerate(_scalar_inputs(rng, _FLOAT[name], 64 * tiles if tiles else SCALAR_N))}
    x, s, c = _perelem_inputs(rng, _FLOAT[name], tiles or PERELEM_TILES)
    return {"in0": x, "in1": s, "in2": c}


def _f32_patterns(rng: np.random.Generator, n: int) -> np.ndarray:
    """Special patterns (NaNs whose payload lies in either half, halfway cases), random NaNs, subnormals, the rest
    random bits."""
    special = [0, 0x80000000, 1, 0x8000, 0x18000, 0x7FFF, 0x007FFFFF, 0x00800000, 0x00808000, 0x7F7FFFFF,
               0x7F7F8000, 0x7F7F7FFF, 0x7F800000, 0xFF800000, 0x7F800001, 0x7F808000, 0x7F80FFFF, 0x7F810000,
               0x7FA00000, 0x7FBFFFFF, 0x7FC00000, 0x7FC00001, 0x7FFFFFFF, 0xFFC00000, 0xFF800001, 0xFFFFFFFF,
               0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0x3F800000, 0xBF808000, 0xBF818000]
    k = n // 8
    nan = (rng.integers(0, 2, 2 * k, dtype=np.uint32) << 31) | np.uint32(0x7F800000) | \
        rng.integers(1, 1 << 23, 2 * k, dtype=np.uint32)
    low = np.uint32(0x7F800000) | rng.integers(1, 1 << 16, k, dtype=np.uint32)
    sub = rng.integers(0, 1 << 23, k, dtype=np.uint32) | (rng.integers(0, 2, k, dtype=np.uint32) << 31)
    rest = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([np.array(special, np.uint32), nan, low, sub, rest])[:n]


KINDS = ("normal", "x_subnormal", "s_subnormal", "c_subnormal", "product_underflows", "special", "cancel", "mixed")


def _perelem_inputs(rng: np.random.Generator, dt: type, tiles: int) -> tuple[np.ndarray, ...]:
    """x, s, c: tiles of 256, the kinds in turn (tile t is of kind t % 8)."""
    f16 = dt == np.float16
    tiny = 2.0 ** (-14 if f16 else -126)      # the smallest normal
    xs, ss, cs = [], [], []
    for t in range(tiles):
        kind = KINDS[t % len(KINDS)]
        x, s, c = (rng.standard_normal(256) * 2.0 ** rng.integers(-4, 4, 256) for _ in range(3))
        if kind == "x_subnormal":
            x = rng.uniform(-1, 1, 256) * tiny
        elif kind == "s_subnormal":
            s = rng.uniform(-1, 1, 256) * tiny
        elif kind == "c_subnormal":
            c = rng.uniform(-1, 1, 256) * tiny
        elif kind == "product_underflows":
            scale = 2.0 ** (-8 if f16 else -64)
            x, s = x * scale, s * scale
            c = rng.uniform(-1, 1, 256) * tiny * 4
        elif kind == "special":
            pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, tiny, tiny / 2])
            x, s, c = (rng.choice(pool, 256) for _ in range(3))
        elif kind == "cancel":
            c = -(x.astype(dt) * s.astype(dt)).astype(dt).astype(np.float64)
        elif kind == "mixed":
            pick = rng.integers(0, 3, 256)
            x = np.where(pick == 0, rng.uniform(-1, 1, 256) * tiny, x)
            s = np.where(pick == 1, rng.uniform(-1, 1, 256) * tiny, s)
        xs.append(x)
        ss.append(s)
        cs.append(c)
    with np.errstate(over="ignore"):
        return tuple(np.concatenate(v).astype(dt) for v in (xs, ss, cs))


def _scalar_inputs(rng: np.random.Generator, dt: type, n: int) -> list[np.ndarray]:
    """x, y, z, w of the scalar probe: blocks of eight kinds in turn (as the recorded H100 run's inputs were made,
    tests/data/h100-vulkan/float-model/make_inputs.py): normal; z close to -(x*y); z*w close to -(x*y);
    subnormal operands; specials (NaNs with payloads among them); wide range (exp, log, pow, tanh); positive of
    every exponent; trigonometric range with smoothstep edges in order."""
    f16 = dt == np.float16
    tiny = 2.0 ** (-14 if f16 else -126)
    blocks = max(8, n // 1024)
    B = n // blocks
    out: list[list[np.ndarray]] = [[], [], [], []]
    for b in range(blocks):
        kind = b % 8
        v = [rng.standard_normal(B) * 2.0 ** rng.integers(-4, 4, B) for _ in range(4)]
        if kind == 1:
            p = (v[0].astype(dt) * v[1].astype(dt)).astype(dt).astype(np.float64)
            v[2] = -p * (1 + rng.standard_normal(B) * 2.0 ** -12)
            v[3] = 1 + rng.standard_normal(B) * 2.0 ** -14
        elif kind == 2:
            v[2] = -v[0] * (1 + rng.standard_normal(B) * 2.0 ** -12)
            v[3] = v[1] * (1 + rng.standard_normal(B) * 2.0 ** -12)
        elif kind == 3:
            pick = rng.integers(0, 4, B)
            for j in range(4):
                v[j] = np.where(pick == j, rng.uniform(-1, 1, B) * tiny, v[j])
        elif kind == 4:
            pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, tiny, tiny / 2, 0.5, 2.0])
            v = [rng.choice(pool, B) for _ in range(4)]
        elif kind == 5:
            v[0] = rng.uniform(-12 if f16 else -90, 12 if f16 else 90, B)
            v[1] = rng.uniform(-4, 4, B)
        elif kind == 6:
            v[0] = rng.uniform(1, 2, B) * 2.0 ** rng.integers(-24 if f16 else -149, 16 if f16 else 128, B)
            v[1] = rng.uniform(1, 2, B) * 2.0 ** rng.integers(-10 if f16 else -60, 10 if f16 else 60, B)
        elif kind == 7:
            v[0] = rng.uniform(-1, 1, B) * 2.0 ** rng.integers(-8, 11, B)
            v[1] = v[0] + np.abs(rng.standard_normal(B))
            v[2] = v[0] + rng.uniform(-0.5, 1.5, B) * (v[1] - v[0])
        for j in range(4):
            out[j].append(v[j])
    with np.errstate(over="ignore"):
        arrs: list[np.ndarray] = [np.concatenate(o).astype(dt) for o in out]
    u = arrs[0].view(np.uint16 if f16 else np.uint32)
    nan = np.flatnonzero(np.isnan(arrs[0]))   # NaNs with payloads in either half
    top = 0x7C00 if f16 else 0x7F800000
    u[nan] = (top | rng.integers(1, 1 << (10 if f16 else 23), nan.size)).astype(u.dtype)
    return arrs


# ---- the fit ---------------------------------------------------------------------------------------------
@dataclass
class CompiledFit:
    model: MulAddModel
    agreement: dict = field(default_factory=dict)      # probe -> output label -> [equal, total]
    unidentified: list = field(default_factory=list)   # parameters no measured probe told apart
    not_measured: dict = field(default_factory=dict)   # probe -> why (its parameters keep their defaults)


def _labels(name: str) -> list[tuple[str, str, slice]]:
    """(label, output key, slice of the output) of each part the agreement reports."""
    if name == "cvt":
        return [("scalars", "gpu2", slice(None)), ("matrix", "gpu3", slice(None))]
    key = "gpu4" if name.startswith("scalar") else "gpu3"
    return [(f, key, slice(k, k + 1)) for k, f in enumerate(functions_of(name))]


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


def probe_agreement(name: str, data: Probe, predicted: Probe) -> dict:
    out = {}
    for label, key, part in _labels(name):
        gpu = _bits(data[key])
        mine = _bits(predicted[key])
        if name != "cvt":
            n = len(functions_of(name))
            gpu, mine = gpu.reshape(n, -1)[part], mine.reshape(n, -1)[part]
        out[label] = [int((gpu == mine).sum()), int(gpu.size)]
    return out


def _nan_candidates(data: Probe, key: str) -> tuple:
    """None, and the most common NaN pattern among a probe's results (what an arithmetic NaN becomes)."""
    out = data[key]
    nans = _bits(out)[np.isnan(out)]
    if not nans.size:
        return (None,)
    vals, counts = np.unique(nans, return_counts=True)
    return (None, int(vals[np.argmax(counts)]))


def fit_compiled(probes: dict[str, Probe], predict: Predict, start: MulAddModel,
                 not_measured: dict | None = None) -> CompiledFit:
    """The compiled-code parameters read off the probes measured (the others keep their IEEE defaults, and so do
    parameters no probe shows): start's MulAdd parameters with them."""
    model = start.with_(**COMPILED_DEFAULTS, **CODE_DEFAULTS)
    have = [p for p in PROBES if p in probes]
    candidates = dict(CANDIDATES)
    for p, key, param in NAN_PARAMS:
        if p in probes:
            candidates[param] = _nan_candidates(probes[p], key)
    scores: dict = {}

    def equal(name: str, m: MulAddModel) -> int:
        key = (name,) + tuple(getattr(m, k) for k in SHOWN_BY[name])
        if key not in scores:
            agr = probe_agreement(name, probes[name], predict(name, m, probes[name]))
            scores[key] = sum(v[0] for v in agr.values())
        return scores[key]

    def score(param: str, m: MulAddModel) -> int:
        return sum(equal(p, m) for p in have if param in SHOWN_BY[p])

    shown = [k for k in candidates if any(k in SHOWN_BY[p] for p in have)]
    model = improve_one_at_a_time(model, {k: candidates[k] for k in shown}, score, 4)
    unidentified = [k for k in (*COMPILED_DEFAULTS, *CODE_DEFAULTS) if k in shown and
                    all(score(k, model.with_(**{k: v})) == score(k, model)
                        for v in candidates[k] if v != getattr(model, k))]
    missing = dict(not_measured or {})
    for p in PROBES:
        if p not in probes and p not in missing:
            missing[p] = "no data"
    agreement = {p: probe_agreement(p, probes[p], predict(p, model, probes[p])) for p in have}
    return CompiledFit(model, agreement, unidentified, missing)


def summary(f: CompiledFit) -> list[str]:
    """One line per probe: its parameters' fitted values and the agreement."""
    lines = []
    for p in PROBES:
        params = ", ".join(f"{k} {_show(getattr(f.model, k))}" for k in SHOWN_BY[p])
        if p in f.agreement:
            eq = sum(v[0] for v in f.agreement[p].values())
            n = sum(v[1] for v in f.agreement[p].values())
            lines.append(f"{p}: {params}: {eq}/{n} elements bit-identical")
        else:
            lines.append(f"{p}: not measured ({f.not_measured.get(p, 'no data')}): defaults kept")
    if f.unidentified:
        lines.append(f"not identified by the probes: {', '.join(f.unidentified)}")
    return lines


def _show(v) -> str:
    return f"0x{v:x}" if type(v) is int else str(v).lower() if isinstance(v, bool) else str(v)


def to_doc(f: CompiledFit) -> dict:
    """The numerics file's `compiled` section: agreement per probe output, what was not identified or measured."""
    return {"agreement": {p: {label: f"{v[0]}/{v[1]}" for label, v in agr.items()} for p, agr in f.agreement.items()},
            "not_identified": list(f.unidentified),
            "not_measured": dict(f.not_measured)}

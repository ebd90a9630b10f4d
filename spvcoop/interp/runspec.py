"""Run specs (YAML): which shader, dispatch, constants and buffers; generated data; output and --check.

    shader: saxpy.comp            # .comp (GLSL), .spv or .spvasm, relative to this file
    entry_point: main             # optional
    dispatch: [16, 1, 1]
    subgroup_size: 32             # optional
    spec_constants: {0: 64, SCALE: 3}
    push_constants: {a: 2.0, n: 1000}
    buffers:
      x: {random: {seed: 1, distribution: normal, count: 1000}}   # by variable, block or member name
      0:1: {zeros: 1000, dtype: float32}                          # by "set:binding"
      z: {file: z.npy}
      w: {data: [1, 2, 3], dtype: int32}
      s: {arange: 64}
      t: [1, 2, 3]                                                # inline, typed by the shader
    outputs: [y]                  # optional: which buffers to print (default: storage buffers)

An expected file for --check maps buffer names to data, optionally with tolerances:
    y: {data: [...], rtol: 1e-5, atol: 1e-6}   or   y: [...]   or   y: {file: y.npy}
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..diagnostics import Diagnostic, SpvError

SPEC_KEYS = {"shader", "entry_point", "dispatch", "subgroup_size", "spec_constants", "push_constants", "buffers",
             "outputs", "max_steps"}
DATA_KEYS = {"data", "file", "random", "zeros", "arange", "dtype", "shape"}


@dataclass
class RunSpec:
    shader: str
    base: Path
    entry_point: str | None = None
    dispatch: tuple[int, int, int] = (1, 1, 1)
    subgroup_size: int = 32
    spec_constants: dict = field(default_factory=dict)
    push_constants: object = None
    buffers: dict = field(default_factory=dict)   # key -> raw spec entry
    outputs: list | None = None
    max_steps: int | None = None
    source: str = "<spec>"


def _err(msg: str, source: str) -> SpvError:
    return SpvError(Diagnostic("error", msg, source=source))


def read_yaml(path: str):
    import yaml
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise _err(f"cannot read: {e.strerror or e}", path) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        raise _err(f"invalid YAML: {getattr(e, 'problem', e)}", where) from None


def load_spec(path: str) -> RunSpec:
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise _err("a run spec is a mapping with at least 'shader'", path)
    unknown = set(raw) - SPEC_KEYS
    if unknown:
        from ..diagnostics import did_you_mean
        k = sorted(map(str, unknown))[0]
        raise _err(f"unknown key '{k}' in run spec{did_you_mean(k, SPEC_KEYS)}", path)
    if "shader" not in raw:
        raise _err("the run spec has no 'shader'", path)
    d = raw.get("dispatch", [1, 1, 1])
    if isinstance(d, int):
        d = [d]
    if not isinstance(d, list) or not all(isinstance(x, int) for x in d) or not 1 <= len(d) <= 3:
        raise _err(f"dispatch must be 1 to 3 integers, got {d!r}", path)
    bufs = raw.get("buffers") or {}
    if isinstance(bufs, list):  # list form: entries with set/binding or name
        conv = {}
        for e in bufs:
            if not isinstance(e, dict):
                raise _err(f"buffer entry {e!r} must be a mapping", path)
            e = dict(e)
            if "name" in e:
                key = e.pop("name")
            elif "binding" in e:
                key = (int(e.pop("set", 0)), int(e.pop("binding")))
            else:
                raise _err(f"buffer entry {e!r} needs 'name' or 'set'/'binding'", path)
            conv[key] = e
        bufs = conv
    spec = RunSpec(shader=str(raw["shader"]), base=Path(path).parent, entry_point=raw.get("entry_point"),
                   dispatch=tuple((list(d) + [1, 1])[:3]), subgroup_size=int(raw.get("subgroup_size", 32)),
                   spec_constants=dict(raw.get("spec_constants") or {}), push_constants=raw.get("push_constants"),
                   buffers=dict(bufs), outputs=raw.get("outputs"), max_steps=raw.get("max_steps"), source=path)
    return spec


def generate(entry, where: str, base: Path, source: str, hint=None):
    """One buffer's data from its spec entry -> numpy array, or plain lists/dicts typed later by the shader."""
    if not isinstance(entry, dict) or not (set(entry) & DATA_KEYS):
        return entry  # inline data typed by the shader
    extra = set(entry) - DATA_KEYS - {"rtol", "atol"}
    if extra:
        raise _err(f"buffer '{where}': unknown key '{sorted(extra)[0]}' (use one of: data, file, random, zeros, "
                   f"arange, with dtype and shape)", source)
    dtype = entry.get("dtype")
    try:
        dt = np.dtype(dtype) if dtype else None
    except TypeError:
        raise _err(f"buffer '{where}': unknown dtype '{dtype}'", source) from None
    comps = 1
    if dt is None and hint is not None:
        dt, comps = hint
    if "file" in entry:
        p = base / str(entry["file"])
        try:
            arr = np.load(p, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise _err(f"buffer '{where}': cannot load {p}: {e}", source) from None
    elif "zeros" in entry:
        arr = np.zeros(int(entry["zeros"]), dt or np.float32)
    elif "arange" in entry:
        arr = np.arange(int(entry["arange"])).astype(dt or np.float32)
    elif "random" in entry:
        r = entry["random"] or {}
        rng = np.random.default_rng(int(r.get("seed", 0)))
        n = int(r.get("count", 1))
        dist = r.get("distribution", "uniform")
        if dist == "normal":
            arr = rng.normal(float(r.get("mean", 0.0)), float(r.get("std", 1.0)), n)
        elif dist == "uniform":
            arr = rng.uniform(float(r.get("low", 0.0)), float(r.get("high", 1.0)), n)
        elif dist == "integers":
            arr = rng.integers(int(r.get("low", 0)), int(r.get("high", 100)), n)
        else:
            raise _err(f"buffer '{where}': unknown distribution '{dist}' (normal, uniform, integers)", source)
        arr = arr.astype(dt or (np.int32 if dist == "integers" else np.float32))
    else:
        if dt is None:
            return entry["data"]
        arr = np.asarray(entry["data"]).astype(dt)
    if dt is not None:
        arr = arr.astype(dt)
    if "shape" in entry:
        arr = arr.reshape(entry["shape"])
    elif comps > 1 and "file" not in entry and "data" not in entry:
        arr = np.repeat(arr[:, None], comps, axis=1) if "random" not in entry else arr
    return arr


def buffer_key(k):
    if isinstance(k, str) and ":" in k:
        a, b = k.split(":", 1)
        if a.strip().isdigit() and b.strip().isdigit():
            return (int(a), int(b))
    if isinstance(k, list) and len(k) == 2:
        return (int(k[0]), int(k[1]))
    return k


# ---- output -------------------------------------------------------------------------------
def to_plain(x):
    if isinstance(x, np.ndarray):
        from .dataio import short_floats
        return short_floats(x)
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return str(x)
    return x


def render(outputs: dict, fmt: str) -> str:
    plain = {k: to_plain(v) for k, v in outputs.items()}
    if fmt == "json":
        return json.dumps(plain, indent=1) + "\n"
    import yaml
    return yaml.safe_dump(plain, sort_keys=False, default_flow_style=None, width=100)


# ---- --check ----------------------------------------------------------------------------------
def compare(name: str, got, expected, rtol: float, atol: float, out: list[str], limit: int = 10) -> int:
    """Append up to `limit` difference lines; return the number of differing elements."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            out.append(f"{name}: expected a structure, got {type(got).__name__}")
            return 1
        n = 0
        for k, v in expected.items():
            if k not in got:
                out.append(f"{name}.{k}: missing in the output")
                n += 1
                continue
            n += compare(f"{name}.{k}", got[k], v, rtol, atol, out, limit)
        return n
    if isinstance(expected, list) and any(isinstance(x, (dict, list)) for x in expected) and \
            isinstance(got, list) and any(isinstance(x, dict) for x in expected):
        if len(got) != len(expected):
            out.append(f"{name}: expected {len(expected)} elements, got {len(got)}")
            return 1
        return sum(compare(f"{name}[{i}]", g, x, rtol, atol, out, limit) for i, (g, x) in enumerate(zip(got, expected)))
    e = np.asarray(expected, dtype=object)
    g = np.asarray(got, dtype=object) if not isinstance(got, np.ndarray) else got
    try:
        ef = np.asarray(expected, dtype=np.float64)
        gf = np.asarray(g, dtype=np.float64)
    except (TypeError, ValueError):
        if got != expected:
            out.append(f"{name}: expected {expected!r}, got {got!r}")
            return 1
        return 0
    if ef.size != gf.size:
        if gf.size > ef.size and gf.ndim == 1 and ef.ndim <= 1:
            gf = gf[:ef.size]
            out.append(f"{name}: note: output has {g.size} elements, comparing the first {ef.size}") \
                if len(out) < limit else None
        else:
            out.append(f"{name}: expected {ef.size} elements (shape {ef.shape}), got {gf.size} (shape {gf.shape})")
            return 1
    ef, gf = ef.reshape(-1), gf.reshape(-1)
    bad = ~(np.isclose(gf, ef, rtol=rtol, atol=atol) | (np.isnan(gf) & np.isnan(ef)))
    idx = np.flatnonzero(bad)
    for i in idx[:max(0, limit - len(out))]:
        pos = np.unravel_index(i, e.shape) if e.shape else ()
        at = "".join(f"[{p}]" for p in pos)
        out.append(f"{name}{at}: expected {ef[i]:.9g}, got {gf[i]:.9g} (difference {abs(gf[i] - ef[i]):.3g})")
    return len(idx)

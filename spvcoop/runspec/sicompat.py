"""SPIRV-Interpreter's input and expected-output files, for `spvcoop run SHADER --input IN --check OUT`.

Its files (YAML, JSON or TOML) map interface names to values:
  - a variable by its OpName; an anonymous block instance (OpName "" or none) also by its block's
    type name (and by ""), anything by its result id ('7'), a descriptor by '@set0binding1' (the two
    parts in either order; '@binding1' alone means set 0);
  - a specialization constant by its OpName or result id (the value goes through its SpecId);
  - a struct as a mapping by OpMemberName ('' for a member without a name) or as a list of members;
    arrays, vectors and matrices (a list of columns) as lists.
spvcoop's own buffer names (a single-member block's member name, "set:binding") work there too.

Expected values are compared the way SPIRV-Interpreter compares them (`si_close`): an expected float
is first rounded to the output's type, then both agree when they round to the same number at 3
significant digits for 16-bit floats and 6 for 32- and 64-bit ones (it reads expected numbers as
32-bit floats and compares at the smaller precision); integers and booleans exactly, NaN equals NaN.
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..core.diagnostics import SpvError, did_you_mean
from ..core.records import Record
from ..core.yamlio import error_at, mark_at
from ..interp.constants import _override
from ..interp.program import Program
from ..interp.types import Type
from .numtext import short_floats

SPEC_OPS = ("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstantComposite")
LEAF_KINDS = ("bool", "int", "float", "vector", "matrix")


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Target(Record):
    """What one name of an input or expected file stands for."""
    kind: str                 # buffer, push, spec, builtin, io, private
    key: Any                  # buffers: (set, binding); push: "push_constants"; spec: SpecId or None
    type: Type | None         # the value's type (a buffer's block, a spec constant's scalar type)
    rid: int
    shown: str                # how messages name it
    member: int | None        # a single-member block's member, named directly (spvcoop's convention)
    _fields = ("kind", "key", "type", "rid", "shown", "member")

    def __init__(self, kind: str, key: Any, type: Type | None, rid: int, shown: str,
                 member: int | None = None) -> None:
        self.kind = kind
        self.key = key
        self.type = type
        self.rid = rid
        self.shown = shown
        self.member = member


def interface(prog: Program) -> dict[str, Target]:
    """Every name SPIRV-Interpreter (or spvcoop) accepts for the module's variables and spec constants."""
    names: dict[str, Target] = {}
    for inst in prog.globals:
        rid = cast(int, inst.result_id)  # globals (constants, undefs, variables) all define an id
        opname = prog.names.get(rid)
        if inst.opname == "OpVariable":
            ptr = prog.types[cast(int, inst.result_type)]  # an OpVariable has a (pointer) type
            t = ptr.elem
            storage = ptr.storage
            dec = prog.decorations.get(rid, {})
            shown = opname or (t.name if t is not None and t.kind == "struct" else "") or str(rid)
            if storage in ("StorageBuffer", "Uniform"):
                s, b = dec.get("DescriptorSet", [0])[0], dec.get("Binding", [0])[0]
                target = Target("buffer", (s, b), t, rid, shown)
                aliases = [f"@set{s}binding{b}", f"@binding{b}set{s}", f"{s}:{b}"]
                if s == 0:
                    aliases.append(f"@binding{b}")
            elif storage == "PushConstant":
                target, aliases = Target("push", "push_constants", t, rid, shown), []
            elif storage == "Input" and "BuiltIn" in dec:
                target, aliases = Target("builtin", prog.builtin_of(rid), t, rid, shown), []
            elif storage in ("Input", "Output", "UniformConstant"):
                target, aliases = Target("io", storage, t, rid, shown), []
            else:
                target, aliases = Target("private", storage, t, rid, shown), []
            if opname:
                names.setdefault(opname, target)
            if not opname and t is not None and t.kind == "struct" and t.name:
                names.setdefault(t.name, target)   # an anonymous block instance, by its block's name
            if opname == "" or (opname is None and t is not None and t.kind == "struct"):
                names.setdefault("", target)
            for a in aliases:
                names.setdefault(a, target)
            if target.kind == "buffer" and t is not None and t.kind == "struct" and len(t.members) == 1:
                names.setdefault(t.member_names[0], Target("buffer", target.key, t, rid, shown, member=0))
            names[str(rid)] = target
        elif inst.opname in SPEC_OPS:
            dec = prog.decorations.get(rid, {})
            spec_id = dec.get("SpecId", [None])[0]
            target = Target("spec", spec_id, prog.types.get(cast(int, inst.result_type)), rid, opname or str(rid))
            if opname:
                names.setdefault(opname, target)
            names[str(rid)] = target
    return names


def key_mark(root, path: tuple):
    """The mark of the key that ends `path` (where a name is wrong), else of its value."""
    parent = _walk(root, path[:-1])
    mark = getattr(parent, "name_marks", {}).get(path[-1]) if path else None
    return mark if mark is not None else mark_at(root, list(path))


def _walk(node, path):
    for p in path:
        if isinstance(node, dict) and p in node or isinstance(node, list) and isinstance(p, int) and p < len(node):
            node = node[p]
        else:
            return None
    return node


def _resolve(names: dict[str, Target], key, source: str, root, purpose: str) -> Target:
    k = str(key)
    if k in names:
        return names[k]
    if k.startswith("@location"):
        raise error_at(f"'{k}': variables matched by location are inputs and outputs of graphics stages; "
                       "spvcoop runs GLCompute shaders", source, key_mark(root, (key,)))
    shown = [n for n in names if n and not n.isdigit() and not n.startswith("@") and ":" not in n]
    raise error_at(f"'{k}' names no {purpose} of the shader{did_you_mean(k, shown)}"
                   f" (names: {', '.join(sorted(set(shown))) or 'none'}; unnamed values by result id)",
                   source, key_mark(root, (key,)))


# ---- values -----------------------------------------------------------------------------------
def rename(prog: Program, t: Type | None, v, source: str, root, path: tuple):
    """A value in SPIRV-Interpreter's form -> spvcoop's: struct members keyed by the interpreter's member
    names ('' for an unnamed member becomes its spvcoop name m<i>); unknown members are located errors."""
    if t is None:
        return v
    if t.kind == "struct" and isinstance(v, dict):
        named = prog.member_names.get(t.id, {})
        by_si: dict[str, list[int]] = {}
        for i in range(len(t.members)):
            by_si.setdefault(named.get(i, ""), []).append(i)
        out = {}
        unnamed = getattr(v, "unnamed", [])
        if len(unnamed) > 1:   # '' repeated: the unnamed members in order, as SPIRV-Interpreter reads them
            slots = by_si.get("", [])
            if len(unnamed) > len(slots):
                raise error_at(f"{len(unnamed)} values named '' but {t.name or 'the struct'} has {len(slots)} "
                               f"unnamed member(s)", source, unnamed[len(slots)][2] or key_mark(root, path))
            for j, (x, _, _) in enumerate(unnamed):
                i = slots[j]
                out[t.member_names[i]] = rename(prog, t.members[i], x, source, root, path + (t.member_names[i],))
        for k, x in v.items():
            ks = str(k)
            if ks == "" and len(unnamed) > 1:
                continue
            if ks in by_si and len(by_si[ks]) == 1:
                i = by_si[ks][0]
            elif ks in t.member_names:
                i = t.member_names.index(ks)
            elif ks in by_si:
                raise error_at(f"'{ks}' is ambiguous: {len(by_si[ks])} members of {t.name or 'the struct'} have no "
                               f"name; give them as a list or by spvcoop's names "
                               f"({', '.join(t.member_names[i] for i in by_si[ks])})", source,
                               key_mark(root, path + (k,)))
            else:
                shown = [n or "''" for n in by_si]
                raise error_at(f"{t.name or 'the struct'} has no member '{ks}'{did_you_mean(ks, list(by_si))} "
                               f"(members: {', '.join(shown)})", source, key_mark(root, path + (k,)))
            out[t.member_names[i]] = rename(prog, t.members[i], x, source, root, path + (k,))
        return out
    if t.kind == "struct" and isinstance(v, list) and len(v) == len(t.members):
        return [rename(prog, m, x, source, root, path + (i,))
                for i, (m, x) in enumerate(zip(t.members, v, strict=False))]
    if t.kind in ("array", "runtime_array") and isinstance(v, list) and t.elem is not None and \
            t.elem.kind in ("struct", "array", "runtime_array"):
        return [rename(prog, t.elem, x, source, root, path + (i,)) for i, x in enumerate(v)]
    return v


def apply_inputs(prog: Program, data, source: str, buffers: dict, spec_constants: dict, push):
    """Put an input file's values where `run()` takes them: buffers by (set, binding), spec constants by
    SpecId, push constants. Returns the push-constant value."""
    if data is None:
        return push
    if not isinstance(data, dict):
        raise error_at("an input file maps variable names (or result ids) to values", source,
                       getattr(data, "mark", None))
    names = interface(prog)
    for k, v in data.items():
        target = _resolve(names, k, source, data, "variable or specialization constant")
        mark = key_mark(data, (k,))
        if target.kind == "spec":
            if target.key is None:
                raise error_at(f"'{k}': specialization constant {target.shown} has no SpecId decoration, so "
                               "no pipeline can set it", source, mark)
            if isinstance(v, (dict, list)):
                raise error_at(f"'{k}': composite specialization constants cannot be given; give their "
                               "scalar parts", source, mark)
            if target.type is not None:  # a value the constant cannot hold, at its key in the file
                try:
                    _override(target.type, v, f"'{k}'")
                except SpvError as e:
                    raise error_at(e.diagnostics[0].message, source, mark) from None
            spec_constants[target.key] = v
        elif target.kind == "push":
            push = rename(prog, target.type, v, source, data, (k,))
        elif target.kind == "buffer":
            t = target.type
            if target.member is not None and t is not None:  # a member target is only made for a struct type
                v = {t.member_names[0]: rename(prog, t.members[0], v, source, data, (k,))}
            else:
                v = rename(prog, t, v, source, data, (k,))
            buffers[_buffer_key(prog, target)] = v
        elif target.kind == "builtin":
            raise error_at(f"'{k}' is the built-in input {target.key}: spvcoop runs every invocation of the "
                           "dispatch (SPIRV-Interpreter's single-invocation mode has no equivalent); remove it",
                           source, mark)
        else:
            raise error_at(f"'{k}' is a {target.key} variable; only buffers, push constants and "
                           "specialization constants take input values", source, mark)
    return push


def _buffer_key(prog: Program, target: Target):
    """Where run() takes a variable's data: its (set, binding), or, where other variables share that binding, the
    variable's own name, so that its type reads the data (interp/aliasing.py: data by binding must mean the same
    bytes through every view)."""
    from ..interp.aliasing import DESCRIPTOR_CLASSES, descriptor_key, variables, view_names
    views = variables(prog, DESCRIPTOR_CLASSES)
    if sum(descriptor_key(prog, vid) == target.key for vid, _ in views) < 2:
        return target.key
    name = prog.name_of(target.rid)
    return name if sum(name in view_names(prog, vid, t) for vid, t in views) == 1 else target.key


# ---- comparison -------------------------------------------------------------------------------
def si_digits(width: int) -> int:
    """Significant digits SPIRV-Interpreter compares a float of `width` bits at."""
    return 3 if width <= 16 else 6


def si_close(got, expected, digits: int) -> np.ndarray:
    """Elementwise: do got and expected agree at `digits` significant digits, as SPIRV-Interpreter decides?
    Both are rounded (half away from zero) at the place of the larger one's digits-th significant digit.
    It compares printed decimals, where the units digit of a number below 1 counts as a digit ('0.48'
    has 3), and prints numbers below 1e-4 in scientific notation, where digits count from the first
    nonzero one. NaN agrees with NaN; infinities only with themselves."""
    a = np.asarray(got, np.float64)
    b = np.asarray(expected, np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    fin = np.isfinite(a) & np.isfinite(b)
    with np.errstate(all="ignore"):
        m = np.where(fin, np.maximum(np.abs(a), np.abs(b)), 1.0)
        k = np.floor(np.log10(np.where(m > 0, m, 1.0)))
        k = np.where((m < 1) & (m >= 1e-4), 0.0, k)
        q = 10.0 ** (k - digits + 1)
        ra = np.sign(a) * np.floor(np.abs(a) / q + 0.5)
        rb = np.sign(b) * np.floor(np.abs(b) / q + 0.5)
    return same | (fin & (ra == rb))


class CheckOptions(Record):
    """How SPIRV-Interpreter-style --check compares values."""
    digits: bool                   # SPIRV-Interpreter's significant digits; else rtol/atol
    rtol: float
    atol: float
    limit: int                     # difference lines kept
    _fields = ("digits", "rtol", "atol", "limit")

    def __init__(self, digits: bool = True, rtol: float = 1e-5, atol: float = 1e-6, limit: int = 10) -> None:
        self.digits = digits
        self.rtol = rtol
        self.atol = atol
        self.limit = limit


def check(prog: Program, res, expected, source: str, opts: CheckOptions) -> tuple[int, list[str], int]:
    """Compare a run's buffers with an expected file -> (differing values, difference lines, buffers checked)."""
    if expected is None:
        return 0, [], 0
    if not isinstance(expected, dict):
        raise error_at("an expected file maps variable names (or result ids) to values", source,
                       getattr(expected, "mark", None))
    names = interface(prog)
    lines: list[str] = []
    total = 0
    for k, v in expected.items():
        target = _resolve(names, k, source, expected, "output buffer")
        if target.kind != "buffer":
            what = {"spec": "a specialization constant", "push": "the push constants",
                    "builtin": "a built-in input"}.get(target.kind, f"a {target.key} variable")
            raise error_at(f"'{k}' is {what}, not an output buffer", source, key_mark(expected, (k,)))
        t = cast(Type, target.type)  # the buffer ran, so its type is one the interpreter models
        got = res.values(target.key, short_floats)
        if target.member is not None:
            want = rename(prog, t.members[0], v, source, expected, (k,))
            t, got = t.members[0], got[t.member_names[0]]
        else:
            want = rename(prog, t, v, source, expected, (k,))
        total += compare_typed(t, got, want, str(k), lines, opts)
    return total, lines, len(expected)


def _leaf(t: Type) -> Type | None:
    """The scalar type of a value compared as one numeric array (scalars, vectors, matrices, arrays of them)."""
    while t.kind in ("array", "runtime_array"):
        t = cast(Type, t.elem)  # arrays always have an element type
    return t.scalar if t.kind in LEAF_KINDS else None


def compare_typed(t: Type, got, want, name: str, out: list[str], opts: CheckOptions) -> int:
    """Compare a decoded value (nested lists/dicts by spvcoop member names) of type t with an expected one;
    append difference lines, return how many values differ. Floats at the precision of their own type."""
    if t.kind == "struct":
        if isinstance(want, list) and len(want) == len(t.members):
            want = dict(zip(t.member_names, want, strict=False))
        if not isinstance(want, dict):
            out.append(f"{name}: expected a {type(want).__name__} where the output is a structure")
            return 1
        return sum(compare_typed(t.members[t.member_names.index(k)], got[k], x, f"{name}.{k}", out, opts)
                   for k, x in want.items())
    scalar = _leaf(t)
    if scalar is None:
        if not isinstance(want, list) or len(want) != len(got):
            out.append(f"{name}: expected {len(want) if isinstance(want, list) else 'a value'} element(s), "
                       f"got {len(got)}")
            return 1
        elem = cast(Type, t.elem)  # an array (not a leaf, not a struct): it has an element type
        return sum(compare_typed(elem, g, x, f"{name}[{i}]", out, opts)
                   for i, (g, x) in enumerate(zip(got, want, strict=False)))
    return _compare_numbers(scalar, got, want, name, out, opts)


def _compare_numbers(scalar: Type, got, want, name: str, out: list[str], opts: CheckOptions) -> int:
    g = np.asarray(got, np.float64)
    try:
        e = np.asarray(want, np.float64)
    except (TypeError, ValueError, OverflowError):
        out.append(f"{name}: expected numbers shaped like the output {list(g.shape)}, got {_short(want)}")
        return 1
    if e.shape != g.shape:
        def n(a):
            return f"{a.size} value(s)" + (f" (shape {list(a.shape)})" if a.ndim > 1 else "")
        out.append(f"{name}: expected {n(e)}, the output has {n(g)}")
        return 1
    if scalar.kind == "float":
        stored = scalar.dtype
        with np.errstate(all="ignore"):
            eq = e.astype(stored).astype(np.float64)   # the expected value as the output's type holds it
            # and the result too: decoded f32 values are their shortest decimals (2.778565), which is
            # not the f32 value (2.77856493...) an equal expected value rounds to
            g = g.astype(stored).astype(np.float64)
        if opts.digits:
            ok = si_close(g, eq, si_digits(scalar.width))
        else:
            ok = np.isclose(g, eq, rtol=opts.rtol, atol=opts.atol) | (np.isnan(g) & np.isnan(eq))
    else:
        ok = g == e
    bad = np.flatnonzero(~ok.reshape(-1))
    for i in bad[:max(0, opts.limit - len(out))]:
        at = "".join(f"[{p}]" for p in np.unravel_index(i, g.shape)) if g.ndim else ""
        ev, gv = e.reshape(-1)[i], g.reshape(-1)[i]
        if scalar.kind != "float":
            why = ""
        elif opts.digits:
            why = f" (not equal at {si_digits(scalar.width)} significant digits, f{scalar.width})"
        else:
            why = f" (difference {abs(gv - ev):.3g})"
        out.append(f"{name}{at}: expected {_num(ev)}, got {_stored(gv, scalar)}{why}")
    return len(bad)


def _num(x: float) -> str:
    return repr(int(x)) if np.isfinite(x) and x == int(x) and abs(x) < 2**53 else repr(float(x))


def _stored(x: float, scalar: Type) -> str:
    """A result as its type holds it: f32 by its shortest round-trip decimal, f16 and f64 exactly."""
    if scalar.kind == "float" and scalar.width == 32 and np.isfinite(x):
        return str(float(str(np.float32(x))))
    return _num(x) if scalar.kind != "float" else repr(float(x))


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:40] + "..."

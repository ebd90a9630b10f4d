"""Input templates (`spvcoop run SHADER --template FILE`): every value a run of the shader can be given -- its
storage and uniform buffers, push-constant members and specialization constants -- with its type in a comment
and its default (zeros; a specialization constant's own default), as a run spec that `spvcoop run` takes as it
is, or as a SPIRV-Interpreter input file (`--template-format sicompat`, as its `spirv-run -t` writes one).

A runtime array is written with one element and marked: the run's buffer holds as many as the data gives."""
from __future__ import annotations

import os
from itertools import chain, count
from pathlib import Path
from typing import cast

from ..core.diagnostics import Diagnostic, SpvError
from ..interp.aliasing import DESCRIPTOR_CLASSES, descriptor_key, variables, view_names
from ..interp.constants import scalar_from_words
from ..interp.program import Program
from ..interp.types import Type
from .sicompat import SPEC_OPS, interface
from .spec import buffer_key

FORMATS = ("runspec", "sicompat")
RUNTIME = "runtime array: one element shown; give as many as the run needs"


def _literal(prog: Program, id_: int) -> object | None:
    """The value of an OpConstant / OpSpecConstant (its default) as a Python number, else None."""
    d = prog.defs.get(id_)
    if d is None or d.opname not in ("OpConstant", "OpSpecConstant") or d.result_type is None:
        return None
    t = prog.types[d.result_type]
    v = scalar_from_words(t, d.operands[0].words).reshape(-1)[0]
    return float(v) if t.kind == "float" else int(v)


def _default(t: Type, member_names, prog: Program, pointer=None, hint: str = "") -> object:
    """The zero value of t: nested dicts (structs, by member name) and lists; runtime arrays get one element, an
    array sized by a specialization-constant expression as many as its defaults give (one if unknown). A pointer
    (a device address) is pointer(its type, the member's name), else 0."""
    k = t.kind
    if k in ("array", "vector", "matrix", "runtime_array"):
        elem = t.elem
        assert elem is not None   # every type of elements has its element type
        if k == "array":
            n = _literal(prog, t.extra["length_id"])
            return [_default(elem, member_names, prog, pointer, hint)
                    for _ in range(n if isinstance(n, int) and n > 0 else 1)]
        if k == "runtime_array":
            return [_default(elem, member_names, prog, pointer, hint)]
        return [_default(elem, member_names, prog, pointer, hint) for _ in range(t.count)]   # vector, matrix
    if k == "bool":
        return False
    if k == "int":
        return 0
    if k == "float":
        return 0.0
    if k == "pointer":
        return pointer(t, hint) if pointer is not None else 0
    if k == "struct":
        names = member_names(t)
        if names is None:   # members a mapping cannot tell apart (names repeated): by position
            return [_default(m, member_names, prog, pointer, hint) for m in t.members]
        return _Members([(names[i], _default(m, member_names, prog, pointer, names[i] or hint))
                         for i, m in enumerate(t.members)])
    # a type no buffer of a valid module holds (a cooperative matrix in a block: spirv-val refuses it)
    raise SpvError(Diagnostic("error", f"the template has no value for {t.describe()}, a type a buffer or push "
                              "constant cannot hold (`spvcoop val` says why)", source=prog.source))


class _Members(list):
    """A struct's (name, value) pairs in member order: SPIRV-Interpreter's '' may repeat, so not a dict."""


def _has_runtime(t: Type) -> bool:
    if t.kind == "runtime_array":
        return True
    return t.kind == "struct" and any(_has_runtime(m) for m in t.members)


def _scalar_text(v) -> str:
    return "true" if v is True else "false" if v is False else repr(v)


def _key_text(k) -> str:
    s = str(k)
    plain = s and s.replace("_", "a").replace("-", "a").isalnum() and not s[0].isdigit() and \
        s.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n")
    return s if plain else "'" + s.replace("'", "''") + "'"


def _flow(v) -> str:
    """A value on one line: lists as [..], structs as {name: value, ...}."""
    if isinstance(v, _Members):
        return "{" + ", ".join(f"{_key_text(k)}: {_flow(x)}" for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return _scalar_text(v)


def _json(v) -> str:
    """A value as JSON on one line: structs as objects (SPIRV-Interpreter's '' may repeat, as JSON allows)."""
    import json
    if isinstance(v, _Members):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_json(x)}" for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_json(x) for x in v) + "]"
    return json.dumps(v)


def _emit(key: str, v, indent: int, comment: str, out: list[str]) -> None:
    """`key: value`, a struct's members one per line below it (each on one line)."""
    note = f"  # {comment}" if comment else ""
    pad = " " * indent
    if isinstance(v, _Members) and v:
        out.append(f"{pad}{key}:{note}")
        for name, x in v:
            out.append(f"{pad}  {_key_text(name)}: {_flow(x)}")
    else:
        out.append(f"{pad}{key}: {_flow(v)}{note}")


def template(module, shader_path: str, out_path: str, fmt: str = "runspec") -> str:
    """The template text for the module's GLCompute entry point (every interface value, see the module doc). A
    binding declared as several blocks (ggml's `A` and `A_SCALAR`) is one buffer: one entry, for the view the entry
    point uses (by its name, which says which view's type the data has: interp/aliasing.py), the others named in
    its comment. A device address in a block (vk_cooperative_matrix_perf's uniform block of buffer_reference
    pointers) is `'&NAME'` of a device-address-only buffer the template adds, sized by the pointee's type."""
    prog = Program(module)
    si = fmt == "sicompat"

    def member_names(t: Type) -> list[str] | None:
        if not si:
            names = list(t.member_names)
            return names if len(set(names)) == len(names) else None
        named = prog.member_names.get(t.id, {})
        names = [named.get(i, "") for i in range(len(t.members))]
        given = [n for n in names if n]   # '' may repeat in SPIRV-Interpreter's form; a name may not
        return names if len(set(given)) == len(given) else None

    views = _binding_views(prog)
    si_names = interface(prog) if si else {}

    def si_key(rid: int) -> str:
        """The variable's name where SPIRV-Interpreter's form reads it as this variable, else its result id."""
        name = prog.names.get(rid)
        target = si_names.get(name) if name else None
        return name if name and target is not None and target.rid == rid and target.member is None else str(rid)

    taken = {n for vs in views.values() for vid, t, _ in vs for n in view_names(prog, vid, t)}
    device: list[tuple[str, str, object]] = []   # device-address-only buffers the pointers name

    def pointer(t: Type, hint: str) -> object:
        if si:
            return 0   # SPIRV-Interpreter's inputs have no device addresses
        base = hint or "buffer"
        name = next(n for n in chain((base, f"{base}_data"), (f"{base}_data{i}" for i in count(2)))
                    if n not in taken and buffer_key(n) == n)   # a name, not read as "set:binding"
        taken.add(name)
        pointee = cast(Type, t.elem)
        device.append((name, f"device-address-only buffer, reached through '{hint or base}' ({pointee.describe()})"
                       + (f"; {RUNTIME}" if _has_runtime(pointee) else ""), _device_entry(pointee, prog)))
        return "&" + name

    buffers: list[tuple[str, str, object]] = []
    push: tuple[str, Type] | None = None
    specs: list[tuple[str, str, object]] = []
    seen_ids: set[int] = set()
    for inst in prog.globals:
        rid = inst.result_id
        if rid is None or inst.result_type is None:
            continue   # neither a variable nor a specialization constant
        name = prog.names.get(rid)
        if inst.opname == "OpVariable":
            ptr = prog.types[inst.result_type]
            t = ptr.elem
            if t is None:
                continue
            if ptr.storage in ("StorageBuffer", "Uniform"):
                s, b = descriptor_key(prog, rid)
                group = views[(s, b)]
                if rid != group[0][0]:
                    continue   # another view of a binding written once, under the view listed first
                shown = name or (t.name if t.kind == "struct" else "") or ""
                own = _view_key(prog, group) if len(group) > 1 else None
                key = si_key(rid) if si else (own or f"{s}:{b}")
                what = f"set {s}, binding {b}" + (f": {shown}" if shown else "") + f" ({ptr.storage}, " \
                    f"{t.describe()})" + (f"; {RUNTIME}" if _has_runtime(t) else "")
                others = [_view_text(prog, vid, vt, used) for vid, vt, used in group[1:]]
                if others:
                    what += "; also read as " + ", ".join(others) + " (one buffer: give it once)"
                buffers.append((key, what, _default(t, member_names, prog, pointer)))
            elif ptr.storage == "PushConstant":
                push = (si_key(rid) if si else "", t)
        elif inst.opname in SPEC_OPS and inst.opname != "OpSpecConstantComposite":
            dec = prog.decorations.get(rid, {})
            spec_id = dec.get("SpecId", [None])[0]
            if spec_id is None or spec_id in seen_ids:
                continue   # no pipeline can set it; a SpecId given once sets every constant that has it
            seen_ids.add(spec_id)
            t = prog.types[inst.result_type]
            if inst.opname == "OpSpecConstant":
                v: object = _literal(prog, rid)
            else:
                v = inst.opname == "OpSpecConstantTrue"
            key = si_key(rid) if si else (name if name and _spec_name_ok(prog, name) else spec_id)
            specs.append((str(key), f"SpecId {spec_id}, {t.describe()}, its default", v))
    push_value = _default(push[1], member_names, prog, pointer) if push is not None else None
    buffers += device
    out: list[str] = []
    rel = os.path.relpath(Path(shader_path).resolve(), Path(out_path).resolve().parent)
    if si and out_path.lower().endswith(".json"):   # --input reads a .json file as JSON (no comments there)
        pairs = [(k, v) for k, _, v in buffers] + ([(push[0], push_value)] if push is not None else []) + \
            [(k, v) for k, _, v in specs]
        return _json(_Members(pairs)) + "\n"
    if si:
        out.append(f"# Input template of {Path(shader_path).name} in SPIRV-Interpreter's form (spvcoop run "
                   f"{Path(shader_path).name} --input THIS); written by spvcoop run --template")
        for key, what, v in buffers:
            _emit(_key_text(key), v, 0, what, out)
        if push is not None:
            _emit(_key_text(push[0]), push_value, 0, f"push constants ({push[1].describe()})", out)
        for key, what, v in specs:
            _emit(_key_text(key), v, 0, what, out)
        return "\n".join(out) + "\n"
    out += [f"# Run spec template of {Path(shader_path).name}; written by spvcoop run --template",
            f"shader: {_key_text(rel.replace(os.sep, '/'))}", "dispatch: [1, 1, 1]"]
    if specs:
        out.append("spec_constants:")
        for key, what, v in specs:
            _emit(_key_text(key), v, 2, what, out)
    if push is not None:
        _emit("push_constants", push_value, 0, f"{push[1].describe()}", out)
    if buffers:
        out.append("buffers:")
        for key, what, v in buffers:
            _emit(_key_text(key), v, 2, what, out)
    return "\n".join(out) + "\n"


def _binding_views(prog: Program) -> dict[tuple[int, int], list[tuple[int, Type, bool]]]:
    """(set, binding) -> its variables [(id, block type, used by the entry point)], the first one the entry point
    uses first (a binding's data is written once, for one of its views)."""
    eps = [e for e in prog.entry_points if e[2] == "GLCompute"]
    used = prog.statically_used(eps[0][1]) if eps else set()
    out: dict[tuple[int, int], list[tuple[int, Type, bool]]] = {}
    for vid, t in variables(prog, DESCRIPTOR_CLASSES):
        out.setdefault(descriptor_key(prog, vid), []).append((vid, t, vid in used))
    for group in out.values():
        group.sort(key=lambda v: not v[2])   # stable: declaration order among the used, then the unused
    return out


def _spec_name_ok(prog: Program, name: str) -> bool:
    """Whether a specialization constant's name sets it alone: not digits (a SpecId's text) and no other
    constant with a SpecId has it."""
    named = [rid for rid, dec in prog.decorations.items() if "SpecId" in dec and prog.names.get(rid) == name]
    return not name.strip().isdigit() and len(named) == 1


def _view_key(prog: Program, group: list) -> str | None:
    """The name of a binding's first view if it names that view only (its data then has that view's type)."""
    vid, t, _ = group[0]
    for n in (prog.names.get(vid), t.name):
        if n and buffer_key(n) == n and sum(n in view_names(prog, v, vt)
                                            for v, vt in variables(prog, DESCRIPTOR_CLASSES)) == 1:
            return n
    return None


def _view_text(prog: Program, vid: int, t: Type, used: bool) -> str:
    name = prog.names.get(vid) or t.name or prog.name_of(vid)
    return f"{name} ({t.describe()}{'' if used else ', unused by the entry point'})"


def _device_entry(t: Type, prog: Program) -> object:
    """Zeros for a device-address-only buffer of type t: its elements' dtype for a block of one array of scalars
    or vectors (one element of a runtime array), else its bytes."""
    from ..interp.dataio import element_type
    from ..interp.fault import Fault
    e = element_type(t)
    if e is not None:
        arr = t.members[0]
        n = arr.count if arr.kind == "array" else 1
        try:
            return _Members([("zeros", n * (e.count if e.kind == "vector" else 1)), ("dtype", e.dtype.name)])
        except Fault:
            pass   # an element type the interpreter has no dtype for: its bytes
    size = t.size()
    if _has_runtime(t):
        last = t.members[-1]
        size = t.member_offset(len(t.members) - 1) + last.array_stride()
    return _Members([("zeros", max(size, 1)), ("dtype", "uint8")])

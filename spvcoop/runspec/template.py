"""Input templates (`spvcoop run SHADER --template FILE`): every value a run of the shader can be given -- its
storage and uniform buffers, push-constant members and specialization constants -- with its type in a comment
and its default (zeros; a specialization constant's own default), as a run spec that `spvcoop run` takes as it
is, or as a SPIRV-Interpreter input file (`--template-format sicompat`, as its `spirv-run -t` writes one).

A runtime array is written with one element and marked: the run's buffer holds as many as the data gives."""
from __future__ import annotations

import os
from pathlib import Path

from ..interp.constants import scalar_from_words
from ..interp.program import Program
from ..interp.types import Type
from .sicompat import SPEC_OPS

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


def _default(t: Type, member_names, prog: Program) -> object:
    """The zero value of t: nested dicts (structs, by member name) and lists; runtime arrays get one element, an
    array sized by a specialization-constant expression as many as its defaults give (one if unknown)."""
    k = t.kind
    if k in ("array", "vector", "matrix", "runtime_array"):
        elem = t.elem
        assert elem is not None   # every type of elements has its element type
        if k == "array":
            n = _literal(prog, t.extra["length_id"])
            return [_default(elem, member_names, prog) for _ in range(n if isinstance(n, int) and n > 0 else 1)]
        if k == "runtime_array":
            return [_default(elem, member_names, prog)]
        return [_default(elem, member_names, prog) for _ in range(t.count)]   # vector, matrix
    if k == "bool":
        return False
    if k == "int":
        return 0
    if k == "float":
        return 0.0
    if k == "struct":
        names = member_names(t)
        return _Members([(names[i], _default(m, member_names, prog)) for i, m in enumerate(t.members)])
    raise ValueError(f"no template value for {t.describe()}")


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
    """The template text for the module's GLCompute entry point (every interface value, see the module doc)."""
    prog = Program(module)
    si = fmt == "sicompat"

    def member_names(t: Type) -> list[str]:
        if not si:
            return list(t.member_names)
        named = prog.member_names.get(t.id, {})
        return [named.get(i, "") for i in range(len(t.members))]

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
            dec = prog.decorations.get(rid, {})
            if ptr.storage in ("StorageBuffer", "Uniform"):
                s, b = dec.get("DescriptorSet", [0])[0], dec.get("Binding", [0])[0]
                shown = name or (t.name if t.kind == "struct" else "") or ""
                key = (name or str(rid)) if si else f"{s}:{b}"
                what = f"set {s}, binding {b}" + (f": {shown}" if shown else "") + f" ({ptr.storage}, " \
                    f"{t.describe()})" + (f"; {RUNTIME}" if _has_runtime(t) else "")
                buffers.append((key, what, _default(t, member_names, prog)))
            elif ptr.storage == "PushConstant":
                push = (name or str(rid), t)
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
            key = (name or str(rid)) if si else (name or spec_id)
            specs.append((str(key), f"SpecId {spec_id}, {t.describe()}, its default", v))
    out: list[str] = []
    rel = os.path.relpath(Path(shader_path).resolve(), Path(out_path).resolve().parent)
    if si:
        out.append(f"# Input template of {Path(shader_path).name} in SPIRV-Interpreter's form (spvcoop run "
                   f"{Path(shader_path).name} --input THIS); written by spvcoop run --template")
        for key, what, v in buffers:
            _emit(_key_text(key), v, 0, what, out)
        if push is not None:
            _emit(_key_text(push[0]), _default(push[1], member_names, prog), 0,
                  f"push constants ({push[1].describe()})", out)
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
        _emit("push_constants", _default(push[1], member_names, prog), 0, f"{push[1].describe()}", out)
    if buffers:
        out.append("buffers:")
        for key, what, v in buffers:
            _emit(_key_text(key), v, 2, what, out)
    return "\n".join(out) + "\n"

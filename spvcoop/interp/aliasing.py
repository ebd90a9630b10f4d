"""Variables that are one memory: descriptors at one (set, binding), and Workgroup blocks with an explicit layout.

Vulkan binds one buffer per (set, binding), whatever the number of variables decorated with it: ggml's flash
attention declares its output as `float[]` and as `vec4[]` at one binding and writes through the vec4 view. Each
such variable is a typed view of the binding's one Memory (its offsets and strides come from its own block's
Offset/ArrayStride decorations), so a store through one is a load through every other. With
SPV_KHR_workgroup_memory_explicit_layout, the Block-decorated Workgroup variables of an entry point all start at
the same address of one allocation (the extension requires them to be Aliased when there are several).
"""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError
from ..core.records import Record
from .memory import Pointer
from .program import Program
from .types import Type

DESCRIPTOR_CLASSES = ("StorageBuffer", "Uniform")


class DescriptorGroup(Record):
    """The variables decorated with one (set, binding), the one whose type reads the data, and the data."""
    key: tuple[int, int]
    vids: list[int]
    reader: int
    data: object
    found: bool
    named: str | None
    _fields = ("key", "vids", "reader", "data", "found", "named")

    def __init__(self, key: tuple[int, int], vids: list[int], reader: int = 0, data: object = None,
                 found: bool = False, named: str | None = None) -> None:
        self.key = key
        self.vids = vids
        self.reader = reader
        self.data = data
        self.found = found
        self.named = named


def variables(prog: Program, storages: tuple[str, ...]) -> list[tuple[int, Type]]:
    """(variable id, pointee type) of every global variable in one of the storage classes, in declaration order."""
    out = []
    for inst in prog.globals:
        if inst.opname != "OpVariable" or inst.result_id is None or inst.result_type is None:
            continue
        pt = prog.types[inst.result_type]
        if pt.storage in storages and pt.elem is not None:
            out.append((inst.result_id, pt.elem))
    return out


def descriptor_key(prog: Program, vid: int) -> tuple[int, int]:
    dec = prog.decorations.get(vid, {})
    return (dec.get("DescriptorSet", [0])[0], dec.get("Binding", [0])[0])


def view_names(prog: Program, vid: int, t: Type) -> list[str]:
    """The names data may be given by for one variable: its own, its block's, its block's one member's."""
    names = [prog.name_of(vid), t.name]
    if t.kind == "struct" and len(t.members) == 1:
        names.append(t.member_names[0])
    return [n for n in names if n]


def descriptor_groups(prog: Program, given: dict, consumed: set) -> dict[tuple[int, int], DescriptorGroup]:
    """Every (set, binding) of a StorageBuffer/Uniform variable, with the data `given` holds for it (by any name
    of any of its variables, or by the key). The variable a name matched reads the data; data given by key is
    read by the view key_reader chooses. Two names for one binding are refused: which data would it hold?
    Both backends bind through this (interp/runner.py, gpu/runner.py): one spec, the same bytes."""
    groups: dict[tuple[int, int], DescriptorGroup] = {}
    types: dict[int, Type] = {}
    for vid, t in variables(prog, DESCRIPTOR_CLASSES):
        key = descriptor_key(prog, vid)
        groups.setdefault(key, DescriptorGroup(key, [])).vids.append(vid)
        types[vid] = t
    for key, g in groups.items():
        g.reader = g.vids[0]
        hits: list[tuple[object, int]] = []
        for vid in g.vids:
            for n in view_names(prog, vid, types[vid]):
                if n in given and all(n != h for h, _ in hits):
                    hits.append((n, vid))
        if key in given:
            hits.insert(0, (key, g.vids[0]))
        if len(hits) > 1:
            order = list(given)
            hits.sort(key=lambda h: order.index(h[0]))   # as the user wrote them
            shown = " and ".join(f"'{k[0]}:{k[1]}'" if isinstance(k, tuple) else f"'{k}'" for k, _ in hits)
            raise SpvError(Diagnostic("error", f"buffers {shown} are one descriptor (set {key[0]}, binding "
                                      f"{key[1]}): give its data once", source=prog.source))
        if hits:
            name, g.reader = hits[0]
            g.data, g.found = given[name], True
            if not isinstance(name, str):
                g.reader = key_reader(prog, key, [(vid, types[vid]) for vid in g.vids], g.data)
            g.named = name if isinstance(name, str) else None
            consumed.add(name)
    return groups


class _AnyAddress(dict):
    """Every buffer name has address 0: views compare the bytes of data holding '&name' before any buffer has its
    address."""

    def __contains__(self, name) -> bool:
        return True

    def __missing__(self, name) -> int:
        return 0


def key_reader(prog: Program, key: tuple[int, int], views: list[tuple[int, Type]], data) -> int:
    """The view (variable id) whose type converts data given by "set:binding" to the binding's bytes: the data
    fills the one buffer, so it must mean the same bytes through every view that can take it (a float[] and a
    vec4[] view do; raw bytes always do); where views would make different bytes of it, a numpy array is taken by
    the view whose element type is its dtype, as it is; anything else is refused (name the view). Views that
    cannot take the data are passed over; where none can, the first declared reports why when it is written."""
    first = views[0][0]
    if len(views) == 1 or isinstance(data, (bytes, bytearray)):
        return first
    from .dataio import element_type, view_bytes
    from .fault import Fault
    took: list[tuple[int, Type, bytes]] = []
    for vid, t in views:
        try:
            raw, _ = view_bytes(t, data, f"{key[0]}:{key[1]}", prog.source, _AnyAddress())
        except (SpvError, Fault):
            continue
        took.append((vid, t, raw))
    if not took:
        return first
    if all(raw == took[0][2] for _, _, raw in took[1:]):
        return took[0][0]
    if isinstance(data, np.ndarray):
        for vid, t, _ in took:
            e = element_type(t)
            if e is not None and e.dtype == data.dtype:
                return vid
    shown = []
    for vid, t, _ in took:
        e = element_type(t)
        name = prog.names.get(vid) or t.name or prog.name_of(vid)
        shown.append(f"'{name}' ({e.describe() + ' elements' if e is not None else t.describe()})")
    what = f"a {data.dtype} array" if isinstance(data, np.ndarray) else "this data"
    raise SpvError(Diagnostic("error", f"buffer '{key[0]}:{key[1]}' (set {key[0]}, binding {key[1]}) is one buffer "
                              f"read through views that make different bytes of {what}: {', '.join(shown)}; give "
                              "the data under the name of the view it is for, or as raw bytes", source=prog.source))


def bind_views(values: dict, bindings: dict, views: list[tuple[tuple[int, int], int, Type]]) -> None:
    """Point every other variable of a bound descriptor at the memory its reader's data went into (in `values`,
    variable id -> its pointer)."""
    for key, vid, t in views:
        b = bindings.get(key)
        if b is not None and b.memory is not None:
            values[vid] = Pointer(b.memory, np.zeros(1, np.int64), t, 0, align=1 << 16)


def add_views(res, prog: Program, views: list[tuple[tuple[int, int], int, Type]], make_binding, as_array,
              names_of) -> None:
    """RunResult entries for the other variables of each descriptor: the same memory read through their own
    types, under their own names (the descriptor's key keeps the reader's view, reported once)."""
    for key, vid, t in views:
        b = res.bindings.get(key)
        if b is None or b.memory is None:
            continue
        view = make_binding(prog.names.get(vid) or t.name or b.name, key, t, b.memory, None, vid)
        arr = as_array(t, b.memory.bytes(), None)
        for name in names_of(prog, view):
            if name not in res.buffers:
                res.buffers[name] = arr
                res.bindings[name] = view


def workgroup_blocks(prog: Program) -> list[tuple[int, Type]]:
    """The Block-decorated Workgroup variables (SPV_KHR_workgroup_memory_explicit_layout): one memory."""
    return [(vid, t) for vid, t in variables(prog, ("Workgroup",)) if t.block]


def workgroup_variable(ex, prog: Program, inst, t: Type, name: str, init,
                       shared: Pointer | None) -> tuple[Pointer, Pointer | None]:
    """(A Workgroup variable's pointer, the shared allocation): its own allocation, or for an explicit-layout block
    a view of the one allocation all the entry point's blocks share (`shared`, made by the first of them), as large
    as the largest of them."""
    if not t.block:
        return ex.allocate(name, "Workgroup", t, "wg", init, inst=inst), shared
    if shared is None:
        blocks = workgroup_blocks(prog)
        largest = max((b for _, b in blocks), key=lambda x: x.size())
        label = " / ".join(prog.name_of(v) for v, _ in blocks)
        shared = ex.allocate(label, "Workgroup", largest, "wg", None, inst=inst)
    ptr = Pointer(shared.mem, shared.off, t, shared.base, align=shared.align)
    if init is not None:
        from .memory import store
        store(ptr, t, init, np.ones(ex.N, bool))
    return ptr, shared

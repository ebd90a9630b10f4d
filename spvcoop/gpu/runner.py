"""A run spec's data on a real device: the same buffers, push constants, specialization constants and
device-address buffers the interpreter's `run()` takes, bound to the Module's interface, one dispatch,
and the buffers back as the interpreter's `RunResult` (so outputs are written and compared alike)."""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError
from ..interp.constants import _override  # the interpreter's conversion of a spec-constant value
from ..interp.aliasing import add_views, descriptor_groups, descriptor_key
from ..interp.dataio import as_array, view_bytes
from ..interp.fault import Fault
from ..interp.lengths import set_array_lengths
from ..interp.memory import Memory
from ..interp.program import Program
from ..interp.binder import Binding, no_data_error, takes_addresses, unmatched_buffer
from ..interp.runner import RunResult, add_aliases, buffer_aliases, norm_key, run_arg_error
from ..interp.types import Type
from ..loader import load_shader
from ..core.module import Module

BUFFER_CLASSES = ("StorageBuffer", "Uniform", "PushConstant")


def spec_entries(prog: Program, overrides: dict) -> list[tuple[int, bytes]]:
    """[(SpecId, value bytes)] for the overrides that name a declared specialization constant (by SpecId or
    OpName); Vulkan ignores ids the module does not declare, and so do we."""
    out = []
    for inst in prog.globals:
        if inst.opname not in ("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse"):
            continue
        rid, rtype = cast(int, inst.result_id), cast(int, inst.result_type)   # a constant has both
        sid = prog.decorations.get(rid, {}).get("SpecId", [None])[0]
        name = prog.names.get(rid)
        for key in (sid, str(sid) if sid is not None else None, name):
            if sid is not None and key is not None and key in overrides:
                t = prog.types[rtype]
                v = _override(t, overrides[key], name or sid)
                data = np.uint32(bool(v[0])).tobytes() if t.kind == "bool" else v.tobytes()  # VkBool32
                out.append((int(sid), data))
                break
    return out


def _interface(prog: Program, given: dict, push_constants):
    """[(key, name, type, var_id, data, found, uniform)]: for each descriptor binding the view that reads its data
    (interp/aliasing.py: the same rule as the interpreter's) and for the push constants their block; the other
    views [(key, var_id, type)]; the keys consumed; and the other names the run spec gave a variable's buffer
    (variable name -> [names]: '&name' may use any of them)."""
    consumed: set = set()
    groups = descriptor_groups(prog, given, consumed)
    out: list[tuple[tuple[int, int] | str, str, Type, int, object, bool, bool]] = []
    views: list[tuple[tuple[int, int], int, Type]] = []
    aliases: dict[str, list[str]] = {}
    for inst in prog.globals:
        if inst.opname != "OpVariable":
            continue
        ptype = prog.types[cast(int, inst.result_type)]
        if ptype.storage not in BUFFER_CLASSES:
            continue
        t, vid = cast(Type, ptype.elem), cast(int, inst.result_id)   # a buffer variable's pointer type
        name = prog.names.get(vid) or t.name or prog.name_of(vid)
        if ptype.storage == "PushConstant":   # none given: zeros, as the interpreter runs it
            out.append(("push_constants", name, t, vid, push_constants, push_constants is not None, False))
            continue
        key = descriptor_key(prog, vid)
        g = groups[key]
        if vid != g.reader:   # another view of the binding's one buffer
            views.append((key, vid, t))
            continue
        if g.named is not None and g.named != name:   # '&named' names this buffer too
            aliases.setdefault(name, []).append(g.named)
        out.append((key, name, t, vid, g.data, g.found, ptype.storage == "Uniform"))
    return out, views, consumed, aliases


def _encode(t, data, found: bool, name: str, source: str, addresses: dict) -> tuple[bytes, np.ndarray | None]:
    """A binding's bytes as the interpreter makes them (dataio.view_bytes); zeros when no data was given."""
    if not found:
        return bytes(t.size()), None
    return view_bytes(t, data, name, source, addresses)


def run_on_device(shader, dispatch=(1, 1, 1), buffers: dict | None = None, spec_constants: dict | None = None,
                  push_constants=None, entry_point: str | None = None, device=0, validate: bool = True,
                  subgroup_size: int | None = None, timeout_s: float | None = None, target_env: str | None = None,
                  spirv_val_options: tuple[str, ...] = ()) -> RunResult:
    """Run `shader` once on a Vulkan device (an index or an open compute.Device) -> RunResult.

    Every feature and extension the module needs is checked by name first (features.py); buffers named as
    '&name' in the data (push constants, uniform and storage blocks) hold the named buffer's device address;
    the dispatch is waited for timeout_s seconds at most (the Device's own, 30 s, when None); target_env and
    spirv_val_options: the validation's, as the interpreter's run options of those names."""
    from .compute import DEFAULT_TIMEOUT_S, Device
    err = run_arg_error("run_on_device", shader, {"dispatch": dispatch, "buffers": buffers,
                                                  "spec_constants": spec_constants})
    if err is not None:
        raise err
    module, prog, ep_name = _prepare(shader, validate, spec_constants, entry_point, target_env, spirv_val_options)
    dispatch = tuple(int(d) for d in (list(dispatch) + [1, 1, 1])[:3])
    given = {norm_key(k): v for k, v in (buffers or {}).items()}
    iface, views, consumed, aliases = _interface(prog, given, push_constants)
    extra_names = [k for k in given if k not in consumed]
    for k in extra_names:
        if not isinstance(k, str) or not takes_addresses(prog):   # as the interpreter refuses it
            raise unmatched_buffer(prog, k)
    ep_fn = next(e[1] for e in prog.entry_points if e[0] == ep_name)
    own = device if isinstance(device, Device) else Device(int(device), timeout_s=timeout_s or DEFAULT_TIMEOUT_S)
    if timeout_s is not None:
        own.timeout_s = timeout_s
    allocated: list = []
    try:
        own.check_needs(module, prog.source)
        addresses: dict[str, int] = {}
        extra_bufs = _extra_buffers(own, given, extra_names, addresses, allocated)
        bound = _bound_buffers(own, prog, iface, views, extra_names, aliases, addresses, allocated,
                               prog.statically_used(ep_fn))
        push, likes = _write_data(own, prog, iface, bound, addresses)
        own.dispatch(module.to_bytes(), ep_name, dispatch, {k: (b, s, u) for k, (b, _, s, u) in bound.items()},
                     push, spec_entries(prog, dict(spec_constants or {})), subgroup_size)
        res = RunResult(invocations=0, addresses=addresses)
        _read_bound(own, prog, iface, views, bound, push, likes, res)
        _read_extra(own, extra_bufs, res)
        return res
    finally:
        for buf, mem in allocated:
            own.free(buf, mem)
        if own is not device:
            own.close()


def _prepare(shader, validate: bool, spec_constants: dict | None, entry_point: str | None,
             target_env: str | None = None, spirv_val_options: tuple[str, ...] = ()
             ) -> tuple[Module, Program, str]:
    """The module (validated as a CPU run would be), its Program and the entry point's name. `shader` may be a
    Program already (the CLI's, made once per command, as interp's run() takes it)."""
    given = shader if isinstance(shader, Program) else None
    module: Module = given.module if given is not None else load_shader(shader)
    if validate:
        from ..validator.for_run import validate_for_run
        errors, _ = validate_for_run(module, target_env=target_env, spirv_val_options=spirv_val_options)
        if errors:
            raise SpvError(errors)
    prog = given if given is not None else Program(module)
    # every array length as the interpreter's run sets it (spec-constant expressions too; a name the module lacks
    # refused alike): a length left unset would size a buffer at 0 elements without a word
    set_array_lengths(prog, dict(spec_constants or {}))
    eps = [e for e in prog.entry_points if e[2] == "GLCompute" and (entry_point is None or e[0] == entry_point)]
    if not eps:
        raise SpvError(Diagnostic("error", "no GLCompute entry point" + (f" named '{entry_point}'" if entry_point
                                                                          else ""), source=prog.source))
    return module, prog, eps[0][0]


def _extra_buffers(own, given: dict, extra_names: list, addresses: dict, allocated: list) -> dict:
    """Buffers no variable takes, reached only by their device address: allocated and written now."""
    extra_bufs = {}
    for k in extra_names:
        v = given[k]
        data = bytes(v) if isinstance(v, (bytes, bytearray)) else np.ascontiguousarray(v).tobytes()
        buf, mem, size, addr = own.buffer(len(data))
        allocated.append((buf, mem))
        own.write(mem, data)
        extra_bufs[k] = (mem, len(data), v)
        addresses[k] = addr
    return extra_bufs


def _bound_buffers(own, prog: Program, iface: list, views: list, extra_names: list, aliases: dict, addresses: dict,
                   allocated: list, used: set) -> dict:
    """A device buffer per descriptor binding, sized first (the data's pointers need every address before any
    bytes are written): key -> (buffer, memory, size, uniform). The data is encoded in the interpreter's order, and
    refused where it is (a binding the entry point uses given no data and a runtime array among them)."""
    src = prog.source
    names = [n for _, n, *_ in iface] + extra_names + [a for al in aliases.values() for a in al]
    dummy = {n: 0 for n in names}
    # variables sharing a (set, binding) are views of one buffer (interp/aliasing.py): one allocation, as large as
    # the data or the largest view, with the descriptor type of the view that reads the data (glslang declares a
    # `buffer_reference` block with an instance name as an unused StorageBuffer variable at binding 0, beside the
    # uniform block that really sits there: that block's data makes it a uniform buffer)
    bound, addr_of = {}, {}
    for key, name, t, vid, data, found, uniform in iface:
        if key != "push_constants" and not found and (vid in used or any(v in used for k, v, _ in views if k == key)):
            err = no_data_error(prog, name, key, t, prog.defs[vid])
            if err is not None:
                raise err
        raw = _encode(t, data, found, name, src, dummy)[0]
        if key == "push_constants":
            continue
        size = max([len(raw)] + [v.size() for k, _, v in views if k == key])
        buf, mem, _, addr = own.buffer(size, uniform)
        allocated.append((buf, mem))
        bound[key] = (buf, mem, size, uniform)
        addr_of[key] = addr
    for key, name, *_ in iface:
        if key != "push_constants":
            for n in (name, *aliases.get(name, ())):
                addresses.setdefault(n, addr_of[key])
    return bound


def _write_data(own, prog: Program, iface: list, bound: dict, addresses: dict) -> tuple[bytes, dict]:
    """Every binding's bytes, with the real device addresses: (push-constant bytes, key -> the array given)."""
    push = b""
    likes = {}
    for key, name, t, _vid, data, found, _uniform in iface:
        raw, likes[key] = _encode(t, data, found, name, prog.source, addresses)
        if key == "push_constants":
            push = raw
        else:
            own.write(bound[key][1], raw)
    return push, likes


def _read_bound(own, prog: Program, iface: list, views: list, bound: dict, push: bytes, likes: dict,
                res: RunResult) -> None:
    """The bindings after the dispatch, as arrays, under their keys and the names they answer to; the other views
    of a binding under their own names (as the interpreter reports them)."""
    for key, name, t, vid, _data, _found, _uniform in iface:
        raw = push if key == "push_constants" else own.read(bound[key][1], bound[key][2])
        mem = Memory(name, "PushConstant" if key == "push_constants" else "StorageBuffer", len(raw), data=raw)
        b = Binding(name, key, t, mem, likes[key], vid)
        try:
            res.buffers[key] = as_array(t, raw, likes[key])
        except Fault:  # element types numpy lacks (bfloat16): the raw bytes
            res.buffers[key] = np.frombuffer(raw, np.uint8).copy()
        res.bindings[key] = b
        add_aliases(res, prog, key, b)
    add_views(res, prog, views, Binding, as_array, buffer_aliases)


def _read_extra(own, extra_bufs: dict, res: RunResult) -> None:
    """The device-address-only buffers after the dispatch, in the shape and dtype they were given."""
    for k, (mem, size, v) in extra_bufs.items():
        raw = own.read(mem, size)
        arr = np.frombuffer(raw, np.uint8).copy()
        if isinstance(v, np.ndarray) and v.nbytes == len(arr):
            arr = arr.view(v.dtype).reshape(v.shape)
        res.buffers[k] = arr
        res.bindings[k] = Binding(k, k, None, Memory(k, "PhysicalStorageBuffer", size, data=raw),
                                  v if isinstance(v, np.ndarray) else None)

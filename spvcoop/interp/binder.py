"""Binder: the binding phase of a run: the entry point's global variables given their values.

The runner makes one Binder after the lanes are laid out (`Binder(ex, prog, given, push_constants, diagnostics)`)
and calls `bind`: built-in inputs from the lane layout (lanes.Lanes.builtin), Private/Function variables allocated
(or held as values, memory.Register), Workgroup variables (explicit-layout blocks share one allocation:
aliasing.py), each descriptor's buffer from the caller's data (every other variable of the descriptor a view of it:
aliasing.py), push constants, and the given buffers no variable takes as device-address-only buffers. Data is
encoded once every device-address-only buffer has its address (a buffer may hold another's address). The Binder's
result: `values` (variable id -> its value), which the runner hands to the executor (Executor.bind_globals),
`bindings` and `addresses` (RunResult's) and `views` (RunResult's aliases); its notes go to the run's diagnostics.
Memory counts against the run's Budget as it is made.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError, UnmatchedName, did_you_mean
from ..core.records import Record
from .aliasing import bind_views, descriptor_groups, descriptor_key, workgroup_variable
from .dataio import view_bytes
from .encodings import is_encoded
from .memory import Memory, Pointer
from .program import Program
from .types import Type

BUFFER_CLASSES = ("StorageBuffer", "Uniform", "PushConstant")


# A plain record, not a dataclass: generating dataclass code costs ~1 ms a class at every start (records.py).
class Binding(Record):
    """One buffer the shader sees: a descriptor binding, the push constants or a device-address-only buffer."""
    name: str
    key: tuple[int, int] | str
    type: Type | None              # None: a buffer only its device address reaches (its bytes)
    memory: Memory | None          # None until bind() makes it
    like: np.ndarray | None
    var_id: int
    _fields = ("name", "key", "type", "memory", "like", "var_id")

    def __init__(self, name: str, key: tuple[int, int] | str, type: Type | None, memory: Memory | None,
                 like: np.ndarray | None = None, var_id: int = 0) -> None:
        self.name = name
        self.key = key
        self.type = type
        self.memory = memory
        self.like = like
        self.var_id = var_id


class Binder:
    """The binding phase of one run (module docstring). `given`: the caller's buffers by normalised key
    (runner.norm_key); `push_constants`: their data or None; `diagnostics`: the run's list its notes go to (at
    once: an error later in the binding reports them too)."""

    def __init__(self, ex, prog: Program, given: dict, push_constants, diagnostics: list[Diagnostic]) -> None:
        self.ex = ex
        self.prog = prog
        self.given = given
        self.push_constants = push_constants
        self.consumed: set = set()            # the given keys a variable took
        self.values: dict[int, object] = {}   # variable id -> its pointer or Register
        self.bindings: dict = {}              # key -> Binding
        self.addresses: dict[str, int] = {}   # buffer name -> its device address
        self.views: list[tuple[tuple[int, int], int, Type]] = []   # the other variables of a bound descriptor
        self.diagnostics = diagnostics
        self._pending: list = []              # (Binding, data, found, inst): encoded once every address is known
        self._given_names: dict = {}          # descriptor key -> the name its data was given under
        self._workgroup_block: Pointer | None = None   # the allocation explicit-layout Workgroup blocks share

    def bind(self, used: set) -> None:
        """Bind every global variable (`used`: the ids the entry point statically uses), then the given buffers
        no variable took, then encode the data."""
        self._variables(used)
        self._device_only()
        self._write_pending()

    def _variables(self, used: set) -> None:
        ex, prog = self.ex, self.prog
        values = self.values
        groups = descriptor_groups(prog, self.given, self.consumed)
        self._given_names = {k: g.named or f"{k[0]}:{k[1]}" for k, g in groups.items()}
        unused: list[str] = []
        for inst in prog.globals:
            if inst.opname != "OpVariable":
                continue
            ptype = prog.types[cast(int, inst.result_type)]   # an OpVariable has a result type and id
            t = cast(Type, ptype.elem)
            storage = ptype.storage
            vid = cast(int, inst.result_id)
            name = prog.name_of(vid)
            init = ex.gvals.get(inst.operands[1].value) if len(inst.operands) > 1 else None
            if storage == "Input":
                b = prog.builtin_of(vid)
                value = ex.lanes.builtin(b) if b is not None else None
                if value is None:
                    raise SpvError(Diagnostic("error", f"input variable {name} (BuiltIn {b}) is not supported "
                                              f"in compute shaders", inst.span, source=prog.source))
                from .memory import Register
                values[vid] = Register(name, value, None)
            elif storage in ("Private", "Function") and vid in prog.registers:
                from .memory import Register
                values[vid] = Register(name, init, None if init is not None else np.zeros(ex.N, bool))
            elif storage in ("Private", "Function"):
                for prepare in ex.dispatcher.prepare_variable:  # e.g. cooperative matrices: sizes follow the layout
                    prepare(ex, t)
                ptr = ex.allocate(name, storage, t, "lane", init, inst=inst)
                if init is None:
                    ptr.mem.written = np.zeros(ex.N, bool)
                values[vid] = ptr
            elif storage == "Workgroup":
                values[vid], self._workgroup_block = workgroup_variable(ex, prog, inst, t, name, init,
                                                                        self._workgroup_block)
            elif storage in BUFFER_CLASSES:
                if storage == "PushConstant":
                    key: tuple[int, int] | str = "push_constants"
                    data = self.push_constants
                    found = data is not None
                else:
                    key = dkey = descriptor_key(prog, vid)
                    group = groups[dkey]
                    if vid != group.reader:  # another view of the descriptor's one buffer (aliasing.py)
                        self.views.append((dkey, vid, t))
                        continue
                    data, found = group.data, group.found
                shown = prog.names.get(vid) or t.name or name
                if not found and not (used & set(group.vids) if storage != "PushConstant" else vid in used):
                    # e.g. the StorageBuffer variable glslang emits for every buffer_reference block: Vulkan
                    # needs no descriptor for a variable no function of the entry point uses
                    unused.append(shown)
                    continue
                self.bindings[key] = Binding(shown, key, t, None, None, vid)
                self._pending.append((self.bindings[key], data, found, inst))
            elif storage == "PhysicalStorageBuffer":
                pass
            else:
                raise SpvError(Diagnostic("error", f"variables in {storage} storage are not supported",
                                          inst.span, source=prog.source))
        if unused:
            names = ", ".join(f"'{n}'" for n in unused)
            self.diagnostics.append(Diagnostic(
                "note", f"buffer{'s' if len(unused) > 1 else ''} {names} {'are' if len(unused) > 1 else 'is'} not used "
                        "by the entry point; no data needed", source=prog.source))

    def _device_only(self) -> None:
        """Given buffers no variable took: device-address-only buffers (by name), else an error."""
        ex, prog = self.ex, self.prog
        src = prog.source
        for k, v in self.given.items():
            if k in self.consumed:
                continue
            if isinstance(k, str) and takes_addresses(prog):  # a device-address-only buffer
                try:
                    arr = np.ascontiguousarray(v) if not isinstance(v, (bytes, bytearray)) else None
                except (ValueError, TypeError, OverflowError) as e:  # ragged or mixed data with no type to guide it
                    raise SpvError(Diagnostic("error", f"buffer '{k}' matches no variable of the shader, and its data "
                                              f"is not a regular array ({str(e).split('.')[0]})", source=src)) from None
                # bf16 and FP8 are numbers
                if arr is not None and arr.dtype.kind not in "biufc" and not is_encoded(arr.dtype):
                    raise SpvError(Diagnostic("error", f"buffer '{k}' matches no variable of the shader, and its data "
                                              f"is not numbers (dtype {arr.dtype})", source=src))
                data = bytes(v) if arr is None else arr.tobytes()
                ex.budget.reserve(len(data), f"buffer '{k}'", None)
                mem = Memory(k, "PhysicalStorageBuffer", len(data), data=data)
                self.addresses[k] = ex.device.add(mem)
                self.bindings[k] = Binding(k, k, None, mem, arr)
                continue
            raise unmatched_buffer(prog, k)

    def _write_pending(self) -> None:
        """Encode buffer data now that every device-only buffer has its address."""
        ex, prog = self.ex, self.prog
        for b, data, found, inst in self._pending:
            t = b.type
            where = b.name
            if not found:
                err = no_data_error(prog, where, b.key, t, inst)
                if err is not None:
                    raise err
                ex.budget.reserve(t.size(), f"buffer '{where}'", inst, keep=False)
                raw = bytes(t.size())
            else:
                try:
                    raw, b.like = view_bytes(t, data, where, prog.source, self.addresses)
                except UnmatchedName as e:  # a member name: where it sits in a run spec
                    e.section = "push_constants" if b.key == "push_constants" else "buffers"
                    e.path = e.path if b.key == "push_constants" else \
                        (self._given_names.get(b.key, where),) + e.path
                    raise
            ex.budget.reserve(len(raw), f"buffer '{where}'", inst)
            b.memory = Memory(where, "PushConstant" if b.key == "push_constants" else "StorageBuffer",
                              len(raw), data=raw)
            # robustBufferAccess bounds each buffer of a descriptor array on its own; here they are one memory, where
            # an index past one element's block would reach the next buffer: every index is checked instead (an error)
            b.memory.robust = bool(ex.config.robust_buffer_access) and t.kind != "array"
            self.addresses.setdefault(where, ex.device.add(b.memory))
            self.values[b.var_id] = Pointer(b.memory, np.zeros(1, np.int64), t, 0, align=1 << 16)
        bind_views(self.values, self.bindings, self.views)


def no_data_error(prog: Program, name: str, key, t: Type, inst) -> SpvError | None:
    """The error for a buffer the entry point uses that was given no data, where zeros cannot stand in: a block
    with a runtime array (its size comes from the data); None otherwise. Both backends refuse it alike."""
    if not (t.kind == "struct" and t.members and t.members[-1].kind == "runtime_array"):
        return None
    alias = f", or '{t.member_names[0]}'" if len(t.members) == 1 else ""
    return SpvError(Diagnostic("error", f"no data for buffer '{name}' (set {key[0]}, binding {key[1]}{alias}): it "
                               "has a runtime array, so its size must be given" if isinstance(key, tuple) else
                               f"no data for '{name}'", inst.span, source=prog.source))


def takes_addresses(prog: Program) -> bool:
    """Whether the shader can reach a buffer by its device address (a PhysicalStorageBuffer pointer type)."""
    return any(t.kind == "pointer" and t.storage == "PhysicalStorageBuffer" for t in prog.types.values())


def unmatched_buffer(prog: Program, k) -> UnmatchedName:
    """A buffer name or key that no variable of the shader answers to, with the nearest one the shader has."""
    names: list[str] = []
    for inst in prog.globals:
        vid, rt = cast(int, inst.result_id), cast(int, inst.result_type)   # an OpVariable has both
        if inst.opname == "OpVariable" and prog.types[rt].storage in ("StorageBuffer", "Uniform"):
            key = descriptor_key(prog, vid)
            t = cast(Type, prog.types[rt].elem)
            own = [prog.names.get(vid), t.name] + ([t.member_names[0]] if len(t.members) == 1 else [])
            names += [n for n in own if n] + [f"{key[0]}:{key[1]}"]
    names = list(dict.fromkeys(names))
    shown = f"{k[0]}:{k[1]}" if isinstance(k, tuple) else str(k)
    return UnmatchedName(Diagnostic("error", f"buffer '{shown}' matches no variable of the shader"
                                    f"{did_you_mean(shown, names)} (buffers: {', '.join(names) or 'none'})",
                                    source=prog.source), "buffers", (shown,))

"""Variables, pointers, loads and stores, barriers, function calls and OpExtInst dispatch."""
from __future__ import annotations

from typing import cast

import numpy as np

from .fault import Fault
from .types import Type
from .memory import Memory, Pointer, Register, RegisterView, load, store
from .values import select, value_bytes, zeros
from .ops_arith import to_type
from .program import enum_name
from .dispatch import OpSet
from .undefined import defined, read_undefined, undefined_lanes, undefined_store
from .races import READ, WRITE, fence_sync, pointer_access, watched

OPS = OpSet()


@OPS.op("OpVariable")
def variable(ex, frame, inst, mask):
    t = ex.rtype(inst).elem
    init = ex.arg(frame, inst, 1) if len(inst.operands) > 1 else None
    if inst.result_id in ex.prog.registers:
        return Register(ex.prog.name_of(inst.result_id), init, None if init is not None else np.zeros(ex.N, bool))
    ptr = ex.allocate(ex.prog.name_of(inst.result_id), "Function", t, "lane", init, mask, inst)
    if init is None:
        ptr.mem.written = np.zeros(ex.N, bool)
    return ptr


def _index(ex, frame, o) -> np.ndarray:
    v = np.asarray(ex.val(frame, o.value))
    if v.dtype.kind == "u" and v.dtype.itemsize == 8:
        return v.view(np.int64)
    return v.astype(np.int64)


def chain(ex, frame, ptr: Pointer, indices, mask) -> Pointer:
    t = ptr.type
    for o in indices:
        k = t.kind
        if k == "struct":
            i = int(np.asarray(ex.val(frame, o.value)).reshape(-1)[0])
            if not 0 <= i < len(t.members):
                raise Fault(f"member index {i} is out of range for {t.describe()} ({len(t.members)} members)")
            m = t.members[i]
            ml = t.member_matrix_layout(i, m) if _holds_matrix(m) else ptr.matrix
            ptr = ptr.moved(t.member_offset(i), m, ml)
            t = m
        elif k in ("array", "runtime_array"):
            idx = _index(ex, frame, o)
            if k == "array" and t.count and not getattr(ptr.mem, "robust", False):
                _check_index(idx, t, mask, ptr.mem.name)
            ptr = ptr.moved(idx * t.array_stride(), cast(Type, t.elem), unit=t.array_stride())
            t = ptr.type
        elif k == "matrix":
            idx = _index(ex, frame, o)
            if not getattr(ptr.mem, "robust", False):   # robustBufferAccess: the buffer's bounds decide
                _check_index(idx, t, mask, ptr.mem.name)
            col = cast(Type, t.elem)   # a matrix's column type
            stride, rm = ptr.matrix or (col.size(), False)
            if rm:
                ptr = ptr.moved(idx * t.scalar_size(), col, vstride=stride, unit=t.scalar_size())
            else:
                ptr = ptr.moved(idx * stride, col, unit=stride)
            t = col
        elif k == "vector":
            idx = _index(ex, frame, o)
            if not getattr(ptr.mem, "robust", False):
                _check_index(idx, t, mask, ptr.mem.name)
            ptr = ptr.moved(idx * (ptr.vstride or t.scalar_size()), cast(Type, t.elem),
                            unit=ptr.vstride or t.scalar_size())
            t = ptr.type
        elif (hooks := ex.dispatcher.kind(k)) is not None and hooks.access_chain is not None:
            ptr = hooks.access_chain(ex, frame, ptr, o, mask)
            t = ptr.type
        else:
            raise Fault(f"cannot index into {t.describe()}")
    return ptr


def _check_index(idx: np.ndarray, t, mask: np.ndarray, where: str) -> None:
    """An index into an array, vector or matrix of `t.count` elements must name one of them (validation
    accepts a constant past a vector's end; memory after it may belong to something else)."""
    bad = np.broadcast_to((idx < 0) | (idx >= t.count), mask.shape) & mask
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise Fault(f"index {int(np.broadcast_to(idx, mask.shape)[lane])} out of bounds for "
                    f"{t.describe()} in '{where}'", np.flatnonzero(bad))


_FAR = 1 << 62   # a uniform chain's offset beyond this is left to chain() (int64 wrap-around)


def uniform_chain(ex, frame, ptr: Pointer, indices):
    """chain() where every index is one value for all invocations ((1,) arrays) and every step is a struct
    member or an in-range array element: the offsets summed in Python, one Pointer made at the end, the same
    pointer chain() makes. None for anything else (matrices, vectors, other kinds, an index out of range),
    which chain() then walks with its checks and errors."""
    t = ptr.type
    delta = 0
    align = ptr.align
    vals, gvals = frame.vals, ex.gvals
    for o in indices:
        v = vals.get(o.value)
        if v is None:
            v = gvals.get(o.value)
            if v is None:
                v = ex.val(frame, o.value)   # it finds the value or raises the Fault chain() would
        if type(v) is not np.ndarray or v.shape != (1,) or v.dtype.kind not in "iu":
            return None
        k = t.kind
        i = v.item()
        if k == "struct":
            if not 0 <= i < len(t.members) or _holds_matrix(t.members[i]):
                return None
            unit = t.member_offset(i)
            delta += unit
            t = t.members[i]
        elif k == "array" or k == "runtime_array":
            if v.dtype.itemsize == 8 and v.dtype.kind == "u" and i >= 1 << 63:
                i -= 1 << 64   # _index views a 64-bit unsigned index as signed
            if k == "array" and t.count and not 0 <= i < t.count:
                return None
            unit = t.array_stride()
            delta += i * unit
            t = t.elem  # type: ignore[assignment]  # hot path (per access-chain step): an array has its element type
        else:
            return None
        if unit:   # Pointer.moved's alignment: the largest power of two dividing every step
            align = min(align, unit & -unit)
        if not -_FAR < delta < _FAR:
            return None
    off = ptr.off
    if type(off) is np.ndarray and off.shape == (1,) and off.dtype == np.int64:
        x = off.item() + delta   # a new (1,) array without a ufunc call: the same int64 value as off + delta
        if not -_FAR < x < _FAR:
            return None
        off = np.array([x], np.int64)
    else:
        off = off + delta
    return Pointer(ptr.mem, off, t, ptr.base, ptr.matrix, None, max(align, 1))


class _ChainPlan:
    """What uniform_chain computes from an instruction's types and run-constant indices, worked out once per run
    and instruction (a tile loop executes the same access chain thousands of times): the byte offset of the
    constant steps, the array steps whose index varies (id, stride, element count or 0), the result type and the
    alignment the steps give. Valid for one pointee type (`src`); _planned_chain returns None where uniform_chain
    would (or might) do something else, and the caller then takes the general path. The last base pointer seen
    (`last`; usually the same buffer variable every call) with its offset as an int (`x0`, None unless a (1,)
    int64 array) and the result's alignment (`palign`): pointers are never changed once made."""
    __slots__ = ("base_id", "src", "lead", "steps", "elem", "align", "last", "x0", "palign")

    def __init__(self, base_id: int, src: Type, lead: int, steps: tuple, elem: Type, align: int) -> None:
        self.base_id, self.src, self.lead, self.steps, self.elem, self.align = base_id, src, lead, steps, elem, align
        self.last: Pointer | None = None
        self.x0: int | None = None
        self.palign = 1

    def remember(self, p: Pointer) -> None:
        off = p.off
        self.x0 = off.item() if type(off) is np.ndarray and off.shape == (1,) and off.dtype == _INT64 else None
        align = p.align if p.align < self.align else self.align
        self.palign = align if align > 1 else 1
        self.last = p

    @staticmethod
    def make_for(ex, frame, inst) -> _ChainPlan | None:
        """The plan for the pointer the instruction's base holds when first executed (None: no Pointer)."""
        ops = inst.operands
        vals = frame.vals
        p = vals[ops[0].value] if ops[0].value in vals else ex.gvals.get(ops[0].value)
        if type(p) is not Pointer or len(ops) < 2:
            return None
        return _ChainPlan.make(ex, inst, p.type)

    @staticmethod
    def make(ex, inst, src: Type) -> _ChainPlan | None:
        """None where a step is anything but a struct member (a run constant, not holding a matrix) or an array
        element (a sized array's constant index in range; a runtime array's constant index is left to
        uniform_chain: it may be negative or huge)."""
        ops = inst.operands
        t = src
        lead = 0        # the constant bytes before the first varying index
        steps: list = []  # (id, unit, count, constant bytes after it)
        align = 1 << 62
        for o in ops[1:]:
            k = t.kind
            v = ex.gvals.get(o.value)   # a constant or spec constant: the same for the whole run
            const = type(v) is np.ndarray and v.shape == (1,) and v.dtype.kind in "iu"
            if k == "struct":
                if not const:
                    return None
                i = v.item()
                if not 0 <= i < len(t.members) or _holds_matrix(t.members[i]):
                    return None
                unit = delta = t.member_offset(i)
                t = t.members[i]
            elif k == "array" or k == "runtime_array":
                unit = t.array_stride()
                count = t.count if k == "array" else 0
                if const:
                    i = v.item()
                    if k == "runtime_array" or not 0 <= i < count:
                        return None
                    delta = i * unit
                else:
                    steps.append([o.value, unit, count, 0])
                    delta = 0
                t = t.elem  # type: ignore[assignment]  # an array has its element type
            else:
                return None
            if unit:
                align = min(align, unit & -unit)
            if delta < 0 or delta >= _FAR:   # a sized type's offsets: never, but uniform_chain checks every step
                return None
            if steps:
                steps[-1][3] += delta
            else:
                lead += delta
        if not -_FAR < lead < _FAR or any(s[3] >= _FAR for s in steps):
            return None
        return _ChainPlan(ops[0].value, src, lead, tuple(tuple(s) for s in steps), t, align)


_INT64 = np.dtype(np.int64)
_empty = np.empty


def _planned_chain(ex, fp, frame, inst) -> Pointer | None:
    """An access chain through its _ChainPlan (`fp`: the run's FastPaths): the pointer uniform_chain gives, or None
    (then the general path)."""
    plan = fp.plans.get(inst.index)
    if plan is None:
        plan = fp.plan(inst, _ChainPlan.make_for, ex, frame, inst)
    vals = frame.vals
    if plan is False:
        return None
    p = vals.get(plan.base_id)
    if p is None:
        p = ex.gvals.get(plan.base_id)
    if p is not plan.last:
        if type(p) is not Pointer or p.type is not plan.src:
            return None
        plan.remember(p)
    delta = plan.lead
    for id_, unit, count, after in plan.steps:
        v = vals.get(id_)
        if v is None:
            v = ex.gvals.get(id_)
        if type(v) is not np.ndarray or v.shape != (1,) or v.dtype.kind not in "iu":
            return None   # per-invocation, undefined or not an integer: uniform_chain / chain() decide
        i = v.item()
        if i >= 1 << 63:
            i -= 1 << 64   # as uniform_chain: a 64-bit unsigned index seen as signed
        if count and not 0 <= i < count:
            return None
        delta += i * unit
        if not -_FAR < delta < _FAR:
            return None
        delta += after   # 0 <= after < _FAR: the partial sums between lie between the two checked ones
        if not delta < _FAR:
            return None
    x0 = plan.x0
    if x0 is not None:
        x = x0 + delta
        if not -_FAR < x < _FAR:
            return None
        off = _empty(1, _INT64)   # the same (1,) int64 array as uniform_chain's, made at half the cost
        off[0] = x
    else:
        off = p.off + delta
    fp.taken.add("chains")
    return Pointer(p.mem, off, plan.elem, p.base, p.matrix, None, plan.palign)


def _holds_matrix(t) -> bool:
    while t.kind in ("array", "runtime_array"):
        t = t.elem
    return t.kind == "matrix"


@OPS.op("OpAccessChain", "OpInBoundsAccessChain")
def access_chain(ex, frame, inst, mask):
    fp = ex.fast
    fast = fp is not None and fp.chains
    if fast:
        q = _planned_chain(ex, fp, frame, inst)
        if q is not None:
            return q
    p = ex.arg(frame, inst, 0)
    if isinstance(p, (Register, RegisterView)):  # built-in inputs
        idx = [int(v[0]) if v.shape == (1,) else v.astype(np.int64)
               for v in (np.asarray(ex.val(frame, o.value)) for o in inst.operands[1:])]
        ptype = ex.type_of_id(inst.operands[0].value)
        t = ptype.elem if ptype is not None and ptype.kind == "pointer" else None
        for i in idx:  # the register's value is indexed by numpy: a bad index must fail here, located
            if t is None or t.kind not in ("vector", "array", "matrix") or not t.count:
                raise Fault(f"cannot index into {t.describe() if t is not None else 'this value'}")
            _check_index(np.asarray(i, np.int64), t, mask, p.name if isinstance(p, Register) else p.reg.name)
            t = t.elem
        return RegisterView(p, idx) if isinstance(p, Register) else RegisterView(p.reg, p.indices + idx)
    if fast and type(p) is Pointer and len(inst.operands) > 1:
        q = uniform_chain(ex, frame, p, inst.operands[1:])
        if q is not None:
            fp.taken.add("chains")
            return q
    return chain(ex, frame, p, inst.operands[1:], mask)


@OPS.op("OpPtrAccessChain", "OpInBoundsPtrAccessChain")
def ptr_access_chain(ex, frame, inst, mask):
    p: Pointer = ex.arg(frame, inst, 0)
    ptype = ex.type_of_id(inst.operands[0].value)
    stride = ptype.stride if ptype is not None and ptype.stride is not None else p.type.size()
    elem = _index(ex, frame, inst.operands[1])
    p = p.moved(elem * stride, p.type, unit=stride)
    return chain(ex, frame, p, inst.operands[2:], mask)


def unwritten(ptr: Pointer, mask) -> np.ndarray | None:
    """The active invocations that read a Function/Private variable's copy nothing was stored to (None: none)."""
    mem = ptr.mem
    written = getattr(mem, "written", None)   # a Memory's flags (a DeviceMemory has none)
    if written is None or mem.storage not in ("Function", "Private"):
        return None
    copy = np.broadcast_to(np.asarray(ptr.base) // cast(Memory, mem).region, mask.shape)
    bad = mask & ~written[copy]
    return bad if bad.any() else None


def _written_check(ex, ptr: Pointer, mask) -> None:
    bad = unwritten(ptr, mask)
    if bad is not None:
        raise Fault(f"'{ptr.mem.name}' is read before anything was stored to it", np.flatnonzero(bad))


@OPS.op("OpLoad")
def load_op(ex, frame, inst, mask):
    ptr = ex.arg(frame, inst, 0)
    if isinstance(ptr, RegisterView):
        return ptr.get()
    if isinstance(ptr, Register):
        bad = None if ptr.written is None else mask & ~ptr.written
        if bad is not None and bad.any():
            read_undefined(ex, frame, inst, ptr.name, bad)
            if ptr.value is None:  # stored by no invocation yet: the undefined value is the type's zero
                return zeros(ex.rtype(inst), ex.dispatcher)
        else:
            defined(frame, inst)
        return ptr.value
    if not isinstance(ptr, Pointer):
        raise Fault("operand is not a pointer")
    bad = unwritten(ptr, mask)
    if bad is not None:
        read_undefined(ex, frame, inst, ptr.mem.name, bad)
    else:
        defined(frame, inst)
    t = ex.rtype(inst)
    if t.kind in ("array", "struct"):  # a tuple of per-invocation arrays: check its size first
        ex.budget.reserve(value_bytes(t, mask.shape[0]), f"the loaded {t.describe()}", inst, keep=False)
    v = load(ptr, t, mask, ex.device)   # first: an out-of-bounds load is a fault, not a race
    if ex.races is not None and watched(ptr.mem):
        pointer_access(ex.races, READ, ptr, t, mask, inst)
    return v


def mark_written(ex, frame, inst, ptr: Pointer, mask) -> None:
    """After an OpStore (inst; None: a copy): the stored copies were written -- unless the stored value is an
    undefined one (undefined.py), which leaves them never stored in its invocations."""
    mem = ptr.mem
    undef = None if inst is None else undefined_lanes(frame, inst.operands[1].value)
    if undef is not None and (mem.storage not in ("Function", "Private") or getattr(mem, "written", None) is None):
        undefined_store(frame, inst, mask, mem.name, mem.storage)
    written = getattr(mem, "written", None)   # a Memory's flags (a DeviceMemory has none)
    if written is not None:
        copy = np.broadcast_to(np.asarray(ptr.base) // cast(Memory, mem).region, mask.shape)
        written[copy[mask]] = True
        if undef is not None:
            written[copy[mask & undef]] = False


@OPS.op("OpStore")
def store_op(ex, frame, inst, mask):
    ptr = ex.arg(frame, inst, 0)
    if isinstance(ptr, Register):
        v = ex.arg(frame, inst, 1)
        full = bool(mask.all())
        ptr.value = v if full or ptr.value is None else select(mask, v, ptr.value)
        undef = undefined_lanes(frame, inst.operands[1].value)
        if undef is not None:  # the variable stays never stored where the value is undefined
            was = np.ones(mask.shape, bool) if ptr.written is None else ptr.written
            ptr.written = np.where(mask, ~undef, was)
            return None
        if ptr.written is not None:
            ptr.written = None if full else ptr.written | mask
            if ptr.written is not None and ptr.written.all():
                ptr.written = None
        return None
    if not isinstance(ptr, Pointer):
        raise Fault("operand is not a pointer")
    mark_written(ex, frame, inst, ptr, mask)   # first: it refuses an undefined value for a buffer
    value = ex.arg(frame, inst, 1)
    store(ptr, ptr.type, value, mask, all_active=bool(mask.all()))
    if ex.races is not None and watched(ptr.mem):
        pointer_access(ex.races, WRITE, ptr, ptr.type, mask, inst, value=value)


@OPS.op("OpCopyMemory", "OpCopyMemorySized")
def copy_memory(ex, frame, inst, mask):
    dst, src = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    if inst.opname == "OpCopyMemorySized":
        n = int(np.asarray(ex.arg(frame, inst, 2)).reshape(-1)[0])
        from .memory import read_scalar, write_scalar
        v = read_scalar(src.mem, src.off, src.base, np.dtype(np.uint8), mask, n)
        write_scalar(dst.mem, dst.off, dst.base, np.dtype(np.uint8), v, mask, n)
        if ex.races is not None and n > 0:
            _copy_races(ex, inst, src, dst, mask, n, np.asarray(v).reshape(mask.shape[0], n))
        return None
    _written_check(ex, src, mask)
    store(dst, dst.type, load(src, src.type, mask, ex.device), mask)
    mark_written(ex, frame, None, dst, mask)
    if ex.races is not None:
        rows = None
        if src.type is dst.type and isinstance(src.mem, Memory) and src.type.size() > 0:   # one layout: the bytes
            from .memory import read_scalar
            rows = np.asarray(read_scalar(src.mem, src.off, src.base, np.dtype(np.uint8), mask, src.type.size()))
            rows = rows.reshape(mask.shape[0], -1)
        _copy_races(ex, inst, src, dst, mask, None, rows)


def _copy_races(ex, inst, src: Pointer, dst: Pointer, mask, n: int | None, rows=None) -> None:
    """OpCopyMemory(Sized): a read of the source, then a write of the target (races.py); `rows`: the bytes each
    invocation copied, where known (benign races)."""
    for kind, p in ((READ, src), (WRITE, dst)):
        if watched(p.mem):
            pointer_access(ex.races, kind, p, p.type, mask, inst, n, raw=rows if kind == WRITE else None)


def _ptr_pair(ex, frame, inst) -> tuple[Pointer, Pointer]:
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    if not isinstance(a, Pointer) or not isinstance(b, Pointer):
        raise Fault("both operands must be pointers into memory")
    return a, b


@OPS.op("OpPtrEqual", "OpPtrNotEqual")
def ptr_equal(ex, frame, inst, mask):
    """Equal: the same memory (variable, buffer) and the same byte in it (per invocation: a Function variable's
    copies are separate offsets)."""
    a, b = _ptr_pair(ex, frame, inst)
    same = np.asarray(a.off) == np.asarray(b.off) if a.mem is b.mem else np.zeros(1, bool)
    return same if inst.opname == "OpPtrEqual" else ~same


@OPS.op("OpPtrDiff")
def ptr_diff(ex, frame, inst, mask):
    """(Operand 1 - Operand 2) in elements of the pointee type (its ArrayStride where the pointer type has one);
    pointers into different memories (different arrays) have no difference in SPIR-V: an error."""
    a, b = _ptr_pair(ex, frame, inst)
    if a.mem is not b.mem:
        raise Fault(f"OpPtrDiff of pointers into different memories ('{a.mem.name}', '{b.mem.name}'): undefined")
    ptype = ex.type_of_id(inst.operands[0].value)
    stride = ptype.stride if ptype is not None and ptype.stride else a.type.size()
    d = np.asarray(a.off, np.int64) - np.asarray(b.off, np.int64)
    if (d % max(stride, 1)).any():
        raise Fault(f"OpPtrDiff: the pointers are not a whole number of {stride}-byte elements apart")
    return to_type(d // max(stride, 1), ex.rtype(inst))


@OPS.op("OpArrayLength")
def array_length(ex, frame, inst, mask):
    p: Pointer = ex.arg(frame, inst, 0)
    i = inst.operands[1].value
    st = p.type
    arr = st.members[i]
    off = int(np.asarray(p.off).reshape(-1)[0]) if not isinstance(p.mem, type(ex.device)) else 0
    avail = p.mem.region - off - st.member_offset(i)
    return np.array([max(avail, 0) // arr.array_stride()], dtype=ex.rtype(inst).dtype)


def _scope(ex, frame, id_) -> str:
    return enum_name("Scope", int(np.asarray(ex.val(frame, id_)).reshape(-1)[0]))


@OPS.op("OpControlBarrier")
def control_barrier(ex, frame, inst, mask):
    scope = _scope(ex, frame, inst.operands[0].value)
    if ex.races is not None and scope in ("Workgroup", "Subgroup"):
        _check_barrier(ex, scope, mask)   # first: a barrier reached by part of a group is an error, no ordering
        sem = int(np.asarray(ex.val(frame, inst.operands[2].value)).reshape(-1)[0])
        ex.races.control_barrier(scope, sem, mask)
        return None
    _check_barrier(ex, scope, mask)
    return None


def _check_barrier(ex, scope: str, mask) -> None:
    if scope == "Workgroup":
        groups = ex.lanes.wg_index
    elif scope == "Subgroup":
        groups = ex.lanes.sg_global
    else:
        return None
    alive = ex.alive
    if not ex.any_killed and mask.all():
        return None
    n = int(groups.max()) + 1
    reached = np.bincount(groups[mask], minlength=n)
    total = np.bincount(groups[alive], minlength=n)
    partial = (reached > 0) & (reached < total)
    if partial.any():
        g = int(np.flatnonzero(partial)[0])
        missing = np.flatnonzero((groups == g) & alive & ~mask)
        what = "workgroup" if scope == "Workgroup" else "subgroup"
        raise Fault(f"barrier reached by only part of {what} {g} ({int(reached[g])} of {int(total[g])} "
                    f"invocations); the others are in other control flow or have returned", missing)


@OPS.op("OpMemoryBarrier")
def memory_barrier(ex, frame, inst, mask):
    """Orders nothing between invocations by itself; its semantics join the next control barrier's (races.py)."""
    if ex.races is not None:
        sem = int(np.asarray(ex.val(frame, inst.operands[1].value)).reshape(-1)[0])
        ex.races.memory_barrier(sem, mask)
        fence_sync(ex.races, sem, mask)   # its Release / Acquire, for atomics (issue 37)
    return None


@OPS.op("OpNop", "OpLine", "OpNoLine", "OpLifetimeStart", "OpLifetimeStop",
    "OpModuleProcessed", "OpSourceContinued")
def no_op(ex, frame, inst, mask):
    return None


@OPS.op("OpFunctionCall")
def function_call(ex, frame, inst, mask):
    fn = ex.prog.functions[inst.operands[0].value]
    args = [ex.val(frame, o.value) for o in inst.operands[1:]]
    return ex.call(fn, args, mask, inst)


@OPS.op("OpExtInst")
def ext_inst(ex, frame, inst, mask):
    set_name = ex.ext_names.get(inst.operands[0].value, "?")
    num = inst.operands[1].value
    if set_name.startswith("NonSemantic."):
        return None
    from ..core.spirv_grammar import load as load_grammar
    es = load_grammar().ext_set(set_name)
    spec = es.by_opcode.get(num) if es else None
    name = spec.opname if spec else str(num)
    fn = ex.dispatcher.ext_ops.get(set_name, {}).get(name)
    if fn is None:
        from ..core.diagnostics import Diagnostic, SpvError
        raise SpvError(Diagnostic("error", f"unsupported extended instruction {set_name} {name}: the interpreter "
                                  f"does not implement it", inst.span, rule="interp.unsupported",
                                  source=ex.prog.source))
    args = [ex.val(frame, o.value) for o in inst.operands[2:]]
    return fn(ex, inst, args, mask)

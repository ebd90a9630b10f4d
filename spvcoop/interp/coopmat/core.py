"""Cooperative matrices (SPV_NV_cooperative_matrix, SPV_KHR_cooperative_matrix): types, values, per-invocation views.

The core of the coopmat family: every op module of the package imports this one, never the other way round.

A matrix value is held *logically*: one rows x cols numpy matrix per scope
instance (per subgroup for Subgroup scope, per workgroup for Workgroup scope),
`CoopMat.data` of shape (G, rows, cols), or (1, rows, cols) for a value that is
the same everywhere (constants). The layout model (spvcoop.layouts) is consulted
only where an invocation's own view is observable: OpCooperativeMatrixLength,
OpCompositeExtract/Insert, access chains into a matrix held in a Function
variable, and merging values under a mask that splits a subgroup.

Load/Store live in memory.py, MulAdd and element-wise ops in math.py, the hooks for
composites, null values and Function variables in values.py; family.py declares the
family; docs/interpreter-coopmat.md states the semantics.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from ...core.diagnostics import Diagnostic
from ..encodings import BF16, bf16_toward_zero, convert
from ..fault import Fault
from ..program import enum_name

if TYPE_CHECKING:   # for the annotations only: the executor loads the op families
    from ..executor import Executor

DEFAULT_MODELS = ("nvidia", "striped")  # without --layout: the first model that defines the type


class LayoutUndefined(Fault):
    """The chosen layout model does not define a type the shader uses (portability runs skip the model)."""


@dataclass(eq=False)
class CoopInfo:
    """What one cooperative-matrix type resolves to in one run."""
    type: object
    rows: int
    cols: int
    scope: str           # "Subgroup" or "Workgroup"
    component: str       # layout component name (f16, s8, ...)
    use: str | None      # a / b / acc (KHR), None (NV)
    dtype: np.dtype      # the values' dtype (float32 for bfloat16 and FP8, whose values it holds exactly)
    ex: Executor
    _layout: object = None
    storage: np.dtype | None = None  # the component's own dtype where it differs from dtype (bf16, FP8)
    all_lanes: tuple | None = None   # first_lanes when every invocation is active (read-only arrays)

    @property
    def storage_dtype(self) -> np.dtype:
        return self.storage if self.storage is not None else self.dtype

    @property
    def itemsize(self) -> int:
        return self.storage_dtype.itemsize

    @functools.cached_property
    def window_dtype(self) -> np.dtype:
        """Unsigned integers of the component's size: memory's bit patterns (coopmat/memory.py's views)."""
        return np.dtype(f"u{self.itemsize}")

    def from_storage(self, raw: np.ndarray) -> np.ndarray:
        """Values from what memory holds (bf16 / FP8 -> float32, exact)."""
        if self.storage is None:
            return raw
        return np.asarray(raw).view(self.storage).astype(np.float32)

    def to_storage(self, values: np.ndarray, saturate: bool = False) -> np.ndarray:
        """What memory holds for these values (float32 -> bf16 / FP8, rounded to nearest even;
        FP8 overflow to NaN / infinity, or to the largest finite value when saturating)."""
        if self.storage is None:
            return values
        values = np.asarray(values, np.float32)
        out = convert(values, self.storage, saturate)
        if self.storage == BF16:
            # a value bf16 holds exactly keeps its bits, NaNs included (a matrix's values are already rounded:
            # storing one is no conversion); ml_dtypes would give any NaN as 0x7fc0
            u = np.ascontiguousarray(values).view(np.uint32)
            exact_nan = np.isnan(values) & ((u & np.uint32(0xFFFF)) == 0)
            if exact_nan.any():
                out = np.where(exact_nan, (u >> 16).astype(np.uint16).view(BF16), out)
        return out

    def rounded(self, values: np.ndarray, truncate: bool = False, saturate: bool = False) -> np.ndarray:
        """Values rounded to the component type (a no-op except for bf16 and FP8, held in float32): to
        nearest even, or (bf16 only: what the H100 does) toward zero."""
        if self.storage is None:
            return values
        if truncate and self.storage == BF16:
            return bf16_toward_zero(values).astype(np.float32)
        return self.from_storage(self.to_storage(values, saturate))


    def describe(self) -> str:
        u = f", use {self.use}" if self.use else ""
        return f"coopmat<{self.component}, {self.scope}, {self.rows}x{self.cols}{u}>"

    # ---- scope instances ------------------------------------------------------
    @property
    def group(self) -> np.ndarray:
        """Scope instance of every invocation, shape (N,)."""
        ex = self.ex
        return ex.lanes.sg_global if self.scope != "Workgroup" else ex.lanes.wg_index

    @property
    def position(self) -> np.ndarray:
        """Index of every invocation inside its scope instance (the p of the layout's row[p, i])."""
        ex = self.ex
        return ex.lanes.sg_local if self.scope != "Workgroup" else ex.lanes.local_index

    @functools.cached_property
    def run_length(self) -> int:
        """S where scope instance j holds exactly invocations j*S .. j*S+S-1 (the usual layout), else 0."""
        g, n = self.group, self.num_groups
        S = g.shape[0] // n if n else 0
        return S if S and S * n == g.shape[0] and np.array_equal(g, np.arange(g.shape[0]) // S) else 0

    @property
    def num_groups(self) -> int:
        ex = self.ex
        return ex.lanes.num_sg_total if self.scope != "Workgroup" else int(ex.lanes.wg_index.max()) + 1

    @property
    def scope_size(self) -> int:
        ex = self.ex
        return ex.lanes.subgroup_size if self.scope != "Workgroup" else ex.lanes.wg_size

    # ---- layout -------------------------------------------------------------------
    def layout(self):
        if self._layout is None:
            self._layout = resolve_layout(self.ex, self)
        return self._layout

    @property
    def length(self) -> int:
        return self.layout().length


@functools.cache
def _builtin_model(name: str):
    """A built-in model, parsed once per process: without --layout every matrix type of every run asked for
    the default models again (a YAML parse and the model's fixed tables each time)."""
    from ...layouts import load_model
    return load_model(name)


def resolve_layout(ex, info: CoopInfo):
    from ...layouts import LayoutError, load_model
    S = info.scope_size
    chosen = ex.config.layout_model
    names = [chosen] if chosen is not None else list(DEFAULT_MODELS)
    last = None
    for m in names:
        try:
            model = (_builtin_model(m) if m in DEFAULT_MODELS else load_model(m)) if isinstance(m, str) else m
            if chosen is None and not model.defines(info.component, info.rows, info.cols, info.use, S):
                continue
            return model.layout(info.component, info.rows, info.cols, info.use, S)
        except LayoutError as e:
            last = e
    msg = last.diagnostics[0].message if last is not None else f"no layout model defines {info.describe()}"
    raise LayoutUndefined(f"{msg} (type {info.describe()}, {info.scope.lower()} size {S})")


def coop_info(ex, t) -> CoopInfo:
    """Resolve a coopmat Type (its rows/cols/scope/use are constant ids) once per run."""
    info = t.extra.get("coop")
    if info is not None and info.ex is ex:
        return info
    from ...layouts import LayoutError, component_name, normalize_use
    ids = t.extra["operand_ids"]

    def const(i):
        v = ex.gvals.get(i)
        if v is None:
            raise Fault(f"cooperative matrix type {ex.prog.name_of(t.id)}: operand {ex.prog.name_of(i)} "
                        f"is not a constant")
        return int(np.asarray(v).reshape(-1)[0])
    elem = t.elem
    try:
        comp = component_name(elem.kind, elem.width, elem.signed, elem.extra.get("encoding"))
    except LayoutError as e:
        raise Fault(e.diagnostics[0].message) from None
    encoding = elem.extra.get("encoding")
    scope = enum_name("Scope", const(ids[1]))
    if scope not in ("Subgroup", "Workgroup"):
        raise Fault(f"cooperative matrix scope {scope} is not supported (Subgroup or Workgroup)")
    use = normalize_use(str(const(ids[4]))) if t.opname == "OpTypeCooperativeMatrixKHR" else None
    rows, cols = const(ids[2]), const(ids[3])
    if rows < 1 or cols < 1:  # a spec constant set to 0 or a negative number (validation saw the default)
        raise Fault(f"cooperative matrix type {ex.prog.name_of(t.id)} has {rows} rows and {cols} columns: "
                    f"both must be at least 1")
    if encoding:  # bf16 / FP8: held as float32 values (exact), stored in their own encoding
        info = CoopInfo(t, rows, cols, scope, comp, use, np.dtype(np.float32), ex,
                        storage=elem.dtype)
    else:
        info = CoopInfo(t, rows, cols, scope, comp, use, elem.dtype, ex)
    _reserve_matrix(ex, t, info)
    if ex.config.layout_model is not None and scope != "Workgroup":
        # an explicit model must define every Subgroup-scope type the shader uses, observed or not; no model
        # describes a Workgroup-scope matrix per invocation: it fails only where a shader observes that view
        info.layout()
    t.extra["coop"] = info
    return info


# Bytes per element one matrix value may take while an operation builds it: a load computes an int64 address
# for every element of every scope instance before reading (coopmat/memory.py), the widest of its arrays.
MATRIX_BYTES_PER_ELEMENT = 8


def _reserve_matrix(ex, t, info: CoopInfo) -> None:
    """Refuse a matrix type the memory budget cannot hold before any value of it is allocated: a 3 KB module
    declaring 65536x65536 matrices asked numpy for 32 GiB (MemoryError, exit 3). The bytes are checked,
    not kept: values come and go, the budget bounds the largest one."""
    if info.rows < 1 or info.cols < 1:
        raise Fault(f"cooperative matrix type {ex.prog.name_of(t.id)} has {info.rows} rows and {info.cols} columns "
                    "(both must be at least 1)")
    nbytes = info.num_groups * info.rows * info.cols * MATRIX_BYTES_PER_ELEMENT
    ex.budget.reserve(nbytes, f"a value of {info.describe()} ({info.num_groups:,} x {info.rows:,} x {info.cols:,} "
                      f"elements x {MATRIX_BYTES_PER_ELEMENT} bytes while it is built)", ex.prog.defs.get(t.id),
                      keep=False)


def ensure_sizes(ex) -> None:
    """Give every coopmat type its per-invocation size (length x component) so Function variables holding
    matrices (indexed through access chains) can be allocated in memory."""
    if ex.family_state.get("coopmat.sized"):
        return
    for t in ex.types.values():
        if t.kind == "coopmat":
            try:
                info = coop_info(ex, t)
                t.extra["size"] = info.length * info.itemsize
            except Fault:
                pass  # reported when the type is really used
    ex.family_state["coopmat.sized"] = True


# ---- values -------------------------------------------------------------------------
class CoopMat:
    """A logical matrix per scope instance: data (G, rows, cols) or (1, rows, cols).

    After OpCompositeInsert the value may be held per invocation instead (`pl`, shape (G, S, L)) until the
    logical matrix is needed: replicated copies of an element (layouts that hold an element in two slots)
    may then disagree for a while, and only reading the whole matrix back with disagreeing copies is an error.

    `shared` (set by loads whose scope instances read the same tiles, coopmat/memory.py): (tiles, index) with
    data == tiles[index], so that MulAdd widens each distinct f16 tile once, not once per instance; with the fast
    path `shared_tiles` such a load leaves `data` unmade until something reads it (MulAdd need not)."""
    __slots__ = ("info", "_data", "pl", "shared")

    def __init__(self, info: CoopInfo, data: np.ndarray | None = None, pl: np.ndarray | None = None,
                 shared: tuple[np.ndarray, np.ndarray] | None = None):
        self.info = info
        self._data = data
        self.pl = pl
        self.shared = shared

    @staticmethod
    def of_tiles(info: CoopInfo, tiles: np.ndarray, index: np.ndarray, lazy: bool) -> CoopMat:
        """The matrix whose scope instance j holds tiles[index[j]]; `data` made now, or when first read (lazy)."""
        return CoopMat(info, None if lazy else np.take(tiles, index, axis=0), shared=(tiles, index))

    @property
    def data(self) -> np.ndarray:
        if self._data is None:
            if self.pl is None:   # a load's shared tiles, not copied to the scope instances yet (of_tiles)
                tiles, index = cast(tuple, self.shared)
                self._data = np.take(tiles, index, axis=0)
            else:
                self._data = lanes_to_matrix(self.info, self.pl)
        return self._data

    @property
    def shape(self) -> tuple[int, ...]:
        """data.shape, without making data."""
        if self._data is None and self.pl is None:
            tiles, index = cast(tuple, self.shared)
            return (len(index),) + tiles.shape[1:]
        return self.data.shape

    @property
    def dtype(self) -> np.dtype:
        """data.dtype, without making data."""
        if self._data is None and self.pl is None:
            return cast(tuple, self.shared)[0].dtype
        return self.data.dtype

    def full(self) -> np.ndarray:
        i = self.info
        return np.broadcast_to(self.data, (i.num_groups, i.rows, i.cols))

    def lanes(self) -> np.ndarray:
        """(G, S, L): what every invocation holds, element by element (padding 0)."""
        if self.pl is not None:
            return self.pl
        return self.info.layout().to_lanes(self.full())

    def per_invocation(self) -> np.ndarray:
        """(N, L): the view of each invocation."""
        i = self.info
        return self.lanes()[i.group, i.position]

    def masked_select(self, mask, old):
        """Per invocation: self where mask, old elsewhere (phis, masked results, OpSelect)."""
        old = realize(self.info.ex, old)
        if old is None or old is self or not isinstance(old, CoopMat):
            return self
        mask = np.broadcast_to(np.asarray(mask), self.info.group.shape)
        if mask.all():
            return self
        info = self.info
        ex = info.ex
        G = info.num_groups
        alive = ex.alive
        n_in = np.bincount(info.group[mask & alive], minlength=G)
        n_all = np.bincount(info.group[alive], minlength=G)
        whole = n_in == n_all
        if ((n_in == 0) | whole).all():
            return CoopMat(info, np.where(whole[:, None, None], self.full(), old.full()))
        # a mask that splits a scope instance: merge invocation by invocation through the layout
        new_l, old_l = self.lanes(), np.array(old.lanes())
        g, p = info.group[mask], info.position[mask]
        old_l[g, p] = new_l[g, p]
        ab = absent_lanes(ex, info)
        if ab is not None:  # absent lanes follow the first invocation of their subgroup
            gs = ab.groups[ab.follow(mask)]
            old_l[gs, ab.first:] = new_l[gs, ab.first:]
        return CoopMat(info, pl=old_l)

    def __repr__(self) -> str:
        return f"<{self.info.describe()}>"


def from_lanes(lay, lanes: np.ndarray) -> np.ndarray:
    from ...layouts import LayoutError
    try:
        return lay.from_lanes(lanes)
    except LayoutError as e:
        raise Fault(e.diagnostics[0].message) from None


# ---- partial subgroups ----------------------------------------------------------------------
# A workgroup of W invocations with W % S != 0 ends in a partial subgroup: its positions W % S .. S-1 hold
# no invocation (every GPU does this for a workgroup smaller than the subgroup). Those absent lanes do not
# exist: they execute nothing and write no element one by one (m[i] = ..., OpCompositeInsert). The matrix
# is still whole: the elements the layout gives to absent lanes belong to it and move with it wherever it
# goes (loads, stores, MulAdd, element-wise ops, function arguments and results, Phi/Select, variables).
# Where invocations of a partial subgroup choose different matrices (a mask that splits it: Phi, Select,
# a store to a variable under divergent control flow), the absent lanes follow the subgroup's first
# invocation, so every form of the same choice gives the same matrix.
@dataclass(frozen=True)
class Absent:
    groups: np.ndarray   # (P,) the partial subgroups (sg_global), one per workgroup
    lead: np.ndarray     # (P,) the invocation at position 0 of each: the absent lanes follow it
    first: int           # the first absent position; positions first .. S-1 are absent
    count: int           # S - first absent lanes per partial subgroup

    def follow(self, mask: np.ndarray) -> np.ndarray:
        """(P,) bool: the partial subgroups whose absent lanes take the value chosen under `mask`."""
        mask = np.asarray(mask)
        return mask[self.lead] if mask.shape[0] > 1 else np.broadcast_to(mask, self.groups.shape)


def absent_lanes(ex, info: CoopInfo | None = None) -> Absent | None:
    """The absent lanes of the dispatch's partial subgroups (None when every subgroup is full, and for
    Workgroup-scope matrices, whose scope has no absent positions)."""
    if info is not None and info.scope == "Workgroup":
        return None
    if "coopmat.absent" not in ex.family_state:
        S, W = ex.lanes.subgroup_size, ex.lanes.wg_size
        a = None
        if W % S and ex.N:
            nsg = -(-W // S)
            wgs = np.arange(ex.N // W, dtype=np.int64)
            a = Absent(wgs * nsg + nsg - 1, wgs * W + (nsg - 1) * S, W % S, S - W % S)
        ex.family_state["coopmat.absent"] = a
    return ex.family_state["coopmat.absent"]


def lanes_to_matrix(info: CoopInfo, lanes: np.ndarray, weak: np.ndarray | None = None) -> np.ndarray:
    """The logical matrices of per-invocation values (G, S, L). Under a layout that holds an element in several
    slots, a copy in a `weak` lane ((G, S) bool: lanes whose values are unknown, e.g. outside a load's mask)
    or in an absent lane takes the value of a copy in another lane: absent lanes write no element one by one,
    so their copy cannot be the one that disagrees. Copies in ordinary lanes must agree (else a Fault)."""
    lay = info.layout()
    ab = absent_lanes(info.ex, info)
    if lay.replicated and (weak is not None or ab is not None):
        w = np.zeros(lanes.shape[:2], bool) if weak is None else np.array(weak)
        if ab is not None:
            w[ab.groups, ab.first:] = True
        if w.any():
            flat = lay.flat
            held = flat >= 0
            n = info.rows * info.cols
            known = np.zeros((lanes.shape[0], n), lanes.dtype)
            covered = np.zeros((lanes.shape[0], n), bool)
            g, p, i = np.nonzero(~w[:, :, None] & held[None])
            known[g, flat[p, i]] = lanes[g, p, i]
            covered[g, flat[p, i]] = True
            g, p, i = np.nonzero(w[:, :, None] & held[None])
            e = flat[p, i]
            f = covered[g, e]
            lanes = np.array(lanes)
            lanes[g[f], p[f], i[f]] = known[g[f], e[f]]
    return from_lanes(lay, lanes)


def coop_val(ex, frame, id_) -> CoopMat:
    v = realize(ex, ex.val(frame, id_))
    if not isinstance(v, CoopMat):
        raise Fault(f"{ex.prog.name_of(id_)} is not a cooperative matrix value")
    return v


# ---- uniformity checks ----------------------------------------------------------------
def active_groups(ex, info: CoopInfo, mask: np.ndarray, what: str) -> np.ndarray | None:
    """(G,) bool of scope instances executing the instruction, None when all do.
    A scope instance reached by only part of its live invocations is an error."""
    if mask.shape[0] == 1 or ((mask is ex.every or mask.all()) and not ex.any_killed):
        return None
    G = info.num_groups
    grp = info.group
    alive = ex.alive
    n_in = np.bincount(grp[mask & alive], minlength=G)
    n_all = np.bincount(grp[alive], minlength=G)
    partial = (n_in > 0) & (n_in < n_all)
    if partial.any():
        g = int(np.flatnonzero(partial)[0])
        missing = np.flatnonzero((grp == g) & alive & ~mask)
        scope = info.scope.lower()
        pos = ", ".join(str(int(x)) for x in info.position[missing][:8])
        raise Fault(f"reached by only part of {scope} {g} ({int(n_in[g])} of {int(n_all[g])} invocations; "
                    f"inactive: invocation(s) {pos}{' ...' if len(missing) > 8 else ''} of that {scope}): "
                    f"cooperative-matrix instructions need uniform control flow in their scope", missing)
    return n_in > 0


def first_lanes(info: CoopInfo, gmask: np.ndarray | None, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(groups, lane of the first active invocation of each) for the active scope instances."""
    every = mask.shape[0] == 1 or (not info.ex.any_killed and mask.all())
    if every and info.all_lanes is not None:   # the same for every instruction of the run: made once
        return info.all_lanes
    m = np.ones(info.group.shape[0], bool) if every else mask & info.ex.alive
    idx = np.flatnonzero(m)
    g, first = np.unique(info.group[idx], return_index=True)
    out = g, idx[first]
    if every:
        for a in out:
            a.flags.writeable = False
        info.all_lanes = out
    return out


def uniform(info: CoopInfo, value, groups: np.ndarray, lanes: np.ndarray, mask: np.ndarray, what: str) -> np.ndarray:
    """Per active scope instance, the value that every active invocation of it must share."""
    v = np.asarray(value)
    if v.shape[0] == 1 or (v.strides[0] == 0 and v.size):   # one value (maybe broadcast to every invocation)
        return np.broadcast_to(v[0], (len(groups),) + v.shape[1:])
    per = v[lanes]
    G = info.num_groups
    full = np.zeros((G,) + v.shape[1:], v.dtype)
    full[groups] = per
    if len(groups) == G:   # the same in every invocation of every instance: nothing to find (the usual case)
        S = info.run_length
        if S and bool((v.reshape((G, S) + v.shape[1:]) == per[:, None]).all()):
            return per
        if not S and np.array_equal(v, full[info.group]):
            return per
    m = mask & info.ex.alive
    # compared as bit patterns: a NaN shared by every invocation is the same value (NaN != NaN as floats)
    a, b = (v, full[info.group]) if v.dtype.kind != "f" else (v.view(f"u{v.dtype.itemsize}"),
                                                              full[info.group].view(f"u{v.dtype.itemsize}"))
    differ = (a != b) if v.ndim == 1 else (a != b).any(axis=tuple(range(1, v.ndim)))
    differ &= m
    if differ.any():
        lane = int(np.flatnonzero(differ)[0])
        g = int(info.group[lane])
        raise Fault(f"{what} differs within {info.scope.lower()} {g}: invocation {int(info.position[lane])} has "
                    f"{v[lane].tolist()}, invocation {int(info.position[lanes[np.searchsorted(groups, g)]])} has "
                    f"{full[g].tolist()} (it must be the same for the whole {info.scope.lower()})",
                    np.flatnonzero(differ & (info.group == g)))
    return per


def warn(ex, inst, message: str) -> None:
    """A run-time warning, once per instruction, in the run's diagnostics (RunResult.diagnostics)."""
    seen = ex.family_state.setdefault("coopmat.warnings", {})
    if inst.index in seen:
        return
    seen[inst.index] = message
    notes: list = []
    span, source = ex.where(inst, notes)
    ex.diagnostics.append(Diagnostic("warning", f"{inst.opname}: {message}", span, rule="interp.coopmat",
                                     notes=notes, source=source))


class Lazy:
    """A constant matrix made before its type could be resolved (constants are evaluated first)."""
    __slots__ = ("t", "scalar")

    def __init__(self, t, scalar):
        self.t = t
        self.scalar = scalar

    def masked_select(self, mask, old):
        mask = np.asarray(mask)
        if isinstance(old, CoopMat):
            return realize(old.info.ex, self).masked_select(mask, old)
        if old is None or mask.all() or (isinstance(old, Lazy) and old.scalar == self.scalar):
            return self
        if not mask.any():
            return old
        raise Fault("a per-invocation choice between two constant matrices (OpPhi of constants under divergent "
                    "control flow) is not supported")


def realize(ex, v):
    if isinstance(v, Lazy):
        info = coop_info(ex, v.t)
        return CoopMat(info, np.full((1, info.rows, info.cols), v.scalar, info.dtype))
    return v


# ---- `when` predicates: which instructions the family's extensions of core ops handle ---------------
def holds_coopmat(t) -> bool:
    hit = t.extra.get("holds_coopmat")
    if hit is None:
        k = t.kind
        if k == "coopmat":
            hit = True
        elif k in ("array", "runtime_array", "pointer"):
            hit = t.elem is not None and holds_coopmat(t.elem)
        elif k == "struct":
            hit = any(holds_coopmat(m) for m in t.members)
        else:
            hit = False
        t.extra["holds_coopmat"] = hit
    return hit


def result_is_coopmat(ex, inst) -> bool:
    t = ex.types.get(inst.result_type)
    return t is not None and t.kind == "coopmat"


def result_holds_coopmat(ex, inst) -> bool:
    t = ex.types.get(inst.result_type)
    return t is not None and holds_coopmat(t)


def pointer_holds_coopmat(ex, inst) -> bool:
    """The first operand (OpLoad's and OpStore's Pointer) points at something holding a matrix."""
    t = ex.type_of_id(inst.operands[0].value) if inst.operands else None
    return t is not None and holds_coopmat(t)

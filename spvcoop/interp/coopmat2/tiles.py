"""Fast tensor addressing (issue 26): a LoadTensorNV / StoreTensorNV as whole tiles, not per-element addresses.

A tensor layout's element index is affine in its offset: with the same block sizes, dimensions, strides, spans
and view for every scope instance, element (row, col) of instance j is at `base[j] + template[row, col]`, where
`template` comes from addressing.py's own arithmetic run once, for one (R, C) matrix, and `base[j]` =
sum(offset[j, d] / block[d] * stride[d]). That holds for every instance whose tile lies wholly inside the tensor
(its "interior" instances) and whose offsets are multiples of the block sizes; the others ("edge" instances:
clamping, out-of-range elements) go through addressing.py per element, as before. Templates that are affine in
row and column (most are: row-major, column-major, transposed views) are read as one strided window per row
(or column) of every tile: one numpy gather per buffer per instruction.

Anything unusual (decode functions, scope instances reaching different buffers, fields that differ between
instances, unaligned pointers, RepeatMirrored over a dimension of one) takes the plain path whole, and so does
any instruction that would fault: the plain path then reports the fault, so the located errors are exactly
the plain path's. This is the fast path `tensor` of interp/fastpaths.py, which says how to switch it off
(SPVCOOP_NO_FAST_TENSOR=1, say); tests/interp/coopmat2/test_interp_tensor_fast.py compares the two.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .addressing import Addresses, tensor_addresses
from .core import LayoutType, ViewType

_FAR = 1 << 40   # a dimension no template coordinate reaches: the probe's elements are never out of range


@dataclass
class Tiles:
    """The elements one LoadTensor/StoreTensor reaches, by position j in its active scope instances (0..g-1)."""
    interior: np.ndarray          # (gi,) positions whose tile lies inside the tensor
    base: np.ndarray              # (gi,) their element index of template 0 (pointer included: `start` / E)
    template: np.ndarray          # (R, C) element index of each element relative to base
    inside: np.ndarray | None     # (R, C) the elements read / written (the view's clip region); None: all
    affine: tuple[int, int] | None  # (row step, col step): template == template[0, 0] + r * rs + c * cs
    edge: np.ndarray              # (ge,) the other positions
    edge_a: Addresses | None      # their per-element addressing (addressing.py), None when there are none
    # tiles that cross the tensor's edge under clamp mode Constant (any store but Undefined's): the template
    # still gives every element's index, and the elements out of range are masked off
    masked: np.ndarray | None = None   # (gm,) positions
    mindex: np.ndarray | None = None   # (gm, R, C) their element indices, 0 (inside any buffer) where not valid
    valid: np.ndarray | None = None    # (gm, R, C) read / written (inside the clip region and the tensor)
    estart: np.ndarray | None = None   # (ge,) the edge instances' pointers as element indices
    # gather_shared's (distinct bases, index) once worked out, False where the instances share too few tiles
    shared: tuple[np.ndarray, np.ndarray] | bool | None = None


@dataclass
class Trip:
    """A plan of whole interior tiles kept for the instruction's next execution (memory.py's _prepare, the fast
    path `tensor_groups`): the same layout but for offsets moved by one row for all (a loop's next trip) is the
    same plan with every base moved, if every tile stays inside the tensor and its buffer."""
    key: tuple
    delta: np.ndarray        # (D,) the row for all the plan was made at
    tiles: Tiles
    lo: np.ndarray           # (D,) the smallest tensor coordinate any instance reaches
    hi: np.ndarray           # (D,) the largest
    dim: np.ndarray          # (D,) the tensor's dimensions
    stride: np.ndarray       # (D,)
    first: tuple[int, int]   # the smallest and largest element index (from the region's start) of any tile
    region: int              # the buffer's bytes
    E: int

    def moved(self, delta: np.ndarray) -> Tiles | None:
        """The plan at offsets moved to `delta`, or None (a tile would cross the tensor's edge or the buffer's)."""
        d = delta - self.delta
        if (self.lo + d < 0).any() or (self.hi + d >= self.dim).any():
            return None
        s = int(d @ self.stride)   # block sizes 1 (trip): an element index moves by the offsets times the strides
        if self.first[0] + s < 0 or (self.first[1] + s + 1) * self.E > self.region:
            return None
        t = self.tiles
        sh = t.shared
        return replace(t, base=t.base + s, shared=(sh[0] + s, sh[1]) if isinstance(sh, tuple) else sh)


def trip(t: Tiles, key: tuple, delta: np.ndarray, off: np.ndarray, lt: LayoutType, L: dict, vt: ViewType | None,
         V: dict | None, rows: int, cols: int, store: bool, start: np.ndarray, rel: np.ndarray, region: int, E: int,
         cache: dict | None) -> Trip | None:
    """The Trip of plan t (of every instance's whole interior tile, unit block sizes, instances at offsets `off`),
    or None where t is not one."""
    if len(t.edge) or t.masked is not None or t.inside is not None or len(t.interior) != off.shape[0]:
        return None
    block = L["block"][0]
    if (block != 1).any():
        return None
    pr = _probe(lt, L, vt, V, rows, cols, store, cache)
    if not pr.any:
        return None
    b0 = t.base + (int(rel[0]) // E - int(start[0]) // E)   # rel // E + base, as plan checks it (one pointer:
    # _trip_key)
    return Trip(key, delta, t, off.min(axis=0) + pr.lo, off.max(axis=0) + pr.hi, L["dim"][0], L["stride"][0],
                (int(b0.min()) + pr.tmin, int(b0.max()) + pr.tmax), region, E)


def _uniform_rows(fields: dict, skip: tuple[str, ...] = ()) -> bool:
    return all(k in skip or v.shape[0] <= 1 or v.strides[0] == 0 or bool((v == v[:1]).all())
               for k, v in fields.items())


def _rows(v: np.ndarray) -> np.ndarray:
    """v's rows, one of them where they are all one (broadcast: stride 0) -- for checks that hold for all or none."""
    return v[:1] if v.strides[0] == 0 else v


def _first(fields: dict) -> dict:
    return {k: np.asarray(v[:1]) for k, v in fields.items()}


class _Probe:
    """One scope instance's tile at offset 0 and what follows from it alone (the same for every instance, and
    for every execution with the same fields): addressing.py's own arithmetic, in a tensor too large to leave."""
    __slots__ = ("inside", "coord", "index", "any", "full", "lo", "hi", "tmin", "tmax", "template", "affine")

    def __init__(self, lt: LayoutType, L: dict, vt: ViewType | None, V: dict | None, rows: int, cols: int,
                 store: bool) -> None:
        L1 = _first(L)
        L1["offset"] = np.zeros_like(L1["offset"])
        L1["dim"] = np.full_like(L1["dim"], _FAR)
        a = tensor_addresses(lt, L1, vt, None if V is None else _first(V), rows, cols, store)
        self.inside = a.inside[0]                                  # (R, C) in the view's clip region
        self.coord = a.block_coord[0] * L1["block"][0] + a.in_block[0]   # (R, C, D) tensor coordinates
        self.index = a.index[0]                                    # (R, C) element index
        self.any = bool(self.inside.any())
        self.full = bool(self.inside.all())
        D = self.coord.shape[-1]
        self.lo = self.coord[self.inside].min(axis=0) if self.any else np.zeros(D, np.int64)
        self.hi = self.coord[self.inside].max(axis=0) if self.any else np.zeros(D, np.int64)
        self.tmin = int(self.index[self.inside].min()) if self.any else 0
        self.tmax = int(self.index[self.inside].max()) if self.any else 0
        # elements outside the clip region: an index some element inside has (never read, always in bounds)
        self.template = self.index if self.full else np.where(self.inside, self.index, self.tmin)
        self.affine = None
        if self.full and rows > 1 and cols > 1:
            t = self.template
            rs, cs = int(t[1, 0] - t[0, 0]), int(t[0, 1] - t[0, 0])
            r = np.arange(rows, dtype=np.int64)[:, None]
            c = np.arange(cols, dtype=np.int64)[None, :]
            if np.array_equal(t, t[0, 0] + r * rs + c * cs):
                self.affine = (rs, cs)
        for x in (self.inside, self.coord, self.index, self.template):
            x.flags.writeable = False


def _probe(lt: LayoutType, L: dict, vt: ViewType | None, V: dict | None, rows: int, cols: int, store: bool,
           cache: dict | None) -> _Probe:
    """The probe for these fields, from `cache` (by the fields' values) when it has it."""
    key = (lt, vt, rows, cols, store, *(L[k][0].tobytes() for k in ("block", "stride", "span")),
           *(() if V is None else (V[k][0].tobytes() for k in sorted(V))))
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        hit = _Probe(lt, L, vt, V, rows, cols, store)
        if cache is not None:
            if len(cache) > 256:   # a shader making ever new layouts: keep the cache small
                cache.clear()
            cache[key] = hit
    return hit


def plan(lt: LayoutType, L: dict, vt: ViewType | None, V: dict | None, rows: int, cols: int, store: bool,
         start: np.ndarray, rel: np.ndarray, region: int, E: int, cache: dict | None = None) -> Tiles | None:
    """Tiles for an access whose scope instances all reach one buffer at byte offsets `start` (rel: from the
    region's start), or None: take the plain path (including every access that would fault)."""
    g = L["dim"].shape[0]
    if g == 0 or not _uniform_rows(L, ("offset", "clamp_value")) or (V is not None and not _uniform_rows(V)):
        return None
    if (_rows(start) % E).any() or (_rows(rel) % E).any():
        return None
    mode = lt.clamp if not (store and lt.clamp != "Undefined") else "Constant"
    dim, block, stride = (L[k][0] for k in ("dim", "block", "stride"))
    if mode == "RepeatMirrored" and (dim == 1).any():
        return None   # every element reads 0 there (addressing.py): the plain path says so
    pr = _probe(lt, L, vt, V, rows, cols, store, cache)
    off = L["offset"]
    unit = not (block != 1).any()   # block sizes 1 (the usual): every offset is aligned, no divisions
    aligned = np.ones(g, bool) if unit else (off % block == 0).all(axis=1)
    interior = aligned & ((off >= -pr.lo) & (off < dim - pr.hi)).all(axis=1) if pr.any else np.ones(g, bool)
    pos = np.flatnonzero(interior)
    offp = off if len(pos) == g else off[pos]
    base = offp @ stride if unit else (offp // block * stride).sum(axis=1)   # (exact: int64)
    if pr.any and len(pos):
        b0 = _rows(rel)[pos if rel.strides[0] else 0] // E + base
        if int(b0.min()) + pr.tmin < 0 or (int(b0.max()) + pr.tmax + 1) * E > region:
            return None   # out of bounds: the plain path locates it
    masked = mindex = valid = None
    if mode == "Constant" and len(pos) < g:
        mpos = np.flatnonzero(~interior & aligned)
        if len(mpos):
            valid = np.broadcast_to(pr.inside, (len(mpos), rows, cols)).copy()
            for d in range(len(dim)):   # one dimension at a time: a reduction over a short last axis is slow
                x = pr.coord[None, :, :, d] + off[mpos, d][:, None, None]
                valid &= (x >= 0) & (x < dim[d])
            mb = (off[mpos] // block * stride).sum(axis=1)
            idx = (rel[mpos] // E + mb)[:, None, None] + pr.index[None]
            if (valid & ((idx < 0) | ((idx + 1) * E > region))).any():
                return None   # out of bounds: the plain path locates it
            masked = mpos
            mindex = np.where(valid, (start[mpos] // E + mb)[:, None, None] + pr.index[None], 0)
    edge = np.flatnonzero(~interior & ~_mark(g, masked))
    edge_a = None
    if len(edge):
        sub = {k: v[edge] for k, v in L.items()}
        edge_a = tensor_addresses(lt, sub, vt, None if V is None else {k: v[edge] for k, v in V.items()},
                                  rows, cols, store)
    first = _rows(start)[pos if start.strides[0] else 0] // E + base
    return Tiles(pos, first, pr.template, None if pr.full else pr.inside, pr.affine, edge, edge_a,
                 masked, mindex, valid, start[edge] // E)


def _mark(g: int, pos: np.ndarray | None) -> np.ndarray:
    m = np.zeros(g, bool)
    if pos is not None:
        m[pos] = True
    return m


def _window(flat: np.ndarray, length: int, step: int) -> np.ndarray:
    """Every run of `length` elements `step` apart, by its first element: (n, length), a view."""
    n = flat.shape[0] - (length - 1) * step
    s = flat.strides[0]
    if flat.flags.c_contiguous and n > 0:   # the ndarray constructor: ~1 us, as_strided ~10 us
        return np.ndarray((n, length), flat.dtype, flat, 0, (s, s * step))
    return as_strided(flat, (max(n, 0), length), (s, s * step), writeable=True)


def _plan_rows(t: Tiles, store: bool):
    """How to reach every interior tile with one fancy index: (window length and step, index, transposed) or
    None. A store's rows (columns) must not overlap within a tile: the writes then land in the plain order."""
    if t.affine is None:
        return None
    rs, cs = t.affine
    R, C = t.template.shape
    t0 = int(t.template[0, 0])
    if rs >= 1 and not store and (cs < 1 or rs < cs):   # a load reads along the shorter step (a transposed tile)
        return (R, rs), t.base[:, None] + t0 + np.arange(C, dtype=np.int64)[None, :] * cs, True
    if cs >= 1 and (not store or rs >= C * cs or rs <= -C * cs):   # rows of C elements
        return (C, cs), t.base[:, None] + t0 + np.arange(R, dtype=np.int64)[None, :] * rs, False
    if rs >= 1 and (not store or cs >= R * rs or cs <= -R * rs):   # columns of R elements (a transposed tile)
        return (R, rs), t.base[:, None] + t0 + np.arange(C, dtype=np.int64)[None, :] * cs, True
    return None


def gather(t: Tiles, flat: np.ndarray) -> np.ndarray:
    """(gi, R, C) the interior tiles' elements from `flat` (the buffer as elements)."""
    if t.inside is not None and not t.inside.any():
        return np.zeros((len(t.base),) + t.template.shape, flat.dtype)   # nothing is read
    lattice = _lattice(t, flat) if t.inside is None else None
    if lattice is not None:
        return lattice.copy()
    how = _plan_rows(t, False)
    if how is None:
        return flat[t.base[:, None, None] + t.template[None]]
    (length, step), idx, transposed = how
    out = _window(flat, length, step)[idx]
    return out.transpose(0, 2, 1) if transposed else out


def _lattice(t: Tiles, flat: np.ndarray) -> np.ndarray | None:
    """Every interior tile as one strided view of `flat` when the template is affine and the tiles' bases are
    evenly spaced (the distinct tiles of a GEMM's row or column of workgroups), strides not negative; else None."""
    if t.affine is None or not len(t.base) or not flat.flags.c_contiguous:
        return None
    rs, cs = t.affine
    b = t.base
    d = int(b[1] - b[0]) if len(b) > 1 else 0
    if rs < 0 or cs < 0 or d < 0 or (len(b) > 2 and bool((np.diff(b) != d).any())):
        return None
    R, C = t.template.shape
    first = int(b[0]) + int(t.template[0, 0])
    if first < 0 or first + (len(b) - 1) * d + (R - 1) * rs + (C - 1) * cs >= flat.shape[0]:
        return None
    s = flat.itemsize
    return np.ndarray((len(b), R, C), flat.dtype, flat, first * s, (d * s, rs * s, cs * s))


# Interior instances from which a load looks for repeated tiles (the workgroups of a GEMM's row or column read
# the same A or B tile): below it np.unique costs more than the gather it saves.
SHARED_MIN = 16


def gather_shared(t: Tiles, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(tiles, index) with gather(t, flat) == tiles[index], each distinct tile gathered once, when the interior
    instances read at most half as many distinct tiles as there are instances; None otherwise. MulAdd widens
    the distinct tiles only (CoopMat.shared)."""
    if len(t.base) < SHARED_MIN or t.shared is False:
        return None
    if t.shared is None:   # (kept with t: a Trip's next plan moves them)
        uniq, index = np.unique(t.base, return_inverse=True)
        t.shared = (uniq, index.reshape(-1)) if 2 * len(uniq) <= len(t.base) else False
        if t.shared is False:
            return None
    uniq, index = cast(tuple, t.shared)
    return gather(replace(t, interior=t.interior[:len(uniq)], base=uniq), flat), index


def scatter(t: Tiles, flat: np.ndarray, vals: np.ndarray) -> None:
    """Write (gi, R, C) values of the interior tiles (only inside the clip region), instance by instance in
    order, as the plain path does (a later instance's element wins where two write the same one)."""
    how = _plan_rows(t, True)
    if t.inside is None and how is not None:
        (length, step), idx, transposed = how
        _window(flat, length, step)[idx] = vals.transpose(0, 2, 1) if transposed else vals
        return
    if t.inside is None:
        flat[(t.base[:, None, None] + t.template[None]).reshape(-1)] = vals.reshape(-1)
        return
    if t.inside.any():
        flat[(t.base[:, None] + t.template[t.inside][None]).reshape(-1)] = vals[:, t.inside].reshape(-1)


def part(t: Tiles, pos: np.ndarray) -> Tiles:
    """The interior tiles at positions `pos` of t.interior (no edge instances)."""
    return Tiles(t.interior[pos], t.base[pos], t.template, t.inside, t.affine, t.edge[:0], None)



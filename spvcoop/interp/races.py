"""Data-race detection (issue 23): conflicting accesses by different invocations with nothing ordering them.

The interpreter runs every invocation of the dispatch in lockstep, so a missing barrier or atomic never changes
its results; on a GPU it does. `Recorder` watches the accesses to Workgroup, StorageBuffer and
PhysicalStorageBuffer memory and reports pairs of conflicting accesses (write/write or read/write, the same
bytes, different invocations) that no synchronisation orders. The rules (README "Data races"):

- Workgroup memory: an OpControlBarrier with Workgroup execution scope whose semantics (or those of an
  OpMemoryBarrier the workgroup executed since its previous control barrier) include WorkgroupMemory ends the
  workgroup's barrier interval: accesses in different intervals are ordered. OpMemoryBarrier alone orders
  nothing between invocations (a fence synchronises only through a control barrier or an atomic).
- StorageBuffer / PhysicalStorageBuffer memory: the same within a workgroup, with UniformMemory semantics;
  invocations of different workgroups are never ordered in a dispatch.
- Subgroups: an OpControlBarrier with Subgroup execution scope and the memory's semantics orders the accesses
  of the invocations of one subgroup (of a single earlier access; see below). Other subgroup operations
  (ballots, shuffles, elect) order nothing.
- Atomics never race with atomics; an atomic and a plain access to the same bytes do.
- A cooperative-matrix load or store is an access by its scope instance (a subgroup or workgroup as one agent)
  to the bytes of its elements: two accesses of one instance never race with each other, an access of the
  instance and one of an invocation in it do unless a barrier orders them.

Shadow memory, per memory and per unit of g bytes (g a power of two, refined when an access is finer): for the
last writes and for the reads since, the agent (an invocation, a scope instance, or MANY), a stamp (an event:
barrier clock and instruction, int32) and, for MANY, the one workgroup of the agents (or MANY). Each access is
checked and recorded with a few numpy gathers and scatters over the units it touches. A memory only read so far
(inputs) keeps its accesses as a list, replayed into a shadow at its first write: read-only buffers cost nothing.
Where several invocations read a unit in one interval, a later write is ordered with them only by a workgroup
barrier (a subgroup barrier orders a single earlier access).

How an access is reported (one call per executed instruction, ops_memory, ops_atomic, coopmat/memory): see
`Recorder.access`.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core.diagnostics import Diagnostic, Note
from ..core.module import Instruction
from .memory import ADDRESS_SHIFT, DeviceMemory, Memory

NONE, MANY = -1, -2
READ, WRITE, ATOMIC, ATOMIC_READ = "read", "write", "atomic", "atomic-read"
WORKGROUP, BUFFER = 0, 1   # ordering classes: which barrier semantics order the memory
_STORAGE_CLASS = {"Workgroup": WORKGROUP, "StorageBuffer": BUFFER, "PhysicalStorageBuffer": BUFFER}
WORKGROUP_MEMORY, UNIFORM_MEMORY = 0x100, 0x40   # MemorySemantics bits
MAX_UNIT = 16
_LOG_LIMIT = 1 << 26   # bytes of offsets and agents logged for a memory only read so far, before it gets a shadow
_STRIDED_MIN = 256   # units an access needs for the strided path to pay


def watched(mem) -> bool:
    """Whether accesses to `mem` are checked: workgroup and storage-buffer memory (not per-invocation ones)."""
    return mem.storage in _STORAGE_CLASS


class _Side:
    """One side of the shadow (the last writes, or the reads since): per unit."""
    __slots__ = ("agent", "stamp", "wg", "other")

    def __init__(self, n: int, adt: type) -> None:
        self.agent: np.ndarray = np.full(n, NONE, adt)
        self.stamp = np.zeros(n, np.int32)   # event ids (Recorder.event)
        # where agent is MANY: the agents' one workgroup (or MANY), and one of them (for the report)
        self.wg: np.ndarray = np.zeros(n, adt)
        self.other: np.ndarray = np.zeros(n, adt)

    def refine(self, f: int) -> None:
        self.agent = np.repeat(self.agent, f)
        self.stamp = np.repeat(self.stamp, f)
        self.wg = np.repeat(self.wg, f)
        self.other = np.repeat(self.other, f)


class _Shadow:
    __slots__ = ("mem", "cls", "g", "w", "r", "atomic", "log", "logged", "fresh", "mirror")

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self.cls = _STORAGE_CLASS[mem.storage]
        self.g = 0          # unit size; 0 until the shadow exists
        self.w: _Side | None = None
        self.r: _Side | None = None
        self.atomic: np.ndarray | None = None   # the last write was atomic (made at the memory's first atomic)
        self.log: list = []    # reads before any write: replayed at the first write
        self.logged = 0
        self.fresh = False     # while the log is replayed: no writes in the shadow yet
        # the bytes each unit's last recorded write left (benign races: a write of the value already there)
        self.mirror: np.ndarray = np.zeros(0, np.uint8)

    def make(self, g: int, adt: type) -> None:
        n = -(-self.mem.data.nbytes // g)
        self.g = g
        self.w, self.r = _Side(n, adt), _Side(n, adt)
        self.mirror = np.zeros(n * g, np.uint8)
        self.mirror[:self.mem.data.nbytes] = self.mem.data

    def refine(self, g: int) -> None:
        f = self.g // g
        cast(_Side, self.w).refine(f)
        cast(_Side, self.r).refine(f)
        if self.atomic is not None:
            self.atomic = np.repeat(self.atomic, f)
        self.g = g


class _Race:
    """One reported pair of instructions on one memory: its first example and the conflicting bytes."""
    __slots__ = ("mem", "first", "second", "kinds", "offset", "agents", "bytes", "cross", "interval", "cls", "rank",
                 "benign")

    def __init__(self, mem: Memory, first: int, second: int, kinds: tuple[str, str], offset: int,
                 agents: tuple[int, int], cross: bool) -> None:
        self.mem, self.first, self.second, self.kinds = mem, first, second, kinds
        self.offset, self.agents, self.cross = offset, agents, cross
        self.bytes: np.ndarray = np.zeros(0, np.int64)
        self.interval = 0
        self.cls = WORKGROUP
        self.rank: tuple[int, int, int] = (offset, *agents)
        self.benign = True   # every conflicting pair so far: writes of the same value (a warning, not an error)


def _rows(a: np.ndarray, q0: int, count: int, width: int, step: int) -> np.ndarray:
    """The (count, width) view of shadow array `a` whose rows start at units q0, q0 + step, ...: what
    as_strided(a[q0:], ...) gives, made by the ndarray constructor (~0.3 us instead of ~5 us: a loop over tiles
    records a few views per access), which also refuses a view past the array's end."""
    n = a.itemsize
    return np.ndarray((count, width), a.dtype, a, q0 * n, (step * n, n))


def _extremes(idx: np.ndarray, ag: np.ndarray, units: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the units (of idx) that several agents touch: (unit, smallest agent, largest agent), each unit once --
    what an access reports does not depend on the order its elements were listed in."""
    pos = np.flatnonzero(np.isin(idx, units))
    u, a = idx[pos], ag[pos]
    order = np.lexsort((a, u))
    u, a = u[order], a[order]
    first = np.r_[True, u[1:] != u[:-1]]
    last = np.r_[u[1:] != u[:-1], True]
    return u[first], a[first], a[last]


def _clear(prev: np.ndarray, agents: np.ndarray) -> bool:
    """No earlier access by another agent in `prev` (the shadow's agents where `agents` access now)."""
    if prev.max() == NONE and prev.min() == NONE:   # nothing recorded (two reductions, no temporaries)
        return True
    return not (prev != agents).any() or not ((prev != agents) & (prev != NONE)).any()


def _nothing(agent: np.ndarray) -> bool:
    """No access recorded on this side of the shadow (every agent NONE)."""
    return bool(agent.max() == NONE and agent.min() == NONE)


def _lowbit(x: int) -> int:
    return x & -x if x else 1 << 30


class Recorder:
    """The race detector of one dispatch (Executor.races; None when the `races` option is off)."""

    def __init__(self, ex) -> None:
        self.ex = ex
        self.N = ex.N
        self.wg_index = ex.lanes.wg_index
        self.sg_global = ex.lanes.sg_global
        nwg = int(self.wg_index.max()) + 1 if self.N else 1
        nsg = int(self.sg_global.max()) + 1 if self.N else 1
        self.clock = 0
        # per ordering class: the clock of each workgroup's / subgroup's last barrier, the barrier counts
        self.last_wg = [np.zeros(nwg, np.int64), np.zeros(nwg, np.int64)]
        self.last_sg = [np.zeros(nsg, np.int64), np.zeros(nsg, np.int64)]
        self.count_wg = [np.zeros(nwg, np.int64), np.zeros(nwg, np.int64)]
        self.fences = np.zeros(nwg, np.int64)   # semantics of OpMemoryBarriers since the last control barrier
        self.barriers = [False, False]   # any barrier of the class yet (else nothing is stale)
        self.sync: _Sync | None = None   # acquire/release pairs (made at the first atomic or fence that needs it)
        self.shadows: dict[int, _Shadow] = {}
        self.races: dict[tuple, _Race] = {}
        self.insts: dict[int, Instruction] = {}
        self.current = -1   # the instruction being recorded (its index)
        self.cache: dict = {}   # what callers work out once per instruction (coopmat/memory._single_races)
        # events: (barrier clock, instruction) pairs, numbered; the shadow keeps the number (int32)
        self.events: dict[tuple[int, int], int] = {}
        self.ev_clock = np.zeros(256, np.int64)
        self.ev_inst = np.zeros(256, np.int64)
        # agent ids: int32 where they fit (half the memory traffic of the shadow's compares and stores)
        self.adt: type = np.int32 if 3 * self.N < 1 << 31 else np.int64
        self._all = np.arange(self.N, dtype=self.adt)
        self._first = (np.array([2 * self.N], self.adt), np.array([self.N], self.adt))

    def event(self, inst_index: int) -> int:
        """The number of the event (the barrier clock now, this instruction)."""
        key = (self.clock, inst_index)
        e = self.events.get(key)
        if e is None:
            e = self.events[key] = len(self.events)
            if e >= len(self.ev_clock):
                self.ev_clock = np.resize(self.ev_clock, 2 * e)
                self.ev_inst = np.resize(self.ev_inst, 2 * e)
            self.ev_clock[e], self.ev_inst[e] = key
        return e

    # ---- what the ops call ---------------------------------------------------------------------------------
    def active(self, mask: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """(the active lanes of `mask`, None when all are; their agent ids: the invocations)."""
        vl = self.ex.virtual_lanes   # inside a per-element call: the real invocations
        if mask is self.ex.every or mask.all():
            return None, (self._all if vl is None else vl.astype(self.adt))
        lanes = np.flatnonzero(mask)
        return lanes, (lanes if vl is None else vl[lanes]).astype(self.adt)

    def lanes(self, mask: np.ndarray) -> np.ndarray:
        """The active invocations of `mask` as agent ids."""
        return self.active(mask)[1]

    def scope_agents(self, first_lanes: np.ndarray | None, scope: str) -> np.ndarray:
        """Agent ids of cooperative-matrix scope instances, given the first lane of each."""
        if first_lanes is None:   # the one instance of the dispatch (lane 0 first)
            return self._first[scope == "Subgroup"]
        vl = self.ex.virtual_lanes
        lanes = np.asarray(first_lanes) if vl is None else vl[first_lanes]
        return (lanes + self.N * (1 if scope == "Subgroup" else 2)).astype(self.adt)

    def access(self, kind: str, mem, start: np.ndarray, agents: np.ndarray, inst: Instruction, width: int,
               count: int = 1, step: int = 0, values: np.ndarray | None = None, tiles: bool = False) -> None:
        """Record one instruction's accesses to `mem`: agent agents[i] touches, from byte start[i] (an offset
        into mem.data; for a DeviceMemory an address), `count` runs of `width` bytes, `step` bytes apart.
        `start` has one entry per agent, or one for all. kind: READ, WRITE, ATOMIC (an atomic that writes),
        ATOMIC_READ. Agents: `lanes(mask)` for invocations, `scope_agents` for cooperative-matrix instances.
        `values` (a WRITE of one run each, optional): the bytes each agent wrote, shape (agents, width); where
        they are given, a write of the value the bytes already hold from a write by another invocation is a
        benign race (a warning), not an error. `tiles`: the caller's run takes the fast path race_tiles
        (`_tiles`: the runs of many agents through windows of the shadow)."""
        sh = self.shadows.get(id(mem))
        if sh is not None and sh.w is None and kind == READ:   # the cheap case: a memory only read so far
            self.insts[inst.index] = inst
            sh.log.append((start, agents, width, count, step, self.event(inst.index)))
            sh.logged += start.nbytes + (0 if agents is self._all else agents.nbytes)
            if sh.logged < _LOG_LIMIT:
                return
            sh.log.pop()
        if not len(agents) or width <= 0:
            return
        if type(start) is not np.ndarray or start.dtype != np.int64:
            start = np.asarray(start, np.int64)
        if isinstance(mem, DeviceMemory):
            which = start >> ADDRESS_SHIFT
            if start.shape[0] != agents.shape[0]:
                which = np.broadcast_to(which, agents.shape)
                start = np.broadcast_to(start, agents.shape)
            for k in np.unique(which):
                k = int(k)
                if 1 <= k <= len(mem.buffers):
                    sel = which == k
                    self.access(kind, mem.buffers[k - 1], start[sel] - (k << ADDRESS_SHIFT), agents[sel], inst,
                                width, count, step, None if values is None else values[sel], tiles)
            return
        if sh is None:
            if not watched(mem):
                return
            sh = self.shadows[id(mem)] = _Shadow(mem)
        self.insts[inst.index] = inst
        self.current = inst.index
        stamp = self.event(inst.index)
        if sh.w is None and kind == READ:
            sh.log.append((start, agents, width, count, step, stamp))
            sh.logged += start.nbytes + (0 if agents is self._all else agents.nbytes)
            if sh.logged < _LOG_LIMIT:
                return
            kind = ""   # too much to keep as a list: make the shadow now
        if sh.w is None:
            log, sh.log = sh.log, []
            g = MAX_UNIT
            for s, _a, wd, c, st, _t in log + ([(start, agents, width, count, step, 0)] if kind else []):
                g = min(g, self._unit(s, wd, c, st))
            self._reserve(sh, g, sh.mem.data.nbytes // g + 1, inst)
            sh.make(g, self.adt)
            sh.fresh = True
            for s, a, wd, c, st, t in log:
                self._apply(sh, READ, s, a, wd, c, st, t)
            sh.fresh = False
            if not kind:
                return
        g = self._unit(start, width, count, step)
        if g < sh.g:
            self._reserve(sh, g, sh.mem.data.nbytes // g - sh.mem.data.nbytes // sh.g, inst)
            sh.refine(g)
        self._apply(sh, kind, start, agents, width, count, step, stamp, values, tiles)

    def _groups(self, of: np.ndarray, n: int, mask: np.ndarray) -> np.ndarray | slice:
        """The workgroups (subgroups) with an invocation in `mask`: all of them, or a boolean mask (no sort)."""
        local, lanes = self.active(mask)
        if local is None and self.ex.virtual_lanes is None:
            return slice(None)
        hit = np.zeros(n, bool)
        hit[of[lanes % self.N]] = True
        return hit

    def _reserve(self, sh: _Shadow, g: int, units: int, inst: Instruction) -> None:
        """Shadow memory counts against the run's memory budget, checked before it is allocated."""
        per_unit = 2 * (3 * np.dtype(self.adt).itemsize + 4) + 1   # two sides: agent, wg, other, stamp; atomic
        self.ex.budget.reserve(units * per_unit, f"the race detector's shadow of '{sh.mem.name}' ({g}-byte units; "
                               "--no-races or races=False: none)", inst)

    def memory_barrier(self, semantics: int, mask: np.ndarray) -> None:
        """An OpMemoryBarrier: its semantics wait for the workgroups' next control barrier."""
        self.fences[self._groups(self.wg_index, len(self.fences), mask)] |= semantics

    def control_barrier(self, scope: str, semantics: int, mask: np.ndarray) -> None:
        """An OpControlBarrier executed by the invocations of `mask` (the barrier check passed)."""
        wgs = self._groups(self.wg_index, len(self.fences), mask)
        pending = self.fences[wgs]
        sem = semantics | (int(np.bitwise_or.reduce(pending)) if len(pending) else 0)
        self.clock += 1
        for cls, bit in ((WORKGROUP, WORKGROUP_MEMORY), (BUFFER, UNIFORM_MEMORY)):
            if not sem & bit:
                continue
            self.barriers[cls] = True
            if scope == "Workgroup":
                self.last_wg[cls][wgs] = self.clock
                self.count_wg[cls][wgs] += 1
            else:
                self.last_sg[cls][self._groups(self.sg_global, len(self.last_sg[cls]), mask)] = self.clock
        if scope == "Workgroup":
            self.fences[wgs] = 0

    # ---- checking ----------------------------------------------------------------------------------------
    @staticmethod
    def _unit(start: np.ndarray, width: int, count: int, step: int) -> int:
        bits = int(np.bitwise_or.reduce(start)) if len(start) > 1 else int(start[0])
        return min(MAX_UNIT, _lowbit(bits | width | (step if count > 1 else 0)))

    def _wg_of(self, agents: np.ndarray) -> np.ndarray:
        return self.wg_index[agents % self.N]

    def _sg_of(self, agents: np.ndarray) -> np.ndarray:
        """Subgroup of an agent; -1 for a workgroup-scope instance (only workgroup barriers order it)."""
        return np.where(agents < 2 * self.N, self.sg_global[agents % self.N], -1)

    def _unordered(self, cls: int, prev: np.ndarray, pstamp: np.ndarray, pwg: np.ndarray,
                   cur: np.ndarray) -> np.ndarray:
        """Of candidate pairs (an earlier access by prev, or by MANY agents of workgroup pwg, at pstamp; a current
        one by cur, prev != cur), those that nothing orders: no barrier, no release the current agent acquired."""
        out = self._unordered_by_barriers(cls, prev, pstamp, pwg, cur)
        sync = self.sync
        if sync is not None and sync.pairs[cls] and out.any():
            out &= ~sync.ordered(cls, prev, self.ev_clock[pstamp], cur)
        return out

    def _unordered_by_barriers(self, cls: int, prev: np.ndarray, pstamp: np.ndarray, pwg: np.ndarray,
                               cur: np.ndarray) -> np.ndarray:
        out = np.ones(len(prev), bool)
        if not self.barriers[cls]:
            return out
        t = self.ev_clock[pstamp]
        last_wg, last_sg = self.last_wg[cls], self.last_sg[cls]
        # only an access older than some barrier can be ordered: the others need no lookups
        j = np.flatnonzero(t < max(int(last_wg.max()), int(last_sg.max())))
        if not len(j):
            return out
        t, p, c = t[j], prev[j], cur[j]
        cwg = self._wg_of(c)
        single = p >= 0
        if cls == WORKGROUP:   # a unit of workgroup memory belongs to one workgroup's copy: always the same one
            ordered = last_wg[cwg] > t
        else:
            wg_prev = np.where(single, self._wg_of(np.maximum(p, 0)), pwg[j])
            ordered = (wg_prev == cwg) & (last_wg[cwg] > t)
        rest = np.flatnonzero(~ordered & single)
        if len(rest):   # a subgroup barrier orders one earlier access of the same subgroup
            csg = self._sg_of(c[rest])
            psg = self._sg_of(p[rest])
            ordered[rest] = (psg == csg) & (csg >= 0) & (last_sg[np.maximum(csg, 0)] > t[rest])
        out[j] = ~ordered
        return out

    def _units(self, sh: _Shadow, start: np.ndarray, width: int, count: int, step: int) -> np.ndarray:
        g = sh.g
        offs = np.arange(width // g, dtype=np.int64)
        if count > 1:
            offs = (np.arange(count, dtype=np.int64) * (step // g))[:, None] + offs[None, :]
        offs = offs.reshape(-1)
        q = start // g
        return (q[:, None] + offs[None, :]).reshape(-1) if len(offs) > 1 else q

    def _apply(self, sh: _Shadow, kind: str, start, agents, width, count, step, stamp: int,
               values: np.ndarray | None = None, tiles: bool = False) -> None:
        if kind in (READ, WRITE) and start.shape[0] == agents.shape[0]:
            if count == 1 and start.shape[0] * width >= _STRIDED_MIN * sh.g:
                if self._strided(sh, kind, start, agents, width, stamp):
                    return
            elif step >= width and (start.shape[0] == 1 and self._one_agent(sh, kind, start, agents, width, count,
                                                                            step, stamp)
                                    or count > 1 and tiles and self._tiles(sh, kind, start, agents, width,
                                                                           count, step, stamp)):
                return
        self._general(sh, kind, start, agents, width, count, step, stamp, values)

    def _one_agent(self, sh: _Shadow, kind: str, start: np.ndarray, agents: np.ndarray, width: int, count: int,
                   step: int, stamp: int) -> bool:
        """One agent (a matrix load or store of the dispatch's one scope instance): its runs as a strided view."""
        g = sh.g
        q0, wu, d = int(start[0]) // g, width // g, step // g
        return self._views(sh, kind, lambda a: _rows(a, q0, count, wu, d), agents[0], stamp)

    def _tiles(self, sh: _Shadow, kind: str, start: np.ndarray, agents: np.ndarray, width: int, count: int, step: int,
               stamp: int) -> bool:
        """The fast path `race_tiles` (interp/fastpaths.py): agent i touches `count` runs of `width` bytes `step`
        apart from start[i] (a matrix load or store of many scope instances), no two agents the same unit, nothing
        recorded there by another agent: the shadow through (agents, count, width) windows, one gather or
        scatter per array, no index per unit. False (nothing done) sends the access to the general path, which
        decides and reports every conflict, those between the agents of this access included."""
        g = sh.g
        k = start.shape[0]
        wu, d = width // g, step // g
        q0 = start // g   # (g divides every start, the width and the step: _unit)
        data = _unit_view(sh.mem.data, g)
        if (q0 < 0).any() or (q0 + (count - 1) * d + wu > min(len(cast(_Side, sh.w).agent), len(data))).any():
            return False
        # unit q as (row q // d, column q % d): agent i covers rows r0[i] .. + count, columns c0[i] .. + wu
        r0, c0 = q0 // d, q0 % d
        if (c0 + wu > d).any():
            return False   # a run that wraps to the next row
        if k > 1 and not _apart(r0, c0, count, wu):
            return False
        fp = self.ex.fast
        assert fp is not None
        fp.taken.add("race_tiles")
        w, r = cast(_Side, sh.w), cast(_Side, sh.r)
        ag = agents[:, None, None]

        def win(a: np.ndarray) -> np.ndarray:   # every (count, wu) block of `a`, by its first unit
            isz = a.itemsize
            return np.ndarray((len(a) - (count - 1) * d - wu + 1, count, wu), a.dtype, a, 0, (isz, d * isz, isz))
        # (a side with nothing recorded anywhere -- a memory written once -- needs no gather: fresh memory costs
        # more to fault in than to scan)
        if not sh.fresh and not _nothing(w.agent) and not _clear(win(w.agent)[q0], ag):
            return False
        if not _nothing(r.agent) and not _clear(win(r.agent)[q0], ag):
            return False
        side = w if kind == WRITE else r
        win(side.agent)[q0] = ag
        win(side.stamp)[q0] = stamp
        if kind == WRITE:
            if sh.atomic is not None:
                win(sh.atomic)[q0] = False
            touched = np.zeros(len(data), bool)   # the bytes written, as the general path's mirror[idx] = data[idx]
            win(touched)[q0] = True
            mirror = _unit_view(sh.mirror, g)
            m = min(len(data), len(mirror))
            np.copyto(mirror[:m], data[:m], where=touched[:m])
        return True

    def _strided(self, sh: _Shadow, kind: str, start: np.ndarray, agents: np.ndarray, width: int, stamp: int) -> bool:
        """The common case, cheaply: agent i touches `width` bytes at start[i], the starts evenly spaced and at least
        `width` apart (each invocation its own element), and nothing recorded there conflicts: the shadow as
        strided views, no gathers. False (nothing done) sends the access to the general path."""
        g = sh.g
        m, k = width // g, start.shape[0]
        q0 = int(start[0]) // g
        d = int(start[1]) - int(start[0]) if k > 1 else width
        if d % g or d < width:
            return False
        d //= g
        if k > 2 and (int(start[-1]) - int(start[0]) != (k - 1) * d * g or (np.diff(start) != d * g).any()):
            return False
        if m == 1:
            def view(a: np.ndarray) -> np.ndarray:
                return a[q0:q0 + (k - 1) * d + 1:d]
            return self._views(sh, kind, view, agents, stamp)

        def view2(a: np.ndarray) -> np.ndarray:
            return _rows(a, q0, k, m, d)
        return self._views(sh, kind, view2, agents[:, None], stamp)

    def _views(self, sh: _Shadow, kind: str, view, ag, stamp: int) -> bool:
        """Check and record through views of the shadow that touch each unit once; False (nothing done) where an
        earlier access by another agent is there: the general path then decides and reports."""
        w, r = cast(_Side, sh.w), cast(_Side, sh.r)
        pa = view(w.agent)
        if not sh.fresh and not _clear(pa, ag):
            return False
        if kind == WRITE:
            pr = view(r.agent)
            if not _clear(pr, ag):
                return False
            pa[...] = ag
            view(w.stamp)[...] = stamp
            if sh.atomic is not None:
                view(sh.atomic)[...] = False
            view(_unit_view(sh.mirror, sh.g))[...] = view(_unit_view(sh.mem.data, sh.g))
            return True
        pr = view(r.agent)
        if not _clear(pr, ag):
            return False
        pr[...] = ag
        view(r.stamp)[...] = stamp
        return True

    def _general(self, sh: _Shadow, kind: str, start, agents, width, count, step, stamp: int,
                 values: np.ndarray | None = None) -> None:
        uniform = start.shape[0] == 1 and agents.shape[0] > 1
        idx = self._units(sh, start, width, count, step)
        g = sh.g
        # benign races: the bytes each entry of idx writes (None: unknown, or agents of a uniform access writing
        # different values), and whether they are those the unit's last write left
        newb: np.ndarray | None = None
        if kind == WRITE and values is not None and count == 1 and width % g == 0 and len(values) == len(agents):
            rows = values.reshape(len(values), width)
            if uniform:
                newb = rows[0].reshape(width // g, g) if (rows == rows[0]).all() else None
            else:
                newb = rows.reshape(-1, g)

        m = len(idx) // start.shape[0]
        if uniform:
            a0 = int(agents[0])
            ag: np.ndarray = np.full(len(idx), a0, self.adt)
        else:
            ag = np.repeat(agents, m) if m > 1 else agents
        w, r = cast(_Side, sh.w), cast(_Side, sh.r)
        if sh.atomic is None and kind in (ATOMIC, ATOMIC_READ):
            sh.atomic = np.zeros(len(w.agent), bool)
        atomic = sh.atomic
        # earlier writes (for an atomic, the plain ones)
        pa = w.agent[idx]
        same_event = None   # (positions, agents) written by this very instruction in an earlier call

        # uniform: every agent touches these units, so any earlier access by another one may conflict
        cand = pa != NONE if uniform else (pa != NONE) & (pa != ag)
        if atomic is not None and kind in (ATOMIC, ATOMIC_READ):
            cand &= ~atomic[idx]
        if cand.any():   # (only here: whether the bytes written are those already there, for benign races)
            same_as_old = (newb == sh.mirror.reshape(-1, g)[idx]).all(axis=1) if newb is not None else None
            self._conflicts(sh, w, idx, ag, cand, pa, agents if uniform else None, kind, "write", same_as_old)
            j = np.flatnonzero(cand)
            j = j[w.stamp[idx[j]] == stamp]
            if len(j):
                same_event = (j, pa[j])
        if kind in (WRITE, ATOMIC):   # earlier reads
            ra = r.agent[idx]
            cand = (ra != NONE) & (ra != ag) if not uniform else ra != NONE
            if cand.any():
                self._conflicts(sh, r, idx, ag, cand, ra, agents if uniform else None, kind, "read")
        if kind == ATOMIC_READ:
            return
        side = r if kind == READ else w
        if kind in (WRITE, ATOMIC):
            _unit_view(sh.mirror, g)[idx] = _unit_view(sh.mem.data, g)[idx]
        if kind == WRITE and uniform:   # several invocations store to the same bytes: a race among them
            self._report(sh, self.current, idx, a0, int(agents[1]), ("write", "write"), benign=newb is not None)
        if kind == WRITE:
            side.agent[idx] = ag
            side.stamp[idx] = stamp
            if atomic is not None:
                atomic[idx] = False
            if not uniform:
                got = side.agent[idx]
                dup = got != ag
                if dup.any():   # several agents of this instruction store to one unit: a race among them
                    u, lo, hi = _extremes(idx, ag, idx[dup])
                    side.agent[u] = hi   # the same agent whatever order the access listed them in
                    self._report_pairs(sh, stamp, u, lo, hi, ("write", "write"),
                                       benign=None if newb is None else _same_per_unit(idx, newb, u))
            if same_event is not None:   # ... and whatever calls it came in (tile and element parts)
                j, prev = same_event
                np.maximum.at(side.agent, idx[j], prev.astype(side.agent.dtype))
            return
        # reads and atomic writes: several agents per unit become MANY
        old = side.agent[idx]
        keep = (old != NONE) & (old != ag)
        if atomic is not None and kind == ATOMIC:
            keep &= atomic[idx]   # atomics by other agents stay (unordered with a later plain access)
        if keep.any() and self.barriers[sh.cls]:
            j = np.flatnonzero(keep)
            keep[j] = self._unordered(sh.cls, old[j], side.stamp[idx[j]], side.wg[idx[j]], ag[j])
        new = np.where(keep, MANY, ag)
        wg_new = None
        if keep.any():
            j = np.flatnonzero(keep)
            pw = np.where(old[j] >= 0, self._wg_of(np.maximum(old[j], 0)), side.wg[idx[j]])
            wg_new = (j, np.where(pw == self._wg_of(ag[j]), pw, MANY))
            single = old[j] >= 0
            was = np.where(single, old[j], side.other[idx[j]])
            side.other[idx[j]] = np.minimum(was, ag[j])   # one of them: the lowest, whatever the order
        side.agent[idx] = new
        side.stamp[idx] = stamp
        if atomic is not None and kind == ATOMIC:
            atomic[idx] = True
        if wg_new is not None:
            side.wg[idx[wg_new[0]]] = wg_new[1]
        if uniform:
            wgs = self._wg_of(agents)
            side.agent[idx] = MANY
            side.wg[idx] = int(wgs[0]) if (wgs == wgs[0]).all() else MANY
            side.other[idx] = agents[1]
            return
        got = side.agent[idx]
        dup = (got != new) & (new != MANY)
        if dup.any():   # several agents of this instruction on one unit
            u, lo, hi = _extremes(idx, ag, idx[dup])
            side.agent[u] = MANY
            side.other[u] = lo
            wl, wh = self._wg_of(lo), self._wg_of(hi)
            side.wg[u] = np.where(wl == wh, wl, MANY)

    def _conflicts(self, sh: _Shadow, side: _Side, idx, ag, cand, prev, uniform_agents, kind: str, pkind: str,
                   same: np.ndarray | None = None):
        j = np.flatnonzero(cand)
        u = idx[j]
        p = prev[j]
        cur = ag[j]
        if uniform_agents is not None:   # pick, per unit, an agent of the instruction other than the earlier one,
            a = uniform_agents            # in another workgroup where there is one
            wg_a = self._wg_of(a)
            other = a[np.flatnonzero(wg_a != wg_a[0])[:1]]
            alt = int(other[0]) if len(other) else int(a[1])
            pw = np.where(p >= 0, self._wg_of(np.maximum(p, 0)), side.wg[u])
            cur = np.where((p == a[0]) | ((pw == wg_a[0]) & bool(len(other))), alt, a[0])
        ps = side.stamp[u]
        bad = self._unordered(sh.cls, p, ps, side.wg[u], cur)
        if not bad.any():
            return
        k = np.flatnonzero(bad)
        many = p[k] == MANY
        pw = np.where(many, side.wg[u[k]], self._wg_of(np.maximum(p[k], 0)))
        self._report_pairs(sh, ps[k], u[k], p[k], cur[k], (pkind, kind), np.where(many, side.other[u[k]], p[k]), pw,
                           None if same is None else same[j][k])

    def _report_pairs(self, sh, pstamp, units, a, b, kinds, example=None, awg=None, benign=None) -> None:
        """Conflicts at units between earlier accesses (agents a, stamps pstamp; for MANY one of them in example,
        their workgroup in awg) and the current one (agents b)."""
        pstamp = np.broadcast_to(np.asarray(pstamp, np.int64), units.shape)
        pinst = self.ev_inst[pstamp]
        a = np.broadcast_to(np.asarray(a), units.shape)
        b = np.broadcast_to(np.asarray(b), units.shape)
        for i in np.unique(pinst):
            sel = np.flatnonzero(pinst == i)
            # the example: the lowest byte, then the lowest agents (the same whatever order the accesses came in)
            k0 = sel[np.lexsort((b[sel], a[sel], units[sel]))[0]]
            self._report(sh, int(i), units[sel], int(a[k0]), int(b[k0]), kinds,
                         None if example is None else int(example[k0]), None if awg is None else int(awg[k0]),
                         int(units[k0]), benign is not None and bool(benign[sel].all()))

    def _report(self, sh: _Shadow, inst_a: int, units: np.ndarray, a: int, b: int, kinds,
                example: int | None = None, awg: int | None = None, unit: int | None = None,
                benign: bool = False) -> None:
        key = (id(sh.mem), inst_a, self.current)
        race = self.races.get(key)
        g = sh.g
        byts = (np.asarray(units, np.int64)[:, None] * g + np.arange(g)).reshape(-1)
        unit = int(np.min(units)) if unit is None else unit
        if inst_a == self.current and kinds[0] == kinds[1] and 0 <= b < a:
            a, b = b, a   # two agents of one instruction: in order, whichever call saw which first
        rank = (unit * g, a, b)   # the example is the lowest byte, then the lowest agents, of all the calls
        if race is None or rank < race.rank:
            wa, wb = (int(x) for x in self._wg_of(np.array([max(a, 0), b])))
            cross = (awg if awg is not None else wa) != wb   # awg MANY: readers in several workgroups
            if a == MANY and example is not None and example != b:
                a = -3 - example   # several, among them `example` (for the message)
            old = race
            race = self.races[key] = _Race(sh.mem, inst_a, self.current, kinds, unit * g, (a, b), cross)
            race.interval = int(self.count_wg[sh.cls][wb])
            race.cls = sh.cls
            race.rank = rank
            if old is not None:
                race.bytes = old.bytes
                race.benign = old.benign
        race.bytes = np.union1d(race.bytes, byts)
        race.benign = race.benign and benign

    # ---- the report --------------------------------------------------------------------------------------
    def settle_benign(self) -> None:
        """A same-value race (writes of the value already there: a warning) whose instructions also race otherwise
        on that memory is no longer benign: in lockstep a read-modify-write stores one value everywhere, on a GPU the
        updates are lost."""
        tainted = {(id(r.mem), i) for r in self.races.values() if not r.benign for i in (r.first, r.second)}
        for r in self.races.values():
            if r.benign and ((id(r.mem), r.first) in tainted or (id(r.mem), r.second) in tainted):
                r.benign = False

    def _agent(self, a: int) -> str:
        if a == MANY:
            return "several invocations"
        if a <= -3:
            return "several invocations, among them " + self._agent(-3 - a)
        lane, kind = a % self.N, a // self.N
        info = self.ex.lanes.info(lane) if self.ex.lanes.info else f"#{lane}"
        return ("invocation ", "the subgroup of invocation ", "the workgroup of invocation ")[kind] + info

    def _place(self, inst: Instruction) -> str:
        prog = self.ex.prog
        if inst.span is not None and inst.span.line:
            where = f"{prog.source}:{inst.span.line}:{inst.span.col}"
        else:
            where = f"{prog.source}: instruction {inst.index}"
        hl = prog.source_note(inst)
        return f"{inst.opname} at {where}" + (f" ({hl})" if hl else "")

    def _diagnostic(self, race: _Race) -> Diagnostic:
        mem = race.mem
        first, second = self.insts[race.first], self.insts[race.second]
        a, b = race.agents
        if mem.storage == "Workgroup" and mem.copies > 1:
            where = f"byte offset {race.offset % mem.region} (workgroup {race.offset // mem.region}'s copy)"
        else:
            where = f"byte offset {race.offset}"
        n = len(race.bytes)
        # over every workgroup's copy of a Workgroup variable: say so, or 512 bytes of a 256-byte array puzzle
        span_note = (f" (in {mem.copies} workgroups' copies)" if mem.storage == "Workgroup" and mem.copies > 1
                     and len({b // mem.region for b in race.bytes}) > 1 else "")
        same = race.first == race.second
        if race.benign:
            return self._benign(race, first, second, where + span_note, n)
        what = (f"{second.opname} ({race.kinds[1]}) by {self._agent(b)} and by {self._agent(a)}" if same else
                f"{first.opname} ({race.kinds[0]}) by {self._agent(a)} and {second.opname} ({race.kinds[1]}) by "
                f"{self._agent(b)}")
        message = (f"data race on '{mem.name}' ({mem.storage}) at {where}: {what}, with nothing ordering them; "
                   f"{n} conflicting byte{'s' if n != 1 else ''}{span_note}")
        notes: list[Note] = []
        span, source = self.ex.where(second, notes)
        if not same:
            notes.append(Note(f"the other access: {self._place(first)}"))
        if race.cross:
            notes.append(Note("the invocations are in different workgroups, which nothing in a dispatch orders "
                              "(use atomics, or split the work into separate dispatches)"))
        else:
            sem = "WorkgroupMemory" if race.cls == WORKGROUP else "UniformMemory"
            k = race.interval
            wg = int(self._wg_of(np.array([b]))[0])
            when = "before its first barrier" if k == 0 else f"after its barrier number {k}"
            glsl = "memoryBarrierBuffer(); barrier();" if race.cls == BUFFER else "barrier();"
            notes.append(Note(f"both in barrier interval {k} of workgroup {wg} ({when}): no OpControlBarrier with "
                              f"Workgroup execution scope and {sem} semantics between them (GLSL: {glsl})"))
        return Diagnostic("error", message, span, rule="interp.race", notes=notes, source=source)

    def _ordering(self, race: _Race, agent: int) -> str:
        """Why nothing orders the two accesses, in a few words."""
        if race.cross:
            return "in different workgroups"
        return f"in barrier interval {race.interval} of workgroup {int(self._wg_of(np.array([agent]))[0])}"

    def _benign(self, race: _Race, first: Instruction, second: Instruction, where: str, n: int) -> Diagnostic:
        """A race of writes that all stored the value already there: a warning of one line (what, where, who, why
        unordered) and one note (which stores). On a GPU too the bytes end up holding that value, whichever write
        lands last, so the barrier advice an error carries would only be noise here."""
        a, b = race.agents
        mem = race.mem
        message = (f"benign data race on '{mem.name}' ({mem.storage}) at {where}, {n} byte{'s' if n != 1 else ''}: "
                   f"written by {self._agent(b)} and {self._agent(a)} {self._ordering(race, b)}, with nothing "
                   "ordering them")
        span, source = self.ex.where(second, [])
        here = f"the {second.opname} here" + (f" (SPIR-V {second.span})" if span is not second.span and second.span
                                              else "")
        if race.first == race.second:
            stores = f"both by {here}, each storing"
        else:   # who ran which store: the message names both invocations
            stores = (f"{self._agent(b).split(' (', 1)[0]} by {here}, {self._agent(a).split(' (', 1)[0]} by the "
                      f"{first.opname} at {self._short_place(first)}; each stored")
        return Diagnostic("warning", message, span, rule="interp.race", source=source,
                          notes=[Note(f"{stores} the value the bytes already held")])

    def _short_place(self, inst: Instruction) -> str:
        """file:line of an instruction: its line in the module's text, else its GLSL line (OpLine) with its word."""
        prog = self.ex.prog
        if inst.span is not None and inst.span.line:
            return f"{prog.source}:{inst.span.line}:{inst.span.col}"
        hl = prog.lines.get(inst.index)
        if hl:
            return f"{hl[0]}:{hl[1]}" + (f" (SPIR-V {inst.span})" if inst.span else "")
        return f"{prog.source}: instruction {inst.index}"


# Agents of one access up to which _apart compares every pair (beyond, only tiles on a lattice of their size)
_PAIRS_MAX = 512


def _apart(r0: np.ndarray, c0: np.ndarray, count: int, wu: int) -> bool:
    """Whether count x wu rectangles with top-left corners (r0[i], c0[i]) are pairwise disjoint (known to be,
    cheaply: False may also mean "not known")."""
    if not (r0 % count).any() and not (c0 % wu).any():   # tiles of a grid: disjoint unless two are the same tile
        key = r0 // count * (int(c0.max()) // wu + 1) + c0 // wu
        return len(np.unique(key)) == len(key)
    if len(r0) > _PAIRS_MAX:
        return False
    meet = (np.abs(r0[:, None] - r0[None]) < count) & (np.abs(c0[:, None] - c0[None]) < wu)
    np.fill_diagonal(meet, False)
    return not meet.any()


def _unit_view(a: np.ndarray, g: int) -> np.ndarray:
    """A uint8 array as units of g bytes (void items), its length in whole units."""
    return a[:len(a) // g * g].view(f"V{g}")


def _same_per_unit(idx: np.ndarray, newb: np.ndarray, units: np.ndarray) -> np.ndarray:
    """For each of `units` (sorted, unique): whether every entry of idx on it writes the same bytes (newb)."""
    pos = np.flatnonzero(np.isin(idx, units))
    order = np.argsort(idx[pos], kind="stable")
    u, nb = idx[pos][order], newb[pos][order]
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, len(u)]))
    return np.logical_and.reduceat((nb == nb[first]).all(axis=1), starts)


# ---- the report: suppressions, detail level, summary (issue 37) -------------------------------------------------
def _lines(rec: Recorder, inst: Instruction) -> set[int]:
    """The source lines a race on `inst` may be named by: its line in the module's text, and the GLSL line its
    OpLine gives (a .comp, or a module compiled with glslangValidator -g)."""
    out = {inst.span.line} if inst.span is not None and inst.span.line else set()
    hl = rec.ex.prog.lines.get(inst.index)
    if hl:
        out.add(int(hl[1]))
    return out


def _suppressed(rec: Recorder, race: _Race, suppress) -> bool:
    lines = _lines(rec, rec.insts[race.first]) | _lines(rec, rec.insts[race.second])
    return any(var == race.mem.name and line in lines for var, line in suppress)


def race_report(rec: Recorder, level: str = "full", suppress=()) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(the errors, the warnings and notes for the run's diagnostics) of the dispatch's races: each pair of
    instructions (benign same-value races are warnings, outside the sum)
    (level "full"; the last one's last note sums them up, worst variable first) or that sum alone (level
    "summary"); races whose variable and one of whose source lines `suppress` names ((variable, line) pairs: the
    run option races_suppress) are left out and counted in a note."""
    rec.settle_benign()
    races = sorted(rec.races.values(), key=lambda r: (r.second, r.first, r.mem.name))
    kept = [r for r in races if not _suppressed(rec, r, suppress or ())]
    notes: list[Diagnostic] = []
    dropped = len(races) - len(kept)
    if dropped:
        names = sorted({r.mem.name for r in races if r not in kept})
        notes.append(Diagnostic("note", f"{dropped} data race{'s' if dropped > 1 else ''} on "
                                f"{', '.join(repr(n) for n in names)} not reported: suppressed by races_suppress",
                                rule="interp.race.suppressed", source=rec.ex.prog.source))
    notes += [rec._diagnostic(r) for r in kept if r.benign]   # writes of the value already there: warnings
    kept = [r for r in kept if not r.benign]
    if not kept:
        return [], notes
    per: dict[str, list[_Race]] = {}
    for r in kept:
        per.setdefault(r.mem.name, []).append(r)
    # worst first: the most conflicting bytes, then the most pairs of instructions
    order = sorted(per, key=lambda n: (-sum(len(r.bytes) for r in per[n]), -len(per[n]), n))
    parts = [f"'{n}' ({per[n][0].mem.storage}: {len(per[n])} pair{'s' if len(per[n]) > 1 else ''} of "
             f"instructions, {sum(len(r.bytes) for r in per[n])} conflicting bytes)" for n in order]
    headline = (f"{len(kept)} data race{'s' if len(kept) > 1 else ''} on {len(per)} variable"
                f"{'s' if len(per) > 1 else ''}, worst first: {'; '.join(parts)}")
    if level == "summary":
        worst = per[order[0]][0]
        span, source = rec.ex.where(rec.insts[worst.second], [])
        return [Diagnostic("error", headline, span, rule="interp.race", source=source,
                           notes=[Note("--races full (run spec races_report: full) reports each with both "
                                       "invocations and instructions")])], notes
    errors = [rec._diagnostic(r) for r in kept]
    errors[-1].notes.append(Note(f"in all: {headline}"))   # the report's last line (the CLI prints notes first)
    return errors, notes


# ---- acquire / release (issue 37) ---------------------------------------------------------------------------------
ACQUIRE, RELEASE, ACQUIRE_RELEASE, SEQ_CST = 0x2, 0x4, 0x8, 0x10   # MemorySemantics bits
_RELEASES, _ACQUIRES = RELEASE | ACQUIRE_RELEASE | SEQ_CST, ACQUIRE | ACQUIRE_RELEASE | SEQ_CST
_SCOPE_WIDTH = {"CrossDevice": 0, "Device": 1, "QueueFamily": 1, "ShaderCallKHR": 1, "Workgroup": 2, "Subgroup": 3,
                "Invocation": 4}


def _class_bits(semantics: int) -> int:
    """The ordering classes (bit 1 << WORKGROUP, 1 << BUFFER) a semantics' storage-class bits name."""
    return (((semantics & WORKGROUP_MEMORY) != 0) << WORKGROUP) | (((semantics & UNIFORM_MEMORY) != 0) << BUFFER)


class _Released:
    """The atomics' values that a release wrote, in one memory, by byte address (sorted): who, at which clock, the
    classes its semantics name and the width of its scope (_SCOPE_WIDTH)."""
    __slots__ = ("addr", "agent", "clock", "bits", "width")

    def __init__(self) -> None:
        self.addr = np.zeros(0, np.int64)
        self.agent = np.zeros(0, np.int64)
        self.clock = np.zeros(0, np.int64)
        self.bits = np.zeros(0, np.int64)
        self.width = np.zeros(0, np.int64)

    def drop(self, addr: np.ndarray) -> None:
        keep = ~np.isin(self.addr, addr)
        for f in self.__slots__:
            setattr(self, f, getattr(self, f)[keep])

    def put(self, addr: np.ndarray, agent: np.ndarray, clock: np.ndarray, bits: np.ndarray, width: int) -> None:
        """New releases (the last one per address wins: atomics run in invocation order)."""
        lo, hi = int(addr.min()), int(addr.max())
        if hi - lo < 4 * len(addr) + 64:   # counters and flags: a scatter (numpy's assignment: the last one wins)
            at = np.full(hi - lo + 1, -1, np.int64)
            at[addr - lo] = np.arange(len(addr))
            last = at[at >= 0]
        else:
            last = len(addr) - 1 - np.unique(addr[::-1], return_index=True)[1]
        addr, agent, clock, bits = addr[last], agent[last], clock[last], bits[last]
        self.drop(addr)
        new = (addr, agent, clock, bits, np.full(len(addr), width, np.int64))
        for f, v in zip(self.__slots__, new, strict=True):
            setattr(self, f, np.concatenate([getattr(self, f), np.asarray(v, np.int64)]))
        order = np.argsort(self.addr, kind="stable")
        for f in self.__slots__:
            setattr(self, f, getattr(self, f)[order])

    def find(self, addr: np.ndarray) -> np.ndarray:
        """Per address, the index of its release, or -1."""
        if not len(self.addr):
            return np.full(len(addr), -1, np.int64)
        i = np.minimum(np.searchsorted(self.addr, addr), len(self.addr) - 1)
        return np.where(self.addr[i] == addr, i, -1)


class _Sync:
    """Release/acquire pairs of the Vulkan memory model, as the race detector needs them: when invocation B's
    acquire (an atomic with Acquire semantics, or a relaxed atomic read followed by an OpMemoryBarrier with
    Acquire) reads the value invocation A's release wrote (an atomic with Release, or a relaxed atomic write after
    an OpMemoryBarrier with Release), A's accesses before its release are ordered before B's accesses after its
    acquire, for the storage classes both name. A release advances the barrier clock, so 'before A's release' is
    'an event of an earlier clock'. Pairs are direct (no transitive chains); a relaxed read keeps only the last
    release it read for its next acquire fence; a write without release to the flag ends what later reads of it
    acquire. All of it in numpy: GLSL's memoryBarrier*() are AcquireRelease fences, and a histogram's atomics
    after one are a release by every invocation."""

    def __init__(self, n: int, agents_bound: int) -> None:
        self.fence = np.zeros(n, np.int64)        # each invocation's last release fence: its clock, 0 none
        self.fence_bits = np.zeros(n, np.int64)   # ... and the classes it names
        self.released: dict[int, _Released] = {}  # memory -> the releases its atomics hold
        self.pend_writer = np.full(n, -1, np.int64)   # per reader: the last release a relaxed atomic read, for
        self.pend_clock = np.zeros(n, np.int64)       # its next acquire fence
        self.pend_bits = np.zeros(n, np.int64)
        self.pairs: list[dict[int, int]] = [{}, {}]   # per class: reader * M + writer -> the writer's release clock
        self.M = agents_bound

    def pair(self, classes: np.ndarray, reader: np.ndarray, writer: np.ndarray, clock: np.ndarray) -> None:
        for cls in (WORKGROUP, BUFFER):
            sel = (classes >> cls & 1).astype(bool)
            if not sel.any():
                continue
            keys = reader[sel] * self.M + writer[sel]
            clk = clock[sel]
            uk, inv = np.unique(keys, return_inverse=True)
            best = np.full(len(uk), -1, np.int64)
            np.maximum.at(best, inv, clk)
            pairs = self.pairs[cls]
            for k, c in zip(uk.tolist(), best.tolist(), strict=True):
                if pairs.get(k, -1) < c:
                    pairs[k] = c

    def ordered(self, cls: int, prev: np.ndarray, pclock: np.ndarray, cur: np.ndarray) -> np.ndarray:
        """Per candidate pair: is the earlier access (prev at clock pclock) before a release cur acquired?"""
        out = np.zeros(len(prev), bool)
        j = np.flatnonzero(prev >= 0)
        if not len(j):
            return out
        keys = cur[j].astype(np.int64) * self.M + prev[j].astype(np.int64)
        uk, inv = np.unique(keys, return_inverse=True)
        pairs = self.pairs[cls]
        clock = np.array([pairs.get(int(k), -1) for k in uk], np.int64)[inv]
        out[j] = pclock[j] < clock
        return out


def _sync_of(rec: Recorder) -> _Sync:
    if rec.sync is None:
        rec.sync = _Sync(rec.N, 3 * max(rec.N, 1))
    return rec.sync


def _same_instances(rec: Recorder, a: np.ndarray, b: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Per pair: do invocations a and b share the instance of a scope of that width (Workgroup 2, Subgroup 3;
    wider: always)?"""
    n = max(rec.N, 1)
    a, b = a % n, b % n
    return np.where(width <= 1, True, np.where(width == 2, rec.wg_index[a] == rec.wg_index[b],
                                               np.where(width == 3, rec.sg_global[a] == rec.sg_global[b], a == b)))


def atomic_sync(rec: Recorder, kind: str, ptr, mask: np.ndarray, scope: str, semantics: int) -> None:
    """An atomic's part in release/acquire synchronisation (after pointer_access recorded it as an access):
    kind ATOMIC (it writes; an RMW also reads) or ATOMIC_READ."""
    sync = rec.sync
    releases = semantics & _RELEASES
    if not releases and not semantics & _ACQUIRES and (sync is None or (not sync.released and not sync.fence.any())):
        return   # relaxed, and nothing released yet: the common case costs one test
    sync = _sync_of(rec)
    local, agents = rec.active(mask)
    agents = agents.astype(np.int64)
    off = np.asarray(ptr.off, np.int64).reshape(-1)
    if off.shape[0] > 1 and local is not None:
        off = off[local]
    off = np.broadcast_to(off, agents.shape)
    mem = id(ptr.mem)
    width = _SCOPE_WIDTH.get(scope, 1)
    rel = sync.released.get(mem)
    if rel is not None and len(rel.addr):   # reads first (an RMW reads the value before it writes its own)
        i = rel.find(off)
        hit = i >= 0
        if hit.any():
            i, b = i[hit], agents[hit]
            writer = rel.agent[i]
            ok = (writer != b) & _same_instances(rec, b, writer, np.maximum(width, rel.width[i]))
            if ok.any():
                b, writer, clock, bits = b[ok], writer[ok], rel.clock[i][ok], rel.bits[i][ok]
                if semantics & _ACQUIRES:
                    mine = _class_bits(semantics)
                    sync.pair(bits & mine if mine else bits, b, writer, clock)
                else:
                    lane = b % max(rec.N, 1)
                    sync.pend_writer[lane], sync.pend_clock[lane], sync.pend_bits[lane] = writer, clock, bits
    if kind != ATOMIC:
        return
    if rel is None:
        rel = sync.released[mem] = _Released()
    if releases:
        rec.clock += 1   # the writer's accesses so far are of earlier clocks than its release
        bits = _class_bits(semantics) | (1 << _STORAGE_CLASS.get(ptr.mem.storage, BUFFER))
        rel.put(off, agents, np.full(len(agents), rec.clock, np.int64), np.full(len(agents), bits, np.int64),
                width)
        return
    lane = agents % max(rec.N, 1)
    fenced = sync.fence[lane] > 0   # a relaxed write after a release fence: the fence's release
    if (~fenced).any() and len(rel.addr):
        rel.drop(off[~fenced])
    if fenced.any():
        rel.put(off[fenced], agents[fenced], sync.fence[lane[fenced]], sync.fence_bits[lane[fenced]], width)


def fence_sync(rec: Recorder, semantics: int, mask: np.ndarray) -> None:
    """An OpMemoryBarrier's Release (what the invocation's next relaxed atomic writes releases) and Acquire (what
    the last release its relaxed atomic reads read is acquired)."""
    if not semantics & (_RELEASES | _ACQUIRES):
        return
    sync = _sync_of(rec)
    local, agents = rec.active(mask)
    every = local is None and rec.ex.virtual_lanes is None   # the whole dispatch: slices, no index arrays
    lanes = slice(None) if every else agents.astype(np.int64) % max(rec.N, 1)
    if semantics & _ACQUIRES and sync.pend_writer.max(initial=-1) >= 0:   # it acquires what was read before it
        idx = np.arange(rec.N) if every else np.asarray(lanes)
        got = idx[sync.pend_writer[idx] >= 0]
        if len(got):
            mine = _class_bits(semantics)
            sync.pair(sync.pend_bits[got] & mine, got, sync.pend_writer[got], sync.pend_clock[got])
            sync.pend_writer[got] = -1
    if semantics & _RELEASES:
        rec.clock += 1
        sync.fence[lanes] = rec.clock
        sync.fence_bits[lanes] = _class_bits(semantics)


def pointer_access(rec: Recorder, kind: str, ptr, t, mask: np.ndarray, inst: Instruction,
                   width: int | None = None, value=None, raw: np.ndarray | None = None) -> None:
    """An OpLoad/OpStore/OpCopyMemory/atomic's access through `ptr` to a value of type t (the pointee), or to
    `width` bytes (OpCopyMemorySized); for benign races, `value`: what an OpStore stored (its array), or `raw`:
    the bytes each invocation wrote (invocations x bytes)."""
    local, agents = rec.active(mask)
    off = np.asarray(ptr.off, np.int64)
    if off.shape[0] > 1 and local is not None:
        off = off[local]
    vstride = getattr(ptr, "vstride", None)
    if vstride:   # a row-major matrix's column: strided, its bytes not one run
        raw = None
    rows = None if raw is None else (raw if local is None else raw[local])
    if value is not None and not vstride and t.kind in ("int", "float", "vector") and \
            (t.kind != "vector" or t.elem.kind in ("int", "float")) and isinstance(value, np.ndarray):
        v = np.ascontiguousarray(np.broadcast_to(value.astype(t.dtype, copy=False),
                                                 (mask.shape[0],) + value.shape[1:]))
        rows = v.view(np.uint8).reshape(mask.shape[0], -1)
        rows = rows if local is None else rows[local]
        if rows.shape[1] != t.size():
            rows = None
    if getattr(ptr.mem, "robust", False):   # robustBufferAccess: an access outside the buffer touches nothing
        size = width or (t.size() if t.kind != "pointer" else 8)
        inside = np.broadcast_to((off >= 0) & (off + size <= ptr.mem.region), agents.shape)
        if not inside.all():
            off = off[inside] if off.shape[0] > 1 else off
            agents = agents[inside]
            rows = None if rows is None else rows[inside]
    if width is not None or raw is not None:
        rec.access(kind, ptr.mem, off, agents, inst, width or t.size(), values=rows)
    elif t.kind == "vector" and vstride:
        rec.access(kind, ptr.mem, off, agents, inst, t.scalar_size(), t.count, vstride)
    else:
        rec.access(kind, ptr.mem, off, agents, inst, max(t.size(), 1) if t.kind != "pointer" else 8, values=rows)

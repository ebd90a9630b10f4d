"""Whole-dispatch SIMT execution over structured control flow.

All invocations of the dispatch run together: every SSA value is a numpy
array over them, and a boolean mask says which are active. Structured control
flow gives the reconvergence points: a selection runs each side under its
mask and meets at the merge block; a loop iterates while any invocation is
still in it. `walk` follows blocks from a start until every active
invocation has reached one of the `stops` (an enclosing merge, continue
target, loop header or the function return) and reports who arrived where,
and from which predecessor (OpPhi needs it). A loop that is one straight chain of
blocks (straight_chain: a for or do-while loop whose body has no branches of
its own) runs in run_straight_loop: the same blocks, masks and arrivals without
walk's stop sets and arrival tables (the fast path only).

The Executor has walls (issue 33): the runner builds what it is handed (budget.Budget: the counters and the limit
rules; lanes.Lanes: the lane layout; binder.Binder's values: the global variables; observe.Observers: the observers)
and no other module sets its attributes: they ask through its methods (lay_out, bind_globals, observe,
run_entry_point, float_rules). docs/architecture.md, "The Executor and its collaborators", has the table.
"""
from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any, cast

import numpy as np

from ..core.diagnostics import Diagnostic, Note, SpvError
from ..core.module import Instruction
from . import fastpaths
from .block_compiler import compile_loop, loop_fits, run_body
from .budget import Budget
from .config import RunConfig
from .dispatch import Dispatcher
from .fault import Fault, FaultError, locate
from .lanes import Lanes
from .memory import DeviceMemory, Memory, Pointer, Register
from .program import Block, Function, Program
from .races import Recorder
from .types import Type
from .values import lane, select

RETURN = -1
RETURNS = frozenset({RETURN})
Arrivals = dict  # block label -> list[(predecessor label, mask)]


class Frame:
    __slots__ = ("fn", "vals", "ret", "call_inst", "undef")

    def __init__(self, fn: Function, call_inst: Instruction | None = None):
        self.fn = fn
        self.vals: dict[int, object] = {}
        self.ret = None
        self.call_inst = call_inst
        self.undef: dict[int, np.ndarray] | None = None  # undefined loaded values (undefined.py)


def code_floats(prog, coop_numerics):
    """The float rules of ordinary code under coop_numerics, or None for the IEEE ones (the default: no import)."""
    if coop_numerics == "ieee":
        return None
    from ..numerics.model import NVIDIA_TENSORCORE
    model = NVIDIA_TENSORCORE if coop_numerics == "nvidia-tensorcore" else coop_numerics
    if model.code_ieee:
        return None
    from .compiled_floats import CodeFloats
    return CodeFloats(prog.functions.values(), prog.decorations, model)


class Executor:
    """Holds the lane layout, global values and memories of one dispatch; runs functions.

    `config` is the run's settings (read-only); `dispatcher` the op table (families.dispatcher_for(module));
    `budget` what the run may spend and the limit rules (budget.py: every step is counted there); `lanes` the
    lane layout (lanes.py: read-only; one lane until the runner lays the dispatch out, lay_out);
    `family_state` is where op families keep per-run state (keys prefixed with the family name)."""

    virtual_lanes: np.ndarray | None = None  # in call_per_element: virtual invocation -> the real one
    # the run's observers: None, or what exec_block, branch_edges and run_frame hand over to (an
    # observe.Observers: observe.py sits above this module)
    observers: Any = None
    races: Recorder | None = None  # the race detector (races.py), made by run_entry_point unless races=False
    unvalidated: bool = False  # run(validate=False): the module may break any rule, by design
    views: list[tuple[tuple[int, int], int, Type]]

    def __init__(self, prog: Program, config: RunConfig, dispatcher: Dispatcher, budget: Budget, lanes: Lanes,
                 diagnostics: list[Diagnostic] | None = None):
        self.prog = prog
        self.types = prog.types
        self.config = config
        self.dispatcher = dispatcher
        self.ops = dispatcher.ops
        self.family_state: dict[str, object] = {}
        self.lanes = lanes
        # the invocations the values are arrays over: the dispatch's, or inside call_per_element its virtual ones
        n = self.N = lanes.invocations
        self.gvals: dict[int, object] = {}
        self.device = DeviceMemory()
        self.budget = budget
        self.trace: int | None = None  # the traced lane, once the runner has laid the lanes out
        self.trace_lines: list[str] = []   # trace output when the caller gave no trace_out
        self.trace_out = _line_sink(config.trace_out, self.trace_lines)
        # warnings and notes of the run (RunResult.diagnostics): the library never prints them
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.unvalidated = not config.validate
        self.alive = np.ones(n, dtype=bool)
        self.any_killed = False
        self.ext_names: dict[int, str] = dict(prog.ext_imports)
        # the fast paths on in this run, with their caches (fastpaths.py); None: none
        self.fast: fastpaths.FastPaths | None = fastpaths.for_run(config)
        # a GPU's float rules: for ordinary code under a numerics model whose code_* parameters are not IEEE
        # (compiled_floats.CodeFloats), inside per-element calls its pe_* ones (compiled_floats.CompiledFloats)
        self.float_model = code_floats(prog, config.coop_numerics)
        # the entry point's mask of every invocation (read-only): a mask that *is* it needs no reduction to know
        # that it is full; uniform branches pass it on unchanged
        self.every: np.ndarray | None = None
        self.errors_ignored = False  # the runner's np.errstate(all="ignore") is around the dispatch

    # ---- values -------------------------------------------------------------
    def val(self, frame: Frame, id_: int):
        v = frame.vals.get(id_)
        if v is None:
            v = self.gvals.get(id_)
            if v is None and id_ not in self.gvals and id_ not in frame.vals:
                raise Fault(f"value {self.prog.name_of(id_)} is used before it is defined on this path")
        return v

    def arg(self, frame: Frame, inst: Instruction, i: int):
        return self.val(frame, inst.operands[i].value)  # type: ignore[arg-type]  # hot path (per executed op): an Id operand holds an int

    def rtype(self, inst: Instruction):
        return self.types[inst.result_type]  # type: ignore[index]  # hot path (per executed op): it has a result type

    def type_of_id(self, id_: int):
        d = self.prog.defs.get(id_)
        if d is None or d.result_type is None:
            return None
        return self.types.get(d.result_type)

    # ---- errors ---------------------------------------------------------------
    def fault_error(self, inst: Instruction, f: Fault) -> SpvError:
        notes = []
        lanes = f.lanes
        if lanes is not None and len(lanes) and self.virtual_lanes is not None:
            # a fault inside a per-element call (decode, combine functions): its lanes are matrix elements;
            # name the real invocations they stand for
            lanes = np.unique(self.virtual_lanes[np.asarray(lanes)[np.asarray(lanes) < len(self.virtual_lanes)]])
        info = self.lanes.info
        if lanes is not None and len(lanes) and info:
            shown = ", ".join(info(int(x)) for x in lanes[:3])
            more = f" and {len(lanes) - 3} more" if len(lanes) > 3 else ""
            notes.append(Note(f"in invocation {shown}{more}"))
        line = self.prog.module.source_line(inst.span.line) if inst.span and inst.span.line else None
        if line is not None:
            notes.append(Note(f"in: {line.strip()}"))
        span, source = self.where(inst, notes)
        return FaultError(Diagnostic("error", f"{inst.opname}: {f.message}", span, rule="interp.runtime",
                                     notes=notes, source=source), lanes)

    def invalid_module_error(self, inst: Instruction, e: Exception) -> SpvError:
        """An op meeting what validation would have refused (an operand of the wrong type or shape, a value
        where a pointer belongs) fails in numpy or Python; in a module run without validation that is the
        module's error, reported at the instruction. A validated module re-raises `e`: it is a bug here."""
        if not self.unvalidated or isinstance(e, (SpvError, MemoryError)):
            raise e
        what = str(e).split("\n")[0][:160]
        return self.fault_error(inst, Fault(f"its operands do not fit it ({type(e).__name__}: {what}); the module "
                                            "was not validated (--no-validate) and breaks a rule validation checks"))

    def where(self, inst: Instruction | None, notes: list):
        """(span, file) for a diagnostic: the GLSL line (OpLine) when a binary has one, else the instruction."""
        return locate(self.prog, inst, notes)

    # ---- functions --------------------------------------------------------------
    def call(self, fn: Function, args: list, mask: np.ndarray, call_inst: Instruction | None = None):
        frame = Frame(fn, call_inst)
        for p, a in zip(fn.params, args, strict=False):
            frame.vals[cast(int, p.result_id)] = a   # an OpFunctionParameter has a result id
        return self.run_frame(frame, mask)

    def run_frame(self, frame: Frame, mask: np.ndarray):
        """A call's body: its variables, then its blocks; the return value."""
        observers = self.observers
        if observers is not None:
            return observers.frame(self, frame, mask)
        for v in frame.fn.variables:
            self.exec_inst(frame, v, mask, True)
        return self.run_blocks(frame, mask)

    def run_blocks(self, frame: Frame, mask: np.ndarray):
        """A call's blocks from its entry to its return; the return value."""
        self.walk(frame, frame.fn.entry, [(0, mask)], RETURNS)
        return frame.ret

    def call_per_element(self, fn: Function, args: list, lanes: np.ndarray, call_inst: Instruction):
        """Run `fn` once for each of n virtual invocations and return its result, shape (n, ...): the combine,
        per-element and decode functions that SPV_NV_cooperative_matrix2 instructions call per matrix element.

        `args` hold one value per virtual invocation ((n, ...) arrays, tuples of them, pointers with (n,)
        offsets) or one for all ((1, ...)); `lanes` (n,) names, for each virtual invocation, the real
        invocation whose own state (built-in inputs, Private and Workgroup variables) it sees. The dispatch's
        lane layout is swapped for the call and restored afterwards; executed instructions count once per
        call, as for any instruction. These functions contain no tangled instructions (the extension forbids
        them), so nothing inside needs the real lane layout. The work limit holds: a call over more virtual
        invocations than the dispatch has may execute proportionally fewer instructions."""
        lanes = np.asarray(lanes, np.int64)
        n = int(lanes.shape[0])
        saved = (self.N, self.alive, self.any_killed, self.gvals, self.trace, self.virtual_lanes)
        try:
            with self.budget.shared_with(n, self.N):
                self.virtual_lanes = lanes if saved[5] is None else saved[5][lanes]
                self.gvals = {k: _lanes_of(v, lanes, saved[0]) for k, v in self.gvals.items()}
                self.N, self.alive, self.any_killed, self.trace = n, np.ones(n, bool), False, None
                return self.call(fn, args, np.ones(n, bool), call_inst)
        finally:
            self.N, self.alive, self.any_killed, self.gvals, self.trace, self.virtual_lanes = saved

    def walk(self, frame: Frame, label: int, incoming: list, stops: frozenset) -> Arrivals:
        out: Arrivals = defaultdict(list)
        blocks = frame.fn.blocks
        while True:
            incoming, mask = self.arrivals(incoming)
            if mask is None:
                return out
            blk = blocks[label]
            if blk.loop is not None:
                incoming = self.run_loop(frame, blk, incoming, stops, out)
                label = blk.loop[0]
                if not incoming:
                    return out
                continue
            edges = self.exec_block(frame, blk, incoming, mask)
            if edges is None:
                edges = self.branch_edges(frame, blk, mask)
            if blk.merge is not None:  # selection construct
                m_label = blk.merge.operands[0].as_int
                inner = stops | {m_label}
                at_merge = []
                for target, sub in edges:
                    if target == m_label:
                        at_merge.append((blk.label, sub))
                    elif target in stops:
                        out[target].append((blk.label, sub))
                    else:
                        res = self.walk(frame, target, [(blk.label, sub)], inner)
                        for t, lst in res.items():
                            (at_merge if t == m_label else out[t]).extend(lst)
                if not at_merge:
                    return out
                label, incoming = m_label, at_merge
                continue
            if len(edges) == 1:   # one edge (every uniform branch): no lists to build
                target, sub = edges[0]
                if target in stops:
                    out[target].append((blk.label, sub))
                    return out
                label = target
                incoming = [(blk.label, sub)]
                continue
            nxt = []
            for target, sub in edges:
                if target in stops:
                    out[target].append((blk.label, sub))
                else:
                    nxt.append((target, sub))
            if not nxt:
                return out
            if len(nxt) > 1 and len({t for t, _ in nxt}) > 1:
                raise self.fault_error(cast(Instruction, blk.term), Fault(
                    "unstructured branch: more than one target is neither a merge nor a continue target"))
            label = nxt[0][0]
            incoming = [(blk.label, m) for _, m in nxt]

    def run_loop(self, frame: Frame, header: Block, incoming: list, stops: frozenset, out: Arrivals) -> list:
        m_label, c_label = cast(tuple[int, int], header.loop)   # only loop headers come here
        h = header.label
        fp = self.fast
        if fp is not None and fp.loops:
            if h in fp.straight_loops:
                chain = fp.straight_loops[h]
            else:
                chain = fp.straight_loops[h] = straight_chain(frame.fn.blocks, header)
            if chain is not None and stops.isdisjoint(chain[2]):
                fp.taken.add("loops")
                return self.run_straight_loop(frame, chain[0], chain[1], m_label, incoming)
        body_stops = stops | {m_label, c_label, h}
        cont_stops = stops | {m_label, h}
        at_merge: list = []
        while incoming:
            incoming, mask = self.arrivals(incoming)
            if mask is None:
                break
            edges = self.exec_block(frame, header, incoming, mask)
            if edges is None:
                edges = self.branch_edges(frame, header, mask)
            back: list = []
            cont: list = []
            # where an arrival goes: the header again, the merge, the continue target (in that order when they are
            # the same block: later keys win), or out of the loop
            route = {c_label: cont, m_label: at_merge, h: back}
            for target, sub in edges:
                if target in body_stops:
                    dest = route.get(target)
                    (out[target] if dest is None else dest).append((h, sub))
                else:
                    for t, lst in self.walk(frame, target, [(h, sub)], body_stops).items():
                        dest = route.get(t)
                        (out[t] if dest is None else dest).extend(lst)
            if cont:
                for t, lst in self.walk(frame, c_label, cont, cont_stops).items():
                    dest = route.get(t)
                    (out[t] if dest is None else dest).extend(lst)
            incoming = back
        return at_merge

    def run_straight_loop(self, frame: Frame, chain: tuple[Block, ...], c_at: int, m_label: int,
                          incoming: list) -> list:
        """run_loop for a loop that is one chain of blocks (straight_chain; chain[c_at] is its continue target): the
        same blocks under the same masks in the same order, arrivals at the merge and the header in the same
        order, without walk's stops and arrival tables. Trips that every invocation makes, untraced, run in one
        compiled function (block_compiler.compile_loop) once the chain's blocks have each been compiled."""
        h = chain[0].label
        fp = cast(fastpaths.FastPaths, self.fast)   # run_loop comes here only with the loops path on
        at_merge: list = []
        while incoming:
            incoming, mask = self.arrivals(incoming)
            if mask is None:
                break
            if mask is self.every and self.trace is None and len(incoming) == 1:
                trips = fp.compiled_loops.get(h)
                if trips is None:
                    trips = self._compile_loop(chain, m_label)
                if trips:
                    left = trips(self, frame, mask, at_merge, incoming[0][0])
                    if left is None:
                        break
                    incoming = self._straight_from(frame, chain, c_at, m_label, left[0], left[1], at_merge)
                    continue
            edges = self._chain_block(frame, chain[0], incoming, mask)
            incoming = self._straight_from(frame, chain, c_at, m_label, 0, edges, at_merge)
        return at_merge

    def _compile_loop(self, chain: tuple[Block, ...], m_label: int):
        """The chain's compiled trips (compile_loop), once each of its blocks ran often enough to be compiled
        itself; None while not yet; False for a chain too long to compile (MAX_COMPILED)."""
        h = chain[0].label
        fp = cast(fastpaths.FastPaths, self.fast)
        if not loop_fits(chain):
            fp.compiled_loops[h] = False   # its trips run block by block
            return False
        if any(type(fp.compiled_blocks.get(b.label, 0)) is int for b in chain):
            return None   # with the blocks path off, never
        trips = fp.compiled_loops[h] = compile_loop(self, chain, m_label)
        return trips

    def _straight_from(self, frame: Frame, chain: tuple[Block, ...], c_at: int, m_label: int, j: int,
                       edges: list, at_merge: list) -> list:
        """The rest of a trip after chain[j] ran and branched along `edges`, as run_loop goes on: the header's edges
        in turn (the merge, or the body up to the continue target), then the continue construct; the arrivals
        back at the header returned."""
        h = chain[0].label
        cont: list = []
        back: list = []
        if j == 0:
            for target, sub in edges:
                if target == m_label:
                    at_merge.append((h, sub))
                else:
                    self._straight(frame, chain[1:c_at], h, sub, m_label, at_merge, cont)
        else:
            label = chain[j].label
            nxt = None
            for target, sub in edges:
                if target == m_label:
                    at_merge.append((label, sub))
                else:
                    nxt = sub
            if nxt is not None:
                if j < c_at:
                    self._straight(frame, chain[j + 1:c_at], label, nxt, m_label, at_merge, cont)
                else:
                    self._straight(frame, chain[j + 1:], label, nxt, m_label, at_merge, back)
        if cont:   # then the continue construct, as run_loop walks it
            self._straight(frame, chain[c_at:], cont[0][0], cont[0][1], m_label, at_merge, back)
        return back

    def _straight(self, frame: Frame, blocks: tuple[Block, ...], prev: int, m: np.ndarray, m_label: int,
                  at_merge: list, after: list) -> None:
        """walk's steps along straight blocks from `prev` under m: arrivals at the merge go to at_merge; the
        last block's arrival at what follows (the continue target, or the header) to `after`."""
        every = self.every
        for blk in blocks:
            if self.any_killed:
                m = m & self.alive
            if m is not every and not m.any():
                return
            e = self._chain_block(frame, blk, [(prev, m)], m)
            nxt = None
            for t, sub in e:
                if t == m_label:
                    at_merge.append((blk.label, sub))
                else:
                    nxt = sub
            if nxt is None:
                return
            prev, m = blk.label, nxt
        after.append((prev, m))

    def _chain_block(self, frame: Frame, blk: Block, incoming: list, mask: np.ndarray) -> list:
        """exec_block, then branch_edges unless the block's compiled terminator gave its edges; a compiled block
        with no phis under the mask of every invocation (untraced) is called here, as exec_block would call it."""
        if mask is self.every and not blk.phis and self.trace is None:
            fn = cast(fastpaths.FastPaths, self.fast).compiled_blocks.get(blk.label)
            if fn is not None and type(fn) is not int:
                try:
                    edges = fn(self, frame, mask, True)
                except Fault as f:   # from the compiled terminator (the body's are located already)
                    raise self.fault_error(blk.term or blk.label_inst, f) from None
                except Exception as e:  # noqa: BLE001 - an unvalidated module's terminator; re-raised otherwise
                    raise self.invalid_module_error(blk.term or blk.label_inst, e) from None
                if edges is not None:
                    return edges
                return self.branch_edges(frame, blk, mask)
        edges = self.exec_block(frame, blk, incoming, mask)
        return self.branch_edges(frame, blk, mask) if edges is None else edges

    def _phi_value(self, frame: Frame, phi: Instruction, incoming: list):
        ops = phi.operands
        by_pred = {ops[i + 1].as_int: ops[i].as_int for i in range(0, len(ops) - 1, 2)}
        v = None
        for pred, m in incoming:
            if pred not in by_pred:
                raise Fault(f"no incoming value for predecessor {self.prog.name_of(pred)}")
            pv = self.val(frame, by_pred[pred])
            v = pv if v is None else select(m, pv, v)
        return v

    def branch_edges(self, frame: Frame, blk: Block, mask: np.ndarray) -> list:
        """The terminator's edges (target label, lane mask); its errors located at it."""
        observers = self.observers
        if observers is not None:
            return observers.edges(self, frame, blk, mask)
        return self.terminator_edges(frame, blk, mask)

    def terminator_edges(self, frame: Frame, blk: Block, mask: np.ndarray) -> list:
        """branch_edges without the observers."""
        try:
            return self._branch_edges(frame, blk, mask)
        except Fault as f:  # its condition or selector not defined on this path, say
            raise self.fault_error(blk.term or blk.label_inst, f) from None
        except Exception as e:  # noqa: BLE001 - an unvalidated module's terminator; re-raised otherwise
            raise self.invalid_module_error(blk.term or blk.label_inst, e) from None

    def _branch_edges(self, frame: Frame, blk: Block, mask: np.ndarray) -> list:
        term = blk.term
        if term is None:
            raise self.fault_error(blk.label_inst, Fault("block has no terminator"))
        self.tick(frame, term, mask)
        op = term.opname
        if op == "OpBranch":
            return [(term.operands[0].value, mask)]
        if op == "OpBranchConditional":
            c = self.arg(frame, term, 0)
            t, f = term.operands[1].as_int, term.operands[2].as_int
            if t == f:
                return [(t, mask)]
            if type(c) is np.ndarray and c.shape == (1,):   # the same for every invocation: no mask work
                return [(t if c[0] else f, mask)]
            return self.split_edges(c, t, f, mask)
        if op == "OpSwitch":
            sel = np.broadcast_to(self.arg(frame, term, 0), mask.shape)
            default = term.operands[1].as_int
            ops = term.operands[2:]
            targets: dict[int, np.ndarray] = {}
            taken = np.zeros_like(mask)
            for i in range(0, len(ops), 2):
                lit, tgt = ops[i].value, ops[i + 1].as_int
                hit = sel == np.array(lit).astype(sel.dtype)
                taken |= hit
                m = mask & hit
                targets[tgt] = targets[tgt] | m if tgt in targets else m
            dm = mask & ~taken
            targets[default] = targets[default] | dm if default in targets else dm
            return [(t, m) for t, m in targets.items() if m.any()]
        if op in ("OpReturn", "OpReturnValue"):
            if op == "OpReturnValue":
                v = self.arg(frame, term, 0)
                frame.ret = v if frame.ret is None else select(mask, v, frame.ret)
            return [(RETURN, mask)]
        if op in ("OpKill", "OpTerminateInvocation"):
            self.alive &= ~mask
            self.any_killed = True
            return [(RETURN, mask)]
        raise self.fault_error(term, Fault("OpUnreachable was reached", np.flatnonzero(mask)))

    def arrivals(self, incoming: list) -> tuple[list, np.ndarray | None]:
        """The arrivals at a block without the invocations killed so far, and the mask of those that go on
        (None when none does)."""
        if self.any_killed:
            incoming = [(p, m & self.alive) for p, m in incoming]
        mask = incoming[0][1] if len(incoming) == 1 else self.union(incoming)
        if mask is not self.every and not mask.any():
            return incoming, None
        return incoming, mask

    def union(self, incoming: list) -> np.ndarray:
        """The invocations arriving along any of several edges: `every` itself when they are all of them again
        (reconverged after a divergent branch: the checks that ask `mask is every` hold again)."""
        mask = np.logical_or.reduce([m for _, m in incoming])
        return self.every if self.every is not None and mask.all() and mask.shape == self.every.shape else mask

    @staticmethod
    def split_edges(c, t: int, f: int, mask: np.ndarray) -> list:
        """OpBranchConditional's edges for condition values c: (target, invocations taking it), empty ones left out."""
        c = np.broadcast_to(c, mask.shape)
        tm = mask & c
        fm = mask & ~c
        if not fm.any():   # every active invocation goes one way: the same mask (`every` stays `every`)
            return [(t, mask)] if tm.any() else []
        if not tm.any():
            return [(f, mask)]
        return [(t, tm), (f, fm)]

    # ---- blocks and instructions ---------------------------------------------------
    def run_entry_point(self, fn: Function) -> None:
        """Call the entry point over every invocation of the dispatch: the mask `every`, the clock started (the
        time limit counts execution only), the race detector made (unless races=False), numpy's floating-point
        errors ignored around the whole dispatch (errors_ignored: compiled blocks need no errstate of their
        own)."""
        mask = np.ones(self.N, dtype=bool)
        mask.flags.writeable = False
        self.every = mask
        self.budget.start_clock()
        if self.config.races:
            self.races = Recorder(self)
        with np.errstate(all="ignore"):
            self.errors_ignored = True
            try:
                self.call(fn, [], mask)
            finally:
                self.errors_ignored = False

    @contextlib.contextmanager
    def float_rules(self, floats) -> Iterator[None]:
        """While the block runs, float ops follow `floats` (a compiled_floats model, or None: IEEE); restored after."""
        saved = self.float_model
        self.float_model = floats
        try:
            yield
        finally:
            self.float_model = saved

    def observe(self, observers: Any) -> None:
        """Route the step loop through `observers` (an observe.Observers), whose observers are attached now; the
        run's fast paths above the hooks are off (fastpaths.for_run)."""
        self.observers = observers
        observers.attach(self)

    def bind_globals(self, values: dict[int, object]) -> None:
        """The values of the global variables (binder.Binder's result: pointers, Registers), beside the constants."""
        self.gvals.update(values)

    def lay_out(self, lanes: Lanes, trace: int | None) -> None:
        """The dispatch's lane layout (built by the runner once the workgroup size is known), in place of the one
        lane the constants were evaluated over; `trace` the traced lane. The work limit becomes a step limit for
        its invocations (Budget.for_invocations)."""
        self.lanes = lanes
        self.N = lanes.invocations
        self.alive = np.ones(self.N, bool)
        self.trace = trace
        self.budget.for_invocations(self.N)

    def tick(self, frame: Frame, inst: Instruction, mask: np.ndarray) -> None:
        """A terminator's step (Budget.tick: the limits, the clock and progress), then its trace line."""
        self.budget.tick(inst)
        if self.trace is not None and mask[self.trace if mask.shape[0] > 1 else 0]:
            self.trace_line(frame, inst, None)

    def trace_line(self, frame: Frame, inst: Instruction, value) -> None:
        hl = self.prog.lines.get(inst.index)
        where = f"{hl[0]}:{hl[1]}" if hl else f"{self.prog.source}:{inst.span}" if inst.span else ""
        res = f"{self.prog.name_of(inst.result_id)} = " if inst.result_id is not None else ""
        args = " ".join(_operand_text(self.prog, o) for o in inst.operands)
        shown = "" if value is None else f"  -> {lane(value, cast(int, self.trace))}"   # set while tracing
        self.trace_out(f"[{self.budget.steps}] {where}: {res}{inst.opname} {args}{shown}")

    def exec_block(self, frame: Frame, blk: Block, incoming: list, mask: np.ndarray) -> list | None:
        """Run the block's phis and body; the terminator's edges when the compiled block ran it too (else None:
        the caller runs branch_edges)."""
        observers = self.observers
        if observers is not None:   # the one check of an observed run per block (observe.py)
            observers.block(self, frame, blk, incoming, mask)
            return None
        full = mask is self.every or bool(mask.all())
        if blk.phis:
            self.run_phis(frame, blk, incoming, mask, full)
        fp = self.fast
        if fp is not None and fp.blocks and self.trace is None:
            try:
                fn = fp.compiled_blocks.get(blk.label)
                if fn is not None and type(fn) is not int:
                    return fn(self, frame, mask, full)
                return run_body(self, frame, blk, mask, full)   # the same, compiled once per block
            except Fault as f:  # from the compiled terminator (the body's are located already): its condition
                raise self.fault_error(blk.term or blk.label_inst, f) from None
            except Exception as e:  # noqa: BLE001 - an unvalidated module's terminator; re-raised otherwise
                raise self.invalid_module_error(blk.term or blk.label_inst, e) from None
        for inst in blk.body:
            self.exec_inst(frame, inst, mask, full)
        return None

    def run_phis(self, frame: Frame, blk: Block, incoming: list, mask: np.ndarray, full: bool) -> None:
        """The block's phis, all read before any is assigned."""
        new = []
        for phi in blk.phis:
            try:
                new.append((phi, self._phi_value(frame, phi, incoming)))
            except Fault as f:  # a value not defined on the edge taken, say
                raise self.fault_error(phi, f) from None
            except Exception as e:  # noqa: BLE001 - an unvalidated module's phi; re-raised otherwise
                raise self.invalid_module_error(phi, e) from None
        for phi, v in new:
            self.assign(frame, phi, v, mask, full)

    def exec_inst(self, frame: Frame, inst: Instruction, mask: np.ndarray, full: bool) -> None:
        self.budget.count(inst)
        fn = self.ops.get(inst.opname)
        if fn is None:
            notes: list = []
            span, source = self.where(inst, notes)
            raise SpvError(Diagnostic("error", f"unsupported instruction {inst.opname}: the interpreter does not "
                                      f"implement it", span, rule="interp.unsupported", source=source, notes=notes))
        try:
            with np.errstate(all="ignore"):
                v = fn(self, frame, inst, mask)
        except Fault as f:
            raise self.fault_error(inst, f) from None
        except Exception as e:  # noqa: BLE001 - only for a module nobody validated; re-raised otherwise
            raise self.invalid_module_error(inst, e) from None
        if inst.result_id is not None:
            self.assign(frame, inst, v, mask, full)
        if self.trace is not None and mask[self.trace if mask.shape[0] > 1 else 0]:
            self.trace_line(frame, inst, v if inst.result_id is not None else None)

    def assign(self, frame: Frame, inst: Instruction, v, mask: np.ndarray, full: bool) -> None:
        rid: int = inst.result_id  # type: ignore[assignment]  # hot path (per executed op): it has a result id
        if not full:
            old = frame.vals.get(rid)
            if old is not None and v is not None:
                try:
                    v = select(mask, v, old)
                except Fault as f:
                    raise self.fault_error(inst, f) from None
        frame.vals[rid] = v

    # ---- memory helpers ---------------------------------------------------------------
    def allocate(self, name: str, storage: str, t, per: str, init=None, mask=None,
                 inst: Instruction | None = None) -> Pointer:
        """A variable: one copy per invocation ('lane'), per workgroup ('wg') or one ('one'); Private and
        Workgroup ones count against the memory budget for the whole run, Function ones are checked."""
        size = max(t.size(), 1)
        wg_index = self.lanes.wg_index
        copies = self.N if per == "lane" else (int(wg_index.max()) + 1 if self.N else 1) if per == "wg" else 1
        self.budget.reserve(size * copies, f"{storage} variable '{name}' ({size:,} bytes x {copies:,} copies)", inst,
                            keep=storage != "Function")
        if per == "lane":
            mem = Memory(name, storage, size, self.N)
            off = np.arange(self.N, dtype=np.int64) * size
        elif per == "wg":
            nwg = int(wg_index.max()) + 1 if self.N else 1
            mem = Memory(name, storage, size, nwg)
            off = wg_index * size
        else:
            mem = Memory(name, storage, size, 1)
            off = np.zeros(1, np.int64)
        ptr = Pointer(mem, off, t, off if per != "one" else 0, align=min(size & -size, 1 << 16) if per != "one"
                      else 1 << 16)
        if init is not None:
            from .memory import store
            store(ptr, t, init, np.ones(self.N, bool) if mask is None else mask)
        return ptr


def _lanes_of(v, lanes: np.ndarray, n: int):
    """A global value as the virtual invocations of call_per_element see it: per-invocation parts picked by
    `lanes`, values shared by all (constants, (1, ...) arrays) unchanged."""
    if isinstance(v, np.ndarray):
        return v[lanes] if v.ndim and v.shape[0] == n and n > 1 else v
    if isinstance(v, tuple):
        return tuple(_lanes_of(x, lanes, n) for x in v)
    if isinstance(v, Pointer):
        off = np.asarray(v.off)
        if off.ndim and off.shape[0] == n and n > 1:
            base = v.base if np.ndim(v.base) == 0 else np.asarray(v.base)[lanes]
            return Pointer(v.mem, off[lanes], v.type, base, v.matrix, v.vstride, v.align)
        return v
    if isinstance(v, Register):
        w = v.written
        return Register(v.name, _lanes_of(v.value, lanes, n), None if w is None else w[lanes])
    return v


def _line_sink(out, lines: list[str]) -> Callable[[str], None]:
    """Trace lines to a callable, a text stream (a line each) or, with neither, `lines`."""
    if out is None:
        return lines.append
    if callable(out):
        return out
    return lambda line: out.write(line + "\n")


def _operand_text(prog: Program, o) -> str:
    if o.kind.startswith("Id"):
        return prog.name_of(o.value)
    if o.kind.startswith("Literal"):
        return repr(o.value) if isinstance(o.value, str) else str(o.value)
    try:
        from .program import enum_name
        return enum_name(o.kind, o.value)
    except KeyError:
        return str(o.value)


def straight_chain(blocks: dict[int, Block], header: Block) -> tuple[tuple[Block, ...], int, frozenset] | None:
    """The loop's blocks as one straight chain from its header, when it is one: each block ends in OpBranch or
    OpBranchConditional (Id operands) whose targets other than the loop's merge are exactly one block, the next one;
    no block after the header heads a construct; the continue target is in the chain, after the header, and the
    last block is the only one that branches back to the header. (chain, index of the continue target in it, the
    chain's labels), or None for any other loop (run_loop walks it)."""
    m_label, c_label = cast(tuple[int, int], header.loop)
    h = header.label
    if c_label in (h, m_label):
        return None
    chain = [header]
    seen = {h}   # (a set: a hostile loop may chain thousands of blocks)
    blk = header
    while True:
        term = blk.term
        if term is None or term.opname not in ("OpBranch", "OpBranchConditional") or \
                any(o.kind != "IdRef" for o in term.operands[:3]):
            return None
        targets = {o.value for o in term.operands[:1]} if term.opname == "OpBranch" else \
            {o.value for o in term.operands[1:3]}
        targets.discard(m_label)
        if len(targets) != 1:
            return None
        target = targets.pop()
        if target == h:
            labels = [b.label for b in chain]
            if c_label not in labels:
                return None
            return tuple(chain), labels.index(c_label), frozenset(labels)
        nb = blocks.get(cast(int, target))
        if nb is None or nb.merge is not None or nb.label in seen:
            return None
        seen.add(nb.label)
        chain.append(nb)
        blk = nb

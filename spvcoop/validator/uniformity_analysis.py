"""Dynamic uniformity, statically (issue 37): which values and branches certainly differ within a scope instance.

The rules (uniformity.py) report a cooperative-matrix instruction or a barrier only where the module itself
proves the fault: a value that is *certainly* not the same for every invocation of some scope instance. Two
analyses per function, for one entry point (its local size) and one scope (Subgroup or Workgroup):

- **may-uniform** (`Divergence`): the classic divergence analysis, sound in the direction of "divergent": a
  value is divergent when it may differ between the invocations of one instance (invocation ids, atomics,
  loads through divergent pointers or of Function variables written divergently, phis joining divergent
  control flow, values leaving a loop that invocations leave at different trips). What it calls uniform is.
- **witness** (`Witness`): the values of a few invocations of instance 0 (workgroup 0; subgroup 0 taken as
  local invocations 0..7: every device the layout models describe has subgroups of 8 or more), computed
  exactly from the built-ins and constants; a value it cannot compute is UNIFORM (when the may-uniform
  analysis says so), VARYING (a uniform value plus one that differs: differs) or unknown. Two invocations
  with different values are the proof a finding needs; anything unknown is never reported. So ggml's
  `gl_LocalInvocationID.x / WARP` (uniform per subgroup) is not reported, `gl_LocalInvocationID.x == 0` is.

Control flow: a block is reached by part of an instance when it is control dependent (post-dominator tree, a
virtual exit behind every return) on a branch whose condition differs among the invocations that reach the
branch. Calls: a function holding tangled instructions makes its call sites tangled too; inside it, the entry
is taken as reached by the whole instance (its call sites are checked) and parameters are unknown.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core.facts import ModuleFacts
from ..core.module import Instruction
from .index import CONSTANT_OPS

SUBGROUP, WORKGROUP = 3, 2   # Scope values
SUBGROUP_SAMPLE = 8          # invocations of subgroup 0 the witness computes (lavapipe, Intel: 8; the rest more)
MAX_SAMPLE = 1024            # a workgroup's invocations (Vulkan's limit on maxComputeWorkGroupInvocations)
_DEPTH = 150                 # expression depth the witness follows (deeper: unknown)

TERMINATORS = frozenset({"OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
                         "OpUnreachable", "OpTerminateInvocation", "OpEmitMeshTasksEXT"})
_CHAINS = frozenset({"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpInBoundsPtrAccessChain"})

# built-ins: uniform in a workgroup; per invocation; uniform in a subgroup only
_UNIFORM_BUILTINS = frozenset({"WorkgroupId", "NumWorkgroups", "WorkgroupSize", "SubgroupSize", "NumSubgroups",
                               "DeviceIndex", "ViewIndex", "BaseInstance", "BaseVertex", "DrawIndex"})
_SUBGROUP_UNIFORM_BUILTINS = frozenset({"SubgroupId"})

# group operations whose result is one value for the whole group named by their Scope operand (their first)
_GROUP_UNIFORM = frozenset({
    "OpGroupNonUniformBroadcastFirst", "OpGroupNonUniformBroadcast", "OpGroupNonUniformAll",
    "OpGroupNonUniformAny", "OpGroupNonUniformAllEqual", "OpGroupNonUniformBallot",
    "OpGroupAll", "OpGroupAny", "OpGroupBroadcast",
})
_GROUP_REDUCE = frozenset({  # uniform with GroupOperation Reduce
    "OpGroupNonUniformIAdd", "OpGroupNonUniformFAdd", "OpGroupNonUniformIMul", "OpGroupNonUniformFMul",
    "OpGroupNonUniformSMin", "OpGroupNonUniformUMin", "OpGroupNonUniformFMin", "OpGroupNonUniformSMax",
    "OpGroupNonUniformUMax", "OpGroupNonUniformFMax", "OpGroupNonUniformBitwiseAnd", "OpGroupNonUniformBitwiseOr",
    "OpGroupNonUniformBitwiseXor", "OpGroupNonUniformLogicalAnd", "OpGroupNonUniformLogicalOr",
    "OpGroupNonUniformLogicalXor", "OpGroupNonUniformBallotBitCount", "OpGroupIAdd", "OpGroupFAdd",
    "OpGroupFMin", "OpGroupUMin", "OpGroupSMin", "OpGroupFMax", "OpGroupUMax", "OpGroupSMax",
})
_SUBGROUP_KHR_UNIFORM = frozenset({"OpSubgroupFirstInvocationKHR", "OpSubgroupAllKHR", "OpSubgroupAnyKHR",
                                   "OpSubgroupAllEqualKHR", "OpSubgroupBallotKHR", "OpSubgroupReadInvocationKHR"})
_ALWAYS_DIVERGENT = frozenset({"OpFunctionParameter", "OpFunctionCall", "OpUndef"})



def reverse_postorder(start: int, succs) -> list[int]:
    """The nodes reachable from `start` in reverse postorder (depth first, without recursion), `succs(node)` giving
    a node's successors: the forward graph's order, and the reversed graph's for post-dominators."""
    seen = {start}
    post: list[int] = []
    stack = [(start, iter(succs(start)))]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            post.append(node)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(succs(nxt))))
    return post[::-1]

class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNIFORM = _Sentinel("UNIFORM")   # one value for the whole instance, not known
VARYING = _Sentinel("VARYING")   # certainly not one value for the instance, values not known


class Block:
    __slots__ = ("label", "insts", "term", "succs", "preds", "index")

    def __init__(self, label: int, index: int) -> None:
        self.label = label
        self.index = index
        self.insts: list[Instruction] = []
        self.term: Instruction | None = None
        self.succs: list[int] = []
        self.preds: list[int] = []


class Function:
    """One function's blocks, dominators, post-dominators and control dependence."""

    def __init__(self, inst: Instruction, body: list[Instruction]) -> None:
        self.inst = inst
        self.id = inst.result_id
        self.blocks: dict[int, Block] = {}
        self.order: list[int] = []
        self.block_of: dict[int, int] = {}   # result id -> label
        self.label_of_index: dict[int, int] = {}   # instruction index (in the module) -> label
        self.params: list[Instruction] = []
        cur: Block | None = None
        for i in body:
            if i.opname == "OpLabel" and i.result_id is not None:
                cur = self.blocks[i.result_id] = Block(i.result_id, len(self.order))
                self.order.append(i.result_id)
                continue
            if cur is None:
                if i.opname == "OpFunctionParameter":
                    self.params.append(i)
                continue
            if i.opname in TERMINATORS:
                cur.term = i
                cur.succs = _successors(i)
                cur = None
                continue
            cur.insts.append(i)
            self.label_of_index[i.index] = cur.label
            if i.result_id is not None:
                self.block_of[i.result_id] = cur.label
        for b in self.blocks.values():
            b.succs = [s for s in b.succs if s in self.blocks]
            for s in b.succs:
                self.blocks[s].preds.append(b.label)
        self.entry = self.order[0] if self.order else None
        self._rpo = self._reverse_postorder()
        self.idom = _idoms(self._rpo, lambda n: self.blocks[n].preds)
        self.ipdom = self._post_dominators()
        self.cd = self._control_dependence()

    def _reverse_postorder(self) -> list[int]:
        if self.entry is None:
            return []
        return reverse_postorder(self.entry, lambda n: self.blocks[n].succs)

    def _post_dominators(self) -> dict[int, int | None]:
        """Immediate post-dominator of each block; None: the virtual exit (or no path to an exit)."""
        exit_ = 0   # no SPIR-V id is 0
        exits = [b.label for b in self.blocks.values() if not b.succs]
        rev_succ = {exit_: exits}
        for b in self.blocks.values():
            rev_succ[b.label] = list(b.preds)
        # reverse postorder of the reversed graph, from the exit
        order = reverse_postorder(exit_, lambda n: rev_succ[n])
        preds_rev = {n: ([exit_] if not self.blocks[n].succs else []) + list(self.blocks[n].succs)
                     for n in self.blocks}
        idom = _idoms(order, lambda n: preds_rev.get(n, []))
        return {n: (None if idom.get(n) in (None, exit_) else idom[n]) for n in self.blocks}

    def _control_dependence(self) -> dict[int, list[tuple[int, int]]]:
        """Block -> the (branch block, successor) edges it is control dependent on."""
        cd: dict[int, list[tuple[int, int]]] = {n: [] for n in self.blocks}
        for x, b in self.blocks.items():
            if len(set(b.succs)) < 2:
                continue
            stop = self.ipdom.get(x)
            for y in set(b.succs):
                runner: int | None = y
                guard = 0
                while runner is not None and runner != stop and guard <= len(self.blocks):
                    cd[runner].append((x, y))
                    runner = self.ipdom.get(runner)
                    guard += 1
        return cd

    def cd_closure(self, label: int) -> list[tuple[int, int]]:
        """Every (branch, successor) edge `label` depends on, directly or through the branch's own block."""
        out: list[tuple[int, int]] = []
        seen_edges: set[tuple[int, int]] = set()
        todo = [label]
        done: set[int] = set()
        while todo:
            n = todo.pop()
            if n in done:
                continue
            done.add(n)
            for e in self.cd.get(n, ()):
                if e not in seen_edges:
                    seen_edges.add(e)
                    out.append(e)
                    todo.append(e[0])
        return out

    def dominates(self, a: int, b: int) -> bool:
        guard = 0
        while b is not None and guard <= len(self.blocks):
            if a == b:
                return True
            b = self.idom.get(b)  # type: ignore[assignment]
            guard += 1
        return False

    def instructions(self):
        for label in self.order:
            yield from self.blocks[label].insts


def _successors(term: Instruction) -> list[int]:
    ops = term.operands
    if term.opname == "OpBranch":
        return [ops[0].as_int]
    if term.opname == "OpBranchConditional":
        return [ops[1].as_int, ops[2].as_int]
    if term.opname == "OpSwitch":
        return [ops[1].as_int] + [o.as_int for o in ops[3::2]]
    return []


def _idoms(rpo: list[int], preds) -> dict[int, int | None]:
    """Immediate dominators (Cooper, Harvey, Kennedy) of the nodes of `rpo` (its first is the root)."""
    if not rpo:
        return {}
    pos = {n: i for i, n in enumerate(rpo)}
    idom: dict[int, int | None] = {rpo[0]: rpo[0]}
    changed = True
    while changed:
        changed = False
        for n in rpo[1:]:
            new = None
            for p in preds(n):
                if p not in idom or p not in pos:
                    continue
                if new is None:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while pos[a] > pos[b]:
                        a = idom[a]
                    while pos[b] > pos[a]:
                        b = idom[b]
                new = a
            if new is not None and idom.get(n) != new:
                idom[n] = new
                changed = True
    idom[rpo[0]] = None
    return idom


def functions(facts: ModuleFacts) -> dict[int, Function]:
    """The module's functions that end with OpFunctionEnd (of one id defined twice, the last)."""
    out: dict[int, Function] = {}
    for span in facts.functions:
        if span.ended and span.inst.result_id is not None:
            out[span.inst.result_id] = Function(span.inst, facts.body(span))
    return out


# ---- the module facts both analyses read ---------------------------------------------------------------------
class Facts:
    """Built-in variables, storage classes of pointers, types: what the analyses ask of the module."""

    def __init__(self, ix) -> None:
        self.ix = ix
        self.builtins: dict[int, str] = {}
        kinds = ix.grammar.operand_kinds
        builtin_names = kinds["BuiltIn"].by_value
        self.workgroup_size_const: int | None = None
        for id_, decs in ix.decorations.items():
            for d in decs:
                if d.opname == "OpDecorate" and len(d.operands) > 2 and d.operands[1].value == 11:   # BuiltIn
                    e = builtin_names.get(d.operands[2].value)
                    if e is not None:
                        self.builtins[id_] = e.name
                        if e.name == "WorkgroupSize":
                            self.workgroup_size_const = id_
        self._storage_names = kinds["StorageClass"].by_value

    def storage_of_pointer_type(self, type_id: int | None) -> str | None:
        t = self.ix.defs.get(type_id) if type_id is not None else None
        if t is None or t.opname not in ("OpTypePointer", "OpTypeUntypedPointerKHR") or not t.operands:
            return None
        e = self._storage_names.get(t.operands[0].value)
        return e.name if e is not None else None

    def holds_coopmat(self, pointer_type: int | None) -> bool:
        t = self.ix.defs.get(pointer_type) if pointer_type is not None else None
        return t is not None and t.opname == "OpTypePointer" and len(t.operands) > 1 \
            and self.ix.contains_coopmat(t.operands[1].as_int)

    def num_type(self, type_id: int | None) -> tuple[str, int, bool, int] | None:
        """(kind 'int'/'float'/'bool', width, signed, components) of a scalar or vector type."""
        t = self.ix.defs.get(type_id) if type_id is not None else None
        n = 0
        if t is not None and t.opname == "OpTypeVector" and len(t.operands) > 1:
            n = t.operands[1].as_int
            t = self.ix.defs.get(t.operands[0].value)
        if t is None:
            return None
        if t.opname == "OpTypeBool":
            return "bool", 1, False, n
        if t.opname == "OpTypeInt" and len(t.operands) > 1:
            return "int", t.operands[0].as_int, bool(t.operands[1].value), n
        if t.opname == "OpTypeFloat" and len(t.operands) == 1 and t.operands[0].as_int in (16, 32, 64):
            return "float", t.operands[0].as_int, True, n
        return None

    def local_size(self, entry: Instruction) -> tuple[tuple[int, int, int] | None, bool]:
        """(x, y, z) of an entry point (None: not known) and whether it comes from a spec constant."""
        ix = self.ix
        if self.workgroup_size_const is not None:
            d = ix.defs.get(self.workgroup_size_const)
            if d is not None and d.opname in ("OpConstantComposite", "OpSpecConstantComposite") \
                    and len(d.operands) == 3:
                vals = [ix.int_value(o.value) for o in d.operands]
                if all(v is not None for v in vals):
                    return tuple(v.value for v in vals), any(v.spec for v in vals)
            return None, False
        for m in ix.exec_modes.get(entry.operands[1].as_int, ()):
            if len(m.operands) < 5:
                continue
            mode = m.operands[1].value
            if mode == 17:   # LocalSize
                return tuple(o.as_int for o in m.operands[2:5]), False
            if mode == 38:   # LocalSizeId
                vals = [ix.int_value(o.value) for o in m.operands[2:5]]
                if all(v is not None for v in vals):
                    return tuple(v.value for v in vals), any(v.spec for v in vals)
        return None, False


def scope_divergent_builtin(name: str, component: int | None, size: tuple[int, int, int] | None,
                            scope: int) -> bool:
    """May the built-in (or one component of it) differ within an instance of `scope`?"""
    if name in _UNIFORM_BUILTINS:
        return False
    if name in _SUBGROUP_UNIFORM_BUILTINS:
        return scope == WORKGROUP
    if name in ("LocalInvocationId", "GlobalInvocationId") and component is not None and size is not None \
            and 0 <= component < 3:
        return size[component] > 1
    return True


def root_of(defs: dict[int, Instruction], pointer_id: int) -> tuple[Instruction | None, list[int]]:
    """The instruction a pointer is derived from (through access chains and copies) and the chain indices."""
    indices: list[int] = []
    d = defs.get(pointer_id)
    guard = 0
    while d is not None and guard < 64:
        if d.opname in _CHAINS:
            ops = cast("list[int]", d.operand_values())   # all ids: no Operand records made
            if not ops:
                break
            first = 2 if d.opname in ("OpPtrAccessChain", "OpInBoundsPtrAccessChain") else 1
            if first == 2 and len(ops) > 1:
                indices[:0] = [ops[1]]
            indices[:0] = ops[first:]
            d = defs.get(ops[0])
        elif d.opname == "OpCopyObject" and d.operands:
            d = defs.get(d.operands[0].as_int)
        else:
            break
        guard += 1
    return d, indices


class Divergence:
    """May-divergence of the values of one function at one scope (sound: 'uniform' is uniform)."""

    def __init__(self, facts: Facts, fn: Function, size, scope: int) -> None:
        self.facts = facts
        self.fn = fn
        self.size = size
        self.scope = scope
        self.div: set[int] = set()
        self.div_vars: set[int] = set()
        self.branches: set[int] = set()   # blocks whose branch is divergent
        self._solved = False   # solved on the first question: a module whose checks need no answer pays nothing

    def divergent(self, id_: int) -> bool:
        if not self._solved:
            self._solved = True
            self._solve()
        return id_ in self.div

    def _region(self, x: int) -> set[int]:
        """Blocks reachable from branch block x without passing its immediate post-dominator."""
        stop = self.fn.ipdom.get(x)
        seen: set[int] = set()
        todo = list(self.fn.blocks[x].succs)
        while todo:
            n = todo.pop()
            if n in seen or n == stop:
                continue
            seen.add(n)
            todo.extend(self.fn.blocks[n].succs)
        return seen

    def _solve(self) -> None:
        fn, defs = self.fn, self.facts.ix.defs
        # the Function variables whose address is taken by anything but a load, store or access chain
        fvars: dict[int, Instruction] = {}
        for i in fn.instructions():
            if i.opname == "OpVariable" and i.result_id is not None:
                fvars[i.result_id] = i
        escaping: set[int] = set()
        stores: list[tuple[Instruction, int]] = []   # (store, its block)
        for label in fn.order:
            for i in fn.blocks[label].insts:
                if i.opname == "OpStore" and len(i.operands) > 1:
                    stores.append((i, label))
                elif i.opname in ("OpFunctionCall", "OpCopyMemory", "OpCopyMemorySized") or \
                        i.opname.startswith("OpAtomic"):
                    for o in i.operands:
                        if o.is_id and o.value in defs:
                            r, _ = root_of(defs, o.as_int)
                            if r is not None and r.result_id in fvars:
                                escaping.add(r.result_id)
        self.div_vars = set(escaping)
        regions: dict[int, set[int]] = {}
        changed = True
        rounds = 0
        while changed and rounds < 50:
            changed = False
            rounds += 1
            # the blocks inside divergent control flow, and loops left at different trips
            inside: set[int] = set()
            joins: set[int] = set()
            looped: set[int] = set()
            for x in self.branches:
                reg = regions.get(x)
                if reg is None:
                    reg = regions[x] = self._region(x)
                inside |= reg
                stop = fn.ipdom.get(x)
                if stop is not None:
                    joins.add(stop)
                joins |= reg
                if x in reg:   # a cycle through x that avoids its post-dominator: a loop with a divergent exit
                    looped |= {n for n in reg if self._reaches_within(n, x, reg)}
            for st, label in stores:
                ptr = st.operands[0].as_int
                r, idx = root_of(defs, ptr)
                if r is None or r.result_id not in fvars or r.result_id in self.div_vars:
                    continue
                if label in inside or st.operands[1].value in self.div or any(k in self.div for k in idx):
                    self.div_vars.add(r.result_id)
                    changed = True
            for label in fn.order:
                b = fn.blocks[label]
                for i in b.insts:
                    rid = i.result_id
                    if rid is None or rid in self.div:
                        continue
                    if self._inst_divergent(i, label in joins, label in looped, fvars):
                        self.div.add(rid)
                        changed = True
                t = b.term
                if t is not None and label not in self.branches and t.opname in ("OpBranchConditional", "OpSwitch") \
                        and t.operands and t.operands[0].value in self.div:
                    self.branches.add(label)
                    changed = True

    def _reaches_within(self, a: int, target: int, region: set[int]) -> bool:
        seen: set[int] = set()
        todo = [a]
        while todo:
            n = todo.pop()
            if n == target:
                return True
            if n in seen or n not in region and n != a:
                continue
            seen.add(n)
            todo.extend(self.fn.blocks[n].succs)
        return False

    def _inst_divergent(self, i: Instruction, at_join: bool, looped: bool, fvars) -> bool:
        op = i.opname
        div = self.div
        if looped:
            return True
        if op in _ALWAYS_DIVERGENT or op.startswith("OpAtomic"):
            return True
        if op == "OpPhi":
            return at_join or any(o.value in div for o in i.operands[0::2])
        if op == "OpVariable":
            return False
        if op == "OpLoad" and i.operands:
            return self._load_divergent(i.operands[0].as_int, fvars)
        if op in _GROUP_UNIFORM or op in _GROUP_REDUCE or op in _SUBGROUP_KHR_UNIFORM:
            return self._group_divergent(i)
        if op.startswith(("OpGroup", "OpSubgroup")):
            return True
        return any(o.is_id and o.value in div for o in i.operands)

    def _group_divergent(self, i: Instruction) -> bool:
        if i.opname in _SUBGROUP_KHR_UNIFORM:
            scope = SUBGROUP
            rest = i.operands
        else:
            v = self.facts.ix.int_value(i.operands[0].value) if i.operands else None
            if v is None:
                return True
            scope = v.value
            rest = i.operands[1:]
        if i.opname in _GROUP_REDUCE and (not rest or rest[0].kind != "GroupOperation" or rest[0].value != 0):
            return True   # only GroupOperation Reduce gives one value for the group
        # a group of the analysed scope or a larger one: one value (Broadcast's id is uniform in a valid module)
        return not (scope == WORKGROUP or scope == SUBGROUP == self.scope)

    def _load_divergent(self, ptr: int, fvars) -> bool:
        defs = self.facts.ix.defs
        if ptr in self.div:
            return True
        r, idx = root_of(defs, ptr)
        if r is None:
            return True
        if any(k in self.div for k in idx):
            return True
        if r.opname == "OpVariable":
            rid = r.result_id
            name = self.facts.builtins.get(rid) if rid is not None else None
            if name is not None:
                comp = None
                if len(idx) == 1:
                    v = self.facts.ix.int_value(idx[0])
                    comp = v.value if v is not None else None
                return scope_divergent_builtin(name, comp, self.size, self.scope)
            if rid in fvars:
                return rid in self.div_vars
            storage = self.facts.storage_of_pointer_type(r.result_type)
            return storage in ("Private", "Input", "Output", "Function", None)
        if r.result_id in self.div:
            return True
        return r.opname in _ALWAYS_DIVERGENT


class Witness:
    """Values of the invocations of instance 0 of a scope, as far as the module determines them."""

    def __init__(self, facts: Facts, fn: Function, size: tuple[int, int, int], scope: int,
                 divergence: Divergence) -> None:
        self.facts = facts
        self.ix = facts.ix
        self.fn = fn
        self.size = size
        self.scope = scope
        self.dv = divergence
        total = size[0] * size[1] * size[2]
        self.n = min(total, SUBGROUP_SAMPLE if scope == SUBGROUP else MAX_SAMPLE)
        self.lanes = np.arange(self.n, dtype=np.int64)
        self.memo: dict[int, object] = {}
        self.param_ids = {p.result_id for p in fn.params}
        self._single_store: dict[int, Instruction | None] | None = None

    # ---- values -------------------------------------------------------------------------------------------
    def value(self, id_: int, depth: int = 0):
        memo = self.memo
        if id_ in memo:
            return memo[id_]
        w = None
        memo[id_] = None   # a cycle (through phis) reads as not known
        if depth < _DEPTH:
            try:
                w = self._eval(id_, depth + 1)
            except (ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError):
                w = None   # anything odd about a value: not known (never a finding)
        if w is None and id_ not in self.fn.block_of and id_ not in self.param_ids \
                and getattr(self.ix.defs.get(id_), "opname", "OpUndef") != "OpUndef":
            w = UNIFORM   # a global: constants, variables, types
        if w is None and id_ in self.fn.block_of and not self.dv.divergent(id_):
            w = UNIFORM
        memo[id_] = w
        return w

    def _builtin(self, name: str):
        n, lanes = self.n, self.lanes
        sx, sy, _sz = self.size
        if name in ("LocalInvocationId", "GlobalInvocationId"):
            return np.stack([lanes % sx, (lanes // sx) % sy, lanes // (sx * sy)], axis=1)
        if name == "LocalInvocationIndex":
            return lanes.copy()
        if name == "WorkgroupId":
            return np.zeros((n, 3), np.int64)
        if name == "SubgroupLocalInvocationId":
            return lanes.copy() if self.scope == SUBGROUP else None
        if name == "SubgroupId":
            return np.zeros(n, np.int64) if self.scope == SUBGROUP else None
        if name in _UNIFORM_BUILTINS:
            return UNIFORM
        return None

    def _eval(self, id_: int, depth: int):
        ix = self.ix
        d = ix.defs.get(id_)
        if d is None:
            return None
        op = d.opname
        if op in ("OpConstant", "OpSpecConstant", "OpConstantTrue", "OpConstantFalse", "OpSpecConstantTrue",
                  "OpSpecConstantFalse", "OpConstantNull", "OpConstantComposite", "OpSpecConstantComposite",
                  "OpSpecConstantOp"):
            return self._constant(d)
        if id_ not in self.fn.block_of:
            return None
        t = self.facts.num_type(d.result_type)
        if op == "OpLoad":
            return self._load(d, depth)
        if op == "OpCopyObject":
            return self.value(d.operands[0].as_int, depth)
        if op in ("OpPhi", "OpFunctionCall", "OpVariable") or op.startswith(("OpAtomic", "OpGroup", "OpSubgroup")):
            return None
        if op == "OpCompositeExtract" and ix.coopmat_of(d.operands[0].as_int) is not None:
            return VARYING   # an element of the invocation's own part of a matrix: per invocation by definition
        if op == "OpCompositeExtract" and len(d.operands) == 2:
            v = self.value(d.operands[0].as_int, depth)
            if isinstance(v, np.ndarray) and v.ndim == 2:
                return v[:, d.operands[1].as_int]
            return UNIFORM if v is UNIFORM else None
        if op == "OpCompositeConstruct" and t is not None and t[3]:
            parts = [self.value(o.as_int, depth) for o in d.operands]
            if all(isinstance(p, np.ndarray) and p.ndim == 1 for p in parts):
                return np.stack(parts, axis=1)
            return None
        if t is None:
            return None
        ops = [self.value(o.as_int, depth) for o in d.operands if o.is_id]
        return _apply(op, t, ops, [self.facts.num_type(ix.defs[o.as_int].result_type)
                                   if o.as_int in ix.defs else None for o in d.operands if o.is_id])

    def _constant(self, d: Instruction):
        t = self.facts.num_type(d.result_type)
        if t is None:
            return UNIFORM
        kind, width, signed, comps = t
        if d.opname == "OpConstantComposite" or d.opname == "OpSpecConstantComposite":
            parts = [self._constant(self.ix.defs[o.as_int]) for o in d.operands]
            if all(isinstance(p, np.ndarray) for p in parts):
                return np.stack(parts, axis=1)
            return UNIFORM
        if kind == "float":
            if d.opname == "OpConstantNull":
                return np.zeros(self.n, _FLOAT[width])
            v = d.operands[0].value if d.operands else None
            if isinstance(v, (int, float)):
                return np.full(self.n, v, _FLOAT[width])
            return UNIFORM
        v = self.ix.int_value(d.result_id)
        if v is None:
            return UNIFORM
        return np.full(self.n, _wrap(v.value, width), np.int64)

    def _load(self, d: Instruction, depth: int):
        ix = self.ix
        root, idx = root_of(ix.defs, d.operands[0].as_int)
        if root is None or root.opname != "OpVariable":
            return None
        name = self.facts.builtins.get(root.result_id)  # type: ignore[arg-type]
        if name is not None:
            v = self._builtin(name)
            if isinstance(v, np.ndarray) and idx:
                if len(idx) != 1 or v.ndim != 2:
                    return None
                k = ix.int_value(idx[0])
                return v[:, k.value] if k is not None and 0 <= k.value < v.shape[1] else None
            return v
        if idx and self.facts.holds_coopmat(root.result_type) and ix.coopmat(d.result_type) is None:
            return VARYING   # an element of the invocation's own part of a matrix variable
        if idx or root.result_id not in self.fn.block_of:
            return None
        st = self._store_of(root.result_id)
        if st is None:
            return None
        sb = self.fn.label_of_index.get(st.index)
        lb = self.fn.block_of.get(d.result_id)  # type: ignore[arg-type]
        if sb is None or lb is None:
            return None
        if sb == lb:
            blk = self.fn.blocks[sb].insts
            if blk.index(st) > blk.index(d):
                return None
        elif not self.fn.dominates(sb, lb):
            return None
        return self.value(st.operands[1].as_int, depth)

    def _store_of(self, var: int) -> Instruction | None:
        """The one OpStore straight to Function variable `var`, where that is all that writes it."""
        if self._single_store is None:
            found: dict[int, Instruction | None] = {}
            defs = self.ix.defs
            for i in self.fn.instructions():
                if i.opname == "OpStore" and i.operands:
                    r, idx = root_of(defs, i.operands[0].as_int)
                    if r is not None and r.result_id is not None:
                        rid = r.result_id
                        found[rid] = None if (rid in found or idx) else i
                elif i.opname not in ("OpLoad", "OpVariable") and i.opname not in _CHAINS:
                    for o in i.operands:
                        if o.is_id and o.value in defs:
                            r, _ = root_of(defs, o.as_int)
                            if r is not None and r.opname == "OpVariable" and r.result_id is not None:
                                found[r.result_id] = None   # passed on, copied into, atomically changed
            self._single_store = found
        return self._single_store.get(var)


def pointer_part_ids(ix, ptr: int) -> list[int]:
    """The ids whose values select what a pointer addresses: chain indices (and a converted address); constant
    indices are left out (the same for every invocation)."""
    defs = ix.defs
    root, idx = root_of(defs, ptr)
    parts = [k for k in idx if (d := defs.get(k)) is None or d.opname not in CONSTANT_OPS]   # is_constant_inst
    if root is not None and root.opname == "OpConvertUToPtr" and root.operands:
        parts.append(root.operands[0].as_int)
    elif root is not None and root.opname != "OpVariable" and root.result_id is not None:
        parts.append(root.result_id)
    return parts


_FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


def _wrap(v: int, width: int) -> int:
    """A constant's bits as the int64 the witness keeps (unsigned below 64 bits, two's complement at 64)."""
    v &= (1 << width) - 1
    if width >= 64 and v >= 1 << 63:
        v -= 1 << 64
    return v


def _signed(a: np.ndarray, width: int) -> np.ndarray:
    if width >= 64:
        return a
    half = 1 << (width - 1)
    return ((a + half) & ((1 << width) - 1)) - half


def _mask(a: np.ndarray, width: int) -> np.ndarray:
    return a if width >= 64 else a & ((1 << width) - 1)


_INJECTIVE_BINARY = frozenset({"OpIAdd", "OpISub", "OpBitwiseXor"})
_INJECTIVE_UNARY = frozenset({"OpNot", "OpSNegate", "OpBitcast", "OpUConvert", "OpSConvert", "OpConvertUToF",
                              "OpConvertSToF", "OpFNegate", "OpCopyObject"})
_COMPARE = {"OpIEqual": "eq", "OpINotEqual": "ne", "OpLogicalEqual": "eq", "OpLogicalNotEqual": "ne",
            "OpULessThan": "ult", "OpULessThanEqual": "ule", "OpUGreaterThan": "ugt", "OpUGreaterThanEqual": "uge",
            "OpSLessThan": "slt", "OpSLessThanEqual": "sle", "OpSGreaterThan": "sgt", "OpSGreaterThanEqual": "sge",
            "OpFOrdEqual": "feq", "OpFOrdLessThan": "flt", "OpFOrdGreaterThan": "fgt",
            "OpFOrdLessThanEqual": "fle", "OpFOrdGreaterThanEqual": "fge", "OpFUnordNotEqual": "fne"}


def _is_uniform(w) -> bool:
    if w is UNIFORM:
        return True
    if isinstance(w, np.ndarray):
        return bool(len(w) == 0 or (w == w[0]).all())
    return False


def _apply(op: str, t, ops: list, types: list):
    """One instruction on witness values: arrays where all operands are known, else the sentinels' rules."""
    kind, width, signed, comps = t
    if any(o is None for o in ops):
        return None
    known = all(isinstance(o, np.ndarray) for o in ops)
    if not known:
        if all(_is_uniform(o) for o in ops):
            return UNIFORM
        varying = [o for o in ops if not _is_uniform(o)]
        if len(varying) == 1 and (op in _INJECTIVE_BINARY and len(ops) == 2 or op in _INJECTIVE_UNARY) \
                and not comps and (varying[0] is VARYING or isinstance(varying[0], np.ndarray)):
            if op in ("OpUConvert", "OpSConvert") and types[0] is not None and types[0][1] > width:
                return None   # narrowing: may collapse
            return VARYING
        return None
    a = ops
    ot = types[0] if types else None
    if op in _COMPARE:
        if ot is None:
            return None
        w0 = ot[1]
        x, y = a[0], a[1]
        c = _COMPARE[op]
        if c[0] == "s":
            x, y = _signed(x, w0), _signed(y, w0)
        elif c[0] == "u" and w0 >= 64:
            x, y = x.view(np.uint64), y.view(np.uint64)
        c = c.lstrip("suf")
        r = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[c]
        return r.astype(np.int64)
    if op in ("OpLogicalAnd", "OpLogicalOr"):
        return (a[0] & a[1]) if op == "OpLogicalAnd" else (a[0] | a[1])
    if op == "OpLogicalNot":
        return 1 - a[0]
    if op == "OpSelect":
        cond = a[0] if a[0].ndim == a[1].ndim else a[0][:, None]
        return np.where(cond != 0, a[1], a[2])
    if kind == "float":
        if op in ("OpConvertUToF", "OpConvertSToF"):
            src = a[0] if op == "OpConvertUToF" or ot is None else _signed(a[0], ot[1])
            if ot is not None and ot[1] >= 64 and op == "OpConvertUToF":
                src = src.view(np.uint64)
            return src.astype(_FLOAT[width])
        if op == "OpFConvert":
            return a[0].astype(_FLOAT[width])
        if op == "OpFNegate":
            return -a[0]
        if op in ("OpFAdd", "OpFSub", "OpFMul", "OpFDiv"):
            x, y = a[0].astype(_FLOAT[width]), a[1].astype(_FLOAT[width])
            with np.errstate(all="ignore"):
                return {"OpFAdd": x + y, "OpFSub": x - y, "OpFMul": x * y, "OpFDiv": x / y}[op]
        return None
    if kind not in ("int", "bool"):
        return None
    if op in ("OpConvertFToU", "OpConvertFToS"):
        f = a[0]
        if not np.isfinite(f).all():
            return None
        return _mask(np.trunc(f).astype(np.int64), width)
    if op in ("OpUConvert", "OpBitcast", "OpCopyObject"):
        return _mask(a[0], width)
    if op == "OpSConvert":
        return _mask(_signed(a[0], ot[1]) if ot is not None else a[0], width)
    if op == "OpNot":
        return _mask(~a[0], width)
    if op == "OpSNegate":
        return _mask(-a[0], width)
    if len(a) != 2:
        return None
    x, y = a
    with np.errstate(all="ignore"):
        if op == "OpIAdd":
            return _mask(x + y, width)
        if op == "OpISub":
            return _mask(x - y, width)
        if op == "OpIMul":
            return _mask(x * y, width)
        if op in ("OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor"):
            return {"OpBitwiseAnd": x & y, "OpBitwiseOr": x | y, "OpBitwiseXor": x ^ y}[op]
        if op in ("OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic"):
            if (y < 0).any() or (y >= width).any():
                return None
            if op == "OpShiftLeftLogical":
                return _mask(x << y, width)
            if op == "OpShiftRightLogical":
                return x >> y if width < 64 else (x.view(np.uint64) >> y.view(np.uint64)).view(np.int64)
            return _mask(_signed(x, width) >> y, width)
        if op in ("OpUDiv", "OpUMod", "OpSDiv", "OpSRem", "OpSMod"):
            if (y == 0).any() or width >= 64:
                return None
            if op == "OpUDiv":
                return x // y
            if op == "OpUMod":
                return x % y
            sx_, sy_ = _signed(x, width), _signed(y, width)
            q = np.trunc(sx_ / sy_).astype(np.int64)
            if op == "OpSDiv":
                return _mask(q, width)
            if op == "OpSRem":
                return _mask(sx_ - q * sy_, width)
            return _mask(np.mod(sx_, sy_), width)
    return None


def varies(w, reach: np.ndarray | None) -> tuple[int, int] | None:
    """Two invocations (positions in the sample) among those reaching that see different values, or None."""
    if w is VARYING:
        return (0, 1) if reach is None or bool(reach.all()) else None
    if not isinstance(w, np.ndarray) or len(w) < 2:
        return None
    if w.ndim == 1 and w.dtype.kind != "f" and w.min() == w.max():
        return None   # one value in every invocation of the sample (constants): the common case, two reductions
    idx = np.flatnonzero(reach) if reach is not None else np.arange(len(w))
    if len(idx) < 2:
        return None
    v = w[idx]
    flat = v.reshape(len(v), -1)
    if v.dtype.kind == "f":
        flat = flat.view(f"u{v.dtype.itemsize}") if flat.flags.c_contiguous else \
            np.ascontiguousarray(flat).view(f"u{v.dtype.itemsize}")
    diff = (flat != flat[0]).any(axis=1)
    if not diff.any():
        return None
    return int(idx[0]), int(idx[int(np.flatnonzero(diff)[0])])

"""What the uniformity analysis reads of a module, without numpy: each function's control flow (blocks,
dominators, post-dominators, control dependence), where pointers come from, the built-in variables and the
local size (issue 33: `val` of a module whose every instruction uniformity.py decides quiet never imports numpy).

uniformity_analysis.py computes values and divergence on these; uniformity.py reports.
"""
from __future__ import annotations

from typing import cast

from ..core.facts import ModuleFacts
from ..core.module import Instruction
from .index import CONSTANT_OPS

SUBGROUP, WORKGROUP = 3, 2   # Scope values

TERMINATORS = frozenset({"OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
                         "OpUnreachable", "OpTerminateInvocation", "OpEmitMeshTasksEXT"})
CHAINS = frozenset({"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpInBoundsPtrAccessChain"})


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


def root_of(defs: dict[int, Instruction], pointer_id: int) -> tuple[Instruction | None, list[int]]:
    """The instruction a pointer is derived from (through access chains and copies) and the chain indices."""
    indices: list[int] = []
    d = defs.get(pointer_id)
    guard = 0
    while d is not None and guard < 64:
        if d.opname in CHAINS:
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

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

import numpy as np

from ..core.module import Instruction
from .uniformity_facts import CHAINS as _CHAINS, SUBGROUP, WORKGROUP, Facts, Function, root_of

SUBGROUP_SAMPLE = 8          # invocations of subgroup 0 the witness computes (lavapipe, Intel: 8; the rest more)
MAX_SAMPLE = 1024            # a workgroup's invocations (Vulkan's limit on maxComputeWorkGroupInvocations)
_DEPTH = 150                 # expression depth the witness follows (deeper: unknown)


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


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNIFORM = _Sentinel("UNIFORM")   # one value for the whole instance, not known
VARYING = _Sentinel("VARYING")   # certainly not one value for the instance, values not known


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

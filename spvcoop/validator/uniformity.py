"""Dynamic uniformity of cooperative-matrix instructions and barriers (issue 37 item 4).

Each rule reports what uniformity_analysis.py proves: an instruction reached by only part of its scope
instance (control flow on a value that certainly differs within it), or an operand that certainly differs
within the instance. A value the analysis cannot follow is never reported, so a clean module stays clean;
the interpreter checks the same at run time with the actual values (coopmat/core.py, ops_memory.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..core.diagnostics import Note
from ..core.module import Instruction, Operand
from .index import CONSTANT_OPS
from .coopmat_memory import LOADS, LOAD_STORE, parse_access
from .registry import MODULE, Context, rule
from .uniformity_facts import SUBGROUP, WORKGROUP, Facts, Function, functions, pointer_part_ids

if TYPE_CHECKING:
    import numpy as np

    from .uniformity_analysis import Witness

# numpy and uniformity_analysis (values, divergence) are imported where a witness is needed: a module whose every
# instruction _run finds quiet (a large straight-line kernel) is validated without loading numpy (issue 33)

KHR = "SPV_KHR_cooperative_matrix"
NV = "SPV_NV_cooperative_matrix"
CORE = "SPIR-V 1.6, OpControlBarrier"
_SCOPE_NAMES = {SUBGROUP: "subgroup", WORKGROUP: "workgroup"}
_GLCOMPUTE = 5
_BARRIER_SUBGROUP_NOTE = ("with Subgroup execution scope, what a barrier in non-uniform control flow does is the "
                          "client API's to define; Vulkan gives it no meaning, so this is a warning")


class _Finding:
    __slots__ = ("rule", "inst", "operand", "message", "notes", "spec", "severity", "key")

    def __init__(self, rule_id: str, inst: Instruction, operand, message: str, notes: list[Note], spec: bool,
                 severity: str | None = None, key: tuple = ()) -> None:
        self.rule, self.inst, self.operand, self.message = rule_id, inst, operand, message
        self.notes, self.spec, self.severity, self.key = notes, spec, severity, key


def _tangled(ix, fns: dict[int, Function], calls: dict[int, list[tuple[Instruction, int]]]) \
        -> dict[int, dict[int, list[tuple[Instruction, str, int, bool]]]]:
    """Function -> instruction index -> [(instruction, 'coopmat'/'barrier', scope, spec-dependent)]: the
    instructions that every invocation of a scope instance must execute together, calls to functions holding
    them included. Fills `calls` (function -> its OpFunctionCalls and their callees, in order) on the way."""
    own: dict[int, dict[int, list[tuple[Instruction, str, int, bool]]]] = {}
    coopmat, coopmat_of = ix.coopmat, ix.coopmat_of
    takes: dict[str, bool] = {}   # opname -> _may_take_matrix (this loop visits every instruction of the module)
    cm_of_type: dict = {None: None}   # result type -> ix.coopmat(it), without a method call per instruction
    for fid, fn in fns.items():
        found: dict[int, list[tuple[Instruction, str, int, bool]]] = {}
        for inst in fn.instructions():
            op = inst.opname
            if op == "OpFunctionCall" and inst.operands:
                calls.setdefault(fid, []).append((inst, inst.operands[0].as_int))
                continue
            if op == "OpControlBarrier" and inst.operands:
                v = ix.int_value(inst.operands[0].value)
                if v is not None and v.value in (SUBGROUP, WORKGROUP):
                    found[inst.index] = [(inst, "barrier", v.value, v.spec)]
                continue
            rt = inst.result_type
            cm = cm_of_type.get(rt, cm_of_type)
            if cm is cm_of_type:
                cm = cm_of_type[rt] = coopmat(rt)
            if cm is None:
                t = takes.get(op)
                if t is None:
                    t = takes[op] = _may_take_matrix(op)
                if t:
                    for v in inst.ref_ids():
                        if (cm := coopmat_of(v)) is not None:
                            break
            if cm is not None and cm.scope is not None and cm.scope.value in (SUBGROUP, WORKGROUP):
                found[inst.index] = [(inst, "coopmat", cm.scope.value, cm.scope.spec)]
        own[fid] = found
    # a call is tangled as the instructions its callee (transitively) holds: fixed point over the call graph
    holds = {fid: {(k, s, sp) for lst in f.values() for _i, k, s, sp in lst} for fid, f in own.items()}
    changed = True
    while changed:
        changed = False
        for fid, cs in calls.items():
            for _inst, callee in cs:
                extra = holds.get(callee, set()) - holds[fid]
                if extra:
                    holds[fid] |= extra
                    changed = True
    for fid, cs in calls.items():
        for inst, callee in cs:
            kinds = sorted(holds.get(callee, set()))
            if kinds:
                own[fid][inst.index] = [(inst, k, s, sp) for k, s, sp in kinds]
    return own


# instructions without a matrix result that may take a matrix operand (the others' operands are not decoded: a
# large module's lazily decoded operands are most of this pass's time)
_TAKES_MATRIX = frozenset({"OpCompositeExtract", "OpCompositeInsert", "OpStore", "OpSelect", "OpCopyObject",
                           "OpPhi", "OpVectorExtractDynamic"})


def _may_take_matrix(opname: str) -> bool:
    return opname in _TAKES_MATRIX or "CooperativeMatrix" in opname or opname.endswith(("QCOM", "TensorNV"))


def _witness(per: dict, facts: Facts, fn: Function, size, scope: int) -> Witness:
    """The function's witness at `scope`, made once (per entry point)."""
    from .uniformity_analysis import Divergence, Witness
    if scope not in per:
        per[scope] = Witness(facts, fn, size, scope, Divergence(facts, fn, size, scope))
    return per[scope]


def _reachable(fns: dict[int, Function], calls: dict[int, list[tuple[Instruction, int]]], entry: int) -> list[int]:
    """The functions `entry` reaches; calls: each function's OpFunctionCalls and callees, in order (_tangled's)."""
    seen, todo = [], [entry]
    while todo:
        f = todo.pop()
        if f in seen or f not in fns:
            continue
        seen.append(f)
        todo.extend(callee for _inst, callee in calls.get(f, ()))
    return seen


class _Analysis:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.ix = ctx.ix
        self.findings: list[_Finding] = []
        # per (function, block): the branches it depends on; per (witness, block): who reaches it (a large
        # function asks for the same few blocks once per instruction)
        self._branch_memo: dict[tuple[int | None, int], list[tuple[int, set[int]]]] = {}
        self._reach_memo: dict[tuple[Witness, int], np.ndarray] = {}
        self._constant: dict[int, bool] = {}   # id -> ix.is_constant_inst(id), for _quiet_operands
        self._run()

    def _run(self) -> None:
        ix = self.ix
        if not any(i.opname == "OpControlBarrier" for i in ix.module.instructions) and \
                not any(t in ix.defs and ix.coopmat(t) is not None for t in _coopmat_type_ids(ix)):
            return
        fns = functions(ix.module_facts)
        calls: dict[int, list[tuple[Instruction, int]]] = {}
        tangled = _tangled(ix, fns, calls)
        if not any(tangled.values()):
            return
        facts = Facts(ix)
        seen: set[tuple] = set()
        for ep in ix.entry_points:
            if len(ep.operands) < 2 or ep.operands[0].value != _GLCOMPUTE:
                continue
            size, size_spec = facts.local_size(ep)
            if size is None or min(size) < 1:
                continue
            for fid in _reachable(fns, calls, ep.operands[1].as_int):
                fn = fns[fid]
                label_of, cd = fn.label_of_index, fn.cd
                per: dict[int, Witness] = {}
                for items in tangled.get(fid, {}).values():
                    for inst, kind, scope, spec in items:
                        # quiet (nothing _check could find): outside a block, or in a block that depends on no
                        # branch (cd_closure is empty exactly where cd is) with no operand that can differ
                        label = label_of.get(inst.index)
                        if label is None or (not cd.get(label) and (kind != "coopmat" or self._quiet_operands(inst))):
                            continue
                        # the first subgroup lies in workgroup 0: what differs in it differs in the workgroup too
                        ws = [_witness(per, facts, fn, size, s) for s in
                              ((scope, SUBGROUP) if scope == WORKGROUP else (scope,))]
                        for f in self._check(fn, ws, inst, kind, scope, spec or size_spec):
                            k = (f.rule, f.inst.index, f.key or f.message)
                            if k not in seen:
                                seen.add(k)
                                self.findings.append(f)
        self._group()

    def _group(self) -> None:
        """One control-flow finding per branch and rule: at the first instruction, the others counted."""
        first: dict[tuple, _Finding] = {}
        more: dict[tuple, int] = {}
        kept = []
        for f in sorted(self.findings, key=lambda f: f.inst.index):
            if f.key and f.key[0] == "branch":
                k = (f.rule, *f.key)
                if k in first:
                    more[k] = more.get(k, 0) + 1
                    continue
                first[k] = f
            kept.append(f)
        for k, n in more.items():
            first[k].notes.append(Note(f"{n} more such instruction{'s' if n > 1 else ''} under the same branch"))
        self.findings = kept

    # ---- one instruction -----------------------------------------------------------------------------------
    def _quiet_operands(self, inst: Instruction) -> bool:
        """For a cooperative-matrix instruction whose block depends on no branch: can no operand the operand rules
        read differ between invocations (none, or constants and the fixed addresses of variables)? With the block
        test in _run, this is _quiet: _check can find nothing there, whatever the values. A large straight-line
        function is mostly such instructions; they are decided without a witness."""
        op = inst.opname
        if op in LOAD_STORE:
            if self._fixed_access(inst, op):
                return True
            got = _access_ids(inst)
            if got is None:
                return True
            _flavour, ptr, stride, layout = got
            defs = self.ix.defs
            for k in (stride, layout):
                if k is not None and ((d := defs.get(k)) is None or d.opname not in CONSTANT_OPS):
                    return False
            return not pointer_part_ids(self.ix, ptr)
        return op not in ("OpCompositeConstruct", "OpMatrixTimesScalar")

    def _fixed_access(self, inst: Instruction, op: str) -> bool:
        """The common quiet load/store, decided from the words: Stride and layout constants, the pointer a variable
        or one access chain into a variable with constant indices (pointer_part_ids is then empty). False where
        that is not seen (_quiet_operands then asks the general way)."""
        pending = getattr(inst, "pending_ids", None)
        ids = pending() if pending is not None else None
        if not ids:
            return False
        defs = self.ix.defs
        d = defs.get(ids[0])
        if d is None:
            return False
        if d.opname in ("OpAccessChain", "OpInBoundsAccessChain"):
            ops = cast("list[int]", d.operand_values())
            if not ops or (base := defs.get(ops[0])) is None or base.opname != "OpVariable":
                return False
            checked = [*ids[1 if op in LOADS else 2:][:2], *ops[1:]]
        elif d.opname == "OpVariable":
            checked = ids[1 if op in LOADS else 2:][:2]
        else:
            return False
        known = self._constant
        for k in checked:
            c = known.get(k)
            if c is None:
                c = known[k] = self.ix.is_constant_inst(k)
            if not c:
                return False
        return True

    def _check(self, fn: Function, ws: list[Witness], inst: Instruction, kind: str, scope: int, spec: bool):
        label = fn.label_of_index.get(inst.index)
        if label is None:
            return
        for w in ws:
            cf = self._control(fn, w, inst, label, kind, scope, spec)
            if cf is not None:
                yield cf
                return
        if kind != "coopmat":
            return
        for w in ws:
            reach = self._reach(fn, w, label)
            if reach.sum() < 2:
                continue
            found = list(self._operands(w, inst, reach, scope, spec))
            if found:
                yield from found
                return

    def _branches(self, fn: Function, label: int) -> list[tuple[int, set[int]]]:
        """The branch blocks `label` depends on, in block order, each with the edges that lead towards it."""
        k = (fn.id, label)
        got = self._branch_memo.get(k)
        if got is None:
            got = self._branch_memo[k] = sorted(_by_branch(fn.cd_closure(label)).items(),
                                                key=lambda e: fn.blocks[e[0]].index)
        return got

    def _reach(self, fn: Function, w: Witness, label: int) -> np.ndarray:
        """Which invocations of the sample reach block `label`, from the branches whose conditions are known
        (shared between callers: read it, never change it)."""
        k = (w, label)
        r = self._reach_memo.get(k)
        if r is None:
            import numpy as np
            r = np.ones(w.n, bool)
            for x, edges in self._branches(fn, label):
                takes = self._takes(fn, w, x, edges)
                if takes is not None:
                    r &= takes
            self._reach_memo[k] = r
        return r

    def _takes(self, fn: Function, w: Witness, x: int, edges: set[int]) -> np.ndarray | None:
        """Per invocation of the sample: does it leave branch block x by one of `edges`? None: unknown."""
        import numpy as np
        term = fn.blocks[x].term
        if term is None or not term.operands:
            return None
        c = w.value(term.operands[0].as_int)
        if not isinstance(c, np.ndarray) or c.ndim != 1:
            return None
        if term.opname == "OpBranchConditional":
            t, f = term.operands[1].as_int, term.operands[2].as_int
            out = np.zeros(w.n, bool)
            if t in edges:
                out |= c != 0
            if f in edges:
                out |= c == 0
            return out
        ops = term.operands
        default = ops[1].as_int
        cases = [(ops[i].value, ops[i + 1].as_int) for i in range(2, len(ops) - 1, 2)]
        width = w.facts.num_type(w.ix.defs[term.operands[0].as_int].result_type) if \
            term.operands[0].as_int in w.ix.defs else None
        bits = width[1] if width else 32
        lits = [(int(v) & ((1 << bits) - 1) if isinstance(v, int) else v, lab) for v, lab in cases]
        out = np.zeros(w.n, bool)
        listed = np.zeros(w.n, bool)
        for v, lab in lits:
            hit = c == v
            listed |= hit
            if lab in edges:
                out |= hit
        if default in edges:
            out |= ~listed
        return out

    def _control(self, fn: Function, w: Witness, inst: Instruction, label: int, kind: str, scope: int,
                 spec: bool) -> _Finding | None:
        import numpy as np

        from .uniformity_analysis import VARYING
        for x, edges in self._branches(fn, label):
            term = fn.blocks[x].term
            if term is None or not term.operands:
                continue
            cond_id = term.operands[0].as_int
            c = w.value(cond_id)
            reach_x = self._reach(fn, w, x)
            if c is VARYING:
                if term.opname != "OpBranchConditional" or len(edges) != 1 or not reach_x.all():
                    continue
                pair: tuple[int, int] | None = (0, 1)
                vals = None
            else:
                takes = self._takes(fn, w, x, edges)
                if takes is None:
                    continue
                on = np.flatnonzero(reach_x & takes)
                off = np.flatnonzero(reach_x & ~takes)
                if not len(on) or not len(off):
                    continue
                pair = (int(min(on[0], off[0])), int(max(on[0], off[0])))
                vals = (c[pair[0]], c[pair[1]])
            return self._cf_finding(inst, kind, scope, spec, term, cond_id, pair, vals, w.scope == SUBGROUP)
        return None

    def _cf_finding(self, inst, kind, scope, spec, term, cond_id, pair, vals, in_subgroup: bool) -> _Finding:
        ix, ctx = self.ix, self.ctx
        sname = _SCOPE_NAMES[scope]
        what = (f"{inst.opname} (a {sname.capitalize()}-scope cooperative matrix)" if kind == "coopmat"
                else f"{inst.opname} with {sname.capitalize()} execution scope")
        if inst.opname == "OpFunctionCall":
            what = (f"the call of {ix.name(inst.operands[0].as_int)}, which holds "
                    + ("cooperative-matrix instructions" if kind == "coopmat" else "a barrier")
                    + f" of {sname.capitalize()} scope,")
        seen = f"values {_show(vals[0])} and {_show(vals[1])}" if vals is not None else "different values"
        msg = (f"{what} is reached by only part of {sname} 0: it is under a branch ({term.opname}) on "
               f"{ix.name(cond_id)}, which has {seen} in local invocations {pair[0]} and {pair[1]}"
               + (" (both in the first subgroup)" if in_subgroup else ""))
        notes = [Note("the branch", ctx.span_of(term)), ctx.note_def(cond_id, "the condition is computed here")]
        rule_id = "uniformity.coopmat.control_flow" if kind == "coopmat" else "uniformity.barrier.control_flow"
        severity = None
        if kind == "barrier" and scope == SUBGROUP:
            severity = "warning"
            notes.append(Note(_BARRIER_SUBGROUP_NOTE))
        return _Finding(rule_id, inst, None, msg, notes, spec, severity, ("branch", term.index, scope))

    def _operands(self, w: Witness, inst: Instruction, reach, scope: int, spec: bool):
        import numpy as np

        from .uniformity_analysis import UNIFORM, varies
        ix = self.ix
        sname = _SCOPE_NAMES[scope]
        # (rule, which operand (made only for a finding), what, witness)
        checks: list[tuple[str, int | str, str, object]] = []
        if inst.opname in LOAD_STORE:
            got = _access_ids(inst)
            if got is None:
                return
            flavour, ptr, stride, layout = got
            for part in [w.value(k) for k in pointer_part_ids(ix, ptr)]:
                if varies(part, reach) is not None:
                    checks.append(("uniformity.coopmat.operand", "pointer", "Pointer", part))
                    break
            if stride is not None and not ix.is_constant_inst(stride):
                checks.append(("uniformity.coopmat.operand", "stride", "Stride", w.value(stride)))
            if layout is not None and not ix.is_constant_inst(layout):
                checks.append(("uniformity.coopmat.operand", "layout",
                               "ColumnMajor" if flavour == "NV" else "MemoryLayout", w.value(layout)))
        elif inst.opname == "OpCompositeConstruct" and len(inst.operands) == 1 and ix.coopmat(inst.result_type):
            checks.append(("uniformity.coopmat.construct", 0, "the constituent",
                           w.value(inst.operands[0].as_int)))
        elif inst.opname == "OpMatrixTimesScalar" and len(inst.operands) == 2:
            checks.append(("uniformity.coopmat.operand", 1, "the Scalar",
                           w.value(inst.operands[1].as_int)))
        for rule_id, which, what, val in checks:
            if val is UNIFORM or val is None:
                continue
            pair = varies(val, reach)
            if pair is None:
                continue
            operand: Operand = inst.operands[which] if isinstance(which, int) else \
                getattr(parse_access(inst), which)
            oid = cast(int, operand.value)   # an id operand
            if isinstance(val, np.ndarray):
                seen = f"{_show(val[pair[0]])} in local invocation {pair[0]} and {_show(val[pair[1]])} in {pair[1]}"
                seen = f"it has {seen}" if what != "Pointer" else f"it addresses by a value that has {seen}"
            elif _is_element(ix, oid):
                seen = ("it is an element of the invocation's own part of a cooperative matrix (each invocation of "
                        "the scope holds different elements)")
            else:
                seen = f"it has different values in local invocations {pair[0]} and {pair[1]}"
            name = ix.name(oid)
            msg = (f"{what} {name} of {inst.opname} is not uniform in {sname} 0: {seen}"
                   + (" (both in the first subgroup)" if w.scope == SUBGROUP else ""))
            notes = [self.ctx.note_def(oid, "computed here")]
            yield _Finding(rule_id, inst, operand, msg, notes, spec)


def _access_ids(inst: Instruction) -> tuple[str, int, int | None, int | None] | None:
    """(flavour, Pointer, Stride, MemoryLayout/ColumnMajor ids) of a load or store, as parse_access reads them;
    from the words where the binary reader kept only ids (then there is no MemoryAccess operand)."""
    pending = getattr(inst, "pending_ids", None)
    ids = pending() if pending is not None else None
    if ids is None:
        a = parse_access(inst)
        if a is None:
            return None
        return (a.flavour, a.pointer.as_int, a.stride.as_int if a.stride is not None else None,
                a.layout.as_int if a.layout is not None else None)
    i = 1 if inst.opname in LOADS else 2
    n = len(ids)
    if n < i:
        return None
    first = ids[i] if n > i else None
    second = ids[i + 1] if n > i + 1 else None
    return ("NV", ids[0], first, second) if inst.opname.endswith("NV") else ("KHR", ids[0], second, first)


def _show(v) -> str:
    import numpy as np
    a = np.asarray(v)
    return str(a.tolist())


def _is_element(ix, id_: int) -> bool:
    """Is `id_` an element of a matrix (extracted, or loaded through a chain into a matrix variable)?"""
    d = ix.defs.get(id_)
    if d is None or not d.operands:
        return False
    if d.opname == "OpCompositeExtract":
        return ix.coopmat_of(d.operands[0].value) is not None
    if d.opname == "OpLoad":
        p = ix.defs.get(d.operands[0].value)
        return p is not None and p.opname in ("OpAccessChain", "OpInBoundsAccessChain") and bool(p.operands) \
            and ix.coopmat_of(p.operands[0].value) is None and _points_at_matrix(ix, p.operands[0].value)
    return False


def _points_at_matrix(ix, ptr: int) -> bool:
    d = ix.defs.get(ptr)
    t = ix.defs.get(d.result_type) if d is not None else None
    return t is not None and t.opname == "OpTypePointer" and len(t.operands) > 1 \
        and ix.contains_coopmat(t.operands[1].as_int)


def _by_branch(edges: list[tuple[int, int]]) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for x, y in edges:
        out.setdefault(x, set()).add(y)
    return out


def _coopmat_type_ids(ix) -> list[int]:
    return [i.result_id for i in ix.module.instructions
            if i.opname in ("OpTypeCooperativeMatrixKHR", "OpTypeCooperativeMatrixNV") and i.result_id is not None]


def _analysis(ctx: Context) -> _Analysis:
    got = getattr(ctx, "_uniformity", None)
    if got is None:
        got = _Analysis(ctx)
        ctx._uniformity = got  # type: ignore[attr-defined]   # the rules below share one analysis per module
    return got


def _report(ctx: Context, rule_id: str) -> None:
    for f in _analysis(ctx).findings:
        if f.rule == rule_id:
            ctx.report(f.inst, f.operand, f.message, f.notes, severity=f.severity, spec_dependent=f.spec)


@rule("uniformity.coopmat.control_flow", MODULE,
      "All dynamic instances of an instruction with an operand or result that is an object of this type must be "
      "executed such that all the invocations in the 'Scope' instance are active or none of them are.",
      source=f"{KHR} (OpTypeCooperativeMatrixKHR) / {NV}")
def coopmat_control_flow(ctx: Context, _inst) -> None:
    _report(ctx, "uniformity.coopmat.control_flow")


@rule("uniformity.coopmat.operand", MODULE,
      "All the operands to this instruction must be dynamically uniform within every instance of the 'Scope' of "
      "the cooperative matrix (loads, stores: Pointer, MemoryLayout, Stride; OpMatrixTimesScalar: Scalar).",
      source=f"{KHR} / {NV}")
def coopmat_operand(ctx: Context, _inst) -> None:
    _report(ctx, "uniformity.coopmat.operand")


@rule("uniformity.coopmat.construct", MODULE,
      "The 'Constituent' must be dynamically uniform within the 'Scope' of the cooperative matrix type.",
      source=f"{KHR} (OpCompositeConstruct)")
def coopmat_construct(ctx: Context, _inst) -> None:
    _report(ctx, "uniformity.coopmat.construct")


@rule("uniformity.barrier.control_flow", MODULE,
      "When Execution is Workgroup or larger, behavior is undefined unless all invocations within Execution "
      "execute the same dynamic instance of this instruction.", source=CORE)
def barrier_control_flow(ctx: Context, _inst) -> None:
    _report(ctx, "uniformity.barrier.control_flow")


"""Basic blocks compiled once into one Python function each (the interpreter's fast path for loops).

The plain path (Executor.exec_inst) pays, for every executed instruction, a table lookup of its op,
a numpy error-state context, the step and trace checks and a generic assignment. A loop body runs
the same instructions thousands of times, so each block's body is translated once into straight-line
Python: each op function resolved, operand ids and result types bound as constants, one error-state
context for the whole block (none inside the runner's own), and the step count kept in a local (written
back before any op that may run other code, such as a function call). A few simple integer ops whose
semantics are plain numpy (ops_arith's INT_BINARY and COMPARE tables) are inlined with their types known, and
so are OpLoad/OpStore of a Function variable held as a value (memory.Register) when every invocation is
active; every other op, including ops this module has never heard of (new families), is called exactly as
exec_inst calls it. The block's OpBranch / OpBranchConditional is compiled too (see _terminator): the
function returns its edges, and walk/run_loop skip branch_edges.

Integer scalars that are one value for every invocation ((1,) arrays: loop counters, offsets, spec constants) take
a Python-int lane (_plan_lane, _python_int_lane): IAdd/ISub/IMul/bitwise ops and integer comparisons computed on
Python ints and wrapped to their width, a result kept as a (1,) array in frame.vals only when something other than
this block's lane ops and its branch reads it (use_counts). A per-invocation operand or a partial mask takes the
ufunc, as before. tests/interp/test_loop_lanes.py holds every op, width and signedness to the plain path.

Exactness:
- steps: the same count, kept in a local and handed back to the run's Budget (budget.py) wherever other code may
  read it; the Budget's checkpoints are the plain path's (Budget.count, Budget.tick), so the step limit is raised
  at the same instruction and the clock is checked and progress reported where the plain path does it (the first
  terminator at or past each multiple of 1024 steps);
- a Fault becomes the same located error (Executor.fault_error of the failing instruction);
- --trace: a traced run always takes the plain path, so its lines are the plain path's;
- an op missing from the table goes through exec_inst, which reports it as before.

The compiled functions are cached per run (FastPaths.compiled_blocks: the module's blocks under one op
table, its types and settings), made once a block has run COMPILE_AFTER times, and reused by every
invocation group the dispatch runs. An op that a family extends is resolved per instruction (its
`when` asked once; dispatch.py says predicates are properties of the instruction in a run).
This is the fast paths `blocks` and (compile_loop) `loops` of fastpaths.py, which says how to switch them
off; tests/interp/test_fast_paths.py runs every sample and test shader both ways and compares bytes.
The generated source holds only numbers and names made here: no text from the module. Its names say what they hold
(tracebacks and debuggers show the generated lines, with a comment per SPIR-V instruction, through linecache):
`executor`, `frame`, `mask`, `full` (every invocation active), `values`/`global_values` (the frame's and the
dispatch's values), `steps` and `step_limit` (the count kept in a local, the Budget's limit), `current` (the index
in INSTRUCTIONS of the instruction executing), `result`, `condition`, `integer_<id>` (an id's value as a Python int in
the Python-int lane), `hoisted_<id>` (compile_loop: a value fetched once), and per instruction k the constants
INST_k, OP_FUNCTION_k, BASE_FUNCTION_k, UFUNC_k, TYPE_k, DTYPE_k, ZERO_k.
"""
from __future__ import annotations

import collections
import contextlib
import itertools
import linecache

import numpy as np

from . import ops_arith, ops_memory
from .fault import Fault
from .memory import Register

COMPILE_AFTER = 8   # executions of a block on the plain path before it is compiled
# the most instructions one generated function takes (a block's body, a loop's chain): Python's compiler needs
# ~100 KB a generated instruction while it works (a loop body of 20,000 instructions took 2.9 GB and 20 s), so a
# larger block stays on the plain path and a larger loop's trips run block by block
MAX_COMPILED = 1000
NEVER = -(1 << 62)   # compiled_blocks' count of a block too large to compile: it never reaches COMPILE_AFTER


def run_body(ex, frame, blk, mask, full: bool):
    """Execute blk.body under mask as exec_inst would, instruction by instruction; once compiled, a branch
    terminator too: its edges (Executor.branch_edges' list) are returned then, None when the caller still has to
    run the terminator."""
    cache = ex.fast.compiled_blocks   # per run: its op table, types and settings are fixed
    fn = cache.get(blk.label, 0)
    if type(fn) is int:
        if fn < COMPILE_AFTER:
            # the first executions take the plain path: compiling a block (about a millisecond) pays
            # only for one that runs again and again
            cache[blk.label] = fn + 1
            for inst in blk.body:
                ex.exec_inst(frame, inst, mask, full)
            return None
        if len(blk.body) > MAX_COMPILED:
            cache[blk.label] = NEVER
            for inst in blk.body:
                ex.exec_inst(frame, inst, mask, full)
            return None
        fn = cache[blk.label] = compile_body(ex, blk.body, blk.term, _label(ex, blk.label))
        ex.fast.taken.add("blocks")   # called at once, below
    return fn(ex, frame, mask, full)


def resolve(ex, inst):
    """(op function, extension base or None) that exec_inst would end up calling for inst: an op a family
    extends is taken apart here, its `when` asked once (dispatch.py: a property of the instruction in
    this run). A predicate that fails leaves the wrapper to be called as it is."""
    fn = ex.ops.get(inst.opname)
    while fn is not None and getattr(fn, "extension", None) is not None:
        when, ext = fn.extension
        try:
            hit = bool(when(ex, inst))
        except Exception:  # noqa: BLE001 - it will fail (or not) at run time, where exec_inst calls it
            return fn, None
        if hit:
            return ext, fn.__wrapped__
        fn = fn.__wrapped__
    return fn, None


def _int_binary_ok(fn, ex, inst) -> bool:
    """The op is ops_arith.int_binary itself and its result type is known: the inline code below is that
    function's body."""
    if fn is not ops_arith.int_binary or inst.result_type not in ex.types or len(inst.operands) != 2:
        return False
    try:
        _ = ex.types[inst.result_type].dtype
    except Exception:  # noqa: BLE001 - int_binary itself fails at run time, where exec_inst calls it
        return False
    return True


def _register_access(fn, base) -> bool:
    """The op is OpLoad/OpStore itself, or a family's extension of it that hands a Register pointer (a Function
    variable held as a value) to the op unchanged (marked `registers_unchanged`)."""
    if base is None:
        return fn is ops_memory.load_op or fn is ops_memory.store_op
    return (base is ops_memory.load_op or base is ops_memory.store_op) and getattr(fn, "registers_unchanged", False)


class _Emitter:
    """Appends generated lines; knows what the function being generated may assume: `hoisted` maps ids whose value
    is fetched once at the function's start to their local name (compile_loop: Function variables, global values),
    `full` that every invocation is active (`full` is then no run-time question)."""
    __slots__ = ("lines", "hoisted", "full")

    def __init__(self, lines: list, hoisted: dict[int, str] | None = None, full: bool = False) -> None:
        self.lines = lines
        self.hoisted = hoisted or {}
        self.full = full

    def __call__(self, line: str) -> None:
        self.lines.append(line)

    def full_and(self) -> str:
        return "" if self.full else "full and "


def _fetch(emit, ind: str, name: str, id_: int) -> None:
    """`name = executor.val(frame, id_)`, the two dictionary lookups inline: Executor.val only when both miss (it
    then finds the value or raises its Fault); a hoisted id from its local."""
    id_ = int(id_)
    local = getattr(emit, "hoisted", {}).get(id_)
    if local is not None:
        emit(f"{ind}{name} = {local}")
        emit(f"{ind}if {name} is None:")
        emit(f"{ind}    {name} = value_of(frame, {id_})")
        return
    emit(f"{ind}{name} = values.get({id_})")
    emit(f"{ind}if {name} is None:")
    emit(f"{ind}    {name} = global_values.get({id_})")
    emit(f"{ind}    if {name} is None:")
    emit(f"{ind}        {name} = value_of(frame, {id_})")


def _terminator(lines: list, ns: dict, term, cond_local: bool = False) -> None:
    """The end of a compiled block: the count handed back to the Budget, and what branch_edges does for OpBranch and
    OpBranchConditional, after the same tick (a step; Budget.reached at its checkpoint tick_at: the step limit, the
    clock and progress where the plain path checks them). Outside the body's try: a Fault here propagates as it
    does from branch_edges."""
    if term is None or term.opname not in ("OpBranch", "OpBranchConditional") or \
            any(o.kind != "IdRef" for o in term.operands[:3]):
        lines.append("    budget.steps = steps")
        lines.append("    return None")
        return
    ns["TERMINATOR"] = term
    emit = lines.append
    emit("    steps += 1")   # Budget.tick, the count in the local
    emit("    budget.steps = steps")
    emit("    if steps >= budget.tick_at:")
    emit("        budget.reached(steps, TERMINATOR, True)")
    ops = term.operands
    if term.opname == "OpBranch":
        emit(f"    return [({int(ops[0].value)}, mask)]")
        return
    t, f = int(ops[1].value), int(ops[2].value)
    if cond_local:   # the condition is a comparison of this block in the Python-int lane (_plan_lane)
        emit(f"    condition = integer_{int(ops[0].value)}")
        emit("    if condition is not None:")
        emit(f"        return [({t} if condition else {f}, mask)]")
    if t == f:
        _fetch(emit, "    ", "condition", ops[0].value)   # branch_edges reads the condition even then
        emit(f"    return [({t}, mask)]")
        return
    _fetch(emit, "    ", "condition", ops[0].value)
    emit("    if type(condition) is ndarray and condition.shape == SHAPE_ONE:")
    emit(f"        return [({t} if condition[0] else {f}, mask)]")
    emit(f"    return executor.split_edges(condition, {t}, {f}, mask)")


# Python expressions of the ops taken on Python ints (uniform integer scalars, see _python_int_lane): binary ops
# before wrapping to the result width, comparisons on operands of the comparison's signedness
PY_BINARY = {"OpIAdd": "{a} + {b}", "OpISub": "{a} - {b}", "OpIMul": "{a} * {b}", "OpBitwiseAnd": "{a} & {b}",
             "OpBitwiseOr": "{a} | {b}", "OpBitwiseXor": "{a} ^ {b}"}
PY_COMPARE = {"OpIEqual": "==", "OpINotEqual": "!=", "OpSLessThan": "<", "OpSLessThanEqual": "<=",
              "OpSGreaterThan": ">", "OpSGreaterThanEqual": ">=", "OpULessThan": "<", "OpULessThanEqual": "<=",
              "OpUGreaterThan": ">", "OpUGreaterThanEqual": ">="}
_WRAPS = ("OpIAdd", "OpISub", "OpIMul")   # the bitwise ops of two in-range values stay in range


def use_counts(ex) -> dict[int, int]:
    """How often each id is an operand of an instruction in a function body (phis, merges and terminators
    included), once per run: a result no other block reads need not be kept as an array (_python_int_lane)."""
    counts = ex.fast.block_uses
    if not counts:
        for fn in ex.prog.functions.values():
            for blk in fn.blocks.values():
                for inst in (*blk.phis, *blk.body, blk.merge, blk.term):
                    if inst is not None:
                        for i in inst.id_operands():
                            counts[i] = counts.get(i, 0) + 1
    return counts


def _int_dtype(dt) -> bool:
    return dt.kind in "iu" and dt.itemsize in (1, 2, 4, 8)


def _to_signedness(x: str, dt, signed: bool) -> str:
    """The expression of Python int `x` (a value of dtype dt) read as signed or unsigned of the same width."""
    w = dt.itemsize * 8
    if (dt.kind == "i") == signed:
        return x
    if signed:
        return f"({x} - {1 << w} if {x} >= {1 << (w - 1)} else {x})"
    return f"({x} & {(1 << w) - 1})"


def _ufunc_binary(emit, ind: str, ns: dict, k: int, inst, t) -> None:
    """int_binary's body: to_type(x, t) with t and its dtype bound (an array already of that dtype is used as it
    is), then the ufunc; the result in `result`."""
    ns[f"UFUNC_{k}"] = ops_arith.INT_BINARY[inst.opname]
    ns[f"TYPE_{k}"], ns[f"DTYPE_{k}"] = t, t.dtype
    for name, opnd in (("left", inst.operands[0].value), ("right", inst.operands[1].value)):
        _fetch(emit, ind, name, opnd)
        emit(f"{ind}if type({name}) is not ndarray or {name}.dtype != DTYPE_{k}:")
        emit(f"{ind}    {name} = to_type({name}, TYPE_{k})")
    emit(f"{ind}result = UFUNC_{k}(left, right)")


def _ufunc_compare(emit, ind: str, ns: dict, k: int, inst) -> None:
    """int_compare's body, the result in `result`."""
    ufunc, signed = ops_arith.COMPARE[inst.opname]
    ns[f"UFUNC_{k}"] = ufunc
    _fetch(emit, ind, "left", inst.operands[0].value)
    _fetch(emit, ind, "right", inst.operands[1].value)
    emit(f"{ind}result = UFUNC_{k}(as_int(left, {signed}), as_int(right, {signed}))")


def _plan_lane(ex, body: list, term):
    """Which of the body's integer scalar ops take the Python-int lane: k -> (its result dtype, escapes, operands:
    [(id, dtype the value has, local)]), and whether the terminator's condition is one of them. An operand is
    local when an earlier lane op of this block made it (a Python int in integer_<id>, with that op's dtype); a result
    escapes (is kept as a (1,) array in frame.vals) when anything but this block's lane ops and terminator reads
    it (use_counts)."""
    uses = use_counts(ex)
    types = ex.types
    made: dict[int, np.dtype | None] = {}    # result id -> dtype (None: a bool), of the lane ops so far
    lane: dict[int, list] = {}
    local_uses: dict[int, int] = {}
    for k, inst in enumerate(body):
        fn, base = resolve(ex, inst)
        name = inst.opname
        if base is not None or len(inst.operands) != 2 or any(o.kind != "IdRef" for o in inst.operands) or \
                inst.result_id is None:
            continue
        if name in PY_BINARY and _int_binary_ok(fn, ex, inst):
            t = types[inst.result_type]
            if t.kind != "int" or not _int_dtype(t.dtype):
                continue
            want = t.dtype.itemsize
        elif name in PY_COMPARE and fn is ops_arith.int_compare:
            t, want = None, None
        else:
            continue
        opnds = _lane_operands(ex, inst, made, want)
        if opnds is None:
            continue
        for i, _, local in opnds:
            if local:
                local_uses[i] = local_uses.get(i, 0) + 1
        rdt = types[inst.result_type].dtype if want is not None else np.dtype(bool)
        lane[k] = [rdt, None, opnds, t]
        made[int(inst.result_id)] = rdt if want is not None else None   # a comparison's bool is no int operand
    cond_local = False
    if term is not None and term.opname == "OpBranchConditional" and term.operands and \
            term.operands[0].kind == "IdRef" and int(term.operands[0].value) in made and \
            made[int(term.operands[0].value)] is None:
        c = int(term.operands[0].value)
        cond_local = True
        local_uses[c] = local_uses.get(c, 0) + 1
    for k, entry in lane.items():
        rid = int(body[k].result_id)
        entry[1] = uses.get(rid, 0) > local_uses.get(rid, 0)
    return {k: tuple(v) for k, v in lane.items()}, cond_local


def _lane_operands(ex, inst, made: dict, want: int | None) -> list[tuple[int, np.dtype, bool]] | None:
    """(id, dtype of its value, local) of each operand of a lane op, or None when one is not an integer scalar
    (of the result's width, for a binary op)."""
    opnds = []
    for o in inst.operands:
        i = int(o.value)
        dt = made.get(i)
        local = dt is not None
        if dt is None:
            ot = ex.type_of_id(i)
            dt = ot.dtype if ot is not None and ot.kind == "int" else None
        if dt is None or not _int_dtype(dt) or (want is not None and dt.itemsize != want):
            return None
        opnds.append((i, dt, local))
    return opnds


def _python_int_lane(emit, ind: str, ns: dict, k: int, inst, plan: tuple) -> None:
    """One integer scalar op on Python ints when every invocation is active and each operand is one value for
    all ((1,) array of its type's dtype, or a Python int an earlier lane op of the block made): the result wrapped
    to its width (two's complement, as the ufunc on arrays wraps), in integer_<id>, and as a (1,) array in frame.vals
    only if it escapes. Anything else takes the ufunc exactly as before, with local operands made arrays again."""
    rdt, escapes, opnds, t = plan
    rid = int(inst.result_id)
    name = inst.opname
    xs = []
    for j, (i, dt, local) in enumerate(opnds):
        x, arr = f"integer_operand_{j}", f"operand_{j}"
        if local:
            emit(f"{ind}{x} = integer_{i}")
            emit(f"{ind}{arr} = None")
            emit(f"{ind}if {x} is None:")
            _fetch(emit, ind + "    ", arr, i)
        else:
            emit(f"{ind}{x} = None")
            _fetch(emit, ind, arr, i)
        ns[f"DTYPE_{k}_{j}"] = dt
        emit(f"{ind}if {x} is None and type({arr}) is ndarray and {arr}.shape == SHAPE_ONE and "
             f"{arr}.dtype == DTYPE_{k}_{j}:")
        emit(f"{ind}    {x} = {arr}.item()")
        xs.append(x)
    emit(f"{ind}if {emit.full_and()}{xs[0]} is not None and {xs[1]} is not None:")
    sub = ind + "    "
    if name in PY_BINARY:
        signed = rdt.kind == "i"
        a, b = (_to_signedness(x, dt, signed) for x, (_, dt, _) in zip(xs, opnds, strict=True))
        expr = PY_BINARY[name].format(a=f"({a})", b=f"({b})")
        w = rdt.itemsize * 8
        if name in _WRAPS:
            expr = f"((({expr}) + {1 << (w - 1)}) & {(1 << w) - 1}) - {1 << (w - 1)}" if signed else \
                f"({expr}) & {(1 << w) - 1}"
    else:
        signed = ops_arith.COMPARE[name][1]
        a, b = (_to_signedness(x, dt, signed) for x, (_, dt, _) in zip(xs, opnds, strict=True))
        expr = f"({a}) {PY_COMPARE[name]} ({b})"
    emit(f"{sub}integer_{rid} = {expr}")
    if escapes:
        ns[f"ZERO_{k}"] = np.zeros(1, rdt)
        emit(f"{sub}result = ZERO_{k}.copy()")
        emit(f"{sub}result[0] = integer_{rid}")
        emit(f"{sub}values[{rid}] = result")
    emit(f"{ind}else:")
    emit(f"{sub}integer_{rid} = None")
    for j, (_, dt, local) in enumerate(opnds):
        if local:   # made by an earlier lane op that kept it as a Python int: the same value as an array
            ns[f"ZERO_{k}_{j}"] = np.zeros(1, dt)
            emit(f"{sub}if operand_{j} is None:")
            emit(f"{sub}    operand_{j} = ZERO_{k}_{j}.copy()")
            emit(f"{sub}    operand_{j}[0] = integer_operand_{j}")
    if name in PY_BINARY:
        ns[f"UFUNC_{k}"] = ops_arith.INT_BINARY[name]
        ns[f"RESULT_DTYPE_{k}"], ns[f"RESULT_TYPE_{k}"] = rdt, t
        for j in (0, 1):
            emit(f"{sub}if type(operand_{j}) is not ndarray or operand_{j}.dtype != RESULT_DTYPE_{k}:")
            emit(f"{sub}    operand_{j} = to_type(operand_{j}, RESULT_TYPE_{k})")
        emit(f"{sub}result = UFUNC_{k}(operand_0, operand_1)")
    else:
        ufunc, signed = ops_arith.COMPARE[name]
        ns[f"UFUNC_{k}"] = ufunc
        emit(f"{sub}result = UFUNC_{k}(as_int(operand_0, {signed}), as_int(operand_1, {signed}))")
    _store_result(emit, sub, k, rid)


def _namespace() -> dict:
    return {"Fault": Fault, "errstate": np.errstate, "to_type": ops_arith.to_type, "as_int": ops_arith.as_int,
            "ndarray": np.ndarray, "Register": Register, "NO_ERRSTATE": contextlib.nullcontext(), "SHAPE_ONE": (1,)}


_PROLOGUE = ["    values = frame.vals",
             "    global_values = executor.gvals",
             "    value_of = executor.val",
             "    assign = executor.assign",
             "    budget = executor.budget",
             "    step_limit = budget.max_steps",
             "    steps = budget.steps",
             "    current = 0"]   # the index in INSTRUCTIONS of the instruction executing
# the runner already ignores numpy's floating-point errors around the whole dispatch
_ERRSTATE = "with (NO_ERRSTATE if executor.errors_ignored else errstate(all='ignore')):"
# a Fault or an error of an unvalidated module, located at the instruction (INSTRUCTIONS[current]) that raised it, as
# exec_inst
# (and exec_block, for a terminator) locates it
_EPILOGUE = ["    except Fault as fault:",
             "        budget.steps = steps",
             "        raise executor.fault_error(INSTRUCTIONS[current], fault) from None",
             "    except Exception as error:",
             "        budget.steps = steps",
             "        raise executor.invalid_module_error(INSTRUCTIONS[current], error) from None"]


def compile_body(ex, body: list, term=None, label: str = "?"):
    """One function (executor, frame, mask, full) running `body` as exec_inst runs it, one instruction at a time, then
    an OpBranch or OpBranchConditional `term` as Executor.branch_edges does (its edges returned); any other
    terminator is left to branch_edges (None returned)."""
    ns = _namespace()
    lines = ["def block(executor, frame, mask, full):", *_PROLOGUE, "    try:", "        " + _ERRSTATE]
    cond_local = _emit_body(ex, _Emitter(lines), ns, body, term, " " * 12, 0)
    lines.append(" " * 12 + "pass")
    lines += _EPILOGUE
    _terminator(lines, ns, term, cond_local)
    ns["INSTRUCTIONS"] = list(body)
    return _load(lines, ns, "block", f"block {label}")


_serial = itertools.count(1)
# the generated sources kept in linecache, oldest first: the functions of earlier runs are long gone
MAX_REGISTERED = 512
_registered: collections.deque[str] = collections.deque()
# source -> (its code object, its file name): a later run of the same module generates the same sources (each run
# execs the code in its own namespace), and compile() was ~1 ms a block of a run's ~10 ms start (issue 33)
_compiled: collections.OrderedDict[str, tuple] = collections.OrderedDict()


def _label(ex, label: int) -> str:
    """A block's label as assembly writes it: %name, else %id."""
    name = ex.prog.name_of(label)
    return name if name.startswith("%") else "%" + name


def _load(lines: list[str], ns: dict, name: str, what: str):
    """Compile and load the generated function `name`, its source registered with linecache under a file name
    of its own, so that tracebacks, pdb and profilers show the generated lines (with a comment per SPIR-V
    instruction) instead of `<spvcoop compiled block>` without a line."""
    source = "\n".join(lines) + "\n"
    hit = _compiled.pop(source, None)   # (each step one dict operation: runs in other threads share the cache)
    if hit is None:
        filename = f"<spvcoop compiled {what[:80]} #{next(_serial)}>"
        hit = (compile(source, filename, "exec"), filename)
    _compiled[source] = hit   # the latest last
    while len(_compiled) > MAX_REGISTERED:
        try:
            _compiled.popitem(last=False)
        except KeyError:
            break
    code, filename = hit
    exec(code, ns)  # noqa: S102 - source generated above from numbers and fixed templates only
    if filename not in linecache.cache:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        _registered.append(filename)
    while len(_registered) > MAX_REGISTERED:   # a long process (a test session, a fuzz campaign) keeps the latest
        linecache.cache.pop(_registered.popleft(), None)
    return ns[name]


def instruction_comment(inst) -> str:
    """The instruction in one line of assembly-like text (`%12 = OpFAdd %float %10 %11`) for a comment of
    generated code: ids as %N, literals as written; control characters and long tails cut."""
    head = f"%{inst.result_id} = " if inst.result_id is not None else ""
    rtype = f" %{inst.result_type}" if getattr(inst, "result_type", None) is not None else ""
    ops = " ".join(f"%{o.value}" if o.kind.startswith("Id") else str(o.text if o.text is not None else o.value)
                   for o in inst.operands)
    text = f"{head}{inst.opname}{rtype} {ops}".rstrip()
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 160 else text[:157] + "..."


def _store_result(emit, ind: str, k: int, rid: int) -> None:
    """frame.vals[rid] = result where every invocation is active, else assign's merge under the mask."""
    if emit.full:
        emit(f"{ind}values[{rid}] = result")
        return
    emit(f"{ind}if full:")
    emit(f"{ind}    values[{rid}] = result")
    emit(f"{ind}else:")
    emit(f"{ind}    assign(frame, INST_{k}, result, mask, False)")


def _emit_body(ex, emit: _Emitter, ns: dict, body: list, term, ind: str, base: int) -> bool:
    """The code of `body`'s instructions, instruction k of the function at index base + (its place in body) of
    INSTRUCTIONS; whether the terminator's condition is a Python-int lane comparison (integer_<id>)."""
    lane, cond_local = _plan_lane(ex, body, term)
    for j, inst in enumerate(body):
        k = base + j
        ns[f"INST_{k}"] = inst
        emit(f"{ind}# {instruction_comment(inst)}")
        emit(f"{ind}current = {k}")
        emit(f"{ind}steps += 1")   # Budget.count, the count in the local
        emit(f"{ind}if steps > step_limit:")
        emit(f"{ind}    budget.reached(steps, INST_{k})")
        fn, base_fn = resolve(ex, inst)
        rid = inst.result_id
        if fn is None:
            # not in the table: the plain path reports it (and counts the step itself)
            emit(f"{ind}budget.steps = steps - 1")
            emit(f"{ind}executor.exec_inst(frame, INST_{k}, mask, full)")
            emit(f"{ind}steps = budget.steps")
            continue
        if j in lane:
            # the Python-int lane, else (per-invocation values, a partial mask) the numpy ufunc as before
            _python_int_lane(emit, ind, ns, k, inst, lane[j])
            continue
        if base_fn is None and _int_binary_ok(fn, ex, inst):
            _ufunc_binary(emit, ind, ns, k, inst, ex.types[inst.result_type])
        elif base_fn is None and fn is ops_arith.int_compare and len(inst.operands) == 2:
            _ufunc_compare(emit, ind, ns, k, inst)
        else:
            ns[f"OP_FUNCTION_{k}"] = fn
            ops = inst.operands
            sub = ind
            if _register_access(fn, base_fn) and len(ops) >= (2 if inst.opname == "OpStore" else 1) and \
                    all(o.kind == "IdRef" for o in ops[:2]):
                # a Function variable held as a value, every invocation active (and, for a load, stored by
                # all): what load_op / store_op do then, without the call
                _fetch(emit, ind, "pointer", ops[0].value)
                if inst.opname == "OpLoad":
                    emit(f"{ind}if {emit.full_and()}type(pointer) is Register and pointer.written is None:")
                    emit(f"{ind}    result = pointer.value")
                else:
                    emit(f"{ind}if {emit.full_and()}type(pointer) is Register and not frame.undef:")
                    _fetch(emit, ind + "    ", "stored", ops[1].value)
                    emit(f"{ind}    pointer.value = stored")
                    emit(f"{ind}    pointer.written = None")
                emit(f"{ind}else:")
                sub = ind + "    "
            # the op may run other code (a function call): the count it sees and leaves is the true one
            emit(f"{sub}budget.steps = steps")
            if base_fn is None:
                emit(f"{sub}result = OP_FUNCTION_{k}(executor, frame, INST_{k}, mask)")
            else:
                ns[f"BASE_FUNCTION_{k}"] = base_fn
                emit(f"{sub}result = OP_FUNCTION_{k}(executor, frame, INST_{k}, mask, BASE_FUNCTION_{k})")
            emit(f"{sub}steps = budget.steps")
        if rid is not None:
            _store_result(emit, ind, k, rid)
    return cond_local


def _phis(emit, ind: str, phis: list, insts: list, pred: int | None) -> None:
    """A block's phis as exec_block takes them when every invocation comes from one predecessor: each the value
    its incoming pair for that predecessor names (read before any is assigned), or _phi_value's fault; `pred` the
    predecessor when it is known here, else the function's `pred`."""
    for n, phi in enumerate(phis):
        ops = phi.operands
        pairs = [(int(ops[i + 1].value), int(ops[i].value)) for i in range(0, len(ops) - 1, 2)]
        emit(f"{ind}current = {len(insts)}")
        insts.append(phi)
        first = True
        for label, value in pairs:
            if pred is not None and label != pred:
                continue
            if pred is None:
                emit(f"{ind}{'if' if first else 'elif'} pred == {label}:")
                _fetch(emit, ind + "    ", f"phi_value_{n}", value)
            else:
                _fetch(emit, ind, f"phi_value_{n}", value)
            first = False
            if pred is not None:
                break
        if first or pred is None:
            sub = ind if first else ind + "    "
            if not first:
                emit(f"{ind}else:")
            who = "pred" if pred is None else str(pred)
            emit(f"{sub}raise Fault('no incoming value for predecessor ' + name_of({who}))")
    for n, phi in enumerate(phis):
        emit(f"{ind}values[{int(phi.result_id)}] = phi_value_{n}")


def loop_fits(chain: tuple) -> bool:
    """Whether a straight loop's chain (phis, bodies, branches) is small enough for one compiled function."""
    return sum(len(b.phis) + len(b.body) + 1 for b in chain) <= MAX_COMPILED


def compile_loop(ex, chain: tuple, m_label: int):
    """One function (executor, frame, mask, at_merge, pred) running whole trips of a straight loop
    (executor.straight_chain) while every invocation is in it, arriving from block `pred`, and each branch is one
    target for all: each block's phis as exec_block takes them from the one predecessor, then its body and
    terminator as compile_body and branch_edges run them, one block after the other, without returning to the walk
    between blocks. It returns None when the loop is left (the arrival appended to at_merge, as run_loop appends
    it), or (j, edges) where a branch of chain[j] is not the same for all, or an invocation was killed, for the
    caller to go on with as run_straight_loop does."""
    ns = _namespace()
    insts: list = []
    lines = ["def loop(executor, frame, mask, at_merge, pred):", *_PROLOGUE, "    full = True"]
    ns["name_of"] = ex.prog.name_of
    # values fixed while the function runs, fetched once: the Function variables (memory.Register, made at the
    # function's start) and global values the chain reads
    hoisted: dict[int, str] = {}
    variables = {int(v.result_id) for fn in ex.prog.functions.values() for v in fn.variables}
    for blk in chain:
        for inst in (*blk.phis, *blk.body, blk.term):
            for i in inst.id_operands():
                i = int(i)
                if i in hoisted or not (i in variables or i in ex.gvals):
                    continue
                hoisted[i] = f"hoisted_{i}"
                lines.append(f"    hoisted_{i} = {'values' if i in variables else 'global_values'}.get({i})")
    lines += ["    try:", "        " + _ERRSTATE, "            while True:"]
    ind = " " * 16
    emit = _Emitter(lines, hoisted, full=True)
    h = chain[0].label
    for j, blk in enumerate(chain):
        if blk.phis:
            _phis(emit, ind, blk.phis, insts, None if j == 0 else chain[j - 1].label)
        cond_local = _emit_body(ex, emit, ns, blk.body, blk.term, ind, len(insts))
        insts += blk.body
        t_at = len(insts)
        insts.append(blk.term)
        term = blk.term
        ops = term.operands
        # branch_edges' tick (Budget.tick): a step, then Budget.reached at its checkpoint
        emit(f"{ind}current = {t_at}")
        emit(f"{ind}steps += 1")
        emit(f"{ind}if steps >= budget.tick_at:")
        emit(f"{ind}    budget.reached(steps, INSTRUCTIONS[{t_at}], True)")
        nxt = h if j == len(chain) - 1 else chain[j + 1].label
        if term.opname == "OpBranch":
            emit(f"{ind}if executor.any_killed:")
            emit(f"{ind}    budget.steps = steps")
            emit(f"{ind}    return ({j}, [({nxt}, mask)])")
            continue
        c_id, t, f = int(ops[0].value), int(ops[1].value), int(ops[2].value)
        if cond_local:
            emit(f"{ind}condition = integer_{c_id}")
            emit(f"{ind}if condition is None:")
            _fetch(emit, ind + "    ", "condition", c_id)
        else:
            _fetch(emit, ind, "condition", c_id)   # branch_edges reads the condition even when both targets are one
        if t == f:
            emit(f"{ind}if executor.any_killed:")
            emit(f"{ind}    budget.steps = steps")
            emit(f"{ind}    return ({j}, [({t}, mask)])")
            continue
        emit(f"{ind}if type(condition) is ndarray and condition.shape == SHAPE_ONE:")
        emit(f"{ind}    condition = condition[0]")
        emit(f"{ind}elif type(condition) is not bool:")
        emit(f"{ind}    budget.steps = steps")
        emit(f"{ind}    return ({j}, executor.split_edges(condition, {t}, {f}, mask))")
        emit(f"{ind}if executor.any_killed:")
        emit(f"{ind}    budget.steps = steps")
        emit(f"{ind}    return ({j}, [({t} if condition else {f}, mask)])")
        # one target is the merge (straight_chain)
        emit(f"{ind}if {'condition' if t == m_label else 'not condition'}:")
        emit(f"{ind}    budget.steps = steps")
        emit(f"{ind}    at_merge.append(({blk.label}, mask))")
        emit(f"{ind}    return None")
    emit(f"{ind}pred = {chain[-1].label}")   # the next trip arrives from the last block
    lines += _EPILOGUE
    ns["INSTRUCTIONS"] = insts
    return _load(lines, ns, "loop", f"loop {' '.join(_label(ex, b.label) for b in chain)}")

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

Exactness:
- steps: the same count, and the step limit is raised at the same instruction (Executor.limit_reached); the
  clock is checked and progress reported where the plain path does it (the first terminator at or past each
  multiple of 1024 steps);
- a Fault becomes the same located error (Executor.fault_error of the failing instruction);
- --trace: a traced run always takes the plain path, so its lines are the plain path's;
- an op missing from the table goes through exec_inst, which reports it as before.

The compiled functions are cached per run (Executor.compiled_blocks: the module's blocks under one op
table, its types and settings), made once a block has run COMPILE_AFTER times, and reused by every
invocation group the dispatch runs. An op that a family extends is resolved per instruction (its
`when` asked once; dispatch.py says predicates are properties of the instruction in a run).
RunConfig(fast_paths=False) or SPVCOOP_NO_FAST_PATHS=1 turns the fast path off; tests/test_fast_paths.py
runs every sample and test shader both ways and compares bytes.
The generated source holds only numbers and names made here: no text from the module.
"""
from __future__ import annotations

import contextlib
import os

import numpy as np

from . import ops_arith, ops_memory
from .fault import Fault
from .memory import Register

# RunConfig.fast_paths=True is overridden by this (for differential testing from the command line)
DISABLE_ENV = "SPVCOOP_NO_FAST_PATHS"
COMPILE_AFTER = 8   # executions of a block on the plain path before it is compiled


def enabled(config) -> bool:
    return bool(getattr(config, "fast_paths", True)) and not os.environ.get(DISABLE_ENV)


def run_body(ex, frame, blk, mask, full: bool):
    """Execute blk.body under mask as exec_inst would, instruction by instruction; once compiled, a branch
    terminator too: its edges (Executor.branch_edges' list) are returned then, None when the caller still has to
    run the terminator."""
    cache = ex.compiled_blocks   # per run: its op table, types and settings are fixed
    fn = cache.get(blk.label, 0)
    if type(fn) is int:
        if fn < COMPILE_AFTER:
            # the first executions take the plain path: compiling a block (about a millisecond) pays
            # only for one that runs again and again
            cache[blk.label] = fn + 1
            for inst in blk.body:
                ex.exec_inst(frame, inst, mask, full)
            return None
        fn = cache[blk.label] = compile_body(ex, blk.body, blk.term)
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


def _fetch(emit, ind: str, name: str, id_: int) -> None:
    """`name = ex.val(frame, id_)`, the two dictionary lookups inline: Executor.val only when both miss (it
    then finds the value or raises its Fault)."""
    id_ = int(id_)
    emit(f"{ind}{name} = vals.get({id_})")
    emit(f"{ind}if {name} is None:")
    emit(f"{ind}    {name} = gvals.get({id_})")
    emit(f"{ind}    if {name} is None:")
    emit(f"{ind}        {name} = val(frame, {id_})")


def _terminator(lines: list, ns: dict, term) -> None:
    """The end of a compiled block: what branch_edges does for OpBranch and OpBranchConditional, after the same
    tick (a step; the step limit; progress where the plain path reports it: the first terminator at or past
    each multiple of 1024 steps). Outside the body's try: a Fault here propagates as it does from branch_edges."""
    if term is None or term.opname not in ("OpBranch", "OpBranchConditional") or \
            any(o.kind != "IdRef" for o in term.operands[:3]):
        lines.append("    return None")
        return
    ns["TERM"] = term
    emit = lines.append
    emit("    if s >= ms or s + 1 >= ex.next_progress:")
    emit("        ex.tick(frame, TERM, mask)")
    emit("    else:")
    emit("        ex.steps = s + 1")
    ops = term.operands
    if term.opname == "OpBranch":
        emit(f"    return [({int(ops[0].value)}, mask)]")
        return
    t, f = int(ops[1].value), int(ops[2].value)
    if t == f:
        _fetch(emit, "    ", "c", ops[0].value)   # branch_edges reads the condition even then
        emit(f"    return [({t}, mask)]")
        return
    _fetch(emit, "    ", "c", ops[0].value)
    emit("    if type(c) is ndarray and c.shape == (1,):")
    emit(f"        return [({t} if c[0] else {f}, mask)]")
    emit(f"    return ex.split_edges(c, {t}, {f}, mask)")


def compile_body(ex, body: list, term=None):
    """One function (ex, frame, mask, full) running `body` as exec_inst runs it, one instruction at a time, then
    an OpBranch or OpBranchConditional `term` as Executor.branch_edges does (its edges returned); any other
    terminator is left to branch_edges (None returned)."""
    ns: dict = {"Fault": Fault, "errstate": np.errstate, "to_type": ops_arith.to_type, "as_int": ops_arith.as_int,
                "ndarray": np.ndarray, "Register": Register, "QUIET": contextlib.nullcontext()}
    lines = ["def block(ex, frame, mask, full):",
             "    vals = frame.vals",
             "    gvals = ex.gvals",
             "    val = ex.val",
             "    assign = ex.assign",
             "    ms = ex.max_steps",
             "    s = ex.steps",
             "    i = 0",
             "    try:",
             # the runner already ignores numpy's floating-point errors around the whole dispatch
             "        with (QUIET if ex.errors_ignored else errstate(all='ignore')):"]
    ind = " " * 12
    for k, inst in enumerate(body):
        ns[f"I{k}"] = inst
        emit = lines.append
        emit(f"{ind}i = {k}")
        emit(f"{ind}s += 1")
        emit(f"{ind}if s > ms:")
        emit(f"{ind}    ex.steps = s")
        emit(f"{ind}    ex.limit_reached(I{k})")
        fn, base = resolve(ex, inst)
        rid = inst.result_id
        if fn is None:
            # not in the table: the plain path reports it (and counts the step itself)
            emit(f"{ind}ex.steps = s - 1")
            emit(f"{ind}ex.exec_inst(frame, I{k}, mask, full)")
            emit(f"{ind}s = ex.steps")
            continue
        if base is None and _int_binary_ok(fn, ex, inst):
            ns[f"U{k}"] = ops_arith.INT_BINARY[inst.opname]
            # to_type(x, t), with t and its dtype bound: an array already of that dtype is used as it is
            t = ex.types[inst.result_type]
            ns[f"T{k}"], ns[f"D{k}"] = t, t.dtype
            for name, opnd in (("a", inst.operands[0].value), ("b", inst.operands[1].value)):
                _fetch(emit, ind, name, opnd)
                emit(f"{ind}if type({name}) is not ndarray or {name}.dtype != D{k}:")
                emit(f"{ind}    {name} = to_type({name}, T{k})")
            emit(f"{ind}v = U{k}(a, b)")
        elif base is None and fn is ops_arith.int_compare and len(inst.operands) == 2:
            ufunc, signed = ops_arith.COMPARE[inst.opname]
            ns[f"U{k}"] = ufunc
            a, b = inst.operands[0].value, inst.operands[1].value
            _fetch(emit, ind, "a", a)
            _fetch(emit, ind, "b", b)
            emit(f"{ind}v = U{k}(as_int(a, {signed}), as_int(b, {signed}))")
        else:
            ns[f"F{k}"] = fn
            ops = inst.operands
            sub = ind
            if _register_access(fn, base) and len(ops) >= (2 if inst.opname == "OpStore" else 1) and \
                    all(o.kind == "IdRef" for o in ops[:2]):
                # a Function variable held as a value, every invocation active (and, for a load, stored by
                # all): what load_op / store_op do then, without the call
                _fetch(emit, ind, "p", ops[0].value)
                if inst.opname == "OpLoad":
                    emit(f"{ind}if full and type(p) is Register and p.written is None:")
                    emit(f"{ind}    v = p.value")
                else:
                    emit(f"{ind}if full and type(p) is Register and not frame.undef:")
                    _fetch(emit, ind + "    ", "x", ops[1].value)
                    emit(f"{ind}    p.value = x")
                    emit(f"{ind}    p.written = None")
                emit(f"{ind}else:")
                sub = ind + "    "
            # the op may run other code (a function call): the count it sees and leaves is the true one
            emit(f"{sub}ex.steps = s")
            if base is None:
                emit(f"{sub}v = F{k}(ex, frame, I{k}, mask)")
            else:
                ns[f"B{k}"] = base
                emit(f"{sub}v = F{k}(ex, frame, I{k}, mask, B{k})")
            emit(f"{sub}s = ex.steps")
        if rid is not None:
            emit(f"{ind}if full:")
            emit(f"{ind}    vals[{rid}] = v")
            emit(f"{ind}else:")
            emit(f"{ind}    assign(frame, I{k}, v, mask, False)")
    lines.append(f"{ind}pass")
    lines += ["    except Fault as f:",
              "        ex.steps = s",
              "        raise ex.fault_error(BODY[i], f) from None",
              "    except Exception as e:",   # a module run without validation: exec_inst's rule
              "        ex.steps = s",
              "        raise ex.invalid_module_error(BODY[i], e) from None",
              "    ex.steps = s"]
    _terminator(lines, ns, term)
    ns["BODY"] = list(body)
    code = compile("\n".join(lines), "<spvcoop compiled block>", "exec")
    exec(code, ns)  # noqa: S102 - source generated above from numbers and fixed templates only
    return ns["block"]

"""OpCooperativeMatrixReduceNV, PerElementOpNV, TransposeNV and ConvertNV on logical matrices.

The combine and per-element functions are real SPIR-V function calls (Executor.call_per_element), one call of the
function per step for all elements at once. Reduce combines in a fixed order (TREE_BITS, below): the extension
leaves the order to the implementation ("implementation-dependent elements ... or combinations thereof"), so
a non-associative combine (floating-point addition) gives order-dependent results; the order here is the one the
H100 was measured to use (docs/interpreter-coopmat.md).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import OpSet
from ..fault import Fault
from ..memory import Pointer
from ..coopmat.core import CoopInfo, CoopMat, active_groups, coop_info, coop_val, first_lanes, uniform
from .core import call_elements, callee

OPS = OpSet()

ROW, COLUMN, QUAD = 0x1, 0x2, 0x4
# The H100's reduction order (measured bit for bit, tests/test_interp_coopmat2_gpu.py), for one row (Row) or one
# column (Column) of n elements: first, for each j < 8, the elements j, j+8, j+16, ... are combined one after the
# other, in ascending order (what one invocation holds of an NVIDIA accumulator fragment); then the 8 partial
# results are combined pairwise, (j, j + 2^b) for the index bits b in TREE_BITS order (row: across the invocations
# of a quad, then the two neighbouring columns; column: across the invocations holding the eight rows). A
# Workgroup-scope matrix is reduced in segments of WORKGROUP_SEGMENT (the part one subgroup holds), whose results
# are then combined in ascending order.
TREE_BITS = {ROW: (1, 2, 0), COLUMN: (0, 1, 2)}
WORKGROUP_SEGMENT = 32


class _Combiner:
    """Runs the combine function on pairs of elements; `lanes` (g,) the invocation each group's calls see."""

    def __init__(self, ex, inst, fn, info: CoopInfo, lanes_of_group: np.ndarray):
        self.ex, self.inst, self.fn, self.info, self.lanes = ex, inst, fn, info, lanes_of_group

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a, b: (g, ...) -> combine(a, b) elementwise, same shape."""
        shape = a.shape
        lanes = np.broadcast_to(self.lanes.reshape((-1,) + (1,) * (a.ndim - 1)), shape).reshape(-1)
        v = call_elements(self.ex, self.inst, self.fn, [a.reshape(-1), b.reshape(-1)], lanes)
        return self.info.rounded(np.asarray(v).astype(self.info.dtype)).reshape(shape)


def _reduce_last(x: np.ndarray, which: int, comb: _Combiner, segment: int | None) -> np.ndarray:
    """(g, k, n) -> (g, k): every row of the last axis reduced in the H100's order (above)."""
    n = x.shape[-1]
    if segment is not None and n > segment:
        parts = [_reduce_last(x[..., s:s + segment], which, comb, None) for s in range(0, n, segment)]
        acc = parts[0]
        for p in parts[1:]:
            acc = comb(acc, p)
        return acc
    m = min(8, n)
    acc = np.array(x[..., :m])
    for s in range(8, n, 8):  # ascending blocks of 8, one element after the other
        w = min(8, n - s)
        acc[..., :w] = comb(acc[..., :w], x[..., s:s + w])
    done = 0
    for b in TREE_BITS[which]:
        st = 1 << b
        lo = np.array([j for j in range(m) if not j & done and not j & st and j + st < m], np.int64)
        if len(lo):
            acc[..., lo] = comb(acc[..., lo], acc[..., lo + st])
        done |= st
    return acc[..., 0]


@OPS.op("OpCooperativeMatrixReduceNV")
def reduce(ex, frame, inst, mask):
    m = coop_val(ex, frame, inst.operands[0].value)
    mode = int(inst.operands[1].value)
    info = coop_info(ex, ex.rtype(inst))
    fn = callee(ex, inst, 2)
    gmask = active_groups(ex, info, mask, inst.opname)
    groups, lanes = first_lanes(info, gmask, mask)
    out = np.zeros((info.num_groups, info.rows, info.cols), info.dtype)
    if not len(groups):
        return CoopMat(info, out)
    x = m.full()[groups]
    R, C = x.shape[1:]
    comb = _Combiner(ex, inst, fn, m.info, lanes)
    segment = WORKGROUP_SEGMENT if m.info.scope == "Workgroup" else None
    if mode & QUAD:
        if mode != QUAD:
            raise Fault("Reduce mode 2x2 combined with Row or Column")
        if (info.rows * 2, info.cols * 2) != (R, C):
            raise Fault(f"a 2x2 reduction of a {R}x{C} matrix gives {R // 2}x{C // 2}, not {info.rows}x{info.cols}")
        # combine(combine(a00, a01), combine(a10, a11)), as the H100 does
        red = comb(comb(x[:, 0::2, 0::2], x[:, 0::2, 1::2]), comb(x[:, 1::2, 0::2], x[:, 1::2, 1::2]))
    elif mode == ROW:
        if info.rows != R:
            raise Fault(f"a row reduction keeps the {R} rows; the result type has {info.rows}")
        red = _reduce_last(x, ROW, comb, segment)[:, :, None]
    elif mode == COLUMN:
        if info.cols != C:
            raise Fault(f"a column reduction keeps the {C} columns; the result type has {info.cols}")
        red = _reduce_last(np.swapaxes(x, 1, 2), COLUMN, comb, segment)[:, None, :]
    elif mode == ROW | COLUMN:  # every column, then the column results as a row (the H100's order)
        cols = _reduce_last(np.swapaxes(x, 1, 2), COLUMN, comb, segment)
        red = _reduce_last(cols[:, None, :], ROW, comb, segment)[:, :, None]
    else:
        raise Fault(f"Reduce mode {mode:#x} is not Row, Column, Row|Column or 2x2")
    out[groups] = np.broadcast_to(red, (len(groups), info.rows, info.cols))
    return CoopMat(info, out)


def _extra_operand(ex, frame, id_, info: CoopInfo, groups, lanes, mask, elem_group: np.ndarray, cells: tuple):
    """An optional operand of PerElementOpNV as the per-element calls get it: a matrix's corresponding element, or a
    value that is the same for the whole scope instance."""
    t = ex.type_of_id(id_)
    if t is not None and t.kind == "coopmat":
        mv = coop_val(ex, frame, id_)
        if mv.info.rows != info.rows or mv.info.cols != info.cols:
            raise Fault(f"operand {ex.prog.name_of(id_)} is a {mv.info.rows}x{mv.info.cols} matrix; the matrix is "
                        f"{info.rows}x{info.cols}")
        return mv.full()[groups][cells]
    v = ex.val(frame, id_)
    return _per_group(v, info, groups, lanes, mask, elem_group, ex.prog.name_of(id_))


def _per_group(v, info, groups, lanes, mask, elem_group, name):
    if isinstance(v, np.ndarray):
        per = uniform(info, v, groups, lanes, mask, f"operand {name}")
        return np.asarray(per)[elem_group]
    if isinstance(v, tuple):
        return tuple(_per_group(x, info, groups, lanes, mask, elem_group, name) for x in v)
    if isinstance(v, Pointer):
        off = np.asarray(v.off).reshape(-1)
        per = uniform(info, off, groups, lanes, mask, f"operand {name} (pointer)")
        base = v.base if np.ndim(v.base) == 0 else np.broadcast_to(np.asarray(v.base), mask.shape)[lanes][elem_group]
        return Pointer(v.mem, np.asarray(per)[elem_group], v.type, base, v.matrix, v.vstride, v.align)
    raise Fault(f"operand {name} of a kind the per-element function cannot be given")


@OPS.op("OpCooperativeMatrixPerElementOpNV")
def per_element(ex, frame, inst, mask):
    m = coop_val(ex, frame, inst.operands[0].value)
    info = coop_info(ex, ex.rtype(inst))
    fn = callee(ex, inst, 1)
    gmask = active_groups(ex, info, mask, inst.opname)
    groups, lanes = first_lanes(info, gmask, mask)
    out = np.zeros((info.num_groups, info.rows, info.cols), info.dtype)
    if not len(groups):
        return CoopMat(info, out)
    if len(fn.params) != 3 + len(inst.operands) - 2:
        raise Fault(f"{ex.prog.name_of(fn.id)} takes {len(fn.params)} parameters; the instruction passes "
                    f"{3 + len(inst.operands) - 2}")
    g, R, C = len(groups), info.rows, info.cols
    cells = tuple(np.indices((g, R, C)).reshape(3, -1))
    elem_group = cells[0]
    ptypes = [ex.types[p.result_type] for p in fn.params]
    row = cells[1].astype(ptypes[0].dtype)
    col = cells[2].astype(ptypes[1].dtype)
    args = [row, col, m.full()[groups][cells]]
    args += [_extra_operand(ex, frame, o.value, info, groups, lanes, mask, elem_group, cells)
             for o in inst.operands[2:]]
    v = call_elements(ex, inst, fn, args, lanes[elem_group])
    out[groups] = info.rounded(np.asarray(v).astype(info.dtype)).reshape(g, R, C)
    return CoopMat(info, out)


@OPS.op("OpCooperativeMatrixTransposeNV")
def transpose(ex, frame, inst, mask):
    m = coop_val(ex, frame, inst.operands[0].value)
    info = coop_info(ex, ex.rtype(inst))
    active_groups(ex, info, mask, inst.opname)
    if (info.rows, info.cols) != (m.info.cols, m.info.rows):
        raise Fault(f"the transpose of a {m.info.rows}x{m.info.cols} matrix is not {info.rows}x{info.cols}")
    return CoopMat(info, np.ascontiguousarray(np.swapaxes(m.data, 1, 2)).astype(info.dtype, copy=False))


@OPS.op("OpCooperativeMatrixConvertNV")
def convert_use(ex, frame, inst, mask):
    """Only the Use changes: the same logical matrix (each invocation's view follows the new type's layout)."""
    m = coop_val(ex, frame, inst.operands[0].value)
    info = coop_info(ex, ex.rtype(inst))
    active_groups(ex, info, mask, inst.opname)
    if (info.rows, info.cols) != (m.info.rows, m.info.cols):
        raise Fault(f"OpCooperativeMatrixConvertNV keeps the shape: {m.info.rows}x{m.info.cols} is not "
                    f"{info.rows}x{info.cols}")
    return CoopMat(info, m.data.astype(info.dtype, copy=False))

"""OpCooperativeMatrixReduceNV, PerElementOpNV, TransposeNV and ConvertNV on logical matrices.

The combine and per-element functions are real SPIR-V function calls (Executor.call_per_element), one call of the
function per step for all elements at once. The extension leaves Reduce's order to the implementation
("implementation-dependent elements ... or combinations thereof"), so a non-associative combine (floating-point
addition) gives order-dependent results; the order here is the one measured on an H100 (_reduce_line, below;
tests/interp/coopmat2/test_interp_coopmat2_gpu.py, docs/interpreter-coopmat.md).
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..dispatch import OpSet
from ..encodings import bits_dtype
from ..compiled_floats import CompiledFloats
from ..coopmat.math import muladd_model
from ..fault import Fault
from ..memory import Pointer
from ..coopmat.core import CoopInfo, CoopMat, active_groups, coop_info, coop_val, first_lanes, uniform
from .core import call_elements, callee

OPS = OpSet()

ROW, COLUMN, QUAD = 0x1, 0x2, 0x4
# The H100's order (measured on 16x16, 32x32 Subgroup and 64x64 Workgroup f32/f16 accumulators, bit for bit):
# a line of a row (column) is cut into blocks of 8 consecutive elements; the blocks are combined one after the
# other (block 0 with 1, the result with 2, ...), then the 8 partial results in a tree whose steps pair the index
# bits in this order -- within one row an invocation holds pairs of neighbouring columns and the 8-column blocks,
# so its own elements go first and the exchanges between invocations follow.
ROW_TREE_BITS = (1, 2, 0)
COLUMN_TREE_BITS = (0, 1, 2)


def _bits(n: int) -> list[int]:
    return list(range(max(1, (n - 1).bit_length())))


def _warp_grid(info: CoopInfo, ex) -> tuple[int, int]:
    """How a Workgroup-scope matrix's rows and columns are split between the workgroup's subgroups for Reduce:
    a 64x64 matrix of 4 subgroups is 2x2 quarters (measured); more or fewer subgroups: halved alternately along
    rows and columns (a model, not measured)."""
    if info.scope != "Workgroup":
        return 1, 1
    w = max(1, ex.lanes.wg_size // max(1, ex.lanes.subgroup_size))
    wr = wc = 1
    while wr * wc * 2 <= w:
        if wr <= wc:
            wr *= 2
        else:
            wc *= 2
    return wr, wc


class _Combiner:
    """Runs the combine function on pairs of elements; `lanes_of_group` (g,) the invocation each call sees."""

    def __init__(self, ex, inst, fn, info: CoopInfo, lanes_of_group: np.ndarray):
        self.ex, self.inst, self.fn, self.info, self.lanes = ex, inst, fn, info, lanes_of_group

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a, b: (g, ...) -> combine(a, b) elementwise, same shape."""
        shape = a.shape
        lanes = np.broadcast_to(self.lanes.reshape((-1,) + (1,) * (a.ndim - 1)), shape).reshape(-1)
        v = call_elements(self.ex, self.inst, self.fn, [a.reshape(-1), b.reshape(-1)], lanes)
        return self.info.rounded(np.asarray(v).astype(self.info.dtype)).reshape(shape)


def _reduce_line(x: np.ndarray, tree_bits: tuple[int, ...], parts: int, comb: _Combiner) -> np.ndarray:
    """Combine x (g, n, L) along its last axis -> (g, n), in the H100's order: each of `parts` equal segments
    (the subgroups' shares of a Workgroup-scope line) in blocks of 8, then the segments one after the other."""
    L = x.shape[2]
    if L % (8 * parts):
        return _fallback_tree(x, comb)
    seg = L // parts
    total = None
    for p in range(parts):
        blocks = x[:, :, p * seg:(p + 1) * seg]
        acc = blocks[:, :, 0:8]
        for b in range(1, seg // 8):
            acc = comb(acc, blocks[:, :, 8 * b:8 * b + 8])
        v, done = np.array(acc), 0
        for bit in tree_bits:
            lo = [i for i in range(8) if not i & done and not i & (1 << bit)]
            v[:, :, lo] = comb(v[:, :, lo], v[:, :, [i + (1 << bit) for i in lo]])
            done |= 1 << bit
        total = v[:, :, 0] if total is None else comb(total, v[:, :, 0])
    return cast(np.ndarray, total)   # parts >= 1: the loop ran


# Row|Column (measured on 16x16 and 32x32 Subgroup f32/f16 and 64x64 Workgroup f32 accumulators, bit for bit,
# tests/data/h100-vulkan/ext-numerics/reduce_rc_*): the 8x8 blocks of a subgroup's share are added element by
# element, block after block in row-major order, then the 64 sums in a tree pairing the bits of (row << 3 | col)
# in this order -- two column bits, the three row bits, the last column bit; a Workgroup's shares (_warp_grid) are
# then combined one after the other, in row-major order.
ALL_TREE_BITS = (1, 2, 3, 4, 5, 0)


def _reduce_all(x: np.ndarray, wr: int, wc: int, comb: _Combiner) -> np.ndarray | None:
    """Combine all of x (g, R, C) -> (g, 64), one result per place in an 8x8 block, in the H100's Row|Column
    order; None where it was not measured (a share whose sides are not multiples of 8)."""
    _, R, C = x.shape
    if R % (8 * wr) or C % (8 * wc):
        return None
    sr, sc = R // wr, C // wc
    total = None
    for i in range(wr):
        for j in range(wc):
            share = x[:, i * sr:(i + 1) * sr, j * sc:(j + 1) * sc]
            acc = None
            for bi in range(0, sr, 8):
                for bj in range(0, sc, 8):
                    block = share[:, bi:bi + 8, bj:bj + 8].reshape(len(x), 1, 64)
                    acc = block if acc is None else comb(acc, block)
            # every result element p (its place in its 8x8 block) has its own tree: at each step the half holding
            # p's own bit value is the first operand (a non-commutative combine shows it; measured). While both
            # operand orders give the same bits (a sum, a max) one tree serves all 64 places: (g, 1, 64); else
            # (g, 64 places, 64)
            v, done = np.array(acc), 0
            own = np.arange(64)[:, None]
            for bit in ALL_TREE_BITS:
                lo = [k for k in range(64) if not k & done and not k & (1 << bit)]
                hi = [k + (1 << bit) for k in lo]
                done |= 1 << bit
                a, b = v[:, :, lo], v[:, :, hi]
                if v.shape[1] == 1:
                    ab, ba = comb(a, b), comb(b, a)
                    if np.array_equal(_bit_patterns(ab), _bit_patterns(ba)):
                        v[:, :, lo] = ab
                        continue
                    v = np.repeat(v, 64, axis=1)
                    a, b = v[:, :, lo], v[:, :, hi]
                swap = (own & (1 << bit)) != 0
                v[:, :, lo] = comb(np.where(swap, b, a), np.where(swap, a, b))
            part = np.repeat(v[:, :, 0], 64 // v.shape[1], axis=1)     # (g, 64)
            total = part if total is None else comb(total, part)
    return total


def _bit_patterns(x: np.ndarray) -> np.ndarray:
    """Floats as their bits (NaNs compare, -0 differs from +0); other values as they are."""
    x = np.ascontiguousarray(x)
    return x.view(bits_dtype(x.dtype)) if x.dtype.kind == "f" else x


def _spread(per_place: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(g, 64) results by place in an 8x8 block -> (g, rows, cols), element (r, c) taking place (r%8)*8 + c%8."""
    r, c = np.arange(rows)[:, None] % 8, np.arange(cols)[None, :] % 8
    return per_place[:, r * 8 + c]


def _fallback_tree(x: np.ndarray, comb: _Combiner) -> np.ndarray:
    """A line whose length is not a multiple of 8 (not measured): neighbours first, then pairs of pairs, ..."""
    v, n, done = np.array(x), x.shape[2], 0
    for b in _bits(n):
        s_ = 1 << b
        lo = [i for i in range(n) if not i & done and not i & s_ and i + s_ < n]
        if lo:
            v[:, :, lo] = comb(v[:, :, lo], v[:, :, [i + s_ for i in lo]])
        done |= s_
    return v[:, :, 0]


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
    wr, wc = _warp_grid(m.info, ex)

    def rows_of(a):   # (g, R, C) -> (g, R, 1): each row combined
        return _reduce_line(a, ROW_TREE_BITS, wc, comb)[:, :, None]

    def columns_of(a):   # (g, R, C) -> (g, 1, C)
        return _reduce_line(np.swapaxes(a, 1, 2), COLUMN_TREE_BITS, wr, comb)[:, None, :]

    if mode & QUAD:
        if mode != QUAD:
            raise Fault("Reduce mode 2x2 combined with Row or Column")
        if (info.rows * 2, info.cols * 2) != (R, C):
            raise Fault(f"a 2x2 reduction of a {R}x{C} matrix gives {R // 2}x{C // 2}, not {info.rows}x{info.cols}")
        # (a + b) + (c + d): the neighbours in a row first (measured)
        top = comb(x[:, 0::2, 0::2], x[:, 0::2, 1::2])
        red = comb(top, comb(x[:, 1::2, 0::2], x[:, 1::2, 1::2]))
    elif mode == ROW:
        if info.rows != R:
            raise Fault(f"a row reduction keeps the {R} rows; the result type has {info.rows}")
        red = rows_of(x)
    elif mode == COLUMN:
        if info.cols != C:
            raise Fault(f"a column reduction keeps the {C} columns; the result type has {info.cols}")
        red = columns_of(x)
    elif mode == ROW | COLUMN:
        whole = _reduce_all(x, wr, wc, comb)
        # not measured (sides not multiples of 8): the columns first, then the row of their results
        red = rows_of(columns_of(x)) if whole is None else _spread(whole, info.rows, info.cols)
    else:
        raise Fault(f"Reduce mode {mode:#x} is not Row, Column, Row|Column or 2x2")
    out[groups] = np.broadcast_to(red, (len(groups), info.rows, info.cols))
    return CoopMat(info, out)


def _is_matrix(ex, id_) -> bool:
    t = ex.type_of_id(id_)
    return t is not None and t.kind == "coopmat"


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
    floats = ex.float_model
    model = muladd_model(ex.config.coop_numerics)
    if model is not None and not model.per_element_ieee:
        # compiled, not interpreted: the GPU's rules for float code in the function (compiled_floats.py); on
        # NVIDIA a matrix extra operand stops x * s + c from fusing (measured)
        matrix_operand = any(_is_matrix(ex, o.value) for o in inst.operands[2:])
        floats = CompiledFloats(fn, ex.prog.decorations, model, matrix_operand)
    with ex.float_rules(floats):
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

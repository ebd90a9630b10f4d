"""Tensor layout and view instructions (SPV_NV_tensor_addressing): each copies its operand's state and updates
the requested part, as the extension text says; the addressing that uses the state is in addressing.py."""
from __future__ import annotations

import numpy as np

from ..dispatch import KindHooks, OpSet
from ..fault import Fault
from .core import (Grouped, LayoutType, TensorLayout, TensorView, ViewType, new_layout, new_view, operand_rows, s32,
                   tensor_val, u32)

OPS = OpSet()


def _layout_operands(ex, frame, inst, count_per_dim: int = 1):
    t = tensor_val(ex, frame, inst.operands[0].value, TensorLayout)
    d = t.type.dims
    ids = [o.value for o in inst.operands[1:]]
    if len(ids) != d * count_per_dim:
        raise Fault(f"{len(ids)} operands for a tensor layout of dimension {d} (needs {d * count_per_dim})")
    return t, ids


@OPS.op("OpCreateTensorLayoutNV")
def create_layout(ex, frame, inst, mask):
    return new_layout(LayoutType.of(ex, ex.rtype(inst)))


@OPS.op("OpTensorLayoutSetDimensionNV")
def layout_set_dimension(ex, frame, inst, mask):
    """layoutDimension and span = Dim<i>, offsets 0, strides packed: stride[D-1] = 1,
    stride[i] = stride[i+1] * ceil(Dim<i+1> / blockSize[i+1])."""
    t, ids = _layout_operands(ex, frame, inst)
    dims = operand_rows(ex, frame, ids)
    n = max(dims.shape[0], t.block.shape[0])
    dims = np.broadcast_to(dims, (n, dims.shape[1]))
    block = np.broadcast_to(t.block, dims.shape)
    stride = np.ones(dims.shape, np.int64)
    for i in range(dims.shape[1] - 2, -1, -1):
        b = np.maximum(block[:, i + 1], 1)  # a zero block size: the ceiling is undefined; count one block
        stride[:, i] = stride[:, i + 1] * (-(-dims[:, i + 1] // b))
    return t.replaced(dim=dims, span=dims, offset=np.zeros(dims.shape, np.int64), stride=stride)


@OPS.op("OpTensorLayoutSetStrideNV")
def layout_set_stride(ex, frame, inst, mask):
    t, ids = _layout_operands(ex, frame, inst)
    return t.replaced(stride=operand_rows(ex, frame, ids))


@OPS.op("OpTensorLayoutSetBlockSizeNV")
def layout_set_block_size(ex, frame, inst, mask):
    t, ids = _layout_operands(ex, frame, inst)
    return t.replaced(block=operand_rows(ex, frame, ids))


@OPS.op("OpTensorLayoutSliceNV")
def layout_slice(ex, frame, inst, mask):
    """offset[i] += Offset<i> (signed), span[i] = Span<i>."""
    t, ids = _layout_operands(ex, frame, inst, 2)
    fp = ex.fast
    if fp is not None and fp.tensor_groups and mask is ex.every:
        got = _grouped_slice(ex, fp, frame, inst, t, ids)
        if got is not None:
            return got
    cols = [s32(ex.val(frame, i)).reshape(-1) for i in ids[0::2]]
    offset, span = _sliced(t.offset, cols, [u32(ex.val(frame, i)).reshape(-1) for i in ids[1::2]])
    return t.replaced(offset=offset, span=span)


def _sliced(offset: np.ndarray, cols: list[np.ndarray], spans: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(offset + the Offset operands, the Span operands): rows of the invocations (or of the workgroups)."""
    n = max(max(c.shape[0] for c in cols), offset.shape[0])
    out = np.empty((n, len(cols)), np.int64)
    for j, c in enumerate(cols):
        out[:, j] = c
    out += offset
    m = max(c.shape[0] for c in spans)   # operand_rows's arithmetic
    span = np.empty((m, len(spans)), np.int64)
    for j, c in enumerate(spans):
        span[:, j] = c
    return out, span


def _grouped_slice(ex, fp, frame, inst, t, ids) -> TensorLayout | None:
    """The fast path `tensor_groups` (interp/fastpaths.py): the slice of a layout whose fields and operands are
    each the same for every invocation of a workgroup, as one row per workgroup (core.Grouped); None when one
    differs within a workgroup or nothing is per workgroup (the plain path: per invocation)."""
    N, S = ex.N, ex.lanes.wg_size
    if ex.virtual_lanes is not None or N < 2 * S or N % S:
        return None
    W = N // S
    cache = fp.group_rows
    g = t.grouped
    if g is not None and g.N == N and g.S == S:
        rows = dict(g.rows)
    else:
        rows = {}
        for k, v in t.fields.items():
            r = _wg_rows(cache, (inst.index, k), v, N, S, W, None)
            if r is None:
                return None
            rows[k] = r
    cols: list[np.ndarray] = []
    spans: list[np.ndarray] = []
    for j, i in enumerate(ids):
        r = _wg_rows(cache, (inst.index, j), ex.val(frame, i), N, S, W, s32 if j % 2 == 0 else u32)
        if r is None:
            return None
        (spans if j % 2 else cols).append(r)
    moved = None
    if rows["offset"].shape[0] == 1:   # the offsets as fixed rows plus one row for all (Grouped.moved)
        delta = rows["offset"][0].copy()
        for j, c in enumerate(cols):
            if c.shape[0] == 1:
                delta[j] += c[0]
        moved = (tuple((j, c) for j, c in enumerate(cols) if c.shape[0] > 1), delta)
    rows["offset"], rows["span"] = _sliced(rows["offset"], cols, spans)
    if all(v.shape[0] == 1 for v in rows.values()):
        return None   # nothing per workgroup: the plain path's one row is as cheap
    fp.taken.add("tensor_groups")
    return TensorLayout(t.type, grouped=Grouped(rows, S, N, moved))


def _wg_rows(cache: dict, key, v, N: int, S: int, W: int, conv) -> np.ndarray | None:
    """A per-invocation value (N rows) or one for all (one row, or broadcast) as rows: (1, ...) for one value, (W,
    ...) per workgroup, converted by conv (s32 / u32, of an operand); None where it differs within a workgroup.
    What a value gave is kept by (instruction, operand) and reused while the same array comes again (a value
    computed before a loop and sliced in every trip: checked once; the same rows, which Grouped.moved relies on)."""
    hit = cache.get(key)
    if hit is not None and hit[0] is v:
        return hit[1]
    a = np.asarray(v)
    r = None
    if a.ndim == 0 or a.shape[0] == 1 or (a.strides[0] == 0 and a.size):
        one = a[:1] if a.ndim else a.reshape(1)
        r = np.ascontiguousarray(one) if conv is None else conv(one).reshape(1)
    elif a.shape[0] == N:
        per = a.reshape((W, S) + a.shape[1:])
        first = per[:, :1]
        if bool((per == first).all()):
            r = first[:, 0].copy() if conv is None else conv(first[:, 0]).reshape(-1)
    cache[key] = (v, r)
    return r


@OPS.op("OpTensorLayoutSetClampValueNV")
def layout_set_clamp_value(ex, frame, inst, mask):
    t = tensor_val(ex, frame, inst.operands[0].value, TensorLayout)
    return t.replaced(clamp_value=u32(ex.val(frame, inst.operands[1].value)).reshape(-1))


def _view_operands(ex, frame, inst, count: int | None = None):
    v = tensor_val(ex, frame, inst.operands[0].value, TensorView)
    ids = [o.value for o in inst.operands[1:]]
    want = v.type.dims if count is None else count
    if len(ids) != want:
        raise Fault(f"{len(ids)} operands for a tensor view of dimension {v.type.dims} (needs {want})")
    return v, ids


@OPS.op("OpCreateTensorViewNV")
def create_view(ex, frame, inst, mask):
    return new_view(ViewType.of(ex, ex.rtype(inst)))


@OPS.op("OpTensorViewSetDimensionNV")
def view_set_dimension(ex, frame, inst, mask):
    """viewDimension = Dim<i>; viewStride[i] = product of Dim<i+1> .. Dim<D-1> (viewStride[D-1] = 1)."""
    v, ids = _view_operands(ex, frame, inst)
    dims = operand_rows(ex, frame, ids)
    stride = np.ones(dims.shape, np.int64)
    for i in range(dims.shape[1] - 2, -1, -1):
        stride[:, i] = stride[:, i + 1] * dims[:, i + 1]
    return v.replaced(vdim=dims, vstride=stride)


@OPS.op("OpTensorViewSetStrideNV")
def view_set_stride(ex, frame, inst, mask):
    v, ids = _view_operands(ex, frame, inst)
    return v.replaced(vstride=operand_rows(ex, frame, ids))


@OPS.op("OpTensorViewSetClipNV")
def view_set_clip(ex, frame, inst, mask):
    v, ids = _view_operands(ex, frame, inst, 4)
    return v.replaced(clip=operand_rows(ex, frame, ids))



def _null_layout(t, n):
    """OpConstantNull / OpUndef: a state without a type; using it is an error (core.tensor_val)."""
    z = np.zeros((1, 1), np.int64)
    return TensorLayout(None, {"block": z, "dim": z, "stride": z, "offset": z, "span": z,
                               "clamp_value": np.zeros((1,), np.int64)})


def _null_view(t, n):
    z = np.zeros((1, 1), np.int64)
    return TensorView(None, {"vdim": z, "vstride": z, "clip": np.zeros((1, 4), np.int64)})


LAYOUT_HOOKS = KindHooks("tensor_layout", zeros=_null_layout)
VIEW_HOOKS = KindHooks("tensor_view", zeros=_null_view)

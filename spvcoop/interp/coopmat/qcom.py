"""SPV_QCOM_cooperative_matrix_conversion: matrices to and from per-invocation arrays, and array utilities.

The extension fixes the per-invocation view itself, independent of any layout model: the invocation with
SubgroupLocalInvocationId i gives (OpCompositeConstructCoopMatQCOM) or gets (OpCompositeExtractCoopMatQCOM)
row i of an A or accumulator matrix and column i of a B matrix. Invocations past the number of rows
(columns) are ignored when constructing and get an undefined array when extracting (zeros here). An array
of 32-bit unsigned integers instead of the component type holds the same line packed: its bytes are the
components' bytes in order (little-endian, as OpBitCastArrayQCOM reinterprets). Arrays are values
(tuples of per-invocation components, as everywhere in the interpreter).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import OpSet
from ..fault import Fault
from .core import CoopInfo, CoopMat, active_groups, coop_info, coop_val

OPS = OpSet()


def _stack(ex, value, t) -> np.ndarray:
    """An array value (tuple of components) as an (N, length) numpy array of its element dtype."""
    if t.kind != "array" or t.elem.kind not in ("int", "float"):
        raise Fault(f"expected a one-dimensional array of scalars, got {t.describe()}")
    parts = [np.broadcast_to(np.asarray(x), (ex.N,)) for x in value]
    if len(parts) != t.count:
        raise Fault(f"array value has {len(parts)} components, its type {t.describe()} {t.count}")
    return np.stack(parts, axis=1).astype(t.elem.dtype, copy=False) if parts else \
        np.zeros((ex.N, 0), t.elem.dtype)


def _reinterpret(a: np.ndarray, dt: np.dtype, what: str) -> np.ndarray:
    """(N, n) of one dtype -> (N, m) of dt holding the same bytes, in order."""
    a = np.ascontiguousarray(a)
    nbytes = a.shape[1] * a.dtype.itemsize
    if nbytes % dt.itemsize:
        raise Fault(f"{what}: {nbytes} bytes do not make whole {dt} components")
    return a.view(np.uint8).reshape(a.shape[0], nbytes).view(dt) if nbytes else np.zeros((a.shape[0], 0), dt)


def _line_length(info: CoopInfo) -> tuple[int, int]:
    """(number of lines, components per line): rows of A/accumulator, columns of B."""
    if info.scope != "Subgroup":
        raise Fault(f"{info.describe()}: the QCOM conversions take Subgroup-scope matrices only")
    if info.use is None:
        raise Fault(f"{info.describe()}: the QCOM conversions take KHR matrices (with a Use)")
    return (info.cols, info.rows) if info.use == "b" else (info.rows, info.cols)


def _as_components(info: CoopInfo, a: np.ndarray, what: str) -> np.ndarray:
    """(N, n) array elements -> (N, k) component values (float32 for bf16/FP8), same component type or packed."""
    st = info.storage_dtype
    if a.dtype != st:
        if a.dtype.itemsize == st.itemsize and a.dtype.kind in "iu" and st.kind in "iu":
            a = a.view(st)                           # u32 array into an s32 matrix: same bits
        else:
            a = _reinterpret(a, st, what)
    return info.from_storage(a)


@OPS.op("OpCompositeConstructCoopMatQCOM")
def construct(ex, frame, inst, mask):
    info = coop_info(ex, ex.rtype(inst))
    lines, k = _line_length(info)
    src_t = ex.type_of_id(inst.operands[0].value)
    comps = _as_components(info, _stack(ex, ex.arg(frame, inst, 0), src_t), inst.opname)
    if comps.shape[1] != k:
        raise Fault(f"the source array holds {comps.shape[1]} components, a "
                    f"{'column' if info.use == 'b' else 'row'} of {info.describe()} has {k}")
    active_groups(ex, info, mask, inst.opname)
    data = np.zeros((info.num_groups, info.rows, info.cols), info.dtype)
    on = np.broadcast_to(mask, (ex.N,)) & ex.alive & (info.position < lines)
    g, p = info.group[on], info.position[on]
    if info.use == "b":
        data[g, :, p] = comps[on]
    else:
        data[g, p, :] = comps[on]
    return CoopMat(info, data)


@OPS.op("OpCompositeExtractCoopMatQCOM")
def extract(ex, frame, inst, mask):
    v = coop_val(ex, frame, inst.operands[0].value)
    info = v.info
    lines, k = _line_length(info)
    rt = ex.rtype(inst)
    full = v.full()
    p = np.minimum(info.position, lines - 1)
    line = full[info.group, :, p] if info.use == "b" else full[info.group, p, :]      # (N, k)
    line = np.where((info.position < lines)[:, None], line, 0)  # past the last line: undefined, zeros here
    raw = info.to_storage(line)
    et = rt.elem.dtype if rt.kind == "array" else None
    if et is None or rt.elem.kind not in ("int", "float"):
        raise Fault(f"expected a one-dimensional array of scalars as the result, got {rt.describe()}")
    if raw.dtype != et:
        raw = raw.view(et) if raw.dtype.itemsize == et.itemsize and raw.dtype.kind in "iu" and et.kind in "iu" \
            else _reinterpret(raw, et, inst.opname)
    if raw.shape[1] != rt.count:
        raise Fault(f"a {'column' if info.use == 'b' else 'row'} of {info.describe()} fills {raw.shape[1]} "
                    f"components of {rt.elem.describe()}, the result type {rt.describe()} has {rt.count}")
    return tuple(np.ascontiguousarray(raw[:, j]) for j in range(rt.count))


@OPS.op("OpExtractSubArrayQCOM")
def extract_sub_array(ex, frame, inst, mask):
    rt = ex.rtype(inst)
    src_t = ex.type_of_id(inst.operands[0].value)
    src = ex.arg(frame, inst, 0)
    start = np.asarray(ex.arg(frame, inst, 1)).astype(np.int64)
    n, m = src_t.count, rt.count
    live = np.broadcast_to(mask, (ex.N,)) & ex.alive
    s = np.broadcast_to(start, (ex.N,))
    bad = live & ((s < 0) | (s + m > n))
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise Fault(f"start index {int(s[lane])} with {m} components is outside the {n}-component source array "
                    f"(undefined in SPV_QCOM_cooperative_matrix_conversion)", np.flatnonzero(bad))
    if start.size == 1 or (s[live] == s[live][0]).all():
        first = int(start.reshape(-1)[0]) if start.size == 1 else int(s[live][0]) if live.any() else 0
        return tuple(src[first:first + m])
    a = _stack(ex, src, src_t)
    idx = np.clip(s, 0, n - m)[:, None] + np.arange(m)[None, :]
    out = np.take_along_axis(a, idx, axis=1)
    return tuple(np.ascontiguousarray(out[:, j]) for j in range(m))


@OPS.op("OpBitCastArrayQCOM")
def bitcast_array(ex, frame, inst, mask):
    rt = ex.rtype(inst)
    src_t = ex.type_of_id(inst.operands[0].value)
    a = _stack(ex, ex.arg(frame, inst, 0), src_t)
    out = _reinterpret(a, rt.elem.dtype, inst.opname)
    if out.shape[1] != rt.count:
        raise Fault(f"{src_t.describe()} ({a.shape[1] * a.dtype.itemsize} bytes) does not bitcast to {rt.describe()}")
    return tuple(np.ascontiguousarray(out[:, j]) for j in range(rt.count))

"""OpGroupNonUniform*: values regrouped as (subgroups, subgroup size, ...) and reduced with numpy.

Inactive invocations take no part: they are filled with the operation's
identity (reductions, scans) or ignored (elect, ballot, broadcast-first).
"""
from __future__ import annotations

import numpy as np

from .fault import Fault
from .ops_arith import as_int, to_type
from .program import enum_name
from .dispatch import OpSet

OPS = OpSet()


def _check_scope(ex, frame, inst) -> None:
    s = enum_name("Scope", int(np.asarray(ex.arg(frame, inst, 0)).reshape(-1)[0]))
    if s != "Subgroup":
        raise Fault(f"group operations with {s} scope are not supported (only Subgroup)")


def to_sg(ex, x, fill) -> np.ndarray:
    x = np.asarray(x)
    x = np.broadcast_to(x, (ex.N,) + x.shape[1:])
    S = ex.lanes.subgroup_size
    out = np.full((ex.lanes.num_sg_total * S,) + x.shape[1:], fill, dtype=x.dtype)
    out[ex.lanes.sg_pos] = x
    return out.reshape((ex.lanes.num_sg_total, S) + x.shape[1:])


def from_sg(ex, y: np.ndarray) -> np.ndarray:
    return y.reshape((-1,) + y.shape[2:])[ex.lanes.sg_pos]


def _active(ex, mask) -> np.ndarray:
    return to_sg(ex, mask, False)


@OPS.op("OpGroupNonUniformElect")
def elect(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    act = _active(ex, mask)
    first = np.argmax(act, axis=1)
    return ex.lanes.sg_local == first[ex.lanes.sg_global]


@OPS.op("OpGroupNonUniformAll", "OpGroupNonUniformAny")
def all_any(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    p = np.broadcast_to(ex.arg(frame, inst, 1), mask.shape)
    if inst.opname == "OpGroupNonUniformAll":
        r = np.all(to_sg(ex, p | ~mask, True), axis=1)
    else:
        r = np.any(to_sg(ex, p & mask, False), axis=1)
    return r[ex.lanes.sg_global]


@OPS.op("OpGroupNonUniformAllEqual")
def all_equal(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    v = np.broadcast_to(np.asarray(ex.arg(frame, inst, 1)), (ex.N,) + np.asarray(ex.arg(frame, inst, 1)).shape[1:])
    first = _first_active_value(ex, v, mask)
    eq = v == first
    if eq.ndim > 1:
        eq = eq.all(axis=tuple(range(1, eq.ndim)))
    return np.all(to_sg(ex, eq | ~mask, True), axis=1)[ex.lanes.sg_global]


def _first_active_value(ex, v, mask):
    act = _active(ex, mask)
    first = np.argmax(act, axis=1)
    sgv = to_sg(ex, v, 0)
    return sgv[np.arange(sgv.shape[0]), first][ex.lanes.sg_global]


@OPS.op("OpGroupNonUniformBroadcastFirst")
def broadcast_first(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    return _first_active_value(ex, ex.arg(frame, inst, 1), mask)


def _gather(ex, v, src_lane: np.ndarray, mask, what: str):
    """value of invocation src_lane (in the same subgroup) for each invocation."""
    S = ex.lanes.subgroup_size
    src = np.broadcast_to(np.asarray(src_lane).astype(np.int64), mask.shape)
    sgv = to_sg(ex, v, 0)
    act = _active(ex, mask).reshape(-1)
    bad = mask & ((src < 0) | (src >= S))
    idx = ex.lanes.sg_global * S + np.clip(src, 0, S - 1)
    bad |= mask & ~act[idx]
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise Fault(f"{what} reads subgroup invocation {int(src[lane])}, which is inactive or out of range "
                    f"(undefined value)", np.flatnonzero(bad))
    return sgv.reshape((-1,) + sgv.shape[2:])[idx]


@OPS.op("OpGroupNonUniformBroadcast", "OpGroupNonUniformShuffle")
def broadcast(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    return _gather(ex, ex.arg(frame, inst, 1), ex.arg(frame, inst, 2), mask, inst.opname[19:])


@OPS.op("OpGroupNonUniformShuffleXor", "OpGroupNonUniformShuffleUp", "OpGroupNonUniformShuffleDown")
def shuffle_rel(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    d = np.asarray(ex.arg(frame, inst, 2)).astype(np.int64)
    src = {"OpGroupNonUniformShuffleXor": lambda: ex.lanes.sg_local ^ d,
           "OpGroupNonUniformShuffleUp": lambda: ex.lanes.sg_local - d,
           "OpGroupNonUniformShuffleDown": lambda: ex.lanes.sg_local + d}[inst.opname]()
    return _gather(ex, ex.arg(frame, inst, 1), src, mask, inst.opname[19:])


@OPS.op("OpGroupNonUniformQuadBroadcast")
def quad_broadcast(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    i = np.asarray(ex.arg(frame, inst, 2)).astype(np.int64)
    return _gather(ex, ex.arg(frame, inst, 1), (ex.lanes.sg_local & ~3) + i, mask, "QuadBroadcast")


@OPS.op("OpGroupNonUniformQuadSwap")
def quad_swap(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    d = int(np.asarray(ex.arg(frame, inst, 2)).reshape(-1)[0])
    x = {0: 1, 1: 2, 2: 3}[d]
    return _gather(ex, ex.arg(frame, inst, 1), ex.lanes.sg_local ^ x, mask, "QuadSwap")


def _ballot_bits(ex, pred) -> np.ndarray:
    bits = to_sg(ex, pred, False)  # (G, S)
    S = bits.shape[1]
    padded = np.zeros((bits.shape[0], 128), dtype=bool)
    padded[:, :S] = bits
    words = np.packbits(padded.reshape(-1, 4, 32), axis=-1, bitorder="little")  # (G, 4, 4) bytes
    return np.ascontiguousarray(words).view(np.uint32)[..., 0]  # (G, 4)


@OPS.op("OpGroupNonUniformBallot")
def ballot(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    p = np.broadcast_to(ex.arg(frame, inst, 1), mask.shape) & mask
    return to_type(_ballot_bits(ex, p)[ex.lanes.sg_global], ex.rtype(inst))


def _bits_of(v) -> np.ndarray:
    v = np.ascontiguousarray(as_int(np.asarray(v), False).astype(np.uint32))
    return np.unpackbits(v.view(np.uint8).reshape(v.shape[0], 16), axis=-1, bitorder="little").astype(bool)


@OPS.op("OpGroupNonUniformInverseBallot")
def inverse_ballot(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    bits = np.broadcast_to(_bits_of(ex.arg(frame, inst, 1)), (ex.N, 128))
    return bits[np.arange(ex.N), ex.lanes.sg_local]


@OPS.op("OpGroupNonUniformBallotBitExtract")
def ballot_bit_extract(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    bits = np.broadcast_to(_bits_of(ex.arg(frame, inst, 1)), (ex.N, 128))
    i = np.broadcast_to(np.asarray(ex.arg(frame, inst, 2)).astype(np.int64), (ex.N,))
    return bits[np.arange(ex.N), np.clip(i, 0, 127)]


@OPS.op("OpGroupNonUniformBallotBitCount")
def ballot_bit_count(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    gop = enum_name("GroupOperation", inst.operands[1].value)
    bits = np.broadcast_to(_bits_of(ex.arg(frame, inst, 2)), (ex.N, 128))[:, :ex.lanes.subgroup_size]
    if gop == "Reduce":
        r = bits.sum(axis=1)
    else:
        below = np.arange(ex.lanes.subgroup_size)[None, :] < ex.lanes.sg_local[:, None] + (gop == "InclusiveScan")
        r = (bits & below).sum(axis=1)
    return r.astype(ex.rtype(inst).dtype)


@OPS.op("OpGroupNonUniformBallotFindLSB", "OpGroupNonUniformBallotFindMSB")
def ballot_find(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    bits = _bits_of(ex.arg(frame, inst, 1))
    if inst.opname.endswith("LSB"):
        r = np.where(bits.any(axis=1), np.argmax(bits, axis=1), -1)
    else:
        r = np.where(bits.any(axis=1), 127 - np.argmax(bits[:, ::-1], axis=1), -1)
    return r.astype(ex.rtype(inst).dtype)


def _identity(kind: str, dt: np.dtype):
    if kind in ("add", "or", "xor"):
        return 0
    if kind == "mul":
        return 1
    if kind == "and":
        return True if dt == np.bool_ else np.iinfo(dt).max if dt.kind == "u" else -1
    if kind == "min":
        return np.inf if dt.kind == "f" else np.iinfo(dt).max
    if kind == "max":
        return -np.inf if dt.kind == "f" else np.iinfo(dt).min
    raise KeyError(kind)


ARITH = {
    "OpGroupNonUniformIAdd": ("add", np.add, None), "OpGroupNonUniformFAdd": ("add", np.add, None),
    "OpGroupNonUniformIMul": ("mul", np.multiply, None), "OpGroupNonUniformFMul": ("mul", np.multiply, None),
    "OpGroupNonUniformSMin": ("min", np.minimum, True), "OpGroupNonUniformUMin": ("min", np.minimum, False),
    "OpGroupNonUniformFMin": ("min", np.fmin, None), "OpGroupNonUniformSMax": ("max", np.maximum, True),
    "OpGroupNonUniformUMax": ("max", np.maximum, False), "OpGroupNonUniformFMax": ("max", np.fmax, None),
    "OpGroupNonUniformBitwiseAnd": ("and", np.bitwise_and, False),
    "OpGroupNonUniformBitwiseOr": ("or", np.bitwise_or, False),
    "OpGroupNonUniformBitwiseXor": ("xor", np.bitwise_xor, False),
    "OpGroupNonUniformLogicalAnd": ("and", np.logical_and, None),
    "OpGroupNonUniformLogicalOr": ("or", np.logical_or, None),
    "OpGroupNonUniformLogicalXor": ("xor", np.logical_xor, None),
}


@OPS.op(*ARITH)
def group_arith(ex, frame, inst, mask):
    _check_scope(ex, frame, inst)
    kind, ufunc, signed = ARITH[inst.opname]
    gop = enum_name("GroupOperation", inst.operands[1].value)
    t = ex.rtype(inst)
    v = np.asarray(ex.arg(frame, inst, 2))
    if signed is not None:
        v = as_int(to_type(v, t), signed)
    v = np.broadcast_to(v, (ex.N,) + v.shape[1:])
    ident = _identity(kind, v.dtype)
    v = np.where(mask.reshape((-1,) + (1,) * (v.ndim - 1)), v, np.array(ident).astype(v.dtype))
    sg = to_sg(ex, v, ident)  # (G, S, ...)
    if gop == "Reduce":
        r = ufunc.reduce(sg, axis=1)[ex.lanes.sg_global]
    elif gop in ("InclusiveScan", "ExclusiveScan"):
        acc = ufunc.accumulate(sg, axis=1)
        if gop == "ExclusiveScan":
            acc = np.concatenate([np.full_like(acc[:, :1], ident), acc[:, :-1]], axis=1)
        r = from_sg(ex, acc)
    elif gop == "ClusteredReduce":
        c = int(np.asarray(ex.arg(frame, inst, 3)).reshape(-1)[0])
        S = sg.shape[1]
        if c <= 0 or S % c:
            raise Fault(f"cluster size {c} does not divide the subgroup size {S}")
        red = ufunc.reduce(sg.reshape((sg.shape[0], S // c, c) + sg.shape[2:]), axis=2)
        r = from_sg(ex, np.repeat(red, c, axis=1))
    else:
        raise Fault(f"group operation {gop} is not supported")
    return to_type(np.asarray(r).astype(v.dtype, copy=False), t)

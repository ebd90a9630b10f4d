"""Arithmetic, comparison, logical and bit ops: tables of numpy ufuncs with SPIR-V semantics.

Integers are two's complement and wrap; the opcode (not the operand type)
decides signedness, so operands are reinterpreted (same width) as signed or
unsigned before the ufunc runs, and the result as the result type.
"""
from __future__ import annotations

import numpy as np

from .fault import Fault
from .dispatch import OpSet
from .encodings import convert, is_encoded
from .types import Type

OPS = OpSet()


def as_int(x: np.ndarray, signed: bool) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x
    k = x.dtype.kind
    if k in "iu" and (k == "i") != signed:
        return x.view(f"{'i' if signed else 'u'}{x.dtype.itemsize}")
    return x


def to_type(x: np.ndarray, t: Type) -> np.ndarray:
    """Reinterpret or convert x as the numpy dtype of t (same width: a view)."""
    dt = t.dtype
    x = np.asarray(x)
    if x.dtype == dt:
        return x
    if x.dtype.itemsize == dt.itemsize and x.dtype.kind in "iu" and dt.kind in "iu":
        return x.view(dt)
    return x.astype(dt)


# result follows the result type; 'i' ops work on the result's own signedness (wrapping is the same)
INT_BINARY = {"OpIAdd": np.add, "OpISub": np.subtract, "OpIMul": np.multiply,
              "OpBitwiseAnd": np.bitwise_and, "OpBitwiseOr": np.bitwise_or, "OpBitwiseXor": np.bitwise_xor}
FLOAT_BINARY = {"OpFAdd": np.add, "OpFSub": np.subtract, "OpFMul": np.multiply, "OpFDiv": np.divide,
                "OpFRem": np.fmod, "OpFMod": np.mod}
LOGICAL_BINARY = {"OpLogicalAnd": np.logical_and, "OpLogicalOr": np.logical_or,
                  "OpLogicalEqual": np.equal, "OpLogicalNotEqual": np.not_equal}
# comparisons: (ufunc, signedness of the operands: True signed, False unsigned, None float/any)
COMPARE = {"OpIEqual": (np.equal, False), "OpINotEqual": (np.not_equal, False),
           "OpSLessThan": (np.less, True), "OpSLessThanEqual": (np.less_equal, True),
           "OpSGreaterThan": (np.greater, True), "OpSGreaterThanEqual": (np.greater_equal, True),
           "OpULessThan": (np.less, False), "OpULessThanEqual": (np.less_equal, False),
           "OpUGreaterThan": (np.greater, False), "OpUGreaterThanEqual": (np.greater_equal, False)}
FORD = {"OpFOrdEqual": np.equal, "OpFOrdNotEqual": np.not_equal, "OpFOrdLessThan": np.less,
        "OpFOrdGreaterThan": np.greater, "OpFOrdLessThanEqual": np.less_equal,
        "OpFOrdGreaterThanEqual": np.greater_equal}
FUNORD = {"OpFUnordEqual": np.equal, "OpFUnordNotEqual": np.not_equal, "OpFUnordLessThan": np.less,
          "OpFUnordGreaterThan": np.greater, "OpFUnordLessThanEqual": np.less_equal,
          "OpFUnordGreaterThanEqual": np.greater_equal}


@OPS.op(*INT_BINARY)
def int_binary(ex, frame, inst, mask):
    t = ex.rtype(inst)
    a = to_type(ex.arg(frame, inst, 0), t)
    b = to_type(ex.arg(frame, inst, 1), t)
    return INT_BINARY[inst.opname](a, b)


@OPS.op(*FLOAT_BINARY)
def float_binary(ex, frame, inst, mask):
    fm = ex.float_model
    if fm is not None:   # a GPU's compiled-code rules (plain code, or inside a per-element call)
        if inst.opname == "OpFMod" and fm.functions and ex.rtype(inst).dtype in (np.float32, np.float16):
            dt = ex.rtype(inst).dtype
            return fm.finish(_fmod_h100(fm.flush(ex.arg(frame, inst, 0)), fm.flush(ex.arg(frame, inst, 1)), dt,
                                        fm.flush), dt)
        return fm.binary(ex, frame, inst, FLOAT_BINARY[inst.opname])
    return FLOAT_BINARY[inst.opname](ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)).astype(
        ex.rtype(inst).dtype, copy=False)


def _fmod_h100(x: np.ndarray, y: np.ndarray, dt: np.dtype, flush) -> np.ndarray:
    """OpFMod (GLSL mod) as the H200 computes it: fma(-y, floor(x / y), x), the quotient as OpFDiv (x * rcp(y))
    and flushed; measured on 40,960 f32 and f16 inputs each (tests/data/h100-vulkan/float-model/funcs.comp), huge
    quotients included."""
    from ..numerics.functions import divide   # numpy tables, loaded when first used
    from .compiled_floats import fma
    with np.errstate(all="ignore"):
        q = np.floor(flush(divide(x, y, dt)))
        return fma(-np.asarray(y), q, x, dt)


@OPS.op(*LOGICAL_BINARY)
def logical_binary(ex, frame, inst, mask):
    return LOGICAL_BINARY[inst.opname](ex.arg(frame, inst, 0), ex.arg(frame, inst, 1))


@OPS.op(*COMPARE)
def int_compare(ex, frame, inst, mask):
    fn, signed = COMPARE[inst.opname]
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    return fn(as_int(a, signed), as_int(b, signed))


@OPS.op(*FORD)
def ford_compare(ex, frame, inst, mask):
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    r = FORD[inst.opname](a, b)
    if inst.opname == "OpFOrdNotEqual":
        r &= ~(np.isnan(a) | np.isnan(b))
    return r


@OPS.op(*FUNORD)
def funord_compare(ex, frame, inst, mask):
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    return FUNORD[inst.opname](a, b) | np.isnan(a) | np.isnan(b)


def _divisor(ex, inst, frame, mask, signed: bool):
    t = ex.rtype(inst)
    a = as_int(to_type(ex.arg(frame, inst, 0), t), signed)
    b = as_int(to_type(ex.arg(frame, inst, 1), t), signed)
    zero = np.broadcast_to(b == 0, mask.shape if np.ndim(b) == 1 or b.shape[0] == mask.shape[0] else b.shape)
    bad = zero.any(axis=tuple(range(1, zero.ndim))) if zero.ndim > 1 else zero
    bad = np.broadcast_to(bad, mask.shape) & mask
    if bad.any():
        raise Fault("integer division by zero (undefined in SPIR-V)", np.flatnonzero(bad))
    b = np.where(b == 0, np.ones_like(b), b)
    return t, a, b


@OPS.op("OpUDiv")
def udiv(ex, frame, inst, mask):
    t, a, b = _divisor(ex, inst, frame, mask, False)
    return to_type(a // b, t)


@OPS.op("OpUMod")
def umod(ex, frame, inst, mask):
    t, a, b = _divisor(ex, inst, frame, mask, False)
    return to_type(a % b, t)


def _trunc_div(a, b):
    q = a // b
    fix = (a % b != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


@OPS.op("OpSDiv")
def sdiv(ex, frame, inst, mask):
    t, a, b = _divisor(ex, inst, frame, mask, True)
    return to_type(_trunc_div(a, b), t)


@OPS.op("OpSRem")
def srem(ex, frame, inst, mask):
    t, a, b = _divisor(ex, inst, frame, mask, True)
    return to_type(a - _trunc_div(a, b) * b, t)


@OPS.op("OpSMod")
def smod(ex, frame, inst, mask):
    t, a, b = _divisor(ex, inst, frame, mask, True)
    return to_type(a % b, t)


@OPS.op("OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic")
def shift(ex, frame, inst, mask):
    t = ex.rtype(inst)
    signed = inst.opname == "OpShiftRightArithmetic"
    a = as_int(to_type(ex.arg(frame, inst, 0), t), signed)
    raw = as_int(np.asarray(ex.arg(frame, inst, 1)), False)
    width = a.dtype.itemsize * 8
    over = raw >= width
    if over.ndim > 1:
        over = over.any(axis=tuple(range(1, over.ndim)))
    over = np.broadcast_to(over, mask.shape) & mask
    if over.any():
        lane = int(np.flatnonzero(over)[0])
        amount = int(np.broadcast_to(raw.reshape(raw.shape[0], -1).max(axis=1), mask.shape)[lane])
        raise Fault(f"shift by {amount} bits of a {width}-bit integer (undefined in SPIR-V)", np.flatnonzero(over))
    s = raw.astype(a.dtype)
    if inst.opname == "OpShiftLeftLogical":
        return to_type(np.left_shift(a, s), t)
    return to_type(np.right_shift(a, s), t)


@OPS.op("OpSNegate")
def snegate(ex, frame, inst, mask):
    return np.negative(to_type(ex.arg(frame, inst, 0), ex.rtype(inst)))


@OPS.op("OpFNegate")
def fnegate(ex, frame, inst, mask):
    if ex.float_model is not None:
        return ex.float_model.unary(ex.arg(frame, inst, 0), np.negative, ex.rtype(inst).dtype)
    return np.negative(ex.arg(frame, inst, 0))


@OPS.op("OpNot")
def bit_not(ex, frame, inst, mask):
    return np.invert(to_type(ex.arg(frame, inst, 0), ex.rtype(inst)))


@OPS.op("OpLogicalNot")
def logical_not(ex, frame, inst, mask):
    return np.logical_not(ex.arg(frame, inst, 0))


@OPS.op("OpIsNan")
def isnan(ex, frame, inst, mask):
    return np.isnan(ex.arg(frame, inst, 0))


@OPS.op("OpIsInf")
def isinf(ex, frame, inst, mask):
    return np.isinf(ex.arg(frame, inst, 0))


@OPS.op("OpAny")
def any_(ex, frame, inst, mask):
    return np.any(ex.arg(frame, inst, 0), axis=-1)


@OPS.op("OpAll")
def all_(ex, frame, inst, mask):
    return np.all(ex.arg(frame, inst, 0), axis=-1)


@OPS.op("OpSelect")
def select_op(ex, frame, inst, mask):
    from .values import select
    c = np.asarray(ex.arg(frame, inst, 0))
    a, b = ex.arg(frame, inst, 1), ex.arg(frame, inst, 2)
    if isinstance(a, np.ndarray) and c.ndim == 1 and np.asarray(a).ndim > 1:
        c = c.reshape((-1,) + (1,) * (a.ndim - 1))
    if isinstance(a, np.ndarray):
        return np.where(c, a, b)
    n = max(c.shape[0], mask.shape[0])
    return select(np.broadcast_to(c, (n,)), a, b)


@OPS.op("OpIAddCarry", "OpISubBorrow")
def add_carry(ex, frame, inst, mask):
    t = ex.rtype(inst).members[0]
    a = as_int(to_type(ex.arg(frame, inst, 0), t), False)
    b = as_int(to_type(ex.arg(frame, inst, 1), t), False)
    if inst.opname == "OpIAddCarry":
        r = a + b
        carry = (r < a).astype(a.dtype)
    else:
        r = a - b
        carry = (b > a).astype(a.dtype)
    return (to_type(r, t), to_type(carry, t))


@OPS.op("OpUMulExtended", "OpSMulExtended")
def mul_extended(ex, frame, inst, mask):
    t = ex.rtype(inst).members[0]
    signed = inst.opname == "OpSMulExtended"
    w = t.scalar.width
    a = as_int(to_type(ex.arg(frame, inst, 0), t), signed)
    b = as_int(to_type(ex.arg(frame, inst, 1), t), signed)
    if w <= 32:
        p = a.astype(np.int64 if signed else np.uint64) * b.astype(np.int64 if signed else np.uint64)
        lo = p.astype(np.uint64) & np.uint64((1 << w) - 1)
        hi = (p >> w).astype(np.uint64) & np.uint64((1 << w) - 1)
        return (to_type(lo.astype(f"u{w // 8}"), t), to_type(hi.astype(f"u{w // 8}"), t))
    flat_a, flat_b = np.broadcast_arrays(a, b)
    lo, hi = [], []
    for x, y in zip(flat_a.ravel().tolist(), flat_b.ravel().tolist(), strict=False):
        p = (x * y) & ((1 << 128) - 1)
        lo.append(p & ((1 << 64) - 1))
        hi.append(p >> 64)
    shape = flat_a.shape
    return (to_type(np.array(lo, np.uint64).reshape(shape), t), to_type(np.array(hi, np.uint64).reshape(shape), t))


@OPS.op("OpBitCount")
def bit_count(ex, frame, inst, mask):
    x = as_int(np.asarray(ex.arg(frame, inst, 0)), False)
    w = x.dtype.itemsize
    bytes_ = np.ascontiguousarray(x).view(np.uint8).reshape(x.shape + (w,))
    return to_type(np.unpackbits(bytes_, axis=-1).sum(axis=-1), ex.rtype(inst))


@OPS.op("OpBitReverse")
def bit_reverse(ex, frame, inst, mask):
    x = as_int(np.asarray(ex.arg(frame, inst, 0)), False)
    w = x.dtype.itemsize
    bits = np.unpackbits(np.ascontiguousarray(x).view(np.uint8).reshape(x.shape + (w,)), axis=-1,
                         bitorder="little")
    out = np.packbits(bits[..., ::-1], axis=-1, bitorder="little")
    return to_type(np.ascontiguousarray(out).view(x.dtype).reshape(x.shape), ex.rtype(inst))


@OPS.op("OpBitFieldInsert")
def bitfield_insert(ex, frame, inst, mask):
    t = ex.rtype(inst)
    base = as_int(to_type(ex.arg(frame, inst, 0), t), False)
    ins = as_int(to_type(ex.arg(frame, inst, 1), t), False)
    off = np.asarray(ex.arg(frame, inst, 2)).astype(np.uint64)
    cnt = np.asarray(ex.arg(frame, inst, 3)).astype(np.uint64)
    if base.ndim > 1:
        off, cnt = off[..., None] if off.ndim else off, cnt[..., None] if cnt.ndim else cnt
    m = ((np.uint64(1) << cnt) - np.uint64(1)) << off
    m = np.where(cnt >= 64, ~np.uint64(0), m).astype(base.dtype)
    return to_type((base & ~m) | ((ins << off.astype(base.dtype)) & m), t)


@OPS.op("OpBitFieldUExtract", "OpBitFieldSExtract")
def bitfield_extract(ex, frame, inst, mask):
    t = ex.rtype(inst)
    signed = inst.opname == "OpBitFieldSExtract"
    base = as_int(to_type(ex.arg(frame, inst, 0), t), False).astype(np.uint64)
    off = np.asarray(ex.arg(frame, inst, 1)).astype(np.uint64)
    cnt = np.asarray(ex.arg(frame, inst, 2)).astype(np.uint64)
    if base.ndim > 1:
        off, cnt = off[..., None], cnt[..., None]
    field = (base >> off) & ((np.uint64(1) << cnt) - np.uint64(1))
    if signed:
        sign = (field >> np.maximum(cnt, np.uint64(1)) - np.uint64(1)) & np.uint64(1)
        ext = np.where((sign == 1) & (cnt > 0), ~((np.uint64(1) << cnt) - np.uint64(1)), np.uint64(0))
        field = field | ext
    w = t.scalar.width
    return to_type((field & np.uint64((1 << w) - 1)).astype(f"u{w // 8}"), t)


@OPS.op("OpDot")
def dot(ex, frame, inst, mask):
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    dt = ex.rtype(inst).dtype
    if is_encoded(dt):  # bf16 (BFloat16DotProductKHR): computed as binary32, the result rounded once
        return convert(np.sum(a.astype(np.float32) * b.astype(np.float32), axis=-1, dtype=np.float32), dt)
    fm = ex.float_model
    if fm is not None:
        return fm.dot(a, b, dt, getattr(fm, "dot_repeats", {}).get(inst.result_id, frozenset()))
    return np.sum(a * b, axis=-1).astype(dt)


@OPS.op("OpVectorTimesScalar", "OpMatrixTimesScalar")
def times_scalar(ex, frame, inst, mask):
    a, s = ex.arg(frame, inst, 0), np.asarray(ex.arg(frame, inst, 1))
    fm = ex.float_model
    if fm is not None:
        return fm.unary(a, lambda x: x * fm.flush(s).reshape(s.shape + (1,) * (a.ndim - 1)), a.dtype)
    return (a * s.reshape(s.shape + (1,) * (a.ndim - 1))).astype(a.dtype)


@OPS.op("OpMatrixTimesVector")
def mat_times_vec(ex, frame, inst, mask):
    m, v = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)  # m: (N, C, R), v: (N, C)
    return (v[:, None, :] @ m)[:, 0, :].astype(m.dtype)


@OPS.op("OpVectorTimesMatrix")
def vec_times_mat(ex, frame, inst, mask):
    v, m = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)  # result[c] = dot(v, column c)
    return (m @ v[:, :, None])[:, :, 0].astype(m.dtype)


@OPS.op("OpMatrixTimesMatrix")
def mat_times_mat(ex, frame, inst, mask):
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)
    # column-major storage: (N, C, R) holds M^T; (A B)^T = B^T A^T
    return (b @ a).astype(a.dtype)


@OPS.op("OpOuterProduct")
def outer(ex, frame, inst, mask):
    a, b = ex.arg(frame, inst, 0), ex.arg(frame, inst, 1)  # result column j = a * b[j]
    return (b[:, :, None] * a[:, None, :]).astype(a.dtype)


@OPS.op("OpTranspose")
def transpose(ex, frame, inst, mask):
    return np.swapaxes(ex.arg(frame, inst, 0), 1, 2).copy()

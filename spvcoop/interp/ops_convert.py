"""Conversions and bitcasts (numeric and pointer <-> integer)."""
from __future__ import annotations

import numpy as np

from .encodings import SATURATE, convert, is_encoded
from .fault import Fault
from .memory import Pointer
from .ops_arith import as_int, to_type
from .dispatch import OpSet

OPS = OpSet()


def _f2i(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    info = np.iinfo(dt)
    x = np.trunc(np.asarray(x, dtype=np.float64))
    x = np.where(np.isnan(x), 0, np.clip(x, info.min, info.max))
    return x.astype(dt)


@OPS.op("OpConvertFToU")
def f_to_u(ex, frame, inst, mask):
    t = ex.rtype(inst)
    return to_type(_f2i(ex.arg(frame, inst, 0), np.dtype(f"u{t.scalar.width // 8}")), t)


@OPS.op("OpConvertFToS")
def f_to_s(ex, frame, inst, mask):
    t = ex.rtype(inst)
    return to_type(_f2i(ex.arg(frame, inst, 0), np.dtype(f"i{t.scalar.width // 8}")), t)


def saturating(ex, inst) -> bool:
    """A conversion to FP8 decorated SaturatedToLargestFloat8NormalConversionEXT (SPV_EXT_float8)."""
    return SATURATE in ex.prog.decorations.get(inst.result_id, {})


def bf16_truncates(coop_numerics) -> bool:
    """Whether f32 -> bf16 keeps the upper half (the numerics model's bf16_convert) instead of rounding."""
    from ..numerics.model import NVIDIA_TENSORCORE, MulAddModel
    model = NVIDIA_TENSORCORE if coop_numerics == "nvidia-tensorcore" else coop_numerics
    return isinstance(model, MulAddModel) and model.bf16_convert == "truncate"


def to_float(ex, inst, x) -> np.ndarray:
    """x converted to the result's float type (bf16 through f32, FP8 with its overflow rules)."""
    dt = ex.rtype(inst).dtype
    if is_encoded(dt) or is_encoded(np.asarray(x).dtype):
        # the H100 narrows to bf16 toward zero (tests/data/h100-vulkan/bf16): the model's bf16_convert
        return convert(x, dt, saturating(ex, inst), bf16_truncates(ex.config.coop_numerics))
    return np.asarray(x).astype(dt)


@OPS.op("OpConvertSToF")
def s_to_f(ex, frame, inst, mask):
    return to_float(ex, inst, as_int(ex.arg(frame, inst, 0), True))


@OPS.op("OpConvertUToF")
def u_to_f(ex, frame, inst, mask):
    return to_float(ex, inst, as_int(ex.arg(frame, inst, 0), False))


@OPS.op("OpUConvert")
def u_convert(ex, frame, inst, mask):
    t = ex.rtype(inst)
    return to_type(as_int(ex.arg(frame, inst, 0), False).astype(f"u{t.scalar.width // 8}"), t)


@OPS.op("OpSConvert")
def s_convert(ex, frame, inst, mask):
    t = ex.rtype(inst)
    return to_type(as_int(ex.arg(frame, inst, 0), True).astype(f"i{t.scalar.width // 8}"), t)


@OPS.op("OpFConvert")
def f_convert(ex, frame, inst, mask):
    x = ex.arg(frame, inst, 0)
    r = to_float(ex, inst, x)
    fm = ex.float_model
    if fm is not None and np.float16 in (np.asarray(x).dtype, r.dtype):
        # the H100 gives a NaN converted to or from f16 one pattern (f32 <-> f16 measured in
        # tests/data/h100-vulkan/float-model, bf16 <-> f16 in bf16/); f32 <-> bf16 keeps the bits
        if r.dtype in (np.float32, np.float16):
            return fm.finish(r, r.dtype)
        pattern = fm.nans.get(np.dtype(np.float16))
        if pattern is not None and r.dtype.itemsize == 2:   # bf16 (0x7fff is a bf16 NaN too)
            nan = np.isnan(r.astype(np.float32))
            if nan.any():
                u = np.ascontiguousarray(r).view(np.uint16).copy()
                u[nan] = pattern
                return u.view(r.dtype)
    return r


@OPS.op("OpQuantizeToF16")
def quantize(ex, frame, inst, mask):
    x = np.asarray(ex.arg(frame, inst, 0))
    return x.astype(np.float16).astype(x.dtype)


@OPS.op("OpBitcast")
def bitcast(ex, frame, inst, mask):
    t = ex.rtype(inst)
    x = ex.arg(frame, inst, 0)
    if t.kind == "pointer":
        if isinstance(x, Pointer):
            return Pointer(x.mem, x.off, t.elem, x.base)
        return convert_u_to_ptr(ex, x, t)
    if isinstance(x, Pointer):
        x = np.asarray(x.off).astype(np.uint64)
    x = np.ascontiguousarray(x)
    if x.ndim == 1:
        x = x[:, None]
    out = x.view(t.dtype)
    return out if t.kind == "vector" else out.reshape(out.shape[0])


def convert_u_to_ptr(ex, x, t) -> Pointer:
    addr = np.asarray(x).astype(np.uint64)
    if addr.ndim > 1:  # uvec2
        addr = addr[:, 0] | (addr[:, 1] << np.uint64(32))
    return Pointer(ex.device, addr.astype(np.int64), t.elem, 0)


@OPS.op("OpConvertUToPtr")
def u_to_ptr(ex, frame, inst, mask):
    return convert_u_to_ptr(ex, ex.arg(frame, inst, 0), ex.rtype(inst))


@OPS.op("OpConvertPtrToU")
def ptr_to_u(ex, frame, inst, mask):
    p = ex.arg(frame, inst, 0)
    if not isinstance(p.mem, type(ex.device)):
        raise Fault(f"pointer into {p.mem.storage} storage has no address")
    return to_type(np.asarray(p.off).astype(np.uint64), ex.rtype(inst))

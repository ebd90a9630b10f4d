"""GLSL.std.450 extended instructions, one numpy expression each: all of the extended set except
InterpolateAtCentroid/Sample/Offset, which read Fragment-shader Input variables (spirv-val refuses them in the
GLCompute shaders spvcoop runs)."""
from __future__ import annotations

from typing import cast

import numpy as np

from .ops_arith import as_int, to_type
from .dispatch import OpSet
from .compiled_floats import fma as exact_fma
from .fault import Fault
from .memory import Memory, Pointer, store

OPS = OpSet()

SET = "GLSL.std.450"


def _rt(ex, inst):
    return ex.rtype(inst)


def _unary(fn, name: str):
    raw = name in RAW_OPERAND

    def run(ex, inst, args, mask):
        fm = ex.float_model
        if fm is not None:   # a GPU's float rules (compiled_floats.CodeFloats): flushed operands, results
            dt = _rt(ex, inst).dtype
            x = np.asarray(args[0])
            if raw:
                with np.errstate(all="ignore"):
                    r = np.asarray(fn(x) if name != "Fract" else fm.flush(x) - np.floor(x)).astype(dt, copy=False)
                return fm.finish(r, dt)
            r = fm.glsl(name, x, dt)
            if r is None:
                with np.errstate(all="ignore"):
                    r = np.asarray(fn(fm.flush(x))).astype(dt, copy=False)
            return fm.finish(r, dt)
        return np.asarray(fn(np.asarray(args[0]))).astype(_rt(ex, inst).dtype, copy=False)
    return run


UNARY_FLOAT = {
    "Round": lambda x: np.where(np.abs(x - np.trunc(x)) == 0.5, np.trunc(x) + np.sign(x), np.round(x)),
    "RoundEven": np.rint, "Trunc": np.trunc, "FAbs": np.abs, "FSign": np.sign, "Floor": np.floor,
    "Ceil": np.ceil, "Fract": lambda x: x - np.floor(x), "Radians": np.radians, "Degrees": np.degrees,
    "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan,
    "Sinh": np.sinh, "Cosh": np.cosh, "Tanh": np.tanh, "Asinh": np.arcsinh, "Acosh": np.arccosh,
    "Atanh": np.arctanh, "Exp": np.exp, "Log": np.log, "Exp2": np.exp2, "Log2": np.log2, "Sqrt": np.sqrt,
    "InverseSqrt": lambda x: 1 / np.sqrt(x),
}
# under a GPU's float rules every one flushes its operand and result and gives NaN results the model's pattern, but
# these, which read the operand unflushed (the H200: floor(-subnormal) = -1; fract(x) = x - floor(x), x flushed in
# the subtraction, no clamp below 1)
RAW_OPERAND = frozenset(("Floor", "Ceil", "Fract"))
for _name, _fn in UNARY_FLOAT.items():
    OPS.ext_op(SET, _name)(_unary(_fn, _name))


@OPS.ext_op(SET, "SAbs")
def sabs(ex, inst, args, mask):
    return to_type(np.abs(as_int(args[0], True)), _rt(ex, inst))


@OPS.ext_op(SET, "SSign")
def ssign(ex, inst, args, mask):
    return to_type(np.sign(as_int(args[0], True)), _rt(ex, inst))


BINARY = {
    "Atan2": (np.arctan2, None), "Pow": (np.power, None), "FMin": (np.fmin, None), "FMax": (np.fmax, None),
    "NMin": (np.fmin, None), "NMax": (np.fmax, None), "UMin": (np.minimum, False), "SMin": (np.minimum, True),
    "UMax": (np.maximum, False), "SMax": (np.maximum, True),
    # GLSL: 0.0 if x < edge, otherwise 1.0 (a NaN operand gives 1.0, as on the H200)
    "Step": (lambda e, x: np.where(x < e, 0, 1).astype(x.dtype), None),
}


def _binary(fn, signed):
    def run(ex, inst, args, mask):
        a, b = np.asarray(args[0]), np.asarray(args[1])
        if ex.float_model is not None and fn in (np.fmax, np.fmin) and a.dtype.kind == "f":
            return to_type(ex.float_model.fmax_fmin(a, b, fn is np.fmax), _rt(ex, inst))
        fm = ex.float_model
        if fn is np.arctan2 and fm is not None and fm.functions and a.dtype in (np.float32, np.float16):
            from ..numerics.functions import atan2_f16, atan2_f32   # the driver's own (numpy tables: loaded when used)
            return fm.finish((atan2_f32 if a.dtype == np.float32 else atan2_f16)(fm.flush(a), fm.flush(b)), a.dtype)
        if fm is not None and a.dtype in (np.float32, np.float16) and fn is not np.power:
            # Step, Atan2 under a GPU's float rules: flushed operands, the result finished
            with np.errstate(all="ignore"):
                r = np.asarray(fn(fm.flush(a), fm.flush(b))).astype(a.dtype)
            return fm.finish(r, a.dtype)
        if fn is np.power and fm is not None and fm.functions and a.dtype in (np.float32, np.float16):
            # exp2(y * log2(x)) through the special-function unit (f32; f16 with its f16 tables, not reproduced)
            from ..numerics.functions import pow_h100
            return fm.finish(pow_h100(fm.flush(a), fm.flush(b), fm.flush), a.dtype)
        if signed is not None:
            a, b = as_int(a, signed), as_int(b, signed)
        return to_type(np.asarray(fn(a, b)), _rt(ex, inst))
    return run


for _name, (_fn, _s) in BINARY.items():
    OPS.ext_op(SET, _name)(_binary(_fn, _s))


@OPS.ext_op(SET, "FClamp", "NClamp", "UClamp", "SClamp")
def clamp(ex, inst, args, mask):
    which = _ext_name(inst)
    x, lo, hi = map(np.asarray, args)
    if which in ("UClamp", "SClamp"):
        s = which == "SClamp"
        x, lo, hi = as_int(x, s), as_int(lo, s), as_int(hi, s)
        return to_type(np.minimum(np.maximum(x, lo), hi), _rt(ex, inst))
    fm = ex.float_model
    if fm is not None and x.dtype in (np.float32, np.float16):   # min(max(x, lo), hi) with the GPU's max / min
        return fm.fmax_fmin(fm.fmax_fmin(x, lo, True), hi, False)
    return np.fmin(np.fmax(x, lo), hi).astype(_rt(ex, inst).dtype)


def _ext_name(inst) -> str:
    from ..core.spirv_grammar import ExtInstSet, load
    ext = cast(ExtInstSet, load().ext_set(SET))   # the grammar always has GLSL.std.450
    return ext.by_opcode[inst.operands[1].value].opname


@OPS.ext_op(SET, "FMix")
def fmix(ex, inst, args, mask):
    x, y, a = map(np.asarray, args)
    dt = _rt(ex, inst).dtype
    fm = ex.float_model
    if fm is not None and getattr(fm, "contract", False) and dt in (np.float32, np.float16):
        # the H100: fma(y - x, a, x), the difference rounded (measured, f32 and f16)
        x, y, a = fm.flush(x), fm.flush(y), fm.flush(a)
        with np.errstate(all="ignore"):
            d = fm.flush((y - x).astype(dt))
        return fm.finish(exact_fma(d, a, x, dt), dt)
    return (x * (1 - a) + y * a).astype(dt)


@OPS.ext_op(SET, "SmoothStep")
def smoothstep(ex, inst, args, mask):
    e0, e1, x = map(np.asarray, args)
    dt = _rt(ex, inst).dtype
    fm = ex.float_model
    if fm is not None and fm.functions and dt in (np.float32, np.float16):
        # the H100: t = saturate((x - e0) * rcp(e1 - e0)) (a NaN saturates to 0), then (t * t) * (3 - 2 t), each
        # step rounded (f32 measured bit for bit); f16 computes 3 - 2 t as (3 - t) - t (the driver's code, read:
        # tests/data/h100-vulkan/float-model README, "Seventh run")
        from ..numerics.functions import divide
        e0, e1, x = fm.flush(e0), fm.flush(e1), fm.flush(x)
        with np.errstate(all="ignore"):
            q = fm.flush(divide(fm.flush((x - e0).astype(dt)), fm.flush((e1 - e0).astype(dt)), dt))
            t = np.where(np.isnan(q), dt.type(0), np.clip(q, 0, 1)).astype(dt)
            if dt == np.float16:
                u = ((dt.type(3) - t).astype(dt) - t).astype(dt)
            else:
                u = fm.flush((dt.type(3) - fm.flush((dt.type(2) * t).astype(dt))).astype(dt))
            return fm.finish((fm.flush((t * t).astype(dt)) * u).astype(dt), dt)
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return (t * t * (3 - 2 * t)).astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "Fma")
def fma(ex, inst, args, mask):
    a, b, c = map(np.asarray, args)
    dt = _rt(ex, inst).dtype
    fm = ex.float_model
    if fm is not None:
        a, b, c = fm.flush(a), fm.flush(b), fm.flush(c)
    if dt in (np.float32, np.float16):   # one rounding, exactly (a float64 sum then a cast would round twice)
        r = exact_fma(a, b, c, dt)
        return r if fm is None else fm.finish(r, dt)
    wide = np.float64 if dt != np.float64 else np.longdouble
    return (a.astype(wide) * b.astype(wide) + c.astype(wide)).astype(dt)


def _flushed(ex, x: np.ndarray) -> np.ndarray:
    """x flushed under a GPU's float rules (f32 / f16), else x."""
    fm = ex.float_model
    return fm.flush(x) if fm is not None and x.dtype in (np.float32, np.float16) else x


def _finished(ex, r: np.ndarray) -> np.ndarray:
    """A float result flushed and given the NaN pattern under a GPU's float rules, else r."""
    fm = ex.float_model
    return fm.finish(r, r.dtype) if fm is not None and r.dtype in (np.float32, np.float16) else r


@OPS.ext_op(SET, "Ldexp")
def ldexp(ex, inst, args, mask):
    with np.errstate(all="ignore"):
        r = np.ldexp(_flushed(ex, np.asarray(args[0])), as_int(args[1], True).astype(np.int32))
    return _finished(ex, r.astype(_rt(ex, inst).dtype))


@OPS.ext_op(SET, "FrexpStruct")
def frexp_struct(ex, inst, args, mask):
    t = _rt(ex, inst)
    m, e = np.frexp(_flushed(ex, np.asarray(args[0])))
    return (_finished(ex, m.astype(t.members[0].dtype)), to_type(e.astype(np.int32), t.members[1]))


def _store_out(ptr, value, mask) -> None:
    """Modf's whole part, Frexp's exponent: written through the pointer operand (a Function variable held in
    memory: program._promotable keeps it out of the registers, as it is not only loaded and stored)."""
    if not isinstance(ptr, Pointer):
        raise Fault("the last operand is not a pointer")
    store(ptr, ptr.type, value, mask)
    written = getattr(ptr.mem, "written", None)   # a Memory's flags (a DeviceMemory has none)
    if written is not None:
        copy = np.broadcast_to(np.asarray(ptr.base) // cast(Memory, ptr.mem).region, mask.shape)
        written[copy[mask]] = True


@OPS.ext_op(SET, "Modf")
def modf(ex, inst, args, mask):
    f, i = np.modf(_flushed(ex, np.asarray(args[0])))
    _store_out(args[1], _finished(ex, i), mask)
    return _finished(ex, f)


@OPS.ext_op(SET, "Frexp")
def frexp(ex, inst, args, mask):
    m, e = np.frexp(_flushed(ex, np.asarray(args[0])))
    ptr = args[1]
    _store_out(ptr, to_type(e.astype(np.int32), ptr.type) if isinstance(ptr, Pointer) else e, mask)
    return _finished(ex, m.astype(_rt(ex, inst).dtype))


@OPS.ext_op(SET, "IMix")
def imix(ex, inst, args, mask):
    """Removed from GLSL.std.450 (no front end emits it); executed as x + (y - x) * a, wrapping."""
    x, y, a = (as_int(np.asarray(v), True).astype(np.int64) for v in args)
    return to_type(x + (y - x) * a, _rt(ex, inst))


@OPS.ext_op(SET, "PackDouble2x32")
def pack_double(ex, inst, args, mask):
    v = as_int(np.asarray(args[0]), False).astype(np.uint64)
    return (v[:, 0] | (v[:, 1] << np.uint64(32))).view(np.float64)


@OPS.ext_op(SET, "UnpackDouble2x32")
def unpack_double(ex, inst, args, mask):
    u = np.ascontiguousarray(np.asarray(args[0]).astype(np.float64)).view(np.uint64)
    return to_type(np.stack([u & np.uint64(0xFFFFFFFF), u >> np.uint64(32)], axis=1), _rt(ex, inst))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per invocation dot product, kept as a column for vectors ((n, 1)); scalars multiply."""
    return np.sum(a * b, axis=-1, keepdims=True) if a.ndim > 1 else a * b


def _contracting(ex, x: np.ndarray):
    """The run's float rules when they contract (the H100's compiler) and x is an f32 / f16 vector, else None."""
    fm = _code_model(ex, x)
    return fm if fm is not None and getattr(fm, "contract", False) else None


def _fms(fm, a, b, c, d, dt):
    """a * b - c * d as the H100 compiles it: the first product fused, fma(a, b, -(c * d)) (measured: cross,
    determinant)."""
    with np.errstate(all="ignore"):
        return fm.flush(exact_fma(fm.flush(a), fm.flush(b), -fm.flush((fm.flush(c) * fm.flush(d)).astype(dt)), dt))


@OPS.ext_op(SET, "FaceForward")
def face_forward(ex, inst, args, mask):
    n, i, nref = map(np.asarray, args)
    fm = _contracting(ex, n)
    if fm is not None:   # the GPU's dot; -N flips the sign bit in f32 (nothing flushed), f16 negates (NaN pattern)
        dt = n.dtype
        d = fm.dot(nref, i, dt)[..., None]
        neg = fm.finish(-n, dt) if dt == np.float16 else -n
        return np.where(d < 0, n, neg).astype(dt)
    return np.where(_dot(nref, i) < 0, n, -n).astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "Refract")
def refract(ex, inst, args, mask):
    i, n, eta = map(np.asarray, args)
    eta = eta.reshape(-1, 1) if i.ndim > 1 else eta
    fm = _contracting(ex, i)
    if fm is not None:   # the driver's code for a constant eta (read: docs/interpreter-coopmat.md)
        dt = i.dtype
        i, n, eta = fm.flush(i), fm.flush(n), fm.flush(eta)
        with np.errstate(all="ignore"):
            d = fm.dot(n, i, dt)[..., None]
            # k = 1 - eta^2 (1 - d^2) as fma(d * d, eta^2, 1 - eta^2), the two constants folded
            e2 = fm.flush((eta * eta).astype(dt))
            k = fm.flush(exact_fma(fm.flush((d * d).astype(dt)), e2, fm.flush((dt.type(1) - e2).astype(dt)), dt))
            s = fm.glsl("Sqrt", k, dt)
            s = fm.flush(np.sqrt(k).astype(dt) if s is None else s)
            u = fm.flush(exact_fma(eta, d, s, dt))
            r = exact_fma(eta, i, -fm.flush((u * n).astype(dt)), dt)
            return fm.finish(np.where(k < 0, dt.type(0), r).astype(dt), dt)
    d = _dot(n, i)
    k = 1 - eta * eta * (1 - d * d)
    r = np.where(k < 0, 0, eta * i - (eta * d + np.sqrt(np.maximum(k, 0))) * n)
    return r.astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "ModfStruct")
def modf_struct(ex, inst, args, mask):
    f, i = np.modf(_flushed(ex, np.asarray(args[0])))
    return (_finished(ex, f), _finished(ex, i))


def _device_length(ex, inst, x: np.ndarray, fm) -> np.ndarray:
    """sqrt(dot(x, x)) under a GPU's float rules (the H100: its dot, then its sqrt; measured for 2 and 3
    components)."""
    dt = _rt(ex, inst).dtype
    d = fm.dot(x, x, dt)
    r = fm.glsl("Sqrt", d, dt)
    if r is None:
        with np.errstate(all="ignore"):
            r = np.sqrt(d).astype(dt)
    return fm.finish(r, dt)


def _code_model(ex, x: np.ndarray):
    """The run's CodeFloats when x is an f32 / f16 vector it applies to, else None."""
    fm = ex.float_model
    return fm if fm is not None and x.ndim > 1 and x.dtype in (np.float32, np.float16) else None


@OPS.ext_op(SET, "Length")
def length(ex, inst, args, mask):
    x = np.asarray(args[0])
    fm = _code_model(ex, x)
    if fm is not None:
        return _device_length(ex, inst, x, fm)
    r = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=-1)) if x.ndim > 1 else np.abs(x)
    return r.astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "Distance")
def distance(ex, inst, args, mask):
    d = np.asarray(args[0]) - np.asarray(args[1])
    fm = _code_model(ex, d)
    if fm is not None:   # length(a - b), the difference flushed (measured for 2 components)
        a, b = fm.flush(np.asarray(args[0])), fm.flush(np.asarray(args[1]))
        with np.errstate(all="ignore"):
            return _device_length(ex, inst, fm.flush((a - b).astype(a.dtype)), fm)
    r = np.sqrt(np.sum(d.astype(np.float64) ** 2, axis=-1)) if d.ndim > 1 else np.abs(d)
    return r.astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "Normalize")
def normalize(ex, inst, args, mask):
    x = np.asarray(args[0])
    if x.ndim == 1:
        return np.sign(x).astype(x.dtype)
    fm = _code_model(ex, x)
    if fm is not None:   # x * inversesqrt(dot(x, x)) (measured for 2 components)
        d = fm.dot(x, x, x.dtype)
        r = fm.glsl("InverseSqrt", d, x.dtype)
        if r is None:
            with np.errstate(all="ignore"):
                r = (1 / np.sqrt(d)).astype(x.dtype)
        r = fm.finish(r, x.dtype)
        return fm.unary(x, lambda v: v * r[..., None], x.dtype)
    return (x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True))).astype(x.dtype)


@OPS.ext_op(SET, "Cross")
def cross(ex, inst, args, mask):
    a, b = np.asarray(args[0]), np.asarray(args[1])
    fm = _contracting(ex, a)
    if fm is not None:   # each component a * b - c * d with the first product fused (x and z measured)
        dt = a.dtype
        r = np.stack([_fms(fm, a[..., j], b[..., k], a[..., k], b[..., j], dt) for j, k in ((1, 2), (2, 0), (0, 1))],
                     axis=-1)
        return fm.finish(r, dt)
    return np.cross(a, b).astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "Reflect")
def reflect(ex, inst, args, mask):
    i, n = map(np.asarray, args)
    fm = _contracting(ex, i)
    if fm is not None:   # I - 2 dot(N, I) N = fma(-(2 dot), N, I) with the GPU's dot (measured)
        dt = i.dtype
        i, n = fm.flush(i), fm.flush(n)
        with np.errstate(all="ignore"):
            t = fm.flush((dt.type(2) * fm.dot(n, i, dt)).astype(dt))[..., None]
            return fm.finish(exact_fma(-t, n, i, dt), dt)
    d = np.sum(i * n, axis=-1, keepdims=True) if i.ndim > 1 else i * n
    return (i - 2 * d * n).astype(i.dtype)


@OPS.ext_op(SET, "FindILsb")
def find_lsb(ex, inst, args, mask):
    x = as_int(np.asarray(args[0]), False).astype(np.uint64)
    low = x & (~x + np.uint64(1))
    r = np.where(x == 0, -1, np.log2(np.maximum(low, 1).astype(np.float64)).astype(np.int64))
    return to_type(r.astype(np.int32), _rt(ex, inst))


@OPS.ext_op(SET, "FindUMsb", "FindSMsb")
def find_msb(ex, inst, args, mask):
    which = _ext_name(inst)
    x = np.asarray(args[0])
    w = x.dtype.itemsize * 8
    if which == "FindSMsb":
        s = as_int(x, True).astype(np.int64)
        s = np.where(s < 0, ~s, s)
        u = s.astype(np.uint64)
    else:
        u = as_int(x, False).astype(np.uint64)
    r = np.full(u.shape, -1, np.int64)
    for b in range(w):
        r = np.where((u >> np.uint64(b)) & np.uint64(1), b, r)
    return to_type(r.astype(np.int32), _rt(ex, inst))


@OPS.ext_op(SET, "PackHalf2x16")
def pack_half(ex, inst, args, mask):
    with np.errstate(all="ignore"):
        h = np.asarray(args[0]).astype(np.float16)
    fm = ex.float_model
    if fm is not None:   # an f32 -> f16 conversion: its NaN pattern (0x7fff on the H200)
        h = fm.finish(h, h.dtype)
    v = np.ascontiguousarray(h).view(np.uint16).astype(np.uint32)
    return (v[:, 0] | (v[:, 1] << np.uint32(16))).astype(np.uint32)


@OPS.ext_op(SET, "UnpackHalf2x16")
def unpack_half(ex, inst, args, mask):
    u = as_int(np.asarray(args[0]), False).astype(np.uint32)
    lo = (u & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16)
    hi = (u >> np.uint32(16)).astype(np.uint16).view(np.float16)
    return _finished(ex, np.stack([lo, hi], axis=1).astype(np.float32))   # NaN: the f16 -> f32 pattern


def _pack(n: int, signed: bool):
    def run(ex, inst, args, mask):
        v = np.asarray(args[0]).astype(np.float64)
        scale = (127 if n == 4 else 32767) if signed else (255 if n == 4 else 65535)
        if ex.float_model is not None and getattr(ex.float_model, "functions", False):
            # the H200: the clamp, then one f32 multiply rounded to nearest even; a NaN component is 0 (unorm:
            # saturated) or 1 (snorm: min(NaN, 1) = 1, then max)
            f = np.asarray(args[0]).astype(np.float32)
            c = np.fmax(np.fmin(f, np.float32(1)), np.float32(-1)) if signed else \
                np.where(np.isnan(f), np.float32(0), np.clip(f, 0, 1))
            q = np.rint((c * np.float32(scale)).astype(np.float32)).astype(np.int64)
        elif signed:
            q = np.round(np.clip(v, -1, 1) * scale).astype(np.int64)
        else:
            q = np.round(np.clip(v, 0, 1) * scale).astype(np.int64)
        bits = 32 // n
        q = q & ((1 << bits) - 1)
        r = np.zeros(q.shape[0], np.int64)
        for i in range(n):
            r |= q[:, i] << (bits * i)
        return r.astype(np.uint32)
    return run


OPS.ext_op(SET, "PackUnorm4x8")(_pack(4, False))
OPS.ext_op(SET, "PackSnorm4x8")(_pack(4, True))
OPS.ext_op(SET, "PackUnorm2x16")(_pack(2, False))
OPS.ext_op(SET, "PackSnorm2x16")(_pack(2, True))


def _unpack(n: int, signed: bool):
    def run(ex, inst, args, mask):
        u = as_int(np.asarray(args[0]), False).astype(np.int64)
        bits = 32 // n
        # the H200: q times the f32 constant 1 / scale (one f32 multiply), not q / scale
        device = ex.float_model is not None and getattr(ex.float_model, "functions", False)
        parts = []
        for i in range(n):
            q = (u >> (bits * i)) & ((1 << bits) - 1)
            scale = ((1 << (bits - 1)) - 1) if signed else ((1 << bits) - 1)
            if signed:
                q = np.where(q >= 1 << (bits - 1), q - (1 << bits), q)
            v = (q.astype(np.float32) * np.float32(1 / scale)).astype(np.float32) if device else q / scale
            parts.append(np.maximum(v, -1) if signed else v)
        return np.stack(parts, axis=1).astype(np.float32)
    return run


OPS.ext_op(SET, "UnpackUnorm4x8")(_unpack(4, False))
OPS.ext_op(SET, "UnpackSnorm4x8")(_unpack(4, True))
OPS.ext_op(SET, "UnpackUnorm2x16")(_unpack(2, False))
OPS.ext_op(SET, "UnpackSnorm2x16")(_unpack(2, True))


def _contracting_matrix(ex, m: np.ndarray):
    """The run's contracting float rules for a 2x2, 3x3 or 4x4 f32 / f16 matrix ((k, n, n), columns first), else
    None."""
    fm = ex.float_model
    ok = fm is not None and getattr(fm, "contract", False) and m.dtype in (np.float32, np.float16)
    return fm if ok and m.shape[-1] in (2, 3, 4) and m.shape[-1] == m.shape[-2] else None


def _det2(fm, m: np.ndarray) -> np.ndarray:
    """m00 m11 - m10 m01 with the first product fused (the H200, mat2)."""
    return _fms(fm, m[..., 0, 0], m[..., 1, 1], m[..., 1, 0], m[..., 0, 1], m.dtype)


def _minor(m: np.ndarray, c: int, r: int) -> np.ndarray:
    """m without column c and row r."""
    keep_c = [k for k in range(m.shape[-1]) if k != c]
    keep_r = [k for k in range(m.shape[-1]) if k != r]
    return m[..., keep_c, :][..., keep_r]


def _minor2(fm, m: np.ndarray, fuse: int | None) -> np.ndarray:
    """A 2x2 determinant m00 m11 - m10 m01 with the first product fused (0), the second (1) or none (None)."""
    dt = m.dtype
    p, q, r, s = (fm.flush(v) for v in (m[..., 0, 0], m[..., 1, 1], m[..., 1, 0], m[..., 0, 1]))
    with np.errstate(all="ignore"):
        if fuse == 0:
            return _fms(fm, p, q, r, s, dt)
        if fuse == 1:
            return fm.flush(exact_fma(-r, s, fm.flush((p * q).astype(dt)), dt))
        return fm.flush((fm.flush((p * q).astype(dt)) - fm.flush((r * s).astype(dt))).astype(dt))


def _expand(fm, m: np.ndarray, cofactors: list[np.ndarray]) -> np.ndarray:
    """sum_j m[0][j] * cofactor_j as the GPU's dot: the second product rounded, then fma of the first, then of the
    others in order (the H200's 3x3 and 4x4 determinants)."""
    dt = m.dtype
    col = fm.flush(m[..., 0, :])
    with np.errstate(all="ignore"):
        r = fm.flush((col[..., 1] * cofactors[1]).astype(dt))
        for j in (0, *range(2, len(cofactors))):
            r = fm.flush(exact_fma(col[..., j], cofactors[j], r, dt))
    return r


# which product of the middle 2x2 minor of a Determinant of a 3x3 fuses (the first and last: the first)
_DET3_MIDDLE = {np.dtype(np.float32): 1, np.dtype(np.float16): None}


def _det3(fm, m: np.ndarray, middle: int | None = 0) -> np.ndarray:
    """A 3x3 determinant expanded along column 0: cofactor j the 2x2 minor (first product fused; the middle one's
    fusion `middle`), negated for odd j, summed as _expand."""
    return _expand(fm, m, [(-1) ** j * _minor2(fm, _minor(m, 0, j), 0 if j != 1 else middle) for j in range(3)])


def _det(fm, m: np.ndarray) -> np.ndarray:
    """GLSL determinant as the H200 computes it (measured bit for bit: tests/data/h100-vulkan/float-model det.npz,
    funcs.npz): 2x2 _det2; 3x3 _det3 (the middle minor's second product fused in f32, none in f16); 4x4 expanded
    along column 0 with 3x3 cofactors _det3 (every minor's first product fused), summed as _expand in f32 and as
    two fused pairs added in f16."""
    n = m.shape[-1]
    if n == 2:
        return _det2(fm, m)
    if n == 3:
        return _det3(fm, m, _DET3_MIDDLE[m.dtype])
    cof = [(-1) ** j * _det3(fm, _minor(m, 0, j)) for j in range(4)]
    if m.dtype != np.float16:
        return _expand(fm, m, cof)
    # f16: two halves added, fma(m03, c3, m00 c0) + fma(m02, c2, m01 c1) (packed f16 pairs, it seems)
    dt = m.dtype
    col = fm.flush(m[..., 0, :])
    with np.errstate(all="ignore"):
        a = fm.flush(exact_fma(col[..., 3], cof[3], fm.flush((col[..., 0] * cof[0]).astype(dt)), dt))
        b = fm.flush(exact_fma(col[..., 2], cof[2], fm.flush((col[..., 1] * cof[1]).astype(dt)), dt))
        return fm.flush((a + b).astype(dt))


def _adjugate_device(fm, m: np.ndarray) -> np.ndarray:
    """The adjugate (entry [c][r] the cofactor of column r, row c) as the H200's inverse computes it: 2x2 the
    entries; 3x3 the 2x2 minors with the first product fused, the odd ones' second (negated); 4x4 the 3x3
    cofactors as in the determinant."""
    n = m.shape[-1]
    if n == 2:
        return np.stack([np.stack([m[..., 1, 1], -m[..., 0, 1]], -1), np.stack([-m[..., 1, 0], m[..., 0, 0]], -1)], -2)
    out = np.empty_like(m)
    for c in range(n):
        for r in range(n):
            sub = _minor(m, r, c)
            odd = (r + c) % 2
            if n == 3 and odd:   # r s - p q with the first product fused: +0 where they cancel
                v = _minor2(fm, sub[..., ::-1, :], 0)
            else:
                v = _minor2(fm, sub, 0) if n == 3 else _det3(fm, sub)
                v = -v if odd else v
            out[..., c, r] = v
    return out


@OPS.ext_op(SET, "Determinant")
def determinant(ex, inst, args, mask):
    m = np.asarray(args[0])
    fm = _contracting_matrix(ex, m)
    if fm is not None:
        return fm.finish(_det(fm, m), m.dtype)
    return np.linalg.det(m.astype(np.float64)).astype(_rt(ex, inst).dtype)


@OPS.ext_op(SET, "MatrixInverse")
def matrix_inverse(ex, inst, args, mask):
    """GLSL leaves the inverse of a singular matrix undefined: it is adjugate / determinant here (inf and NaN
    where the determinant is 0), LAPACK's inverse elsewhere."""
    m = np.asarray(args[0])
    fm = _contracting_matrix(ex, m)
    if fm is not None:   # the adjugate's entries divided by the determinant as OpFDiv (x * rcp(det): the H200)
        from ..numerics.functions import divide
        det = _det(fm, m)[..., None, None]
        adj = _adjugate_device(fm, m)
        if not fm.functions:
            with np.errstate(all="ignore"):
                return fm.finish((fm.flush(adj) / det).astype(m.dtype), m.dtype)
        return fm.finish(divide(fm.flush(adj), np.broadcast_to(det, adj.shape), m.dtype), m.dtype)
    a = m.astype(np.float64)
    det = np.linalg.det(a)
    ok = det != 0
    out = np.empty_like(a)
    if ok.any():
        out[ok] = np.linalg.inv(a[ok])
    if not ok.all():
        out[~ok] = _adjugate(a[~ok]) / det[~ok][:, None, None]
    return out.astype(m.dtype)


def _adjugate(a: np.ndarray) -> np.ndarray:
    """(k, n, n) -> the transposed cofactor matrices."""
    n = a.shape[-1]
    cof = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, axis=-2), j, axis=-1)
            cof[:, i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
    return np.swapaxes(cof, -1, -2)

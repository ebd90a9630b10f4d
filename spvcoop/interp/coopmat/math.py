"""MulAdd, element-wise arithmetic, MatrixTimesScalar, conversions and bitcasts on cooperative matrices.

Numeric rule (docs/interpreter-coopmat.md): MulAdd of f16 (or f32) inputs
computes the products and the sum in f32 (f64 when any operand is f64; f16
products are exact in f32), adds C in that precision and rounds once to the
result type. Integer MulAdd is exact (int64) and wraps to the result width, or
saturates with KHR SaturatingAccumulation. Signedness: NV from the component
types, KHR from the CooperativeMatrixOperands bits (unsigned when a bit is
clear). Element-wise ops act on the logical matrices; the arithmetic ops the
core already has for scalars are reused through a view that shows them the
matrices as (G, rows, cols) arrays (MatrixView).
"""
from __future__ import annotations

import numpy as np

from ...core.spirv_grammar import load as load_grammar
from ..dispatch import OpSet
from ..fault import Fault
from ..ops_convert import bf16_truncates, saturating
from ..types import Type
from ...numerics.model import NVIDIA_TENSORCORE, MulAddModel
from ...numerics import model as numerics_model
from ...numerics.model import muladd as numerics_muladd
from .core import CoopInfo, CoopMat, active_groups, coop_info, coop_val, first_lanes, result_is_coopmat, uniform

OPS = OpSet()


def _operand_bits() -> dict[str, int]:
    k = load_grammar().operand_kinds["CooperativeMatrixOperands"]
    return {n: e.value for n, e in k.by_name.items()}


_BITS: dict[str, int] = {}


def _as_int64(x: np.ndarray, signed: bool) -> np.ndarray:
    k = "i" if signed else "u"
    return np.asarray(x).view(f"{k}{x.dtype.itemsize}").astype(np.int64)


_F16_TO_F32: list[np.ndarray] = []


def _widen(x: np.ndarray, acc) -> np.ndarray:
    """x as `acc`; f16 -> f32 of a large matrix by a table of all 65536 values (exact, the table is astype's
    own result), about twice as fast as astype."""
    if x.dtype == np.float16 and acc is np.float32 and x.size >= 1 << 14:
        if not _F16_TO_F32:
            _F16_TO_F32.append(np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32))
        return np.take(_F16_TO_F32[0], x.view(np.uint16))
    # C order whatever x's: matmul sums in another order for a transposed operand (a column-major or transposed
    # load), and the fast and plain paths hold the same values in different layouts
    return x.astype(acc, order="C", copy=False)


def _widen_mat(m: CoopMat, acc) -> np.ndarray:
    """m.data as `acc`; a loaded f16 matrix whose scope instances share tiles (CoopMat.shared): each distinct tile
    widened once and copied to the instances (the same values: widening is exact)."""
    if m.shared is not None and acc is np.float32 and m.data.dtype == np.float16:
        tiles, index = m.shared
        return np.take(_widen(tiles, acc), index, axis=0)
    return _widen(m.data, acc)


def _tile_product(ex, a: CoopMat, b: CoopMat) -> np.ndarray | None:
    """The fast path `shared_tiles` (interp/fastpaths.py): A x B in f32 for A and B whose scope instances share
    loaded tiles (CoopMat.shared, both), from the distinct tiles widened once; where instance j = ia * nb + ib
    multiplies A tile ia by B tile ib (or j = ib * na + ia: a GEMM's workgroups over its output tiles), the
    product of every pair through broadcasting, else of the tiles copied to the instances. numpy's matmul makes
    the same sgemm call per instance on the same values as the general path's (the outer axes only step
    through them), so the bits are the general path's. None: the general path."""
    fp = ex.fast
    if fp is None or not fp.shared_tiles or a.shared is None or b.shared is None:
        return None
    (ta, ia), (tb, ib) = a.shared, b.shared
    wa, wb = _widen(ta, np.float32), _widen(tb, np.float32)   # C order, as _widen_mat gives them
    G, na, nb = len(ia), len(ta), len(tb)
    fp.taken.add("shared_tiles")
    if na * nb == G and na > 1 and nb > 1:
        j = np.arange(G)
        if np.array_equal(ia, j // nb) and np.array_equal(ib, j % nb):
            return np.matmul(wa[:, None], wb[None]).reshape((G,) + wa.shape[1:2] + wb.shape[2:])
        if np.array_equal(ib, j // na) and np.array_equal(ia, j % na):
            return np.matmul(wa[None], wb[:, None]).reshape((G,) + wa.shape[1:2] + wb.shape[2:])
    return np.matmul(np.take(wa, ia, axis=0), np.take(wb, ib, axis=0))


def _one_instance(ex, inst) -> tuple[tuple[int, int, int], tuple[CoopInfo, CoopInfo, CoopInfo], CoopInfo] | None:
    """A MulAdd's operand ids, their matrix types' facts and the result's, when all four are matrices of one scope
    instance in the dispatch, held as their values (no bf16/FP8 storage), of shapes that fit (else None: the
    general path, which reports shapes that do not fit)."""
    info = coop_info(ex, ex.rtype(inst))
    ops = inst.operands
    ids = (ops[0].value, ops[1].value, ops[2].value)
    types = [ex.type_of_id(i) for i in ids]
    if any(t is None or t.kind != "coopmat" for t in types):
        return None
    ia, ib, ic = (coop_info(ex, t) for t in types)
    if any(i.num_groups != 1 or i.storage is not None for i in (ia, ib, ic, info)):
        return None
    if ia.cols != ib.rows or ia.rows != ic.rows or ib.cols != ic.cols:
        return None
    return ids, (ia, ib, ic), info


class _OneInstancePlan:
    """What a MulAdd plan of one scope instance knows (_one_instance's facts) and how it fetches its operands."""
    __slots__ = ("ids", "infos", "shapes", "info")
    shared_ok = True   # whether operands carrying shared tiles (CoopMat.shared) are taken

    def __init__(self, ids: tuple[int, int, int], infos: tuple[CoopInfo, CoopInfo, CoopInfo], info: CoopInfo):
        self.ids, self.infos, self.info = ids, infos, info
        self.shapes = tuple((1, i.rows, i.cols) for i in infos)

    def values(self, frame) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """A, B and C as (1, rows, cols) arrays: f16 A and B and C of its type's dtype, each a matrix of the
        expected type holding its logical values; None for anything else (the general path)."""
        vals = frame.vals
        ida, idb, idc = self.ids
        a, b, c = vals.get(ida), vals.get(idb), vals.get(idc)
        ia, ib, ic = self.infos
        if type(a) is not CoopMat or type(b) is not CoopMat or type(c) is not CoopMat or a.info is not ia or \
                b.info is not ib or c.info is not ic:
            return None
        if not self.shared_ok and (a.shared is not None or b.shared is not None):
            return None
        A, B, C = a._data, b._data, c._data
        sa, sb, sc = self.shapes
        if A is None or B is None or C is None or A.shape != sa or B.shape != sb or C.shape != sc or \
                A.dtype != _F16_DT or B.dtype != _F16_DT or C.dtype != ic.dtype:
            return None
        return A, B, C


class _F16Plan(_OneInstancePlan):
    """A MulAdd the general path computes as f16 x f16 + f32 -> f32 in f32 (IEEE numerics; no bf16/FP8, no
    shared tiles, one scope instance), its facts worked out once per run and instruction: what is left per call
    is fetching the three values and the arithmetic, the same numpy operations in the same order as the
    general path (bit-identical). Anything else in a call (another value's type, a constant matrix, a partial
    mask) goes to the general path."""
    __slots__ = ("dot", "wide")
    shared_ok = False

    def __init__(self, ids: tuple[int, int, int], infos: tuple[CoopInfo, CoopInfo, CoopInfo], info: CoopInfo):
        super().__init__(ids, infos, info)
        # a matrix times a matrix: numpy may take a product with a dimension of 1 as one with a vector (gemv), and
        # then perhaps in another order than matmul's; those stay with matmul
        self.dot = min(infos[0].rows, infos[0].cols, infos[1].cols) > 1
        # A and B widened to f32: temporaries of one call (the product is a new array), kept to spare two allocations
        wa, wb = (np.empty(s, np.float32) for s in self.shapes[:2])
        self.wide = (wa, wb, wa[0], wb[0])   # and their (rows, cols) views

    @staticmethod
    def make(ex, inst) -> _F16Plan | None:
        if ex.config.coop_numerics != "ieee":
            return None
        facts = _one_instance(ex, inst)
        if facts is None:
            return None
        ids, (ia, ib, ic), info = facts
        if ia.dtype != np.float16 or ib.dtype != np.float16 or ic.dtype != np.float32 or info.dtype != np.float32:
            return None
        return _F16Plan(ids, (ia, ib, ic), info)

    def apply(self, ex, frame) -> CoopMat | None:
        got = self.values(frame)
        if got is None:
            return None
        A, B, C = got
        if self.dot:   # one (rows, cols) product: ndarray.dot costs half of matmul's 3-D call, the same sgemm
            wa, wb, wa2, wb2 = self.wide
            wa[...] = A   # widened as _widen does (exact: the same cast as astype), into buffers of the plan
            wb[...] = B
            D = wa2.dot(wb2)[None]
            D += C
            return CoopMat(self.info, D)
        D = np.matmul(A.astype(np.float32), B.astype(np.float32))
        D += C
        return CoopMat(self.info, D)


class _ModelPlan(_OneInstancePlan):
    """A MulAdd under a numerics model (nvidia-tensorcore or fitted) of f16 A and B and f16 or f32 C and result
    (no bf16/FP8, so rounding to the result type is nothing), one scope instance, its facts worked out once per
    run and instruction: what is left per call is fetching the three values and the model's arithmetic, the same
    call the general path makes. Anything else in a call goes to the general path."""
    __slots__ = ("model", "rdt")

    def __init__(self, ids: tuple[int, int, int], infos: tuple[CoopInfo, CoopInfo, CoopInfo], info: CoopInfo,
                 model: MulAddModel):
        super().__init__(ids, infos, info)
        self.model, self.rdt = model, info.dtype

    @staticmethod
    def make(ex, inst) -> _ModelPlan | None:
        model = muladd_model(ex.config.coop_numerics)
        if model is None:
            return None
        facts = _one_instance(ex, inst)
        if facts is None:
            return None
        ids, (ia, ib, ic), info = facts
        if ia.dtype != _F16_DT or ib.dtype != _F16_DT or ic.dtype not in _HALF_OR_F32 or \
                info.dtype not in _HALF_OR_F32:
            return None
        return _ModelPlan(ids, (ia, ib, ic), info, model)

    def apply(self, ex, frame) -> CoopMat | None:
        got = self.values(frame)
        if got is None:
            return None
        return CoopMat(self.info, model_muladd(ex, self.model, *got, self.rdt))


_F16_DT, _F32_DT = np.dtype(np.float16), np.dtype(np.float32)
_HALF_OR_F32 = (_F16_DT, _F32_DT)


def model_muladd(ex, model: MulAddModel, A, B, C, rdt, a_format: str = "f16", b_format: str = "f16"):
    """numerics.model.muladd, its int32 path taken where the run's fast path int32_muladd is on, in C where
    int32_kernel is (fastpaths.py)."""
    fp = ex.fast
    if fp is None or not fp.int32_muladd:
        return numerics_muladd(model, A, B, C, rdt, a_format, b_format, fast=False)
    count = numerics_model.INT32_TAKEN
    before, before_c = count
    d = numerics_muladd(model, A, B, C, rdt, a_format, b_format, compiled=fp.int32_kernel)
    if count[0] != before:
        fp.taken.add("int32_muladd")
        if count[1] != before_c:
            fp.taken.add("int32_kernel")
    return d


def _muladd_plan(ex, inst) -> _F16Plan | _ModelPlan | None:
    return _F16Plan.make(ex, inst) or _ModelPlan.make(ex, inst)


@OPS.op("OpCooperativeMatrixMulAddNV", "OpCooperativeMatrixMulAddKHR")
def muladd(ex, frame, inst, mask):
    fp = ex.fast
    if fp is not None and fp.muladd and mask is ex.every and not ex.any_killed:
        plan = fp.plans.get(inst.index)
        if plan is None:
            plan = fp.plan(inst, _muladd_plan, ex, inst)
        if plan:
            d = plan.apply(ex, frame)
            if d is not None:
                fp.taken.add("muladd")
                return d
    ops = inst.operands
    a = coop_val(ex, frame, ops[0].value)
    b = coop_val(ex, frame, ops[1].value)
    c = coop_val(ex, frame, ops[2].value)
    info = coop_info(ex, ex.rtype(inst))
    active_groups(ex, info, mask, inst.opname)
    sa, sb, sc = a.shape, b.shape, c.shape   # (a load's shared tiles stay uncopied: CoopMat.of_tiles)
    if sa[-1] != sb[-2] or sa[-2] != sc[-2] or sb[-1] != sc[-1]:
        raise Fault(f"shapes do not fit: A {sa[-2]}x{sa[-1]}, B {sb[-2]}x{sb[-1]}, C {sc[-2]}x{sc[-1]}")
    rdt = info.dtype
    adt, bdt = a.dtype, b.dtype
    half_inputs = (adt == np.float16 or a.info.storage is not None) and \
        (bdt == np.float16 or b.info.storage is not None)  # f16, bf16 or FP8 A and B
    numerics = ex.config.coop_numerics
    model = None if numerics == "ieee" else muladd_model(numerics)
    if rdt.kind == "f" and half_inputs and model is not None:
        # measured for bf16 inputs too (tests/interp/coopmat/test_interp_coopmat_bf16.py, test_interp_bf16_gpu.py);
        # FP8: a model only (the H100's Vulkan driver has no FP8)
        return CoopMat(info, info.rounded(model_muladd(ex, model, a.data, b.data, c.data, rdt, _input_format(a.info),
                                                       _input_format(b.info)), truncate=True))
    if rdt.kind == "f" or adt.kind == "f":
        C = c.data
        acc = np.float64 if np.float64 in (adt, bdt, C.dtype, rdt) else np.float32
        D = _tile_product(ex, a, b) if acc is np.float32 else None
        if D is None:
            D = np.matmul(_widen_mat(a, acc), _widen_mat(b, acc))
        D += C.astype(acc, copy=False)
        return CoopMat(info, info.rounded(D.astype(rdt, copy=False)))
    A, B, C = a.data, b.data, c.data
    if inst.opname.endswith("NV"):
        sa, sb, sc, sr, sat = A.dtype.kind == "i", B.dtype.kind == "i", C.dtype.kind == "i", rdt.kind == "i", False
    else:
        if not _BITS:
            _BITS.update(_operand_bits())
        m = inst.operands[3].value if len(inst.operands) > 3 else 0
        sa = bool(m & _BITS["MatrixASignedComponentsKHR"])
        sb = bool(m & _BITS["MatrixBSignedComponentsKHR"])
        sc = bool(m & _BITS["MatrixCSignedComponentsKHR"])
        sr = bool(m & _BITS["MatrixResultSignedComponentsKHR"])
        sat = bool(m & _BITS["SaturatingAccumulationKHR"])
    A64, B64, C64 = _as_int64(A, sa), _as_int64(B, sb), _as_int64(C, sc)
    if sat and max(A.dtype.itemsize, B.dtype.itemsize, C.dtype.itemsize) >= 4:
        A64, B64, C64 = A64.astype(object), B64.astype(object), C64.astype(object)  # exact, no int64 overflow
    D = np.matmul(A64, B64) + C64
    w = rdt.itemsize * 8
    if sat:
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if sr else (0, (1 << w) - 1)
        D = np.clip(D, lo, hi).astype(np.int64)
        out = D.astype(f"{'i' if sr else 'u'}{rdt.itemsize}")
    else:
        out = D.astype(np.int64).astype(f"u{rdt.itemsize}")  # wraps modulo 2^w
    return CoopMat(info, out.view(rdt))


def muladd_model(coop_numerics):
    """The MulAdd model a run uses: None for "ieee", the measured H100 instance for "nvidia-tensorcore", or a
    fitted model (numerics.model.MulAddModel) as given."""
    if coop_numerics == "ieee":
        return None
    if coop_numerics == "nvidia-tensorcore":
        return NVIDIA_TENSORCORE
    return coop_numerics


def _input_format(info: CoopInfo) -> str:
    """The numerics model's name of a 16-or-fewer-bit float matrix component ("f16", "bf16", "e4m3", "e5m2")."""
    if info.storage is None:
        return "f16"
    return {"bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}[info.storage.name]


# ---- element-wise ops: the core's scalar ops applied to the logical matrices ---------------------
_F32 = Type(-1, "float", width=32)


class MatrixView:
    """What a core op sees instead of the executor when it computes on matrices: the matrices as (G, rows, cols)
    arrays, the result's component type as its type, scalars (uniform per scope instance) as (G, 1, 1). Core ops
    reused on matrices (ELEMENTWISE, OpMatrixTimesScalar) may use only these four methods (and float_model)."""

    def __init__(self, ex, mask: np.ndarray, info: CoopInfo):
        self.ex, self.mask, self.info = ex, mask, info
        self.groups = None
        # f16 / f32 matrices follow ordinary code's float rules (compiled_floats.CodeFloats: measured the same on
        # the H100); bf16 / FP8 ones (computed in f32 here) the IEEE rules
        self.float_model = ex.float_model if info.storage is None else None

    def val(self, frame, id_):
        v = self.ex.val(frame, id_)
        t = self.ex.type_of_id(id_)
        if t is not None and t.kind == "coopmat":
            return coop_val(self.ex, frame, id_).data
        v = np.asarray(v)
        if v.shape[0] == 1:
            return v.reshape((1,) * 3)
        info = self.info
        if self.groups is None:
            self.groups = first_lanes(info, None, self.mask)
        g, lanes = self.groups
        per = uniform(info, v, g, lanes, self.mask, f"scalar operand {self.ex.prog.name_of(id_)}")
        full = np.zeros(info.num_groups, v.dtype)
        full[g] = per
        return full[:, None, None]

    def arg(self, frame, inst, i):
        return self.val(frame, inst.operands[i].value)

    def rtype(self, inst):
        if self.info.storage is not None:  # bfloat16: the core op computes in float32, rounded afterwards
            return _F32
        return self.ex.rtype(inst).elem

    def type_of_id(self, id_):
        t = self.ex.type_of_id(id_)
        return t.elem if t is not None and t.kind == "coopmat" else t


ELEMENTWISE = ("OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpIAdd", "OpISub", "OpIMul",
               "OpFNegate", "OpSNegate", "OpFConvert", "OpSConvert", "OpUConvert", "OpConvertFToS",
               "OpConvertFToU", "OpConvertSToF", "OpConvertUToF")


def _on_coopmat(*names: str):
    """Decorator: `body(base, ex, frame, inst, mask, info, view)` handles these ops when their result is a
    cooperative matrix (an extension of the core op `base`, which handles every other result)."""
    def register(body):
        @OPS.extends(*names, when=result_is_coopmat)
        def handler(ex, frame, inst, mask, base):
            info = coop_info(ex, ex.rtype(inst))
            active_groups(ex, info, mask, inst.opname)   # tangled: the whole scope instance or none (issue 37)
            return body(base, ex, frame, inst, mask, info, MatrixView(ex, mask, info))
        handler.__name__ = f"coopmat_{body.__name__}"
        return body
    return register


def _elementwise(base, ex, frame, inst, mask, info, view):
    gmask = np.ones(info.num_groups, bool)
    # the H100 narrows f32 to bf16 toward zero (measured); the IEEE rule rounds to nearest even
    truncate = inst.opname == "OpFConvert" and bf16_truncates(ex.config.coop_numerics)
    data = info.rounded(np.asarray(base(view, frame, inst, gmask)).astype(info.dtype, copy=False), truncate,
                        saturating(ex, inst))
    if data.ndim != 3:
        data = np.broadcast_to(data.reshape((-1,) + (1,) * 2), (data.shape[0] if data.ndim else 1,
                                                                 info.rows, info.cols))
    return CoopMat(info, data)


_on_coopmat(*ELEMENTWISE)(_elementwise)


@_on_coopmat("OpMatrixTimesScalar")
def _matrix_times_scalar(base, ex, frame, inst, mask, info, view):
    m, s = view.arg(frame, inst, 0), view.arg(frame, inst, 1)
    fm = view.float_model
    if fm is not None and info.dtype.kind == "f":
        return CoopMat(info, fm.unary(m, lambda x: x * fm.flush(s.astype(info.dtype)), info.dtype))
    if info.dtype.kind == "f":  # bf16 / FP8: in f32 (their scalar too), rounded once to the component type
        return CoopMat(info, info.rounded(m * s.astype(info.dtype)))
    return CoopMat(info, (m.astype(np.int64) * s.astype(np.int64)).astype(f"u{info.itemsize}").view(info.dtype))


def _division(signed: bool):
    def body(base, ex, frame, inst, mask, info, view):
        k = "i" if signed else "u"
        a = np.asarray(view.arg(frame, inst, 0)).view(f"{k}{info.itemsize}")
        b = np.asarray(view.arg(frame, inst, 1)).view(f"{k}{info.itemsize}")
        if (b == 0).any():
            raise Fault("integer division by zero in a cooperative matrix (undefined in SPIR-V)")
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        q = np.abs(a64) // np.abs(b64) * np.sign(a64) * np.sign(b64) if signed else a64 // b64
        return CoopMat(info, q.astype(f"u{info.itemsize}").view(info.dtype))
    return body


_on_coopmat("OpSDiv")(_division(True))
_on_coopmat("OpUDiv")(_division(False))


@_on_coopmat("OpBitcast")
def _bitcast(base, ex, frame, inst, mask, info, view):
    src = coop_val(ex, frame, inst.operands[0].value)
    if src.info.itemsize != info.itemsize:
        raise Fault(f"bitcast between components of different widths ({src.info.component} -> "
                    f"{info.component}) is not supported")
    bits = np.ascontiguousarray(src.info.to_storage(src.data))
    return CoopMat(info, info.from_storage(bits.view(info.storage_dtype)))

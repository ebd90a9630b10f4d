"""bfloat16 and FP8 (SPV_KHR_bfloat16, SPV_EXT_float8): where values of these encodings may appear,
their type declarations, capabilities, OpDot and the saturating FP8 conversion decoration.

Cooperative matrices of these components have their own rules in coopmat_types.py (capabilities)
and coopmat_arith.py (arithmetic on matrices); the use rules here leave those instructions alone.
"""
from __future__ import annotations

from ..core.diagnostics import Note
from .registry import MODULE, Context, rule

BF16 = "SPV_KHR_bfloat16"
FP8 = "SPV_EXT_float8"

# FP Encoding values (SPIR-V grammar)
BFLOAT16, E4M3, E5M2 = 0, 4214, 4215
ENCODING_NAMES = {BFLOAT16: "BFloat16KHR", E4M3: "Float8E4M3EXT", E5M2: "Float8E5M2EXT"}
ENCODING_WIDTH = {BFLOAT16: 16, E4M3: 8, E5M2: 8}
SATURATED_FP8 = 4216  # Decoration SaturatedToLargestFloat8NormalConversionEXT

# Instruction classes (grammar "class") the extension texts allow values of these types with.
# Type declarations, annotations and debug instructions name them without computing on them.
_BF16_CLASSES = frozenset({"Constant-Creation", "Memory", "Function", "Conversion", "Composite",
                           "Type-Declaration", "Annotation", "Debug", "Mode-Setting", "Miscellaneous"})
_FP8_CLASSES = _BF16_CLASSES | {"Extension"}
_BF16_OPS = frozenset({"OpDot", "OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixLengthKHR", "OpSelect",
                       "OpPhi", "OpReturnValue", "OpLifetimeStart", "OpLifetimeStop"})
_FP8_OPS = frozenset({"OpCooperativeMatrixMulAddKHR", "OpSelect", "OpPhi", "OpReturnValue",
                      "OpLifetimeStart", "OpLifetimeStop"})
# Arithmetic on cooperative matrices: reported by coopmat.arith.encoding (one finding, not two).
_COOPMAT_ARITH = frozenset({"OpFAdd", "OpFSub", "OpFDiv", "OpFNegate", "OpFMul", "OpFmaKHR", "OpFRem",
                            "OpFMod", "OpMatrixTimesScalar", "OpCooperativeMatrixMulAddNV"})
_CONTAINERS = frozenset({"OpTypeVector", "OpTypeMatrix", "OpTypeArray", "OpTypeRuntimeArray",
                         "OpTypeCooperativeMatrixKHR", "OpTypeCooperativeMatrixNV", "OpTypeCooperativeVectorNV"})


def float_encoding(ctx: Context, type_id: int | None) -> int | None:
    """The FP Encoding operand of an OpTypeFloat (None for other types and plain IEEE floats)."""
    t = ctx.ix.defs.get(type_id) if type_id is not None else None
    if t is None or t.opname != "OpTypeFloat" or len(t.operands) < 2:
        return None
    return t.operands[1].as_int


class _Includes:
    """Which special encoding (bfloat16 / FP8) a type is or includes; memoised per module."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.memo: dict[int, int | None] = {}

    def __call__(self, type_id: int | None, depth: int = 0) -> int | None:
        if type_id is None:
            return None
        if type_id in self.memo:
            return self.memo[type_id]
        self.memo[type_id] = None  # cycles (forward pointers) end here
        t = self.ctx.ix.defs.get(type_id)
        found = None
        if t is not None and depth < 32:
            if t.opname == "OpTypeFloat":
                enc = float_encoding(self.ctx, type_id)
                found = enc if enc in ENCODING_NAMES else None
            elif t.opname in _CONTAINERS and t.operands:
                found = self(t.operands[0].as_int, depth + 1)
            elif t.opname == "OpTypeStruct":
                found = next((e for e in (self(o.as_int, depth + 1) for o in t.operands) if e is not None), None)
        self.memo[type_id] = found
        return found


def _allowed(opname: str, klass: str, enc: int) -> bool:
    if enc == BFLOAT16:
        return klass in _BF16_CLASSES or opname in _BF16_OPS
    return klass in _FP8_CLASSES or opname in _FP8_OPS


def _ext_inst_set(ctx: Context, inst) -> str:
    d = ctx.ix.defs.get(inst.operands[0].value) if inst.operands else None
    return str(d.operands[0].value) if d is not None and d.operands else ""


@rule("float.bf16.use", MODULE,
      "Variables with a type that is or includes a floating-point type with the BFloat16KHR encoding must "
      "only be used with Constant Creation, Memory, Function, Conversion and Composite Instructions, OpDot, "
      "OpCooperativeMatrixMulAddKHR, OpCooperativeMatrixLengthKHR, OpSelect, OpPhi, OpReturnValue, "
      "OpLifetimeStart and OpLifetimeStop.", source=BF16)
def bf16_use(ctx: Context, _inst) -> None:
    _check_uses(ctx, want_fp8=False)


@rule("float.fp8.use", MODULE,
      "Objects with a type that is or includes a floating-point type with the Float8E4M3EXT or Float8E5M2EXT "
      "FP Encoding must only be used with Constant Creation, Memory, Function, Conversion, Composite, "
      "Annotation, Debug, Miscellaneous, Extension and Mode-Setting Instructions, OpSelect, OpPhi, "
      "OpReturnValue, OpLifetimeStart, OpLifetimeStop and OpCooperativeMatrixMulAddKHR.", source=FP8)
def fp8_use(ctx: Context, _inst) -> None:
    _check_uses(ctx, want_fp8=True)


def _exempt(ctx: Context, inst) -> bool:
    op = inst.opname
    if op.startswith("OpCooperativeMatrix") and op.endswith("NV") and op != "OpCooperativeMatrixMulAddNV":
        return True  # NV (cooperative_matrix2) instructions: their own rules; the texts do not name them
    # debug information names values without computing on them
    return op == "OpExtInst" and _ext_inst_set(ctx, inst).startswith("NonSemantic.")


def _check_uses(ctx: Context, want_fp8: bool) -> None:
    ix = ctx.ix
    if not any(i.opname == "OpTypeFloat" and len(i.operands) > 1 and i.operands[1].value in ENCODING_NAMES
               and (i.operands[1].value != BFLOAT16) == want_fp8 for i in ix.module.instructions):
        return  # the common case: no such type, nothing to walk
    includes = _Includes(ctx)
    kind = E4M3 if want_fp8 else BFLOAT16  # the encoding family this rule is about

    def wanted(e: int | None) -> bool:
        return e is not None and (e != BFLOAT16) == want_fp8

    for inst in ix.module.instructions:
        spec = ix.grammar.instructions.get(inst.opname)
        # OpExtInst: the FP8 text lists Extension Instructions, but it extends no extended instruction
        # set to FP8, and spirv-val refuses them: so only OpExtInstImport of that class is allowed
        if spec is None or inst.opname != "OpExtInst" and _allowed(inst.opname, spec.klass, kind) \
                or _exempt(ctx, inst):
            continue
        at = None
        enc = includes(inst.result_type)
        if not wanted(enc):
            enc = None
            for o in inst.operands:
                d = ix.defs.get(o.as_int) if o.kind == "IdRef" else None
                if d is None or d.result_type is None:
                    continue  # literals, types, labels, undefined ids: not values
                if wanted(e := includes(d.result_type)):
                    enc, at = e, o
                    break
        if enc is None:
            continue
        if inst.opname in _COOPMAT_ARITH and ix.coopmat(inst.result_type) is not None:
            continue  # coopmat.arith.encoding reports it
        what = (f"its operand {ix.name(at.as_int)} has type {ix.value_type_text(at.as_int)}" if at is not None
                else f"its result type {ix.name(inst.result_type)} is {ix.type_text(inst.result_type)}")
        ctx.report(inst, at, f"{inst.opname} does not accept {ENCODING_NAMES[enc]} values ({what})",
                   [Note("convert to an IEEE float type (OpFConvert) first and compute on that")])


@rule("float.type.encoding_width", "OpTypeFloat",
      "BFloat16KHR is an encoding of Width 16; Float8E4M3EXT and Float8E5M2EXT of Width 8. An 8-bit "
      "OpTypeFloat must have one of the FP8 encodings.", source=f"{BF16} / {FP8}")
def encoding_width(ctx: Context, inst) -> None:
    if not inst.operands:
        return
    width = inst.operands[0].value
    enc = inst.operands[1].value if len(inst.operands) > 1 else None
    if enc is None:
        if width == 8:
            ctx.report(inst, 0, "an 8-bit OpTypeFloat needs an FP Encoding (Float8E4M3EXT or Float8E5M2EXT)")
        return
    want = ENCODING_WIDTH.get(enc)
    if want is not None and width != want:
        ctx.report(inst, 1, f"FP Encoding {ENCODING_NAMES[enc]} is defined for Width {want}, not {width}")


@rule("float.type.capability", ("OpTypeFloat", "OpDecorate", "OpMemberDecorate"),
      "The FP Encodings BFloat16KHR (capability BFloat16TypeKHR), Float8E4M3EXT and Float8E5M2EXT and the "
      "decoration SaturatedToLargestFloat8NormalConversionEXT (capability Float8EXT) need their enabling "
      "capability.", source=f"{BF16} / {FP8}")
def encoding_capability(ctx: Context, inst) -> None:
    ix = ctx.ix
    if inst.opname == "OpTypeFloat":
        if len(inst.operands) < 2:
            return
        op, kind, value = inst.operands[1], "FPEncoding", inst.operands[1].value
    else:
        i = 1 if inst.opname == "OpDecorate" else 2
        if len(inst.operands) <= i or inst.operands[i].value != SATURATED_FP8:
            return
        op, kind, value = inst.operands[i], "Decoration", SATURATED_FP8
    e = ix.grammar.operand_kinds[kind].by_value.get(value)
    if e is None or not e.capabilities or any(ix.has_cap(c) for c in e.capabilities):
        return
    ctx.report(inst, op, f"{e.name} requires the {' or '.join(e.capabilities)} capability",
               [Note(f"add 'OpCapability {e.capabilities[0]}'")])


@rule("float.bf16.dot", "OpDot",
      "If the Result Type (and the component types of Vector 1 and Vector 2) has a BFloat16KHR encoding then "
      "BFloat16DotProductKHR must be declared.", source=BF16)
def bf16_dot(ctx: Context, inst) -> None:
    if float_encoding(ctx, inst.result_type) == BFLOAT16 and not ctx.ix.has_cap("BFloat16DotProductKHR"):
        ctx.report(inst, None, "OpDot on BFloat16KHR vectors needs the BFloat16DotProductKHR capability",
                   [Note("add 'OpCapability BFloat16DotProductKHR'")])


_SATURATING_TARGETS = ("OpFConvert", "OpConvertSToF", "OpConvertUToF")


@rule("float.fp8.saturated_target", ("OpDecorate", "OpMemberDecorate", "OpDecorateId"),
      "SaturatedToLargestFloat8NormalConversionEXT must only be applied to the OpFConvert, OpConvertSToF, or "
      "OpConvertUToF instructions with a Result Type that uses an Float8E4M3EXT or Float8E5M2EXT FP Encoding.",
      source=FP8)
def saturated_target(ctx: Context, inst) -> None:
    ix = ctx.ix
    i = 2 if inst.opname == "OpMemberDecorate" else 1
    if len(inst.operands) <= i or inst.operands[i].value != SATURATED_FP8:
        return
    target = inst.operands[0].value
    d = ix.defs.get(target)
    if d is None:
        return  # structure.id.defined
    if inst.opname == "OpMemberDecorate":
        ctx.report(inst, i, "SaturatedToLargestFloat8NormalConversionEXT decorates a structure member; it "
                   "only applies to a conversion instruction")
        return
    op = d.opname
    if op == "OpSpecConstantOp" and d.operands:  # a conversion folded at specialization time
        spec = ix.grammar.by_opcode.get(d.operands[0].as_int)
        op = spec.opname if spec is not None else op
    if op not in _SATURATING_TARGETS:
        ctx.report(inst, 0, f"SaturatedToLargestFloat8NormalConversionEXT decorates {ix.name(target)}, "
                   f"the result of {d.opname}; only OpFConvert, OpConvertSToF and OpConvertUToF may carry it",
                   [ctx.note_def(target, f"{ix.name(target)} is defined here")])
        return
    enc = _Includes(ctx)(d.result_type)
    if enc not in (E4M3, E5M2):
        ctx.report(inst, 0, f"SaturatedToLargestFloat8NormalConversionEXT decorates {ix.name(target)}, a "
                   f"conversion to {ix.type_text(d.result_type)}; the result must be an FP8 type",
                   [ctx.note_def(target, f"{ix.name(target)} is defined here")])

"""Random SPIR-V assembly generated from the grammar, for differential tests with hypothesis.

Instructions are drawn from the whole core grammar: every operand kind, `?` and `*`
quantifiers, enumerants with parameters, masks, literals of several widths, strings
with quotes and backslashes, OpSpecConstantOp, OpExtInst. The modules need not be
valid SPIR-V; spirv-as only has to assemble them (or reject them), and spvcoop must
do exactly the same.
"""
from __future__ import annotations

from hypothesis import strategies as st

from spvcoop.core.spirv_grammar import load

G = load()
_SKIP_KINDS = {"LiteralExtInstInteger", "LiteralSpecConstantOpInteger", "LiteralContextDependentNumber"}
TYPES = ["%void = OpTypeVoid", "%u32 = OpTypeInt 32 0", "%i32 = OpTypeInt 32 1", "%u16 = OpTypeInt 16 0",
         "%i64 = OpTypeInt 64 1", "%u8 = OpTypeInt 8 0", "%f32 = OpTypeFloat 32", "%f16 = OpTypeFloat 16",
         "%f64 = OpTypeFloat 64", "%glsl = OpExtInstImport \"GLSL.std.450\"",
         "%dbg = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\""]
NUMERIC = {"u32": ("int", 32), "i32": ("int", 32), "u16": ("int", 16), "i64": ("int", 64), "u8": ("int", 8),
           "f32": ("float", 32), "f16": ("float", 16), "f64": ("float", 64)}
IDS = ["%a", "%b", "%c", "%u32", "%f32", "%12", "%x_1", "%void"]
# Core instructions plus the cooperative-matrix ones. Vendor extension instructions are left out:
# SPIRV-Tools 2025.5 carries its own copy of the grammar, and some of them differ from the
# SPIRV-Headers release on PyPI (e.g. OpCooperativeMatrixLoadTensorNV's operands).
OPNAMES = sorted(n for n, s in G.instructions.items()
                 if n == s.opname and (s.version != "None" or "CooperativeMatrix" in n and "Tensor" not in n))

ints = st.one_of(st.integers(0, 2**32 - 1).map(str), st.integers(-2**31, 2**31).map(str),
                 st.integers(0, 2**64).map(hex), st.sampled_from(["0", "010", "0x7fffffff", "-0", "+5", "1.5"]))
floats = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
                   st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f.hex()),
                   st.floats(allow_nan=False, allow_infinity=False, width=16).map(repr),
                   st.sampled_from(["0.1", "-0.0", "1e-45", "65504", "70000.0", "0x1p+128", "0x1.8p+16", "1e39",
                                    "2", ".5", "5.", "1e10"]))
strings = st.text(alphabet=st.sampled_from(list('ab "\\;%=\n\t,()é')), max_size=8).map(
    lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"')


@st.composite
def operand(draw, kind: str, ext_kinds=None) -> list[str]:
    if kind in ("IdRef", "IdResultType", "IdScope", "IdMemorySemantics"):
        return [draw(st.sampled_from(IDS))]
    if kind == "LiteralString":
        return [draw(strings)]
    if kind in ("LiteralInteger", "LiteralFloat"):
        return [draw(st.integers(0, 2**32 - 1).map(str))]
    okind = (ext_kinds or {}).get(kind) or G.operand_kinds.get(kind)
    if okind is None:
        return []
    if okind.category == "Composite":
        out = []
        for b in okind.bases:
            out += draw(operand(b, ext_kinds))
        return out
    if okind.category == "ValueEnum":
        e = draw(st.sampled_from(okind.enumerants))
        name = draw(st.sampled_from((e.name, *e.aliases)))
        out = [name]
        for p in e.parameters:
            out += draw(operand(p.kind, ext_kinds))
        return out
    if okind.category == "BitEnum":
        chosen = draw(st.lists(st.sampled_from(okind.enumerants), min_size=1, max_size=3, unique_by=lambda e: e.name))
        text = "|".join(draw(st.sampled_from((e.name, *e.aliases))) for e in chosen)
        value = 0
        for e in chosen:
            value |= e.value
        out = [text]
        for bit in range(32):
            e = okind.by_value.get(1 << bit)
            if value >> bit & 1 and e is not None:
                for p in e.parameters:
                    out += draw(operand(p.kind, ext_kinds))
        return out
    return []


@st.composite
def operands_for(draw, specs, ext_kinds=None) -> list[str]:
    out = []
    for spec in specs:
        if spec.kind in ("IdResult",):
            continue
        if spec.quantifier == "?" and not draw(st.booleans()):
            break
        reps = draw(st.integers(0, 2)) if spec.quantifier == "*" else 1
        for _ in range(reps):
            out += draw(operand(spec.kind, ext_kinds))
    return out


@st.composite
def instruction(draw) -> str:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        tname = draw(st.sampled_from(sorted(NUMERIC)))
        kind, width = NUMERIC[tname]
        lit = draw(ints if kind == "int" else floats)
        op = draw(st.sampled_from(["OpConstant", "OpSpecConstant"]))
        return f"%k = {op} %{tname} {lit}"
    if choice == 1:
        ext = G.ext_set("GLSL.std.450")
        e = draw(st.sampled_from(sorted(ext.instructions.values(), key=lambda s: s.opcode)))
        return f"%r = OpExtInst %f32 %glsl {e.opname} " + " ".join(draw(operands_for(e.operands)))
    if choice == 2:
        target = draw(st.sampled_from(["IAdd", "ISub", "SNegate", "Select", "CompositeExtract", "UConvert",
                                       "CooperativeMatrixLengthKHR", "VectorShuffle", "ShiftLeftLogical"]))
        spec = G.instructions["Op" + target]
        return f"%s = OpSpecConstantOp %u32 {target} " + " ".join(draw(operands_for(spec.operands[2:])))
    name = draw(st.sampled_from(OPNAMES))
    spec = G.instructions[name]
    if any(o.kind in _SKIP_KINDS for o in spec.operands):
        return "OpNop"
    head = "%r = " if spec.has_result else ""
    return head + name + " " + " ".join(draw(operands_for(spec.operands)))


@st.composite
def module_text(draw) -> str:
    body = draw(st.lists(instruction(), min_size=1, max_size=8))
    sep = draw(st.sampled_from(["\n", "\n\n", " ; comment\n", "\r\n"]))
    return sep.join(["OpCapability Shader", "OpMemoryModel Logical GLSL450", *TYPES, *body]) + "\n"

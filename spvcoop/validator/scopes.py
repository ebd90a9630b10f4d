"""Scope and Memory Semantics <id>s of barriers, atomics, group ops (1K; S1).

With the Shader capability a Scope or Memory Semantics <id> must be an OpConstant. NV relaxes
both to 'a constant instruction' (specialization constants allowed); KHR relaxes Scope <id>s
only ("All <id> used for Scope <id> must be the result of a constant instruction"), so a
spec-constant Memory Semantics <id> stays invalid in a KHR-only module. spirv-val honours only
the NV capability for Scope as well: false positive S1."""
from __future__ import annotations

from .coopmat_memory import LOAD_STORE
from .index import COOPMAT_TYPES
from .registry import MODULE, Context, rule

SPEC_OK_CAPS = {"IdScope": ("CooperativeMatrixNV", "CooperativeMatrixKHR"),
                "IdMemorySemantics": ("CooperativeMatrixNV",)}
# The type's Scope is checked by coopmat.type.*, load/store scopes by coopmat.memaccess.scope;
# OpSpecConstantOp operands are checked when the constant is used.
SKIP = frozenset(COOPMAT_TYPES + LOAD_STORE + ("OpSpecConstantOp",))


_HAS_SCOPE_OPERANDS: dict[str, bool] = {}


def _has_scope_operands(grammar, opname: str) -> bool:
    """Does the grammar entry of `opname` have a Scope or Memory Semantics <id> operand? Asked per opcode that
    a module uses (a set over the whole grammar would build every one of its ~900 entries at start)."""
    got = _HAS_SCOPE_OPERANDS.get(opname)
    if got is None:
        spec = grammar.instructions.get(opname)
        got = _HAS_SCOPE_OPERANDS[opname] = spec is not None and any(
            o.kind in ("IdScope", "IdMemorySemantics") for o in spec.operands)
    return got


@rule("scope.constant", MODULE,
      "All <id> used for Scope <id> and Memory Semantics <id> must be the result of a constant instruction; "
      "a Shader module needs OpConstant, except that SPV_NV_cooperative_matrix allows specialization constants "
      "for both and SPV_KHR_cooperative_matrix for Scope <id>s only; the value must be a valid Scope.",
      source="SPV_NV_cooperative_matrix / SPV_KHR_cooperative_matrix / SPIR-V core")
def scope_constant(ctx: Context, _inst) -> None:
    ix = ctx.ix
    spec_ok = {k: any(ix.has_cap(c) for c in caps) for k, caps in SPEC_OK_CAPS.items()}
    shader = ix.has_cap("Shader")
    scopes = ix.grammar.operand_kinds["Scope"].by_value
    defs = ix.defs
    grammar = ix.grammar
    for inst in ix.module.instructions:
        if inst.opname in SKIP or not _has_scope_operands(grammar, inst.opname):
            continue  # the type's Scope is checked by coopmat.type.*; SpecConstantOp operands are IdRef
        seen: set[int] = set()
        for o in inst.operands:
            k = o.kind
            if (k != "IdScope" and k != "IdMemorySemantics") or o.value in seen:
                continue
            seen.add(o.as_int)
            what = "Scope" if k == "IdScope" else "Memory Semantics"
            d = defs.get(o.as_int)
            if d is None:
                continue
            if not ix.is_constant_inst(o.as_int):
                ctx.report(inst, o, f"{what} {ix.name(o.as_int)} is defined by {d.opname}; it must be a constant "
                           "instruction", [ctx.note_def(o.as_int, "defined here")])
                continue
            if d.opname.startswith("OpSpec") and not spec_ok[k] and shader:
                allowed_by = ("the CooperativeMatrixNV capability (SPV_KHR_cooperative_matrix relaxes Scope <id>s "
                              "only)" if k == "IdMemorySemantics" else "a cooperative-matrix capability")
                ctx.report(inst, o, f"{what} {ix.name(o.as_int)} is a specialization constant; a Shader module "
                           f"needs OpConstant here unless {allowed_by} is declared",
                           [ctx.note_def(o.as_int, "defined here")])
                continue
            it = ix.int_type(d.result_type)
            if it is None or it[0] != 32:
                ctx.report(inst, o, f"{what} {ix.name(o.as_int)} must be a 32-bit integer "
                           f"(it is {ix.type_text(d.result_type)})", [ctx.note_def(o.as_int, "defined here")])
                continue
            if k == "IdScope":
                v = ix.int_value(o.as_int)
                if v is not None and v.value not in scopes:
                    ctx.report(inst, o, f"Scope value {v.value} is not a valid Scope",
                               [ctx.note_def(o.as_int, "defined here")], spec_dependent=v.spec)

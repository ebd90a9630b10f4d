"""Structural facts the cooperative-matrix rules rely on: ids defined once and before use,
result types that are types, capabilities and extensions, SPIR-V version vs. environment.

The id checks run in one pass over every operand of every instruction (the only
work proportional to module size besides building the index)."""
from __future__ import annotations

from ..core.diagnostics import Note
from ..core.spirv_grammar import newer_capability
from .shapes import ID_KINDS, id_values
from .registry import MODULE, RULES, Context, Rule, rule

# Instructions whose id operands may name something defined later in the module.
FORWARD_OK = frozenset({
    "OpName", "OpMemberName", "OpDecorate", "OpDecorateId", "OpDecorateString", "OpMemberDecorate",
    "OpMemberDecorateString", "OpGroupDecorate", "OpGroupMemberDecorate", "OpEntryPoint",
    "OpExecutionMode", "OpExecutionModeId", "OpPhi", "OpTypeForwardPointer", "OpLine",
    "OpExtInst", "OpExtInstWithForwardRefsKHR", "OpConditionalEntryPointINTEL",
})
# Definitions that may be referenced before they appear (labels, functions).
FORWARD_TARGETS = frozenset({"OpLabel", "OpFunction"})


def _meta(rule_id: str, spec: str, severity: str = "error", source: str = "SPIR-V core") -> None:
    """Register a rule that is checked inside a shared pass (metadata only)."""
    RULES[rule_id] = Rule(rule_id, (), spec, severity, None, source)  # type: ignore[arg-type]


_meta("structure.id.defined_once", "Each <id> is defined by exactly one instruction (SSA).")
_meta("structure.id.order", "An <id> must be defined before it is used, except in the forward-reference "
      "cases the spec lists (names, decorations, entry points, OpPhi, labels, functions, forward pointers).")
_meta("structure.malformed", "Every instruction has the operands its grammar entry requires (modules made "
      "by the assembler or binary reader always do; modules built in code may not).")
_meta("structure.result_type", "Result Type must be the <id> of a type declaration.")


@rule("structure.id.defined", MODULE, "Every <id> used as an operand must be defined in the module.",
      source="SPIR-V core 2.4")
def check_ids(ctx: Context, _inst) -> None:
    ix = ctx.ix
    defs = ix.defs
    fwd_ptrs = ix.forward_pointers
    for first, dup in ix.duplicates:
        ctx.report(dup, None, f"{ix.name(dup.result_id)} is defined more than once",
                   [Note("first defined here", first.span)], rule_id="structure.id.defined_once")
    good_types: set[int] = set()  # result types found to be types defined before an instruction that uses them
    for inst in ix.module.instructions:
        pos = inst.index
        rt = inst.result_type
        if rt is not None and rt not in good_types:
            t = defs.get(rt)
            if t is None:
                ctx.report(inst, None, f"result type {ix.name(rt)} of {inst.opname} is not defined")
            elif not t.opname.startswith("OpType"):
                ctx.report(inst, None, f"result type {ix.name(rt)} of {inst.opname} is not a type "
                           f"(it is defined by {t.opname})", [Note("defined here", t.span)],
                           rule_id="structure.result_type")
            elif t.index > pos and rt not in fwd_ptrs:
                ctx.report(inst, None, f"result type {ix.name(rt)} is used before its definition",
                           [Note("defined here", t.span)], rule_id="structure.id.order")
            else:
                good_types.add(rt)  # defined before this instruction, so before every later one
        forward_ok = inst.opname in FORWARD_OK
        reported: set[int] | None = None  # made only when there is a finding: this loop is hot
        for v in id_values(inst):
            d = defs.get(v)
            if d is not None and (d.index < pos or forward_ok or d.opname in FORWARD_TARGETS or v in fwd_ptrs):
                continue
            if reported is None:
                reported = set()
            elif v in reported:
                continue  # `OpIAdd %t %y %y`: one finding for %y
            reported.add(v)
            o = next((o for o in inst.operands if o.kind in ID_KINDS and o.value == v), None)
            if d is None:
                ctx.report(inst, o, f"{ix.name(v)} is used by {inst.opname} but never defined")
            else:
                ctx.report(inst, o, f"{ix.name(v)} is used by {inst.opname} before its definition",
                           [Note(f"{ix.name(v)} is defined here", d.span)], rule_id="structure.id.order")


@rule("structure.capability.opcode", MODULE,
      "An instruction whose grammar entry lists capabilities needs one of them declared "
      "(declaring a capability implicitly declares the ones it depends on).", source="SPIR-V core 2.4")
def check_opcode_caps(ctx: Context, _inst) -> None:
    ix = ctx.ix
    by_opcode = ix.grammar.by_opcode
    seen: dict[int, bool] = {}
    for inst in ix.module.instructions:
        ok = seen.get(inst.opcode)
        if ok is None:
            spec = by_opcode.get(inst.opcode)
            caps = spec.capabilities if spec else ()
            ok = not caps or any(ix.has_cap(c) for c in caps)
            seen[inst.opcode] = ok
        if not ok:
            caps = by_opcode[inst.opcode].capabilities
            ctx.report(inst, None, f"{inst.opname} requires one of these capabilities: {', '.join(caps)}",
                       [Note(f"add 'OpCapability {caps[0]}'",
                             ix.module.instructions[0].span if ix.module.instructions else None)])


def _version_tuple(text: str) -> tuple[int, int] | None:
    if not text or text == "None":
        return None
    major, _, minor = text.partition(".")
    try:
        return int(major), int(minor or 0)
    except ValueError:
        return None


@rule("structure.capability.extension", "OpCapability",
      "A capability that is not part of the module's SPIR-V version must be enabled by one of the "
      "extensions that define it (OpExtension).", source="SPIR-V core 2.4")
def check_cap_extension(ctx: Context, inst) -> None:
    ix = ctx.ix
    e = ix.grammar.operand_kinds["Capability"].by_value.get(inst.operands[0].value)
    if e is None:
        ctx.report(inst, 0, f"unknown capability {inst.operands[0].value}"
                            f"{newer_capability(inst.operands[0].value)}")
        return
    core = _version_tuple(e.version)
    if core is not None and ix.version >= core:
        return
    if not e.extensions or any(x in ix.extensions for x in e.extensions):
        return
    ctx.report(inst, 0, f"capability {e.name} requires one of these extensions: {', '.join(e.extensions)}",
               [Note(f"add 'OpExtension \"{e.extensions[0]}\"'", inst.span)])


# Highest SPIR-V version each target environment accepts.
ENV_MAX_VERSION = {
    "vulkan1.0": (1, 0), "vulkan1.1": (1, 3), "vulkan1.1spv1.4": (1, 4), "vulkan1.2": (1, 5),
    "vulkan1.3": (1, 6), "vulkan1.4": (1, 6), "universal": (1, 6),
}


def env_max_version(env: str) -> tuple[int, int] | None:
    if env in ENV_MAX_VERSION:
        return ENV_MAX_VERSION[env]
    if env.startswith("spv") and "." in env:
        v = _version_tuple(env[3:])
        return v
    return None


@rule("structure.version.env", MODULE,
      "The module's SPIR-V version must be one the target environment consumes.", source="client API")
def check_env_version(ctx: Context, _inst) -> None:
    ix = ctx.ix
    mx = env_max_version(ix.target_env)
    if mx is not None and ix.version > mx:
        first = ix.module.instructions[0] if ix.module.instructions else None
        ctx.report(first, None, f"SPIR-V version {ix.version[0]}.{ix.version[1]} is not accepted by target "
                   f"environment {ix.target_env} (at most {mx[0]}.{mx[1]})")

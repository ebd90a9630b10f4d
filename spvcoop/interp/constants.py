"""Constants and specialization constants, evaluated once per run (shape (1, ...) values)."""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError
from ..core.module import Instruction, Operand
from ..core.spirv_grammar import load as load_grammar
from .fault import Fault
from .ops_composite import construct
from .program import CONSTANT_OPS
from .values import value_bytes, zeros


def scalar_from_words(t, words: tuple[int, ...]) -> np.ndarray:
    w = np.array(words, dtype=np.uint32)
    dt = t.dtype
    if dt.itemsize >= 4:
        return w.view(dt)[:1].copy()
    raw = np.array([words[0] & ((1 << (8 * dt.itemsize)) - 1)], dtype=f"u{dt.itemsize}")
    return raw.view(dt)


def _override(t, value, where) -> np.ndarray:
    if t.kind == "bool":
        return np.array([bool(value)])
    try:
        if t.kind == "float":
            return np.array([float(value)], dtype=t.dtype)
        iv = int(value)
        return np.array([iv & ((1 << t.width) - 1)], dtype=f"u{t.width // 8}").view(t.dtype)
    except (TypeError, ValueError):
        raise SpvError(Diagnostic("error", f"spec constant {where}: {value!r} is not a {t.describe()}")) from None


def evaluate_constant(ex, inst: Instruction, overrides: dict, used: set):
    prog = ex.prog
    op = inst.opname
    t = prog.types.get(inst.result_type)
    if op in ("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse"):
        spec_id = prog.decorations.get(inst.result_id, {}).get("SpecId", [None])[0]
        name = prog.names.get(inst.result_id)
        for key in (spec_id, str(spec_id) if spec_id is not None else None, name):
            if key is not None and key in overrides:
                used.add(key)
                return _override(t, overrides[key], name or spec_id)
    if op in ("OpConstant", "OpSpecConstant"):
        return scalar_from_words(t, inst.operands[0].words)
    if op in ("OpConstantTrue", "OpSpecConstantTrue"):
        return np.array([True])
    if op in ("OpConstantFalse", "OpSpecConstantFalse"):
        return np.array([False])
    if op in ("OpConstantComposite", "OpSpecConstantComposite"):
        return construct(t, [ex.gvals[o.value] for o in inst.operands], ex.dispatcher)
    if op in ("OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT"):
        ex.reserve(value_bytes(t, 1), f"the constant {t.describe()}", inst)
        v = ex.gvals[inst.operands[0].value]
        n = t.count if t.kind in ("vector", "matrix", "array") else len(t.members)
        return construct(t, [v] * n, ex.dispatcher)
    if op in ("OpConstantNull", "OpUndef"):
        ex.reserve(value_bytes(t, 1), f"the null value of {t.describe()}", inst)
        return zeros(t, ex.dispatcher)
    if op == "OpSpecConstantOp":
        spec = load_grammar().by_opcode.get(inst.operands[0].as_int)
        target = spec.opname if spec else str(inst.operands[0].value)
        fake = Instruction(target, inst.operands[0].as_int, inst.result_type, inst.result_id,
                           list(inst.operands[1:]), inst.span, inst.index)
        fn = ex.dispatcher.ops.get(target)
        if fn is None:
            raise SpvError(Diagnostic("error", f"unsupported instruction {target} in OpSpecConstantOp",
                                      inst.span, rule="interp.unsupported", source=prog.source))
        from .executor import Frame
        try:
            with np.errstate(all="ignore"):
                return fn(ex, Frame(None), fake, np.ones(1, bool))  # type: ignore[arg-type]
        except Fault as f:
            raise ex.fault_error(inst, f) from None
        except Exception as e:  # noqa: BLE001 - an unvalidated module's operands; re-raised otherwise
            raise ex.invalid_module_error(inst, e) from None
    raise SpvError(Diagnostic("error", f"unsupported constant instruction {op}", inst.span, source=prog.source))


__all__ = ["CONSTANT_OPS", "evaluate_constant", "Operand"]

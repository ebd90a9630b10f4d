"""Constants and specialization constants, evaluated once per run (shape (1, ...) values)."""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError, UnmatchedName
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
    """A specialization constant's value given by the user, as a value of its scalar type: exactly that
    value or a one-line error, never a wrapped integer or an infinity it was not (an integer of another
    range was masked to the width, a float past the type's range became infinity, an infinite or huge one
    for an integer type ended in an OverflowError, issue 32). Integers take -2^(w-1)..2^w-1, as buffer data
    does (negative values as two's complement); bools take true/false or 0/1."""
    def bad(why: str = "") -> SpvError:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:60] + "..."
        return SpvError(Diagnostic("error", f"spec constant {where}: {shown} is not a {t.describe()}{why}"))

    is_bool = isinstance(value, (bool, np.bool_))
    if t.kind == "bool":
        if is_bool or (isinstance(value, (int, np.integer)) and value in (0, 1)):
            return np.array([bool(value)])
        raise bad()
    if is_bool:
        raise bad()
    try:
        if t.kind == "float":
            f = float(value)
            with np.errstate(over="ignore"):
                out = np.array([f], dtype=t.dtype)
            if np.isinf(out[0]) and not np.isinf(f):
                raise bad(f" (beyond its largest finite value {float(np.finfo(t.dtype).max):g})")
            return out
        iv = int(value)
        if isinstance(value, (float, np.floating)) and iv != value:
            raise bad(" (not a whole number)")
    except OverflowError:  # infinity for an integer, an integer past a double's range for a float
        raise bad(" (out of range)") from None
    except (TypeError, ValueError):
        raise bad() from None
    if not -(1 << (t.width - 1)) <= iv < (1 << t.width):
        raise bad(f" (out of range {-(1 << (t.width - 1))}..{(1 << t.width) - 1})")
    return np.array([iv & ((1 << t.width) - 1)], dtype=f"u{t.width // 8}").view(t.dtype)


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
                try:
                    return _override(t, overrides[key], name or spec_id)
                except SpvError as e:  # where a run spec gave it, a command points at its key
                    raise UnmatchedName(e.diagnostics, "spec_constants", (key,)) from None
    if op in ("OpConstant", "OpSpecConstant"):
        return scalar_from_words(t, inst.operands[0].words)
    if op in ("OpConstantTrue", "OpSpecConstantTrue"):
        return np.array([True])
    if op in ("OpConstantFalse", "OpSpecConstantFalse"):
        return np.array([False])
    if op in ("OpConstantComposite", "OpSpecConstantComposite"):
        return construct(t, [ex.gvals[o.value] for o in inst.operands], ex.dispatcher)
    if op in ("OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT"):
        ex.budget.reserve(value_bytes(t, 1), f"the constant {t.describe()}", inst)
        v = ex.gvals[inst.operands[0].value]
        n = t.count if t.kind in ("vector", "matrix", "array") else len(t.members)
        return construct(t, [v] * n, ex.dispatcher)
    if op in ("OpConstantNull", "OpUndef"):
        ex.budget.reserve(value_bytes(t, 1), f"the null value of {t.describe()}", inst)
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

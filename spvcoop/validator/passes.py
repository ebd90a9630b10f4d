"""The validator's passes: every rule module, in the order its rules run.

This list is the one place that says which modules hold rules and in what order they are checked
(as SPIRV-Tools' validate.cpp calls its passes one after another). `register()` imports each pass and
adds its rules to the registry in this order, so the order of findings on one instruction follows
the list, not the order in which Python happened to import the modules (a pass importing a helper
from another pass does not move that pass forward). A rule declared in a module missing from this
list is refused (registry.seal raises, and so does registry.rule once the passes are registered), and
tests/validator/test_validate_passes.py checks that every module of the package that declares rules is listed and
that every listed module exists.

How a pass runs (validator/__init__.py, `_coopmat_findings`):
1. module rules (`registry.MODULE`) of every pass, in pass order, once per module, in every module;
2. then one walk over the instructions: each instruction gets the rules registered for its opcode,
   in pass order, skipping a rule for that opcode when the module declares no cooperative-matrix
   capability and the rule says so (`Rule.coopmat_only`, see registry.rule);
3. then the device-profile rules (profiles.py), only when a profile is given.
"""
from __future__ import annotations

import importlib

from . import registry

PASSES: tuple[str, ...] = (
    "coopmat_types",      # cooperative-matrix types, variables and pointers to them (KHR and NV)
    "coopmat_arith",      # MulAdd, arithmetic on matrices, unsupported opcodes
    "coopmat_composite",  # construct, extract and insert
    "coopmat_convert",    # conversions and bitcasts
    "coopmat_memory",     # loads, stores, memory operands, Length
    "coopmat_qcom",       # SPV_QCOM_cooperative_matrix_conversion
    "float_encodings",    # bfloat16 and FP8 types, decorations and uses
    "scopes",             # Scope <id>s
    "structure",          # ids, result types, capabilities and extensions, versions
    "coopmat2_tensor",    # SPV_NV_tensor_addressing types and operations
    "coopmat2_memory",    # SPV_NV_cooperative_matrix2 tensor loads and stores
    "coopmat2_ops",       # SPV_NV_cooperative_matrix2 reduce, per-element, transpose, conversions
    "uniformity",         # dynamic uniformity of cooperative-matrix instructions and barriers (module rules)
)


def register() -> None:
    """Import every pass, then register their rules in PASSES order (once; later calls do nothing)."""
    if registry.sealed():
        return
    for name in PASSES:
        importlib.import_module(f"{__package__}.{name}")
    registry.seal(tuple(f"{__package__}.{name}" for name in PASSES))

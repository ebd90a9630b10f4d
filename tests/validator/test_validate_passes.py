"""The validator's written rules (issue 20, item 4): one ordered list of passes, the
cooperative-matrix gating declared per rule, and the shape cache never changing a report."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import spvcoop
import spvcoop.validator as validator
from spvcoop.core.diagnostics import Diagnostic, SpvError
from spvcoop.loader import load_module_bytes
from spvcoop.validator import BY_OPNAME, MODULE, RULES, rules_by_opcode, validate
from spvcoop.validator import registry
from spvcoop.validator.passes import PASSES

from conftest import REPO, big_module

ROOT = REPO
PACKAGE = Path(validator.__file__).parent


def _rule_modules_in_source() -> set[str]:
    """Modules of spvcoop.validator whose source declares a rule with the decorator."""
    return {p.stem for p in PACKAGE.glob("*.py") if re.search(r"^@rule\(", p.read_text(), re.M)}


def test_every_rule_module_is_a_listed_pass() -> None:
    assert _rule_modules_in_source() == set(PASSES)
    assert len(PASSES) == len(set(PASSES))


def test_every_listed_pass_exists_and_declares_rules() -> None:
    for name in PASSES:
        assert (PACKAGE / f"{name}.py").is_file(), name
    for info in pkgutil.iter_modules([str(PACKAGE)]):
        importlib.import_module(f"spvcoop.validator.{info.name}")  # an unlisted rule module raises here
    declared = {m: tuple(r.id for r in rs) for m, rs in registry._DECLARED.items()}
    assert {m.rsplit(".", 1)[1] for m in declared} == set(PASSES)
    assert all(declared[f"spvcoop.validator.{name}"] for name in PASSES)


def test_rules_run_in_pass_order() -> None:
    order = {f"spvcoop.validator.{name}": i for i, name in enumerate(PASSES)}
    for op, rules in BY_OPNAME.items():
        positions = [order[r.func.__module__] for r in rules]
        assert positions == sorted(positions), op
    assert all(RULES[r.id] is r for rs in BY_OPNAME.values() for r in rs)


def test_a_rule_outside_the_passes_is_refused() -> None:
    with pytest.raises(ValueError, match="passes.py"):
        registry.rule("test.stray", "OpFAdd", "A rule nobody listed.")(lambda ctx, inst: None)
    assert "test.stray" not in RULES


def test_coopmat_gating_is_declared_per_rule() -> None:
    gated = {r.id for r in RULES.values() if r.coopmat_only}
    assert {"coopmat.arith.opcode", "coopmat.variable.storage", "coopmat.construct"} <= gated
    assert RULES["coopmat.arith.encoding"].coopmat_only == \
        frozenset(RULES["coopmat.arith.encoding"].opnames) - {"OpCooperativeMatrixMulAddNV"}
    without = rules_by_opcode(False)
    assert "OpFAdd" not in without and "OpVariable" not in without
    assert [r.id for r in without["OpCooperativeMatrixMulAddNV"]][-1] == "coopmat.arith.encoding"
    assert "coopmat.length" not in [r.id for r in without.get("OpSpecConstantOp", [])]
    assert "OpTypeFloat" in without and "OpCooperativeMatrixLoadKHR" in without
    for r in RULES.values():
        assert r.coopmat_only <= set(r.opnames) and MODULE not in r.coopmat_only
    with pytest.raises(ValueError, match="coopmat_only"):
        registry.rule("test.bad_gate", "OpFAdd", "x", coopmat_only=("OpFSub",))


# ---- the shape cache is only a cache ------------------------------------------------------------

def _corpus() -> list[Path]:
    files: list[Path] = []
    for d in ("tests/data", "tests/kernels", "tests/kernels_spvasm", "samples", "bench/shaders"):
        files += sorted((ROOT / d).rglob("*.spvasm")) + sorted((ROOT / d).rglob("*.spv"))
    return files


def _env(data: bytes) -> str:
    m = re.search(rb"^; env:\s*(\S+)", data, re.M)
    return m.group(1).decode() if m else "universal"


def _report(diags: list[Diagnostic]) -> list[tuple]:
    return [(d.severity, d.rule, d.message, d.span, d.instruction_index, [(n.message, n.span) for n in d.notes])
            for d in diags]


@pytest.mark.slow
def test_shape_cache_never_changes_a_report() -> None:
    checked = findings = 0
    for path in _corpus():
        data = path.read_bytes()
        env = _env(data)
        try:
            module = load_module_bytes(data, str(path), "spv1.6" if env == "universal" else env)
        except SpvError:
            continue  # the assembler's own refusal tests: nothing to validate
        with_cache = validate(module, env, spirv_val=False, shape_cache=True)
        without = validate(module, env, spirv_val=False, shape_cache=False)
        assert _report(with_cache) == _report(without), path.relative_to(ROOT)
        checked += 1
        findings += len(without)
    assert checked >= 200 and findings >= 100  # the corpus is there and has invalid modules in it


def test_shape_cache_switch_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # The benchmark module repeats a few load/store shapes: the cache checks each shape once, without
    # it every load and store is checked.
    module = spvcoop.assemble(big_module(200), "big.spvasm", target_env="vulkan1.3")
    calls: list[int] = []
    r = RULES["coopmat.khr.layout"]
    original = r.func

    def counting(ctx, inst) -> None:
        calls.append(inst.index)
        original(ctx, inst)
    object.__setattr__(r, "func", counting)
    try:
        validate(module, spirv_val=False)
        cached = len(calls)
        calls.clear()
        monkeypatch.setenv(validator.NO_SHAPE_CACHE_ENV, "1")
        validate(module, spirv_val=False)
    finally:
        object.__setattr__(r, "func", original)
    loads = sum(i.opname in ("OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixStoreKHR")
                for i in module.instructions)
    assert len(calls) == loads >= 400 and cached < loads / 2

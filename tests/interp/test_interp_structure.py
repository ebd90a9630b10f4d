"""The interpreter's structure: the dispatcher refuses bad families at start-up, settings are checked,
and spvcoop/interp has no import circle."""
import ast
from pathlib import Path

import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.interp.config import ConfigError, RunConfig
from spvcoop.interp.dispatch import DispatchError, Family, KindHooks, OpSet, build
from spvcoop.interp.families import default_dispatcher, families
from spvcoop.core.spirv_grammar import load as load_grammar

SAXPY = """
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
"""


def _op(ex, frame, inst, mask):
    return None


def test_default_table_names_only_real_opcodes():
    d = default_dispatcher()
    grammar = load_grammar()
    assert d.families == ("core", "coopmat", "coopmat2")
    assert set(d.ops) <= set(grammar.instructions)
    assert "OpCooperativeMatrixMulAddKHR" in d.ops and "OpFAdd" in d.ops
    assert "OpCooperativeMatrixReduceNV" in d.ops and "OpTensorLayoutSliceNV" in d.ops
    assert "Sqrt" in d.ext_ops["GLSL.std.450"]
    assert default_dispatcher() is d  # built once


def test_misspelt_op_name_fails_at_build():
    s = OpSet()
    s.op("OpFAddd")(_op)
    with pytest.raises(DispatchError, match="OpFAddd.*not a SPIR-V opcode"):
        build([Family("x", (s,))])


def test_misspelt_ext_op_fails_at_build():
    s = OpSet()
    s.ext_op("GLSL.std.450", "Sqrtt")(lambda ex, inst, args, mask: None)
    with pytest.raises(DispatchError, match="Sqrtt"):
        build([Family("x", (s,))])


def test_op_defined_by_two_families_fails():
    a, b = OpSet(), OpSet()
    a.op("OpFAdd")(_op)
    b.op("OpFAdd")(_op)
    with pytest.raises(DispatchError, match="already defined by family a"):
        build([Family("a", (a,)), Family("b", (b,))])


def test_extension_needs_an_earlier_family():
    s = OpSet()
    s.extends("OpFAdd", when=lambda ex, inst: True)(lambda ex, frame, inst, mask, base: None)
    with pytest.raises(DispatchError, match="extends OpFAdd, which no earlier family defines"):
        build([Family("x", (s,))])


def test_extension_runs_where_its_predicate_holds_and_hands_over_elsewhere():
    core, ext = OpSet(), OpSet()
    core.op("OpFAdd")(lambda ex, frame, inst, mask: "core")
    ext.extends("OpFAdd", when=lambda ex, inst: inst == "mine")(
        lambda ex, frame, inst, mask, base: ("ext", base(ex, frame, inst, mask)))
    d = build([Family("core", (core,)), Family("ext", (ext,))])
    assert d.ops["OpFAdd"](None, None, "mine", None) == ("ext", "core")
    assert d.ops["OpFAdd"](None, None, "other", None) == "core"


def test_kind_hooks_declared_twice_fail():
    h = KindHooks("thing", zeros=lambda t, n: None)
    with pytest.raises(DispatchError, match="'thing'"):
        build([Family("a", (), kinds=(h,)), Family("b", (), kinds=(h,))])


def test_families_are_the_declared_ones():
    assert [f.name for f in families()] == ["core", "coopmat", "coopmat2"]


def test_each_extension_family_defines_the_ops_of_its_capabilities():
    """A family's package declares CAPABILITIES; its op sets define exactly the instructions those enable (the
    types among them are its kinds), so the grammar says which instructions need the family."""
    import importlib
    from spvcoop.core.spirv_grammar import load
    from spvcoop.interp import families as fam_mod
    grammar = load()
    for pkg, family in zip(fam_mod._EXTENSION_FAMILIES, families()[1:], strict=True):
        caps = set(importlib.import_module(pkg, "spvcoop.interp").CAPABILITIES)
        enabled = {n for n, i in grammar.instructions.items() if caps & set(i.capabilities)}
        defined = set().union(*(s.ops for s in family.op_sets))
        assert defined == {n for n in enabled if not n.startswith("OpType")}, family.name
        assert caps <= fam_mod.extension_capabilities()


def test_only_the_families_instructions_load_them():
    """The extension families load for an instruction one of them implements, not for another extension's
    instruction that merely looks alike (ARM tensors: no family implements them)."""
    from types import SimpleNamespace
    from spvcoop.interp.families import uses_extension_families

    def module(*opnames):
        return SimpleNamespace(instructions=[SimpleNamespace(opname=n) for n in ("OpCapability", *opnames)])
    for op in ("OpTypeCooperativeMatrixNV", "OpBitCastArrayQCOM", "OpTensorViewSetClipNV",
               "OpCooperativeMatrixReduceNV", "OpTypeTensorLayoutNV"):
        assert uses_extension_families(module(op)), op
    for op in ("OpTypeTensorARM", "OpTensorReadARM", "OpFAdd", "OpImageBlockMatchSADQCOM"):
        assert not uses_extension_families(module(op)), op


@pytest.mark.parametrize("kwargs, match", [
    (dict(coop_numerics="nvidia_tensorcore"), "unknown coop_numerics 'nvidia_tensorcore'"),
    (dict(subgroup_size=3), "power of two"),
    (dict(subgroup_size=0), "power of two"),
    (dict(max_steps=0), "max_steps"),
    (dict(trace=-1.5), "trace"),
])
def test_config_refuses_bad_settings(kwargs, match):
    with pytest.raises(ConfigError, match=match) as e:
        RunConfig(**kwargs)
    assert isinstance(e.value, SpvError) and isinstance(e.value, ValueError)


def test_run_refuses_unknown_coop_numerics():
    from spvcoop.interp import run
    with pytest.raises(SpvError, match="unknown coop_numerics"):
        run(SAXPY, coop_numerics="nvidia_tensorcore")
    with pytest.raises(ValueError, match="unknown coop_numerics"):
        run(SAXPY, coop_numerics="IEEE")
    assert run(SAXPY, coop_numerics="nvidia-tensorcore").invocations == 1


def _imports(root: Path) -> dict[str, set[str]]:
    """Every import (module level or not) between modules of spvcoop.interp."""
    pkg_root = root.parent
    mods = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(pkg_root.parent).with_suffix("").parts)
        pkg = parts[:-1]
        if parts[-1] == "__init__":
            parts = parts[:-1]
            pkg = parts
        mods[".".join(parts)] = (p, pkg)
    graph = {}
    for name, (p, pkg) in mods.items():
        deps = set()
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom):
                target = ".".join(pkg[:len(pkg) - n.level + 1] + ([n.module] if n.module else [])) if n.level \
                    else n.module
                for a in n.names:
                    deps.add(f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target)
            elif isinstance(n, ast.Import):
                deps.update(a.name for a in n.names)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


@pytest.mark.slow
def test_no_import_circle_in_interp():
    import spvcoop.interp
    graph = _imports(Path(spvcoop.interp.__file__).parent)
    assert "spvcoop.interp.coopmat.core" in graph
    state: dict[str, int] = {}
    cycles = []

    def visit(u, path):
        state[u] = 1
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                cycles.append(path[path.index(v):] + [v])
            elif v not in state:
                visit(v, path + [v])
        state[u] = 2
    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []
    core = graph["spvcoop.interp.coopmat.core"]
    assert not any(m.startswith("spvcoop.interp.coopmat.") for m in core)  # the op modules import core only


@pytest.mark.slow
def test_interp_never_imports_the_commands():
    import spvcoop.interp
    for p in Path(spvcoop.interp.__file__).parent.rglob("*.py"):
        names = {n.module for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.ImportFrom) and n.module}
        assert not any({"commands", "cli"} & set(m.split(".")) for m in names), p

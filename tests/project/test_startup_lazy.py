"""What a run loads at start (issue 14, start-up): a module without extension ops runs without importing the
cooperative-matrix families, their numerics or ml_dtypes; the SPIR-V grammar's entries are built on first
use and are the same objects, in the same order, as a whole build gives."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spvcoop.core import spirv_grammar
from spvcoop.interp import families
from spvcoop.loader import load_module
from conftest import REPO

ROOT = REPO
SAXPY = ROOT / "samples" / "saxpy" / "saxpy.spvasm"
GEMM = ROOT / "samples" / "coopmat" / "khr_gemm" / "gemm.spvasm"
# the extension families' modules (their packages' __init__, a docstring and CAPABILITIES, may load: that is how
# families.dispatcher_for learns which instructions need them)
EXTENSION_MODULES = ("spvcoop.interp.coopmat.", "spvcoop.interp.coopmat2.", "spvcoop.numerics", "ml_dtypes",
                     "spvcoop.validator.profiles")

_PROBE = """
import json, sys
import numpy as np
from spvcoop.interp import run
res = run(sys.argv[1], dispatch=(1, 1, 1), buffers={"x": np.ones(4, np.float32), "y": np.ones(4, np.float32)},
          push_constants={"a": 2.0, "n": 4})
from spvcoop.core.spirv_grammar import load
g = load()
built = [dict.__len__(t) for t in (g.instructions, g.by_opcode, g.operand_kinds)]
print(json.dumps({"y": res["y"].tolist(), "modules": sorted(m for m in sys.modules if m.startswith(%r)),
                  "built": built}))
"""


def _fresh_run(shader: Path, prefixes: tuple[str, ...]) -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE % (prefixes,), str(shader)], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


@pytest.mark.slow
def test_a_plain_run_imports_no_extension_family() -> None:
    """Validated and run: no extension family, no numerics, no ml_dtypes, no device profiles."""
    got = _fresh_run(SAXPY, EXTENSION_MODULES)
    assert got["y"][0] == 3.0
    assert got["modules"] == []
    # the grammar entries the module's instructions and operands need, not all ~900 (+ ~70 kinds)
    assert max(got["built"]) < 60, got["built"]


def test_extension_modules_get_the_whole_table() -> None:
    assert families.uses_extension_families(load_module(str(GEMM)))
    assert not families.uses_extension_families(load_module(str(SAXPY)))
    assert families.dispatcher_for(load_module(str(GEMM))) is families.default_dispatcher()
    core = families.dispatcher_for(load_module(str(SAXPY)))
    assert core.families == ("core",) and "OpCooperativeMatrixMulAddKHR" not in core.ops
    assert set(core.ops) < set(families.default_dispatcher().ops)


def test_an_extension_op_without_its_capability_still_finds_its_family(tmp_path) -> None:
    """The table is picked from the ops and types a module names, not from its capabilities."""
    text = GEMM.read_text().replace("OpCapability CooperativeMatrixKHR\n", "")
    assert "OpCapability CooperativeMatrixKHR" not in text
    p = tmp_path / "nocap.spvasm"
    p.write_text(text)
    assert families.dispatcher_for(load_module(str(p))) is families.default_dispatcher()


def _whole() -> spirv_grammar.Grammar:
    g = spirv_grammar.load.__wrapped__()
    for table in (g.instructions, g.by_opcode, g.operand_kinds):
        list(table.items())
    return g


def test_lazy_grammar_lookups_build_what_a_whole_build_gives() -> None:
    lazy, whole = spirv_grammar.load.__wrapped__(), _whole()
    for name in ("OpFAdd", "OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV", "OpDecorateStringGOOGLE",
                 "OpDecorateString"):
        assert lazy.instructions[name] == whole.instructions[name]
        assert lazy.instructions.get(name) is lazy.instructions[name]
    # an alias and its instruction are one object, also when reached by opcode
    spec = lazy.instructions["OpDecorateStringGOOGLE"]
    assert spec is lazy.instructions["OpDecorateString"] is lazy.by_opcode[spec.opcode]
    assert "OpNoSuchThing" not in lazy.instructions and lazy.instructions.get("OpNoSuchThing", 7) == 7
    with pytest.raises(KeyError):
        lazy.operand_kinds["NoSuchKind"]
    assert lazy.operand_kinds["Capability"].by_name == whole.operand_kinds["Capability"].by_name
    # whole-table views: the grammar's order, every entry, equal tables
    assert list(lazy.instructions) == list(whole.instructions) and len(lazy.instructions) == len(whole.instructions)
    assert list(lazy.by_opcode.keys()) == list(whole.by_opcode.keys())
    assert lazy.instructions == whole.instructions and lazy.by_opcode == whole.by_opcode
    fresh = spirv_grammar.load.__wrapped__()
    for copied in (fresh.operand_kinds.copy(), dict(fresh.by_opcode), {**fresh.instructions}):
        assert len(copied) == len(copied.keys()) > 50
    assert [k.kind for k in lazy.operand_kinds.values()] == [k.kind for k in whole.operand_kinds.values()]


def test_lazy_tables_compare_by_content() -> None:
    a, b = spirv_grammar.load.__wrapped__(), spirv_grammar.load.__wrapped__()
    assert a.instructions == b.instructions             # nothing built yet on either side: compared in full
    assert a.instructions == b.instructions
    assert a.instructions != {"OpFAdd": a.instructions["OpFAdd"]}


def test_profile_rules_are_listed_without_loading_profiles() -> None:
    out = subprocess.run([sys.executable, "-c", "import sys; from spvcoop.validator import RULES; "
                          "print('profile.muladd' in RULES, 'spvcoop.validator.profiles' in sys.modules)"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["True", "False"]


_CLI_PROBE = """
import json, sys
from spvcoop.cli import main
rc = main(sys.argv[1:])
print(json.dumps([rc, sorted(m for m in sys.modules if m.split('.')[0] in ('dataclasses', 'pydantic')
                             or m == 'spvcoop.runspec.schema')]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("case", ["si-input", "run-spec"])
def test_a_plain_run_imports_no_dataclasses_and_no_schema(case: str, tmp_path) -> None:
    """The start-up path's classes are plain records (records.py) and an ordinary run spec or input file passes
    the plain checks: a validated run imports neither dataclasses nor pydantic (nor the run spec schema)."""
    (tmp_path / "saxpy.spvasm").write_bytes(SAXPY.read_bytes())
    (tmp_path / "in.yaml").write_text("pc: {a: 2.0, n: 1}\nx: [1.0]\ny: [1.0]\n")
    (tmp_path / "spec.yaml").write_text("shader: saxpy.spvasm\ndispatch: [1, 1, 1]\npush_constants: {a: 2.0, n: 1}\n"
                                        "buffers:\n  x: {data: [1.0], dtype: float32}\n  y: [1.0]\n")
    args = (["run", "saxpy.spvasm", "--dispatch", "1,1,1", "--input", "in.yaml"] if case == "si-input"
            else ["run", "spec.yaml"])
    out = subprocess.run([sys.executable, "-c", _CLI_PROBE, *args], capture_output=True, text=True, check=True,
                         cwd=tmp_path)
    assert "y: [3.0]" in out.stdout
    assert json.loads(out.stdout.splitlines()[-1]) == [0, []]


_PARSER_PROBE = """
import sys
sys.argv = ["spvcoop", *sys.argv[1:]]
from spvcoop import cli
try:
    cli.main()
except SystemExit:
    pass
heavy = ("numpy", "pydantic", "lark", "spvcoop.interp.runner", "spvcoop.interp.executor", "spvcoop.layouts.model")
print("LOADED", sorted(m for m in sys.modules if m in heavy))
print("COMMANDS", sorted(m for m in sys.modules if m.startswith("spvcoop.commands.") and not m.endswith(".common")))
"""


def _cli_modules(argv: list[str]) -> tuple[list[str], list[str]]:
    out = subprocess.run([sys.executable, "-c", _PARSER_PROBE, *argv], capture_output=True, text=True, cwd=ROOT)
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.startswith(("LOADED", "COMMANDS")))
    return json.loads(lines["LOADED"].replace("'", '"')), json.loads(lines["COMMANDS"].replace("'", '"'))


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"], ["layout", "show", "--help"],
                                  ["run"], ["nosuch"], ["run", "x.yaml", "--no-such-flag"], ["val", "--help"]])
def test_help_version_and_usage_errors_import_nothing_heavy(argv) -> None:
    """`--version`, `--help` and usage errors build the parser without numpy, pydantic, lark, the interpreter or
    the layout models (issue 33: the CLI starts at once; the time is measured by bench/bench_startup.py)."""
    loaded, _ = _cli_modules(argv)
    assert loaded == []


def test_version_registers_no_command() -> None:
    assert _cli_modules(["--version"])[1] == []
    assert "spvcoop.commands.run" in _cli_modules(["--help"])[1]

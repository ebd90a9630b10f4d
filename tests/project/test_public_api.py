"""The public API: plain functions on the package, the same object on every access and every call."""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import numpy as np

import spvcoop
from conftest import REPO

SAXPY = REPO / "samples" / "saxpy" / "saxpy.spvasm"
API = ("assemble", "disassemble", "read_binary", "validate", "run")


def test_api_names_are_functions_with_type_hints() -> None:
    for name in API:
        fn = getattr(spvcoop, name)
        assert inspect.isfunction(fn), name
        assert fn.__module__ == "spvcoop" and "return" in fn.__annotations__, name
        assert name in spvcoop.__all__


def test_each_api_function_works_twice() -> None:
    text = SAXPY.read_text()
    for _ in range(2):
        module = spvcoop.assemble(text, str(SAXPY))
        data = module.to_bytes()
        again = spvcoop.read_binary(data)
        assert again.to_bytes() == data
        assert spvcoop.disassemble(again).startswith("; SPIR-V")
        assert [d for d in spvcoop.validate(module, "vulkan1.3") if d.severity == "error"] == []
        x = np.arange(64, dtype=np.float32)
        y = np.ones(64, dtype=np.float32)
        res = spvcoop.run(module, dispatch=(1, 1, 1), buffers={"x": x, "y": y}, push_constants={"a": 2.0, "n": 64})
        np.testing.assert_array_equal(res["y"], 2 * x + 1)
    for name in API:  # importing the implementing modules did not replace the functions
        assert inspect.isfunction(getattr(spvcoop, name)), name


def test_run_signature_is_the_declared_options() -> None:
    """spvcoop.run's keyword-only parameters are interp/options.py's OPTIONS: same names and defaults (generated
    by tools/gen_docs.py from the declarations)."""
    from spvcoop.interp.options import OPTIONS
    params = inspect.signature(spvcoop.run).parameters
    kwonly = [p for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    declared = [(o.name, o.default) for o in OPTIONS]
    missing = [n for n, _ in declared if n not in params]
    assert not missing, f"spvcoop.run has no keyword {missing}: run python tools/gen_docs.py"
    assert {p.name: p.default for p in kwonly} == dict(declared)   # (order free: options may be inserted anywhere)
    assert [p.name for p in params.values()][:5] == ["shader", "dispatch", "buffers", "spec_constants",
                                                     "push_constants"]
    assert all(p.annotation is not inspect.Parameter.empty for p in params.values())
    doc = spvcoop.run.__doc__ or ""
    assert all(f"{o.name}: " in doc for o in OPTIONS) and "Parameters:" in doc and "Raises:" in doc
    assert "**" not in str(inspect.signature(spvcoop.run))


@pytest.mark.slow
def test_the_package_is_typed_for_mypy(tmp_path) -> None:
    """py.typed ships (PEP 561), and mypy checks a call of spvcoop.run against the options' types."""
    import os
    import subprocess
    import sys
    root = Path(spvcoop.__file__).parent
    assert (root / "py.typed").exists()
    assert '"spvcoop" = ["py.typed"]' in (root.parent / "pyproject.toml").read_text()
    user = tmp_path / "user.py"
    user.write_text("import spvcoop\nres = spvcoop.run('x.spvasm', max_tme=1)\nspvcoop.run('x', max_time=[1])\n"
                    "reveal_type(res)\n")
    p = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(user)],
                       capture_output=True, text=True, env=dict(os.environ, MYPYPATH=str(root.parent)))
    assert 'Unexpected keyword argument "max_tme" for "run"; did you mean "max_time"?' in p.stdout, p.stdout
    assert 'Argument "max_time" to "run" has incompatible type "list[int]"' in p.stdout
    assert 'Revealed type is "spvcoop.interp.runner.RunResult"' in p.stdout


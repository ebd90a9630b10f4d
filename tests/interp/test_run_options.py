"""Issue 20: one declaration per run option (spvcoop/interp/options.py), every surface derived from it; the
library never writes to the terminal (warnings and notes travel in RunResult.diagnostics, trace lines go to
the caller's stream or callback); the same call gives the same diagnostics every time."""
from __future__ import annotations

import argparse
import io

import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import run
from spvcoop.interp.config import RunConfig
from spvcoop.interp.options import OPTIONS, SPEC_KEYS
from conftest import REPO

ROOT = REPO
SAXPY = ROOT / "samples" / "saxpy"

DOUBLE = """
#version 450
layout(local_size_x = 4) in;
layout(constant_id = 3) const uint K = 2;
layout(binding = 0) buffer B { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = v[gl_GlobalInvocationID.x] * K + 1u; }
"""


def _run_parser(command: str = "run") -> argparse.ArgumentParser:
    from spvcoop.cli import build_parser
    sub = next(a for a in build_parser().__dict__["_actions"] if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def test_every_option_reaches_every_surface() -> None:
    from spvcoop.runspec.checks import SPEC_KEYS as ALL_SPEC_KEYS
    from spvcoop.runspec.schema import RunSpecModel
    fields = set(RunConfig._fields)
    flags = {a.dest: a for a in _run_parser()._actions}
    portability = {a.dest for a in _run_parser("portability")._actions}
    for o in OPTIONS:
        assert o.name in fields, o.name                                     # RunConfig
        assert getattr(RunConfig(), o.name) == o.default or o.name == "subgroup_size"
        if o.flag:                                                          # CLI flags, dest = the keyword
            assert flags[o.name].option_strings == [o.flag] and flags[o.name].default is None, o.name
            assert o.help.split(" (")[0][:40] in flags[o.name].help, o.name
            assert (o.name in portability) == (o.name not in ("layout", "trace")), o.name
        if o.spec_key:                                                      # run-spec keys, both checks
            assert SPEC_KEYS[o.spec_key] is o and o.spec_key in ALL_SPEC_KEYS
            assert o.spec_key in RunSpecModel.model_fields
    assert RunConfig(subgroup_size=None).subgroup_size == 32                # resolved in one place


def test_run_and_the_fixture_take_every_option_and_refuse_others(spvcoop_run) -> None:
    values = {o.name: o.default for o in OPTIONS}
    values.update(trace=0, trace_out=[].append)
    res = spvcoop_run(DOUBLE, buffers={"v": np.arange(4, dtype=np.uint32)}, **values)
    assert res["v"].tolist() == [1, 3, 5, 7]
    for call in (lambda: run(str(SAXPY / "saxpy.spvasm"), max_step=10),
                 lambda: spvcoop_run(DOUBLE, max_step=10)):
        with pytest.raises(TypeError, match="unexpected keyword argument 'max_step' \\(did you mean 'max_steps'"):
            call()


def test_spec_options_apply_and_flags_override_them(tmp_path, capsys) -> None:
    from spvcoop.cli import main
    (tmp_path / "double.comp").write_text(DOUBLE)
    (tmp_path / "run.yaml").write_text("shader: double.comp\nmax_steps: 2\nbuffers:\n  v: {zeros: 4, dtype: uint32}\n")
    assert main(["run", str(tmp_path / "run.yaml"), "-q"]) == 1
    assert "step limit of 2 executed instructions" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "run.yaml"), "-q", "--max-steps", "1K"]) == 0


@pytest.fixture
def double(tmp_path) -> str:
    p = tmp_path / "double.comp"
    p.write_text(DOUBLE)
    return str(p)


def test_the_same_call_gives_the_same_notes_every_time(double, capfd) -> None:
    """No process-wide 'already printed' state: the note comes back from every run, and nothing is printed."""
    got = []
    for _ in range(2):
        res = run(double, buffers={"v": np.zeros(4, np.uint32)}, spec_constants={3: 5, 9: 1})
        got.append([d.headline() for d in res.diagnostics])
    assert got[0] == got[1] and len(got[0]) == 1 and "specialization constant id 9 is not declared" in got[0][0]
    assert capfd.readouterr() == ("", "")


def test_a_failed_run_keeps_its_notes_after_the_error(spvcoop_run) -> None:
    with pytest.raises(SpvError) as e:
        spvcoop_run(DOUBLE, buffers={"v": np.zeros(4, np.uint32)}, spec_constants={9: 1}, max_steps=1)
    assert [d.severity for d in e.value.diagnostics] == ["error", "note"]
    assert e.value.diagnostics[0].rule == "interp.max-steps"


def test_trace_goes_to_the_callers_stream_callback_or_the_result(double, capfd) -> None:
    buf, lines = io.StringIO(), []
    kw = dict(buffers={"v": np.zeros(4, np.uint32)}, trace=2)
    kept = run(double, **kw).trace
    run(double, trace_out=buf, **kw)
    run(double, trace_out=lines.append, **kw)
    assert kept and buf.getvalue().splitlines() == lines == kept
    assert any("OpIMul" in line for line in kept)
    assert capfd.readouterr() == ("", "")


def test_cli_shows_the_notes_of_a_run(tmp_path, capsys) -> None:
    from spvcoop.cli import main
    (tmp_path / "double.comp").write_text(DOUBLE)
    (tmp_path / "run.yaml").write_text("shader: double.comp\nspec_constants: {9: 1}\n"
                                       "buffers:\n  v: {zeros: 4, dtype: uint32}\n")
    assert main(["run", str(tmp_path / "run.yaml"), "-q"]) == 0
    assert "note: specialization constant id 9 is not declared by the module" in capsys.readouterr().err


def test_a_switch_is_declared_not_guessed(monkeypatch) -> None:
    """Whether a flag takes a value is its declaration's `switch` (the flag turns the option on), not a guess from
    a False default and a missing metavar: an option declared that way without `switch` still takes a value."""
    from spvcoop.commands.run import add_execution_options
    from spvcoop.interp import options
    valued = options.RunOption("level", False, options.on_off, "a level", "--level", api_type="bool | str")
    switch = options.RunOption("lit", False, options.flag, "lights", "--lit", api_type="bool", switch=True)
    monkeypatch.setattr(options, "OPTIONS", options.OPTIONS + (valued, switch))
    p = argparse.ArgumentParser()
    add_execution_options(p)
    args = p.parse_args(["spec.yaml", "--level", "on", "--lit"])
    assert args.level == "on" and args.lit is True
    with pytest.raises(ValueError, match="a switch has a flag, no metavar, default False"):
        options.RunOption("bad", None, options.flag, "x", "--bad", switch=True)
    flags = {a.dest: a for a in _run_parser()._actions}
    for o in OPTIONS:   # the real options: no value exactly for switches and negations
        if o.flag:
            assert (flags[o.name].nargs == 0) == (o.switch or o.cli_false), o.name

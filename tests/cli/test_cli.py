"""The command line's contract: exit statuses, internal errors, global options, no side effects
on an in-process caller."""
from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

import spvcoop.asm.assembler
from spvcoop import cli
from spvcoop.core import files
from spvcoop.core.reference_tools import find_tool
from conftest import REPO

GOOD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def _boom(*args, **kwargs):
    raise ZeroDivisionError("a planted bug")


def test_internal_error_is_one_line_and_exit_3(tmp_path, monkeypatch, capsys) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD)
    monkeypatch.setattr(spvcoop.asm.assembler, "assemble_binary", _boom)
    rc = cli.main(["as", str(src), "-o", str(tmp_path / "m.spv")])
    err = capsys.readouterr().err
    assert rc == cli.EXIT_INTERNAL_ERROR == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("spvcoop: internal error at spvcoop/commands/asm.py:")  # innermost spvcoop frame
    assert "internal error at" in lines[0] and "(please report)" in lines[0]
    assert f"while processing {src}" in lines[0] and "ZeroDivisionError: a planted bug" in lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "m.spv").exists()


def test_debug_shows_the_traceback(tmp_path, monkeypatch, capsys) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD)
    monkeypatch.setattr(spvcoop.asm.assembler, "assemble_binary", _boom)
    assert cli.main(["as", str(src), "--debug"]) == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "internal error at" in err


def test_internal_error_names_the_spvcoop_frame() -> None:
    try:
        files.read_input(None)  # type: ignore[arg-type]  # a TypeError inside spvcoop
    except TypeError as e:
        line = cli.internal_error_line(e)
    assert "internal error at spvcoop/core/files.py:" in line


def test_unreadable_input_exits_2(tmp_path, capsys) -> None:
    assert cli.main(["dis", str(tmp_path / "missing.spv")]) == 2
    assert "cannot read input" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["before", "after"])
def test_max_input_size(tmp_path, capsys, where) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD * 100)
    opt = ["--max-input-size", "1K"]
    argv = opt + ["as", str(src)] if where == "before" else ["as", str(src)] + opt
    assert cli.main(argv) == 2
    assert "larger than the limit of 1024 bytes (raise it with --max-input-size)" in capsys.readouterr().err
    assert files.max_input_bytes == files.DEFAULT_MAX_INPUT_BYTES  # restored for the next caller
    assert cli.main(["as", str(src), "-o", str(tmp_path / "m.spv"), "--max-input-size", "1M"]) == 0


def test_input_size_cap_stops_an_endless_stream(capsys, monkeypatch) -> None:
    import io

    class Endless(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, b) -> int:
            b[:] = bytes(len(b))
            return len(b)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    assert cli.main(["as", "-", "--max-input-size", "64K"]) == 2
    assert "-: error: input is larger than the limit" in capsys.readouterr().err
    # a device named as input is not read at all (tests/cli/test_security.py)
    assert cli.main(["as", "/dev/zero", "--max-input-size", "64K"]) == 2
    assert "/dev/zero: error: not read: a character device" in capsys.readouterr().err


def test_bad_size_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["--max-input-size", "lots", "as", "x"])
    assert e.value.code == 2


def test_main_leaves_the_garbage_collector_alone(tmp_path) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD)
    assert gc.isenabled()
    assert cli.main(["as", str(src), "-o", str(tmp_path / "m.spv")]) == 0
    assert gc.isenabled()


def test_finding_a_tool_leaves_the_environment_alone() -> None:
    before = os.environ.get("LD_LIBRARY_PATH")
    find_tool.cache_clear()
    tool = find_tool("spirv-dis")
    assert tool is not None and os.environ.get("LD_LIBRARY_PATH") == before
    r = tool.run("--version", text=True)
    assert r.returncode == 0 and "SPIRV-Tools" in r.stdout


def test_console_script_exit_status(tmp_path) -> None:
    r = subprocess.run([sys.executable, "-m", "spvcoop", "dis", str(tmp_path / "nope.spv")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr


SAXPY = os.path.join(REPO, "samples", "saxpy", "run.yaml")
SAXPY_DIR = __import__("pathlib").Path(SAXPY).parent


def test_run_step_limit_names_its_option(capsys) -> None:
    assert cli.main(["run", SAXPY, "--max-steps", "5", "-q"]) == 1
    err = capsys.readouterr().err
    assert "error[interp.max-steps]: step limit of 5 executed instructions" in err and "--max-steps" in err


def test_run_memory_budget_names_its_option(capsys) -> None:
    assert cli.main(["run", SAXPY, "--max-memory", "1K", "-q"]) == 1
    err = capsys.readouterr().err
    assert "error[interp.max-memory]: memory budget of 1 KiB exceeded" in err and "--max-memory" in err
    assert cli.main(["run", SAXPY, "--max-memory", "64M", "-q"]) == 0


def test_output_onto_a_directory_is_a_clean_error(tmp_path, capsys) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD)
    target = tmp_path / "out"
    target.mkdir()
    assert cli.main(["as", str(src), "-o", str(target)]) == 2
    assert "cannot write output: Is a directory" in capsys.readouterr().err
    assert list(target.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["m.spvasm", "out"]


def test_run_subgroup_size_out_of_range(capsys) -> None:
    assert cli.main(["run", SAXPY, "--subgroup-size", str(2**64), "-q"]) == 2   # a usage error
    assert ("<command line>: error: --subgroup-size: subgroup_size must be a power of two from 1 to 128, got "
            "18446744073709551616") in capsys.readouterr().err


def test_run_work_limit_names_its_option(capsys) -> None:
    assert cli.main(["run", SAXPY, "--max-work", "64", "-q"]) == 1
    err = capsys.readouterr().err
    assert "error[interp.max-work]: work limit of 64 reached" in err and "--max-work" in err


def test_run_npy_outputs_stay_in_their_directory(tmp_path, capsys) -> None:
    # buffer names come from OpName/OpMemberName strings: a hostile one must not lead out of -o DIR/
    text = (SAXPY_DIR / "saxpy.spvasm").read_text().replace('OpMemberName %Y 0 "y"', 'OpMemberName %Y 0 "../../esc"')
    (tmp_path / "s.spvasm").write_text(text)
    spec = tmp_path / "run.yaml"
    spec.write_text((SAXPY_DIR / "run.yaml").read_text().replace("saxpy.spvasm", "s.spvasm")
                    .replace("outputs: [y]", 'outputs: ["../../esc"]').replace("\n  y:", '\n  "../../esc":'))
    out = tmp_path / "out"
    assert cli.main(["run", str(spec), "-q", "-o", str(out) + "/"]) == 0
    assert [p.name for p in out.iterdir()] == ["_.._esc.npy"]
    # out/../../esc is tmp_path.parent/esc: nothing of that name there or on the way (exact names: a sibling
    # test's folder, e.g. ...writescurrent0, may contain the letters)
    for d in (tmp_path.parent, tmp_path):
        assert not [p for p in d.iterdir() if p.name in ("esc", "esc.npy", "_.._esc.npy")]


def test_outputs_named_by_binding_number(tmp_path, capsys) -> None:
    spec = tmp_path / "run.yaml"
    for name in ("saxpy.spvasm",):
        (tmp_path / name).write_text((SAXPY_DIR / name).read_text())
    spec.write_text((SAXPY_DIR / "run.yaml").read_text().replace("outputs: [y]", "outputs: [1]"))
    assert cli.main(["run", str(spec), "-q", "-o", str(tmp_path / "o.json")]) == 0
    import json
    assert json.loads((tmp_path / "o.json").read_text())["1"][:3] == [1.0, 3.0, 5.0]


def test_layout_size_options_are_bounded(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["layout", "list", "--max-model-bytes", str(2**64)])
    assert e.value.code == 2 and "up to 2^48" in capsys.readouterr().err


def test_a_raised_input_limit_costs_no_memory_for_a_small_file(tmp_path) -> None:
    # read(n) allocates n bytes at once: with an 8 GiB limit under a 1 GiB address-space cap a small
    # file must still be read (the fuzzing driver found a MemoryError here)
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD)
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "from spvcoop import cli; sys.exit(cli.main(sys.argv[1:]))")
    r = subprocess.run([sys.executable, "-c", code, "as", str(src), "-o", str(tmp_path / "m.spv"),
                        "--max-input-size", "8G"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_an_input_limit_beyond_memory_is_a_clean_error() -> None:
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "from spvcoop import cli; sys.exit(cli.main(sys.argv[1:]))")
    with open("/dev/zero", "rb") as zero:  # an endless stream on stdin: a device named as input is not read
        r = subprocess.run([sys.executable, "-c", code, "as", "-", "--max-input-size", "4G"],
                           stdin=zero, capture_output=True, text=True)
    assert r.returncode == 2 and "not enough memory to read up to 4294967296 bytes" in r.stderr, r.stderr


# ---- the command line imports only the command it names (start-up) ------------------------------
def test_command_names_are_what_each_module_registers() -> None:
    import argparse
    import importlib
    for module in cli.COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(sub)
        assert sorted(sub.choices) == sorted(n for n, m in cli.COMMAND_NAMES.items() if m == module)


def test_every_command_module_declares_its_commands() -> None:
    """cli.py reads each module's `COMMANDS, HELP_ORDER = ...` line as text: what it read is what the module
    holds, every module with a register() has the line, and the --help order is the declared one."""
    import importlib
    import pkgutil
    import spvcoop.commands
    with_register = {f"spvcoop.commands.{m.name}" for m in pkgutil.iter_modules(spvcoop.commands.__path__)
                     if hasattr(importlib.import_module(f"spvcoop.commands.{m.name}"), "register")}
    assert set(cli.COMMAND_MODULES) == with_register
    orders = []
    for module in cli.COMMAND_MODULES:
        mod = importlib.import_module(module)
        assert tuple(n for n, m in cli.COMMAND_NAMES.items() if m == module) == mod.COMMANDS, module
        orders.append(mod.HELP_ORDER)
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert cli.COMMAND_MODULES[:3] == ["spvcoop.commands.asm", "spvcoop.commands.dis", "spvcoop.commands.val"]


@pytest.mark.parametrize("argv, want", [
    (["as", "x.spvasm"], "spvcoop.commands.asm"),
    (["--debug", "run", "spec.yaml"], "spvcoop.commands.run"),
    (["--max-input-size", "1M", "dis", "m.spv"], "spvcoop.commands.dis"),
    (["--max-input-size", "run"], None),   # 'run' is the option's value: no command named
    (["-h"], None), (["--version"], ""), (["--debug", "--version"], ""), (["nosuch"], None), ([], None),
    (["--", "run"], None)])
def test_chosen_command(argv, want) -> None:
    assert cli.chosen_command(argv) == want


def test_one_command_parses_as_the_whole_parser() -> None:
    argv = ["--debug", "run", "s.yaml", "--dispatch", "2,1,1", "-q", "--max-input-size", "2M"]
    assert vars(cli.build_parser(cli.chosen_command(argv)).parse_args(argv)) == \
        vars(cli.build_parser().parse_args(argv))


@pytest.mark.slow
def test_a_run_imports_no_other_command_nor_pydantic(tmp_path) -> None:
    """A shader with an input file: neither the other commands (layouts) nor the run spec schema."""
    shader = os.path.join(REPO, "samples", "saxpy", "saxpy.spvasm")
    (tmp_path / "in.yaml").write_text("pc: {a: 2.0, n: 1}\nx: [1.0]\ny: [1.0]\n")
    code = ("import sys; from spvcoop import cli; rc = cli.main(sys.argv[1:]); "
            "bad = [m for m in sys.modules if m.startswith(('pydantic', 'spvcoop.layouts', 'lark')) "
            "or m in ('spvcoop.commands.layout', 'spvcoop.commands.val', 'spvcoop.runspec.schema')]; "
            "print('BAD', bad, rc)")
    out = subprocess.run([sys.executable, "-c", code, "run", shader, "--dispatch", "1,1,1", "--input",
                          str(tmp_path / "in.yaml")], capture_output=True, text=True, timeout=120)
    assert "y: [3.0]" in out.stdout and "BAD [] 0" in out.stdout, out.stdout + out.stderr


def test_check_file_naming_no_buffer_is_located(capsys, tmp_path) -> None:
    """An expected file whose key names no buffer of the run is a mistake in that file, reported at the key's line
    with a did-you-mean (it was an unlocated "check failed: ... no such buffer in the output"; found by the fuzz
    driver's debug entry, which passed the run spec itself as the expected file)."""
    from conftest import run_cli
    exp = tmp_path / "exp.yaml"
    exp.write_text("y: [3.0, 3.0, 3.0, 3.0]\nyy: [1.0]\n")
    rc, _, err = run_cli(capsys, "run", "samples/saxpy/run.yaml", "--check", str(exp))
    assert rc == 1
    assert f"{exp}:2:" in err and "error: 'yy' names no buffer of the run (did you mean 'y'?)" in err
    assert "check failed" not in err

"""The scripts in tools/ keep working as the CLI changes (issue 32, item 20: h100_record.py still passed the removed
`--compare`): each answers `--help` without side effects, and every spvcoop command line the recording tools would
run on a GPU machine is accepted by spvcoop's own parser."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

ROOT = REPO
_FILES = sorted(p for p in (ROOT / "tools").glob("*.py") if p.name != "__init__.py")
# the scripts (each runs as `python tools/X.py`), and the modules a script imports (no command line of their own)
TOOLS = [p.name for p in _FILES if 'if __name__ == "__main__"' in p.read_text()]
MODULES = [p.name for p in _FILES if p.name not in TOOLS]


def test_every_tool_is_listed() -> None:
    assert TOOLS == ["gen_docs.py", "h100_numerics_hunt.py", "h100_record.py", "h100_workgroup.py"]
    assert MODULES == ["opcodes_doc.py"]   # gen_docs.py's docs/opcodes.md


@pytest.mark.parametrize("argv", [[str(ROOT / "tools" / t)] for t in TOOLS] + [["-m", "tools.fuzz"]],
                         ids=[*TOOLS, "fuzz"])
def test_help(tmp_path, argv) -> None:
    import os
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, *argv, "--help"], capture_output=True, text=True, cwd=tmp_path, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage:") and not p.stderr
    assert not list(tmp_path.iterdir())   # --help ran nothing (h100_record took it for OUTDIR and ran every step)


def _load(name: str):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _commands():
    out = Path("/nonexistent/out")
    rec = [cmd for _, _, cmd in _load("h100_record").commands(out)]
    wg = _load("h100_workgroup")
    return rec + [cmd for _, cmd in wg.commands(out)] + [cmd for _, cmd in wg.commands(out, compare_only=True)]


def test_recording_tools_command_lines_parse() -> None:
    from spvcoop import cli
    commands = _commands()
    assert any("--compare-interpreter" in c for c in commands)
    for argv in commands:
        parser = cli.build_parser(cli.COMMAND_NAMES.get(argv[0]))
        try:
            parser.parse_args(argv)
        except SystemExit as e:   # argparse's usage error: an option the CLI no longer has
            pytest.fail(f"spvcoop {' '.join(argv)}: usage error (exit {e.code})")


def test_dry_run_prints_the_commands(tmp_path, capsys) -> None:
    assert _load("h100_record").main([str(tmp_path / "o"), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out and all(line.startswith("spvcoop ") for line in out) and not (tmp_path / "o").exists()

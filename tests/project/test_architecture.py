"""The package's structure: no import circles, and only the CLI layer imports the commands.

Every import counts, including the lazy ones inside functions (they keep start-up fast but are
still dependencies). The graph is read from the source with ast, so nothing is executed.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import spvcoop

PACKAGE_DIR = Path(spvcoop.__file__).parent
CLI_LAYER = ("spvcoop.cli", "spvcoop.commands", "spvcoop.__main__")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """module -> the spvcoop modules it imports (a name imported from a package counts as the
    submodule when one of that name exists, else as the package)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for t in targets:
                while t and t not in modules:  # `import spvcoop.x.y` from a deeper name
                    t = t.rpartition(".")[0]
                if t.startswith("spvcoop") and t != name:
                    graph[name].add(t)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a path [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            # a package's __init__ importing its own submodules is how packages expose them
            if n.startswith(m + "."):
                continue
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


@pytest.mark.slow
def test_graph_is_read() -> None:
    graph = import_graph()
    assert "spvcoop.asm.assembler" in graph["spvcoop.commands.asm"] or any(
        t.startswith("spvcoop.asm.assembler") for t in graph["spvcoop.commands.asm"])
    assert "spvcoop.core.diagnostics" in graph["spvcoop.loader"]


def test_find_cycle_sees_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.slow
def test_no_import_circles() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


@pytest.mark.slow
def test_only_the_cli_layer_imports_commands() -> None:
    bad = sorted(f"{m} imports {t}" for m, targets in import_graph().items()
                 if not m.startswith(CLI_LAYER) for t in targets if t.startswith("spvcoop.commands"))
    assert not bad, "\n".join(bad)


def test_every_package_is_installed() -> None:
    """pyproject lists packages by name: a new sub-package missing there imports in an editable install
    but not after `pip install .` (spvcoop.interp.coopmat and coopmat2 were missed once)."""
    import tomllib
    listed = set(tomllib.loads((PACKAGE_DIR.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {_module_name(p.parent) for p in PACKAGE_DIR.rglob("__init__.py")}
    assert on_disk <= listed, sorted(on_disk - listed)


CLI_AND_PLUGIN = CLI_LAYER + ("spvcoop.pytest_plugin",)
TERMINAL = {"stdout", "stderr", "__stdout__", "__stderr__"}


def terminal_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for every print() call and every use of sys.stdout / sys.stderr in a module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append((node.lineno, "print()"))
        elif isinstance(node, ast.Attribute) and node.attr in TERMINAL and isinstance(node.value, ast.Name) \
                and node.value.id == "sys":
            found.append((node.lineno, f"sys.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and any(a.name in TERMINAL for a in node.names):
            found.append((node.lineno, "from sys import stdout/stderr"))
    return sorted(found)


def test_terminal_writes_are_seen() -> None:
    tree = ast.parse("import sys\nprint(1)\nsys.stderr.write('x')\nfrom sys import stdout\np.stdout\n")
    assert [w for _, w in terminal_writes(tree)] == ["print()", "sys.stderr", "from sys import stdout/stderr"]


@pytest.mark.slow
def test_only_the_cli_layer_writes_to_the_terminal() -> None:
    """Issue 20: the library never prints; warnings travel in results, trace lines to the caller's stream."""
    bad = [f"{name}:{line}: {what}" for name, path in _modules().items() if not name.startswith(CLI_AND_PLUGIN)
           for line, what in terminal_writes(ast.parse(path.read_text(encoding="utf-8")))]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_runspec_sits_above_the_interpreter() -> None:
    """The interpreter takes and returns arrays: run specs and their number text (runspec/) may import
    interp/, never the reverse (issue 20, item 1)."""
    bad = sorted(f"{m} imports {t}" for m, targets in import_graph().items() if m.startswith("spvcoop.interp")
                 for t in targets if t.startswith("spvcoop.runspec"))
    assert not bad, "\n".join(bad)


# the names an Executor goes by outside its module: `ex`, `executor`, and `<anything>.ex` (self.ex, stop.ex)
EXECUTOR_NAMES = {"ex", "executor"}


def _on_executor(node: ast.expr) -> bool:
    """Whether an attribute chain starts at an executor: ex.x, self.ex.x, ex.budget.x ..."""
    while isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "ex" or \
                isinstance(node.value, ast.Name) and node.value.id in EXECUTOR_NAMES:
            return True
        node = node.value
    return False


def executor_assignments(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, target) of every assignment to an attribute of an Executor (or of what it holds: ex.budget.steps),
    and every setattr on one; assigning an item (ex.gvals[i] = v) is not one."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                node.args and (isinstance(node.args[0], ast.Name) and node.args[0].id in EXECUTOR_NAMES or
                               isinstance(node.args[0], ast.Attribute) and _on_executor(
                                   ast.Attribute(value=node.args[0], attr="_"))):
            found.append((node.lineno, ast.unparse(node)))
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Starred):
                targets.append(t.value)
            elif isinstance(t, ast.Attribute) and _on_executor(t):
                found.append((node.lineno, ast.unparse(t)))
    return sorted(found)


def test_executor_assignments_are_seen() -> None:
    tree = ast.parse("ex.steps = 1\nself.ex.trace += 1\na, stop.ex.deadline = 1, 2\nex.budget.steps: int = 3\n"
                     "ex.gvals[3] = 4\nother.steps = 5\nsetattr(ex, 'x', 6)\nexecutor.fast = None\nx = ex.steps\n")
    assert [w for _, w in executor_assignments(tree)] == [
        "ex.steps", "self.ex.trace", "stop.ex.deadline", "ex.budget.steps", "setattr(ex, 'x', 6)", "executor.fast"]


@pytest.mark.slow
def test_no_module_assigns_the_executors_attributes() -> None:
    """Issue 33: the Executor has walls. Its state is its own (interp/executor.py); the runner builds what it is
    handed (the Budget, the Lanes, the Binder's values, the observers) and every other module asks it through a
    method (Executor.lay_out, bind_globals, observe, using_floats ...), never by setting an attribute."""
    own = PACKAGE_DIR / "interp" / "executor.py"
    bad = [f"{name}:{line}: {what}" for name, path in _modules().items() if path != own
           for line, what in executor_assignments(ast.parse(path.read_text(encoding="utf-8")))]
    assert not bad, "\n".join(bad)

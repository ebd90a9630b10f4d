"""The test suite's layout mirrors the stages (issue 33 item 6): every test file sits in the folder of the stage
it exercises, each stage folder names a package of spvcoop (or the whole project), and every package has its
folder. docs/architecture.md's "Tests" section names every folder."""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO, TESTS

# The one list of test folders: folder under tests/ -> the package of spvcoop/ whose tests it holds (None: tests of
# the project as a whole: architecture, documents, gates, packaging, the public API, tools/, start-up)
STAGE_FOLDERS: dict[str, str | None] = {
    "core": "core",
    "binary": "binary",
    "asm": "asm",
    "layouts": "layouts",
    "numerics": "numerics",
    "validator": "validator",
    "interp": "interp",
    "interp/coopmat": "interp/coopmat",
    "interp/coopmat2": "interp/coopmat2",
    "runspec": "runspec",
    "gpu": "gpu",
    "devtools": "devtools",
    "cli": "commands",
    "project": None,
}


def _test_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_test_file_sits_in_a_stage_folder() -> None:
    misplaced = [str(p.relative_to(TESTS)) for p in _test_files()
                 if p.parent.relative_to(TESTS).as_posix() not in STAGE_FOLDERS]
    assert not misplaced, (f"test files outside the stage folders of tests/ ({', '.join(STAGE_FOLDERS)}): "
                           f"{misplaced}; move each to the folder of the stage it exercises")


def test_every_stage_folder_holds_tests() -> None:
    empty = [f for f in STAGE_FOLDERS if not list((TESTS / f).glob("test_*.py"))]
    assert not empty, f"stage folders with no test file: {empty}"


def test_the_stage_folders_mirror_the_packages() -> None:
    package = REPO / "spvcoop"
    named = {pkg for pkg in STAGE_FOLDERS.values() if pkg is not None}
    missing = sorted(pkg for pkg in named if not (package / pkg / "__init__.py").is_file())
    assert not missing, f"stage folders naming no package of spvcoop/: {missing}"
    packages = {p.parent.relative_to(package).as_posix() for p in package.rglob("__init__.py")} - {"."}
    unmirrored = sorted(packages - named)
    assert not unmirrored, f"packages of spvcoop/ with no test folder in STAGE_FOLDERS: {unmirrored}"


def test_test_file_names_are_unique() -> None:
    # the folders are not packages (pytest's default import mode puts each test file's folder on sys.path), so two
    # test files of one name in two folders would stop the collection
    seen: dict[str, Path] = {}
    clashes = []
    for p in _test_files():
        if p.name in seen:
            clashes.append((str(seen[p.name].relative_to(TESTS)), str(p.relative_to(TESTS))))
        seen[p.name] = p
    assert not clashes, f"test files with one name in two folders: {clashes}"


def test_no_test_file_imports_a_test_file_of_another_folder() -> None:
    # a test file's own folder is on sys.path only once pytest collects it: `from test_x import ...` of another
    # folder works in a whole run and fails when the importing file runs alone. Shared code goes in a helper
    # module at tests/' top level (conftest.py, gpu_fakes.py, ...)
    folder_of = {p.stem: p.parent for p in _test_files()}
    crossing = []
    for p in _test_files():
        for node in ast.walk(ast.parse(p.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            crossing += [f"{p.relative_to(TESTS)} imports {n}" for n in names
                         if n in folder_of and folder_of[n] != p.parent]
    assert not crossing, f"test files importing a test file of another folder: {crossing}"


def test_the_architecture_page_names_every_test_folder() -> None:
    doc = (REPO / "docs" / "architecture.md").read_text()
    section = doc.split("\n## Tests\n", 1)
    assert len(section) == 2, "docs/architecture.md has no '## Tests' section"
    text = section[1].split("\n## ", 1)[0]
    unnamed = [f for f in STAGE_FOLDERS if f"`tests/{f}/`" not in text]
    assert not unnamed, f"test folders docs/architecture.md's Tests section does not name: {unnamed}"

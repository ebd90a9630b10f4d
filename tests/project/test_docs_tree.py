"""The documents' maps of the tree match the tree.

README's "Layout of the repository" and docs/architecture.md name paths; a path that no longer exists, or a
package that the map leaves out, fails here, so the docs cannot drift from a reorganisation again.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

ROOT = REPO
PACKAGE = ROOT / "spvcoop"


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        files = out.split()
    except (OSError, subprocess.CalledProcessError):  # an unpacked sdist: no git
        files = []
    if not files:
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    return files


def readme_map() -> list[str]:
    """The first column of the README's map, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Layout of the repository")
    block = text[text.index("```", start) + 3:]
    block = block[block.index("\n") + 1:block.index("```")]
    return [line.split()[0] for line in block.splitlines() if line.strip() and not line.startswith(" ")]


def test_every_path_in_the_readme_map_exists() -> None:
    missing = [p for p in readme_map() if not (ROOT / p).exists()]
    assert not missing, f"README's map names paths that do not exist: {missing}"


def test_every_package_and_top_module_is_in_the_readme_map() -> None:
    named = set(readme_map())
    parts = [f"spvcoop/{p.parent.name}/" for p in PACKAGE.glob("*/__init__.py")]
    parts += [f"spvcoop/{p.name}" for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    absent = sorted(p for p in parts if p not in named and p not in text[text.index("## Layout of the repository"):])
    assert not absent, f"not in README's map of the repository: {absent}"


_PATHLIKE = re.compile(r"`([A-Za-z0-9_./-]+(?:\.py|\.lark|\.yaml|\.c|\.md)|[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*/)`")


def documented_paths(doc: Path) -> list[str]:
    return sorted(set(_PATHLIKE.findall(doc.read_text(encoding="utf-8"))))


def _exists(path: str, tracked: list[str]) -> bool:
    """At the root, in the package, or the tail of a tracked file's path or of one of its folders."""
    if (ROOT / path).exists() or (PACKAGE / path).exists():
        return True
    needle = "/" + path.rstrip("/") + ("/" if path.endswith("/") else "")
    return any(("/" + t + ("" if path.endswith("/") else "/")).find(needle + ("" if path.endswith("/") else "/")) >= 0
               for t in tracked)


@pytest.mark.parametrize("doc", ["docs/architecture.md", "README.md"])
def test_every_path_a_document_names_exists(doc: str) -> None:
    tracked = _tracked()
    missing = [p for p in documented_paths(ROOT / doc) if not _exists(p, tracked)]
    assert not missing, f"{doc} names paths that exist nowhere in the tree: {missing}"


def test_the_path_check_sees_a_stale_name(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("`interp/ops_arith.py` and `vaildator/` and `text.py` and `core/`\n")
    tracked = _tracked()
    assert [p for p in documented_paths(doc) if not _exists(p, tracked)] == ["text.py", "vaildator/"]


def _stage(module: str, stages: list[str]) -> int | None:
    """The index in the map of the stage a module belongs to (None: the package root)."""
    path = module.replace(".", "/")
    for i, s in enumerate(stages):
        if (path + "/").startswith(s) or path + ".py" == s:
            return i
    return None


@pytest.mark.slow
def test_stages_import_only_the_stages_listed_before_them() -> None:
    """The map lists the stages from the bottom up: every import between two of them points to an earlier one
    (the CLI layer and the pytest plugin, listed last, may import anything below)."""
    from test_architecture import import_graph
    stages = [p for p in readme_map() if p.startswith("spvcoop/")]
    upward = []
    for importer, targets in import_graph().items():
        a = _stage(importer, stages)
        if a is None:
            continue
        for t in targets:
            b = _stage(t, stages)
            if b is None and t == "spvcoop" and importer != "spvcoop":
                upward.append(f"{importer} -> spvcoop (the package root, above every stage)")
            elif b is not None and b > a and not (stages[a] == "spvcoop/commands/" and stages[b].endswith(".py")):
                upward.append(f"{importer} ({stages[a]}) -> {t} ({stages[b]})")
    assert not upward, "imports that run up the pipeline:\n" + "\n".join(sorted(upward))


def test_the_stage_order_check_sees_an_upward_import() -> None:
    stages = ["spvcoop/core/", "spvcoop/interp/", "spvcoop/runspec/"]
    assert _stage("spvcoop.interp.dataio", stages) == 1 and _stage("spvcoop.runspec.numtext", stages) == 2
    assert _stage("spvcoop", stages) is None


def test_the_layout_models_page_lists_every_built_in_model() -> None:
    """A layout model is its YAML file plus its row in docs/layouts-models.md's table (docs/architecture.md,
    "Adding things"): a model without its row fails here."""
    from spvcoop.layouts import builtin_models
    text = (ROOT / "docs" / "layouts-models.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([\w.-]+)` \|", text, re.M))
    missing = sorted(set(builtin_models()) - rows)
    assert not missing, f"docs/layouts-models.md's table of built-in models lacks {missing}"

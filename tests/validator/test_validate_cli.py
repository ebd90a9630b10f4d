"""`spvcoop val` / `spvcoop lint`: exit codes, output formats, spec constants, profiles."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli as run
from sarif_schema import valid_sarif
from conftest import REPO, TESTS

DATA = TESTS / "data" / "validate"


def test_exit_codes(capsys, tmp_path) -> None:
    assert run(capsys, "val", str(DATA / "ok_khr.spvasm"))[0] == 0
    rc, err, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"))
    assert rc == 1 and "error[coopmat.muladd.k]" in err
    assert run(capsys, "val", str(tmp_path / "missing.spv"))[0] == 2
    assert run(capsys, "val", str(DATA / "ok_khr.spvasm"), "--target-env", "vulkan9")[0] == 2
    assert run(capsys, "val", str(DATA / "ok_khr.spvasm"), "--spec-const", "x")[0] == 2
    bad_text = tmp_path / "bad.spvasm"
    bad_text.write_text("%1 = OpNotAnOpcode\n")
    rc, err, _ = run(capsys, "val", str(bad_text))
    assert rc == 1 and "bad.spvasm:1:" in err


def test_human_output_has_caret_and_notes(capsys) -> None:
    _, err, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"))
    lines = err.splitlines()
    head = next(i for i, line in enumerate(lines) if "coopmat.muladd.k" in line)
    assert "OpCooperativeMatrixMulAddNV" in lines[head + 1]
    caret = lines[head + 2]
    assert caret.strip().startswith("^")
    assert lines[head + 1][caret.index("^"):].startswith("%b8")
    assert any(": note: B has type %mB8" in line for line in lines)
    assert "A is 16x16 (K=16) but B is 8x8 (K=8)" in lines[head]


def test_werror(capsys) -> None:
    assert run(capsys, "val", str(DATA / "warn_stride.spvasm"))[0] == 0
    assert run(capsys, "val", str(DATA / "warn_stride.spvasm"), "--werror")[0] == 1


def test_spec_constants(capsys) -> None:
    rc, err, _ = run(capsys, "val", str(DATA / "spec_k.spvasm"))
    assert rc == 0 and "warning[coopmat.muladd.k]" in err and "specialization constant" in err
    assert run(capsys, "val", str(DATA / "spec_k.spvasm"), "--spec-const", "7=16")[0:2] == (0, "")
    rc, err, _ = run(capsys, "val", str(DATA / "spec_k.spvasm"), "--spec-const", "7=8")
    assert rc == 1 and "error[coopmat.muladd.k]" in err


def test_json(capsys) -> None:
    rc, out, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--format", "json")
    doc = json.loads(out)
    assert rc == 1
    (f,) = doc["files"]
    assert f["valid"] is False and f["errors"] == len([d for d in f["diagnostics"] if d["severity"] == "error"])
    d = next(d for d in f["diagnostics"] if d["rule"] == "coopmat.muladd.k")
    assert {"severity", "message", "line", "column", "end_column", "notes", "instruction_index"} <= set(d)
    assert all("message" in n for n in d["notes"])


def test_sarif(capsys) -> None:
    rc, out, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--format", "sarif")
    log = valid_sarif(out)
    assert rc == 1 and log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    (run_,) = log["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert run_["tool"]["driver"]["name"] == "spvcoop"
    for res in run_["results"]:
        assert res["level"] in ("error", "warning", "note", "none")
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("bad_k.spvasm")
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
        assert res["message"]["text"]
    assert all(r["fullDescription"]["text"] for r in rules)


def test_github(capsys) -> None:
    rc, out, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--format", "github")
    line = next(line for line in out.splitlines() if "coopmat.muladd.k" in line)
    assert rc == 1
    assert line.startswith("::error file=")
    props, message = line[len("::error "):].split("::", 1)
    keys = dict(p.split("=", 1) for p in props.split(","))
    assert keys["title"] == "coopmat.muladd.k" and int(keys["line"]) > 0 and int(keys["col"]) > 0
    assert "\n" not in message and "%0A" in message  # notes follow, escaped


def test_binary_input_shows_instruction(capsys, tmp_path) -> None:
    import spvcoop
    m = spvcoop.assemble((DATA / "bad_k.spvasm").read_text(), "bad_k.spvasm")
    spv = tmp_path / "bad_k.spv"
    spv.write_bytes(m.to_bytes())
    rc, err, _ = run(capsys, "val", str(spv))
    lines = err.splitlines()
    head = next(i for i, line in enumerate(lines) if "coopmat.muladd.k" in line)
    assert rc == 1 and "instruction" in lines[head] and "(word " in lines[head]
    assert "= OpCooperativeMatrixMulAddNV" in lines[head + 1]


def test_profiles(capsys) -> None:
    assert run(capsys, "val", str(DATA / "ok_khr.spvasm"), "--profile", "nvidia-h100")[0] == 0
    rc, err, _ = run(capsys, "val", str(DATA / "ok_khr.spvasm"), "--profile", str(DATA / "profile_small.yaml"))
    assert rc == 1 and "error[profile.muladd]" in err and "small-gpu does not support MulAdd 16x8x16" in err
    assert "error[profile.type]" in err  # the 16x8 types are not in the small profile
    rc, _, err = run(capsys, "val", str(DATA / "ok_khr.spvasm"), "--profile", "nvidia-h10")
    assert rc == 2 and "did you mean 'nvidia-h100'" in err


def test_bad_profile_file(capsys, tmp_path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text("combinations:\n  - {M: 16}\n")
    rc, _, err = run(capsys, "val", str(DATA / "ok_khr.spvasm"), "--profile", str(p))
    assert rc == 2 and f"{p}:2:5: error: 'N' is required" in err, err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_lint_directory(capsys, tmp_path, jobs) -> None:
    for i in range(3):
        shutil.copy(DATA / "ok_khr.spvasm", tmp_path / f"ok{i}.spvasm")
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(DATA / "bad_k.spvasm", sub / "bad.spvasm")
    shutil.copy(DATA / "warn_stride.spvasm", sub / "warn.spvasm")
    (tmp_path / "notes.txt").write_text("ignored")
    rc, out, _ = run(capsys, "lint", str(tmp_path), "--jobs", jobs, "--format", "json")
    doc = json.loads(out)
    assert rc == 1
    assert len(doc["files"]) == 5
    verdict = {Path(f["file"]).name: f["valid"] for f in doc["files"]}
    assert verdict == {"ok0.spvasm": True, "ok1.spvasm": True, "ok2.spvasm": True, "bad.spvasm": False,
                       "warn.spvasm": True}
    rc, _, err = run(capsys, "lint", str(tmp_path / "ok0.spvasm"), str(tmp_path / "ok1.spvasm"))
    assert rc == 0 and "2 file(s), 0 invalid" in err
    assert run(capsys, "lint", str(tmp_path / "nope"))[0] == 2


def test_pre_commit_hooks_file() -> None:
    import yaml
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    ids = {h["id"]: h for h in hooks}
    assert ids["spvcoop-lint"]["entry"].startswith("spvcoop lint")
    assert all({"id", "name", "entry", "language"} <= set(h) for h in hooks)


def test_list_rules(capsys) -> None:
    from spvcoop.validator import RULES
    rc, out, _ = run(capsys, "val", "--list-rules")
    assert rc == 0
    for rid in RULES:
        assert f"{rid}  [" in out
    assert run(capsys, "val")[0] == 2

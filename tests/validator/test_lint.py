"""`spvcoop lint` / `val` as a linter: rule selection, configuration files, inline suppressions, where the report
goes, SARIF as code scanning reads it, spirv-val's options, GLSL inputs, progress, pre-commit (issue 25)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import run_cli as run
from sarif_schema import schema_errors, valid_sarif
from conftest import REPO, TESTS

DATA = TESTS / "data" / "validate"
BAD_K_LINE = 51  # the MulAdd with a K mismatch in bad_k.spvasm


# ---- rule selection -------------------------------------------------------------------------------------

def test_ignore_drops_the_finding_and_the_spirv_val_error_folded_into_it(capsys) -> None:
    rc, out, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"))
    assert rc == 1 and "error[coopmat.muladd.k]" in out and "spirv-val agrees" in out  # spirv-val sees it too
    for code in ("coopmat.muladd.k", "coopmat.muladd", "coopmat"):
        rc, out, err = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--ignore", code)
        assert (rc, out) == (0, ""), (code, out, err)  # spirv-val's error does not come back on its own
    rc, out, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--ignore", "coopmat", "--select",
                     "coopmat.muladd.k")  # the more specific code wins
    assert rc == 1 and "error[coopmat.muladd.k]" in out


def test_select_keeps_only_the_named_rules(capsys) -> None:
    rc, out, _ = run(capsys, "val", str(DATA / "warn_stride.spvasm"), "--werror", "--select", "coopmat.muladd")
    assert (rc, out) == (0, "")
    rc, out, _ = run(capsys, "val", str(DATA / "warn_stride.spvasm"), "--werror", "--select",
                     "spirv-val,coopmat.stride")
    assert rc == 1 and "warning[coopmat.stride.positive]" in out


def test_unknown_rule_code_is_a_usage_error_with_did_you_mean(capsys) -> None:
    rc, out, err = run(capsys, "lint", str(DATA / "bad_k.spvasm"), "--ignore", "coopmat.mulad")
    assert rc == 2 and out == "" and "'coopmat.mulad' is not a rule id or a prefix of one (did you mean " \
        "'coopmat.muladd'?)" in err, err
    assert "Traceback" not in err


def test_exit_zero_and_statistics(capsys) -> None:
    rc, out, err = run(capsys, "lint", str(DATA / "bad_k.spvasm"), str(DATA / "warn_stride.spvasm"), "--exit-zero",
                       "--statistics", "--no-spirv-val")
    assert rc == 0
    assert out.splitlines() == ["1  coopmat.muladd.k  error", "1  coopmat.stride.positive  warning"], out
    assert "2 file(s), 1 invalid" in err
    assert run(capsys, "lint", str(DATA / "nope.spvasm"), "--exit-zero")[0] == 2  # errors are not findings


# ---- where the report goes -------------------------------------------------------------------------------

def test_findings_on_stdout_summary_on_stderr_output_file_and_quiet(capsys, tmp_path) -> None:
    rc, out, err = run(capsys, "lint", str(DATA / "bad_k.spvasm"), "--no-spirv-val")
    assert rc == 1 and out.startswith(f"{DATA / 'bad_k.spvasm'}:{BAD_K_LINE}:43: error[coopmat.muladd.k]")
    assert err == "spvcoop lint: 1 file(s), 1 invalid\n"
    rc, out, err = run(capsys, "lint", str(DATA / "bad_k.spvasm"), "--no-spirv-val", "-q")
    assert rc == 1 and "error[coopmat.muladd.k]" in out and err == ""
    report = tmp_path / "report.txt"
    rc, out, err = run(capsys, "lint", str(DATA / "bad_k.spvasm"), "--no-spirv-val", "-o", str(report))
    assert rc == 1 and out == "" and "error[coopmat.muladd.k]" in report.read_text()
    rc, out, err = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--no-spirv-val", "--format", "json", "-o",
                       str(report))
    assert rc == 1 and out == "" and json.loads(report.read_text())["files"][0]["valid"] is False
    rc, _, err = run(capsys, "val", str(DATA / "bad_k.spvasm"), "-o", str(tmp_path / "no" / "dir" / "r.txt"))
    assert rc == 2 and "Traceback" not in err


def test_progress_on_a_terminal_only(capsys, monkeypatch, tmp_path) -> None:
    for i in range(3):
        shutil.copy(DATA / "ok_khr.spvasm", tmp_path / f"ok{i}.spvasm")
    _, _, err = run(capsys, "lint", str(tmp_path), "--no-spirv-val", "-j", "1")
    assert "files checked" not in err
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    _, out, err = run(capsys, "lint", str(tmp_path), "--no-spirv-val", "-j", "1")
    assert "\rspvcoop lint: [3/3] files checked" in err and out == ""
    assert err.endswith("spvcoop lint: 3 file(s), 0 invalid\n")
    _, _, err = run(capsys, "lint", str(tmp_path), "--no-spirv-val", "-j", "1", "-q")
    assert err == ""


# ---- configuration files ---------------------------------------------------------------------------------

def _tree(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    (top / "shaders" / "gen").mkdir(parents=True)
    shutil.copy(DATA / "bad_k.spvasm", top / "shaders" / "bad.spvasm")
    shutil.copy(DATA / "bad_k.spvasm", top / "shaders" / "gen" / "bad.spvasm")
    shutil.copy(DATA / "scalar_layout.spvasm", top / "shaders" / "scalar.spvasm")
    return top


def test_settings_from_the_nearest_pyproject(capsys, tmp_path) -> None:
    top = _tree(tmp_path)
    rc, out, _ = run(capsys, "lint", str(top / "shaders"), "--target-env", "vulkan1.3")
    assert rc == 1 and out.count("error[coopmat.muladd.k]") == 2 and "scalar.spvasm" in out
    (top / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.spvcoop.lint]\ntarget-env = "vulkan1.3"\n'
        'spirv-val-options = ["--scalar-block-layout"]\n'
        '[tool.spvcoop.lint.per-file-ignores]\n"shaders/gen/*" = ["coopmat.muladd"]\n')
    rc, out, _ = run(capsys, "lint", str(top / "shaders"))
    heads = [ln.split(": ")[0] for ln in out.splitlines() if "error[" in ln]
    assert rc == 1 and heads == [f"{top / 'shaders' / 'bad.spvasm'}:{BAD_K_LINE}:43"], out
    # a nearer configuration wins; in one directory spvcoop.toml wins over pyproject.toml
    (top / "shaders" / "gen" / "spvcoop.toml").write_text('[lint]\nselect = ["spirv-val"]\n')
    (top / "shaders" / "gen" / "pyproject.toml").write_text('[tool.spvcoop.lint]\nignore = ["spirv-val"]\n')
    rc, out, _ = run(capsys, "lint", str(top / "shaders" / "gen"))
    assert (rc, out) == (0, "")
    # a pyproject.toml without the table is passed over, as ruff does
    (top / "shaders" / "gen" / "spvcoop.toml").unlink()
    (top / "shaders" / "gen" / "pyproject.toml").write_text('[project]\nname = "y"\n')
    rc, out, _ = run(capsys, "lint", str(top / "shaders" / "gen"))
    assert (rc, out) == (0, "")  # the top-level per-file ignore still applies
    # the command line wins; --isolated reads no configuration
    rc, out, _ = run(capsys, "lint", str(top / "shaders" / "gen"), "--select", "coopmat.muladd.k")
    assert rc == 0
    rc, out, _ = run(capsys, "lint", str(top / "shaders"), "--isolated", "--target-env", "vulkan1.3")
    assert rc == 1 and out.count("error[coopmat.muladd.k]") == 2 and "scalar.spvasm" in out
    rc, out, _ = run(capsys, "val", str(top / "shaders" / "scalar.spvasm"))  # val reads it too
    assert (rc, out) == (0, "")


@pytest.mark.parametrize("text, where, message", [
    ('[tool.spvcoop.lint]\ntarget-env = "vulkan1.3\n', ":2:24:", "invalid TOML"),
    ('[tool.spvcoop.lint]\n\nignore = ["coopmat.mulad"]\n', ":3:1:", "(did you mean 'coopmat.muladd'?)"),
    ('[tool.spvcoop.lint]\nspirv-val-option = []\n', ":2:1:", "unknown setting 'spirv-val-option' (did you mean "
                                                               "'spirv-val-options'?)"),
    ('[tool.spvcoop.lint]\nspirv-val-options = ["--output=/etc/x"]\n', ":2:1:", "is not a spirv-val option"),
    ('[tool.spvcoop.lint]\ntarget-env = "vulkan9"\n', ":2:1:", "unknown target environment 'vulkan9'"),
    ('[tool.spvcoop]\nlint = 3\n', ":", "[tool.spvcoop.lint] must be a table"),
    ('[tool.spvcoop.lint]\nwerror = "yes"\n', ":2:1:", "'werror' must be true or false"),
    ('[tool.spvcoop.lint]\nprofile = "../secret.yaml"\n', ":2:1:", "a configuration file may only name files in its "
                                                                  "own directory tree"),
])
def test_a_bad_configuration_is_a_located_usage_error(capsys, tmp_path, text, where, message) -> None:
    top = _tree(tmp_path)
    (top / "pyproject.toml").write_text(text)
    (tmp_path / "secret.yaml").write_text("name: x\ncombinations: []\n")
    rc, out, err = run(capsys, "lint", str(top / "shaders"))
    assert rc == 2 and out == "" and f"{top / 'pyproject.toml'}{where} error: " in err and message in err, err
    assert "Traceback" not in err


def test_a_configuration_cannot_make_lint_read_outside_its_tree(capsys, tmp_path) -> None:
    top = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "p.yaml").write_text("name: SECRET_PROFILE\ncombinations: []\n")
    (top / "p.yaml").symlink_to(outside / "p.yaml")
    (top / "spvcoop.toml").write_text('[lint]\nprofile = "p.yaml"\n')  # a link out of the tree
    rc, out, err = run(capsys, "lint", str(top / "shaders"))
    assert rc == 2 and "SECRET_PROFILE" not in out + err and "own directory tree" in err, err
    (top / "spvcoop.toml").unlink()
    (top / "spvcoop.toml").symlink_to(outside / "p.yaml")  # the configuration itself a link out of its directory
    rc, out, err = run(capsys, "lint", str(top / "shaders"))
    assert rc == 2 and "SECRET_PROFILE" not in out + err and "symbolic link" in err, err


def test_explicit_config_file(capsys, tmp_path) -> None:
    cfg = tmp_path / "ci.toml"
    cfg.write_text('[lint]\nignore = ["coopmat.muladd.k"]\n')
    rc, out, _ = run(capsys, "val", str(DATA / "bad_k.spvasm"), "--config", str(cfg))
    assert (rc, out) == (0, "")


# ---- inline suppressions ---------------------------------------------------------------------------------

def _with_comments(tmp_path: Path, same_line: str, line_above: str | None = None) -> Path:
    lines = (DATA / "bad_k.spvasm").read_text().split("\n")
    lines[BAD_K_LINE - 1] += same_line
    if line_above is not None:
        lines.insert(BAD_K_LINE - 1, line_above)
    p = tmp_path / "s.spvasm"
    p.write_text("\n".join(lines))
    return p


@pytest.mark.parametrize("same_line, above", [(" ; spvcoop: ignore[coopmat.muladd.k]", None),
                                              (" ; spvcoop: ignore[spirv-val, coopmat.muladd]", None),
                                              ("", "   ; spvcoop: ignore[coopmat.muladd.k]"),
                                              ("", "; spvcoop: ignore[coopmat]\n\n; a comment between")])
def test_suppression_comments(capsys, tmp_path, same_line, above) -> None:
    p = _with_comments(tmp_path, same_line, above)
    rc, out, _ = run(capsys, "val", str(p))
    assert (rc, out) == (0, "")


def test_a_suppression_covers_only_its_line_and_its_rule(capsys, tmp_path) -> None:
    p = _with_comments(tmp_path, " ; spvcoop: ignore[coopmat.stride]")
    rc, out, _ = run(capsys, "val", str(p), "--no-spirv-val")
    assert rc == 1 and "error[coopmat.muladd.k]" in out
    lines = (DATA / "bad_k.spvasm").read_text().split("\n")
    lines.insert(BAD_K_LINE - 2, "; spvcoop: ignore[coopmat.muladd.k]")  # above the line before
    p.write_text("\n".join(lines))
    assert run(capsys, "val", str(p), "--no-spirv-val")[0] == 1
    text = (DATA / "bad_k.spvasm").read_text().replace("OpCapability Shader",
                                                       'OpCapability Shader\nOpSourceExtension "; spvcoop: '
                                                       'ignore[coopmat]"', 1)
    p.write_text(text)  # inside a string literal: not a comment
    assert run(capsys, "val", str(p), "--no-spirv-val")[0] == 1


def test_unused_suppressions_reported_on_request(capsys, tmp_path) -> None:
    p = _with_comments(tmp_path, " ; spvcoop: ignore[coopmat.muladd.k, coopmat.stride]")
    assert run(capsys, "val", str(p), "--no-spirv-val") == (0, "", "")
    rc, out, _ = run(capsys, "val", str(p), "--no-spirv-val", "--report-unused-suppressions")
    assert rc == 0 and f"s.spvasm:{BAD_K_LINE}:" in out
    assert "warning[suppression.unused]: unused suppression: 'coopmat.stride'" in out and "'coopmat.muladd.k'" \
        not in out.split("suppression.unused")[1].splitlines()[0]
    assert run(capsys, "val", str(p), "--no-spirv-val", "--report-unused-suppressions", "--werror")[0] == 1
    (tmp_path / "spvcoop.toml").write_text("[lint]\nreport-unused-suppressions = true\n")
    assert "suppression.unused" in run(capsys, "val", str(p), "--no-spirv-val")[1]


# ---- SARIF ------------------------------------------------------------------------------------------------

# the official SARIF 2.1.0 schema: tests/sarif_schema.py


def _minimal_log() -> dict:
    return {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "rules": [{"id": "r"}]}}, "results": [
        {"ruleId": "r", "level": "error", "message": {"text": "m"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a%20b.spvasm"},
                                             "region": {"startLine": 1}}}]}]}]}


@pytest.mark.parametrize("where, value, complaint", [
    ("uri", "a b.spvasm", "is not a 'uri-reference'"),  # format checking is live, not passed over
    ("region", {"startLine": 0}, "is less than the minimum of 1"),
    ("region", {"startColumn": 3}, "is not valid under any of the given schemas"),  # no start line or offset
    ("level", "fatal", "is not one of"),
    ("message", {"txt": "m"}, "Additional properties are not allowed"),
    ("driver", {"rules": []}, "'name' is a required property"),
])
def test_the_official_schema_refuses_what_code_scanning_refuses(where, value, complaint) -> None:
    log = _minimal_log()
    assert schema_errors(log) == []
    run_ = log["runs"][0]
    res = run_["results"][0]
    phys = res["locations"][0]["physicalLocation"]
    if where == "uri":
        phys["artifactLocation"]["uri"] = value
    elif where == "region":
        phys["region"] = value
    elif where == "driver":
        run_["tool"]["driver"] = value
    else:
        res[where] = value
    errors = schema_errors(log)
    assert any(complaint in e for e in errors), errors


def test_sarif_has_every_rule_with_help_and_every_result_a_start_line(capsys, tmp_path) -> None:
    from spvcoop.validator import RULES
    shutil.copy(DATA / "bad_k.spvasm", tmp_path / "bad k.spvasm")  # a space: the URI encodes it
    (tmp_path / "broken.spvasm").write_text("OpCapability Shader\n%x = OpConstnt %u32 1\n")
    rc, out, _ = run(capsys, "lint", str(tmp_path), "--format", "sarif")
    log = valid_sarif(out)
    (run_,) = log["runs"]
    rules = run_["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert set(RULES) | {"syntax", "suppression.unused"} == set(ids) and len(ids) == len(set(ids))
    for r in rules:
        assert r["help"]["text"] and r["fullDescription"]["text"] and r["shortDescription"]["text"], r
    assert RULES["coopmat.muladd.k"].spec in rules[ids.index("coopmat.muladd.k")]["help"]["text"]
    by_rule = {res["ruleId"]: res for res in run_["results"]}
    for res in run_["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
    k = by_rule["coopmat.muladd.k"]["locations"][0]["physicalLocation"]
    assert k["artifactLocation"]["uri"].endswith("/bad%20k.spvasm") and k["region"]["startLine"] == BAD_K_LINE
    syntax = by_rule["syntax"]  # input that does not assemble: a result of its own rule
    assert syntax["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert "OpConstnt" in syntax["message"]["text"]
    assert run_["invocations"] == [{"executionSuccessful": True}]


def test_sarif_for_a_binary_points_at_the_disassembly_line(capsys, tmp_path) -> None:
    import spvcoop
    text = (DATA / "bad_k.spvasm").read_text().replace("OpCapability Shader", 'OpCapability Shader\n'
                                                       'OpSourceExtension "two\nlines"', 1)
    spv = tmp_path / "bad.spv"
    spv.write_bytes(spvcoop.assemble(text, "bad.spvasm").to_bytes())
    rc, out, _ = run(capsys, "val", str(spv), "--format", "sarif", "--no-spirv-val")
    (res,) = valid_sarif(out)["runs"][0]["results"]
    region = res["locations"][0]["physicalLocation"]["region"]
    dis = []
    rc2, dis_out, _ = run(capsys, "dis", str(spv))
    dis = dis_out.split("\n")
    assert rc == 1 and rc2 == 0
    assert "OpCooperativeMatrixMulAddNV" in dis[region["startLine"] - 1] and "%35 = " in dis[region["startLine"] - 1]
    assert "spvcoop dis" in res["message"]["text"] and res["properties"]["lineIn"] == "spvcoop dis output"
    assert region["byteOffset"] > 20


def test_sarif_records_an_unreadable_input_as_a_notification(capsys, tmp_path) -> None:
    import os
    shutil.copy(DATA / "ok_khr.spvasm", tmp_path / "ok.spvasm")
    os.mkfifo(tmp_path / "pipe.spvasm")
    rc, out, _ = run(capsys, "lint", str(tmp_path), "--format", "sarif", "--no-spirv-val", "-j", "1")
    run_ = valid_sarif(out)["runs"][0]
    assert rc == 2 and run_["results"] == []
    (inv,) = run_["invocations"]
    assert inv["executionSuccessful"] is False
    (note,) = inv["toolExecutionNotifications"]
    assert note["level"] == "error" and "named pipe" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("/pipe.spvasm")


# ---- spirv-val's options ------------------------------------------------------------------------------------

def test_spirv_val_options_are_passed_through(capsys) -> None:
    path = str(DATA / "scalar_layout.spvasm")
    rc, out, _ = run(capsys, "val", path, "--target-env", "vulkan1.3")
    assert rc == 1 and "--scalar-block-layout" in out  # spirv-val's advice ...
    assert run(capsys, "val", path, "--target-env", "vulkan1.3", "--scalar-block-layout") == (0, "", "")  # ... taken
    assert run(capsys, "lint", path, "--target-env", "vulkan1.3", "--skip-block-layout", "-q") == (0, "", "")
    rc, out, _ = run(capsys, "val", path, "--max-id-bound", "5")
    assert rc == 1 and "max id bound 5" in out
    rc, _, err = run(capsys, "val", path, "--max-id-bound", "x")
    assert rc == 2 and "expected a number" in err


def test_validate_takes_spirv_val_options() -> None:
    import spvcoop
    from spvcoop.validator import validate
    m = spvcoop.assemble((DATA / "scalar_layout.spvasm").read_text(), "s.spvasm")
    assert [d.rule for d in validate(m, "vulkan1.3")] == ["spirv-val"]
    assert validate(m, "vulkan1.3", spirv_val_options=["--scalar-block-layout"]) == []
    with pytest.raises(ValueError, match="not a spirv-val option"):
        validate(m, "vulkan1.3", spirv_val_options=["/etc/passwd"])


# ---- GLSL --------------------------------------------------------------------------------------------------

GLSL_OK = "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { float v[]; };\n" \
          "void main() { v[0] = 1.0; }\n"


def test_comp_files_are_compiled_and_linted(capsys, tmp_path) -> None:
    (tmp_path / "ok.comp").write_text(GLSL_OK)
    (tmp_path / "bad.comp").write_text(GLSL_OK.replace("v[0] = 1.0;", "v[0] = 1.0;\n  w = 2;"))
    rc, out, err = run(capsys, "lint", str(tmp_path), "-j", "1")
    assert rc == 1 and "2 file(s), 1 invalid" in err, err
    assert f"{tmp_path / 'bad.comp'}:5:1: error: glslang: 'w' : undeclared identifier" in out, out
    assert "  w = 2;" in out  # the GLSL line is shown
    rc, out, _ = run(capsys, "val", str(tmp_path / "ok.comp"))
    assert (rc, out) == (0, "")


def test_findings_in_a_comp_point_at_glsl_lines(capsys, tmp_path) -> None:
    src = tmp_path / "k.comp"
    src.write_text("#version 450\n#extension GL_KHR_cooperative_matrix : require\n"
                   "#extension GL_KHR_memory_scope_semantics : require\n"
                   "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
                   "layout(local_size_x = 32) in;\nlayout(std430, binding = 0) buffer B { float16_t v[]; };\n"
                   "void main() {\n"
                   + "".join(f"  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUse{u}> {n};\n"
                             f"  coopMatLoad({n}, v, 0, 16, gl_CooperativeMatrixLayoutRowMajor);\n"
                             for u, n in (("A", "a"), ("B", "b"), ("Accumulator", "c")))
                   + "  c = coopMatMulAdd(a, b, c);\n"
                   "  coopMatStore(c, v, 0, 16, gl_CooperativeMatrixLayoutRowMajor);\n}\n")
    # the small profile has no f16 accumulator: our finding on the compiled MulAdd lands on its GLSL line
    rc, out, err = run(capsys, "val", str(src), "--profile", str(DATA / "profile_small.yaml"))
    assert rc == 1 and f"{src}:14:3: error[profile.muladd]" in out, out + err
    assert "    c = coopMatMulAdd(a, b, c);\n    ^~~~" in out and "in the compiled module: %" in out
    assert f"{src}: error[profile.type]" in out  # a type has no GLSL line: the file, and the instruction in a note


# ---- pre-commit, changelog --------------------------------------------------------------------------------

def test_pre_commit_hooks_run_serially_and_take_comp_files() -> None:
    import yaml
    root = REPO
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    for h in hooks:
        assert h["require_serial"] is True, h  # lint parallelises itself
        assert re.search(h["files"], "a/b.comp") and re.search(h["files"], "x.spv") and not re.search(h["files"], "x.c")
    readme = (root / "README.md").read_text()
    rev = re.search(r"rev: (v[\d.]+)", readme)
    from spvcoop import __version__
    assert rev is not None and rev.group(1) == f"v{__version__}"
    assert f"## {__version__}" in (root / "CHANGELOG.md").read_text()

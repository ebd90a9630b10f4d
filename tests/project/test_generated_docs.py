"""spvcoop.run()'s keywords (spvcoop/api.py), docs/api.md and the run-option table of docs/run-spec.md are
generated (tools/gen_docs.py) and up to date; docs/run-spec.md describes every key the run-spec schema knows, and
its example runs."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from conftest import REPO

ROOT = REPO
RUN_SPEC = ROOT / "docs" / "run-spec.md"


@pytest.mark.slow
def test_generated_docs_are_up_to_date() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_docs.py"), "--check"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr


def test_a_new_run_option_is_one_declaration(monkeypatch) -> None:
    """A RunOption in options.py is all a new option needs in the signature: gen_docs writes its keyword into
    spvcoop/api.py (here a copy), typed and with its default, and refuses a declaration without a type."""
    import pytest

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_docs
    finally:
        sys.path.remove(str(ROOT / "tools"))
    from spvcoop.interp import options
    extra = options.RunOption("max_widgets", 1 << 24, options.count, "a new option", "--max-widgets", "max_widgets",
                              "N", api_type="int | str")
    monkeypatch.setattr(options, "OPTIONS", options.OPTIONS + (extra,))
    text = gen_docs.api_py((ROOT / "spvcoop" / "api.py").read_text())
    assert "        max_widgets: int | str = 1 << 24,\n        # end of the generated run options\n" in text
    namespace: dict = {"__name__": "spvcoop.api_copy", "__package__": "spvcoop"}
    exec(compile(text, "api.py", "exec"), namespace)   # the generated signature is valid Python
    assert namespace["run"].__kwdefaults__["max_widgets"] == 1 << 24
    untyped = options.RunOption("no_type", None, options.count, "a new option")
    monkeypatch.setattr(options, "OPTIONS", options.OPTIONS + (untyped,))
    with pytest.raises(SystemExit, match="give api_type .* to no_type"):
        gen_docs.run_keywords()


def test_api_reference_documents_every_public_function_and_option() -> None:
    import spvcoop
    from spvcoop.interp.options import OPTIONS
    text = (ROOT / "docs" / "api.md").read_text()
    for name in ("assemble", "disassemble", "read_binary", "validate", "run"):
        assert f"### `spvcoop.{name}`" in text and name in spvcoop.__all__
    for o in OPTIONS:
        assert f"    {o.name}: " in text, o.name
    assert "### `spvcoop_run`" in text


def test_run_spec_reference_names_every_key() -> None:
    from spvcoop.runspec.checks import DATA_KEYS, DTYPES, SOURCE_KEYS, SPEC_KEYS
    from spvcoop.runspec.schema import RandomSpec
    text = RUN_SPEC.read_text()
    keys = set(SPEC_KEYS) | DATA_KEYS | set(SOURCE_KEYS) | set(RandomSpec.model_fields) | set(DTYPES) | {"rtol", "atol"}
    missing = sorted(k for k in keys if f"`{k}`" not in text)
    assert not missing, f"docs/run-spec.md does not describe: {missing}"


def test_run_spec_example_runs(tmp_path, capsys) -> None:
    from spvcoop import cli
    example = re.search(r"```yaml\n(.*?)```", RUN_SPEC.read_text(), re.S)
    assert example is not None
    (tmp_path / "run.yaml").write_text(example.group(1))
    shutil.copy(ROOT / "samples" / "saxpy" / "saxpy.spvasm", tmp_path)
    rc = cli.main(["run", str(tmp_path / "run.yaml")])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out == "y: [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]\n"

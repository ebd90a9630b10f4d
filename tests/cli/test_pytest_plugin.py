"""The pytest plugin and spvcoop.run() as their users meet them (issue 25): GLSL text told from assembly that
quotes GLSL, short and complete failures, a short RunResult repr."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spvcoop
from spvcoop.core.diagnostics import SpvError
from spvcoop.loader import is_glsl_text
from conftest import REPO

ROOT = REPO
OOB = ROOT / "samples" / "errors" / "oob.spvasm"   # glslang -g output: its OpSource quotes "#version 450 ..."
GLSL = """
// a comment first is still GLSL
#version 450
layout(local_size_x = 8) in;
layout(binding = 0) buffer B { float v[]; };
void main() { v[gl_GlobalInvocationID.x] *= 2.0; }
"""


def test_assembly_quoting_glsl_is_assembly(spvcoop_run) -> None:
    text = OOB.read_text()
    assert "#version 450" in text and not is_glsl_text(text)
    res = spvcoop_run(text, buffers={"v": np.zeros(8, np.uint32)})   # invocations 0-3 store v[3..6]
    assert res["v"].tolist() == [0, 0, 0, 1, 1, 1, 1, 0]


@pytest.mark.slow
def test_run_takes_glsl_text() -> None:
    assert is_glsl_text(GLSL) and is_glsl_text("/* c */\n  #  version 450\n") and not is_glsl_text("x.comp")
    res = spvcoop.run(GLSL, buffers={"v": np.arange(8, dtype=np.float32)})
    assert res["v"].tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]


def test_glsl_text_errors_name_the_text_not_a_temporary_file() -> None:
    with pytest.raises(SpvError) as e:
        spvcoop.run("#version 450\nvoid main() { nope; }\n")
    d = e.value.diagnostics[0]
    assert d.source == "<glsl>" and "/tmp" not in d.message and "<glsl>" in d.message


@pytest.mark.slow
def test_a_failing_shader_fails_the_test_short_and_complete(tmp_path) -> None:
    test = tmp_path / "test_oob.py"
    test.write_text(textwrap.dedent(f"""
        import numpy as np

        def test_oob(spvcoop_run):
            spvcoop_run({str(OOB)!r}, dispatch=(2, 1, 1), buffers={{"v": np.zeros(8, np.uint32)}})
    """))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1, p.stdout
    out = p.stdout
    assert "out-of-bounds store of 4 bytes at byte offset 32 of 'B'" in out
    assert "OpStore %25 %uint_1\n" in out and "^~~" in out          # the source line, with a caret
    assert "note: in invocation #5" in out                        # which invocations
    assert "note: from oob.comp:4: void main()" in out            # which source line
    assert "spvcoop/interp" not in out and "spvcoop/api.py" not in out and "pytest_plugin.py" not in out
    failure = out[out.index("_ test_oob _"):out.index("short test summary")]
    assert len(failure.splitlines()) < 20, failure


def test_the_failure_is_still_the_spvcoop_error(spvcoop_run) -> None:
    with pytest.raises(SpvError) as e:
        spvcoop_run(str(OOB), dispatch=(2, 1, 1), buffers={"v": np.zeros(8, np.uint32)})
    assert e.value.diagnostics[0].severity == "error" and "note: in invocation" in str(e.value)


def test_run_result_repr_is_short() -> None:
    x = np.arange(1 << 16, dtype=np.float32)
    res = spvcoop.run(ROOT / "samples" / "saxpy" / "saxpy.spvasm", dispatch=(1024, 1, 1),
                      buffers={"x": x, "y": np.ones_like(x)}, push_constants={"a": 2.0, "n": 1 << 16})
    text = repr(res)
    assert len(text) < 300 and "\n" not in text, text
    assert "y/Y" in text or "Y/y" in text or "0:1" in text
    assert "float32[65536]" in text and "65536 invocation(s)" in text


def test_glsl_text_run_time_errors_name_the_text_not_a_temporary_file(spvcoop_run) -> None:
    """glslang's -g records the file it compiled (a temporary one) in OpString: a run-time error at a GLSL line
    names the text instead, as compile errors do."""
    src = "#version 450\nlayout(local_size_x = 4) in;\nlayout(binding = 0) buffer B { uint v[4]; };\n" \
          "void main() {\n  v[gl_GlobalInvocationID.x + 1] = 1u;\n}\n"
    with pytest.raises(SpvError) as e:
        spvcoop_run(src, buffers={"v": np.zeros(4, np.uint32)})
    d = e.value.diagnostics[0]
    assert d.source == "<glsl>" and d.span is not None and d.span.line == 5, (d.source, d.span)
    assert "/tmp" not in str(e.value)

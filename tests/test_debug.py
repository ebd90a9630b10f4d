"""`spvcoop debug` (a scripted session on stdin), the engine behind it (spvcoop/interp/debugger.py) and
`spvcoop dap` driven by a scripted Debug Adapter Protocol client."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from spvcoop.cli import main

ROOT = Path(__file__).resolve().parent.parent
LOOP = ROOT / "tests" / "data" / "debug" / "run.yaml"        # loop.comp: a loop, a call, branches
TILE = ROOT / "samples" / "debug" / "run.yaml"              # tile.comp: a branch and a cooperative matrix
sys.path.insert(0, str(ROOT / "samples" / "debug"))
from dap_client import DapClient, launch_configuration  # noqa: E402


def debug(monkeypatch, capsys, spec: Path, script: str, *flags: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    status = main(["debug", str(spec), *flags])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_a_scripted_session_stops_selects_prints_steps_and_exits(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, LOOP, "break 16\nrun\ninvocation 2\nprint acc\nprint i\n"
                             "step\nprint acc\ncontinue\n")
    assert status == 0 and err == ""
    assert "Breakpoint 1 at loop.comp:16\n" in out
    assert "Breakpoint 1, main at loop.comp:16 (4 of 8 invocations active; #0 selected)\n16\t        acc += 100;" in out
    assert "selected invocation #2 (global (2, 0, 0), workgroup (0, 0, 0), local (2, 0, 0))" in out
    assert "acc = 6\n" in out and "i = 2\n" in out          # 0 + 2 + 4 before the line runs
    assert "main at loop.comp:20\n20\t    if (v[i] > 1000) {" in out   # invocation 2 skips the else side
    assert "acc = 106\n" in out
    assert "[run exited normally after" in out and out.rstrip().endswith("v: [106, 107, 108, 109, 9, 10, 11, 12]\n"
                                                                           "(spvcoop)")


def test_calls_conditions_finish_and_frames(monkeypatch, capsys):
    script = "break 6 if x == 2\nrun\nbacktrace\ninfo locals\nprint x @all\nfinish\nprint k\nnext\nnext\nquit\n"
    status, out, err = debug(monkeypatch, capsys, LOOP, script)
    assert status == 0 and err == ""
    assert "Breakpoint 1, twice at loop.comp:6 (8 of 8 invocations active; #0 selected)" in out
    assert "#0  twice at loop.comp:6\n#1  main at loop.comp:13\n" in out
    assert "x = 2\n" in out and "x over 8 active invocation(s):\n  #0-#7: 2\n" in out
    assert "main at loop.comp:13\n13\t        acc += twice(k);\n" in out and "k = 2\n" in out
    assert "main at loop.comp:12\n" in out and "main at loop.comp:15\n" in out
    assert "[run exited" not in out   # quit ends the run where it stands


def test_errors_are_one_line_located_in_the_script_with_did_you_mean(monkeypatch, capsys):
    script = "prnt acc\nrun\nbreak 7\nbreak nope.comp:3\nbreak 16 if acc >\ninfo frobs\nrun\n"
    status, out, err = debug(monkeypatch, capsys, LOOP, script)
    assert status == 0
    assert err.splitlines() == [
        "<stdin>:1:1: error: unknown command 'prnt' (did you mean 'print'?); 'help' lists them",
        "<stdin>:4:1: error: no source file 'nope.comp' (did you mean 'loop.comp'?)",
        "<stdin>:5:1: error: cannot read the expression 'acc >'",
        "<stdin>:6:1: error: info wants one of breakpoints, invocations, locals",
        "<stdin>:7:1: error: the run has started already: 'continue'"]
    assert "Breakpoint 1 at loop.comp:9 (line 7 has no code)" in out


def test_print_names_members_elements_and_misspellings(monkeypatch, capsys):
    script = ("break 19\nrun\ninvocation 5,0,0\nprint w\nprint flags[5]\nprint gl_LocalInvocationID.x * 2 + 1\n"
              "print ww\nprint flags[99]\nprint %7\ninfo invocations\ninfo breakpoints\ndelete 1\ninfo breakpoints\n"
              "continue\n")
    status, out, err = debug(monkeypatch, capsys, TILE, script)
    assert status == 0
    assert "w = 2\n" in out and "flags[5] = 0\n" in out and "gl_LocalInvocationID.x * 2 + 1 = 11\n" in out
    assert "error: no name 'ww' here (did you mean 'w'?)" in err
    assert "error: index 99 is outside 0..31" in err
    assert "8 of 32 invocations active: #0-#7\nselected: invocation #5 (global (5, 0, 0)" in out
    assert "1  tile.comp:19  (hit 1 time)\n" in out and "no breakpoints\n" in out


def test_matrix_as_the_logical_matrix_and_by_lane(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, TILE, "break 25\nrun\ninvocation 3\nmatrix m\nmatrix m --lanes\n"
                             "matrix w\ncontinue\n", "--layout", "nvidia")
    assert status == 0
    assert "m: coopmat<f16, Subgroup, 16x16, use acc>, subgroup instance 0 (of invocation #3)" in out
    assert "\n0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 0.0 1.0 2.0 3.0 4.0 5.0\n6.0 7.0" in out
    # the nvidia model's accumulator layout: lane 0 holds (0,0), (0,1), (0,8), (0,9), then (8,0) ...
    assert "layout nvidia, 8 elements per lane: LANE:INDEX holds each element" in out
    assert "\n 0:0  0:1  1:0  1:1  2:0  2:1  3:0  3:1  0:2  0:3  1:2  1:3  2:2  2:3  3:2  3:3\n" in out
    assert "\n 0:4  0:5  1:4  1:5" in out
    assert "error: 'w' is not a cooperative matrix (here)" in err


def test_a_failing_run_gives_its_error_and_exit_status(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, ROOT / "samples" / "errors" / "oob.yaml", "run\n")
    assert status == 1
    assert "[run stopped with an error]" in out
    assert "error[interp.runtime]: OpStore: out-of-bounds store" in err


def test_instruction_breakpoints_and_stepi(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, LOOP, "break %twice_i1_\nrun\nstepi\nbreak word 3\ncontinue\n")
    assert "Breakpoint 1 at %twice_i1_" in out and "Breakpoint 1, twice at loop.comp:6" in out
    assert "=> " in out
    assert "error: no instruction starts at word 3" in err


# ---- the Debug Adapter Protocol ------------------------------------------------------------------------


@pytest.mark.slow
def test_dap_session_through_a_scripted_client():
    c = DapClient(cwd=str(ROOT))
    try:
        r = c.request("initialize", adapterID="test")
        assert r["success"] and r["body"]["supportsConditionalBreakpoints"]
        c.event("initialized")
        assert c.request("launch", **launch_configuration(str(ROOT / "samples/debug/vscode/launch.json")))["success"]
        r = c.request("setBreakpoints", source={"path": str(ROOT / "samples/debug/tile.comp")},
                      breakpoints=[{"line": 12, "condition": "i == 6"}, {"line": 19}, {"line": 900}])
        assert [b["verified"] for b in r["body"]["breakpoints"]] == [True, True, False]
        assert c.request("configurationDone")["success"]
        stop = c.event("stopped")["body"]
        assert stop["reason"] == "breakpoint" and stop["threadId"] == 7        # invocation 6: i == 6
        threads = c.request("threads")["body"]["threads"]
        assert threads[0]["id"] == 7 and len(threads) == 32
        frames = c.request("stackTrace", threadId=7)["body"]["stackFrames"]
        assert [(f["name"], f["line"], f["source"]["path"]) for f in frames] == [
            ("weight", 12, str(ROOT / "samples/debug/tile.comp")), ("main", 17, str(ROOT / "samples/debug/tile.comp"))]
        scope = c.request("scopes", frameId=frames[0]["id"])["body"]["scopes"][0]
        variables = c.request("variables", variablesReference=scope["variablesReference"])["body"]["variables"]
        assert {"name": "i", "value": "6", "variablesReference": 0} in variables
        assert c.request("evaluate", expression="i * 2", frameId=1)["body"]["result"] == "12"
        assert not c.request("evaluate", expression="nope", frameId=1)["success"]
        c.request("stepOut", threadId=7)
        assert c.event("stopped")["body"]["reason"] == "step"
        assert c.request("stackTrace", threadId=7)["body"]["stackFrames"][0]["line"] == 17
        c.request("continue", threadId=7)
        stop = c.event("stopped")["body"]
        assert stop["reason"] == "breakpoint" and "tile.comp:19" in stop["description"]
        c.request("stepIn", threadId=1)
        assert c.event("stopped")["body"]["reason"] == "step"
        for _ in range(2):
            c.request("next", threadId=1)
            assert c.event("stopped")["body"]["reason"] == "step"
        frames = c.request("stackTrace", threadId=1)["body"]["stackFrames"]
        assert frames[0]["line"] == 26
        variables = c.request("variables", variablesReference=frames[0]["id"])["body"]["variables"]
        m = next(v for v in variables if v["name"] == "m")
        assert m["value"] == "<coopmat<f16, Subgroup, 16x16, use acc>>" and m["variablesReference"] > 0
        rows = c.request("variables", variablesReference=m["variablesReference"])["body"]["variables"]
        assert len(rows) == 16 and rows[1]["value"].startswith("[6.0, 7.0, 8.0, 9.0, 0.0")
        c.request("continue", threadId=1)
        assert c.event("exited")["body"]["exitCode"] == 0
        c.event("terminated")
        outputs = "".join(e["body"]["output"] for e in c.events if e["event"] == "output")
        assert "flags: [1, 2, 3, 4, 1, 2, 3, 4, 0" in outputs
        assert c.request("disconnect")["success"]
    finally:
        status = c.close()
    assert status == 0


@pytest.mark.slow
def test_dap_refuses_bad_requests_with_error_responses():
    c = DapClient(cwd=str(ROOT))
    try:
        assert not c.request("threadz")["success"]
        r = c.request("launch", program="samples/debug/run.yaml", args=["--layuot", "x"])
        assert not r["success"] and "unrecognized arguments" in r["message"]
        r = c.request("launch", program="samples/debug/missing.yaml")
        assert not r["success"] and "missing.yaml" in r["message"]
        assert not c.request("stackTrace", threadId=1)["success"]
    finally:
        c.close()


def test_dap_framing_errors_exit_2():
    import subprocess
    p = subprocess.run([sys.executable, "-m", "spvcoop", "dap"], input=b"Content-Length: x\r\n\r\n{}",
                       capture_output=True, cwd=ROOT, timeout=60)
    assert p.returncode == 2 and p.stderr.decode().startswith("<stdin>: error: Debug Adapter Protocol: bad ")


def test_the_vscode_files_wire_the_adapter():
    pkg = json.loads((ROOT / "samples/debug/vscode/package.json").read_text())
    dbg = pkg["contributes"]["debuggers"][0]
    assert (dbg["program"], dbg["args"]) == ("spvcoop", ["dap"])
    text = (ROOT / "samples/debug/vscode/launch.json").read_text()
    conf = json.loads("\n".join(x for x in text.splitlines() if not x.lstrip().startswith("//")))["configurations"][0]
    assert conf["type"] == dbg["type"] and conf["request"] == "launch"


@pytest.mark.parametrize("spec", [LOOP, TILE])
def test_an_observed_run_gives_the_same_outputs(spec):
    """The debugger's and coverage's path (instruction at a time, observed) computes what the fast path does."""
    from spvcoop.interp.coverage import Coverage
    from spvcoop.interp.runner import run
    from spvcoop.runspec.spec import generate, load_spec, load_spec_shader, FileOptions
    s = load_spec(str(spec), FileOptions())
    module = load_spec_shader(s)
    buffers = {k: generate(e, str(k), s.base, s.source, None, s.mark("buffers", k), s.options)
               for k, e in s.buffers.items()}
    plain = run(module, buffers=buffers)
    cov = Coverage()
    observed = run(module, buffers=buffers, observer=cov)
    for k in buffers:
        assert (plain[k] == observed[k]).all()
    assert cov.runs == 1 and plain.steps == observed.steps


def test_layout_all_is_refused(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, TILE, "run\n", "--layout", "all")
    assert status == 2
    assert err == "<command line>: error: --layout all runs every model; debug under one (--layout NAME)\n"


def test_a_comp_file_is_debugged_at_its_lines(monkeypatch, capsys, tmp_path):
    """GLSL named directly (compiled at run time with -g, as `spvcoop run` compiles it)."""
    from spvcoop.core.reference_tools import find_tool
    if find_tool("glslangValidator") is None:
        pytest.skip("glslangValidator not installed")
    (tmp_path / "loop.comp").write_text((ROOT / "tests/data/debug/loop.comp").read_text())
    (tmp_path / "run.yaml").write_text("shader: loop.comp\nbuffers:\n  v: {zeros: 8, dtype: int32}\n")
    status, out, err = debug(monkeypatch, capsys, tmp_path / "run.yaml",
                             "break 18\nrun\ninvocation 6\nprint acc\nnext\ncontinue\n")
    assert status == 0 and err == ""
    assert "Breakpoint 1, main at loop.comp:18 (4 of 8 invocations active; #4 selected)" in out
    assert "acc = 6\n" in out and "main at loop.comp:20\n" in out and "v: [106, 107, 108, 109, 9, 10, 11, 12]" in out


def test_dap_arguments_of_the_wrong_json_type_get_error_responses():
    """`"arguments": 5`, or a field of the wrong type deep inside, is a client's mistake: an error response and the
    session goes on (it was an internal error, exit 3)."""
    import json
    import subprocess

    def frame(obj) -> bytes:
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    msgs = [{"seq": 1, "type": "request", "command": "launch", "arguments": 5},
            {"seq": 2, "type": "request", "command": "launch", "arguments": {"program": 5, "args": "x"}},
            {"seq": 3, "type": "request", "command": "initialize", "arguments": {}}]
    p = subprocess.run([sys.executable, "-m", "spvcoop", "dap"], input=b"".join(frame(m) for m in msgs),
                       capture_output=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    replies = [json.loads(part.split(b"\r\n\r\n", 1)[1]) for part in p.stdout.split(b"Content-Length: ")[1:]]
    by_seq = {r["request_seq"]: r for r in replies if r.get("type") == "response"}
    assert not by_seq[1]["success"] and "'arguments' must be an object" in by_seq[1]["message"]
    assert not by_seq[2]["success"] and by_seq[3]["success"]


@pytest.mark.parametrize("data, words", [
    (b"garbage\r\n\r\n", "ended inside a message header"),          # no Content-Length, then the end
    (b"a" * 10_000, "header line longer than 4096 bytes"),          # never read as one unbounded line
])
def test_dap_a_header_without_a_message_is_a_framing_error(data, words):
    import subprocess
    p = subprocess.run([sys.executable, "-m", "spvcoop", "dap"], input=data, capture_output=True, cwd=ROOT,
                       timeout=60)
    assert p.returncode == 2 and words in p.stderr.decode(), p.stderr.decode()

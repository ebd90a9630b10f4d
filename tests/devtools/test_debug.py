"""`spvcoop debug` (a scripted session on stdin), the engine behind it (spvcoop/devtools/debugger.py) and
`spvcoop dap` driven by a scripted Debug Adapter Protocol client."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from spvcoop.cli import main
from conftest import REPO

ROOT = REPO
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
    script = "prnt acc\nrun\nbreak 7\nbreak nope.comp:3\nbreak 16 if acc >\ninfo frobs\nrun\ncontinue\n"
    status, out, err = debug(monkeypatch, capsys, LOOP, script)
    assert status == 2   # a script with failed commands (the run itself went well)
    assert err.splitlines() == [
        "<stdin>:1:1: error: unknown command 'prnt' (did you mean 'print'?); 'help' lists them",
        "<stdin>:4:1: error: no source file 'nope.comp' (did you mean 'loop.comp'?)",
        "<stdin>:5:1: error: cannot read the expression 'acc >'",
        "<stdin>:6:1: error: info wants one of breakpoints, invocations, locals, args, frame, display, writer, catch"]
    assert "Breakpoint 1 at loop.comp:9 (line 7 has no code)" in out
    assert out.count("[run exited normally") == 2 and out.count("v: [") == 2   # `run` after the end: a new run


def test_print_names_members_elements_and_misspellings(monkeypatch, capsys):
    script = ("break 19\nrun\ninvocation 5,0,0\nprint w\nprint flags[5]\nprint gl_LocalInvocationID.x * 2 + 1\n"
              "print ww\nprint flags[99]\nprint %7\ninfo invocations\ninfo breakpoints\ndelete 1\ninfo breakpoints\n"
              "continue\n")
    status, out, err = debug(monkeypatch, capsys, TILE, script)
    assert status == 2   # print ww, print flags[99] failed
    assert "w = 2\n" in out and "flags[5] = 0\n" in out and "gl_LocalInvocationID.x * 2 + 1 = 11\n" in out
    assert "error: no name 'ww' here (did you mean 'w'?)" in err
    assert "error: index 99 is outside 0..31" in err
    assert "8 of 32 invocations active: #0-#7\nselected: invocation #5 (global (5, 0, 0)" in out
    assert "1  tile.comp:19  (hit 1 time)\n" in out and "no breakpoints\n" in out


def test_matrix_as_the_logical_matrix_and_by_lane(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, TILE, "break 25\nrun\ninvocation 3\nmatrix m\nmatrix m --lanes\n"
                             "matrix w\ncontinue\n", "--layout", "nvidia")
    assert status == 2   # matrix w failed
    assert "m: coopmat<f16, Subgroup, 16x16, use acc>, subgroup instance 0 (of invocation #3)" in out
    assert "\n0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 0.0 1.0 2.0 3.0 4.0 5.0\n6.0 7.0" in out
    # the nvidia model's accumulator layout: lane 0 holds (0,0), (0,1), (0,8), (0,9), then (8,0) ...
    assert "layout nvidia, 8 elements per lane: LANE:INDEX holds each element" in out
    assert "\n 0:0  0:1  1:0  1:1  2:0  2:1  3:0  3:1  0:2  0:3  1:2  1:3  2:2  2:3  3:2  3:3\n" in out
    assert "\n 0:4  0:5  1:4  1:5" in out
    assert "error: 'w' is not a cooperative matrix (here)" in err


def test_a_failing_run_gives_its_error_and_exit_status(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, ROOT / "samples" / "errors" / "oob.yaml", "run\ncontinue\n")
    assert status == 1
    assert "[run stopped with an error]" in out
    assert "error[interp.runtime]: OpStore: out-of-bounds store" in err


def test_a_fault_stops_there_with_the_faulting_invocation_selected(monkeypatch, capsys):
    """Post-mortem: the run stops at the failing store, at its GLSL line, invocation #5 (the first of 5, 6, 7)
    selected, and every command works there; the next run command ends the run with its error."""
    status, out, err = debug(monkeypatch, capsys, ROOT / "samples" / "errors" / "oob.yaml",
                             "run\nprint gl_GlobalInvocationID.x\nbacktrace\ninfo invocations\nlist\nstep\n")
    assert status == 1, err
    assert "Stopped at an error, main at oob.comp:4 (invocation #5 (global (5, 0, 0)" in out
    assert "error[interp.runtime]: OpStore: out-of-bounds store of 4 bytes at byte offset 32" in out
    assert "\n4\tvoid main() { v[gl_GlobalInvocationID.x + 3] = 1; }\n" in out
    assert "gl_GlobalInvocationID.x = 5\n" in out and "#0  main at oob.comp:4\n" in out
    assert "selected: invocation #5" in out and "[run stopped with an error]" in out


def test_input_that_ends_while_the_run_is_stopped_exits_2(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, LOOP, "break 16\nrun\n")
    assert status == 2 and "the commands ended while the run was stopped" in err


def test_debug_check_takes_the_run_options_of_run(monkeypatch, capsys, tmp_path):
    """--check (and --check-floats, --rtol, --atol) as `spvcoop run` has them: it was an internal error, debug's
    defaults lacking check_floats."""
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("v: [106, 107, 108, 109, 9, 10, 11, 12]\n")
    bad.write_text("v: [0, 107, 108, 109, 9, 10, 11, 12]\n")
    assert debug(monkeypatch, capsys, LOOP, "run\n", "--check", str(good))[0] == 0
    status, out, err = debug(monkeypatch, capsys, LOOP, "run\n", "--check", str(bad), "--check-floats", "tolerance")
    assert status == 1 and "v" in out + err
    from spvcoop.cli import build_parser
    run_args = vars(build_parser().parse_args(["run", "x.yaml"]))
    debug_args = vars(build_parser().parse_args(["debug", "x.yaml"]))
    assert set(run_args) - set(debug_args) == set(), "debug lacks a default of run's"


def test_ex_and_x_run_commands_first(monkeypatch, capsys, tmp_path):
    script = tmp_path / "cmds.txt"
    script.write_text("print acc\nnext\n")
    status, out, err = debug(monkeypatch, capsys, LOOP, "continue\n", "-ex", "break 16", "-ex", "run",
                             "-x", str(script))
    assert status == 0, err
    assert "(spvcoop) break 16\nBreakpoint 1 at loop.comp:16" in out and "acc = 6\n" in out
    assert "main at loop.comp:20" in out and "[run exited normally" in out
    status, out, err = debug(monkeypatch, capsys, LOOP, "", "-ex", "print nope", "-ex", "quit")
    assert status == 2 and err.startswith("-ex 1: error: the run is not stopped")


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
        assert {"name": "i", "value": "6", "variablesReference": 0, "evaluateName": "i"} in variables
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
        scope = c.request("scopes", frameId=frames[0]["id"])["body"]["scopes"][0]
        variables = c.request("variables", variablesReference=scope["variablesReference"])["body"]["variables"]
        m = next(v for v in variables if v["name"] == "m")
        assert m["value"] == "<coopmat<f16, Subgroup, 16x16, use acc>>" and m["variablesReference"] > 0
        rows = c.request("variables", variablesReference=m["variablesReference"])["body"]["variables"]
        assert len(rows) == 17 and rows[1]["value"].startswith("[6.0, 7.0, 8.0, 9.0, 0.0")
        assert rows[16]["name"] == "lane #0 holds" and rows[16]["value"].startswith("8 elements: (0, 0) = 0.0, ")
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


# the fields of a `contributes.debuggers` entry VS Code reads (its extension manifest schema, debuggers section)
DEBUGGER_FIELDS = {"type", "label", "program", "args", "runtime", "runtimeArgs", "variables", "languages",
                   "configurationAttributes", "initialConfigurations", "configurationSnippets", "windows", "osx",
                   "linux", "when", "hiddenWhen", "deprecated", "strings"}
PLATFORM_FIELDS = {"program", "args", "runtime", "runtimeArgs"}


def test_the_vscode_extension_starts_the_adapter_as_vscode_does(tmp_path):
    """VS Code joins a debugger's `program` to the extension's folder and runs `runtime [runtimeArgs] program
    [args]`, a bare runtime looked up on PATH: `"program": "spvcoop"` named a file in the extension folder that does
    not exist. Started that way, the adapter answers initialize; launch.json's keys are declared attributes."""
    import subprocess
    ext = ROOT / "samples/debug/vscode"
    pkg = json.loads((ext / "package.json").read_text())
    dbg = pkg["contributes"]["debuggers"][0]
    assert set(dbg) <= DEBUGGER_FIELDS, set(dbg) - DEBUGGER_FIELDS
    for plat in ("windows", "osx", "linux"):
        assert set(dbg.get(plat, {})) <= PLATFORM_FIELDS
    assert not Path(dbg["program"]).is_absolute() and (ext / dbg["program"]).is_file()
    assert "/" not in dbg["runtime"] and "\\" not in dbg["runtime"]   # a command on PATH, not a path in the folder
    assert {"language": "glsl"} in pkg["contributes"]["breakpoints"]
    assert any(lang["id"] == "glsl" and ".comp" in lang["extensions"] for lang in pkg["contributes"]["languages"])
    launch = dbg["configurationAttributes"]["launch"]
    text = (ext / "launch.json").read_text()
    conf = json.loads("\n".join(x for x in text.splitlines() if not x.lstrip().startswith("//")))["configurations"][0]
    assert conf["type"] == dbg["type"] and conf["request"] == "launch"
    assert set(conf) - {"type", "request", "name"} <= set(launch["properties"]) and set(launch["required"]) <= set(conf)
    for c in dbg["initialConfigurations"] + [s["body"] for s in dbg["configurationSnippets"]]:
        assert c["type"] == dbg["type"] and set(c) - {"type", "request", "name"} <= set(launch["properties"])
    # as VS Code starts it (the runtime found on PATH: this environment's python)
    argv = [sys.executable, *dbg.get("runtimeArgs", []), str(ext / dbg["program"]), *dbg.get("args", [])]
    body = json.dumps({"seq": 1, "type": "request", "command": "initialize",
                       "arguments": {"adapterID": "spvcoop"}}).encode()
    p = subprocess.run(argv, input=b"Content-Length: %d\r\n\r\n" % len(body) + body, capture_output=True,
                       cwd=tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    first = json.loads(p.stdout.split(b"\r\n\r\n", 1)[1].split(b"Content-Length")[0])
    assert first["success"] and first["body"]["supportsConfigurationDoneRequest"]


def test_the_vscode_adapter_says_so_where_spvcoop_is_missing(tmp_path):
    """Under a Python without spvcoop, the editor gets an error response that says what to do."""
    import subprocess
    body = json.dumps({"seq": 7, "type": "request", "command": "initialize", "arguments": {}}).encode()
    env = {"PATH": "/usr/bin:/bin"}
    p = subprocess.run([sys.executable, "-S", "-E", str(ROOT / "samples/debug/vscode/adapter.py")], env=env,
                       input=b"Content-Length: %d\r\n\r\n" % len(body) + body, capture_output=True, cwd=tmp_path,
                       timeout=60)
    reply = json.loads(p.stdout.split(b"\r\n\r\n", 1)[1])
    assert p.returncode == 1 and reply["request_seq"] == 7 and not reply["success"]
    assert "spvcoop is not installed" in reply["message"] and "SPVCOOP_PYTHON" in reply["message"]


@pytest.mark.parametrize("spec", [LOOP, TILE])
def test_an_observed_run_gives_the_same_outputs(spec):
    """The debugger's and coverage's path (instruction at a time, observed) computes what the fast path does."""
    from spvcoop.devtools.coverage import Coverage
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


# ---- issue 34: what broke -----------------------------------------------------------------------------------


def session(spec: Path, *flags: str):
    """A Debugger on a run spec, as `spvcoop debug` builds it."""
    from spvcoop.commands.run import prepare
    from spvcoop.cli import build_parser
    from spvcoop.devtools.debugger import Debugger
    args = build_parser().parse_args(["debug", str(spec), *flags])
    prog, inputs, opts = prepare(args)[:3]
    return Debugger(prog, inputs, opts)


@pytest.mark.parametrize("expr, words", [
    ("-m", "numbers"), ("-flags", "numbers"), ("m + 1", "numbers"), ("w & 1.5", "integers"), ("~1.5", "integers"),
    ("1 << 100000", "shift"), ("1 << -1", "shift"), ("+".join(["1"] * 30_000), "longer than"),
    ("(" * 100_000 + "1" + ")" * 100_000, "longer than"), ("(" * 300 + "1" + ")" * 300, "nested"),
    ("-" * 500 + "1", "nested"), ("99999999999999999999999999999999999999999", "integer"),
    ("w * 9223372036854775807 * 9223372036854775807", "integer"), ("w @ w", "only"), ("w if w else w", "only"),
    ("1.5 % 0", "division"), ("flags[1.5]", "integer"), ("flags[-1]", "outside"), ("w.x", "member"),
    ("gl_LocalInvocationID < 3", "numbers"), ("not_a_name()", "only"), ("'s'", "numbers"), ("w[0]", "array"),
    ("\x1b]0;title\x07", "cannot read")])
def test_print_is_total(expr, words):
    """Each of these was an internal error (or a hang) of `print`; now an error reply, and the session goes on."""
    dbg = session(TILE, "--layout", "nvidia")
    assert not dbg.execute("break 25").error and not dbg.execute("run").error
    r = dbg.execute("print " + expr)
    assert r.error and words in r.text, r.text
    assert "\x1b" not in r.text and len(r.text) < 400
    assert dbg.execute("print w").text == "w = 1"
    dbg.close()


def test_print_of_a_value_not_yet_stored_and_of_a_struct(tmp_path):
    dbg = session(LOOP)
    dbg.execute("break 11")
    dbg.execute("run")
    r = dbg.execute("print -acc")      # OpVariable acc: not stored yet at line 11
    assert r.error and "not yet stored" in r.text
    dbg.close()


def test_a_condition_that_fails_at_its_first_hit_stops_there_with_its_error():
    dbg = session(LOOP)
    assert not dbg.execute("break 16 if v + 1").error      # v: an array, found out only when evaluated
    r = dbg.execute("run")
    assert not r.error and "the condition of breakpoint 1 could not be evaluated" in r.text, r.text
    assert "arithmetic" in r.text and dbg.state == "stopped"
    assert dbg.execute("continue").text.startswith("[run exited normally")


def test_the_source_line_at_a_stop_is_escaped(tmp_path):
    """The GLSL embedded in the module (OpSource) is the user's input: an ESC sequence in it is shown escaped."""
    text = (ROOT / "tests/data/debug/loop.spvasm").read_text()
    assert text.count("acc += 100;") == 1
    (tmp_path / "loop.spvasm").write_text(text.replace("acc += 100;", "acc += 100; // \x1b]0;owned\x07"))
    (tmp_path / "run.yaml").write_text((ROOT / "tests/data/debug/run.yaml").read_text())
    dbg = session(tmp_path / "run.yaml")
    dbg.execute("break 16")
    out = dbg.execute("run").text
    assert "acc += 100; // \\x1b]0;owned\\x07" in out and "\x1b" not in out
    assert "\x1b" not in dbg.execute("list 16").text
    dbg.close()


SPIN = ROOT / "tests" / "data" / "debug" / "spin.yaml"   # a long loop, then a store out of bounds
# what VS Code 1.9x sends as initialize's arguments
VSCODE_INITIALIZE = {"clientID": "vscode", "clientName": "Visual Studio Code", "adapterID": "spvcoop",
                     "pathFormat": "path", "linesStartAt1": True, "columnsStartAt1": True,
                     "supportsVariableType": True, "supportsVariablePaging": True, "supportsRunInTerminalRequest": True,
                     "locale": "en", "supportsProgressReporting": True, "supportsInvalidatedEvent": True,
                     "supportsMemoryReferences": True, "supportsArgsCanBeInterpretedByShell": True,
                     "supportsMemoryEvent": True, "supportsStartDebuggingRequest": True}


@pytest.mark.slow
def test_a_vscode_session_replayed(tmp_path):
    """The requests VS Code sends, in its order: initialize with its arguments; breakpoints, exception filters and
    configurationDone before launch (it sends them on `initialized`, launch may come later); a stop answered with
    threads, stackTrace, scopes, variables and evaluate; a pause during a long run; setVariable; an exception stop
    with exceptionInfo; disconnect. Breakpoints sent before launch were refused and the run never stopped."""
    import time
    comp = str(ROOT / "tests/data/debug/spin.comp")
    c = DapClient(cwd=str(tmp_path))   # launch's cwd, not the adapter's, is where relative paths start
    try:
        r = c.request("initialize", **VSCODE_INITIALIZE)
        caps = r["body"]
        assert r["success"] and caps["supportsTerminateRequest"] and caps["supportsRestartRequest"]
        assert {f["filter"] for f in caps["exceptionBreakpointFilters"]} == {"fault", "race", "nonfinite"}
        c.event("initialized")
        r = c.request("setBreakpoints", source={"name": "spin.comp", "path": comp}, lines=[9],
                      breakpoints=[{"line": 9}], sourceModified=False)
        pending = r["body"]["breakpoints"][0]
        assert r["success"] and not pending["verified"]
        assert c.request("setFunctionBreakpoints", breakpoints=[])["success"]
        assert c.request("setExceptionBreakpoints", filters=["fault", "race"])["success"]
        assert c.request("configurationDone")["success"]
        r = c.request("launch", type="spvcoop", request="launch", name="spin", program="tests/data/debug/spin.yaml",
                      args=["--max-time", "120"], cwd=str(ROOT), __configurationTarget=6,
                      __sessionId="0c6f5e8e-6a37-4c34-a4e3-3a3c41f8b3d1")
        assert r["success"], r
        changed = c.event("breakpoint")["body"]
        assert changed["reason"] == "changed" and changed["breakpoint"] == {"id": pending["id"], "verified": True,
                                                                            "line": 9}
        stop = c.event("stopped")["body"]
        assert stop["reason"] == "breakpoint" and stop["hitBreakpointIds"] == [pending["id"]]
        threads = c.request("threads")["body"]["threads"]
        assert [t["id"] for t in threads] == [1, 2, 3, 4]
        seen = {}
        for t in threads:
            frames = c.request("stackTrace", threadId=t["id"], startFrame=0, levels=20)["body"]["stackFrames"]
            assert frames[0]["source"]["path"] == comp and frames[0]["line"] == 9
            seen[t["id"]] = frames[0]["id"]
            scopes = c.request("scopes", frameId=frames[0]["id"])["body"]["scopes"]
            assert [s["name"] for s in scopes][:2] == ["Locals", "Arguments"]
            values = {v["name"]: v["value"] for v in c.request(
                "variables", variablesReference=scopes[0]["variablesReference"])["body"]["variables"]}
            assert values["i"] == str(t["id"] - 1)   # each thread its own invocation's values
            r = c.request("evaluate", expression="i * 10", frameId=frames[0]["id"], context="watch")
            assert r["body"]["result"] == str((t["id"] - 1) * 10)
        assert len(set(seen.values())) == 4      # frame ids differ across threads
        glob = c.request("variables", variablesReference=c.request("scopes", frameId=seen[1])["body"]["scopes"][2][
            "variablesReference"])["body"]["variables"]
        assert any(v["name"] == "gl_GlobalInvocationID" for v in glob)
        c.request("continue", threadId=1)
        time.sleep(0.5)
        started = time.monotonic()
        assert c.request("pause", threadId=1)["success"]
        stop = c.event("stopped")["body"]
        assert stop["reason"] == "pause" and time.monotonic() - started < 5
        frames = c.request("stackTrace", threadId=1)["body"]["stackFrames"]
        assert frames[0]["line"] in (10, 11)
        locals_ref = c.request("scopes", frameId=frames[0]["id"])["body"]["scopes"][0]["variablesReference"]
        for lane in range(4):   # the loop's counter, near its end, in every thread
            frame = c.request("stackTrace", threadId=lane + 1)["body"]["stackFrames"][0]["id"]
            ref = c.request("scopes", frameId=frame)["body"]["scopes"][0]["variablesReference"]
            r = c.request("setVariable", variablesReference=ref, name="k", value="99999990")
            assert r["success"] and r["body"]["value"] == "99999990", r
        assert locals_ref
        c.request("continue", threadId=1)
        stop = c.event("stopped")["body"]
        assert stop["reason"] == "exception" and "out-of-bounds store" in stop["text"]
        assert stop["threadId"] == 3                 # invocation 2, the first that stores past the end
        info = c.request("exceptionInfo", threadId=3)["body"]
        assert info["exceptionId"] == "interp.runtime" and "spin.comp:13" in info["details"]["message"]
        frames = c.request("stackTrace", threadId=3)["body"]["stackFrames"]
        assert frames[0]["line"] == 13
        assert c.request("evaluate", expression="i + 2", frameId=frames[0]["id"], context="hover")["body"][
            "result"] == "4"
        assert c.request("disconnect", restart=False, terminateDebuggee=True)["success"]
    finally:
        status = c.close()
    assert status == 0
    assert not [e for e in c.events if e["event"] == "output" and e["body"]["category"] == "stdout"]


def _frames_of(stdout: bytes) -> list[dict]:
    """Every message of an adapter's standard output, asserting that nothing else is there."""
    out, rest = [], stdout
    while rest:
        head, sep, rest = rest.partition(b"\r\n\r\n")
        assert sep and head.startswith(b"Content-Length: "), rest[:200]
        n = int(head.split(b":")[1])
        out.append(json.loads(rest[:n]))
        rest = rest[n:]
    return out


@pytest.mark.slow
def test_dap_hostile_requests_get_error_responses_and_stdout_stays_framed(tmp_path):
    """launch with "--help" wrote argparse's help unframed into the protocol stream and ended the adapter;
    `Infinity` as a reference, a reference out of range and a breakpoint in another file of the same name were
    internal errors or wrong answers."""
    import subprocess
    (tmp_path / "tile.comp").write_text("// another tile.comp\n" * 30)

    def frame(obj) -> bytes:
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    reqs = [("initialize", {"adapterID": "t"}),
            ("launch", {"program": "samples/debug/run.yaml", "args": ["--help"]}),
            ("launch", {"program": "samples/debug/run.yaml", "args": ["--layout", "nvidia"], "cwd": str(ROOT)}),
            ("setBreakpoints", {"source": {"path": str(tmp_path / "tile.comp")}, "breakpoints": [{"line": 19}]}),
            ("setBreakpoints", {"source": {"path": str(ROOT / "samples/debug/tile.comp")},
                                "breakpoints": [{"line": 25}]}),
            ("variables", {"variablesReference": float("inf")}),
            ("disassemble", {"memoryReference": "12", "instructionCount": 3}),
            ("completions", {"text": "print fl", "column": 9}),
            ("threadz", {}),
            ("disconnect", {})]
    data = b"".join(frame({"seq": k, "type": "request", "command": c, "arguments": a})
                    for k, (c, a) in enumerate(reqs, 1))
    p = subprocess.run([sys.executable, "-m", "spvcoop", "dap"], input=data, capture_output=True, cwd=tmp_path,
                       timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    msgs = _frames_of(p.stdout)
    by = {m["request_seq"]: m for m in msgs if m["type"] == "response"}
    assert set(by) == set(range(1, len(reqs) + 1))
    assert not by[2]["success"] and "--help is not one" in by[2]["message"]
    assert by[3]["success"]
    assert by[4]["body"]["breakpoints"][0]["verified"] is False        # the same name, another file
    assert by[5]["body"]["breakpoints"][0]["verified"] is True
    assert not by[6]["success"] and not by[9]["success"]
    assert by[7]["success"] and len(by[7]["body"]["instructions"]) == 3
    assert {t["label"] for t in by[8]["body"]["targets"]} >= {"flags"}
    # at a stop
    c = DapClient(cwd=str(ROOT))
    try:
        c.request("initialize", adapterID="t")
        c.request("launch", program="samples/debug/run.yaml", args=["--layout", "nvidia"])
        c.request("setBreakpoints", source={"path": str(ROOT / "samples/debug/tile.comp")}, breakpoints=[{"line": 26}])
        c.request("configurationDone")
        c.event("stopped")
        frame_id = c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]["id"]
        ref = c.request("scopes", frameId=frame_id)["body"]["scopes"][0]["variablesReference"]
        m = next(v for v in c.request("variables", variablesReference=ref)["body"]["variables"] if v["name"] == "m")
        for bad in (float("inf"), m["variablesReference"] + 1000, 1 << 40, -1, 2.5, "1", True):
            r = c.request("variables", variablesReference=bad)
            assert not r["success"] and "variablesReference" in r["message"], (bad, r)
        for args in ({"frameId": float("nan")}, {"frameId": 999}):
            assert not c.request("scopes", **args)["success"]
        for expr, words in (("(" * 100_000, "longer than"), ("1 << 100000", "shift count"),
                            ("+".join(["1"] * 30_000), "longer than"), ("m + 1", "numbers")):
            r = c.request("evaluate", expression=expr, frameId=frame_id)
            assert not r["success"] and words in r["message"], r
        r = c.request("evaluate", expression="matrix m --lanes", frameId=frame_id, context="repl")
        assert r["success"] and "LANE:INDEX" in r["body"]["result"]
        assert c.request("evaluate", expression="w", frameId=frame_id, context="repl")["body"]["result"] == "1"
        r = c.request("evaluate", expression="info writer flags[3]", frameId=frame_id, context="watch")
        assert r["success"] and r["body"]["result"].startswith("flags[3] = 4 (BufF, byte offset 12)\nlast written by "
                                                               "invocation #3"), r
        assert c.request("disconnect")["success"]
    finally:
        assert c.close() == 0


@pytest.mark.slow
def test_dap_terminate_ends_a_running_shader():
    """Stop (terminate) while the shader runs: it waited for the run to end."""
    import time
    c = DapClient(cwd=str(ROOT))
    try:
        c.request("initialize", adapterID="t")
        assert c.request("launch", program=str(SPIN), args=["--max-time", "300"])["success"]
        c.request("configurationDone")
        time.sleep(0.3)
        started = time.monotonic()
        assert c.request("terminate")["success"]
        c.event("terminated")
        assert time.monotonic() - started < 5
        assert c.request("disconnect")["success"]
    finally:
        assert c.close() == 0


OVERFLOW = ROOT / "tests" / "data" / "debug" / "overflow.yaml"   # 300 * 300 in f16, then inf - inf


def test_catch_nonfinite_stops_where_finite_operands_made_an_inf(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, OVERFLOW, "catch nonfinite\nrun\nprint a\ncontinue\n")
    assert status == 0, err
    assert "Caught a non-finite value, main at overflow.comp:12 (invocation #2" in out
    assert "OpFMul made %33 = inf from finite operands (%31 = 300.0; %32 = 300.0) in invocation #2" in out
    assert "12\t    float16_t s = a * a;\n" in out and "a = 300.0\n" in out
    assert out.count("Caught") == 1   # inf - inf is NaN from non-finite operands: not where it came from


def test_the_run_option_nonfinite_reports_the_first_one(capsys):
    import numpy as np

    from spvcoop import run
    from spvcoop.core.diagnostics import SpvError
    shader = str(ROOT / "tests/data/debug/overflow.spvasm")
    buffers = {"x": np.array([1, 2, 300, 4], np.float16), "y": np.zeros(4, np.float32)}
    assert np.isnan(run(shader, buffers=buffers)["y"][2])   # off by default
    with pytest.raises(SpvError) as e:
        run(shader, buffers=buffers, nonfinite=True)
    d = e.value.diagnostics[0]
    assert d.rule == "interp.nonfinite" and d.message.startswith("OpFMul made %33 = inf from finite operands")
    assert "from overflow.comp:12" in str(d.notes[-1])
    assert main(["run", str(OVERFLOW), "--nonfinite"]) == 1
    assert "error[interp.nonfinite]" in capsys.readouterr().err
    buffers["x"][2] = 3
    assert run(shader, buffers=buffers, nonfinite=True)["y"][2] == 0   # all finite: no error


def test_invocation_without_an_argument_names_the_selected_one():
    """The fuzz driver's debug:8 (seed 1): `invocation` alone was an IndexError (exit 3)."""
    dbg = session(LOOP)
    dbg.execute("break 16")
    dbg.execute("run")
    assert dbg.execute("invocation").text.startswith("selected invocation #0 (global (0, 0, 0)")
    assert dbg.execute("invocation local 3,0,0").text.startswith("selected invocation #3")
    r = dbg.execute("invocation local 99,0,0")
    assert r.error and "outside the workgroup size" in r.text
    dbg.close()


def test_gdb_commands(monkeypatch, capsys):
    """break FUNCTION, tbreak, info breakpoints with hit counts, info args, up/down/frame, disable/enable,
    condition, print/x and /t, x/4d, display, an empty line repeating next, list, finish, until, advance, run
    again (a new run), delete."""
    script = ("break twice\ntbreak 16\ninfo breakpoints\nrun\ninfo args\nup\ninfo frame\nprint k\ndown\ndisable 1\n"
              "continue\ninfo breakpoints\nprint/x acc\nprint/t i\nx/4d v[0]\ndisplay acc\nnext\n\nlist 16\n"
              "condition 1 x == 2\nenable 1\nrun\nprint x\nfinish\nuntil\nuntil\nadvance 25\nundisplay\nrun\ndelete\n"
              "run\nquit\n")
    status, out, err = debug(monkeypatch, capsys, LOOP, script)
    assert status == 0 and err == "", err
    expected = [
        "Breakpoint 1 at twice", "Temporary breakpoint 2 at loop.comp:16", "1  twice\n2  loop.comp:16  (temporary)",
        "Breakpoint 1, twice at loop.comp:6 (8 of 8 invocations active; #0 selected)", "(spvcoop) info args\nx = 0\n",
        "(spvcoop) up\n#1  main at loop.comp:13\n13\t        acc += twice(k);\n",
        "frame #1: main at loop.comp:13, invocation #0", "(spvcoop) print k\nk = 0\n",
        "(spvcoop) down\n#0  twice at loop.comp:6\n", "Breakpoint 2, main at loop.comp:16 (4 of 8",
        "(spvcoop) info breakpoints\n1  twice  (disabled; hit 1 time)\n", "acc = 0x6\n", "i = 0b0\n",
        "v[0]: 0 0 0 0\n", "(spvcoop) display acc\n1: acc = 6\n",
        "(spvcoop) next\nmain at loop.comp:20\n20\t    if (v[i] > 1000) {\n1: acc = 106\n",
        "(spvcoop) \nmain at loop.comp:25\n",                                # Enter: next again
        "(spvcoop) list 16\n11\t    int acc = 0;\n", "20\t    if (v[i] > 1000) {\n(spvcoop) condition",
        "Breakpoint 1 now stops if x == 2", "(spvcoop) print x\nx = 2\n",
        "(spvcoop) finish\nmain at loop.comp:13\n", "(spvcoop) until\nmain at loop.comp:15\n",
        "(spvcoop) until\nmain at loop.comp:16\n", "main at loop.comp:25 (8 of 8",
        "(spvcoop) run\nBreakpoint 1, twice at loop.comp:6",
        "deleted all breakpoints\n(spvcoop) run\n[run exited normally"]
    at = 0
    for e in expected:   # in this order
        k = out.find(e, at)
        assert k >= 0, (e, out[at:at + 300])
        at = k + len(e)


def test_readline_only_on_a_terminal(monkeypatch):
    from spvcoop.commands import debug as cmd
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cmd._readline(session(LOOP)) is None


def test_info_writer_and_a_race_stop(monkeypatch, capsys):
    """Who wrote this shared element: the invocation, the instruction and its line, the barrier interval; and the
    run stops at the race (the load of the neighbour's element) with the reading invocation selected."""
    script = "run\ninfo writer s[0]\ninvocation 70\ninfo writer s[0]\ninfo writer y[1]\nx/4 s[0]\ncontinue\n"
    status, out, err = debug(monkeypatch, capsys, ROOT / "samples/races/racy.yaml", script)
    assert status == 1
    assert "Stopped at a data race, main at racy.comp:12 (invocation #63" in out and "error[interp.race]" in out
    assert ("s[0] = 0.0 (s, byte offset 0)\nlast written by invocation #0 (global (0, 0, 0), workgroup (0, 0, 0), "
            "local (0, 0, 0)) by OpStore at racy.comp:10, in barrier interval 0 of workgroup 0, the current one") in out
    assert "s[0] = 64.0 (s, byte offset 256)\nlast written by invocation #64" in out   # workgroup 1's copy
    assert "y[1] = 0.0 (Out, byte offset 4)\nno write recorded" in out
    assert "s[0]: 64.0 65.0 66.0 67.0\n" in out


def test_dap_function_hit_count_and_log_breakpoints_restart_and_instruction_steps():
    c = DapClient(cwd=str(ROOT))
    try:
        c.request("initialize", adapterID="t")
        c.request("launch", program=str(LOOP))
        r = c.request("setFunctionBreakpoints", breakpoints=[{"name": "twice", "hitCondition": "3"}])
        assert r["body"]["breakpoints"][0]["verified"]
        r = c.request("setBreakpoints", source={"path": str(ROOT / "tests/data/debug/loop.comp")},
                      breakpoints=[{"line": 16, "logMessage": "acc is {acc} at {i}"}, {"line": 25}])
        assert [b["verified"] for b in r["body"]["breakpoints"]] == [True, True]
        c.request("configurationDone")
        stop = c.event("stopped")["body"]
        frame = c.request("stackTrace", threadId=stop["threadId"])["body"]["stackFrames"][0]
        assert frame["name"] == "twice"
        assert c.request("evaluate", expression="x", frameId=frame["id"])["body"]["result"] == "2"   # the 3rd hit
        ip = frame["instructionPointerReference"]
        dis = c.request("disassemble", memoryReference=ip, instructionCount=3)["body"]["instructions"]
        assert dis[0]["address"] == ip and dis[0]["line"] == 6 and "OpIMul" in " ".join(d["instruction"] for d in dis)
        c.request("next", threadId=stop["threadId"], granularity="instruction")
        assert c.event("stopped")["body"]["reason"] == "step"
        frame2 = c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]
        assert int(frame2["instructionPointerReference"]) > int(ip)
        c.request("continue", threadId=1)
        stop = c.event("stopped")["body"]
        assert c.request("stackTrace", threadId=1)["body"]["stackFrames"][0]["line"] == 25
        logs = [e["body"]["output"] for e in c.events if e["event"] == "output"]
        assert "acc is 6 at 0\n" in logs
        assert c.request("restart")["success"]
        stop = c.event("stopped")["body"]                 # the new run stops at twice's 3rd hit again
        frame = c.request("stackTrace", threadId=stop["threadId"])["body"]["stackFrames"][0]
        assert frame["name"] == "twice"
        r = c.request("completions", text="print ac", column=9, frameId=frame["id"])
        assert {"label": "acc", "start": 6, "length": 2} in r["body"]["targets"]
        assert c.request("disconnect")["success"]
    finally:
        assert c.close() == 0


def test_dap_text_printed_during_a_session_becomes_output_events():
    """Whatever writes to standard output during a session (a print somewhere) goes out as output events, a line
    each: only framed messages reach the client."""
    from spvcoop.commands.dap import Server, _Events
    sink = io.BytesIO()
    server = Server(sink)
    events = _Events(server)
    print("one", file=events)
    events.write("two\nthree")
    events.flush()
    msgs = _frames_of(sink.getvalue())
    assert [m["body"]["output"] for m in msgs] == ["one\n", "two\n", "three\n"]
    assert {m["body"]["category"] for m in msgs} == {"stdout"}


@pytest.mark.slow
def test_a_terminal_gets_completion_history_and_enter_repeating(tmp_path):
    """On a terminal (a pseudo-terminal here): tab completes a command and a shader's name; an empty line repeats
    `next`; the history file is written at the end."""
    pty = pytest.importorskip("pty")
    import os
    import select
    import time
    pytest.importorskip("readline")
    pid, fd = pty.fork()
    if pid == 0:   # the child: spvcoop debug on the terminal
        os.environ["HOME"] = str(tmp_path)
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "spvcoop", "debug", str(LOOP)])
    out = b""

    def read(seconds: float) -> None:
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return
                if not data:
                    return
                out += data
    try:
        read(3)
        for keys in [b"brea\t16\r", b"run\r", b"print ac\t\r", b"next\r", b"\r", b"quit\r"]:
            os.write(fd, keys)
            read(1.5)
    finally:
        os.waitpid(pid, 0)
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    assert "Breakpoint 1 at loop.comp:16" in text and "acc = 6" in text
    assert text.count("main at loop.comp:") >= 2 and "main at loop.comp:25" in text   # Enter repeated next
    assert (tmp_path / ".spvcoop_debug_history").exists()


def test_a_limit_stops_there_too(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, SPIN, "run\nprint k\ncontinue\n", "--max-steps", "500")
    assert status == 1
    assert "Stopped at an error, main at spin.comp:10" in out and "error[interp.max-steps]" in out
    assert "k = 35\n" in out and "[run stopped with an error]" in out


def test_the_run_option_nonfinite_under_the_debugger_stops_there(monkeypatch, capsys):
    status, out, err = debug(monkeypatch, capsys, OVERFLOW, "run\nprint a\ncontinue\n", "--nonfinite")
    assert status == 1
    assert "Stopped at an error, main at overflow.comp:12 (invocation #2" in out and "a = 300.0\n" in out
    assert "error[interp.nonfinite]" in err


def test_the_picked_invocation_is_selected_again_wherever_it_is_active(monkeypatch, capsys):
    """The lane picker keeps its pick across stops: at a stop where #2 is not active the first active one is
    shown, and at the next where it is, #2 again (it stayed on #4)."""
    script = "break 16\nbreak 18\nbreak 25\nrun\ninvocation 2\ncontinue\ncontinue\nprint i\nquit\n"
    status, out, err = debug(monkeypatch, capsys, LOOP, script)
    assert status == 0, err
    assert "Breakpoint 2, main at loop.comp:18 (4 of 8 invocations active; #4 selected)" in out
    assert "Breakpoint 3, main at loop.comp:25 (8 of 8 invocations active; #2 selected)" in out and "i = 2\n" in out


@pytest.mark.slow
@pytest.mark.parametrize("filters, stops", [(["race"], True), ([], False)])
def test_dap_exception_filters_decide_the_race_stop(filters, stops):
    c = DapClient(cwd=str(ROOT))
    try:
        c.request("initialize", adapterID="t")
        c.request("setExceptionBreakpoints", filters=filters)
        c.request("launch", program="samples/races/racy.yaml")
        c.request("configurationDone")
        if stops:
            stop = c.event("stopped")["body"]
            assert stop["reason"] == "exception" and stop["threadId"] == 64 and "data race" in stop["text"]
            info = c.request("exceptionInfo", threadId=64)["body"]
            assert info["exceptionId"] == "interp.race" and "racy.comp:12" in info["details"]["message"]
            c.request("continue", threadId=64)
        assert c.event("exited")["body"]["exitCode"] == 1
        assert c.request("disconnect")["success"]
    finally:
        assert c.close() == 1

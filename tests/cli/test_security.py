"""Issue 21's security, bounds and umask items: `lint` and friends run on untrusted pull requests.

Links out of a linted tree are refused and their targets never quoted; only regular files are opened (a FIFO
must not hang, a device must not be read); a tree deeper than Python's recursion limit is searched; control
characters in echoed source lines are escaped; outputs follow the umask. Every slow or hanging case runs in a
subprocess under a timeout, so a regression fails the test instead of hanging the suite."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from spvcoop import cli
from conftest import REPO

GOOD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
SECRET = "SPVCOOP_TEST_SECRET=hunter2-do-not-print"


def _spvcoop(*args: str, timeout: float = 60, env: dict | None = None, cwd: str | None = None,
             preexec_fn=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spvcoop", *args], capture_output=True, text=True,
                          errors="replace", timeout=timeout, env=env, cwd=cwd, preexec_fn=preexec_fn)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/secret (outside the tree) and tmp/tree/ok.spvasm (inside)."""
    (tmp_path / "secret").write_text(SECRET + " more words\n")
    t = tmp_path / "tree"
    t.mkdir()
    (t / "ok.spvasm").write_text(GOOD)
    return t


# ---- links out of the tree -------------------------------------------------------------------------------
def test_lint_refuses_a_link_out_of_the_tree_and_never_quotes_it(tree: Path, capsys) -> None:
    (tree / "x.spvasm").symlink_to(tree.parent / "secret")
    sub = tree / "sub"
    sub.mkdir()
    (sub / "y.spv").symlink_to("../../secret")
    (sub / "real.spvasm").write_text("OpCapability Shader\nOpNotAnOpcode\n")
    (tree / "alias.spvasm").symlink_to("sub/real.spvasm")  # stays inside: followed, its findings quoted
    rc = cli.main(["lint", "--no-spirv-val", "-j", "1", str(tree)])
    err = (cap := capsys.readouterr()).err + cap.out  # findings on stdout, the rest on stderr
    assert rc == 2, err
    assert "hunter2" not in err and "SPVCOOP_TEST_SECRET" not in err, err
    for name in (tree / "x.spvasm", sub / "y.spv"):
        assert f"{name}: error: not read: a symbolic link to a file outside '{tree}'" in err, err
    assert f"{tree / 'alias.spvasm'}:2:1: error" in err and "OpNotAnOpcode" in err, err
    assert "5 file(s), 4 invalid" in err
    # named on the command line, a link out of the working directory and its own directory is refused too
    for command in (["val", "--no-spirv-val"], ["as", "-o", str(tree / "o.spv")], ["dis", "-o", str(tree / "o")]):
        assert cli.main([*command, str(tree / "x.spvasm")]) == 2
        err = (cap := capsys.readouterr()).err + cap.out  # findings on stdout, the rest on stderr
        assert "hunter2" not in err and "a symbolic link to a file outside the working directory" in err, err
    # one that stays beside it is followed
    assert cli.main(["val", "--no-spirv-val", str(tree / "alias.spvasm")]) == 1
    assert "OpNotAnOpcode" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_lint_never_prints_the_environment_through_proc_self_environ(tree: Path, fmt: str) -> None:
    (tree / "x.spvasm").symlink_to("/proc/self/environ")
    env = dict(os.environ, SPVCOOP_TEST_TOKEN="ghp_secret_token_value")
    p = _spvcoop("lint", "--no-spirv-val", "--format", fmt, str(tree), env=env)
    assert p.returncode == 2, p.stderr
    assert "ghp_secret_token_value" not in p.stdout + p.stderr
    assert "symbolic link to a file outside" in p.stdout + p.stderr


@pytest.mark.parametrize("option", ["--check", "--input"])
def test_run_says_why_it_refuses_a_check_or_input_file(tree: Path, option: str, capsys) -> None:
    """Issue 32: a refused link for --check (and --input, a run's other file named on the command line) was
    "not a regular file"; it is the reason open_input gives, as for every other input."""
    from conftest import run_cli
    root = REPO
    spec = str(root / "samples" / "saxpy" / "run.yaml")
    link = tree / "sub" / "out.yaml"
    link.parent.mkdir()
    link.symlink_to(tree.parent / "secret")
    os.mkfifo(tree / "fifo.yaml")
    for path, reason in ((link, "not read: a symbolic link to a file outside the working directory and the "
                                "link's own directory"),
                         (tree / "fifo.yaml", "not read: a named pipe (FIFO), not a regular file"),
                         (tree, "not read: a directory, not a regular file")):
        rc, out, err = run_cli(capsys, "run", spec, option, str(path))
        assert rc == 2 and f"{path}: error: {reason}" in err, err
        assert "hunter2" not in out + err


# ---- nothing but regular files ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("command", ["lint", "val", "as", "dis"])
def test_a_fifo_is_refused_without_hanging(tree: Path, command: str) -> None:
    fifo = tree / "f.spvasm"
    os.mkfifo(fifo)
    target = str(tree if command == "lint" else fifo)
    args = [command, target] + (["--no-spirv-val"] if command in ("lint", "val") else [])
    args += ["-o", str(tree.parent / "out")] if command in ("as", "dis") else []
    p = _spvcoop(*args, timeout=30)  # today: blocks in open() until the timeout
    assert p.returncode == 2, p.stderr
    assert f"{fifo}: error: not read: a named pipe (FIFO), not a regular file" in p.stderr


@pytest.mark.parametrize("command", ["val", "as", "dis"])
def test_a_character_device_is_refused_not_read(tmp_path: Path, command: str, capsys) -> None:
    link = "/dev/zero"
    args = [command, link] + (["--no-spirv-val"] if command == "val" else ["-o", str(tmp_path / "out")])
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert f"{link}: error: not read: a character device, not a regular file" in err, err


def test_lint_reports_a_device_in_the_tree(tree: Path, capsys) -> None:
    (tree / "z.spv").symlink_to("/dev/zero")
    assert cli.main(["lint", "--no-spirv-val", "-j", "1", str(tree)]) == 2
    assert f"{tree / 'z.spv'}: error: not read:" in capsys.readouterr().err


# ---- deep trees ------------------------------------------------------------------------------------------
def _deep_tree(top: Path, depth: int) -> Path:
    """top/d/d/.../d/x.spvasm, made through directory descriptors (os.makedirs recurses per level)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        out = os.open("x.spvasm", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"OpCapability Shader\nOpBogus\n")
        os.close(out)
    finally:
        os.close(fd)
    return top.joinpath(*["d"] * depth, "x.spvasm")


def _remove_deep_tree(top: Path, depth: int) -> None:
    """Bottom up, iteratively: shutil.rmtree recurses per level as well."""
    deepest = top.joinpath(*["d"] * depth)
    (deepest / "x.spvasm").unlink()
    for level in range(depth, 0, -1):
        top.joinpath(*["d"] * level).rmdir()


@pytest.mark.slow
def test_lint_searches_a_tree_1100_levels_deep(tmp_path: Path, capsys) -> None:
    top = tmp_path / "deep"
    leaf = _deep_tree(top, 1100)
    try:
        rc = cli.main(["lint", "--no-spirv-val", "-j", "1", str(top)])  # today: RecursionError, exit 3
        err = (cap := capsys.readouterr()).err + cap.out  # findings on stdout, the rest on stderr
    finally:
        _remove_deep_tree(top, 1100)
    assert rc == 1, err
    assert f"{leaf}:2:1: error" in err and "1 file(s), 1 invalid" in err


# ---- control characters in echoed source lines -----------------------------------------------------------
EVIL_LINE = "\x1b[31mOpBogus\x1b]0;title\x07 %x\r\x7f\u009b2J\u202e"


def _assert_escaped(text: str) -> None:
    for c in ("\x1b", "\x07", "\r", "\x7f", "\u009b", "\u202e"):
        assert c not in text, repr(text)


@pytest.mark.parametrize("command", ["as", "val"])
def test_control_characters_in_echoed_source_lines_are_escaped(tmp_path: Path, command: str, capsys) -> None:
    src = tmp_path / "esc.spvasm"
    src.write_text("OpCapability Shader\n" + EVIL_LINE + "\n", newline="")
    args = [command, str(src)] + (["--no-spirv-val"] if command == "val" else ["-o", str(tmp_path / "o.spv")])
    assert cli.main(args) == 1
    err = (cap := capsys.readouterr()).err + cap.out  # findings on stdout, the rest on stderr
    _assert_escaped(err)
    lines = err.splitlines()
    assert "  \\x1b[31mOpBogus\\x1b]0;title\\x07 %x\\x0d\\x7f\\x9b2J\\u202e" in lines, err
    caret = lines[lines.index("  \\x1b[31mOpBogus\\x1b]0;title\\x07 %x\\x0d\\x7f\\x9b2J\\u202e") + 1]
    assert caret.startswith("  ^~") and len(caret) - 2 == len("\\x1b[31mOpBogus\\x1b]0"), (err, caret)


def test_control_characters_are_escaped_in_github_annotations_and_instructions(tmp_path: Path, capsys) -> None:
    src = tmp_path / "esc.spvasm"
    src.write_text("OpCapability Shader\n" + EVIL_LINE + "\n", newline="")
    assert cli.main(["lint", "--no-spirv-val", "--format", "github", str(src)]) == 1
    _assert_escaped(capsys.readouterr().out)
    # a binary's findings show the disassembled instruction, strings included
    from spvcoop.asm.assembler import assemble_binary
    bad = ("OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
           "OpEntryPoint GLCompute %m \"m\x1b[2J\x9b\"\n")
    spv = tmp_path / "esc.spv"
    spv.write_bytes(assemble_binary(bad))
    assert cli.main(["val", "--no-spirv-val", str(spv)]) == 1
    err = (cap := capsys.readouterr()).err + cap.out  # findings on stdout, the rest on stderr
    _assert_escaped(err)
    assert '"m\\x1b[2J\\x9b"' in err, err


@pytest.mark.parametrize("fmt", ["human", "github", "json"])
@pytest.mark.parametrize("argv", [
    ["d/s/0x\x1b[2J.spvasm"],  # "no such file" for a path named on the command line (issue 32)
    ["--select", "X\x1b[2J"], ["--ignore", "X\x1b]0;t\x07"],  # an option's value quoted by lint's usage error
    ["--target-env", "p\x1b[2J"], ["--spec-const", "1=\u009b2J"],  # and by the command-line parser
])
def test_lint_escapes_what_it_quotes_from_the_command_line(tmp_path: Path, capsys, argv, fmt) -> None:
    src = tmp_path / "ok.spvasm"
    src.write_text(GOOD)
    from conftest import run_cli
    rc, out, err = run_cli(capsys, "lint", "--no-spirv-val", "--format", fmt, str(src), *argv)
    assert rc == 2, err
    _assert_escaped(err + out)
    quoted = argv[-1].replace("\x1b", "\\x1b").replace("\u009b", "\\x9b").replace("\x07", "\\x07")
    assert quoted in err, err


def test_printable_leaves_ordinary_text_alone() -> None:
    from spvcoop.core.diagnostics import printable, source_excerpt
    assert printable("a\tb é ∑ 漢\nc") == "a\tb é ∑ 漢\nc"
    assert printable("a\nb", keep_newlines=False) == "a\\x0ab"
    assert printable("\udcff") == "\\xff"  # an undecodable byte, kept by surrogateescape
    assert source_excerpt("ab\x1bcd", 4, 5) == ("ab\\x1bcd", "      ^")  # under the c


# ---- outputs follow the umask ----------------------------------------------------------------------------
@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o002, 0o664)])
def test_outputs_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    src = tmp_path / "m.spvasm"
    src.write_text(GOOD)
    old = os.umask(umask)
    try:
        assert cli.main(["as", str(src), "-o", str(tmp_path / "m.spv")]) == 0
        assert cli.main(["dis", str(tmp_path / "m.spv"), "-o", str(tmp_path / "m2.spvasm")]) == 0
    finally:
        os.umask(old)
    for name in ("m.spv", "m2.spvasm"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode, name


# ---- bounds ----------------------------------------------------------------------------------------------
def _limit_memory(nbytes: int):
    def apply() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return apply


HUGE_MATRIX = """OpCapability Shader
OpCapability VulkanMemoryModel
OpCapability CooperativeMatrixKHR
OpExtension "SPV_KHR_cooperative_matrix"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main" %ssbo
OpExecutionMode %main LocalSize 32 1 1
OpDecorate %rta ArrayStride 4
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk Block
OpDecorate %ssbo DescriptorSet 0
OpDecorate %ssbo Binding 0
%void = OpTypeVoid
%voidfn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%u32 = OpTypeInt 32 0
%i32 = OpTypeInt 32 1
%subgroup = OpConstant %u32 3
%huge = OpConstant %u32 65536
%u0 = OpConstant %u32 0
%i0 = OpConstant %i32 0
%stride = OpConstant %u32 65536
%rowmajor = OpConstant %u32 0
%useAcc = OpConstant %u32 2
%matC = OpTypeCooperativeMatrixKHR %f32 %subgroup %huge %huge %useAcc
%rta = OpTypeRuntimeArray %f32
%blk = OpTypeStruct %rta
%p_blk = OpTypePointer StorageBuffer %blk
%ssbo = OpVariable %p_blk StorageBuffer
%p_f32 = OpTypePointer StorageBuffer %f32
%main = OpFunction %void None %voidfn
%entry = OpLabel
%ptr = OpAccessChain %p_f32 %ssbo %i0 %u0
%c = OpCooperativeMatrixLoadKHR %matC %ptr %rowmajor %stride
OpCooperativeMatrixStoreKHR %ptr %c %rowmajor %stride
OpReturn
OpFunctionEnd
"""


@pytest.mark.slow
def test_a_huge_cooperative_matrix_counts_against_max_memory(tmp_path: Path) -> None:
    (tmp_path / "big.spvasm").write_text(HUGE_MATRIX)
    (tmp_path / "run.yaml").write_text("shader: big.spvasm\ndispatch: [1, 1, 1]\n"
                                       "buffers:\n  ssbo: {zeros: 16, dtype: float32}\noutputs: [ssbo]\n")
    assert cli.main(["val", str(tmp_path / "big.spvasm")]) == 0  # a valid module
    # today: numpy is asked for 32 GiB (MemoryError, exit 3); the address-space limit keeps a regression cheap
    p = _spvcoop("run", str(tmp_path / "run.yaml"), preexec_fn=_limit_memory(4 << 30))
    assert p.returncode == 1, p.stderr
    assert "big.spvasm:25:" in p.stderr and "error[interp.max-memory]: memory budget of 2 GiB exceeded" in p.stderr
    assert "65536x65536" in p.stderr and "32 GiB" in p.stderr


@pytest.mark.slow
def test_numerics_fit_refuses_an_npz_bomb_before_inflating_it(tmp_path: Path, capsys) -> None:
    import numpy as np
    bomb = tmp_path / "tiles.npz"
    big = np.zeros(8 << 20, np.float32)  # 32 MiB that compress to ~32 KiB
    np.savez_compressed(bomb, **{f"f16_f16_f32_16x16x16/normal/1/{n}": big for n in "ABCD"})
    assert bomb.stat().st_size < 1 << 20
    rc = cli.main(["--max-input-size", "16M", "numerics", "fit", str(bomb), "-o", str(tmp_path / "m.yaml")])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"{bomb}: error: the arrays inflate to {4 * (32 << 20) + 4 * 128} bytes, over the limit of {16 << 20}" \
        in err, err
    assert not (tmp_path / "m.yaml").exists()



# ---- GLSL named by a run spec ----------------------------------------------------------------------------
def _glsl_spec(tmp_path: Path, body: str) -> Path:
    (tmp_path / "secret").write_text("TOPSECRET_WORD = 1;\n")
    d = tmp_path / "a" / "b"
    d.mkdir(parents=True)
    (d / "x.comp").write_text(body)
    (d / "run.yaml").write_text("shader: x.comp\ndispatch: [1, 1, 1]\n")
    return d / "run.yaml"


@pytest.mark.parametrize("extension", ["GL_GOOGLE_include_directive", "GL_GOOGLE_incl\\\nude_directive",
                                       "GL_ARB_shading_language_include"])
def test_a_comp_named_by_a_run_spec_cannot_include_a_file(tmp_path: Path, extension: str, capsys) -> None:
    spec = _glsl_spec(tmp_path, f"#version 450\n#extension {extension} : require\nlayout(local_size_x = 1) in;\n"
                                "void main() {\n#include \"../../secret\"\n}\n")
    rc = cli.main(["run", str(spec)])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "TOPSECRET_WORD" not in err, err  # today: "'TOPSECRET_WORD' : undeclared identifier"
    assert f"{spec.parent / 'x.comp'}:2:12: error: #include is not supported" in err, err


@pytest.mark.slow
def test_glslang_runs_under_a_memory_and_time_limit(tmp_path: Path) -> None:
    # 10^7 tokens from 400 bytes: gigabytes and tens of seconds without a limit
    lines = ["#version 450", "layout(local_size_x = 1) in;", "#define A0 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"]
    lines += [f"#define A{i} " + "+".join([f"A{i - 1}"] * 10) for i in range(1, 8)]
    spec = _glsl_spec(tmp_path, "\n".join(lines + ["void main() { int x = A7; }"]) + "\n")
    env = dict(os.environ, SPVCOOP_GLSLANG_MAX_MEMORY=str(256 << 20))
    p = _spvcoop("run", str(spec), env=env, timeout=120, preexec_fn=_limit_memory(3 << 30))
    assert p.returncode == 1, p.stderr
    assert f"{spec.parent / 'x.comp'}:1:1: error: glslangValidator stopped" in p.stderr, p.stderr
    assert "limits of 256 MiB of memory and 30 s" in p.stderr
    env = dict(os.environ, SPVCOOP_GLSLANG_TIMEOUT="1", SPVCOOP_GLSLANG_MAX_MEMORY=str(5 << 29))  # time runs out first
    p = _spvcoop("run", str(spec), env=env, timeout=120, preexec_fn=_limit_memory(3 << 30))
    assert p.returncode == 1, p.stderr
    assert f"{spec.parent / 'x.comp'}:1:1: error: glslangValidator did not finish within 1 s" in p.stderr, p.stderr


# ---- running out of memory -------------------------------------------------------------------------------
def _no_memory(*args, **kwargs):
    raise MemoryError()


@pytest.mark.parametrize("command", ["as", "val", "lint", "dis"])
def test_running_out_of_memory_is_exit_2_not_an_internal_error(tmp_path: Path, command: str, monkeypatch,
                                                               capsys) -> None:
    """What a module near the input limit does under a memory limit (bench/bench_input_limit.py measures the
    real thing): MemoryError is the user's limit, not a bug."""
    import spvcoop.asm.assembler
    import spvcoop.binary.disassembler_fast
    src = tmp_path / ("m.spv" if command == "dis" else "m.spvasm")
    if command == "dis":
        src.write_bytes(spvcoop.asm.assembler.assemble_binary(GOOD))
        monkeypatch.setattr(spvcoop.binary.disassembler_fast, "disassemble_binary", _no_memory)
    else:
        src.write_text(GOOD)
        monkeypatch.setattr(spvcoop.asm.assembler, "assemble", _no_memory)
        monkeypatch.setattr(spvcoop.asm.assembler, "assemble_binary", _no_memory)
    extra = {"as": ["-o", str(tmp_path / "o")], "dis": ["-o", str(tmp_path / "o")], "val": ["--no-spirv-val"],
             "lint": ["--no-spirv-val", "-j", "1"]}[command]
    rc = cli.main([command, str(src), *extra])
    err = capsys.readouterr().err
    assert rc == 2, err  # today: "internal error ... MemoryError", exit 3
    assert f"{src}: error: not enough memory" in err and "--max-input-size" in err, err
    assert "internal error" not in err
    assert not (tmp_path / "o").exists()

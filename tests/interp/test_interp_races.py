"""The race detector (interp/races.py, issue 23): racy GLSL kernels reported with both instructions, their
race-free twins (tests/glsl/races/) not reported, on by default in run(), `spvcoop run` and the pytest fixture."""
from __future__ import annotations


import re

import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.core.reference_tools import find_tool
from conftest import REPO, TESTS

GLSL = TESTS / "glsl" / "races"
pytestmark = pytest.mark.skipif(find_tool("glslangValidator") is None, reason="glslangValidator not installed")

f32 = np.arange(256, dtype=np.float32)
CASES = {   # name -> dispatch, buffers
    "neighbour": ((2, 1, 1), {(0, 0): f32[:128], (0, 1): np.zeros(128, np.float32)}),
    "one_word": ((2, 1, 1), {(0, 0): np.zeros(64, np.uint32)}),
    "double_buffer": ((1, 1, 1), {(0, 0): f32[:128], (0, 1): np.zeros(32, np.float32)}),
    "histogram": ((2, 1, 1), {(0, 0): np.arange(128, dtype=np.uint32), (0, 1): np.zeros(4, np.uint32)}),
    "coopmat_tile": ((1, 1, 1), {(0, 0): f32, (0, 1): np.zeros(256, np.float32)}),
}
# the GLSL lines of the two racing instructions (first reported race), the memory, the kind of ordering
EXPECTED = {
    "neighbour": (12, 10, "'s' (Workgroup)", "barrier interval 0"),
    "one_word": (7, 7, "'flag' (Workgroup)", "barrier interval 0"),
    "double_buffer": (17, 18, "'buf' (Workgroup)", "barrier interval 1"),
    "histogram": (8, 8, "'Hist' (StorageBuffer)", "different workgroups"),
    "coopmat_tile": (16, 13, "'tile' (Workgroup)", "barrier interval 0"),
}


def _ordering_note(d) -> str:
    """What the race report says about ordering (the last note but the summary the last race carries)."""
    return [n.message for n in d.notes if not n.message.startswith("in all: ")][-1]


def _run(name: str, **kw):
    from spvcoop.interp import run
    dispatch, buffers = CASES[name.rsplit("_", 1)[0]]
    return run(GLSL / f"{name}.comp", dispatch=dispatch, buffers={k: v.copy() for k, v in buffers.items()}, **kw)


@pytest.mark.slow
# one_word_racy: every invocation of a workgroup stores the same value to `flag`: a benign race (a warning; below)
@pytest.mark.parametrize("name", sorted(set(CASES) - {"one_word"}))
def test_racy_kernel_reported_with_both_instructions(name):
    with pytest.raises(SpvError) as ei:
        _run(f"{name}_racy")
    races = [d for d in ei.value.diagnostics if d.rule == "interp.race"]
    assert races and all(d.severity == "error" for d in races)
    d = races[0]
    line, other, memory, interval = EXPECTED[name]
    assert d.span.line == line and d.source.endswith(f"{name}_racy.comp")
    text = d.message + "\n" + "\n".join(n.message for n in d.notes)
    assert memory in d.message and interval in text and "conflicting byte" in d.message
    if other != line:
        assert f"{name}_racy.comp:{other}:" in text   # the other instruction, with its source line
    assert d.message.count("invocation") >= 2    # both invocations (or the subgroup) named
    # one report per pair of instructions, not per element
    keys = [(x.span.line, x.message.split(" by ")[0], x.notes[-2].message if len(x.notes) > 1 else "") for x in races]
    assert len(keys) == len(set(keys))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_race_free_twin_not_reported(name):
    res = _run(f"{name}_fixed", races=True)   # on by default; said here so that the test checks the detector ran
    assert not [d for d in res.diagnostics if d.rule == "interp.race"]


@pytest.mark.slow
def test_twin_results():
    x = f32[:128]
    assert np.array_equal(_run("neighbour_fixed")[(0, 1)], np.roll(x.reshape(2, 64), -1, axis=1).reshape(-1))
    assert _run("histogram_fixed")[(0, 1)].tolist() == [32, 32, 32, 32]
    assert np.array_equal(_run("coopmat_tile_fixed")[(0, 1)], f32)
    assert _run("one_word_fixed")[(0, 0)].tolist() == [1] * 32 + [2] * 32


def test_option_turns_it_off():
    # the lockstep interpreter gives the racy histogram a plausible answer: exactly what the detector is for
    assert _run("histogram_racy", races=False)[(0, 1)].tolist() == [1, 1, 1, 1]


def test_counts_and_pairs():
    with pytest.raises(SpvError) as ei:
        _run("neighbour_racy")
    (d,) = [x for x in ei.value.diagnostics if x.rule == "interp.race"]
    # 64 words x 4 bytes x 2 workgroups: every element, one report
    assert "512 conflicting bytes (in 2 workgroups' copies)" in d.message
    with pytest.raises(SpvError) as ei:
        _run("double_buffer_racy")
    assert len([x for x in ei.value.diagnostics if x.rule == "interp.race"]) == 2   # load->store, store->load


def test_fixture_reports_races(spvcoop_run):
    with pytest.raises(SpvError, match="data race"):
        spvcoop_run(str(GLSL / "neighbour_racy.comp"), dispatch=(1, 1, 1),
                    buffers={(0, 0): f32[:64], (0, 1): np.zeros(64, np.float32)})
    spvcoop_run(str(GLSL / "neighbour_racy.comp"), dispatch=(1, 1, 1), races=False,
                buffers={(0, 0): f32[:64], (0, 1): np.zeros(64, np.float32)})


def test_cli_exit_status(tmp_path, capsys):
    from spvcoop.cli import main
    np.save(tmp_path / "x.npy", np.arange(128, dtype=np.uint32))
    (tmp_path / "histogram_racy.comp").write_text((GLSL / "histogram_racy.comp").read_text())
    (tmp_path / "run.yaml").write_text("shader: histogram_racy.comp\ndispatch: [2, 1, 1]\nbuffers:\n"
                                       "  x: {file: x.npy}\n  hist: {zeros: 4, dtype: uint32}\n")
    args = ["run", str(tmp_path / "run.yaml"), "-q"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "error[interp.race]" in err and "histogram_racy.comp:8:" in err and "Traceback" not in err
    assert main(args + ["--no-races"]) == 0


def test_memory_barrier_alone_orders_nothing(spvcoop_run):
    """memoryBarrierShared() without barrier(): a fence, no execution barrier -- still a race; the fence
    followed by barrier() orders (its semantics join the control barrier's)."""
    src = """#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { float y[]; };
shared float s[32];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l] = float(l);
    memoryBarrierShared();
    %s
    y[l] = s[31 - l];
}"""
    with pytest.raises(SpvError, match="data race on 's'"):
        spvcoop_run(src % "", buffers={(0, 0): np.zeros(32, np.float32)})
    spvcoop_run(src % "barrier();", buffers={(0, 0): np.zeros(32, np.float32)}, races=True)


def test_buffer_needs_buffer_semantics(spvcoop_run):
    """Within a workgroup, a storage buffer is ordered by a barrier with UniformMemory semantics
    (memoryBarrierBuffer(); barrier();), not by barrier() alone (WorkgroupMemory)."""
    src = """#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { float y[32]; float z[]; };
void main() {
    uint l = gl_LocalInvocationID.x;
    y[l] = float(l);
    %s
    barrier();
    z[l] = y[31 - l];
}"""
    with pytest.raises(SpvError, match="data race on 'Out'") as ei:
        spvcoop_run(src % "", buffers={(0, 0): np.zeros(64, np.float32)})
    assert "UniformMemory semantics" in _ordering_note(ei.value.diagnostics[0])
    res = spvcoop_run(src % "memoryBarrierBuffer();", buffers={(0, 0): np.zeros(64, np.float32)}, races=True)
    assert res[(0, 0)][32:].tolist() == list(range(31, -1, -1))


SUBGROUP = """#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l] = l;
    %s
    y[l] = s[%s];
}"""


@pytest.mark.parametrize("sync, index, racy", [
    ("subgroupBarrier();", "l ^ 1", False),                 # a subgroup barrier orders its own subgroup
    ("subgroupBarrier();", "(l + 32) % 64", True),          # ... not another subgroup (32 invocations each)
    ("subgroupBallot(true);", "l ^ 1", True),               # a subgroup operation orders nothing
    ("barrier();", "(l + 32) % 64", False),
])
def test_subgroup_barriers(spvcoop_run, sync, index, racy):
    def go():
        return spvcoop_run(SUBGROUP % (sync, index), buffers={(0, 0): np.zeros(64, np.uint32)}, subgroup_size=32,
                           races=True)
    if racy:
        with pytest.raises(SpvError, match="data race on 's'"):
            go()
    else:
        res = go()
        x = np.arange(64)
        assert res[(0, 0)].tolist() == (x ^ 1 if index == "l ^ 1" else (x + 32) % 64).tolist()


def test_atomic_then_plain_read_races(spvcoop_run):
    """Atomics never race with atomics, but a plain read of what other invocations update atomically does,
    unless a barrier orders it."""
    src = """#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint count; uint y[]; };
void main() {
    atomicAdd(count, 1);
    %s
    y[gl_LocalInvocationID.x] = count;
}"""
    with pytest.raises(SpvError, match="data race on 'Out'") as ei:
        spvcoop_run(src % "", buffers={(0, 0): np.zeros(33, np.uint32)})
    assert "OpAtomicIAdd (write)" in ei.value.diagnostics[0].message
    res = spvcoop_run(src % "memoryBarrierBuffer(); barrier();", buffers={(0, 0): np.zeros(33, np.uint32)},
                      races=True)
    assert res[(0, 0)].tolist() == [32] * 33


def test_run_spec_key_turns_it_off(tmp_path):
    from spvcoop.cli import main
    root = REPO / "samples" / "races"
    for f in ("racy.spvasm", "racy.yaml"):
        (tmp_path / f).write_text((root / f).read_text())
    assert main(["run", str(tmp_path / "racy.yaml"), "-q"]) == 1
    (tmp_path / "racy.yaml").write_text((root / "racy.yaml").read_text() + "races: false\n")
    assert main(["run", str(tmp_path / "racy.yaml"), "-q"]) == 0


def test_matrix_and_tensor_stores_of_two_workgroups_race():
    """tests/data/coopmat2/loadtensor.spvasm stores its matrices to fixed places: one workgroup is fine (its
    tests), two race on every store -- KHR matrix stores and SPV_NV_cooperative_matrix2 tensor stores alike, each
    an access by its subgroup as a whole."""
    import spvcoop
    f32 = np.float32
    kernel = TESTS / "data" / "coopmat2" / "loadtensor.spvasm"
    bufs = {0: np.arange(143, dtype=f32), **{i: np.zeros(512, f32) for i in range(1, 6)}, 6: np.zeros(256, f32),
            7: np.arange(256, dtype=f32), 8: np.zeros(143, f32), 9: np.zeros(143, f32),
            10: np.zeros(143, np.float16), 11: np.zeros(256, np.float16)}
    with pytest.raises(SpvError) as ei:
        spvcoop.run(str(kernel), dispatch=(2, 1, 1), buffers=bufs)
    races = [d for d in ei.value.diagnostics if d.rule == "interp.race"]
    ops = {d.message.split(": ", 1)[1].split(" (write)")[0] for d in races}
    assert ops == {"OpCooperativeMatrixStoreKHR", "OpCooperativeMatrixStoreTensorNV"}
    assert all("by the subgroup of invocation #0 " in d.message and "by the subgroup of invocation #32 " in d.message
               and "different workgroups" in _ordering_note(d) for d in races)
    spvcoop.run(str(kernel), dispatch=(1, 1, 1), buffers=bufs, races=True)


@pytest.mark.slow
def test_shadow_memory_counts_against_the_budget():
    """The race detector's shadow memory is checked against max_memory before it is allocated, and the error says
    how to run without it."""
    from spvcoop.interp import run
    dispatch, buffers = CASES["neighbour"]
    with pytest.raises(SpvError, match="race detector's shadow of 's'.*--no-races"):
        run(GLSL / "neighbour_fixed.comp", dispatch=(64, 1, 1), max_memory=880_000,
            buffers={(0, 0): np.zeros(4096, np.float32), (0, 1): np.zeros(4096, np.float32)})
    run(GLSL / "neighbour_fixed.comp", dispatch=(64, 1, 1), max_memory=880_000, races=False,
        buffers={(0, 0): np.zeros(4096, np.float32), (0, 1): np.zeros(4096, np.float32)})


RACE_THEN_UNDEFINED = """#version 450
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() {
    v[0] = gl_LocalInvocationID.x;                  // both invocations: a race
    float t;
    v[1 + gl_LocalInvocationID.x] = uint(t * 2.0);  // an undefined value used: the run stops here
}
"""


def test_races_before_an_error_are_reported_with_it(tmp_path, capsys):
    """Issue 32: an undefined-value error ended the run and the race that had already happened was lost; it
    comes after the error, in the API's SpvError and on the command line."""
    from spvcoop.interp import run
    src = tmp_path / "k.comp"
    src.write_text(RACE_THEN_UNDEFINED)
    with pytest.raises(SpvError) as ei:
        run(src, buffers={(0, 0): np.zeros(4, np.uint32)})
    d = ei.value.diagnostics
    assert d[0].rule == "interp.runtime" and "'t' is read before anything was stored to it" in d[0].message
    races = [x for x in d if x.rule == "interp.race"]
    assert len(races) == 1 and races[0].span.line == 5 and "'B' (StorageBuffer)" in races[0].message
    with pytest.raises(SpvError) as ei:  # without the detector, the error alone
        run(src, buffers={(0, 0): np.zeros(4, np.uint32)}, races=False)
    assert [x.rule for x in ei.value.diagnostics if x.severity == "error"] == ["interp.runtime"]
    from spvcoop.cli import main
    (tmp_path / "run.yaml").write_text("shader: k.comp\nbuffers:\n  0: {zeros: 4, dtype: uint32}\n")
    assert main(["run", str(tmp_path / "run.yaml")]) == 1
    err = capsys.readouterr().err
    assert "k.comp:7:1: error[interp.runtime]" in err and "k.comp:5:1: error[interp.race]: data race on 'B'" in err


@pytest.mark.slow
def test_same_value_writes_are_a_benign_race(spvcoop_run):
    """Writes of the same value by several unordered invocations: a warning (the bytes hold that value whichever
    write lands last), in the same instruction or across instructions; different values, or a read of the bytes
    by another invocation (a read-modify-write, which lockstep execution makes store one value), stay errors."""
    res = _run("one_word_racy")
    (d,) = [x for x in res.diagnostics if x.rule == "interp.race"]
    assert d.severity == "warning" and d.message.startswith("benign data race on 'flag' (Workgroup)")
    assert d.span.line == 7 and len(d.notes) == 1 and re.fullmatch(
        r"both by the OpStore here \(SPIR-V word \d+\), each storing the value the bytes already held",
        d.notes[0].message)
    assert res[(0, 0)].tolist() == [1] * 32 + [2] * 32
    src = """#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; };
void main() {
    uint l = gl_LocalInvocationID.x;
    y[0] = %s;
    if (l >= 16) y[1] = 7u; else y[1] = 7u;
}"""
    res = spvcoop_run(src % "5u", buffers={(0, 0): np.zeros(2, np.uint32)})
    races = [x for x in res.diagnostics if x.rule == "interp.race"]
    # y[0] by one instruction; y[1] by each branch's store and between the two
    assert len(races) == 4 and all(x.severity == "warning" for x in races)
    # concise: one line (variable, bytes, both invocations, why unordered) and one note (which stores, by whom)
    assert all(len(x.notes) == 1 and "\n" not in x.message for x in races)
    first, across = races[0], next(x for x in races if "; each stored" in x.notes[0].message)
    assert first.message == (
        "benign data race on 'Out' (StorageBuffer) at byte offset 0, 4 bytes: written by invocation #1 (global (1, 0, "
        "0), workgroup (0, 0, 0), local (1, 0, 0)) and invocation #0 (global (0, 0, 0), workgroup (0, 0, 0), local (0, "
        "0, 0)) in barrier interval 0 of workgroup 0, with nothing ordering them")
    assert re.fullmatch(r"invocation #0 by the OpStore here \(SPIR-V word \d+\), invocation #16 by the OpStore at "
                        r".*:7 \(SPIR-V word \d+\); each stored the value the bytes already held",
                        across.notes[0].message), across.notes[0].message
    with pytest.raises(SpvError, match="data race on 'Out'") as ei:
        spvcoop_run(src % "l", buffers={(0, 0): np.zeros(2, np.uint32)})
    assert [x.severity for x in ei.value.diagnostics if x.rule == "interp.race"][0] == "error"
    with pytest.raises(SpvError) as ei:   # the racy histogram: its store races with its load: errors, both
        _run("histogram_racy")
    assert {x.severity for x in ei.value.diagnostics if x.rule == "interp.race"} == {"error"}


# ---- issue 37: coverage GPU-AV lacks ------------------------------------------------------------------------------
STAGING = """#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer In { float x[]; };
layout(set = 0, binding = 1) buffer Out { float y[]; };
shared float tile[1024];
void main() {
    uint l = gl_LocalInvocationID.x;
    coopmat<float, SCOPE, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, x, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, tile, OFFSET, 16, gl_CooperativeMatrixLayoutRowMajor);
    SYNC
    y[l] = tile[INDEX];
}"""
MINE = "gl_SubgroupID * 256 + gl_SubgroupInvocationID"
NEXT = "((gl_SubgroupID + 1) % 4) * 256 + gl_SubgroupInvocationID"


@pytest.mark.parametrize("scope, sync, offset, index, racy", [
    # a Workgroup-scope matrix staged through shared memory: the workgroup as one agent, only barrier() orders it
    ("gl_ScopeWorkgroup", "", "0", "l", "by the workgroup of invocation #0 "),
    ("gl_ScopeWorkgroup", "subgroupBarrier();", "0", "l", "by the workgroup of invocation #0 "),
    ("gl_ScopeWorkgroup", "barrier();", "0", "l", None),
    # Subgroup-scope matrices: a subgroup barrier orders the subgroup's own reads, not another subgroup's
    ("gl_ScopeSubgroup", "subgroupBarrier();", "gl_SubgroupID * 256", MINE, None),
    ("gl_ScopeSubgroup", "subgroupBarrier();", "gl_SubgroupID * 256", NEXT, "by the subgroup of invocation #0 "),
    ("gl_ScopeSubgroup", "barrier();", "gl_SubgroupID * 256", NEXT, None),
])
def test_matrix_staging_at_subgroup_and_workgroup_scope(tmp_path, scope, sync, offset, index, racy):
    import spvcoop
    src = tmp_path / "staging.comp"
    src.write_text(STAGING.replace("SCOPE", scope).replace("SYNC", sync).replace("OFFSET", offset)
                   .replace("INDEX", index))
    bufs = {0: np.arange(256, dtype=np.float32), 1: np.zeros(128, np.float32)}
    if racy is None:
        spvcoop.run(str(src), buffers=bufs, subgroup_size=32)
        return
    with pytest.raises(SpvError) as ei:
        spvcoop.run(str(src), buffers=bufs, subgroup_size=32)
    d = next(d for d in ei.value.diagnostics if d.rule == "interp.race")
    assert "data race on 'tile' (Workgroup)" in d.message and "OpCooperativeMatrixStoreKHR (write) " + racy in d.message


MESSAGE = """#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; };
shared uint data;
shared uint flag;
void main() {
    uint l = gl_LocalInvocationID.x;
    if (l == 0) { flag = 0; }
    barrier();
    if (l == 0) {
        data = 42;
        WRITE
    }
    if (l == 1) {
        READ
    }
}"""
_REL = "gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease"
_ACQ = "gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire"
_FENCE_REL = "memoryBarrier(gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease); "
_FENCE_ACQ = "memoryBarrier(gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire); "


@pytest.mark.parametrize("write, read, racy", [
    # message passing: a release store of the flag, an acquire load that sees it
    (f"atomicStore(flag, 1u, {_REL});", f"if (atomicLoad(flag, {_ACQ}) == 1u) {{ y[0] = data; }}", False),
    # fence plus flag: relaxed atomics between a release fence and an acquire fence
    (_FENCE_REL + "atomicStore(flag, 1u, gl_ScopeWorkgroup, 0, 0);",
     "if (atomicLoad(flag, gl_ScopeWorkgroup, 0, 0) == 1u) { " + _FENCE_ACQ + "y[0] = data; }", False),
    # relaxed on both sides, no acquire, or semantics naming the wrong storage class: the read races
    ("atomicStore(flag, 1u, gl_ScopeWorkgroup, 0, 0);",
     "if (atomicLoad(flag, gl_ScopeWorkgroup, 0, 0) == 1u) { y[0] = data; }", True),
    (f"atomicStore(flag, 1u, {_REL});", "if (atomicLoad(flag, gl_ScopeWorkgroup, 0, 0) == 1u) { y[0] = data; }", True),
    ("atomicStore(flag, 1u, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsRelease);",
     "if (atomicLoad(flag, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquire) == 1u) "
     "{ y[0] = data; }", True),
], ids=["release-acquire", "fence-flag", "relaxed", "no-acquire", "buffer-semantics"])
def test_release_acquire_orders_message_passing(tmp_path, write, read, racy):
    import spvcoop
    src = tmp_path / "mp.comp"
    src.write_text(MESSAGE.replace("WRITE", write).replace("READ", read))
    if racy:
        with pytest.raises(SpvError, match="data race on 'data' .* OpStore \\(write\\) by invocation #0 .* "
                                           "OpLoad \\(read\\) by invocation #1 "):
            spvcoop.run(str(src), buffers={0: np.zeros(4, np.uint32)})
    else:
        assert spvcoop.run(str(src), buffers={0: np.zeros(4, np.uint32)})[0][0] == 42


ACROSS = """#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { uint data; uint flag; uint y; };
void main() {
    bool first = gl_LocalInvocationID.x == 0;
    if (first && gl_WorkGroupID.x == 0) {
        data = 42;
        atomicStore(flag, 1u, SCOPE, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    }
    if (first && gl_WorkGroupID.x == 1) {
        if (atomicLoad(flag, SCOPE, gl_StorageSemanticsBuffer, gl_SemanticsAcquire) == 1u) { y = data; }
    }
}"""


@pytest.mark.parametrize("scope, racy", [("gl_ScopeDevice", False), ("gl_ScopeWorkgroup", True)])
def test_release_acquire_between_workgroups_needs_device_scope(tmp_path, scope, racy):
    import spvcoop
    src = tmp_path / "across.comp"
    src.write_text(ACROSS.replace("SCOPE", scope))
    if racy:
        with pytest.raises(SpvError, match="data race on 'Data'.*\n?.*") as ei:
            spvcoop.run(str(src), dispatch=(2, 1, 1), buffers={0: np.zeros(3, np.uint32)})
        assert "different workgroups" in _ordering_note(ei.value.diagnostics[0])
    else:
        assert spvcoop.run(str(src), dispatch=(2, 1, 1), buffers={0: np.zeros(3, np.uint32)})[0][2] == 42


# ---- issue 37: the report: summary, detail level, suppressions ------------------------------------------------------
TWO_VARIABLES = """#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l] = l;
    y[l] = s[63 - l];
    if (l < 2) { y[64] = l; }
}"""


def _two(tmp_path, **kw):
    import spvcoop
    src = tmp_path / "two.comp"
    src.write_text(TWO_VARIABLES)
    return spvcoop.run(str(src), buffers={0: np.zeros(65, np.uint32)}, **kw)


def test_summary_line_after_the_races_worst_variable_first(tmp_path):
    with pytest.raises(SpvError) as ei:
        _two(tmp_path)
    diags = ei.value.diagnostics
    races = [d for d in diags if d.rule == "interp.race"]
    assert len(races) == 2 and all(d.severity == "error" for d in races)
    assert races[-1].notes[-1].message == (
        "in all: 2 data races on 2 variables, worst first: 's' (Workgroup: 1 pair of instructions, 256 conflicting "
        "bytes); 'Out' (StorageBuffer: 1 pair of instructions, 4 conflicting bytes)")
    assert not races[0].notes[-1].message.startswith("in all")


def test_races_summary_is_one_error(tmp_path):
    with pytest.raises(SpvError) as ei:
        _two(tmp_path, races_report="summary")
    errors = [d for d in ei.value.diagnostics if d.severity == "error"]
    assert len(errors) == 1 and errors[0].rule == "interp.race"
    assert errors[0].message.startswith("2 data races on 2 variables, worst first: 's' (Workgroup")
    with pytest.raises(ValueError, match="races_report must be one of full, summary"):
        _two(tmp_path, races_report="hazard")


def test_suppress_a_known_race_by_variable_and_line(tmp_path):
    with pytest.raises(SpvError) as ei:   # the other race is still reported
        _two(tmp_path, races_suppress=["s:8"])
    assert [d.message.split(" at ")[0] for d in ei.value.diagnostics if d.rule == "interp.race"] == [
        "data race on 'Out' (StorageBuffer)"]
    res = _two(tmp_path, races_suppress=[{"variable": "s", "line": 7}, ("Out", 9)])
    assert [(d.rule, d.message) for d in res.diagnostics if d.rule.startswith("interp.race")] == [
        ("interp.race.suppressed", "2 data races on 'Out', 's' not reported: suppressed by races_suppress")]
    with pytest.raises(SpvError):   # a line of neither access suppresses nothing
        _two(tmp_path, races_suppress="s:6,Out:9")


@pytest.mark.slow
def test_report_options_from_the_run_spec_and_the_command_line(tmp_path, capsys):
    from spvcoop.cli import main
    (tmp_path / "two.comp").write_text(TWO_VARIABLES)
    spec = tmp_path / "two.yaml"
    base = "shader: two.comp\nbuffers:\n  y: {zeros: 65, dtype: uint32}\noutputs: []\n"
    spec.write_text(base + "races_suppress: ['s:8', {variable: Out, line: 9}]\n")
    assert main(["run", str(spec), "-q"]) == 0
    assert "2 data races on 'Out', 's' not reported" in capsys.readouterr().err
    spec.write_text(base)
    assert main(["run", str(spec), "-q", "--races", "summary"]) == 1
    err = capsys.readouterr().err
    assert err.count("error[interp.race]") == 1 and "2 data races on 2 variables" in err
    assert main(["run", str(spec), "-q", "--suppress-races", "s:8,Out:9"]) == 0
    capsys.readouterr()
    assert main(["run", str(spec), "-q", "--races", "all"]) == 2
    assert "--races: races_report must be one of full, summary, got 'all'" in capsys.readouterr().err
    spec.write_text(base + "races_suppress: [s]\n")   # a bad spec: located at the entry
    assert main(["run", str(spec), "-q"]) == 1
    assert "two.yaml:5:17: error: races_suppress: wants VARIABLE:LINE" in capsys.readouterr().err


# ---- issue 37: per-layout race reports ------------------------------------------------------------------------------
OWN_ELEMENTS = """#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer In { float x[]; };
layout(set = 0, binding = 1) buffer Out { float y[]; };
shared float tile[256];
void main() {
    uint l = gl_LocalInvocationID.x;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
    coopMatLoad(m, x, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, tile, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
    y[l] = tile[l];
}"""


@pytest.mark.parametrize("layout, racy", [
    (None, "by the subgroup of invocation #0 "),    # no model named: the store is the subgroup's as a whole
    ("nvidia", "by invocation #0 "),                # element 1 is lane 0's, read by lane 1
    ("amd-rdna3-wmma", None),                       # lane l holds element l: reads its own store
    ("striped", None),
])
def test_matrix_staging_races_depend_on_the_layout(tmp_path, layout, racy):
    """Under a layout model the run names, a matrix store is each lane's store of the elements the model gives it;
    reading back element l in invocation l without a barrier is a race under nvidia, not under amd-rdna3-wmma."""
    import spvcoop
    src = tmp_path / "own.comp"
    src.write_text(OWN_ELEMENTS)
    bufs = {0: np.arange(256, dtype=np.float32), 1: np.zeros(32, np.float32)}
    if racy is None:
        assert spvcoop.run(str(src), buffers=bufs, layout=layout)[1].tolist() == list(range(32))
        return
    with pytest.raises(SpvError) as ei:
        spvcoop.run(str(src), buffers=bufs, layout=layout)
    d = ei.value.diagnostics[0]
    assert d.rule == "interp.race" and "OpCooperativeMatrixStoreKHR (write) " + racy in d.message
    assert d.span.line == 13   # both source lines: the read here, the store in a note
    assert any(n.message.startswith("the other access: OpCooperativeMatrixStoreKHR") and "own.comp:12: coopMatStore"
               in n.message for n in d.notes)


@pytest.mark.slow
def test_portability_names_the_layouts_a_race_depends_on(tmp_path, capsys):
    from spvcoop.cli import main
    (tmp_path / "own.comp").write_text(OWN_ELEMENTS)
    np.save(tmp_path / "x.npy", np.arange(256, dtype=np.float32))
    spec = tmp_path / "own.yaml"
    spec.write_text("shader: own.comp\nbuffers:\n  x: {file: x.npy}\n  y: {zeros: 32, dtype: float32}\n"
                    "outputs: [y]\n")
    assert main(["portability", str(spec), "--subgroup-size", "32"]) == 1
    out, err = capsys.readouterr()
    line = next(x for x in out.splitlines() if x.lstrip().startswith("nvidia"))
    assert line.split()[1:4] == ["races:", "1", "data"]
    assert ("OpCooperativeMatrixStoreKHR (write) by invocation #0 and OpLoad (read) by invocation #1 "
            "(lines 12 and 13)") in line
    assert next(x for x in out.splitlines() if x.lstrip().startswith("striped")).split()[1] == "same"
    verdict = out.splitlines()[-1]
    assert verdict.startswith(f"verdict: {spec}: NOT PORTABLE: data races under nvidia, ")
    assert verdict.endswith("not under amd-rdna3-wmma, radv-gfx11, striped")
    assert "error[interp.race]" not in err   # each model's line gives its first race; no repeat per model
    # the same report from run --layout all
    assert main(["run", str(spec), "--layout", "all", "--subgroup-size", "32"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == verdict


@pytest.mark.parametrize("spread", [4, 1 << 20], ids=["scatter", "sort"])
def test_the_last_release_of_an_address_wins(spread):
    """races._Released keeps, per address, the release an atomic read would see: the last in invocation order."""
    from spvcoop.interp.races import _Released
    rel = _Released()
    addr = np.array([0, spread, 0, 2 * spread, spread], np.int64)
    rel.put(addr, np.arange(5), np.arange(10, 15), np.ones(5, np.int64), 2)
    assert rel.addr.tolist() == [0, spread, 2 * spread] and rel.agent.tolist() == [2, 4, 3]
    rel.put(np.array([spread], np.int64), np.array([7]), np.array([20]), np.array([1]), 1)
    assert rel.agent[rel.find(np.array([spread, 0, 5 * spread]))[:2]].tolist() == [7, 2]
    assert rel.find(np.array([5 * spread])).tolist() == [-1]
    rel.drop(np.array([0]))
    assert rel.addr.tolist() == [spread, 2 * spread]


def test_relaxed_atomics_after_memory_barriers_cost_no_report(spvcoop_run):
    """GLSL's memoryBarrierShared() is an AcquireRelease fence: every invocation's later atomics are releases. A
    shared-memory histogram stays race-free and exact."""
    src = """#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) buffer In { uint x[]; };
layout(set = 0, binding = 1) buffer Hist { uint h[16]; };
shared uint local_h[16];
void main() {
    uint l = gl_LocalInvocationID.x;
    if (l < 16) local_h[l] = 0;
    memoryBarrierShared();
    barrier();
    atomicAdd(local_h[x[gl_GlobalInvocationID.x] % 16], 1);
    memoryBarrierShared();
    barrier();
    if (l < 16) atomicAdd(h[l], local_h[l]);
}"""
    res = spvcoop_run(src, dispatch=(16, 1, 1), buffers={(0, 0): np.arange(4096, dtype=np.uint32),
                                                         (0, 1): np.zeros(16, np.uint32)}, races=True)
    assert res[(0, 1)].tolist() == [256] * 16


TILES = """#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(binding = 0) readonly buffer P { uint p[]; };
layout(binding = 1) buffer X { float x[]; };
layout(binding = 2) buffer Y { float y[]; };
void main() {
    uint w = gl_WorkGroupID.x;
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(float(w % 3));
    coopMatStore(m, x, p[4 * w], p[4 * w + 1], gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(m, x, p[4 * w + 2], p[4 * w + 3], gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, y, w * 256, 16, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(m, x, p[4 * w + 2], p[4 * w + 3], gl_CooperativeMatrixLayoutRowMajor);   // (what it read)
}
"""


def _tile_params(rng, G: int, kind: str) -> np.ndarray:
    """(G, 4) store offset and stride, load offset and stride, per workgroup, in an x of 64 x 64 tiles of 16 x 16."""
    tiles = rng.permutation(64)[:G] if kind != "shared" else rng.integers(0, 8, G)
    pitch = 64 * 16
    off = tiles // 64 * 16 * pitch + tiles % 64 * 16
    if kind == "skewed":   # off the tiles' grid (rows of 48): rectangles that may or may not meet (each pair compared)
        off = rng.integers(0, 60 * G, G) * 48 + rng.integers(0, 33, G)
    load = off.copy()
    if kind == "read_other":   # a tile another workgroup wrote: a read/write race
        load = np.roll(off, 1)
    stride = np.full(G, pitch if kind != "skewed" else 48)
    return np.stack([off, stride, load, stride], axis=1).astype(np.uint32)


def _shadows(rec) -> dict:
    """A recorder's shadow memory, per memory: unit size, both sides' agents and stamps, the bytes last written."""
    return {sh.mem.name: (sh.g, *(None if side is None else (side.agent.tobytes(), side.stamp.tobytes())
                                  for side in (sh.w, sh.r)), sh.mirror.tobytes()) for sh in rec.shadows.values()}


@pytest.mark.parametrize("kind", ["grid", "shared", "read_other", "skewed"])
def test_tile_records_are_the_general_paths(tmp_path, monkeypatch, kind):
    """The fast path `race_tiles` alone off (issue 33): matrix stores and loads of many scope instances, on a grid
    of distinct tiles, on tiles two instances share (a write/write race among the instances of one store), reading
    a tile another instance wrote (a read/write race), off the grid (rectangles each pair of which is compared):
    the same bytes, the same reports and the same shadow memory after the run, and the windows were taken where
    nothing met."""
    import spvcoop
    from spvcoop.interp import fastpaths, races
    src = tmp_path / "tiles.comp"
    src.write_text(TILES)
    rng = np.random.default_rng(["grid", "shared", "read_other", "skewed"].index(kind))
    made: list = []
    real = fastpaths.for_run
    monkeypatch.setattr(fastpaths, "for_run", lambda config: made.append(real(config)) or made[-1])
    recorders: list = []
    init = races.Recorder.__init__
    monkeypatch.setattr(races.Recorder, "__init__", lambda self, ex: recorders.append(self) or init(self, ex))
    taken, errors = 0, 0
    for _trial in range(4):
        G = int(rng.integers(20, 40)) if kind != "skewed" else int(rng.integers(3, 8))
        params = _tile_params(rng, G, kind)

        def once(G=G, params=params, **kw):
            bufs = {0: params.reshape(-1), 1: np.zeros(64 * 64 * 256, np.float32), 2: np.zeros(G * 256, np.float32)}
            try:
                r = spvcoop.run(str(src), dispatch=(G, 1, 1), buffers=bufs, subgroup_size=32, **kw)
            except SpvError as e:
                return "error", [str(d) for d in e.diagnostics]
            return "ok", r.raw(1), r.raw(2), [str(d) for d in r.diagnostics]
        made.clear()
        recorders.clear()
        fast = once()
        plain = once(fast_paths=set(fastpaths.NAMES) - {"race_tiles"})
        assert fast == plain
        assert _shadows(recorders[0]) == _shadows(recorders[1])
        assert "race_tiles" not in made[1].taken
        taken += "race_tiles" in made[0].taken
        errors += fast[0] == "error"
        assert (fast[0] == "error") == (kind in ("shared", "read_other")) or kind == "skewed"
    assert taken
    assert kind != "skewed" or 0 < errors < 4

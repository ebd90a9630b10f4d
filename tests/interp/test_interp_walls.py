"""The Executor's collaborators on their own (issue 33 item 2): the Budget's rules (steps, the work limit, progress
points, the clock, memory) and the read-only Lanes record. The runs that use them are held to the plain path by
test_fast_paths.py and to the limits by test_interp_hostile.py and test_default_limits.py."""
import numpy as np
import pytest

from spvcoop.core.diagnostics import SpvError
from spvcoop.interp.budget import PROGRESS_EVERY, Budget
from spvcoop.interp.config import RunConfig
from spvcoop.interp.lanes import Lanes


class _Inst:
    opname = "OpIAdd"


INST = _Inst()


def _budget(**options) -> Budget:
    return Budget(RunConfig(**options), lambda inst, notes: (None, "<test>"))


def test_the_step_limit_is_one_rule_for_body_instructions_and_terminators():
    for step in ("count", "tick"):
        b = _budget(max_steps=5)
        for _ in range(5):
            getattr(b, step)(INST)
        with pytest.raises(SpvError) as e:
            getattr(b, step)(INST)
        d = e.value.diagnostics[0]
        assert d.rule == "interp.max-steps" and "step limit of 5 executed instructions reached at OpIAdd" in d.message
        assert b.steps == 6


def test_generated_code_hands_its_count_over_at_the_checkpoints():
    """What block_compiler's code does with a local count: a body instruction past max_steps, a terminator at
    tick_at, calls reached(); the error and the count are the plain path's."""
    b = _budget(max_steps=5)
    assert b.tick_at == 6          # past the limit before the first progress point
    with pytest.raises(SpvError) as e:
        b.reached(6, INST)
    assert e.value.diagnostics[0].rule == "interp.max-steps" and b.steps == 6


def test_the_work_limit_becomes_a_step_limit_for_the_invocations():
    b = _budget(max_work=1000)
    b.for_invocations(10)
    assert b.max_steps == 100 and b.tick_at == 101
    b.steps = 100
    with pytest.raises(SpvError) as e:
        b.count(INST)
    assert e.value.diagnostics[0].rule == "interp.max-work" and "100 instructions for 10 invocations" in \
        e.value.diagnostics[0].message
    # virtual invocations of a per-element call share it, and the dispatch's limit comes back after
    b = _budget(max_work=1000)
    b.for_invocations(10)
    b.steps = 40
    with b.shared_with(30, 10):
        assert b.max_steps == 40 + 60 * 10 // 30 and b.invocations == 30 and b.tick_at == b.max_steps + 1
    assert (b.max_steps, b.invocations, b.tick_at) == (100, 10, 101)


def test_progress_and_the_clock_at_the_first_terminator_past_each_point():
    seen: list[int] = []
    b = _budget(progress=seen.append)
    for _ in range(3 * PROGRESS_EVERY + 5):
        b.count(INST)       # body instructions never report
    assert seen == []
    b.tick(INST)
    assert seen == [3 * PROGRESS_EVERY + 6] and b.tick_at == 4 * PROGRESS_EVERY
    b.deadline = 0.0        # past: the clock is read at the next progress point, not before
    b.tick(INST)
    b.steps = 4 * PROGRESS_EVERY - 1
    with pytest.raises(SpvError) as e:
        b.tick(INST)
    assert e.value.diagnostics[0].rule == "interp.max-time"


def test_memory_is_checked_before_it_is_taken():
    b = _budget(max_memory=1000)
    b.reserve(600, "a buffer", None)
    b.reserve(300, "a temporary", None, keep=False)   # checked, not kept
    assert b.memory_used == 600
    with pytest.raises(SpvError) as e:
        b.reserve(600, "another buffer", None)
    assert e.value.diagnostics[0].rule == "interp.max-memory" and "another buffer needs 600 bytes" in \
        e.value.diagnostics[0].message


def test_lanes_are_one_read_only_record():
    lanes = Lanes.lay_out((2, 2, 1), (2, 1, 1), 2)
    assert lanes.invocations == 8 and lanes.wg_size == 4 and lanes.num_sg_total == 4
    assert lanes.sg_global.tolist() == [0, 0, 1, 1, 2, 2, 3, 3] and lanes.sg_local.tolist() == [0, 1] * 4
    with pytest.raises(AttributeError):
        lanes.wg_size = 8
    with pytest.raises(ValueError):
        lanes.wg_index[0] = 1
    gid = lanes.builtin("GlobalInvocationId")
    assert gid.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 0, 0], [3, 0, 0], [2, 1, 0], [3, 1, 0]]
    assert gid.dtype == np.uint32 and lanes.builtin("NumSubgroups").tolist() == [2] * 8
    assert lanes.builtin("FragCoord") is None
    assert lanes.info is not None and lanes.info(5) == "#5 (global (3, 0, 0), workgroup (1, 0, 0), local (1, 0, 0))"
    # before the layout (the constants): one lane that names no invocation in messages
    assert Lanes.before_layout(32).invocations == 1 and Lanes.before_layout(32).info is None

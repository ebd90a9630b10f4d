"""Hostile input for the validator: mutated corpus modules (binary words and assembly tokens)
either are refused by the reader with an SpvError or give a report in every format; the
validator never raises. Derandomized and bounded when CI=true."""
from __future__ import annotations

import contextlib
import os
import re
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spvcoop
from spvcoop import SpvError
from spvcoop.commands.val import check_file
from spvcoop.validator import TARGET_ENVS, validate
from spvcoop.validator.report import file_result, format_github, format_human, format_json
from spvcoop.validator.sarif import format_sarif
from conftest import TESTS

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

DATA = TESTS / "data"
CORPUS = sorted((DATA / "coopmat-probes").glob("*.spvasm")) + sorted((DATA / "validate").glob("*.spvasm"))
TEXTS = {p.name: p.read_text() for p in CORPUS}
ENV = re.compile(r"^; env:\s*(\S+)", re.M)


def _env(text: str) -> str:
    m = ENV.search(text)
    return m.group(1) if m else "spv1.6"


BINARIES = {}
for _name, _text in TEXTS.items():
    with contextlib.suppress(SpvError):   # a probe of the assembler's refusals
        BINARIES[_name] = spvcoop.assemble(_text, _name, target_env=_env(_text)).to_bytes()

CI = os.environ.get("CI") == "true"
FUZZ = settings(max_examples=300 if CI else 500, deadline=None, derandomize=CI,
                suppress_health_check=list(HealthCheck))
INTERESTING = [0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 63, 64, 65, 0xFFFF, 0x10000, 0x7FFFFFFF,
               0x80000000, 0xFFFFFFFF, 2147483648]
word = st.one_of(st.sampled_from(INTERESTING), st.integers(0, 2 ** 32 - 1))


@st.composite
def mutated_binary(draw) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(BINARIES)))
    words = list(struct.unpack(f"<{len(BINARIES[name]) // 4}I", BINARIES[name]))
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(5, len(words) - 1))
        kind = draw(st.sampled_from(["set", "opcode", "count", "delete", "insert", "flip", "copy"]))
        if kind == "set":
            words[k] = draw(word)
        elif kind == "opcode":  # keep the word count, change the opcode
            words[k] = (words[k] & 0xFFFF0000) | draw(st.integers(0, 0x1200))
        elif kind == "count":   # keep the opcode, change the word count
            words[k] = (words[k] & 0xFFFF) | (draw(st.integers(0, 12)) << 16)
        elif kind == "delete" and len(words) > 6:
            del words[k]
        elif kind == "insert":
            words.insert(k, draw(word))
        elif kind == "flip":
            words[k] ^= 1 << draw(st.integers(0, 31))
        else:
            words[k] = words[draw(st.integers(5, len(words) - 1))]
    return name, struct.pack(f"<{len(words)}I", *words)


TOKEN = re.compile(r"%\w+|\b\d+\b|\bOp\w+|\b[A-Z]\w+")


@st.composite
def mutated_text(draw) -> tuple[str, str]:
    name = draw(st.sampled_from(sorted(TEXTS)))
    text = TEXTS[name]
    tokens = [m for m in TOKEN.finditer(text)]
    pool = sorted({m.group(0) for m in tokens}) + [str(v) for v in INTERESTING] + ["-1", "%undefined_id"]
    for _ in range(draw(st.integers(1, 3))):
        tokens = [m for m in TOKEN.finditer(text)]
        m = draw(st.sampled_from(tokens))
        text = text[:m.start()] + draw(st.sampled_from(pool)) + text[m.end():]
    return name, text


def _report_everywhere(module, env: str) -> None:
    diags = validate(module, env)
    format_human(diags, module)
    rec = file_result(module.source, diags, module)
    for fmt in (format_json, format_sarif, format_github):
        assert isinstance(fmt([rec]), str)


@FUZZ
@given(mutated_binary(), st.sampled_from(TARGET_ENVS))
def test_mutated_binary_gives_a_report_or_a_located_error(case: tuple[str, bytes], env: str) -> None:
    name, data = case
    try:
        module = spvcoop.read_binary(data, name + ".spv")
    except SpvError:
        return
    _report_everywhere(module, env)


@FUZZ
@given(mutated_text(), st.sampled_from(TARGET_ENVS))
def test_mutated_text_gives_a_report_or_a_located_error(case: tuple[str, str], env: str) -> None:
    name, text = case
    try:
        module = spvcoop.assemble(text, name, target_env="spv1.6" if env == "universal" else env)
    except SpvError:
        return
    _report_everywhere(module, env)


@settings(FUZZ, max_examples=60 if CI else 100)
@given(case=mutated_binary(), env=st.sampled_from(TARGET_ENVS))
def test_val_command_path_never_raises(case: tuple[str, bytes], env: str, tmp_path_factory) -> None:
    """The val command's own path (reading, loading, validating, rendering): a status, never a raise."""
    name, data = case
    path = tmp_path_factory.mktemp("fuzz") / (name + ".spv")
    path.write_bytes(data)
    rec, human, status = check_file(str(path), env, {}, None, False, True)
    assert status in (0, 1) and rec["file"] == str(path)
    assert (status == 0) == rec["valid"]


def test_huge_integer_width_is_not_evaluated() -> None:
    """`OpTypeInt 2147483648 0` used to make every constant of it a 2^31-bit number (minutes)."""
    name = "nv_lax_type_rows_i64.spvasm"
    module = spvcoop.assemble(TEXTS[name], name, target_env="spv1.6")
    words = list(struct.unpack(f"<{len(BINARIES[name]) // 4}I", BINARIES[name]))
    at = 5
    for inst in module.instructions:
        if inst.opname == "OpTypeInt" and inst.operands[0].value == 64:
            words[at + 2] = 2147483648  # the Width word
            break
        at += len(inst.words())
    else:
        raise AssertionError(f"{name} no longer declares a 64-bit integer type")
    # the binary reader refuses the width as spirv-dis does ...
    with pytest.raises(spvcoop.SpvError):
        spvcoop.read_binary(struct.pack(f"<{len(words)}I", *words), "w.spv")
    # ... and the validator copes with a module made in code that has it
    wide = spvcoop.assemble(TEXTS[name], name, target_env="spv1.6")
    next(i for i in wide.instructions if i.opname == "OpTypeInt" and i.operands[0].value == 64).operands[0].value = \
        2147483648
    diags = validate(wide)
    assert diags and all(d.rule != "structure.malformed" for d in diags)

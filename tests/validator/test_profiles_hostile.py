"""Device profiles on hostile input: every violation located, only SpvError ever escapes."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spvcoop.core.diagnostics import SpvError
from spvcoop.validator.profiles import PROFILE_DIR, load_profile

SHIPPED = sorted(PROFILE_DIR.glob("*.yaml"))


def _load(tmp_path: Path, text: str):
    p = tmp_path / "p.yaml"
    p.write_text(text)
    return load_profile(str(p))


def test_shipped_profiles_load() -> None:
    for p in SHIPPED:
        prof = load_profile(p.stem)
        assert prof.combos and prof.name == p.stem


# (profile, the token the error must point at (its first occurrence on the last line), message)
@pytest.mark.parametrize("text,token,message", [
    ("combinations: 5\n", "5", "combinations: expected a list"),
    ("combinations:\n  - {M: 16, N: 16, K: 16, A: f16, B: f16}\n", "{", "'C' is required"),
    ("combinations:\n  - {M: 0, N: 16, K: 16, A: f16, B: f16, C: f32}\n", "0", "must be at least 1"),
    ("combinations:\n  - {M: 16, N: .inf, K: 16, A: f16, B: f16, C: f32}\n", ".inf", "expected an integer"),
    ("combinations:\n  - {M: 16, N: 16, K: 1e999, A: f16, B: f16, C: f32}\n", "1e999", "expected an integer"),
    ("combinations:\n  - {M: 16, N: 16, K: 16, A: [f16], B: f16, C: f32}\n", "[f16]", "a component type is a name"),
    ("combinations:\n  - {M: 16, N: 16, K: 16, A: f16, B: f16, C: f32, scope: 99}\n", "99", "a scope is one of"),
    ("combinations:\n  - {M: 16, N: 16, K: 16, A: f16, B: f16, C: f32, api: CUDA}\n", "CUDA", "api is NV, KHR"),
    ("combinations:\n  - {M: 16, N: 16, K: 16, A: f16, B: f16, C: f32, typo: 1}\n", "typo", "unknown key 'typo'"),
    ("a: &a [1, 1]\nb: &b [*a, *a]\ncombinations: [*b]\n", "*b", "expected a mapping"),
])
def test_violations_are_located(tmp_path, text, token, message) -> None:
    with pytest.raises(SpvError) as e:
        _load(tmp_path, text)
    d = next((d for d in e.value.diagnostics if message in d.message), None)
    assert d is not None, [x.headline() for x in e.value.diagnostics]
    lines = text.splitlines()
    assert (d.span.line, d.span.col) == (len(lines), lines[-1].index(token) + 1), d.headline()


def test_alias_bomb_is_refused(tmp_path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    lines.append("combinations: [*a8]")
    with pytest.raises(SpvError):
        _load(tmp_path, "\n".join(lines) + "\n")


_VALUES = st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True), st.text(max_size=6),
                    st.sampled_from(["f16", "bf16", "Subgroup", "KHR", "NV", "[", "{", "*x", "&x", "!!python/object",
                                     ".inf"]),
                    st.lists(st.integers(0, 40), max_size=3), st.none(), st.booleans())


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_profiles_never_escape(tmp_path, data) -> None:
    lines = SHIPPED[0].read_text().splitlines()
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["value", "delete", "duplicate", "truncate"]))
        if how == "value" and ":" in lines[i]:
            key, _, _ = lines[i].partition(":")
            lines[i] = f"{key}: {data.draw(_VALUES)!r}"
        elif how == "delete":
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])))]
        if not lines:
            lines = [""]
    try:
        prof = _load(tmp_path, "\n".join(lines) + "\n")
    except SpvError as e:
        assert e.diagnostics and all(d.message for d in e.diagnostics)
    else:
        assert all(c.M >= 1 and c.N >= 1 and c.K >= 1 for c in prof.combos)

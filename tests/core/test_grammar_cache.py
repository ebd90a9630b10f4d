"""The start-up cache of the SPIR-V grammar (spvcoop.core.grammar_cache): the grammar built from it is the
one built from the JSON, and a cache that is stale, damaged or unwritable is never believed."""
from __future__ import annotations

import os

import pytest

from spvcoop.core import grammar_cache, spirv_grammar


def _cache_env(monkeypatch, cache_dir, **env) -> None:
    monkeypatch.setenv("SPVCOOP_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("SPVCOOP_NO_CACHE", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)


def _fresh(monkeypatch, cache_dir, **env):
    _cache_env(monkeypatch, cache_dir, **env)
    return spirv_grammar.load.__wrapped__()


def _same(a, b) -> None:
    assert (a.magic, a.version) == (b.magic, b.version)
    assert a.instructions == b.instructions and a.by_opcode == b.by_opcode
    assert set(a.operand_kinds) == set(b.operand_kinds)
    for name, k in a.operand_kinds.items():
        o = b.operand_kinds[name]
        assert (k.category, k.bases, k.enumerants, k.by_name, k.by_value) == \
            (o.category, o.bases, o.enumerants, o.by_name, o.by_value)
    assert a.ext_files == b.ext_files


def test_cached_grammar_equals_the_json(tmp_path, monkeypatch) -> None:
    plain = _fresh(monkeypatch, tmp_path / "c", SPVCOOP_NO_CACHE="1")
    assert not (tmp_path / "c").exists()
    first = _fresh(monkeypatch, tmp_path / "c")     # builds and writes
    files = list((tmp_path / "c").iterdir())
    assert len(files) == 1 and files[0].suffix == ".marshal"
    second = _fresh(monkeypatch, tmp_path / "c")    # reads
    _same(plain, first)
    _same(plain, second)
    assert second.instructions["OpCooperativeMatrixMulAddKHR"].has_result


@pytest.mark.parametrize("damage", [b"", b"garbage", b"\x00" * 100])
def test_a_damaged_cache_is_rebuilt(tmp_path, monkeypatch, damage) -> None:
    good = _fresh(monkeypatch, tmp_path)
    (path,) = tmp_path.iterdir()
    path.write_bytes(damage if damage else path.read_bytes()[:len(path.read_bytes()) // 2])
    _same(good, _fresh(monkeypatch, tmp_path))


def test_a_cache_of_another_source_is_not_believed(tmp_path, monkeypatch) -> None:
    """The key is inside the file: a file of the right name made for another source is ignored."""
    import marshal
    good = _fresh(monkeypatch, tmp_path)
    (path,) = tmp_path.iterdir()
    fmt, key, plain = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps((fmt, key + "x", (0, (0, 0), (), ()))))
    _same(good, _fresh(monkeypatch, tmp_path))


def test_changed_source_changes_the_key(tmp_path) -> None:
    src = tmp_path / "g.json"
    src.write_text("{}")
    k1 = grammar_cache._key(src)
    os.utime(src, ns=(1, 1))
    assert grammar_cache._key(src) != k1
    src.write_text("{ }")
    assert grammar_cache._key(src) not in (k1, None)


def test_unwritable_cache_falls_back_to_memory(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    calls = []

    def build(text):
        calls.append(1)
        return ("plain",)
    monkeypatch.setenv("SPVCOOP_CACHE_DIR", str(blocker / "sub"))
    src = tmp_path / "g.json"
    src.write_text("{}")
    assert grammar_cache.load_plain(src, build) == ("plain",)
    assert grammar_cache.load_plain(src, build) == ("plain",)
    assert len(calls) == 2 and not list(tmp_path.glob("**/*.marshal"))


def _expr_parser(monkeypatch, cache_dir, **env):
    from spvcoop.layouts import expr
    _cache_env(monkeypatch, cache_dir, **env)
    return expr._parser.__wrapped__()


FORMULAS = ["((i & 2) << 2) + ((lane & 28) >> 2)", "lane % 4 * 2 + (i & 1) + (i >= 4 ? 8 : 0)", "min(i, 3)"]


def test_cached_layout_expression_parser_parses_as_the_built_one(tmp_path, monkeypatch) -> None:
    built = _expr_parser(monkeypatch, tmp_path / "c", SPVCOOP_NO_CACHE="1")
    assert not (tmp_path / "c").exists()
    first = _expr_parser(monkeypatch, tmp_path / "c")      # builds and writes
    files = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert len(files) == 1 and files[0].startswith("lark-layout-expr-")
    second = _expr_parser(monkeypatch, tmp_path / "c")     # reads
    for f in FORMULAS:
        assert built.parse(f) == first.parse(f) == second.parse(f)
    assert second.parse(FORMULAS[0]).meta.column == built.parse(FORMULAS[0]).meta.column   # positions kept


def test_damaged_or_foreign_lark_cache_is_rebuilt(tmp_path, monkeypatch) -> None:
    _expr_parser(monkeypatch, tmp_path / "c")
    (path,) = (tmp_path / "c").iterdir()
    key = path.read_bytes().split(b"\n", 1)[0]
    for damaged in (key + b"\n" + b"\x80garbage", b"0" * 64 + b"\n" + path.read_bytes().split(b"\n", 1)[1], b""):
        path.write_bytes(damaged)
        p = _expr_parser(monkeypatch, tmp_path / "c")
        uncached = _expr_parser(monkeypatch, tmp_path / "x", SPVCOOP_NO_CACHE="1")
        assert p.parse(FORMULAS[1]) == uncached.parse(FORMULAS[1])

"""The vectorised data I/O paths against the per-value ones they replace: same values, same text.

- numtext: shortest float32 decimals and every token, against float(str(np.float32(x))), PyYAML's
  safe_dump and json.dumps, value by value;
- render: outputs with large arrays (the fast layout) parse back to exactly what the plain path
  writes; small outputs are byte-identical to yaml.safe_dump / json.dumps;
- yamlio: long numeric flow lists read in one go give the same values, types and marks as the general
  path, keep the alias budget, and leave every error to the general path, at its place;
- dataio: encode/decode of arrays in one go give the same bytes and values as element by element.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from spvcoop.core.diagnostics import SpvError
from spvcoop.interp import dataio
from spvcoop.runspec.numtext import f32_short, float_text, short_floats, tokens
from spvcoop.runspec.spec import LARGE_ARRAY, _render_plain, render, to_plain
from spvcoop.core.yamlio import YamlLimits, _compose, load_yaml, mark_at
from conftest import REPO

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

EDGES32 = [0.1, 0.9, 1e-5, 1e-4, 9.999e-5, 1e16, 1.5e16, 123456789, 65504, 3.4028235e38, 1.17549435e-38, 1e-45,
           -0.0, 0.0, np.inf, -np.inf, np.nan, 16777216, 0.5, 2.0, 1e22, 1e23, 1e-22, 1e-23, 100, 1234.5, 1e-13,
           1e-14, 1e21, 9.9e21, 0.3, 2.7785645, -1.416855]


def _f32_sample(seed: int, n: int = 40000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)   # every exponent
    scaled = (rng.standard_normal(n) * 10.0 ** rng.integers(-15, 23, n)).astype(np.float32)
    small = (rng.integers(-1000, 1000, n // 4) / 8).astype(np.float32)
    return np.concatenate([bits, scaled, small, np.array(EDGES32, np.float32)])


def _same_floats(a, b) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(((a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))).all())


@pytest.mark.parametrize("seed", [0, 1])
def test_f32_short_is_float_of_str(seed):
    a = _f32_sample(seed)
    want = [float(str(x)) if np.isfinite(x) else float(x) for x in a]
    assert _same_floats(f32_short(a), want)
    assert _same_floats(f32_short(a.reshape(-1, 1)).reshape(-1), want)


def test_short_floats_matches_the_per_value_definition():
    a = _f32_sample(2, 5000)
    assert short_floats(a) == pytest.approx([float(str(x)) if np.isfinite(x) else float(x) for x in a],
                                                   nan_ok=True)
    assert short_floats(np.float32(0.9).reshape(())) == 0.9
    assert short_floats(np.array([[0.1, 0.2]], np.float32)) == [[0.1, 0.2]]


def _plain_token(v, style: str) -> str:
    """How the plain path writes one value (a whole document of one scalar, first line)."""
    if style == "yaml":
        return yaml.safe_dump([v], default_flow_style=True, width=1 << 30).strip()[1:-1]
    return json.dumps(v)


@pytest.mark.parametrize("style", ["yaml", "json"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
                                   "uint32", "int64", "uint64", "bool"])
def test_tokens_are_the_plain_path_text(dtype, style):
    rng = np.random.default_rng(hash(dtype) % 1000)
    dt = np.dtype(dtype)
    n = 3000
    if dt.kind == "f":
        bits = rng.integers(0, 2**63, n, dtype=np.uint64).astype(f"u{dt.itemsize}")
        with np.errstate(over="ignore"):
            a = np.concatenate([bits.view(dt), np.array(EDGES32).astype(dt)])
    elif dt.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    else:
        info = np.iinfo(dt)
        a = np.concatenate([rng.integers(info.min, info.max, n, dtype=dt, endpoint=True),
                            np.array([info.min, info.max, 0, 1, 9, 10, 99, 100], dt)])
    plain = to_plain(a)
    got = [t.decode() for t in tokens(a, style).tolist()]
    assert got == [_plain_token(v, style) for v in plain]


def _outputs(seed: int, large: bool) -> dict:
    """Outputs of every kind the output path meets: arrays of each dtype and shape, decoded structures."""
    rng = np.random.default_rng(seed)
    n = LARGE_ARRAY + 1 + int(rng.integers(0, 500)) if large else int(rng.integers(1, 40))
    out = {}
    kinds = ("float16", "float32", "float64", "int8", "uint16", "int32", "uint32", "int64", "uint64")
    for dt in kinds if not large else kinds[seed % 3::3] + ("float32",) * (seed % 3 != 1):
        d = np.dtype(dt)
        if d.kind == "f":
            with np.errstate(over="ignore"):
                a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 8, n)).astype(d)
            a[:3] = [np.nan, np.inf, -0.0]
        else:
            info = np.iinfo(d)
            a = rng.integers(info.min, info.max, n, dtype=d, endpoint=True)
        out[f"b_{dt}"] = a
    out["vec4"] = rng.standard_normal((n, 4)).astype(np.float32)
    out["cube"] = rng.integers(-9, 9, (n, 2, 3)).astype(np.int32)
    inner = rng.standard_normal(n).astype(np.float32)
    out["0:7"] = {"count": 3, "scale": 0.5, "values": dataio.NumList(short_floats(inner), inner)
                  if n > dataio.LARGE else short_floats(inner),
                  "pairs": [[1, 2], [3, 4]], "plain": [float(x) for x in rng.standard_normal(n)],
                  "ints": [int(x) for x in rng.integers(-5, 5, n)]}
    out["nan"] = float("nan")
    return out


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("seed", range(4))
def test_large_outputs_read_back_as_the_plain_path(fmt, seed):
    outs = _outputs(seed, large=True)
    fast = render(outs, fmt)
    plain = _render_plain({k: to_plain(v) for k, v in outs.items()}, fmt)
    assert fast != plain   # the fast layout is in use
    load = json.loads if fmt == "json" else lambda t: yaml.load(t, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    a, b = load(fast), load(plain)
    assert list(a) == list(b)
    for k in a:
        if k == "0:7":
            for m in b[k]:
                assert _same_floats(a[k][m], b[k][m]) if m in ("values", "plain") else a[k][m] == b[k][m]
        elif k == "nan":
            assert a[k] == b[k] == "nan"
        else:
            assert _same_floats(a[k], b[k]), k
    if fmt == "yaml":
        assert max(len(line) for line in fast.splitlines()) <= 110


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("seed", range(4))
def test_small_outputs_are_byte_identical(fmt, seed):
    outs = _outputs(seed, large=False)
    plain = {k: to_plain(v) for k, v in outs.items()}
    want = json.dumps(plain, indent=1) + "\n" if fmt == "json" else \
        yaml.safe_dump(plain, sort_keys=False, default_flow_style=None, width=100)
    assert render(outs, fmt) == want


def test_a_placeholder_lookalike_in_the_data_falls_back_to_the_plain_path(monkeypatch):
    import spvcoop.runspec.spec as rs
    monkeypatch.setattr(rs.os, "urandom", lambda n: b"\0" * n)
    outs = {"s": "spvcoopbig000000000000x0y", "y": np.arange(LARGE_ARRAY + 5, dtype=np.float32)}
    assert yaml.safe_load(render(outs, "yaml")) == yaml.safe_load(_render_plain(
        {k: to_plain(v) for k, v in outs.items()}, "yaml"))


def test_large_lists_keep_the_block_layout_around_them():
    outs = {"y": np.arange(LARGE_ARRAY + 1, dtype=np.float32), "s": {"a": 1, "b": [1, 2]}}
    text = render(outs, "yaml")
    assert text.startswith("y: [0.0, 1.0, 2.0,") and text.endswith("\ns:\n  a: 1\n  b: [1, 2]\n")
    assert max(len(line) for line in text.splitlines()) <= 100


def test_numlist_dumps_as_a_list():
    v = dataio.NumList([1.5, 2.0], np.array([1.5, 2.0], np.float32))
    assert yaml.safe_dump({"a": v}) == yaml.safe_dump({"a": [1.5, 2.0]})


# ---- input ----------------------------------------------------------------------------------------
def _flow(values, per_line: int = 7) -> str:
    toks = [float_text(v, "yaml") if isinstance(v, float) else str(v) for v in values]
    return "[" + ",\n    ".join(", ".join(toks[i:i + per_line]) for i in range(0, len(toks), per_line)) + "]"


def _doc(seed: int) -> str:
    rng = np.random.default_rng(seed)
    f = [float(x) for x in (rng.standard_normal(900) * 10.0 ** rng.integers(-30, 30, 900))]
    f32 = short_floats(rng.standard_normal(700).astype(np.float32))
    ints = [int(x) for x in rng.integers(-10**17, 10**17, 600)]
    mixed = [int(x) if i % 3 else float(x) / 7 for i, x in enumerate(rng.integers(-99, 99, 900))]
    odd = ["1e5", "017", "0x1F", "+3", ".5", "1_000", "1.5e3", "-.inf", ".nan", "1.0e+5", "00.5", "-0", "0.", "7"]
    strange = [str(int(x)) for x in rng.integers(0, 9, 600)] + [odd[seed % len(odd)]]
    return (f"# floats, ints, mixed and a list with one value YAML 1.1 reads differently\n"
            f"f: {_flow(f)}\nf32: &F {_flow(f32)}\nints: {_flow(ints)}\nmixed: {_flow(mixed)}\n"
            f"odd: {'[' + ', '.join(strange) + ']'}\nagain: [*F, *F]\ntail: {{k: [1, 2.5]}}\n")


def _types(v):
    if isinstance(v, dict):
        return {k: _types(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_types(x) for x in v]
    return type(v).__name__


@pytest.mark.parametrize("seed", range(14))
def test_fast_numeric_lists_read_as_the_general_path(seed):
    text = _doc(seed)
    fast = load_yaml(text, "t.yaml")
    slow = _compose(text, "t.yaml", YamlLimits.default(), True)
    assert fast == slow
    assert _types(fast) == _types(slow)
    assert fast["f32"].array is not None and fast["ints"].array.dtype == np.int64
    for key in ("f", "f32", "ints", "mixed", "odd"):
        for i in (0, 1, 8, len(slow[key]) // 2, len(slow[key]) - 1):
            a, b = mark_at(fast, [key, i]), mark_at(slow, [key, i])
            assert (a.line, a.column) == (b.line, b.column), (key, i)
    for path in (["tail", "k", 1], ["again", 1], ["tail"]):
        a, b = mark_at(fast, path), mark_at(slow, path)
        assert (a.line, a.column) == (b.line, b.column)


def test_fast_lists_count_for_the_alias_budget():
    text = "a: &A " + _flow([float(i) + 0.5 for i in range(3000)]) + "\nb: [*A, *A, *A]\n"
    lim = YamlLimits(max_alias_nodes=8000)
    with pytest.raises(SpvError) as fast:
        load_yaml(text, "t.yaml", lim)
    with pytest.raises(SpvError) as slow:
        _compose(text, "t.yaml", lim, True)
    assert str(fast.value) == str(slow.value)
    assert "past 8000 extra nodes" in str(fast.value)
    assert load_yaml(text, "t.yaml", YamlLimits(max_alias_nodes=9003))["b"][2][2999] == 2999.5


@pytest.mark.parametrize("text", [
    "a: " + _flow([0.5] * 3000)[:-1] + "\n",                                        # unclosed
    "a: " + _flow([0.5] * 3000) + "\nb: [1, 2\n",                                   # error after it
    "a: " + _flow([0.5] * 3000) + "\na: 1\n",                                      # duplicate key
    "s: '" + _flow([0.5] * 3000) + "'\nb: {\n",                                    # inside a quoted scalar
    "s: |\n  " + _flow([0.5] * 3000).replace("\n", "\n  ") + "\nb: [\n",           # inside a block scalar
])
def test_errors_come_from_the_general_path_at_their_place(text):
    with pytest.raises(SpvError) as fast:
        load_yaml(text, "t.yaml")
    with pytest.raises(SpvError) as slow:
        _compose(text, "t.yaml", YamlLimits.default(), True)
    assert str(fast.value) == str(slow.value)


def test_a_numeric_list_inside_a_string_stays_a_string():
    body = _flow([1.5] * 3000)
    for text in (f"s: '{body}'\n", f"s: \"{body}\"\n", "s: |\n  " + body.replace("\n", "\n  ") + "\n"):
        assert load_yaml(text, "t.yaml") == _compose(text, "t.yaml", YamlLimits.default(), True)
        assert isinstance(load_yaml(text, "t.yaml")["s"], str)


# ---- encode / decode ------------------------------------------------------------------------------
ASM = """
OpCapability Shader
OpCapability Float16
OpCapability Float64
OpCapability Int8
OpCapability Int16
OpCapability Int64
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %rt ArrayStride {stride}
OpMemberDecorate %Block 0 Offset 0
OpDecorate %Block Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%elem = {elem}
%rt = OpTypeRuntimeArray %elem
%Block = OpTypeStruct %rt
%ptr = OpTypePointer StorageBuffer %Block
%buf = OpVariable %ptr StorageBuffer
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
"""

ELEMS = {  # type, element size, stride (vec3: padded)
    "f16": ("OpTypeFloat 16", 2), "f32": ("OpTypeFloat 32", 4), "f64": ("OpTypeFloat 64", 8),
    "i8": ("OpTypeInt 8 1", 1), "u8": ("OpTypeInt 8 0", 1), "i16": ("OpTypeInt 16 1", 2),
    "u32": ("OpTypeInt 32 0", 4), "i32": ("OpTypeInt 32 1", 4), "i64": ("OpTypeInt 64 1", 8),
    "u64": ("OpTypeInt 64 0", 8),
}


def _block_type(elem: str, vec: int = 0):
    from spvcoop.interp.program import Program
    from spvcoop.asm.assembler import assemble
    decl, size = ELEMS[elem]
    stride = size * (4 if vec == 3 else max(vec, 1))
    text = ASM.format(stride=stride, elem=decl if not vec else f"OpTypeVector %s {vec}")
    if vec:
        text = text.replace("%elem = OpTypeVector %s", f"%s = {decl}\n%elem = OpTypeVector %s")
    prog = Program(assemble(text, "t.spvasm"))
    var = next(i for i in prog.globals if i.opname == "OpVariable")
    return prog.types[var.result_type].elem


def _slow_encode(t, data):
    """encode with the array batching off (the per-element path)."""
    old = dataio.BATCH
    dataio.BATCH = 1 << 62
    try:
        return dataio.encode(t, data, "b", "t", {})
    finally:
        dataio.BATCH = old


def _slow_decode(t, raw):
    old = dataio.BATCH
    dataio.BATCH = 1 << 62
    try:
        return dataio.decode(t, raw)
    finally:
        dataio.BATCH = old


def _data(elem: str, rng, n: int, vec: int):
    shape = (n, vec) if vec else (n,)
    if elem.startswith("f"):
        v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3, shape)
        return [[float(x) for x in r] for r in v] if vec else [float(x) for x in v]
    bits = int(elem[1:])
    lo = -(1 << (bits - 1)) if elem[0] == "i" else 0
    v = rng.integers(lo, (1 << (bits - 1)) - 1, shape, endpoint=True)
    return [[int(x) for x in r] for r in v] if vec else [int(x) for x in v]


@pytest.mark.parametrize("elem", sorted(ELEMS))
@pytest.mark.parametrize("vec", [0, 2, 3])
def test_encode_decode_in_one_go_as_element_by_element(elem, vec):
    rng = np.random.default_rng(len(elem) * 10 + vec)
    t = _block_type(elem, vec)
    data = {"m0": _data(elem, rng, 3000, vec)}
    raw = dataio.encode(t, data, "b", "t", {})
    assert raw == _slow_encode(t, data)
    got = dataio.decode(t, raw)
    want = _slow_decode(t, raw)
    assert got == want
    assert type(got["m0"]) is dataio.NumList and type(want["m0"]) is list
    # the YAML reader's typed array gives the same bytes as the list
    text = "m0: " + (_flow(data["m0"]) if not vec else "[" + ", ".join(_flow(r) for r in data["m0"]) + "]") + "\n"
    assert dataio.encode(t, load_yaml(text, "t.yaml"), "b", "t", {}) == raw


@pytest.mark.parametrize("bad, msg", [
    (lambda v: v[:5] + [1.5] + v[6:], "b.m0[5]: value 1.5 does not fit type i32: not a whole number"),
    (lambda v: v[:7] + [2**40] + v[8:], "b.m0[7]: value 1099511627776 does not fit type i32: out of range for 32"),
    (lambda v: v[:9] + ["x"] + v[10:], "b.m0[9]: value 'x' does not fit type i32"),
])
def test_encode_errors_name_the_element(bad, msg):
    t = _block_type("i32")
    data = {"m0": bad(list(range(3000)))}
    with pytest.raises(SpvError) as e:
        dataio.encode(t, data, "b", "t", {})
    assert msg in str(e.value)
    with pytest.raises(SpvError) as e2:
        _slow_encode(t, data)
    assert str(e.value) == str(e2.value)


def test_encode_floats_for_int_types_and_wrapping():
    t = _block_type("u32")
    data = {"m0": [float(i) for i in range(-100, 2900)]}
    assert dataio.encode(t, data, "b", "t", {}) == _slow_encode(t, data)
    t = _block_type("u64")
    data = {"m0": [2**64 - 1, 2**63] + list(range(2000))}
    assert dataio.encode(t, data, "b", "t", {}) == _slow_encode(t, data)


@pytest.mark.parametrize("seed", range(60))
def test_mutated_numeric_lists_read_as_the_general_path(seed):
    """A long list of numbers with a few characters changed (to signs, points, exponents, zeros,
    commas, spaces, newlines): whatever YAML 1.1 makes of it, the fast reader makes the same."""
    rng = np.random.default_rng(seed)
    vals = [float(x) for x in rng.standard_normal(500) * 10.0 ** rng.integers(-8, 8, 500)]
    if seed % 3 == 0:
        vals = [int(x) for x in rng.integers(-10**6, 10**6, 500)]
    body = _flow(vals)
    chars = list(body)
    alphabet = "0123456789-+.eE, \n"
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(1, len(chars) - 1))
        chars[i] = alphabet[int(rng.integers(0, len(alphabet)))]
    text = "v: " + "".join(chars) + "\nw: 1\n"
    try:
        want = _compose(text, "t.yaml", YamlLimits.default(), True)
    except SpvError as e:
        with pytest.raises(SpvError) as got:
            load_yaml(text, "t.yaml")
        assert str(got.value) == str(e)
        return
    got = load_yaml(text, "t.yaml")
    assert got == want and _types(got) == _types(want)


# ---- whole runs -----------------------------------------------------------------------------------
def test_saxpy_with_long_lists_in_and_out(tmp_path, capsys):
    """SPIRV-Interpreter-style input of 5000 floats, YAML and JSON output, --check: the values the
    shader computes, read back exactly from the fast layout."""

    from spvcoop.cli import main
    shader = REPO / "samples" / "saxpy" / "saxpy.spvasm"
    n = 5000
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    (tmp_path / "in.yaml").write_text(f"pc: {{a: 2.0, n: {n}}}\nx: {_flow(short_floats(x))}\n"
                                      f"y: {_flow(short_floats(y))}\n")
    want = np.float32(2) * x + y
    for out in ("out.yaml", "out.json"):
        rc = main(["run", str(shader), "--input", str(tmp_path / "in.yaml"), "--dispatch", f"{-(-n // 64)},1,1",
                   "-o", str(tmp_path / out)])
        assert rc == 0
        text = (tmp_path / out).read_text()
        got = json.loads(text) if out.endswith(".json") else load_yaml(text, out)
        assert np.array_equal(np.array(got["y"], np.float32), want)
        assert np.array_equal(np.array(got["x"], np.float32), x)
    (tmp_path / "exp.yaml").write_text(f"y: {_flow(short_floats(want))}\n")
    rc = main(["run", str(shader), "--input", str(tmp_path / "in.yaml"), "--dispatch", f"{-(-n // 64)},1,1",
               "--check", str(tmp_path / "exp.yaml"), "--check-floats", "tolerance", "--rtol", "0", "--atol", "0"])
    assert rc == 0
    bad = want.copy()
    bad[4321] += 1
    (tmp_path / "exp.yaml").write_text(f"y: {_flow(short_floats(bad))}\n")
    rc = main(["run", str(shader), "--input", str(tmp_path / "in.yaml"), "--dispatch", f"{-(-n // 64)},1,1",
               "--check", str(tmp_path / "exp.yaml"), "--check-floats", "tolerance", "--rtol", "0", "--atol", "0"])
    assert rc == 1
    assert "y[4321]" in capsys.readouterr().err


def test_run_spec_data_lists_as_the_general_path(tmp_path):
    from pathlib import Path

    from spvcoop.runspec.spec import generate
    vals = [float(x) for x in np.random.default_rng(3).standard_normal(3000)]
    text = (f"b: {{data: {_flow(vals)}, dtype: float16}}\n"
            f"c: {{data: {_flow([int(v * 100) for v in vals])}, dtype: int8}}\n")
    fast = load_yaml(text, "s.yaml")
    slow = _compose(text, "s.yaml", YamlLimits.default(), True)
    got = generate(fast["b"], "b", Path(tmp_path), "s.yaml")
    assert got.dtype == np.float16 and np.array_equal(got, generate(slow["b"], "b", Path(tmp_path), "s.yaml"))
    with pytest.raises(SpvError) as e1:
        generate(fast["c"], "c", Path(tmp_path), "s.yaml", mark=mark_at(fast, ["c"]))
    with pytest.raises(SpvError) as e2:
        generate(slow["c"], "c", Path(tmp_path), "s.yaml", mark=mark_at(slow, ["c"]))
    assert str(e1.value) == str(e2.value) and "does not fit int8" in str(e1.value)


def test_si_check_compares_the_stored_values():
    """An expected value equal to the f32 result passes at 6 digits and at zero tolerance, also where the
    result's shortest decimal (2.778565) and its f32 value (2.7785649...) round apart at 6 digits."""
    from spvcoop.runspec.sicompat import CheckOptions, _compare_numbers
    from spvcoop.interp.types import Type
    f32 = Type(0, "float", width=32)
    got = np.array([2.778565, -1.416855, 1.980535], np.float32)
    want = [float(str(v)) for v in got]
    for opts in (CheckOptions(), CheckOptions(digits=False, rtol=0, atol=0)):
        lines: list[str] = []
        assert _compare_numbers(f32, short_floats(got), want, "y", lines, opts) == 0, lines
    lines = []
    assert _compare_numbers(f32, short_floats(got), [2.77858, -1.416855, 1.980535], "y", lines,
                            CheckOptions()) == 1
    assert lines == ["y[0]: expected 2.77858, got 2.778565 (not equal at 6 significant digits, f32)"]


def test_flat_wrap_is_the_list_wrap() -> None:
    """runspec._wrap_flat (one byte matrix) against runspec._wrap (a list of tokens), on token arrays of
    many widths, lengths and indents, lines of one token and lines of many."""
    from spvcoop.runspec.spec import _wrap, _wrap_flat
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 7, 8, 9, 100, 1001):
        for maxlen in (1, 3, 12, 40, 120):
            digits = list(b"0123456789.-e+")
            toks = np.array([rng.choice(digits, rng.integers(1, maxlen + 1)).astype(np.uint8).tobytes()
                             for _ in range(n)], "S")
            for indent in (0, 2, 4, 10, 99, 150):
                assert _wrap_flat(toks, indent) == _wrap(toks.tolist(), indent), (n, maxlen, indent)

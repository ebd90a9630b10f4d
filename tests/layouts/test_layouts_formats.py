"""The description formats (table, formula, iree, cute, linear) agree with each other and
with the sources, the expression language is safe and exact, round trips hold, and bad
model files give file:line errors."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spvcoop.core.diagnostics import SpvError
from spvcoop.layouts import Layout, LayoutError, load_model, parse_model
from spvcoop.layouts.expr import ExprError, compile_expr
from spvcoop.layouts.model import MODELS_DIR
from spvcoop.layouts.render import to_html, to_json, to_svg, to_table, to_yaml_model


def one(entry_yaml: str, S: int = 32) -> str:
    return f"name: t\nsubgroup_size: {S}\nentries:\n" + entry_yaml


def ptx_a(lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane & 3
    return (g + (8 if i in (2, 3, 6, 7) else 0), 2 * t + (i & 1) + (8 if i >= 4 else 0))


PTX_A = [[ptx_a(lane, i) for i in range(8)] for lane in range(32)]

FORMS = {
    "formula": """  - name: f
    components: [f16]
    rows: 16
    cols: 16
    use: a
    formula:
      length: 8
      vars: {g: "lane >> 2", t: "lane & 3"}
      row: "g + 8 * ((i >> 1) & 1)"
      col: "2 * t + (i & 1) + 8 * ((i >> 2) & 1)"
""",
    "cute": """  - name: c
    components: [f16]
    rows: 16
    cols: 16
    use: a
    cute: "((4,8),(2,2,2)):((32,1),(16,8,128))"
""",
    "linear": """  - name: l
    components: [f16]
    rows: 16
    cols: 16
    use: a
    linear: {register: [[0, 1], [8, 0], [0, 8]], lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}
""",
    "table": "  - name: t\n    components: [f16]\n    rows: 16\n    cols: 16\n    use: a\n    table:\n" + "".join(
        "      - " + json.dumps([list(x) for x in lane]) + "\n" for lane in PTX_A),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_format_describes_ptx_a(form):
    lay = parse_model(one(FORMS[form]), f"<{form}>").layout("f16", 16, 16, "a")
    assert lay.lanes() == PTX_A


def test_iree_nv_mma_sync_lhs_is_the_h100_order():
    text = one("""  - name: i
    components: [f16]
    rows: 16
    cols: 16
    use: a
    iree: {outer: [2, 2], thread: [8, 4], tstrides: [4, 1], element: [1, 2]}
""")
    lay = parse_model(text, "<iree>").layout("f16", 16, 16, "a")
    assert lay.same_as(load_model("nvidia").layout("f16", 16, 16, "a"))


def test_cute_thr_id_volta_quad_pair():
    """SM70_8x8_32b with ThrID (4,2):(1,16) gives the PTX m8n8k4 f32 C table (8 lanes, others padding)."""
    text = one("""  - name: v
    components: [f32]
    rows: 8
    cols: 8
    use: acc
    cute: {layout: "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", thr_id: "(4,2):(1,16)"}
""")
    lanes = parse_model(text, "<cute>").layout("f32", 8, 8, "acc").lanes()
    assert lanes[0] == [(0, 0), (0, 1), (2, 0), (2, 1), (0, 4), (0, 5), (2, 4), (2, 5)]
    assert lanes[2] == [(0, 2), (0, 3), (2, 2), (2, 3), (0, 6), (0, 7), (2, 6), (2, 7)]
    assert lanes[16] == [(4, 0), (4, 1), (6, 0), (6, 1), (4, 4), (4, 5), (6, 4), (6, 5)]
    assert lanes[19] == [(5, 2), (5, 3), (7, 2), (7, 3), (5, 6), (5, 7), (7, 6), (7, 7)]
    assert lanes[4] == [None] * 8


@pytest.mark.parametrize("model,comp,R,C,use", [("nvidia", "f16", 16, 16, "a"), ("nvidia", "u8", 32, 16, None),
                                                ("amd-rdna3-wmma", "f16", 16, 16, "a"),
                                                ("tinytc", "f32", 4, 15, "acc"), ("striped", "f32", 3, 5, "acc")])
def test_table_yaml_round_trip(model, comp, R, C, use):
    m = load_model(model)
    lay = m.layout(comp, R, C, use, m.default_subgroup_size or 8)
    text = to_yaml_model("rt", "round trip", [{"component": comp, "rows": R, "cols": C, "use": use,
                                               "subgroup_size": lay.subgroup_size, "lanes": lay.lanes()}])
    back = parse_model(text, "<rt>").layout(comp, R, C, use, lay.subgroup_size)
    assert back.same_as(lay) and back.replicated == lay.replicated


def test_json_format_exact_schema():
    lay = load_model("tinytc").layout("f32", 1, 17, "acc", 16)
    obj = json.loads(to_json(lay))
    assert list(obj) == ["model", "component", "rows", "cols", "use", "subgroup_size", "length", "lanes"]
    assert obj["model"] == "tinytc" and obj["use"] == "acc" and obj["length"] == 2
    assert obj["lanes"][0] == [[0, 0], [0, 16]] and obj["lanes"][1] == [[0, 1], None]
    rebuilt = [[None if x is None else tuple(x) for x in lane] for lane in obj["lanes"]]
    assert rebuilt == lay.lanes()
    nv = json.loads(to_json(load_model("nvidia").layout("f16", 8, 8)))
    assert nv["use"] is None


def test_table_format_seed_style():
    text = to_table(load_model("tinytc").layout("f32", 4, 15, "acc", 16))
    lines = text.splitlines()
    assert lines[1].split()[:4] == ["i", "|", "p0", "p1"]
    assert lines[3].split()[:4] == ["0", "|", "0,0", "1,0"]
    assert lines[6].split()[-1] == "-,-"          # p15, index 3 is padding


def test_svg_and_html_are_well_formed():
    lay = load_model("amd-rdna3-wmma").layout("f16", 16, 16, "a")
    root = ET.fromstring(to_svg(lay))
    assert root.tag.endswith("svg")
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "0:0" in labels and "16:0" in labels      # element (0,0): invocations 0 and 16, index 0
    rects = list(root.iter("{http://www.w3.org/2000/svg}rect"))
    assert len(rects) == 256 + 32                        # the cells, then the legend's swatches
    html = to_html(lay)
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "</html>" in html


def _lab(hex_colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour, for the distance people see."""
    lin = []
    for k in (1, 3, 5):
        c = int(hex_colour[k:k + 2], 16) / 255
        lin.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = lin
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    fx, fy, fz = (v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _luminance(hex_colour: str) -> float:
    lin = [(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
           for c in (int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5))]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_32_invocations_get_colours_people_tell_apart():
    """A 32-wide layout's SVG fills its cells with 32 colours, any two at least dE 20 apart in CIELAB (about 2.3
    is a just-noticeable difference), each with black text readable on it (contrast >= 7:1), plus the legend."""
    lay = load_model("nvidia").layout("f16", 16, 16, "a")
    root = ET.fromstring(to_svg(lay))
    ns = "{http://www.w3.org/2000/svg}"
    cells = [r.get("fill") for g in root.iter(f"{ns}g") if g.find(f"{ns}title") is not None
             for r in g.iter(f"{ns}rect")]
    fills = sorted(set(cells))
    assert len(fills) == 32
    labs = [_lab(f) for f in fills]
    closest = min(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5
                  for i, a in enumerate(labs) for b in labs[i + 1:])
    assert closest >= 20, closest
    assert min((_luminance(f) + 0.05) / 0.05 for f in fills) >= 7
    legend = next(g for g in root.iter(f"{ns}g") if g.get("class") == "legend")
    assert [t.text for t in legend.iter(f"{ns}text")] == ["invocation"] + [str(p) for p in range(32)]


def test_pictures_have_axis_titles_and_fit_the_page():
    lay = load_model("nvidia").layout("f16", 16, 16, "a")
    svg = to_svg(lay)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "row" in texts and "column" in texts
    w, h = root.get("width"), root.get("height")
    assert root.get("viewBox") == f"0 0 {w} {h}"               # scalable
    html = to_html(lay)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "svg{max-width:100%;height:auto" in html and "pre{font-size:11px;overflow-x:auto" in html


def test_from_lanes_and_to_lanes():
    lay = load_model("amd-rdna3-wmma").layout("f32", 16, 16, "acc")
    m = np.arange(256, dtype=np.float32).reshape(16, 16)
    v = lay.to_lanes(m)
    assert v.shape == (32, 8) and v[16, 0] == m[1, 0]
    assert np.array_equal(lay.from_lanes(v), m)


def test_replicated_writes_must_agree():
    lay = load_model("amd-rdna3-wmma").layout("f16", 16, 16, "a")
    m = np.arange(256, dtype=np.float32).reshape(1, 16, 16)
    v = lay.to_lanes(m)
    assert np.array_equal(lay.from_lanes(v), m)
    v[0, 16, 3] = -1.0                   # a copy of element (0,3) changed alone
    with pytest.raises(LayoutError, match=r"replicated copies of element \(0,3\)"):
        lay.from_lanes(v)
    v[0, 0, 3] = -1.0                    # now both copies agree
    assert lay.from_lanes(v)[0, 0, 3] == -1.0


def test_padding_reads_zero():
    lay = load_model("tinytc").layout("f32", 1, 17, "acc", 16)
    v = lay.to_lanes(np.ones((1, 17), dtype=np.float32))
    assert v[1, 1] == 0 and v[0, 1] == 1


# ---------------------------------------------------------------- expression language

_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
        "<<": lambda a, b: a << (b & 7), ">>": lambda a, b: a >> (b & 7),
        "/": lambda a, b: a // b if b else None, "%": lambda a, b: a % b if b else None}

exprs = st.deferred(lambda: st.one_of(
    st.integers(0, 50).map(lambda n: (str(n), lambda env, n=n: n)),
    st.sampled_from(["lane", "i"]).map(lambda v: (v, lambda env, v=v: env[v])),
    st.tuples(exprs, st.sampled_from(sorted(_OPS)), exprs).map(_combine)))


_BIG = object()   # an intermediate beyond int64 range: numpy wraps, Python does not; not compared


def _combine(t):
    (ta, fa), op, (tb, fb) = t
    text = f"({ta} {op} (({tb}) & 7))" if op in ("<<", ">>") else f"({ta} {op} {tb})"

    def f(env):
        a, b = fa(env), fb(env)
        if a is None or b is None:
            return None
        if a is _BIG or b is _BIG:
            return _BIG
        r = _OPS[op](a, b)
        return _BIG if r is not None and abs(r) > 2 ** 60 else r
    return (text, f)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(exprs, st.integers(0, 63), st.integers(0, 31))
def test_expressions_match_python_integers(expr, lane, i):
    text, ref = expr
    want = ref({"lane": lane, "i": i})
    e = compile_expr(text)
    if want is _BIG:
        return
    if want is None:
        with pytest.raises(ExprError, match="division by zero"):
            e.evaluate({"lane": lane, "i": i})
    else:
        assert int(e.evaluate({"lane": lane, "i": i})) == want


def test_expression_seed_example_and_functions():
    e = compile_expr("((i & 2) << 2) + ((tid & 28) >> 2)")
    assert e.names == {"i", "tid"}
    assert int(e.evaluate({"i": 2, "tid": 28})) == 15
    assert int(compile_expr("c > 1 ? max(1, 2 / b) : 1").evaluate({"c": 2, "b": 1})) == 2
    assert int(compile_expr("cdiv(17, 16) + pow2(64) + pow2(12) + log2(32) + min(3, -4) + abs(-2)")
               .evaluate({})) == 2 + 1 + 0 + 5 - 4 + 2
    assert int(compile_expr("!0 && (1 || 0) && 3 != 4 && 2 <= 2 && ~0 == -1").evaluate({})) == 1
    assert int(compile_expr("0x10").evaluate({})) == 16


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "lane.__class__", "[1, 2]", "1 +",
                                  "lambda: 1", "open('x')", "1 if 2 else 3", "a = 1"])
def test_expressions_are_not_python(text):
    with pytest.raises(ExprError):
        compile_expr(text).evaluate({"lane": 1, "a": 1})


# ---------------------------------------------------------------- errors name file and line

BAD = [
    ("name: t\nentries: [\n", 3, "invalid YAML"),
    ("name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    rows: 16\n    cols: 16\n    colour: red\n"
     "    striped: {}\n", 7, "unknown key 'colour'"),
    ("name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    rows: 16\n    cols: 16\n    formula:\n"
     "      length: 8\n      row: \"lane >> \"\n      col: \"i\"\n", 9, "entry 'e': row: syntax error"),
    ("name: t\nsubgroup_size: 4\nentries:\n  - name: short\n    components: [f32]\n    rows: 2\n    cols: 2\n"
     "    table:\n      - [[0, 0]]\n      - [[0, 1], [1, 1]]\n      - [[1, 0]]\n      - [null]\n", 10,
     "same length"),
    ("name: t\nsubgroup_size: 4\nentries:\n  - name: hole\n    components: [f32]\n    rows: 2\n    cols: 2\n"
     "    table:\n      - [[0, 0]]\n      - [[0, 1]]\n      - [[1, 0]]\n      - [null]\n", 4,
     r"entry 'hole'.*element \(1,1\) is held by no invocation"),
    ("name: t\nsubgroup_size: 4\nentries:\n  - name: out\n    components: [f32]\n    rows: 2\n    cols: 2\n"
     "    table:\n      - [[0, 0]]\n      - [[0, 1]]\n      - [[1, 0]]\n      - [[1, 2]]\n", 4,
     r"invocation 3 index 0 holds \(1,2\), outside the 2x2 matrix"),
    ("name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    components: [f17]\n    striped: {}\n", 5,
     "unknown component 'f17'"),
    ("name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    rows: 16\n    cols: 16\n    components: [f16]\n"
     "    iree: {outer: [1, 1], thread: [16, 4], tstrides: [1, 16], element: [1, 2]}\n", 4,
     "outer\\*thread\\*element = 16x8"),
    ("name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    cute: \"((4,8),(2,2):((32,1),(16,8))\"\n", 5,
     "malformed CuTe"),
    ("name: t\nentries:\n  - name: a\n    striped: {}\n    table: []\n", 3, "exactly one description"),
]


@pytest.mark.parametrize("text,line,message", BAD)
def test_bad_model_files_name_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SpvError) as info:
        load_model(str(path))
    d = info.value.diagnostics[0]
    assert d.source == str(path)
    assert d.span is not None and d.span.line == line, d.headline()
    assert __import__("re").search(message, d.message), d.message
    assert d.headline().startswith(f"{path}:{line}:")


def test_open_ended_entry_errors_at_build_time_name_the_entry(tmp_path):
    path = tmp_path / "lazy.yaml"
    path.write_text("name: t\nsubgroup_size: 32\nentries:\n  - name: wrong\n    components: any\n"
                    "    formula: {length: 1, row: \"lane\", col: \"0\"}\n")
    m = load_model(str(path))
    assert m.layout("f32", 32, 1, "acc").length == 1
    with pytest.raises(LayoutError) as info:
        m.layout("f32", 8, 1, "acc")
    d = info.value.diagnostics[0]
    assert d.span.line == 4 and "entry 'wrong'" in d.message and "outside the 8x1 matrix" in d.message


def test_unknown_model_suggests():
    with pytest.raises(LayoutError, match="did you mean 'nvidia'"):
        load_model("nvidea")


def test_layout_object_api():
    lay = load_model("nvidia").layout("f16", 16, 16, "acc")
    assert isinstance(lay, Layout)
    assert lay.row.shape == (32, 8) and lay.row.dtype.kind == "i"
    assert lay.flat[0, 2] == 8 and not lay.padding.any()
    assert load_model("nvidia").layout("f16", 16, 16, "C").same_as(lay)
    assert not lay.row.flags.writeable and not lay.col.flags.writeable   # cached layouts are shared


_MODEL_TEXTS = sorted(p.read_text() for p in MODELS_DIR.glob("*.yaml"))


@pytest.mark.slow
@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.sampled_from(_MODEL_TEXTS), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6),
                                                         st.sampled_from(list("[]{}:,-0 \"'&*#?!|x") + [""])),
                                               min_size=1, max_size=3))
def test_mutated_model_files_fail_cleanly(text, edits):
    """Damaged model files either load or raise SpvError (a diagnostic), never another exception."""
    for pos, cut, ch in edits:
        pos %= len(text) + 1
        text = text[:pos] + ch + text[pos + (cut % 3):]
    try:
        m = parse_model(text, "<mutated>")
        for t in m.types()[:3]:
            m.layout(*t)
    except SpvError as e:
        assert e.diagnostics and e.diagnostics[0].message


@pytest.mark.parametrize("value", ['"lane +* 2"', "lane +* 2", "'lane +* 2'"])
def test_expression_error_column_points_at_the_token(tmp_path, value):
    path = tmp_path / "col.yaml"
    line = f"      row: {value}"
    path.write_text("name: t\nsubgroup_size: 32\nentries:\n  - name: e\n    components: [f16]\n    formula:\n"
                    f"      length: 8\n{line}\n      col: i\n")
    with pytest.raises(SpvError) as info:
        load_model(str(path))
    span = info.value.diagnostics[0].span
    assert span.line == 8 and line[span.col - 1] == "*"


def test_component_names_from_scalar_types():
    from spvcoop.layouts import component_name
    assert component_name("float", 16) == "f16" and component_name("float", 64) == "f64"
    assert component_name("float", 16, encoding="BFloat16KHR") == "bf16"
    assert component_name("int", 8, signed=True) == "s8" and component_name("int", 32) == "u32"
    # FP8 has layout components now (SPV_EXT_float8 matrices run in the interpreter)
    assert component_name("float", 8, encoding="Float8E4M3EXT") == "e4m3"
    assert component_name("float", 8, encoding="Float8E5M2EXT") == "e5m2"
    for bad in (("float", 8, False, None), ("int", 4, False, None), ("bool", 1, False, None)):
        with pytest.raises(LayoutError):
            component_name(*bad)


_LINES = sorted({ln for text in _MODEL_TEXTS for ln in text.splitlines()})
_VALUES = ["[]", "{}", "null", "-1", "0", "1.5", "any", "true", "[[1, 2]]", "{a: 1}", "'lane >> 99'", '"1/0"',
           "[f16, {x: 1}]", "65536", "[0, 0]", "{multiple_of: 0}"]


@pytest.mark.slow
@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.sampled_from(_MODEL_TEXTS),
       st.lists(st.tuples(st.integers(0, 10 ** 4), st.integers(0, 2), st.sampled_from(_LINES),
                          st.sampled_from(_VALUES)), min_size=1, max_size=3))
def test_structurally_mutated_model_files_fail_cleanly(text, edits):
    """Lines inserted, deleted or given odd values: a model or an SpvError, never another exception."""
    lines = text.splitlines()
    for k, op, line, value in edits:
        k %= len(lines)
        if op == 0:
            lines.insert(k, line)
        elif op == 1 and len(lines) > 1:
            del lines[k]
        elif ":" in lines[k]:
            lines[k] = lines[k].split(":")[0] + ": " + value
    try:
        m = parse_model("\n".join(lines), "<mutated>")
        for t in m.types()[:3]:
            m.layout(*t)
    except SpvError as e:
        assert e.diagnostics and e.diagnostics[0].message


def test_wider_subgroups_hatch_the_second_32_invocations():
    """At subgroup size 64 invocation p + 32 shares p's colour, so its cells (and legend swatch) are also hatched."""
    lay = load_model("amd-cdna3-mfma").layout("f16", 16, 16, "a")
    root = ET.fromstring(to_svg(lay))
    ns = "{http://www.w3.org/2000/svg}"
    assert root.find(f"{ns}defs/{ns}pattern[@id='hatch']") is not None
    held = {}
    for g in root.iter(f"{ns}g"):
        t = g.find(f"{ns}title")
        if t is not None and "invocation" in (t.text or ""):
            p = int(t.text.split("invocation ")[1].split()[0])
            held[p] = [r.get("fill") for r in g.iter(f"{ns}rect")]
    assert held[0] == [held[32][0]] and held[32][1] == "url(#hatch)"
    assert len(set(map(tuple, held.values()))) == 64

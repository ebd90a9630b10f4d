"""Pictures and text of a layout: the seed documents' table, JSON, SVG and HTML, and YAML tables.

`table`: one column per invocation, one row per element index, cells `row,col`
(`-,-` for padding). `json`: the object of Layout.to_json(). `svg`: the matrix with
each cell coloured by the invocation that holds it and labelled `p:i` (invocation,
index); replicated elements list every holder. `html`: the SVG and the table in one page.
"""
from __future__ import annotations

import colorsys
import json
import re
from html import escape

from .layout import Layout


def title(lay: Layout) -> str:
    use = f" use {lay.use}" if lay.use else " (no use)"
    return (f"{lay.model}: {lay.component} {lay.rows}x{lay.cols}{use}, subgroup size {lay.subgroup_size}, "
            f"length {lay.length}" + (", replicated" if lay.replicated else ""))


def to_table(lay: Layout) -> str:
    cells = [[("-,-" if r < 0 else f"{r},{c}") for r, c in zip(rr, cc)]
             for rr, cc in zip(lay.row.T.tolist(), lay.col.T.tolist())]   # [i][p]
    heads = [f"p{p}" for p in range(lay.subgroup_size)]
    width = max(max(len(h) for h in heads), max(len(x) for row in cells for x in row))
    iw = max(1, len(str(lay.length - 1)))
    lines = [title(lay),
             f"{'i':>{iw}} | " + " ".join(f"{h:>{width}}" for h in heads),
             "-" * (iw + 1) + "+" + "-" * ((width + 1) * len(heads))]
    for i, row in enumerate(cells):
        lines.append(f"{i:>{iw}} | " + " ".join(f"{x:>{width}}" for x in row))
    return "\n".join(lines) + "\n"


def to_json(lay: Layout) -> str:
    return json.dumps(lay.to_json(), separators=(", ", ": ")) + "\n"


def colour(p: int, S: int) -> str:
    """A distinct, light colour per invocation (golden-ratio hue walk)."""
    h = (p * 0.618033988749895) % 1.0
    r, g, b = colorsys.hls_to_rgb(h, 0.78, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def to_svg(lay: Layout, cell: int = 44) -> str:
    holders: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for p, lane in enumerate(lay.lanes()):
        for i, rc in enumerate(lane):
            if rc is not None:
                holders.setdefault(rc, []).append((p, i))
    margin_l, margin_t = 34, 48
    w = margin_l + lay.cols * cell + 8
    h = margin_t + lay.rows * cell + 8
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'font-family="monospace">',
           f"<title>{escape(title(lay))}</title>",
           f'<text x="4" y="16" font-size="13">{escape(title(lay))}</text>',
           f'<text x="4" y="32" font-size="10">cell label p:i = invocation p holds it as element i</text>']
    for c in range(lay.cols):
        out.append(f'<text x="{margin_l + c * cell + cell / 2}" y="{margin_t - 4}" font-size="10" '
                   f'text-anchor="middle">{c}</text>')
    for r in range(lay.rows):
        y = margin_t + r * cell
        out.append(f'<text x="{margin_l - 4}" y="{y + cell / 2 + 3}" font-size="10" text-anchor="end">{r}</text>')
        for c in range(lay.cols):
            x = margin_l + c * cell
            hs = holders.get((r, c), [])
            fill = colour(hs[0][0], lay.subgroup_size) if hs else "#ffffff"
            tip = ", ".join(f"invocation {p} element {i}" for p, i in hs) or "not held"
            out.append(f'<g><title>({r},{c}): {escape(tip)}</title>'
                       f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#555" '
                       f'stroke-width="0.5"/>')
            lines = [f"{p}:{i}" for p, i in hs[:3]] + (["+%d" % (len(hs) - 3)] if len(hs) > 3 else [])
            for k, text in enumerate(lines):
                ty = y + cell / 2 + 4 + (k - (len(lines) - 1) / 2) * 11
                out.append(f'<text x="{x + cell / 2}" y="{ty:.1f}" font-size="10" text-anchor="middle">'
                           f'{escape(text)}</text>')
            out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_html(lay: Layout) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title(lay))}</title>"
            "<style>body{font-family:sans-serif;margin:1em} pre{font-size:11px}</style></head><body>\n"
            f"<h1>{escape(title(lay))}</h1>\n{to_svg(lay)}"
            "<h2>Per-invocation table (column = invocation, row = element index)</h2>\n"
            f"<pre>{escape(to_table(lay))}</pre>\n</body></html>\n")


def to_yaml_model(name: str, description: str, entries: list[dict]) -> str:
    """A model file of table entries: [{'component','rows','cols','use','subgroup_size','lanes'}]."""
    def flow(lane):
        return "[" + ", ".join("null" if x is None else f"[{x[0]}, {x[1]}]" for x in lane) + "]"
    out = [f"name: {json.dumps(name)}", f"description: {json.dumps(description)}"]
    sizes = {e["subgroup_size"] for e in entries}
    if len(sizes) == 1:
        out.append(f"subgroup_size: {sizes.pop()}")
    out.append("entries:")
    for e in entries:
        use = "none" if e["use"] is None else e["use"]
        out += [f"  - name: {json.dumps(e.get('name') or (e['component'] + '-' + str(e['rows']) + 'x' + str(e['cols']) + '-' + use))}",
                f"    components: [{e['component']}]",
                f"    rows: {e['rows']}", f"    cols: {e['cols']}", f"    use: {use}",
                f"    subgroup_size: {e['subgroup_size']}", "    table:"]
        out += [f"      - {flow(lane)}" for lane in e["lanes"]]
    return "\n".join(out) + "\n"


FORMATS = {"table": to_table, "json": to_json, "svg": to_svg, "html": to_html}


_TITLE = re.compile(r"^(?P<model>.*): (?P<component>[a-z0-9]+) (?P<rows>\d+)x(?P<cols>\d+)"
                    r"(?: use (?P<use>a|b|acc)| \(no use\)), subgroup size (?P<S>\d+), length (?P<L>\d+)")


def parse_table(text: str) -> dict:
    """Read back `to_table` output: {'component','rows','cols','use','subgroup_size','lanes'} (ValueError)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    m = _TITLE.match(lines[0]) if lines else None
    if not m or len(lines) < 3:
        raise ValueError("not a layout table: the first line must read 'MODEL: T RxC use U, subgroup size S, ...'")
    S, L = int(m["S"]), int(m["L"])
    heads = lines[1].split("|", 1)[1].split()
    if heads != [f"p{p}" for p in range(S)]:
        raise ValueError(f"the header must name invocations p0..p{S - 1}")
    body = lines[3:]
    if len(body) != L:
        raise ValueError(f"expected {L} element rows, found {len(body)}")
    lanes: list[list] = [[] for _ in range(S)]
    for i, ln in enumerate(body):
        idx, cells = ln.split("|", 1)
        cells = cells.split()
        if int(idx) != i or len(cells) != S:
            raise ValueError(f"element row {i}: expected index {i} and {S} cells")
        for p, cell in enumerate(cells):
            r, c = cell.split(",")
            lanes[p].append(None if r == "-" else (int(r), int(c)))
    return {"model": m["model"], "component": m["component"], "rows": int(m["rows"]), "cols": int(m["cols"]),
            "use": m["use"], "subgroup_size": S, "lanes": lanes}


def parse_json(obj: object) -> dict:
    """Read back `to_json` output (ValueError when it is not one)."""
    keys = ["model", "component", "rows", "cols", "use", "subgroup_size", "length", "lanes"]
    if not isinstance(obj, dict) or sorted(obj) != sorted(keys):
        raise ValueError(f"a layout JSON object has exactly the keys {', '.join(keys)}")
    lanes = obj["lanes"]
    if not isinstance(lanes, list) or len(lanes) != obj["subgroup_size"] or \
            any(not isinstance(l, list) or len(l) != obj["length"] for l in lanes):
        raise ValueError("lanes must hold subgroup_size lists of length entries")
    out = []
    for lane in lanes:
        row = []
        for x in lane:
            if x is None:
                row.append(None)
            elif isinstance(x, list) and len(x) == 2 and all(isinstance(v, int) and v >= 0 for v in x):
                row.append((x[0], x[1]))
            else:
                raise ValueError(f"a lane element must be [row, col] or null, got {x!r}")
        out.append(row)
    return {**{k: obj[k] for k in keys if k not in ("lanes", "length")}, "lanes": out}

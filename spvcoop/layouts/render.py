"""Pictures and text of a layout: the seed documents' table, JSON, SVG and HTML, and YAML tables.

`table`: one column per invocation, one row per element index, cells `row,col`
(`-,-` for padding). `json`: the object of Layout.to_json(). `svg`: the matrix with
each cell coloured by the invocation that holds it and labelled `p:i` (invocation,
index); replicated elements list every holder. `html`: the SVG and the table in one page.
"""
from __future__ import annotations

import json
import re
from html import escape

from .layout import Layout, LayoutError
from .limits import DEFAULT_LIMITS, MAX_LINEAR_BASES, LayoutLimits


def title(lay: Layout) -> str:
    use = f" use {lay.use}" if lay.use else " (no use)"
    return (f"{lay.model}: {lay.component} {lay.rows}x{lay.cols}{use}, subgroup size {lay.subgroup_size}, "
            f"length {lay.length}" + (", replicated" if lay.replicated else ""))


def to_table(lay: Layout) -> str:
    cells = [[("-,-" if r < 0 else f"{r},{c}") for r, c in zip(rr, cc, strict=False)]
             for rr, cc in zip(lay.row.T.tolist(), lay.col.T.tolist(), strict=False)]   # [i][p]
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


# 32 fills, one per invocation of a 32-wide subgroup, told apart by eye: picked greedily for the largest smallest
# CIELAB distance (CIE76 dE >= 25 between any two; 10 is already plainly different) among sRGB colours on which black
# text has a contrast of at least 7:1 (WCAG AAA), and far from the white of cells no invocation holds. Invocation p
# gets PALETTE[p % 32]; in wider subgroups invocations 32-63 (96-127) are also hatched, so p and p + 32 differ too.
PALETTE = ("#00ff00", "#ff2dff", "#ff6900", "#fff04b", "#4b96ff", "#2db469", "#f06996", "#c3965a",
           "#00a5b4", "#e187ff", "#78c30f", "#b496c3", "#d2f0a5", "#00fff0", "#f0a50f", "#00ff87",
           "#ffb4b4", "#ff695a", "#ff4bc3", "#87a587", "#96a53c", "#78c3ff", "#d2ff00", "#96f0ff",
           "#d2ff78", "#ffe1b4", "#87ffb4", "#ffb4ff", "#ffd269", "#ff965a", "#00d22d", "#4bc3a5")


def colour(p: int, S: int) -> str:
    """The fill of invocation p's cells (PALETTE, repeating every 32 invocations)."""
    return PALETTE[p % len(PALETTE)]


_HATCH = ('<defs><pattern id="hatch" width="7" height="7" patternUnits="userSpaceOnUse" '
          'patternTransform="rotate(45)"><rect width="1.5" height="7" fill="#000" fill-opacity="0.22"/>'
          '</pattern></defs>')


def _hatched(p: int) -> bool:
    return (p // len(PALETTE)) % 2 == 1


def _fill(p: int, S: int, x: float, y: float, w: float, h: float) -> str:
    """The rectangle(s) of a cell or swatch held by invocation p: its colour, hatched for p in 32-63 and 96-127."""
    out = f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{colour(p, S)}" stroke="#555" stroke-width="0.5"/>'
    if _hatched(p):
        out += f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="url(#hatch)"/>'
    return out


def to_svg(lay: Layout, cell: int = 44) -> str:
    """The matrix, each cell filled with its holder's colour and labelled p:i; axis titles (column above, row
    on the left) and a legend of the invocations' colours below. Its viewBox lets a page scale it to fit."""
    holders: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for p, lane in enumerate(lay.lanes()):
        for i, rc in enumerate(lane):
            if rc is not None:
                holders.setdefault(rc, []).append((p, i))
    S = lay.subgroup_size
    per_row = 16                                  # legend swatches per line
    swatch = 40
    margin_l, margin_t = 52, 64
    grid_w, grid_h = lay.cols * cell, lay.rows * cell
    legend_t = margin_t + grid_h + 24
    legend_h = 18 + ((S + per_row - 1) // per_row) * 22
    w = max(margin_l + grid_w + 8, margin_l + per_row * swatch + 8, 420)
    h = legend_t + legend_h + 4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'font-family="monospace">',
           f"<title>{escape(title(lay))}</title>",
           *([_HATCH] if len(PALETTE) < S else []),
           f'<text x="4" y="16" font-size="13">{escape(title(lay))}</text>',
           '<text x="4" y="32" font-size="11">cell label p:i = invocation p holds it as element i</text>',
           f'<text x="{margin_l + grid_w / 2}" y="{margin_t - 20}" font-size="12" text-anchor="middle" '
           f'font-weight="bold">column</text>',
           f'<text x="14" y="{margin_t + grid_h / 2}" font-size="12" text-anchor="middle" font-weight="bold" '
           f'transform="rotate(-90 14 {margin_t + grid_h / 2})">row</text>']
    for c in range(lay.cols):
        out.append(f'<text x="{margin_l + c * cell + cell / 2}" y="{margin_t - 4}" font-size="10" '
                   f'text-anchor="middle">{c}</text>')
    for r in range(lay.rows):
        y = margin_t + r * cell
        out.append(f'<text x="{margin_l - 4}" y="{y + cell / 2 + 3}" font-size="10" text-anchor="end">{r}</text>')
        for c in range(lay.cols):
            x = margin_l + c * cell
            hs = holders.get((r, c), [])
            tip = ", ".join(f"invocation {p} element {i}" for p, i in hs) or "not held"
            rect = _fill(hs[0][0], S, x, y, cell, cell) if hs else (
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="#ffffff" stroke="#555" '
                'stroke-width="0.5"/>')
            out.append(f'<g><title>({r},{c}): {escape(tip)}</title>{rect}')
            lines = [f"{p}:{i}" for p, i in hs[:3]] + ([f"+{len(hs) - 3}"] if len(hs) > 3 else [])
            for k, text in enumerate(lines):
                ty = y + cell / 2 + 4 + (k - (len(lines) - 1) / 2) * 11
                out.append(f'<text x="{x + cell / 2}" y="{ty:.1f}" font-size="10" text-anchor="middle">'
                           f'{escape(text)}</text>')
            out.append("</g>")
    out.append(f'<g class="legend"><text x="4" y="{legend_t + 10}" font-size="12" font-weight="bold">'
               f'invocation</text>')
    for p in range(S):
        x = margin_l + (p % per_row) * swatch
        y = legend_t + 16 + (p // per_row) * 22
        out.append(f'{_fill(p, S, x, y, swatch - 4, 18)}<text x="{x + (swatch - 4) / 2}" y="{y + 13}" '
                   f'font-size="10" text-anchor="middle">{p}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_html(lay: Layout) -> str:
    """A page that fits its window: the SVG scales down to the page's width (viewBox, max-width), the table
    scrolls sideways inside its own box instead of widening the page."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title(lay))}</title>"
            "<style>body{font-family:sans-serif;margin:1em;max-width:100%} h1{font-size:1.3em;overflow-wrap:anywhere}"
            " svg{max-width:100%;height:auto;display:block} pre{font-size:11px;overflow-x:auto;max-width:100%}"
            "</style></head><body>\n"
            f"<h1>{escape(title(lay))}</h1>\n{to_svg(lay)}"
            "<h2>Per-invocation table (column = invocation, row = element index)</h2>\n"
            f"<pre>{escape(to_table(lay))}</pre>\n</body></html>\n")


def linear_bases(lanes: list) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """(register bases, lane bases) of the `linear` descriptor that gives exactly this table (lanes[p][i] =
    (row, col)), or None where none does: padding, S or L not a power of two, or a slot that is not the XOR of
    the bases of its index bits. Every slot is compared, so a table is only ever replaced by its equal."""
    import numpy as np
    S, L = len(lanes), len(lanes[0]) if lanes else 0
    if not S or not L or S & (S - 1) or L & (L - 1) or any(x is None for lane in lanes for x in lane):
        return None
    a = np.array(lanes, dtype=np.int64)          # (S, L, 2)
    if a[0, 0].any():
        return None
    lane = [(int(a[1 << k, 0, 0]), int(a[1 << k, 0, 1])) for k in range(S.bit_length() - 1)]
    register = [(int(a[0, 1 << k, 0]), int(a[0, 1 << k, 1])) for k in range(L.bit_length() - 1)]
    if len(lane) > MAX_LINEAR_BASES or len(register) > MAX_LINEAR_BASES:
        return None
    built = np.zeros((S, L, 2), dtype=np.int64)
    p, i = np.arange(S)[:, None], np.arange(L)[None, :]
    for bases, idx in ((lane, p), (register, i)):
        for k, basis in enumerate(bases):
            built ^= np.where(((idx >> k) & 1).astype(bool)[..., None], np.array(basis), 0)
    return (register, lane) if np.array_equal(built, a) else None


def to_yaml_model(name: str, description: str, entries: list[dict], linear: bool = False) -> str:
    """A model file of table entries: [{'component','rows','cols','use','subgroup_size','lanes'}]. `linear`:
    an entry whose table a `linear` descriptor gives exactly is written as its bases (a few lines instead of
    S x L cells: `layout measure`'s Workgroup-scope tables run to a megabyte, over the default model size)."""
    def flow(lane):
        return "[" + ", ".join("null" if x is None else f"[{x[0]}, {x[1]}]" for x in lane) + "]"

    def pairs(bases):
        return "[" + ", ".join(f"[{r}, {c}]" for r, c in bases) + "]"
    out = [f"name: {json.dumps(name)}", f"description: {json.dumps(description)}"]
    sizes = {e["subgroup_size"] for e in entries}
    if len(sizes) == 1:
        out.append(f"subgroup_size: {sizes.pop()}")
    out.append("entries:")
    for e in entries:
        use = "none" if e["use"] is None else e["use"]
        entry_name = e.get("name") or f"{e['component']}-{e['rows']}x{e['cols']}-{use}"
        out += [f"  - name: {json.dumps(entry_name)}",
                f"    components: [{e['component']}]",
                f"    rows: {e['rows']}", f"    cols: {e['cols']}", f"    use: {use}",
                f"    subgroup_size: {e['subgroup_size']}"]
        bases = linear_bases(e["lanes"]) if linear else None
        if bases is not None:
            out += ["    linear:", f"      register: {pairs(bases[0])}", f"      lane: {pairs(bases[1])}"]
            continue
        out.append("    table:")
        out += [f"      - {flow(lane)}" for lane in e["lanes"]]
    return "\n".join(out) + "\n"


FORMATS = {"table": to_table, "json": to_json, "svg": to_svg, "html": to_html}


def estimate_size(lay: Layout, fmt: str) -> int:
    """An upper estimate of the bytes FORMATS[fmt](lay) writes, computed without rendering."""
    S, L = lay.row.shape
    cell = len(f"{max(lay.rows - 1, 0)},{max(lay.cols - 1, 0)}")
    table = (L + 3) * (len(str(L)) + 4 + S * (max(cell, len(f"p{S - 1}")) + 1)) + 300
    if fmt == "table":
        return table
    if fmt == "json":
        return S * L * (cell + 5) + 4 * S + 300
    # per matrix cell: a group with a tooltip, a rect and up to 4 labels; per slot: its 'invocation p element i'
    svg = lay.rows * lay.cols * 240 + S * L * (40 + 2 * len(str(max(S, L)))) + (lay.rows + lay.cols) * 120 + 600 \
        + S * 300 + lay.rows * lay.cols * 80   # the legend, hatching
    svg += 600      # axis titles, page styles
    return svg if fmt == "svg" else svg + 2 * table + 900


def check_output_budget(lay: Layout, fmt: str, max_output: int = DEFAULT_LIMITS.max_output,
                        source: str = "<layout>") -> None:
    """LayoutError before rendering a picture or table larger than max_output bytes."""
    size = estimate_size(lay, fmt)
    if size > max_output:
        raise LayoutError(f"the {fmt} output of {title(lay)} would take about {size} bytes, more than the limit "
                          f"of {max_output} (raise it with --max-output)", source)


_TITLE = re.compile(r"^(?P<model>.*): (?P<component>[a-z0-9]+) (?P<rows>\d+)x(?P<cols>\d+)"
                    r"(?: use (?P<use>a|b|acc)| \(no use\)), subgroup size (?P<S>\d+), length (?P<L>\d+)")
_CELL = re.compile(r"\S+")


class ReadBackError(ValueError):
    """Malformed `show` output read back; `line` and `col` (1-based) locate it when known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.line, self.col = line, col


def _small_int(text: str, what: str, line: int | None = None, col: int | None = None) -> int:
    """A decimal count or index; at most 9 digits (int() of a huge literal is slow and refused)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise ReadBackError(f"{what} must be a decimal number of at most 9 digits, got '{text[:20]}'", line, col)
    return int(text)


def _check_sizes(rows: int, cols: int, S: int, L: int, limits: LayoutLimits, line: int | None = None) -> None:
    why = limits.check_type(rows, cols, S) or (None if L >= 1 else "length must be at least 1") \
        or limits.slots_error(S, L)
    if why:
        raise ReadBackError(why, line, 1 if line else None)


def parse_table(text: str, limits: LayoutLimits = DEFAULT_LIMITS) -> dict:
    """Read back `to_table` output: {'component','rows','cols','use','subgroup_size','lanes'}.

    ReadBackError (a ValueError) names the line and column of the first problem: a truncated table,
    a wrong header, a missing or extra invocation or element row, a cell that is not `row,col`."""
    lines = [(n, ln.rstrip("\r")) for n, ln in enumerate(text.split("\n"), 1) if ln.strip()]
    first = lines[0] if lines else (1, "")
    m = _TITLE.match(first[1]) if len(first[1]) <= 1000 else None
    if not m:
        raise ReadBackError("not a layout table: the first line must read 'MODEL: T RxC use U, subgroup size S, "
                           "length L'", first[0], 1)
    rows, cols = _small_int(m["rows"], "rows", first[0]), _small_int(m["cols"], "cols", first[0])
    S, L = _small_int(m["S"], "the subgroup size", first[0]), _small_int(m["L"], "the length", first[0])
    _check_sizes(rows, cols, S, L, limits, first[0])
    end = (lines[-1][0] + 1) if lines else 1
    if len(lines) < 3:
        raise ReadBackError("truncated table: the header line 'i | p0 p1 ...' and the rule below it are missing",
                           end, 1)
    n, head = lines[1]
    if "|" not in head or head.split("|", 1)[1].split() != [f"p{p}" for p in range(S)]:
        raise ReadBackError(f"the header must read 'i | p0 ... p{S - 1}' (one column per invocation)", n, 1)
    n, rule = lines[2]
    if set(rule.strip()) - {"-", "+"}:
        raise ReadBackError("the line under the header must be a rule of '-' and '+'", n, 1)
    body = lines[3:]
    lanes: list[list] = [[] for _ in range(S)]
    for i, (n, ln) in enumerate(body):
        if i == L:
            raise ReadBackError(f"more element rows than the title's length {L}", n, 1)
        if "|" not in ln:
            raise ReadBackError(f"element row {i}: expected 'INDEX | CELLS'", n, 1)
        bar = ln.index("|")
        if _small_int(ln[:bar].strip(), "the element index", n, 1) != i:
            raise ReadBackError(f"element row {i}: expected index {i} (rows must be in order, without gaps "
                               f"or repeats)", n, 1)
        cells = list(_CELL.finditer(ln, bar + 1))
        if len(cells) != S:
            col = cells[S].start() + 1 if len(cells) > S else len(ln) + 1
            raise ReadBackError(f"element row {i}: expected {S} cells (one per invocation), found {len(cells)}",
                               n, col)
        for p, cell in enumerate(cells):
            text_ = cell.group()
            col = cell.start() + 1
            if text_ == "-,-":
                lanes[p].append(None)
                continue
            r, _, c = text_.partition(",")
            lanes[p].append((_small_int(r, f"invocation {p} element {i}: the row", n, col),
                             _small_int(c, f"invocation {p} element {i}: the column", n, col)))
    if len(body) < L:
        raise ReadBackError(f"truncated table: expected {L} element rows, found {len(body)}", end, 1)
    return {"model": m["model"], "component": m["component"], "rows": rows, "cols": cols,
            "use": m["use"], "subgroup_size": S, "lanes": lanes}


def parse_json(obj: object, limits: LayoutLimits = DEFAULT_LIMITS) -> dict:
    """Read back `to_json` output (ReadBackError, a ValueError, when it is not one)."""
    keys = ["model", "component", "rows", "cols", "use", "subgroup_size", "length", "lanes"]
    if not isinstance(obj, dict) or sorted(obj) != sorted(keys):
        raise ReadBackError(f"a layout JSON object has exactly the keys {', '.join(keys)}")

    def count(k):
        v = obj[k]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ReadBackError(f"'{k}' must be a positive integer, got {str(v)[:40]}")
        return v
    rows, cols, S, L = count("rows"), count("cols"), count("subgroup_size"), count("length")
    _check_sizes(rows, cols, S, L, limits)
    for k in ("model", "component"):
        if not isinstance(obj[k], str):
            raise ReadBackError(f"'{k}' must be a string")
    if obj["use"] is not None and not isinstance(obj["use"], str):
        raise ReadBackError("'use' must be a string or null")
    lanes = obj["lanes"]
    if not isinstance(lanes, list) or len(lanes) != S or \
            any(not isinstance(lane, list) or len(lane) != L for lane in lanes):
        raise ReadBackError(f"'lanes' must hold {S} lists (subgroup_size) of {L} entries (length)")
    out = []
    for p, lane in enumerate(lanes):
        row: list[tuple[int, int] | None] = []
        for i, x in enumerate(lane):
            if x is None:
                row.append(None)
            elif isinstance(x, list) and len(x) == 2 and \
                    all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 32 for v in x):
                row.append((x[0], x[1]))
            else:
                raise ReadBackError(f"lanes[{p}][{i}] must be [row, col] or null, got {str(x)[:40]}")
        out.append(row)
    return {**{k: obj[k] for k in keys if k not in ("lanes", "length")}, "lanes": out}

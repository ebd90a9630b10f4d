"""The debugger's views of a stopped run beyond single values: a cooperative matrix as a matrix and by lane
(`matrix NAME [--lanes]`), and who last wrote a buffer or shared element (`info writer NAME[i]`, from the race
detector's records). Functions of a stopped Debugger (debugger.py); each returns text or raises DebugError."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from .debug_expr import MAX_ROWS, DebugError, fmt, grid, np_leaf, parse_expr, ranges, short_path, shown

Debugger = Any   # a stopped debugger.Debugger (which imports this module: not named here, no import circle)


def matrix(dbg: Debugger, rest: str) -> str:
    """`matrix NAME`: the selected invocation's scope instance of the matrix, rows x cols under the run's layout
    model; `--lanes`: which lane holds each element (LANE:INDEX)."""
    stop = dbg._need_stop()
    words = rest.split()
    lanes = "--lanes" in words
    names = [w for w in words if w != "--lanes"]
    if len(names) != 1:
        raise DebugError("matrix wants one name (and --lanes)")
    name = names[0]
    frame = dbg.current_frame()
    mat = None
    ids = [dbg._id_of(name)] if name.startswith("%") else dbg._by_name.get(name, [])
    for where in ((frame.vals if frame else {}), stop.ex.gvals):
        for i in ids:
            if i in where:
                mat = dbg._matrix_value(stop.ex, where[i])
                break
        if mat is not None:
            break
    if mat is None:
        from ..interp.memory import Register
        held = [w.get(i) for w in ((frame.vals if frame else {}), stop.ex.gvals) for i in ids]
        if any(isinstance(r, Register) and r.value is None for r in held):
            raise DebugError(f"'{shown(name)}' holds no value yet (nothing was stored to it)")
        if not ids:
            dbg._value_of(name, stop.ex, frame, dbg.selected)  # the "no name ... did you mean" error
        raise DebugError(f"'{shown(name)}' is not a cooperative matrix (here)")
    info = mat.info
    g = int(np.broadcast_to(info.group, (stop.ex.N,))[dbg.selected])
    data = mat.full()[g]
    head = f"{name}: {info.describe()}, {info.scope.lower()} instance {g} (of invocation #{dbg.selected})"
    if not lanes:
        return head + "\n" + grid([[fmt(np_leaf(x)) for x in row] for row in data])
    lay = info.layout()
    cells = [["-"] * info.cols for _ in range(info.rows)]
    for p in range(lay.row.shape[0]):
        for i in range(lay.row.shape[1]):
            r, c = int(lay.row[p, i]), int(lay.col[p, i])
            if r >= 0 and cells[r][c] == "-":
                cells[r][c] = f"{p}:{i}"
    return (head + f"\nlayout {lay.model or 'model'}, {lay.length} elements per lane: LANE:INDEX holds each "
            "element\n" + grid(cells))


def _element(dbg: Debugger, text: str):
    """(memory, byte offset, element type) of NAME[i]: an array in a buffer block (by member name) or a Workgroup
    array variable (the selected invocation's workgroup copy)."""
    stop = dbg._need_stop()
    ex = stop.ex
    if not text.endswith("]") or "[" not in text:
        raise DebugError("info writer wants an element: NAME[i]")
    name, _, index_text = text[:-1].partition("[")
    name = name.strip()
    i = dbg._eval(parse_expr(index_text), ex, dbg.current_frame(), dbg.selected)
    if not isinstance(i, (int, np.integer)) or isinstance(i, (bool, np.bool_)):
        raise DebugError("the index must be an integer")
    from ..interp.memory import Memory, Pointer
    lane = dbg.selected
    for vid, v in ex.gvals.items():
        if not isinstance(v, Pointer) or not isinstance(v.mem, Memory):
            continue
        t = v.type
        off = int(np.asarray(v.off).reshape(-1)[lane if np.asarray(v.off).size > 1 else 0])
        arr = None
        if dbg.prog.names.get(vid) == name and t.kind in ("array", "runtime_array"):
            arr = t
        elif t.kind == "struct" and name in t.member_names:
            k = t.member_names.index(name)
            member = t.members[k]
            if member.kind in ("array", "runtime_array"):
                arr, off = member, off + t.member_offset(k)
        if arr is None:
            continue
        stride = arr.array_stride()
        count = arr.count if arr.kind == "array" else (v.mem.region - off) // max(stride, 1)
        if not 0 <= int(i) < count:
            raise DebugError(f"index {int(i)} is outside 0..{count - 1}")
        return v.mem, off + int(i) * stride, arr.elem
    raise DebugError(f"no buffer or shared array '{shown(name)}' (info writer reads an element of one)")


def writer(dbg: Debugger, text: str) -> str:
    """`info writer NAME[i]`: the last write to the element (invocation, instruction, source line, the value
    now) and its barrier interval, from the race detector's shadow memory."""
    from ..interp.observe import source_line
    from ..interp.races import MANY, NONE, WORKGROUP
    stop = dbg._need_stop()
    ex = stop.ex
    mem, offset, elem = _element(dbg, text.strip())
    rec = ex.races
    if rec is None:
        raise DebugError("the race detector is off (--no-races): it keeps the writes 'info writer' reads")
    sh = rec.shadows.get(id(mem))
    value = dbg._eval(parse_expr(text.strip()), ex, dbg.current_frame(), dbg.selected)
    head = f"{shown(text.strip())} = {fmt(value)} ({mem.name}, byte offset {offset})"
    if sh is None or sh.w is None or not sh.g:
        return head + "\nno write recorded (nothing has written this memory in the run so far)"
    unit = offset // sh.g
    agent, stamp = int(sh.w.agent[unit]), int(sh.w.stamp[unit])
    if agent == NONE:
        return head + "\nno write recorded (its initial value)"
    inst = rec.insts.get(int(rec.ev_inst[stamp]))
    if agent == MANY:
        who = f"several invocations (among them #{int(sh.w.other[unit]) % ex.N})"
        lane = int(sh.w.other[unit]) % ex.N
    else:
        lane = agent % ex.N
        scope = ("", "the subgroup of ", "the workgroup of ")[agent // ex.N] if agent >= 0 else ""
        who = scope + dbg._describe_lane(lane)
    where = ""
    if inst is not None:
        ln = source_line(dbg.prog, inst)
        where = f" by {inst.opname}" + (f" at {short_path(ln[0])}:{ln[1]}" if ln else f" (instruction {inst.index})")
    cls = WORKGROUP if mem.storage == "Workgroup" else 1
    wg = int(ex.lanes.wg_index[lane])
    clock = int(rec.ev_clock[stamp])
    k = int(rec.count_wg[cls][wg])
    when = (f"in barrier interval {k} of workgroup {wg}, the current one: no barrier orders it with the other "
            "invocations' accesses yet" if clock >= int(rec.last_wg[cls][wg]) else
            f"before barrier {k} of workgroup {wg}: ordered with what its invocations do now")
    return f"{head}\nlast written by {who}{where}, {when}"


def lane_elements(dbg: Debugger, name: str, depth: int = 0) -> str:
    """The elements of matrix `name` the selected invocation holds under the run's layout: '(r, c) = v, ...'."""
    stop = dbg._need_stop()
    ex = stop.ex
    frames = stop.stack[::-1]
    frame = frames[depth] if 0 <= depth < len(frames) else None
    ids = dbg._by_name.get(name, [])
    mat = next((dbg._matrix_value(ex, w[i]) for w in ((frame.vals if frame else {}), ex.gvals) for i in ids
                if i in w and dbg._matrix_value(ex, w[i]) is not None), None)
    if mat is None:
        return "<not a matrix here>"
    info = mat.info
    lane = dbg.selected
    g = int(np.broadcast_to(info.group, (ex.N,))[lane])
    pos = int(np.broadcast_to(info.position, (ex.N,))[lane])
    lay = info.layout()
    data = mat.full()[g]
    cells = []
    for i in range(lay.row.shape[1]):
        r, c = int(lay.row[pos, i]), int(lay.col[pos, i])
        if r >= 0:
            cells.append(f"({r}, {c}) = {fmt(np_leaf(data[r, c]))}")
    return f"{len(cells)} elements: " + ", ".join(cells[:64]) + (" ..." if len(cells) > 64 else "")


def set_value(dbg: Debugger, name: str, text: str, depth: int = 0) -> str:
    """setVariable: `name` (a scalar result or a Function variable holding one, in frame `depth`) takes the value
    of expression `text` in the selected invocation; the others keep theirs."""
    from ..interp.memory import Register
    stop = dbg._need_stop()
    ex = stop.ex
    frames = stop.stack[::-1]
    if not 0 <= depth < len(frames):
        raise DebugError(f"no frame {depth}")
    frame = frames[depth]
    ids = [i for i in dbg._by_name.get(name, []) if i in frame.vals]
    if not ids:
        raise DebugError(f"no value '{shown(name)}' in this frame")
    i = ids[0]
    value = dbg._eval(parse_expr(text), ex, frame, dbg.selected)
    v = frame.vals[i]
    holder = v if isinstance(v, Register) else None
    arr = holder.value if holder is not None else v
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.shape[0] not in (1, ex.N) or \
            arr.dtype.kind not in "biuf":
        raise DebugError(f"'{shown(name)}' is not a scalar value (setVariable sets numbers)")
    if isinstance(value, (dict, list, str)):
        raise DebugError("the new value must be a number")
    with np.errstate(all="ignore"):
        try:
            new = np.array(np.broadcast_to(arr, (ex.N,)))   # a copy: the old array may be another value's too
            new[dbg.selected] = value
        except (OverflowError, ValueError, TypeError):
            raise DebugError(f"{fmt(value)} does not fit {arr.dtype}") from None
    if holder is not None:
        holder.value = new
    else:
        frame.vals[i] = new
    return fmt(np_leaf(new[dbg.selected]))


MAX_ALL = 1 << 16   # invocations `print EXPR @all` evaluates (Python per invocation: a few seconds at most)
ALL_SECONDS = 5     # and for at most this long


def over_invocations(dbg: Debugger, tree, show, label: str) -> str:
    """`print EXPR @all`: the value in every active invocation (the first MAX_ALL), runs of invocations with one
    value sharing an entry, entries filling lines of ~100 characters."""
    stop = dbg._need_stop()
    frame = dbg.current_frame()
    active = np.flatnonzero(np.broadcast_to(stop.mask, (stop.ex.N,))).tolist()
    rows: list[tuple[list[int], str]] = []
    start, done = time.monotonic(), 0
    for lane in active[:MAX_ALL]:
        if time.monotonic() - start > ALL_SECONDS:   # an expression that reads a large buffer in every invocation
            break
        done += 1
        text = show(dbg._eval(tree, stop.ex, frame, lane))
        if rows and rows[-1][1] == text and rows[-1][0][-1] == lane - 1:
            rows[-1][0].append(lane)
        else:
            rows.append(([lane], text))
    more = f" (the first {done} shown: @all stops after {MAX_ALL} or {ALL_SECONDS} s)" if done < len(active) else ""
    out = [f"{label} over {len(active)} active invocation(s){more}:"]
    line = ""
    for k, (lanes, text) in enumerate(rows):
        if k == MAX_ROWS * 4:
            out.append(f"{line}\n  ... {len(rows) - k} more")
            line = ""
            break
        entry = f"{ranges(lanes)}: {text}"
        if line and len(line) + len(entry) + 2 > 100:
            out.append(line)
            line = ""
        line = f"{line}   {entry}" if line else f"  {entry}"
    if line:
        out.append(line)
    return "\n".join(out)


def global_values(dbg: Debugger) -> list[tuple[str, str, list[str] | None]]:
    """(name, value text, a matrix's rows or None) of the module's named global variables in the selected
    invocation, by name."""
    stop = dbg._need_stop()
    ex = stop.ex
    out: list[tuple[str, str, list[str] | None]] = []
    for i, v in ex.gvals.items():
        name = dbg.prog.names.get(i)
        t = ex.type_of_id(i)
        if not name or t is None or t.kind != "pointer":
            continue
        mat = dbg._matrix_value(ex, v)
        if mat is not None:
            out.append((name, f"{mat!r}", dbg._matrix_rows(mat)))
            continue
        try:
            out.append((name, fmt(dbg._lane_value(ex, v, i, dbg.selected)), None))
        except Exception as e:  # noqa: BLE001 - one value that cannot be shown does not hide the others
            out.append((name, f"<not shown: {type(e).__name__}>", None))
    return sorted(out, key=lambda r: r[0])

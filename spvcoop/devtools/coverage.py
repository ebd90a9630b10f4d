"""Line and branch coverage of a shader's source, as an lcov tracefile (geninfo(1), "TRACEFILE FORMAT").

`Coverage` is an observe.Observer: pass it to run(..., observer=cov) (one object may watch several runs, of
one module or several), then `cov.merge_into(path)` adds its counts to the tracefile at `path`, if there is
one, and writes the sum, so several runs and test sessions add up. Counted:

- `DA:LINE,COUNT`: COUNT is the number of invocation-executions of the line (with counts="executions", the
  times it ran, as gcov counts: a block counts 1 however many invocations run it): each time a block runs, every
  source line among its instructions counts the invocations active in it (once per block, however many
  instructions of the block the line has). Lines of a function's OpVariables count when it is called. Every
  line some instruction of the module has is listed, with 0 if it never ran.
- `FN:LINE,NAME` / `FNDA:CALLS,NAME`: each function (its name as the source spells it: glslang's OpName
  `twice(i1;` is `twice`; overloads keep their parameter codes apart) at its first line, with the invocations
  that called it.
- `BRDA:LINE,BLOCK,BRANCH,TAKEN`: one BLOCK per conditional branch (OpBranchConditional with two targets,
  OpSwitch) on the line, numbered in module order; BRANCH 0 is the true side (a switch: its default, then its
  cases in order), TAKEN the invocations that took it, `-` when the branch itself never ran.

Source lines are observe.source_line's: the GLSL (OpLine) where the module has debug lines, else the lines of
the module's own assembly text.
"""
from __future__ import annotations

import os

from typing import TYPE_CHECKING

import numpy as np

from ..core.diagnostics import Diagnostic, InputError
from ..core.module import Span
from ..interp.observe import Observer, source_line, source_path

if TYPE_CHECKING:
    from ..core.module import Instruction
    from ..interp.executor import Executor, Frame
    from ..interp.program import Block, Function, Program

Line = tuple[str, int]


class Tracefile:
    """Counts by source file: lines[file][line] = count; branches[file][(line, block, branch)] = taken or None
    (the branch never ran: lcov's '-')."""

    def __init__(self) -> None:
        self.lines: dict[str, dict[int, int]] = {}
        self.branches: dict[str, dict[tuple[int, int, int], int | None]] = {}
        self.functions: dict[str, dict[str, list[int]]] = {}   # file -> name -> [first line, calls]

    def add_line(self, file: str, line: int, count: int) -> None:
        d = self.lines.setdefault(file, {})
        d[line] = d.get(line, 0) + count

    def add_branch(self, file: str, key: tuple[int, int, int], taken: int | None) -> None:
        d = self.branches.setdefault(file, {})
        old = d.get(key)
        d[key] = taken if old is None else old if taken is None else old + taken

    def add_function(self, file: str, name: str, line: int, calls: int) -> None:
        d = self.functions.setdefault(file, {})
        entry = d.setdefault(name, [line, 0])
        entry[1] += calls

    def merge(self, other: Tracefile) -> None:
        for f, fns in other.functions.items():
            for name, (ln, calls) in fns.items():
                self.add_function(f, name, ln, calls)
        for f, lines in other.lines.items():
            for ln, c in lines.items():
                self.add_line(f, ln, c)
        for f, brs in other.branches.items():
            for k, t in brs.items():
                self.add_branch(f, k, t)

    def text(self) -> str:
        out: list[str] = []
        for f in sorted(set(self.lines) | set(self.branches) | set(self.functions)):
            out += ["TN:", f"SF:{f}"]
            fns = self.functions.get(f, {})
            for name, (ln, _) in sorted(fns.items(), key=lambda kv: (kv[1][0], kv[0])):
                out.append(f"FN:{ln},{name}")
            for name, (_, calls) in sorted(fns.items(), key=lambda kv: (kv[1][0], kv[0])):
                out.append(f"FNDA:{calls},{name}")
            if fns:
                out += [f"FNF:{len(fns)}", f"FNH:{sum(1 for _, c in fns.values() if c)}"]
            brs = self.branches.get(f, {})
            for (ln, blk, br), t in sorted(brs.items()):
                out.append(f"BRDA:{ln},{blk},{br},{'-' if t is None else t}")
            if brs:
                out += [f"BRF:{len(brs)}", f"BRH:{sum(1 for t in brs.values() if t)}"]
            lines = self.lines.get(f, {})
            out += [f"DA:{ln},{c}" for ln, c in sorted(lines.items())]
            out += [f"LF:{len(lines)}", f"LH:{sum(1 for c in lines.values() if c)}", "end_of_record"]
        return "\n".join(out) + "\n" if out else ""


def parse(text: str, source: str) -> Tracefile:
    """An lcov tracefile (the records written here; TN, FN*, LF/LH/BRF/BRH and other summary records are
    recomputed or left out). A malformed record is an InputError at its line."""
    t = Tracefile()
    current: str | None = None
    for i, raw in enumerate(text.split("\n"), 1):
        rec = raw.strip()
        if not rec:
            continue
        key, _, value = rec.partition(":")

        def bad(what: str, col: int = 1, line: int = i) -> InputError:
            return InputError(Diagnostic("error", f"not an lcov tracefile: {what}", Span(line, col), source=source))
        if key == "SF":
            if not value.strip() or "\x00" in value:
                raise bad("SF: without a path (or with a NUL in it)", 4)
            current = os.path.realpath(value)   # a record written with a relative path merges with ours
            t.lines.setdefault(current, {})
            continue
        if key == "end_of_record":
            current = None
            continue
        if key in ("FN", "FNDA"):
            if current is None:
                raise bad(f"{key} outside a record (no SF: before it)")
            first, _, name = value.partition(",")
            try:
                n = _count(first)
            except ValueError:
                n = -1
            if n < 0 or not name:
                raise bad(f"malformed {key} record '{rec[:80]}'", len(key) + 2)
            if key == "FN":
                t.add_function(current, name, n, 0)
            else:
                t.add_function(current, name, t.functions.get(current, {}).get(name, [0])[0], n)
            continue
        if key in ("DA", "BRDA"):
            if current is None:
                raise bad(f"{key} outside a record (no SF: before it)")
            parts = value.split(",")
            try:
                if key == "DA" and len(parts) >= 2:
                    t.add_line(current, _count(parts[0]), _count(parts[1]))
                    continue
                if key == "BRDA" and len(parts) == 4:
                    taken = None if parts[3] == "-" else _count(parts[3])
                    t.add_branch(current, (_count(parts[0]), _count(parts[1]), _count(parts[2])), taken)
                    continue
            except ValueError:
                pass
            raise bad(f"malformed {key} record '{rec[:80]}'", len(key) + 2)
        if not (key.isalpha() and key.isupper()):  # the other records (TN, FN, LF, ...): recomputed or left out
            raise bad(f"unknown record '{rec[:80]}'")
    return t


def _count(text: str) -> int:
    v = int(text)
    if v < 0:
        raise ValueError(text)
    return v


class Coverage(Observer):
    """Collects line and branch counts of the runs it observes (see the module docstring)."""

    def __init__(self, counts: str = "invocations") -> None:
        if counts not in ("invocations", "executions"):
            raise ValueError(f"counts must be 'invocations' or 'executions', not {counts!r}")
        self.executions = counts == "executions"   # count a line once per time it runs, whatever its lanes
        self.counts = Tracefile()
        self._programs: dict[int, tuple] = {}  # id(Program) -> (block lines, branch keys, variable lines)
        self._tables: tuple = ({}, {}, {}, {})
        self._files: dict[str, str] = {}
        self.runs = 0  # runs observed (a run that failed before executing anything is not one)

    def attach(self, ex: Executor) -> None:
        self.runs += 1
        tables = self._programs.get(id(ex.prog))
        if tables is None:
            tables = self._programs[id(ex.prog)] = self._index(ex.prog)
        self._tables = tables

    def _index(self, prog: Program) -> tuple:
        """Per block label its distinct lines, per conditional terminator its branch keys, per function its
        variables' lines; every line and branch registered with 0 / never run."""
        block_lines: dict[int, list[Line]] = {}
        branch_keys: dict[int, tuple[str, list[tuple[int, int, int]], list[int]]] = {}
        var_lines: dict[int, list[Line]] = {}
        per_line: dict[Line, int] = {}
        # absolute, as geninfo writes them: genhtml changes into its output directory before it reads the
        # sources, so a relative SF: was looked up there (checked with lcov's genhtml)
        # (symlinks resolved: a file reached two ways is one record), the module's own path too (its assembly lines
        # where it has no OpLine)
        files = {ln[0] for ln in prog.lines.values()} | ({prog.source} if prog.source else set())
        self._files = {f: os.path.realpath(source_path(f, prog.source)) for f in files}
        fn_names: dict[int, tuple[str, str, int]] = {}
        bases = [prog.name_of(f).split("(", 1)[0] for f in prog.functions]
        for fn in prog.functions.values():
            first = next((ln for ln in _distinct(prog, [fn.inst, *fn.variables], self._files)), None)
            if first is None:
                first = next((ln for b in fn.blocks.values() for ln in _distinct(prog, b.body, self._files)), None)
            if first is not None:   # commas would end the name in the tracefile
                fn_names[fn.id] = (first[0], _function_name(prog.name_of(fn.id), bases), first[1])
                self.counts.add_function(first[0], fn_names[fn.id][1], first[1], 0)
            var_lines[fn.id] = _distinct(prog, fn.variables, self._files)
            for ln in var_lines[fn.id]:
                self.counts.add_line(ln[0], ln[1], 0)
            for blk in fn.blocks.values():
                insts = list(blk.phis) + list(blk.body) + ([blk.term] if blk.term is not None else [])
                block_lines[blk.label] = _distinct(prog, insts, self._files)
                for ln in block_lines[blk.label]:
                    self.counts.add_line(ln[0], ln[1], 0)
                term = blk.term
                targets = _targets(term) if term is not None else []
                where = source_line(prog, term) if term is not None and len(set(targets)) > 1 else None
                if where is None or term is None:
                    continue
                where = (self._files.get(where[0], where[0]), where[1])
                n = per_line.get(where, 0)
                per_line[where] = n + 1
                keys = [(where[1], n, b) for b in range(len(targets))]
                for k in keys:
                    self.counts.add_branch(where[0], k, None)
                branch_keys[term.index] = (where[0], keys, targets)
        return block_lines, branch_keys, var_lines, fn_names

    def _n(self, mask: np.ndarray) -> int:
        n = int(np.count_nonzero(mask))
        return min(n, 1) if self.executions else n

    def block(self, ex: Executor, frame: Frame, blk: Block, mask: np.ndarray) -> None:
        lines = self._tables[0].get(blk.label)
        if lines:
            n = self._n(mask)
            for f, ln in lines:
                self.counts.add_line(f, ln, n)

    def enter(self, ex: Executor, frame: Frame, fn: Function, mask: np.ndarray) -> None:
        n = self._n(mask)
        for f, ln in self._tables[2].get(fn.id, ()):
            self.counts.add_line(f, ln, n)
        named = self._tables[3].get(fn.id)
        if named is not None:
            self.counts.add_function(named[0], named[1], named[2], n)

    def branch(self, ex: Executor, frame: Frame, term: Instruction, edges: list) -> None:
        entry = self._tables[1].get(term.index)
        if entry is None:
            return
        file, keys, targets = entry
        taken = dict.fromkeys(targets, 0)
        for target, m in edges:
            if target in taken:
                taken[target] += self._n(m)
        seen: set[int] = set()
        for k, t in zip(keys, targets, strict=True):
            # a target named twice (a case sharing the default's block) counts once, at its first side
            self.counts.add_branch(file, k, 0 if t in seen else taken[t])
            seen.add(t)

    def merge_into(self, path: str, max_bytes: int | None = None) -> str:
        """The tracefile text of `path` (if it exists) plus these counts; the caller writes it."""
        import os
        total = Tracefile()
        if os.path.exists(path):
            from ..core.files import read_input
            data = read_input(path, max_bytes)
            total = parse(data.decode("utf-8", "replace"), path)
        total.merge(self.counts)
        return total.text()


def _function_name(name: str, bases: list[str]) -> str:
    """A function's name as the source spells it: glslang's OpName 'twice(i1;' is 'twice' (gcov writes demangled
    names); overloads keep their parameter codes, 'f(i1 f1)' and 'f(f1)', apart. No commas (they end the record)."""
    base = name.split("(", 1)[0]
    if bases.count(base) <= 1 or "(" not in name:
        return (base or name).replace(",", ";")
    return (base + "(" + name.split("(", 1)[1].rstrip(";").replace(";", " ") + ")").replace(",", ";")


def _distinct(prog: Program, insts, files: dict[str, str]) -> list[Line]:
    out: list[Line] = []
    for inst in insts:
        ln = source_line(prog, inst)
        if ln is not None:
            ln = (files.get(ln[0], ln[0]), ln[1])
            if ln not in out:
                out.append(ln)
    return out


def _targets(term: Instruction) -> list[int]:
    """The labels a conditional terminator may go to, in BRANCH order ([] for any other terminator)."""
    ops = term.operands
    if term.opname == "OpBranchConditional":
        return [ops[1].as_int, ops[2].as_int]
    if term.opname == "OpSwitch":
        return [ops[1].as_int] + [ops[i].as_int for i in range(3, len(ops), 2)]
    return []

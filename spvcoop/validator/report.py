"""Rendering validator findings: human (source line + caret, or the disassembled instruction
for binaries), JSON, SARIF 2.1.0 and GitHub workflow annotations."""
from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core.diagnostics import Diagnostic, printable, source_excerpt
from ..core.module import Instruction, Module, Span

if TYPE_CHECKING:  # imported where used: the disassembler is loaded only for binaries with findings
    from ..binary.disassembler import Disassembler


class InstructionText:
    """Renders instructions of a binary module for diagnostics (built once per module: O(n))."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._dis: Disassembler | None = None
        self._by_word: dict[int, int] | None = None
        self._lines: list[int] | None = None

    def render(self, inst: Instruction) -> str:
        from ..binary.disassembler import Disassembler
        from .registry import MALFORMED
        try:
            if self._dis is None:
                d = Disassembler(self.module, False)
                for i in self.module.instructions:
                    d.note(i)
                self._dis = d
            return self._dis.instruction(inst, indent=False)
        except MALFORMED:  # a module built in code with missing operands: show the raw operands
            return simple_render(inst)

    def dis_line(self, index: int) -> int:
        """The 1-based line of instruction `index` in `spvcoop dis` output (= spirv-dis's): five header lines,
        then one line an instruction, more where a string literal holds line breaks."""
        if self._lines is None:
            from .registry import MALFORMED
            lines, n = [], 6
            for inst in self.module.instructions:
                lines.append(n)
                n += 1
                with contextlib.suppress(*MALFORMED):  # a malformed instruction: one line, as the disassembler shows it
                    n += sum(o.value.count("\n") for o in inst.operands if o.kind == "LiteralString"
                             and isinstance(o.value, str))
            self._lines = lines
        return self._lines[index] if 0 <= index < len(self._lines) else 1

    def index_at_word(self, word: int) -> int | None:
        if self._by_word is None:
            self._by_word = {i.span.word: i.index for i in self.module.instructions if i.span is not None}
        return self._by_word.get(word)


def simple_render(inst: Instruction) -> str:
    """Fallback rendering: `%12 = OpName %1 %2 3` with raw ids and values."""
    parts = [f"%{inst.result_type}"] if inst.result_type is not None else []
    parts += [f"%{o.value}" if o.kind.startswith("Id") else str(o.value) for o in inst.operands]
    head = f"%{inst.result_id} = " if inst.result_id is not None else ""
    return head + inst.opname + ("" if not parts else " " + " ".join(parts))


def _where(d_source: str, span: Span | None, it: InstructionText | None) -> str:
    if span is None:
        return d_source
    if span.line:
        return f"{d_source}:{span.line}:{span.col}"
    idx = it.index_at_word(span.word) if it is not None else None
    return f"{d_source}: instruction {idx + 1}" if idx is not None else f"{d_source}: word {span.word}"


def format_human(diags: Iterable[Diagnostic], module: Module | None) -> str:
    """`file:line:col: error[rule]: message`, the source line with a caret, then `note:` lines."""
    lines_of = module.text.split("\n") if module is not None and module.text is not None else None
    it = InstructionText(module) if module is not None and module.text is None else None
    out: list[str] = []
    for d in diags:
        tag = f"{d.severity}[{d.rule}]" if d.rule else d.severity
        where = _where(d.source, d.span, it)
        if d.span is not None and not d.span.line and d.instruction_index is not None:
            where = f"{d.source}: instruction {d.instruction_index + 1} (word {d.span.word})"
        out.append(printable(f"{where}: {tag}: {d.message}"))
        if d.span is not None and d.span.line and lines_of is not None and d.span.line <= len(lines_of):
            src, marker = source_excerpt(lines_of[d.span.line - 1].rstrip("\r"), d.span.col, d.span.end_col)
            out.append(f"  {src}")
            out.append(f"  {marker}")
        elif d.instruction_index is not None and module is not None and it is not None \
                and d.instruction_index < len(module.instructions):
            out.append(printable(f"  {it.render(module.instructions[d.instruction_index])}"))
        for n in d.notes:
            if n.span is None:
                out.append(printable(f"  note: {n.message}"))
                continue
            out.append(printable(f"{_where(d.source, n.span, it)}: note: {n.message}"))
            if n.span.line and lines_of is not None and n.span.line <= len(lines_of):
                src, marker = source_excerpt(lines_of[n.span.line - 1].rstrip(), n.span.col, n.span.end_col, "--")
                out.append(f"  {src}")
                out.append(f"  {marker}")
            elif not n.span.line and it is not None:
                idx = it.index_at_word(n.span.word)
                if idx is not None:
                    out.append(printable(f"  {it.render(module.instructions[idx])}"))  # type: ignore[union-attr]
    return "\n".join(out) + ("\n" if out else "")


def _span_dict(span: Span | None, it: InstructionText | None = None) -> dict:
    if span is None:
        return {}
    if span.line:
        return {"line": span.line, "column": span.col, "end_column": span.end_col or span.col + 1}
    idx = it.index_at_word(span.word) if it is not None else None
    return {"word": span.word} if idx is None else {"word": span.word, "dis_line": it.dis_line(idx)}  # type: ignore[union-attr]


def origin(rule: str | None) -> str:
    """Which validator a finding comes from: "spirv-val" (SPIRV-Tools) or "spvcoop" (our rules)."""
    return "spirv-val" if rule == "spirv-val" else "spvcoop"


def diagnostic_dict(d: Diagnostic, module: Module | None = None, it: InstructionText | None = None) -> dict:
    """A JSON-ready dict of one finding; `source` says which validator found it."""
    out = {"severity": d.severity, "rule": d.rule, "source": origin(d.rule), "message": d.message, "file": d.source,
           **_span_dict(d.span, it), "instruction_index": d.instruction_index,
           "notes": [{"message": n.message, **_span_dict(n.span, it)} for n in d.notes]}
    if module is not None and module.text is None and d.instruction_index is not None and it is not None:
        out["instruction"] = it.render(module.instructions[d.instruction_index])
        out["dis_line"] = it.dis_line(d.instruction_index)
    return out


def file_result(path: str, diags: list[Diagnostic], module: Module | None, werror: bool = False) -> dict:
    """The JSON record of one validated file (also what `lint` workers send back)."""
    it = InstructionText(module) if module is not None and module.text is None else None
    errors = sum(d.severity == "error" for d in diags)
    warnings = sum(d.severity == "warning" for d in diags)
    return {"file": path, "valid": errors == 0 and not (werror and warnings), "errors": errors,
            "warnings": warnings, "diagnostics": [diagnostic_dict(d, module, it) for d in diags]}


def format_json(results: list[dict]) -> str:
    return json.dumps({"tool": "spvcoop", "format_version": 1, "files": results}, indent=2) + "\n"


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def format_github(results: list[dict]) -> str:
    """GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=RULE::message`."""
    out = []
    for r in results:
        for d in r["diagnostics"]:
            level = d["severity"] if d["severity"] in ("error", "warning") else "notice"
            props = [f"file={_gh_escape(r['file'], True)}"]
            if "line" in d:
                props += [f"line={d['line']}", f"col={d['column']}", f"endColumn={d['end_column']}"]
            if d["rule"]:
                props.append(f"title={_gh_escape(d['rule'], True)}")
            msg = d["message"]
            if "instruction" in d:
                msg += f" [{d['instruction']}]"
            notes = "".join(f"\n{n['message']}" for n in d["notes"])
            # the log is shown in a terminal-like viewer: no control characters from the input reach it
            out.append(printable(f"::{level} {','.join(props)}::{_gh_escape(msg + notes)}"))
    return "\n".join(out) + ("\n" if out else "")

"""Diagnostics: `file:line:col: error: message`, with notes, never a traceback."""
from __future__ import annotations

import re
from collections.abc import Iterable

from .module import Span
from .records import Record


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Note(Record):
    """A note attached to a diagnostic, with its own place."""
    __slots__ = _fields = ("message", "span")
    message: str
    span: Span | None

    def __init__(self, message: str, span: Span | None = None) -> None:
        self.message = message
        self.span = span


class Diagnostic(Record):
    """One finding: severity, message, where, rule id and notes."""
    __slots__ = _fields = ("severity", "message", "span", "rule", "notes", "source", "instruction_index")
    severity: str             # "error", "warning" or "note"
    message: str
    span: Span | None
    rule: str | None          # validator rule id, e.g. "coopmat.muladd.k"
    notes: list[Note]
    source: str
    instruction_index: int | None  # for binaries: which instruction

    def __init__(self, severity: str, message: str, span: Span | None = None, rule: str | None = None,
                 notes: list[Note] | None = None, source: str = "<input>",
                 instruction_index: int | None = None) -> None:
        self.severity = severity
        self.message = message
        self.span = span
        self.rule = rule
        self.notes = [] if notes is None else notes
        self.source = source
        self.instruction_index = instruction_index

    def location(self) -> str:
        if self.span is None:
            return self.source
        if self.span.line:
            return f"{self.source}:{self.span.line}:{self.span.col}"
        return f"{self.source}:word {self.span.word}"

    def headline(self) -> str:
        tag = f"{self.severity}[{self.rule}]" if self.rule else self.severity
        return f"{self.location()}: {tag}: {self.message}"


class SpvError(Exception):
    """A user-facing error: bad input, not a bug. Carries one or more diagnostics.

    exit_status: what a command exits with for it: 1 for a finding in the input, 2 for input that
    could not be read at all (InputError) or a usage error."""
    exit_status = 1

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__(self.diagnostics[0].headline() if self.diagnostics else "error")


class InputError(SpvError):
    """A file that cannot be read (missing, unreadable, over the size limit) or written: exit status 2."""
    exit_status = 2


class UnmatchedName(SpvError):
    """A name given to `run` (a buffer, a push-constant member, a specialization constant) that matches nothing
    in the shader. `section` and `path` say where the name sits in a run spec ("push_constants", ("pc", "nn")), so
    that a command can point at its line there."""

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic], section: str = "", path: tuple = ()):
        super().__init__(diagnostics)
        self.section = section
        self.path = path


def error(message: str, span: Span | None = None, source: str = "<input>",
          notes: list[Note] | None = None) -> SpvError:
    return SpvError(Diagnostic("error", message, span, notes=notes or [], source=source))


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'X'?)' for the closest of choices, or ''."""
    import difflib  # only when a message suggests a name
    best = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if not best:
        lowered = {c.lower(): c for c in choices}
        if word.lower() in lowered:
            best = [lowered[word.lower()]]
    return f" (did you mean '{best[0]}'?)" if best else ""


# What a terminal would act on rather than show: C0 controls but tab and newline, DEL, C1 controls (U+0080-U+009F,
# U+009B is a one-character CSI), bidirectional overrides and isolates (text that reads other than it runs), and
# the surrogates that stand for undecodable bytes. ESC itself is a C0 control, so no escape sequence survives.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c - 0xdc00:02x}" if 0xdc80 <= c <= 0xdcff else f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: str, keep_newlines: bool = True) -> str:
    """`text` safe to echo to a terminal: control characters, escape sequences (ESC, CSI), DEL, C1 controls and
    bidirectional overrides written as \\xNN / \\uNNNN. Used wherever source lines, or messages quoting the input,
    are rendered. Tabs stay, and so do newlines unless keep_newlines is False (a source line is one line)."""
    shown = _UNSAFE.sub(_escape, text)
    return shown if keep_newlines else shown.replace("\n", "\\x0a")


def source_excerpt(line: str, col: int, end_col: int, mark: str = "^~") -> tuple[str, str]:
    """A source line made printable and the marker line under columns col..end_col (1-based) of the original,
    placed where those characters are shown once escaped."""
    start = max(col - 1, 0)
    width = max(1, end_col - col) if end_col > col else 1
    shown_before = printable(line[:start], False)
    shown_span = printable(line[start:start + width], False)
    head, tail = mark[0], mark[-1]
    marker = " " * len(shown_before) + head + tail * (max(1, len(shown_span)) - 1)
    return printable(line, False), marker


def format_diagnostics(diags: list[Diagnostic], text: str | None = None) -> str:
    """Human format, a line each: headline, the source line with a caret (when `text` is the source), then
    notes, all made printable. The library only formats: the CLI layer prints (commands/common.print_diagnostics)."""
    lines = text.split("\n") if text is not None else None
    out: list[str] = []
    for d in diags:
        out.append(printable(d.headline()))
        if lines is not None and d.span is not None and d.span.line and d.span.line <= len(lines):
            src, marker = source_excerpt(lines[d.span.line - 1].rstrip("\r"), d.span.col, d.span.end_col)
            out.append(f"  {src}")
            out.append(f"  {marker}")
        for n in d.notes:
            loc = f"{d.source}:{n.span}" if n.span is not None else d.source
            out.append(printable(f"{loc}: note: {n.message}"))
    return "".join(line + "\n" for line in out)

"""Which rules a lint reports: `--select` / `--ignore` (rule ids or dotted prefixes), per-file ignores and
inline `; spvcoop: ignore[RULE]` comments in assembly.

Selection is applied to the merged report (after spirv-val's findings were folded into ours), so ignoring
a rule also drops the spirv-val error folded into its finding: it does not come back on its own.
As in ruff, the most specific code decides: `--select coopmat --ignore coopmat.muladd` reports every
coopmat rule but the MulAdd ones; `--ignore coopmat --select coopmat.muladd.k` (a longer prefix) keeps
that one rule. At the same length, ignore wins. A per-file ignore always drops its rules in its files.
"""
from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Sequence

from ..core.diagnostics import Diagnostic, Note
from ..core.records import FrozenRecord

# Rules of the lint itself (not validator rules: RULES lists those). `syntax` is reported for input that does
# not assemble or decode and cannot be ignored, like a compiler's syntax errors; `suppression.unused` only when
# asked for (--report-unused-suppressions).
SYNTAX_RULE = "syntax"
UNUSED_SUPPRESSION_RULE = "suppression.unused"
LINT_RULES = {
    SYNTAX_RULE: ("The input is a SPIR-V binary module, or SPIR-V assembly text that spirv-as accepts.",
                  "error", "spvcoop"),
    UNUSED_SUPPRESSION_RULE: ("A `; spvcoop: ignore[RULE]` comment names a rule that reports nothing on its "
                              "line (the comment is stale and should go).", "warning", "spvcoop"),
}


def known_rule_ids() -> list[str]:
    """Every id a selection may name: the validator's rules and the lint's own (but `syntax`)."""
    from . import RULES
    return sorted(set(RULES) | {UNUSED_SUPPRESSION_RULE})


def _matches(code: str, rule: str) -> bool:
    return code == "ALL" or rule == code or rule.startswith(code + ".")


def check_codes(codes: Iterable[str], what: str) -> list[str]:
    """The codes, each a rule id, a dotted prefix of one or ALL; raises ValueError naming the first that
    matches no rule (with a "did you mean")."""
    ids = known_rule_ids()
    out = []
    for code in codes:
        code = code.strip()
        if not code:
            continue
        if not any(_matches(code, r) for r in ids):
            from ..core.diagnostics import did_you_mean
            prefixes = sorted({r.rsplit(".", k)[0] for r in ids for k in range(r.count(".") + 1)})
            raise ValueError(f"{what}: '{code}' is not a rule id or a prefix of one{did_you_mean(code, prefixes)} "
                             "(spvcoop val --list-rules lists them)")
        out.append(code)
    return out


def _specificity(codes: Sequence[str], rule: str) -> int:
    """Length of the longest code matching `rule` (ALL counts as 0), -1 for none."""
    best = -1
    for c in codes:
        if _matches(c, rule):
            best = max(best, 0 if c == "ALL" else len(c))
    return best


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Selection(FrozenRecord):
    """The rules to report: `select` (None: all) minus `ignore`, plus per-file ignores
    (glob pattern relative to `base`, the configuration file's directory -> codes)."""
    __slots__ = _fields = ("select", "ignore", "per_file_ignores", "base")
    select: tuple[str, ...] | None
    ignore: tuple[str, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    base: str | None

    def __init__(self, select: Sequence[str] | None = None, ignore: Sequence[str] = (),
                 per_file_ignores: Sequence[tuple[str, Sequence[str]]] = (), base: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "select", None if select is None else tuple(select))
        _set(self, "ignore", tuple(ignore))
        _set(self, "per_file_ignores", tuple((p, tuple(c)) for p, c in per_file_ignores))
        _set(self, "base", base)

    def per_file(self, path: str) -> tuple[str, ...]:
        """The per-file ignores whose pattern matches `path` (relative to base; a pattern without '/' also
        matches the file's name)."""
        extra: list[str] = []
        if self.per_file_ignores:
            rel = os.path.relpath(path, self.base) if self.base else path
            rel = rel.replace(os.sep, "/")
            name = os.path.basename(path)
            for pattern, codes in self.per_file_ignores:
                if fnmatch.fnmatchcase(rel, pattern) or ("/" not in pattern and fnmatch.fnmatchcase(name, pattern)):
                    extra += codes
        return tuple(extra)

    def enabled(self, rule: str | None, path: str = "") -> bool:
        """Whether findings of `rule` in `path` are reported; a per-file ignore always drops them (as in ruff)."""
        if rule is None or rule == SYNTAX_RULE:
            return True
        sel = 0 if self.select is None else _specificity(self.select, rule)
        return sel >= 0 and _specificity(self.ignore, rule) < sel and _specificity(self.per_file(path), rule) < 0

    def apply(self, diags: list[Diagnostic], path: str = "") -> list[Diagnostic]:
        return [d for d in diags if self.enabled(d.rule, path)]


ALL_RULES = Selection()


# ---- inline suppressions ------------------------------------------------------------------------------

_SUPPRESS = re.compile(r"spvcoop:\s*ignore\[([^\]]*)\]")


def _comment(line: str) -> tuple[int, str] | None:
    """(column of `;`, the comment's text) of an assembly line, skipping `;` inside string literals."""
    in_str = esc = False
    for i, ch in enumerate(line):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == ";":
            return i, line[i + 1:]
    return None


class Suppression(FrozenRecord):
    """One `; spvcoop: ignore[A, B]` comment: the line it is on, the line it covers, its codes."""
    __slots__ = _fields = ("line", "col", "target", "codes")
    line: int
    col: int
    target: int
    codes: tuple[str, ...]

    def __init__(self, line: int, col: int, target: int, codes: tuple[str, ...]) -> None:
        _set = object.__setattr__
        _set(self, "line", line)
        _set(self, "col", col)
        _set(self, "target", target)
        _set(self, "codes", codes)


def find_suppressions(text: str) -> list[Suppression]:
    """The suppression comments of assembly text. At the end of a line it covers that line; alone on a line
    (only blanks before the `;`) it covers the next line that is not blank or a comment."""
    lines = text.split("\n")
    out = []
    pending: list[tuple[int, int, tuple[str, ...]]] = []
    for no, line in enumerate(lines, 1):
        c = _comment(line)
        code_part = line if c is None else line[:c[0]]
        if c is not None:
            m = _SUPPRESS.search(c[1])
            if m:
                codes = tuple(x.strip() for x in m.group(1).split(",") if x.strip())
                col = c[0] + 2 + m.start()
                if code_part.strip():
                    out.append(Suppression(no, col, no, codes))
                else:
                    pending.append((no, col, codes))
                    continue
        if code_part.strip():
            out += [Suppression(ln, col, no, codes) for ln, col, codes in pending]
            pending = []
    return out


def apply_suppressions(diags: list[Diagnostic], text: str, path: str,
                       report_unused: bool = False) -> list[Diagnostic]:
    """`diags` less those a suppression comment covers (by the line of the finding); with `report_unused`,
    a warning for each code of a comment that suppressed nothing."""
    sups = find_suppressions(text)
    if not sups:
        return diags
    by_line: dict[int, list[Suppression]] = {}
    for s in sups:
        by_line.setdefault(s.target, []).append(s)
    used: set[tuple[int, str]] = set()
    kept = []
    for d in diags:
        line = d.span.line if d.span is not None else 0
        hit = None
        for s in by_line.get(line, ()) if line else ():
            hit = next((c for c in s.codes if d.rule is not None and _matches(c, d.rule)), None)
            if hit is not None:
                used.add((s.line, hit))
                break
        if hit is None or d.rule == SYNTAX_RULE:
            kept.append(d)
    if report_unused:
        from ..core.module import Span
        for s in sups:
            for c in s.codes:
                if (s.line, c) not in used:
                    span = Span(s.line, s.col, s.col + len("spvcoop: ignore[") + len(",".join(s.codes)) + 1)
                    kept.append(Diagnostic("warning", f"unused suppression: '{c}' reports nothing on line "
                                           f"{s.target}", span, UNUSED_SUPPRESSION_RULE,
                                           [Note(f"rule (spvcoop): {LINT_RULES[UNUSED_SUPPRESSION_RULE][0]}")],
                                           path))
        kept.sort(key=lambda d: d.span.line if d.span is not None and d.span.line else 0)
    return kept

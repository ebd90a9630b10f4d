"""Fast tokenizer for SPIR-V assembly: the terminals of grammar/spvasm.lark as one regex.

lark's own lexer needs about ten times longer on large modules, so the assembler
uses this one; tests/test_syntax_lark.py checks that both produce the same
tokens and the same instruction grouping on every corpus file and on random text.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .diagnostics import SpvError, Diagnostic
from .module import Span

# Same terminals, same priorities as grammar/spvasm.lark; alternation order = priority.
_TOKEN_RE = re.compile(r"""
  (?P<SKIP>(?:[ \t\r\n,()]+|;[^\n]*)+)
| (?P<RESULT>%[^\s;,()"]*)(?=(?:[ \t\r\n,()]|;[^\n]*)*=(?:[ \t\r\n,();]|$))
| (?P<ID>%[^\s;,()"]*)
| (?P<OPNAME>Op[A-Z][^\s;,()"]*)
| (?P<STRING>"(?:[^"\\]|\\.)*")
| (?P<RAW>![^\s;,()"]*)
| (?P<EQUALS>=)(?=[ \t\r\n,();]|$)
| (?P<WORD>[^\s;,()"%!][^\s;,()"]*)
""", re.VERBOSE | re.DOTALL)


class Token(NamedTuple):
    type: str   # RESULT, ID, OPNAME, STRING, RAW, EQUALS, WORD
    text: str
    line: int
    col: int

    def span(self) -> Span:
        return Span(self.line, self.col, self.col + len(self.text))


def tokenize(text: str, source: str = "<input>") -> list[Token]:
    """All tokens of `text` with 1-based line and column."""
    out: list[Token] = []
    append = out.append
    pos = 0
    n = len(text)
    line = 1
    line_start = 0
    match = _TOKEN_RE.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            col = pos - line_start + 1
            if text[pos] == '"':
                raise SpvError(Diagnostic("error", "Invalid literal string: missing closing '\"'",
                                          Span(line, col, col + 1), source=source))
            raise SpvError(Diagnostic("error", f"unexpected character {text[pos]!r}",
                                      Span(line, col, col + 1), source=source))
        kind = m.lastgroup
        end = m.end()
        if kind == "SKIP" or kind is None:
            pass
        else:
            if kind == "RESULT":
                end = m.end("RESULT")
            append(Token(kind, text[pos:end], line, pos - line_start + 1))
        nl = text.count("\n", pos, end)
        if nl:
            line += nl
            line_start = text.rfind("\n", pos, end) + 1
        pos = end
    return out


def group_instructions(tokens: list[Token]) -> tuple[list[Token], list[list[Token]]]:
    """Split the token stream as grammar/spvasm.lark does: leading stray tokens, then one
    list per instruction starting at RESULT or OPNAME (RESULT '=' OPNAME operands...)."""
    lead: list[Token] = []
    groups: list[list[Token]] = []
    cur = lead
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        if t.type == "RESULT" and i + 1 < n and tokens[i + 1].type == "EQUALS":
            cur = [t, tokens[i + 1]]
            groups.append(cur)
            i += 2
            if i < n and tokens[i].type == "OPNAME":
                cur.append(tokens[i])
                i += 1
            continue
        if t.type == "OPNAME":
            cur = [t]
            groups.append(cur)
        else:
            cur.append(t)
        i += 1
    return lead, groups

"""Fast tokenizer for SPIR-V assembly: the terminals of grammar/spvasm.lark, without lark.

lark's lexer needs about ten times longer than spirv-as on large modules, so the
assembler uses this one; tests/asm/test_syntax_lark.py checks that both give the
same tokens and the same instruction grouping on every corpus file and on
random text. Lines without quotes, comments or the separators `,()` (nearly all
lines) are split with str.split(); the others go through one compiled regex
that spells out the lark terminals.

A token is a plain tuple (type, text, line, col): types RESULT, ID, OPNAME,
STRING, RAW, EQUALS, WORD as in the lark grammar.
"""
from __future__ import annotations

import re

from ..core.diagnostics import SpvError, Diagnostic
from ..core.module import Span

Token = tuple  # (type: str, text: str, line: int, col: int)

# Same terminals as grammar/spvasm.lark; alternation order = priority. RESULT is decided
# afterwards (an ID followed by EQUALS), which is what the lark lookahead expresses.
_TOKEN_RE = re.compile(r"""
  (?P<SKIP>(?:[ \t\r\n,()]+|;[^\n]*)+)
| (?P<ID>%[^\s;,()"]*)
| (?P<OPNAME>Op[A-Z][^\s;,()"]*)
| (?P<STRING>"(?:[^"\\]|\\.)*")
| (?P<RAW>![^\s;,()"]*)
| (?P<EQUALS>=)(?=[ \t\r\n,();]|$)
| (?P<WORD>[^\s;,()"%!][^\s;,()"]*)
""", re.VERBOSE | re.DOTALL)

# Quotes, comments, the separators ,() and the blanks other than space, tab and CR (those that
# str.split() splits on), as one character class: a line without them can simply be split.
SPECIAL_CHARS = re.compile('[";,()\n\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029'
                           '\u202f\u205f\u3000]')
_SPECIAL = SPECIAL_CHARS
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


_ID = "ID"
_FIRST_CHAR = {"%": _ID}


def token_span(tok: Token) -> Span:
    return Span(tok[2], tok[3], tok[3] + len(tok[1]))


def _classify(word: str) -> str:
    c = word[0]
    if c == "%":
        return "ID"
    if c == "O" and word.startswith("Op") and len(word) > 2 and word[2] in _UPPER:
        return "OPNAME"
    if c == "!":
        return "RAW"
    if c == "=" and len(word) == 1:
        return "EQUALS"
    return "WORD"


class LineContinues(Exception):
    """A string that does not close on its line (it may close on a later one)."""



def _regex_tokens(text: str, pos: int, line: int, line_start: int, source: str, out: list,
                  one_line: bool = False) -> None:
    """Tokenize text[pos:] with the full regex (strings may span lines here)."""
    n = len(text)
    match = _TOKEN_RE.match
    append = out.append
    while pos < n:
        m = match(text, pos)
        if m is None:
            col = pos - line_start + 1
            if text[pos] == '"' and one_line:
                raise LineContinues()
            if text[pos] == '"':
                raise SpvError(Diagnostic("error", "Invalid literal string: missing closing '\"'",
                                          Span(line, col, col + 1), source=source))
            raise SpvError(Diagnostic("error", f"unexpected character {text[pos]!r}",
                                      Span(line, col, col + 1), source=source))
        kind = m.lastgroup
        end = m.end()
        if kind != "SKIP":
            append((kind, m.group(), line, pos - line_start + 1))
        nl = text.count("\n", pos, end)
        if nl:
            line += nl
            line_start = text.rfind("\n", pos, end) + 1
        pos = end


def tokenize(text: str, source: str = "<input>", first_line: int = 1) -> list[Token]:
    """All tokens of `text` with 1-based line and column (RESULT not yet told from ID)."""
    out: list[Token] = []
    append = out.append
    special = _SPECIAL.search
    classify = _classify
    offset = 0
    for lineno, line in enumerate(text.split("\n"), first_line):
        if special(line):
            mark = len(out)
            try:
                _regex_tokens(line, 0, lineno, 0, source, out, one_line=True)
            except LineContinues:
                # a string runs over several lines: finish with the regex on the whole text
                del out[mark:]
                _regex_tokens(text, offset, lineno, offset, source, out)
                return out
        else:
            col = 0
            find = line.find
            for word in line.split():
                col = find(word, col)
                typ = _FIRST_CHAR.get(word[0], "WORD")
                if typ is not _ID:
                    typ = classify(word)
                append((typ, word, lineno, col + 1))
                col += len(word)
        offset += len(line) + 1
    return out


def tokenize_line(line: str, source: str = "<input>", lineno: int = 1) -> list[Token]:
    """Tokens of one line (its number: lineno, for the tokens and for errors); raises
    LineContinues if a string runs past its end."""
    if not _SPECIAL.search(line):
        out = []
        col = 0
        find = line.find
        for word in line.split():
            col = find(word, col)
            out.append((_classify(word), word, lineno, col + 1))
            col += len(word)
        return out
    out = []
    _regex_tokens(line, 0, lineno, 0, source, out, one_line=True)
    return out


def group_instructions(tokens: list[Token]) -> tuple[list[Token], list[list[Token]]]:
    """Split the token stream as grammar/spvasm.lark does: leading stray tokens, then one
    list per instruction, starting at RESULT '=' or at OPNAME. An ID directly followed by
    EQUALS becomes RESULT (the lark terminal's lookahead)."""
    lead: list[Token] = []
    groups: list[list[Token]] = []
    cur = lead
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        typ = t[0]
        if typ == "ID" and i + 1 < n and tokens[i + 1][0] == "EQUALS":
            cur = [("RESULT", t[1], t[2], t[3]), tokens[i + 1]]
            groups.append(cur)
            i += 2
            if i < n and tokens[i][0] == "OPNAME":
                cur.append(tokens[i])
                i += 1
            continue
        if typ == "OPNAME":
            cur = [t]
            groups.append(cur)
        else:
            cur.append(t)
        i += 1
    return lead, groups

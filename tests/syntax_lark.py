"""The reference parse of grammar/spvasm.lark with lark itself.

The assembler uses spvcoop.asm.tokenizer (same terminals, much faster); this module
parses with lark so that tests (and `spvcoop as --parser lark`) can check that
both agree on tokens and instruction boundaries.
"""
from __future__ import annotations

import functools
from importlib import resources

from spvcoop.core.diagnostics import Diagnostic, SpvError
from spvcoop.core.module import Span


def grammar_text() -> str:
    return resources.files("spvcoop.grammar").joinpath("spvasm.lark").read_text()


@functools.lru_cache(maxsize=1)
def _parser():
    import lark
    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=True,
                     maybe_placeholders=False)


def lark_groups(text: str, source: str = "<input>") -> tuple[list[tuple], list[list[tuple]]]:
    """(leading tokens, one token list per instruction), tokens as (type, text, line, col)."""
    import lark
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        line, col = getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0
        raise SpvError(Diagnostic("error", f"syntax error: {type(e).__name__}", Span(line, col, col + 1),
                                  source=source)) from None

    def tok(t) -> tuple:
        return (t.type, str(t), t.line, t.column)

    lead = [tok(t) for t in tree.children if isinstance(t, lark.Token)]
    groups = [[tok(t) for t in inst.children] for inst in tree.children if isinstance(inst, lark.Tree)]
    return lead, groups

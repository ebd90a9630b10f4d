"""What one input did: the record execute.py classifies and differential.py's comparisons return, and how a CLI
exit is classified (a module of its own, so that those two do not import each other)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Outcome:
    cls: str
    signature: str = ""
    detail: str = ""                       # message and traceback (findings only)
    exit_code: int | None = None
    rss_kb: int = 0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


_INTERNAL = re.compile(r"internal error at (\S+)")
# human 'error:', json/sarif '"error"', github '::error'
_LOCATED = re.compile(r'\berror(\[[^\]\n]*\])?:|"error"|::error')


def classify_exit(code: int, stderr: str, stdout: str) -> Outcome:
    """A CLI exit status and its captured stderr."""
    if "Traceback (most recent call last)" in stderr:
        last = stderr.strip().splitlines()[-1][:120]
        return Outcome("traceback", "printed traceback: " + re.sub(r"\d+", "N", last), stderr[-4000:], code)
    if code == 0:
        return Outcome("accepted", exit_code=0)
    if code == 3:  # an internal error: a bug, counted on its own
        m = _INTERNAL.search(stderr)
        return Outcome("exit3", "exit 3 at " + (m.group(1) if m else "?"), stderr[-4000:], code)
    if code in (1, 2):
        if _LOCATED.search(stderr) or _LOCATED.search(stdout):
            return Outcome("rejected", exit_code=code, detail=stderr[:300])
        first = (stderr.strip().splitlines() or ["<no stderr>"])[0]
        return Outcome("unlocated", f"exit {code} without diagnostic: " + re.sub(r"\d+", "N", first[:100]),
                       stderr[:2000], code)
    return Outcome("traceback", f"exit {code}", stderr[-4000:], code)

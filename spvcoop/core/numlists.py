"""Long flow lists of plain numbers in YAML text (`[0.5, -1.25, 3, ...]`, a buffer of a million floats), read in
one go for yamlio's fast path.

A list is accepted only when every item is a plain YAML 1.1 int (-?(0|[1-9][0-9]*), at most 18 digits) or float
(-?D+.D*, an exponent with a sign), with whitespace only around the commas: exactly the scalars the resolver
reads as int or float, so the values are the ones the general path gives. Anything else returns None and goes
the general way.

Checked and converted with byte-wise C operations (bytes.translate, numpy on uint8 arrays, pair codes),
not item by item. Floats take Clinger's exact fast path: the digits without the point parsed as integers
(numpy's integer parser is several times faster than its float parser), then M * 10^p or M / 10^-p, which is
correctly rounded (one IEEE operation on two exact operands) when M < 2^53 and |p| <= 22; a list with any
other item is parsed by numpy's float parser (correctly rounded too). BENCHMARKS.md (issue 14) has the
figures.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    import numpy as np

FAST_MIN_CHARS = 2000    # shorter flow lists go the general way
MAX_DIGITS = 18          # an int64 holds every integer of 18 digits

_WHITESPACE = b" \r\n"
_NUMBER_CHARS = b"0123456789-+.eE," + _WHITESPACE
# byte classes, 3 bits: 0 other, 1 digit 1-9, 2 '-', 3 '+', 4 '.', 5 'e'/'E', 6 ',', 7 '0'
_CLASS = bytearray(256)
for _ch in b"123456789":
    _CLASS[_ch] = 1
_CLASS[ord("-")], _CLASS[ord("+")], _CLASS[ord(".")], _CLASS[ord(",")], _CLASS[ord("0")] = 2, 3, 4, 6, 7
_CLASS[ord("e")] = _CLASS[ord("E")] = 5
_CLASS_TABLE = bytes(_CLASS)
# which class may follow which (whitespace removed): -?D+(.D*([eE][-+]D+)?)? items between commas; the code of a
# pair is first << 3 | second, and _BAD_PAIR maps it to 1 unless allowed
_DIGITS = (1, 7)
_ALLOWED = {(6, 2), (4, 6), (4, 5), (5, 2), (5, 3), (1, 6), (7, 6)}
_ALLOWED |= {(a, d) for a in (6, 2, 3, 4, 1, 7) for d in _DIGITS} | {(d, b) for d in _DIGITS for b in (4, 5)}
_BAD_PAIR = bytes(0 if (code >> 3, code & 7) in _ALLOWED else 1 for code in range(256))


def parse_numbers(body: str):
    """The items of a flow list's inside (between '[' and ']') when every one is a plain YAML 1.1 int or float
    (see the module text): (values as a Python list, numpy array or None), else None."""
    if not body.isascii():
        return None
    raw = body.encode("ascii")
    if raw.translate(None, _NUMBER_CHARS):
        return None                               # a character no plain number has
    import numpy as np
    solid = raw.translate(None, _WHITESPACE)
    if not solid:
        return None
    c = np.frombuffer(solid.translate(_CLASS_TABLE), np.uint8)
    if c[0] not in (1, 2, 7) or c[-1] not in (1, 4, 7):
        return None
    if c.size > 1 and 1 in ((c[:-1] << 3) | c[1:]).tobytes().translate(_BAD_PAIR):
        return None
    n = solid.count(b",") + 1
    if not _whitespace_at_commas(np, raw, n):
        return None
    if b"." not in solid:
        if b"e" in solid or b"E" in solid:        # an exponent without a point: not a number in YAML 1.1
            return None
        starts = np.concatenate(([0], np.flatnonzero(c == 6) + 1))
        return _integers(np, solid, c, starts, n) if _no_leading_zeros(np, c, starts) else None
    # the markers in order ('.', 'e', ','): per item at most one '.', an exponent only right after its
    # own item's point, once (pairs: ',' then '.' or ',', '.' then 'e' or ',', 'e' then ',')
    mpos = np.flatnonzero((c >= 4) & (c <= 6))
    kind = c[mpos]
    if kind[0] == 5 or (kind.size > 1 and 1 in ((kind[:-1] << 3) | kind[1:]).tobytes().translate(_BAD_MARKERS)):
        return None
    starts = np.concatenate(([0], mpos[kind == 6] + 1))
    if not _no_leading_zeros(np, c, starts):
        return None
    at_dot = np.flatnonzero(kind == 4)
    if at_dot.size == n:
        arr = _floats(np, solid, c, n, mpos, kind, at_dot, starts)
        return (arr.tolist(), arr) if arr.size == n else None
    # mixed: each item its own type, as the general path gives them
    parts = solid.decode("ascii").split(",")
    if any(len(p) > 30 for p in parts):   # leave long literals to the general path and its limits
        return None
    values = [float(p) if "." in p else int(p) for p in parts]
    return (values, None) if len(values) == n else None


_BAD_MARKERS = bytes(0 if (code >> 3, code & 7) in {(6, 4), (6, 6), (4, 5), (4, 6), (5, 6)} else 1
                     for code in range(256))


def _no_leading_zeros(np, c, starts) -> bool:
    """YAML 1.1 reads 017 as octal: no item starts with 0 (after its sign) and goes on with a digit."""
    first = starts + (c[starts] == 2)
    nxt = c[np.minimum(first + 1, c.size - 1)]
    return not ((c[first] == 7) & (first + 1 < c.size) & ((nxt == 1) | (nxt == 7))).any()


def _whitespace_at_commas(np, raw: bytes, n: int) -> bool:
    """Whitespace only next to a comma or at the ends: "1 2" is one plain scalar, not two numbers. Items are
    never empty (the pair check), so this holds exactly when the runs between separators (whitespace and
    commas) number n, one per item."""
    if not (b" " in raw or b"\n" in raw or b"\r" in raw):
        return True
    b = np.frombuffer(raw, np.uint8)
    sep = b <= 32                                 # (only whitespace is below '+' among the allowed bytes)
    sep |= b == 44
    runs = np.count_nonzero(np.less(sep[1:], sep[:-1])) + (not sep[0])   # a separator, then not
    return runs == n


def _integers(np, solid: bytes, c, starts, n: int):
    lengths = np.diff(np.append(starts, c.size + 1)) - 1 - (c[starts] == 2)
    if lengths.max() > MAX_DIGITS:
        return None
    arr = np.fromstring(solid, dtype=np.int64, sep=",")
    return (arr.tolist(), arr) if arr.size == n else None


_POW10 = None


def _floats(np, solid: bytes, c, n: int, mpos, kind, at_dot, starts):
    """Every item has one '.', some an exponent: Clinger's fast path where it applies, numpy's parser otherwise."""
    global _POW10
    if _POW10 is None:
        _POW10 = np.array([10.0 ** k for k in range(23)])   # exact: 10^22 < 2^53 * 2^22
    dot = mpos[at_dot]
    after = np.append(mpos, c.size)               # where each marker's part ends: the next marker, or the end
    mend = after[at_dot + 1]                      # the mantissa ends at the next marker ('e' or ',')
    neg = c[starts] == 2
    frac = mend - dot - 1
    if (mend - starts - neg - 1).max() > MAX_DIGITS:
        return np.fromstring(solid, dtype=np.float64, sep=",")
    at_e = np.flatnonzero(kind == 5)
    digits = solid.replace(b".", b"")             # the digits without the point
    if at_e.size:
        if (after[at_e + 1] - mpos[at_e] - 2).max() > MAX_DIGITS:    # exponent digits (after 'e' and its sign)
            return np.fromstring(solid, dtype=np.float64, sep=",")
        digits = digits.replace(b"e", b",").replace(b"E", b",")   # an exponent: an integer after its mantissa
    ints = np.fromstring(digits, dtype=np.int64, sep=",")
    if ints.size != n + at_e.size:
        return np.fromstring(solid, dtype=np.float64, sep=",")
    p = -frac
    if at_e.size:
        e_item = np.searchsorted(at_dot, at_e) - 1    # the item of each exponent: the one of the point before it
        shift = np.zeros(n + 1, np.int64)
        shift[e_item + 1] = 1            # items after an exponent item sit one further on (e_item: increasing)
        shift = np.cumsum(shift)[:n]
        mant = ints[np.arange(n) + shift]
        p[e_item] += ints[e_item + shift[e_item] + 1]
    else:
        mant = ints
    m = np.abs(mant)
    if not ((m < (1 << 53)).all() and (np.abs(p) <= 22).all()):
        return np.fromstring(solid, dtype=np.float64, sep=",")
    mf = m.astype(np.float64)
    scale = _POW10[np.abs(p)]
    value = np.where(p >= 0, mf * scale, mf / scale)
    return np.where(neg, -value, value)


class ItemMarks:
    """The marks of a fast-read list's items, worked out from the text when first asked for."""

    def __init__(self, source: str, body: str, index: int, line: int, column: int, n: int):
        self.source, self.body, self.index, self.line, self.column, self.n = source, body, index, line, column, n
        self._at: np.ndarray | None = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        if not -self.n <= i < self.n:
            raise IndexError(i)
        import numpy as np
        if self._at is None:
            raw = np.frombuffer(self.body.encode("ascii"), np.uint8)
            solid = np.flatnonzero((raw != 32) & (raw != 10) & (raw != 13))
            commas = np.flatnonzero(raw == ord(","))
            self._at = solid[np.searchsorted(solid, np.concatenate(([0], commas + 1)))]
            self._nl = np.flatnonzero(raw == ord("\n"))
        pos = int(self._at[i])
        k = int(np.searchsorted(self._nl, pos))
        col = self.column + 1 + pos if k == 0 else pos - int(self._nl[k - 1]) - 1
        # PyYAML's Mark takes pointer=None along with buffer=None (no snippet); its stub says int
        return yaml.Mark(self.source, self.index + 1 + pos, self.line + k, col, None, None)  # type: ignore[arg-type]


def flow_candidates(text: str):
    """(start, end) of every innermost flow list '[...]' of at least FAST_MIN_CHARS characters: str.find
    and rfind in C, each character looked at a bounded number of times (a regex over the list's characters
    cost 0.1 s per 12 MB list)."""
    pos = 0
    while True:
        start = text.find("[", pos)
        if start < 0:
            return
        end = text.find("]", start)
        if end < 0:
            return
        start = text.rfind("[", start, end)    # the innermost list that ends here
        if end - start - 1 >= FAST_MIN_CHARS:
            yield start, end + 1
        pos = end + 1


def numeric_flows(text: str, source: str):
    """(text with long numeric flow lists blanked, {(line, column) of ']': (values, array, marks)}).
    A list is blanked to its newlines, plus spaces for its last line, so that every mark outside it stays
    where it was; libyaml then reads an empty list there (over 12 MB of blanks it took 0.2 s)."""
    found = {}
    pieces = []
    last = 0
    last_line, last_at = 0, 0   # the line of the previous list's '[' and where it is: counting goes on from there
    for m_start, m_end in flow_candidates(text):
        body = text[m_start + 1:m_end - 1]
        parsed = parse_numbers(body)
        if parsed is None:
            continue
        line = last_line + text.count("\n", last_at, m_start)
        column = m_start - (text.rfind("\n", 0, m_start) + 1)
        last_line, last_at = line, m_start
        marks = ItemMarks(source, body, m_start, line, column, len(parsed[0]))
        newlines = body.count("\n")
        nl = body.rfind("\n")   # keyed by the closing ']': an anchor or tag moves the opening mark
        end = (line + newlines, column + 1 + len(body) if nl < 0 else len(body) - nl - 1)
        found[end] = (parsed[0], parsed[1], marks)
        pieces.append(text[last:m_start + 1])
        pieces.append("\n" * newlines + " " * (len(body) - nl - 1))
        last = m_end - 1
    if not found:
        return text, found
    pieces.append(text[last:])
    return "".join(pieces), found

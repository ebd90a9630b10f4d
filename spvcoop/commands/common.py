"""Helpers shared by the subcommands: reading input, printing diagnostics, atomic output."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ..diagnostics import Diagnostic, SpvError, print_diagnostics  # noqa: F401  (re-exported for the commands)


def read_input(path: str) -> bytes:
    """Read a file or '-' (stdin); unreadable input is a user error (SpvError)."""
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        return Path(path).read_bytes()
    except OSError as e:
        raise SpvError(Diagnostic("error", f"cannot read input: {e.strerror or e}", source=path)) from None


def write_output(path: str | None, data: bytes | str) -> None:
    """Write all of data or nothing: a temporary file renamed into place."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if path is None or path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".spvcoop-", dir=directory)
    except OSError as e:
        raise SpvError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def run_guarded(func, text_for_caret=None) -> int:
    """Call func(); turn SpvError into printed diagnostics and exit status 1."""
    try:
        return func()
    except SpvError as e:
        print_diagnostics(e.diagnostics, text_for_caret() if text_for_caret else None)
        return 1

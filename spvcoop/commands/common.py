"""What the subcommands share. Reading and writing files lives in spvcoop.core.files and diagnostic
formatting in spvcoop.core.diagnostics (the library uses them too); writing to the terminal is here
alone: the library never prints."""
from __future__ import annotations

import argparse
import sys

from ..core.diagnostics import Diagnostic, format_diagnostics
from ..core.files import as_output_bytes, read_input, write_file


def print_diagnostics(diags: list[Diagnostic], text: str | None = None, stream=None) -> None:
    """Human format on stderr (or `stream`): headline, the source line with a caret, then notes."""
    (stream or sys.stderr).write(format_diagnostics(diags, text))


def write_output(path: str | None, data: bytes | str) -> None:
    """`data` to the file `path` (all or nothing), or to standard output for None or '-'."""
    if path is None or path == "-":
        sys.stdout.buffer.write(as_output_bytes(data))
        sys.stdout.buffer.flush()
        return
    write_file(path, data)


class StatusLine:
    """One line of progress on standard error, rewritten in place, only where standard error is a terminal (a log
    or a CI job gets none) and only once the work has taken `after` seconds; `done()` clears it. Several commands
    share it: a long `run`, `layout measure`, `numerics measure`."""

    def __init__(self, enabled: bool = True, after: float = 1.0, stream=None) -> None:
        import time
        self.stream = stream or sys.stderr
        self.enabled = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self.after = after
        self.width = 0

    def elapsed(self) -> float:
        import time
        return time.monotonic() - self.start

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        t = self.elapsed()
        if t < self.after:
            return
        spin = "|/-\\"[int(t * 4) % 4]
        line = f"{spin} {text}, {t:.1f}s"[:119]
        self.stream.write("\r" + line + " " * max(0, self.width - len(line)))
        self.stream.flush()
        self.width = len(line)

    def done(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


__all__ = ["StatusLine", "parse_size", "print_diagnostics", "read_input", "reports_errors", "write_output"]

_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """A byte count for an option: '512', '64K', '2G' (a trailing B is allowed)."""
    t = text.strip().upper().removesuffix("B")
    scale = _UNITS.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in _UNITS else t
    if not digits.isdigit() or len(digits) > 15 or int(digits) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive size in bytes (e.g. 512M), got '{text}'")
    return int(digits) * scale


def device_arg(text: str) -> str:
    """--device: checked as it is parsed, so an empty or malformed value is a usage error (exit 2) wherever it is
    given, never a value taken for 'no device'; the text is kept (each command opens the device itself)."""
    from ..gpu import device_error   # the package's __init__ only: no Vulkan binding is loaded here
    reason = device_error(text)
    if reason is not None:
        raise argparse.ArgumentTypeError(reason)
    return text


def reports_errors(fn):
    """A command function whose SpvError/InputError becomes printed diagnostics and that error's exit status."""
    def wrapped(args):
        from ..core.diagnostics import SpvError
        try:
            return fn(args)
        except SpvError as e:
            print_diagnostics(e.diagnostics)
            return e.exit_status
    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped

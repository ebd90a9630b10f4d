"""Reading inputs and writing outputs: whole files, '-' for the standard streams, atomic writes.

Used by the library (loader, run specs) and by the commands alike; it knows nothing of argv.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .diagnostics import Diagnostic, InputError
import contextlib


# Inputs are read whole; a bound keeps `/dev/zero` or a runaway pipe from taking all memory.
# The CLI's global `--max-input-size` raises it.
DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024
max_input_bytes = DEFAULT_MAX_INPUT_BYTES


def read_input(path: str, limit: int | None = None, option: str = "--max-input-size") -> bytes:
    """Read a file or '-' (stdin), at most `limit` bytes (default: max_input_bytes); unreadable or
    oversized input is a user error (InputError) that names the `option` raising the limit."""
    limit = max_input_bytes if limit is None else limit
    try:
        if path == "-":
            data = read_bounded(sys.stdin.buffer, limit)
        else:
            with open(path, "rb") as f:
                data = read_bounded(f, limit)
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise InputError(Diagnostic("error", f"cannot read input: {getattr(e, 'strerror', None) or e}",
                                    source=path)) from None
    except MemoryError:  # a limit raised past what the machine has (a device read until the end)
        raise InputError(Diagnostic("error", f"not enough memory to read up to {limit} bytes of input "
                                    "(lower --max-input-size)", source=path)) from None
    if len(data) > limit:
        raise InputError(Diagnostic("error", f"input is larger than the limit of {limit} bytes "
                                    f"(raise it with {option})", source=path))
    return data


def read_bounded(f, limit: int) -> bytes:
    """At most limit + 1 bytes, in chunks: read(n) allocates n bytes at once, so a raised limit must
    not cost its size in memory for a small file."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = f.read(min(1 << 24, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def as_output_bytes(data: bytes | str) -> bytes:
    # surrogate escapes carry the raw bytes of strings that are not UTF-8 (spirv-dis prints them as is)
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data


def write_file(path: str, data: bytes | str) -> None:
    """Write all of data or nothing: a temporary file renamed into place (standard output is the CLI
    layer's: commands/common.write_output)."""
    data = as_output_bytes(data)
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        import tempfile  # only where a file is written
        fd, tmp = tempfile.mkstemp(prefix=".spvcoop-", dir=directory)
    except OSError as e:
        raise InputError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):  # a full disk, a directory in the way: the user's to fix
            raise InputError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=path)) from None
        raise

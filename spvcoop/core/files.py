"""Reading inputs and writing outputs: whole files, '-' for the standard streams, atomic writes.

Used by the library (loader, run specs) and by the commands alike; it knows nothing of argv.
"""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from .diagnostics import Diagnostic, InputError
import contextlib


# Inputs are read whole; a bound keeps a runaway pipe from taking all memory. A module takes 17-165 times its
# size in memory (`as` of OpNop lines to `val` of OpName lines, bench/bench_input_limit.py): 32 MiB keeps the worst
# near 5 GB (256 MiB asked for ~40 GB). The CLI's global `--max-input-size` raises it.
DEFAULT_MAX_INPUT_BYTES = 32 * 1024 * 1024
max_input_bytes = DEFAULT_MAX_INPUT_BYTES


def read_input(path: str, limit: int | None = None, option: str = "--max-input-size",
               root: str | None = None) -> bytes:
    """Read a file or '-' (stdin), at most `limit` bytes (default: max_input_bytes); unreadable or
    oversized input is a user error (InputError) that names the `option` raising the limit.
    `root`: the directory a search found `path` under (open_input says what that refuses)."""
    limit = max_input_bytes if limit is None else limit
    try:
        if path == "-":
            data = read_bounded(sys.stdin.buffer, limit)
        else:
            with open_input(path, root) as f:
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


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """'a directory', 'a named pipe (FIFO)', ... for a stat mode that is not a regular file's."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def inside(path: str, root: str) -> bool:
    """Whether `path`, every link followed, lies in the tree of directory `root` (links followed too)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def open_input(path: str, root: str | None = None) -> BinaryIO:
    """The one place inputs are opened: a regular file only, for reading.

    Devices, FIFOs, sockets and directories are refused without blocking (a FIFO would hang the reader,
    /dev/zero never ends). With `root` (the directory `lint DIR` searched), a symbolic link whose target
    resolves outside root is refused: a tree from an untrusted pull request must not make us read, and then
    quote, `/proc/self/environ`. A path named on the command line (no root) that goes through a link is read
    only where the link leads inside the working directory or the named file's own directory: a committed
    `x.spvasm -> /proc/self/environ` checked by `spvcoop val x.spvasm` is refused too (name the target itself
    to read it). Raises InputError naming the file, never its contents."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    target = path
    if root is None and os.path.realpath(path) != os.path.abspath(path):
        here = os.path.dirname(os.path.abspath(path))
        if not (inside(path, os.getcwd()) or inside(path, here)):
            raise InputError(Diagnostic("error", "not read: a symbolic link to a file outside the working directory "
                                        "and the link's own directory (name the file itself to read it)",
                                        source=path))
        target, flags = os.path.realpath(path), flags | getattr(os, "O_NOFOLLOW", 0)
    elif root is not None:
        if not inside(path, root):
            raise InputError(Diagnostic("error", f"not read: a symbolic link to a file outside '{root}' (links "
                                        "out of the tree being checked are refused)", source=path))
        # open the resolved file and refuse a link put there since: it can no longer lead out of root
        target, flags = os.path.realpath(path), flags | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(target, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(Diagnostic("error", f"not read: {file_kind(mode)}, not a regular file", source=path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


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
        honour_umask(fd)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):  # a full disk, a directory in the way: the user's to fix
            raise InputError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=path)) from None
        raise


def honour_umask(fd: int) -> None:
    """Give a file made by mkstemp (always 0600) the mode open() would have given it: 0666 less the umask
    (0644 under umask 022), so outputs renamed into place are readable as usual."""
    mask = os.umask(0o022)  # reading the umask means setting it; put straight back
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)


def search_tree(root: str, suffixes: tuple[str, ...], max_entries: int) -> tuple[list[str], int]:
    """Files under directory `root` whose names end in one of `suffixes`, sorted, and how many entries were seen.

    Iterative (a stack, not recursion), so a tree thousands of levels deep is searched like a flat one;
    links to directories are not entered and hidden directories are skipped. Links and other non-regular
    entries with a matching name are listed: open_input(path, root) refuses them with a located error, so
    a link out of the tree or a FIFO is reported, never read. More than max_entries entries, or a directory
    that cannot be listed, is an InputError."""
    found: list[str] = []
    seen = 0
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda entry: entry.name)
        except OSError as e:
            raise InputError(Diagnostic("error", f"cannot search directory: {e.strerror or e}",
                                        source=directory)) from None
        seen += len(entries)
        if seen > max_entries:
            raise InputError(Diagnostic("error", f"more than {max_entries} files and directories under "
                                        f"'{root}' (name the directories to lint, or raise --max-files)", source=root))
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.name.startswith("."):
                    subdirs.append(entry.path)
            elif entry.name.endswith(suffixes):
                found.append(entry.path)
        stack.extend(reversed(subdirs))  # depth first, in name order
    return found, seen

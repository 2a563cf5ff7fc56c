"""Reading input files within bounds, and the one error kind for outputs that cannot be written.

Every file schedc reads on a user's behalf (a spec, an answer, a batch record's spec) is read with
:func:`read_bounded`: it must be a regular file — a FIFO, a device such as ``/dev/zero``, a socket or
a directory is refused at once, without blocking on it — and at most ``limit`` bytes long, so that
no input makes schedc read without end or hold more memory than the limit. The check is made on the
open file (``fstat`` of the descriptor, opened non-blocking), not on the path, so swapping the path
for a FIFO between a check and the read changes nothing.

:class:`WriteFailed` is a :class:`~schedc.core.diagnostics.SchedcError` for an output that could not
be written (a full disk, a folder without write permission): the command says what was saved and
exits with :data:`EXIT_IO` instead of 2 (bad input).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from schedc.core.diagnostics import SchedcError

#: The largest spec (``.sched`` file) read by default: far above the largest canonical instance (a few MB).
MAX_SPEC_BYTES = 64 << 20
#: The largest answer read by default: a million-token model output is about 4 MB.
MAX_ANSWER_BYTES = 16 << 20
#: Exit status of a command that could not write its output (``EX_IOERR`` of sysexits.h).
EXIT_IO = 74

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
_SIZE = re.compile(r"(?i)^\s*([0-9]{1,15})\s*([kmg]?)i?b?\s*$")


class WriteFailed(SchedcError):
    """An output could not be written (disk full, permissions): exit status :data:`EXIT_IO`."""

    exit_code = EXIT_IO


def exit_code(error: SchedcError) -> int:
    """The exit status a command ends with on ``error``: 2 (bad input) unless the error says otherwise."""
    return int(getattr(error, "exit_code", 2))


def parse_size(text: str) -> int:
    """``"16M"``, ``"512k"``, ``"1G"`` or a number of bytes → bytes (binary multiples); a ValueError otherwise."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (e.g. 16M, 512k, 1G or a number of bytes)")
    return int(match.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[match.group(2).lower()]


def file_kind(mode: int) -> str | None:
    """What a file of ``st_mode`` is when it is not a regular file (None for a regular file)."""
    return next((name for test, name in _KINDS if test(mode)), None if stat.S_ISREG(mode) else "not a regular file")


def read_bounded(path: str | os.PathLike[str], limit: int, *, code: str, what: str, option: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; a SchedcError ``code`` otherwise.

    ``what`` names the file in messages (``the answer``); ``option`` the command-line option that
    raises the limit, for the hint.
    """
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SchedcError.at(code, f"cannot read {what}: {exc.strerror or exc}", file=name) from None
    try:
        info = os.fstat(fd)
        kind = file_kind(info.st_mode)
        if kind is not None:
            raise SchedcError.at(code, f"{what} is {kind}, not a regular file", file=name,
                                 hint="give the path of a file")
        if info.st_size > limit:
            raise _too_large(code, what, name, info.st_size, limit, option)
        chunks, size = [], 0
        while size <= limit:  # the file may grow while it is read: never read past the limit
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise _too_large(code, what, name, None, limit, option)
        return b"".join(chunks)
    except OSError as exc:
        raise SchedcError.at(code, f"cannot read {what}: {exc.strerror or exc}", file=name) from None
    finally:
        os.close(fd)


def _too_large(code: str, what: str, name: str, size: int | None, limit: int, option: str | None) -> SchedcError:
    """``size`` None: the file grew past the limit while it was read."""
    measured = f"{size:,} bytes" if size is not None else "still growing"
    hint = f"raise the limit with {option}" if option else None
    return SchedcError.at(code, f"{what} is larger than the limit of {limit:,} bytes ({measured})", file=name,
                          hint=hint)


def write_failed(path: Path | str, exc: OSError, saved: str = "") -> WriteFailed:
    """The error of an output that could not be written, with what was saved before it failed."""
    tail = f"; {saved}" if saved else ""
    return WriteFailed.at("W001", f"cannot write: {exc.strerror or exc}{tail}", file=str(path),
                          hint="free disk space or fix the folder's permissions, then run the command again")

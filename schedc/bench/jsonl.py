"""JSON-lines files the runner reads and appends to, tolerant of exactly one kind of damage.

A process killed while appending can leave a *torn last line*: the file does not end with a newline and
its last line is not a JSON object. :func:`read_records` reports such a line as a warning and ignores it;
:class:`JsonlAppender` repairs it (cuts the torn bytes) before its first append. Every other bad line —
in the middle of a file, or a last line that ends with a newline — is an error (``B202``) naming the
file and line: it cannot come from an interrupted append, so it is not tolerated silently.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError

Warn = Callable[[str], None]


def read_records(path: Path, warn: Warn) -> list[dict[str, Any]]:
    """The JSON objects of ``path`` (none if it does not exist); a torn last line is reported and skipped."""
    path = Path(path)
    if not path.is_file():
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SchedcError.at("B201", f"cannot read {path}: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    torn_possible = not data.endswith(b"\n")
    records = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        record = _parse(raw)
        if record is None:
            if torn_possible and number == len(lines):
                warn(f"{path}:{number}: ignoring a torn last line ({len(raw)} bytes; repaired on the next append)")
                continue
            raise SchedcError.at("B202", "not a JSON object line", file=str(path), line=number)
        records.append(record)
    return records


def _parse(raw: bytes) -> dict[str, Any] | None:
    """One line as a JSON object, or None."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return record if isinstance(record, dict) else None


def repair_tail(path: Path) -> int:
    """Make ``path`` end at a line boundary: cut a torn last line, or end a whole one with a newline.

    Returns the number of bytes cut (0 when nothing was torn).
    """
    if not path.is_file() or path.stat().st_size == 0:
        return 0
    with path.open("rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return 0
        start = data.rfind(b"\n") + 1
        if _parse(data[start:]) is not None:  # a whole record that lacks only its newline
            handle.write(b"\n")
            return 0
        handle.truncate(start)
        return len(data) - start


class JsonlAppender:
    """Appends one JSON object per line, flushed per line; repairs a torn tail before the first append.

    ``shared``: the file may have other writers (a cache several runs append to), so each line is
    written under an exclusive ``flock`` and no two lines interleave. Write errors (a full disk) are
    raised as ``OSError`` for the caller to report.
    """

    def __init__(self, path: Path, shared: bool = False):
        self.path = Path(path)
        self.shared = shared
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.repaired = repair_tail(self.path)
        self.handle = self.path.open("a", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line and flush it to the operating system."""
        line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
        if not self.shared:
            self.handle.write(line)
            self.handle.flush()
            return
        fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX)
        try:
            self.handle.write(line)
            self.handle.flush()
        finally:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_UN)

    def close(self) -> None:
        """Flush to disk and close (the handle is closed even when flushing fails; the error is raised)."""
        if self.handle.closed:
            return
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
        finally:
            try:
                self.handle.close()
            except OSError:
                pass  # its buffer could not be written: the flush above already raised why


class WriterLock:
    """An exclusive advisory lock (``flock``) on a file, held until :meth:`release`: one writer per file.

    :meth:`acquire` returns False at once when another process holds it.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.handle: Any = None

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = self.path.open("a", encoding="utf-8")
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            self.handle = None
            return False
        return True

    def release(self) -> None:
        if self.handle is not None:
            self.handle.close()  # closing the last descriptor releases the lock
            self.handle = None

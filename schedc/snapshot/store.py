"""Snapshot files: a document written as line-oriented canonical JSON, and read back with its shape checked.

The layout is chosen for code review: keys sorted, two-space indentation, objects always one key per
line, a list on one line only when it holds scalars and fits in :data:`WIDTH` characters (a table row,
a short list of names), and texts (``system``, ``prompt``, ``lines``) one line of text per line of file.
Changing one bound of a spec then changes one line of ``claims`` and, in each rendering that states it,
the one line holding its sentence. The bytes depend on nothing but the document: UTF-8, ``\\n`` line
ends, a final newline, no version or date of schedc.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.snapshot.document import FORMAT_VERSION

SUFFIX = ".snap.json"
"""The file name ending of a snapshot file (``ft06.snap.json``)."""

WIDTH = 100
"""A list of scalars stays on one line when the line it makes is at most this wide."""

TEXT_KEYS = frozenset({"system", "prompt", "lines"})
"""Keys whose list is a text: always one line of text per line of file."""


def dumps(document: dict[str, Any]) -> str:
    """The file text of ``document`` (ends with a newline)."""
    return _value(document, 0, 0, False) + "\n"


def _value(value: Any, depth: int, used: int, text: bool) -> str:
    """``value`` written at nesting ``depth``, on a line of which ``used`` characters are taken already."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = []
        for name in sorted(value):
            prefix = f"{inner}{_scalar(name)}: "
            items.append(prefix + _value(value[name], depth + 1, len(prefix), name in TEXT_KEYS))
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value:
        if not text and all(_flat(v) for v in value):
            compact = "[" + ", ".join(_value(v, 0, 0, False) for v in value) + "]"
            if used + len(compact) + 1 <= WIDTH:  # + 1: the comma after it
                return compact
        return "[\n" + ",\n".join(inner + _value(v, depth + 1, len(inner), False) for v in value) + "\n" + pad + "]"
    return _scalar(value)


def _flat(value: Any) -> bool:
    """A scalar or an empty list or object (what a one-line list may hold)."""
    return not isinstance(value, dict | list) or not value


def _scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------- reading


class _Options(msgspec.Struct, forbid_unknown_fields=True):
    variants: list[str]
    seeds: list[int]
    formats: list[str]
    with_solve: bool
    time_limit: float | None = None


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    """A rendering (theme, system, prompt), a grammar (lines) or a reference to an equal one (same_as)."""

    same_as: str | None = None
    theme: str | None = None
    system: list[str] | None = None
    prompt: list[str] | None = None
    lines: list[str] | None = None


class _Solve(msgspec.Struct, forbid_unknown_fields=True):
    status: str
    objective: int | None
    proven: bool


class _File(msgspec.Struct, forbid_unknown_fields=True):
    schedc_snapshot: int
    instance: str
    family: str
    options: _Options
    claims: dict[str, dict[str, Any]]
    data: dict[str, list[int | str]]
    renderings: dict[str, _Entry]
    grammars: dict[str, dict[str, _Entry]]
    solve: _Solve | None = None


def loads(text: str, file: str = "<snapshot>") -> dict[str, Any]:
    """The document in a snapshot file's text; a SchedcError saying where it is malformed otherwise:
    E952 for text that is not JSON (with line and column), E953 for JSON of another shape or version."""
    try:
        document = json.loads(text, object_pairs_hook=_no_repeats)
    except json.JSONDecodeError as exc:
        raise SchedcError.at("E952", f"the snapshot is not valid JSON: {exc.msg}", file=file, line=exc.lineno,
                             column=exc.colno, source=text,
                             hint="a merge conflict? resolve it, or delete the file and run `schedc snapshot "
                                  "update`") from None
    except _Repeated as exc:
        raise SchedcError.at("E952", f"the snapshot names the key {exc.args[0]!r} twice in one object", file=file,
                             hint="a merge conflict resolved by keeping both sides? delete the file and run "
                                  "`schedc snapshot update`") from None
    _check_shape(document, file)
    return document


class _Repeated(ValueError):
    pass


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise _Repeated(name)
        out[name] = value
    return out


def _check_shape(document: Any, file: str) -> None:
    if isinstance(document, dict) and document.get("schedc_snapshot") != FORMAT_VERSION \
            and isinstance(document.get("schedc_snapshot"), int):
        raise SchedcError.at("E953", f"snapshot format {document['schedc_snapshot']} is not the format this schedc "
                             f"reads ({FORMAT_VERSION})", file=file,
                             hint="write it again with `schedc snapshot update`")
    try:
        parsed = msgspec.convert(document, _File)
    except msgspec.ValidationError as exc:
        raise SchedcError.at("E953", f"not a schedc snapshot: {exc}", file=file,
                             hint="snapshot files are written by `schedc snapshot update` "
                                  "(docs/snapshots.md)") from None
    for section, entries in [("renderings", parsed.renderings), *((f"grammars.{f}", g)
                                                                  for f, g in sorted(parsed.grammars.items()))]:
        _check_entries(section, entries, file)


def _check_entries(section: str, entries: dict[str, _Entry], file: str) -> None:
    """Each entry holds its content or names an entry of the same section that does."""
    content = "lines" if section.startswith("grammars") else "prompt"
    for name, entry in sorted(entries.items()):
        target = entries.get(entry.same_as) if entry.same_as is not None else None
        if entry.same_as is not None and (target is None or target.same_as is not None):
            raise SchedcError.at("E953", f"{section}.{name}: same_as {entry.same_as!r} names no entry with content",
                                 file=file)
        if entry.same_as is None and getattr(entry, content) is None:
            raise SchedcError.at("E953", f"{section}.{name}: neither {content!r} nor 'same_as'", file=file)


def read(path: Path) -> tuple[dict[str, Any], str] | None:
    """The document stored at ``path`` and its text (``\r\n`` read as ``\n``), or None when there is no
    such file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SchedcError.at("E952", f"cannot read the snapshot: {exc.strerror or exc}", file=str(path)) from None
    try:
        text = raw.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise SchedcError.at("E952", f"the snapshot is not UTF-8 (byte {exc.start})", file=str(path)) from None
    return loads(text, str(path)), text


def write(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` atomically (readers see the old file or the new one, never a part)."""
    from schedc.importers.common import write_atomic

    try:
        write_atomic(path, dumps(document))
    except OSError as exc:
        raise SchedcError.at("E956", f"cannot write the snapshot: {exc.strerror or exc}", file=str(path)) from None

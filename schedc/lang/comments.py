"""Comments through ``schedc fmt``: collected from the source text and woven into the canonical text.

The IR keeps no comments; the printer writes canonical text without them. :func:`keep_comments`
puts them back, each attached to what it was written beside:

* a full-line comment between statements goes before the next statement (comments after the
  last statement stay at the end of the file);
* a comment on a statement's line (``hard coverage c table   # day SHIFT=LO..``), or on a row
  of a table or block, goes on the printed line with the same text (blanks normalised); a
  full-line comment inside a table goes before that row;
* a comment whose line has no printed counterpart (a row the printer wrote differently, a
  statement it merged into another) goes before the statement it belonged to, so nothing is lost.

Statements are matched by what they are (``instance``, ``meta``, the table ``course``, the
constraint ``lectures``, …), not by position, since the printer orders them canonically. The
result re-formats to itself: the printed lines carry their comments on the same text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from schedc.lang.constraint_stmt import Stmt
from schedc.lang.statements import parse_statements

INDENT = "  "


@dataclass
class _Woven:
    """Comments to add to a printed statement: before it, and per printed line of it."""

    leading: list[str] = field(default_factory=list)
    before_line: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    after_line: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))


def split_comments(text: str) -> list[tuple[str, str | None]]:
    """Each line of a ``.sched`` text as (code, comment or None); ``#`` inside strings is not a comment."""
    out: list[tuple[str, str | None]] = []
    in_long = False
    for line in text.split("\n"):
        code_end, in_long = _comment_start(line, in_long)
        if code_end is None:
            out.append((line, None))
        else:
            out.append((line[:code_end].rstrip(), line[code_end:].rstrip()))
    return out


def _comment_start(line: str, in_long: bool) -> tuple[int | None, bool]:
    """(index of the ``#`` starting the line's comment or None, still inside a triple-quoted string)."""
    i = 0
    while i < len(line):
        if in_long:
            end = line.find('"""', i)
            if end < 0:
                return None, True
            i, in_long = end + 3, False
        elif line.startswith('"""', i):
            i, in_long = i + 3, True
        elif line[i] == '"':
            i = _string_end(line, i + 1)
        elif line[i] == "#":
            return i, False
        else:
            i += 1
    return None, in_long


def _string_end(line: str, i: int) -> int:
    """The index after the closing quote of a ``"..."`` string whose text starts at ``i``."""
    while i < len(line):
        if line[i] == "\\":
            i += 2
        elif line[i] == '"':
            return i + 1
        else:
            i += 1
    return i


def statement_key(stmt: Stmt) -> tuple[str, ...]:
    """What a statement is, independent of where it stands: ``("table", "course")``, ``("constraint", "c1")``."""
    if stmt.rule == "table_stmt":
        return ("table", str(stmt.parts[0]))
    if stmt.rule == "constraint_stmt":
        words = [p for p in stmt.parts[1:] if not isinstance(p, Stmt | tuple)]
        return ("constraint", str(words[1]).strip('"')) if len(words) > 1 else ("constraint",)
    return (stmt.rule,)


def keep_comments(source: str, printed: str, file: str = "<input>") -> str:
    """``printed`` (the canonical text of ``source``) with the comments of ``source`` woven back in."""
    lines = split_comments(source.removeprefix("\ufeff"))
    if not any(comment for _code, comment in lines):
        return printed
    targets = _spans(parse_statements(printed, file))
    sources = _spans(parse_statements(source, file))
    out_lines = printed.rstrip("\n").split("\n")
    woven: dict[tuple[str, ...], _Woven] = defaultdict(_Woven)
    trailer = _collect(lines, sources, _placement(sources, targets), targets, out_lines, woven)
    return _weave(out_lines, targets, woven, trailer)


def _placement(sources: list[tuple[tuple[str, ...], int, int]],
               targets: list[tuple[tuple[str, ...], int, int]]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Source statement → the printed statement its comments go to: itself, or (when the printer
    wrote it under another name, e.g. ``activities`` as ``jobs``) the next one that is printed."""
    printed = [key for key, _first, _last in targets]
    order = [key for key, _first, _last in sources]
    out = {}
    for index, key in enumerate(order):
        out[key] = key if key in printed else next((k for k in order[index + 1:] if k in printed), printed[-1])
    return out


def _spans(stmts: Sequence[Stmt]) -> list[tuple[tuple[str, ...], int, int]]:
    """(key, first line, last line) of each statement, 1-based, in text order."""
    return [(statement_key(s), s.span.line, s.span.end_line or s.span.line) for s in stmts if s.span is not None]


def _collect(lines: list[tuple[str, str | None]], sources: list[tuple[tuple[str, ...], int, int]],
             place: dict[tuple[str, ...], tuple[str, ...]], targets: list[tuple[tuple[str, ...], int, int]],
             out_lines: list[str], woven: dict[tuple[str, ...], _Woven]) -> list[str]:
    """Attach every source comment to a printed statement; return those after the last statement."""
    printed = {key: (first, last) for key, first, last in targets}
    pending: list[str] = []  # full-line comments waiting for the next statement
    owner = _owners(len(lines), sources)
    for number, (code, comment) in enumerate(lines, start=1):
        home = owner.get(number)
        if home is not None and pending:  # the statement after a block of comments
            woven[place[home[0]]].leading.extend(pending)
            pending = []
        if comment is None:
            continue
        if home is None:
            pending.append(comment)
            continue
        key, first = home
        if key not in printed:
            woven[place[key]].leading.append(comment)
        elif code.strip():
            _on_line(woven[key], printed[key], out_lines, code, comment, number == first)
        else:
            _before_next_row(woven[key], printed[key], out_lines, lines, number, comment)
    return pending


def _owners(count: int, sources: list[tuple[tuple[str, ...], int, int]]) -> dict[int, tuple[tuple[str, ...], int]]:
    """Source line → (key, first line) of the statement holding it; lines between statements are
    owned by the next statement only through the pending list (so they stay in front of it)."""
    owner: dict[int, tuple[tuple[str, ...], int]] = {}
    for key, first, last in sources:
        for number in range(first, min(last, count) + 1):
            owner[number] = (key, first)
    return owner


def _normal(code: str) -> str:
    return " ".join(code.split())


def _find(out_lines: list[str], first: int, last: int, code: str, taken: dict[int, list[str]]) -> int | None:
    """The printed line (0-based) of a statement whose text equals ``code``, preferring free ones."""
    wanted = _normal(code)
    hits = [i for i in range(first - 1, last) if _normal(out_lines[i]) == wanted]
    free = [i for i in hits if i not in taken]
    return (free or hits or [None])[0]


def _on_line(target: _Woven, span: tuple[int, int], out_lines: list[str], code: str, comment: str,
             header: bool) -> None:
    """A trailing comment: on the printed line with the same text (the header line for a header)."""
    first, last = span
    index = first - 1 if header else _find(out_lines, first, last, code, target.after_line)
    if index is None:
        target.leading.append(comment)
    else:
        target.after_line[index].append(comment)


def _before_next_row(target: _Woven, span: tuple[int, int], out_lines: list[str],
                     lines: list[tuple[str, str | None]], number: int, comment: str) -> None:
    """A full-line comment inside a statement: before the printed line of the next source line with code."""
    first, last = span
    following = next((code for code, _c in lines[number:] if code.strip()), "")
    index = _find(out_lines, first, last, following, {}) if following else None
    if index is None or index == first - 1:
        target.leading.append(comment)
    else:
        target.before_line[index].append(comment)


def _weave(out_lines: list[str], targets: list[tuple[tuple[str, ...], int, int]],
           woven: dict[tuple[str, ...], _Woven], trailer: list[str]) -> str:
    """The printed lines with the collected comments in place."""
    before: dict[int, list[str]] = defaultdict(list)
    after: dict[int, list[str]] = defaultdict(list)
    for key, w in woven.items():
        start = next((first - 1 for k, first, _l in targets if k == key), 0)
        before[start].extend(w.leading)
        for index, comments in w.before_line.items():
            before[index].extend(INDENT + c for c in comments)
        for index, comments in w.after_line.items():
            after[index].extend(comments)
    result: list[str] = []
    for index, line in enumerate(out_lines):
        result.extend(before.get(index, ()))
        result.append(line + ("  " + " ".join(after[index]) if after.get(index) else ""))
    result.extend(trailer)
    return "\n".join(result) + "\n"

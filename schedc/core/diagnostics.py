"""Diagnostics: the one error type of schedc and its formatter.

Every problem with user input (a `.sched` spec, a canonical instance file, an answer) is
reported as a :class:`Diagnostic` record — code, message, position, optional hint — and
raised inside a :class:`SchedcError`, which may carry several diagnostics at once (the
semantic pass reports all errors, not only the first). The CLI prints them with
:func:`format_diagnostics` as ``file:line:col: error[CODE]: message``, followed by the
source line, a caret line and the hint, and exits with status 2. Nothing else is caught.

However many problems an input has, the report stays short and its cost linear: like a compiler's
``-fmax-errors``, the message shows the first :func:`max_errors` diagnostics (``schedc --max-errors N``;
0 shows all) and one summary line for the rest (``… and 39,980 more errors (E201 ×39,980: duplicate
resource)``); every diagnostic stays in :attr:`SchedcError.diagnostics`. Source excerpts come from a
line index built once per file, not from splitting the file again for every diagnostic.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter

import msgspec

#: Diagnostics a message shows before its summary line, unless :func:`set_max_errors` says otherwise.
DEFAULT_MAX_ERRORS = 20
_limit: list[int] = [DEFAULT_MAX_ERRORS]


def max_errors() -> int:
    """How many diagnostics an error message shows in full (0: all); ``SCHEDC_MAX_ERRORS`` sets the default."""
    return _limit[0]


def set_max_errors(limit: int) -> None:
    """Show at most ``limit`` diagnostics in full in every error message from now on (0: all)."""
    _limit[0] = max(0, int(limit))


def default_max_errors() -> int:
    """``SCHEDC_MAX_ERRORS`` when it is a number, else :data:`DEFAULT_MAX_ERRORS`."""
    text = os.environ.get("SCHEDC_MAX_ERRORS", "").strip()
    return int(text) if text.isdigit() else DEFAULT_MAX_ERRORS


set_max_errors(default_max_errors())


class Span(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A 1-based source position: where a node starts and ends in its file.

    The span of a node read from a ``table ... end`` block also holds the block's line table:
    ``rows`` has one ``(line, column, end)`` triple per table row, in order, where items
    ``[end of the previous row, end)`` of the node's table field come from that row (a coverage
    row ``0 S1=1.. S2=1..`` gives two). :meth:`entry` maps an item back to its row, so errors
    about one item point at the row that states it.
    """

    line: int
    column: int
    end_line: int = 0
    end_column: int = 0
    rows: tuple[tuple[int, int, int], ...] = ()

    def entry(self, index: int) -> Span:
        """The position of item ``index`` (0-based) of the table: its row, or this span without a table."""
        k = bisect.bisect_right(self.rows, index, key=itemgetter(2))
        if k == len(self.rows):
            return self.head()
        line, column, _ = self.rows[k]
        return Span(line=line, column=column)

    def head(self) -> Span:
        """This span without its line table (the statement's own position)."""
        return msgspec.structs.replace(self, rows=()) if self.rows else self


class Diagnostic(msgspec.Struct, frozen=True, kw_only=True):
    """One error record: what went wrong, where, and what to do about it."""

    code: str
    message: str
    file: str = "<input>"
    span: Span | None = None
    hint: str | None = None
    severity: str = "error"


class SchedcError(Exception):
    """The root error type: bad input, reported as one or more diagnostics.

    ``source`` (the text of the file, when known) lets the formatter show the offending
    line with a caret under the column.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic,
                 source: str | Mapping[str, str] | None = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        if isinstance(source, str):
            self.sources: dict[str, str] = {d.file: source for d in self.diagnostics}
        else:
            self.sources = dict(source or {})
        super().__init__(format_diagnostics(self.diagnostics, self.sources))

    def __reduce__(self) -> tuple[type[SchedcError], tuple[list[Diagnostic], dict[str, str]]]:
        # pickled by its parts, not its message: an error raised in a worker process (the
        # portfolio's MILP, a benchmark pool) reaches the parent as the same error
        return type(self), (self.diagnostics, self.sources)

    @classmethod
    def merge(cls, errors: Sequence[SchedcError]) -> SchedcError:
        """One error holding the diagnostics (and sources) of several."""
        sources: dict[str, str] = {}
        for e in errors:
            sources.update(e.sources)
        return cls([d for e in errors for d in e.diagnostics], sources)

    @classmethod
    def at(
        cls,
        code: str,
        message: str,
        *,
        file: str = "<input>",
        line: int | None = None,
        column: int = 1,
        hint: str | None = None,
        source: str | None = None,
    ) -> SchedcError:
        """Build an error with a single diagnostic at ``line:column`` (no position if line is None)."""
        span = Span(line=line, column=column) if line is not None else None
        return cls(Diagnostic(code=code, message=message, file=file, span=span, hint=hint), source)


class _Lines:
    """The lines of a source text, split once and shared by every diagnostic about it."""

    def __init__(self, source: str):
        self.lines = source.split("\n")


def _source_excerpt(source: str | _Lines, span: Span) -> list[str]:
    lines = source.lines if isinstance(source, _Lines) else source.split("\n")
    if not 1 <= span.line <= len(lines):
        return []
    text = lines[span.line - 1].expandtabs(1)
    width = 1
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    gutter = f"{span.line:>4} | "
    return [gutter + text, " " * (len(gutter) + span.column - 1) + "^" * width]


def format_diagnostic(diag: Diagnostic, source: str | _Lines | None = None) -> str:
    """Render one diagnostic as ``file:line:col: error[CODE]: message`` plus excerpt and hint."""
    where = diag.file
    if diag.span is not None:
        where += f":{diag.span.line}:{diag.span.column}"
    out = [f"{where}: {diag.severity}[{diag.code}]: {diag.message}"]
    if source is not None and diag.span is not None:
        out.extend(_source_excerpt(source, diag.span))
    if diag.hint:
        out.append(f"  = hint: {diag.hint}")
    return "\n".join(out)


def format_diagnostics(diags: Iterable[Diagnostic], sources: str | Mapping[str, str] | None = None,
                       limit: int | None = None) -> str:
    """Render several diagnostics, one block each, in the order given: the first ``limit`` of them
    (default :func:`max_errors`; 0 all) and one summary line for the others.

    ``sources`` maps file names to their text (or is the one text of all of them). The cost is linear
    in the number of diagnostics and the size of the sources.
    """
    limit = max_errors() if limit is None else limit
    indexed: dict[str, _Lines] = {}

    def lines_of(name: str) -> _Lines | None:
        text = sources if isinstance(sources, str) or sources is None else sources.get(name)
        if text is None:
            return None
        if name not in indexed:
            indexed[name] = _Lines(text)
        return indexed[name]

    shown: list[str] = []
    rest: Counter[str] = Counter()
    example: dict[str, str] = {}
    for diag in diags:
        if limit and len(shown) >= limit:
            rest[diag.code] += 1
            example.setdefault(diag.code, diag.message)
            continue
        shown.append(format_diagnostic(diag, lines_of(diag.file)))
    if rest:
        shown.append(summary_line(rest, example))
    return "\n".join(shown)


_GIST = re.compile(r"^(?:[\w.-]+: )?([^'\"(;:0-9]*[^'\"(;:0-9\s])")


def summary_line(rest: Counter[str], example: Mapping[str, str]) -> str:
    """``… and 39,980 more errors (E201 ×39,980: duplicate resource)``: what the shown diagnostics leave out,
    by code (the three most frequent, each with the gist of its first message)."""
    parts = []
    for code, number in rest.most_common(3):
        gist = _GIST.match(example[code])
        parts.append(f"{code} ×{number:,}" + (f": {gist.group(1)}" if gist else ""))
    if len(rest) > 3:
        parts.append(f"{len(rest) - 3} more codes")
    total = sum(rest.values())
    return f"… and {total:,} more error{'s' if total > 1 else ''} ({'; '.join(parts)})"

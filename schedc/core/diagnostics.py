"""Diagnostics: the one error type of schedc and its formatter.

Every problem with user input (a `.sched` spec, a canonical instance file, an answer) is
reported as a :class:`Diagnostic` record — code, message, position, optional hint — and
raised inside a :class:`SchedcError`, which may carry several diagnostics at once (the
semantic pass reports all errors, not only the first). The CLI prints them with
:func:`format_diagnostics` as ``file:line:col: error[CODE]: message``, followed by the
source line, a caret line and the hint, and exits with status 2. Nothing else is caught.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter

import msgspec


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


def _source_excerpt(source: str, span: Span) -> list[str]:
    lines = source.split("\n")
    if not 1 <= span.line <= len(lines):
        return []
    text = lines[span.line - 1].expandtabs(1)
    width = 1
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    gutter = f"{span.line:>4} | "
    return [gutter + text, " " * (len(gutter) + span.column - 1) + "^" * width]


def format_diagnostic(diag: Diagnostic, source: str | None = None) -> str:
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


def format_diagnostics(diags: Iterable[Diagnostic], sources: str | Mapping[str, str] | None = None) -> str:
    """Render several diagnostics, one block each, in the order given.

    ``sources`` maps file names to their text (or is the one text of all of them).
    """
    if sources is None or isinstance(sources, str):
        return "\n".join(format_diagnostic(d, sources) for d in diags)
    return "\n".join(format_diagnostic(d, sources.get(d.file)) for d in diags)

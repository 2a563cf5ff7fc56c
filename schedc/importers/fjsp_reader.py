"""Raw reader for flexible job-shop files (``.fjs``: Brandimarte mk01-10, Hurink e/r/vdata).

Layout::

    J M [A]                  jobs, machines, average eligible machines per operation (decimal,
                             informational; may be absent)
    o  k m p ... m p  ...    one job per line: o operations, each k eligible (machine, time) pairs

Machines are **1-based** in the file and stay 1-based in the record (:class:`FlexibleJobShopData`
mirrors the file; converting is the IR builder's job). Tokens are separated by any blanks; CRLF,
tabs, leading/trailing blanks and trailing blank lines are fine. Values are read by count; when
the jobs occupy exactly J lines (the normal case) each job must fit its own line exactly, which
turns a wrong operation or machine count into a precise error on that line instead of a
misaligned read. Job and operation indices in messages are 0-based, like the record tuples.

Decisions: a job needs at least one operation, an operation at least one eligible machine; the
same machine twice for one operation is rejected (I211: none of the mk/Hurink files has one). The
header average is stored as given, never checked against the data (it rarely matches exactly).

Error codes (every error is a :class:`~schedc.core.diagnostics.SchedcError` with file, line, column):

====  ==========================================================================================
I201  the file cannot be read
I202  the file ends before all jobs are read (a value is missing)
I203  a token is not an integer where one is expected
I204  invalid header: number of jobs or machines below 1
I205  the header's average is not a non-negative decimal number
I206  extra tokens on the header line
I207  a job's number of operations is below 1
I208  an operation's number of eligible machines is outside 1..M
I209  machine number outside 1..M
I210  negative processing time
I211  the same machine listed twice for one operation
I212  a job line holds fewer or more values than its counts announce (one-job-per-line layout)
I213  extra tokens after the last job
====  ==========================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.tokens import Token, TokenStream, read_source
from schedc.importers.tokens import group_by_line as _by_line
from schedc.importers.tokens import token_error as _error

_INT = re.compile(r"-?[0-9]{1,4000}")  # int() refuses longer digit strings
_DECIMAL = re.compile(r"[0-9]{1,300}(\.[0-9]{0,300})?|\.[0-9]{1,300}")  # always a finite float

Alternative = tuple[int, int]
"""One eligible machine of an operation: ``(machine, duration)``, machine 1-based."""


class FlexibleJobShopData(msgspec.Struct, frozen=True, kw_only=True):
    """A flexible job-shop instance exactly as stored in its ``.fjs`` file.

    Attributes:
        name: the file stem (``Mk01`` for ``Mk01.fjs``).
        n_jobs: number of jobs declared in the header (= ``len(jobs)``).
        n_machines: number of machines declared in the header; machines are ``1 .. n_machines``.
        avg_machines_per_op: the header's third number (average eligible machines per operation,
            informational, e.g. 3.5), None when the header has only two numbers.
        jobs: per job in file order, its operations in route order; each operation is the tuple of
            its eligible alternatives ``(machine_1based, duration)`` in file order (at least one,
            machines distinct, durations non-negative).
    """

    name: str
    n_jobs: int
    n_machines: int
    avg_machines_per_op: float | None
    jobs: tuple[tuple[tuple[Alternative, ...], ...], ...]


class _Cursor:
    """Reads integers from a token list: one job's line, or every job token of the file."""

    def __init__(self, stream: TokenStream, tokens: Sequence[Token], line: int | None):
        self.stream = stream
        self.tokens = tokens
        self.line = line  # the job's line in one-job-per-line mode, None when reading by count
        self.pos = 0

    def next_int(self, what: str) -> tuple[int, Token]:
        if self.pos >= len(self.tokens):
            raise self._exhausted(what)
        token = self.tokens[self.pos]
        self.pos += 1
        if not _INT.fullmatch(token.text):
            raise _error(self.stream, "I203", f"expected {what} (an integer), found {token.text!r}", token)
        return int(token.text), token

    def rest(self) -> Sequence[Token]:
        return self.tokens[self.pos:]

    def _exhausted(self, what: str) -> SchedcError:
        if self.line is None:
            if not self.stream.tokens:
                return SchedcError.at("I202", f"expected {what} (the file is empty)", file=self.stream.file,
                                      line=1, column=1, source=self.stream.text)
            return _error(self.stream, "I202", f"expected {what} (reached the end of the file)",
                          self.stream.tokens[-1], after=True)
        return _error(self.stream, "I212", f"expected {what}, but line {self.line} ends here",
                      self.tokens[-1], after=True,
                      hint="a job line holds: o, then per operation k and k pairs 'machine time'")



def read_fjsp(path: str | Path) -> FlexibleJobShopData:
    """Read a ``.fjs`` file: header ``J M [A]``, then J jobs guided by their counts."""
    text = read_source(path, "I201").removeprefix("\ufeff")
    stream = TokenStream(text, str(path))
    n_jobs, n_machines, avg = _header(stream)
    data = stream.tokens[stream.pos:]
    lines = _by_line(data)
    if len(lines) == n_jobs:
        jobs = tuple(_job_on_line(stream, j, line, n_machines) for j, line in enumerate(lines))
    else:
        cursor = _Cursor(stream, data, None)
        jobs = tuple(_job(cursor, j, n_machines) for j in range(n_jobs))
        if cursor.rest():
            extra = cursor.rest()[0]
            raise _error(stream, "I213", f"expected the end of the file after {n_jobs} jobs, found extra "
                         f"token {extra.text!r}", extra)
    return FlexibleJobShopData(name=Path(path).stem, n_jobs=n_jobs, n_machines=n_machines,
                               avg_machines_per_op=avg, jobs=jobs)


def _header(stream: TokenStream) -> tuple[int, int, float | None]:
    """``J M [A]`` on the first line; A is present when a third token shares that line."""
    cursor = _Cursor(stream, stream.tokens, None)
    n_jobs, first = cursor.next_int("the number of jobs")
    n_machines, m_tok = cursor.next_int("the number of machines")
    checks = ((n_jobs, first, "the number of jobs"), (n_machines, m_tok, "the number of machines"))
    for value, tok, what in checks:
        if value < 1:
            raise _error(stream, "I204", f"expected {what} to be at least 1, found {value}", tok)
    stream.pos = cursor.pos
    on_line = [tok for tok in stream.tokens[stream.pos:] if tok.line == first.line]
    avg: float | None = None
    if on_line:
        if not _DECIMAL.fullmatch(on_line[0].text):
            raise _error(stream, "I205", "expected the average number of machines per operation (a "
                         f"non-negative decimal number such as 3.5), found {on_line[0].text!r}", on_line[0])
        avg = float(on_line[0].text)
        if len(on_line) > 1:
            raise _error(stream, "I206", f"expected the end of the header line after 'J M A', found "
                         f"{on_line[1].text!r}", on_line[1])
        stream.pos += 1
    return n_jobs, n_machines, avg



def _job_on_line(stream: TokenStream, job: int, line: list[Token],
                 n_machines: int) -> tuple[tuple[Alternative, ...], ...]:
    """One job that must use exactly the values of its own line."""
    cursor = _Cursor(stream, line, line[0].line)
    ops = _job(cursor, job, n_machines)
    if cursor.rest():
        extra = cursor.rest()[0]
        raise _error(stream, "I212", f"job {job} on line {extra.line} has extra values after its "
                     f"{len(ops)} operations (first extra value {extra.text!r})", extra)
    return ops


def _job(cursor: _Cursor, job: int, n_machines: int) -> tuple[tuple[Alternative, ...], ...]:
    n_ops, tok = cursor.next_int(f"the number of operations of job {job}")
    if n_ops < 1:
        raise _error(cursor.stream, "I207", f"expected the number of operations of job {job} to be at "
                     f"least 1, found {n_ops}", tok)
    return tuple(_operation(cursor, job, k, n_machines) for k in range(n_ops))


def _operation(cursor: _Cursor, job: int, op: int, n_machines: int) -> tuple[Alternative, ...]:
    where = f"operation {op} of job {job}"
    k, k_tok = cursor.next_int(f"the number of eligible machines of {where}")
    if not 1 <= k <= n_machines:
        raise _error(cursor.stream, "I208", f"expected the number of eligible machines of {where} to be "
                     f"in 1..{n_machines}, found {k}", k_tok)
    seen: dict[int, Token] = {}
    alternatives: list[Alternative] = []
    for _ in range(k):
        machine, m_tok = cursor.next_int(f"a machine of {where}")
        if not 1 <= machine <= n_machines:
            raise _error(cursor.stream, "I209", f"machine of {where} must be in 1..{n_machines} "
                         f"(machines are 1-based), found {machine}", m_tok)
        if machine in seen:
            first = seen[machine]
            raise _error(cursor.stream, "I211", f"machine {machine} is listed twice for {where} (first "
                         f"at line {first.line}, column {first.column})", m_tok)
        seen[machine] = m_tok
        duration, p_tok = cursor.next_int(f"the processing time of {where} on machine {machine}")
        if duration < 0:
            raise _error(cursor.stream, "I210", f"processing time of {where} on machine {machine} must "
                         f"be at least 0, found {duration}", p_tok)
        alternatives.append((machine, duration))
    return tuple(alternatives)

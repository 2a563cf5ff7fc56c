"""Raw readers for job-shop instance files: JSPLib "standard" layout and Taillard's original layout.

Both readers return the same plain record, :class:`JobShopData`, which mirrors the file: jobs in
file order, each job's operations in route order as ``(machine, duration)`` pairs with **0-based**
machines (Taillard's 1-based machine numbers are shifted by one). No IR is built here.

Standard layout (all JSPLib files of the project data)::

    [# comment lines]        lines whose first non-blank character is '#', allowed anywhere
    n m                      number of jobs, number of machines (nothing else on that line)
    M P  M P ...             n jobs, each m (machine, processing time) pairs, machines 0..m-1

Taillard layout::

    Nb of jobs, Nb of Machines, Time seed, Machine seed, Upper bound, Lower bound
    n m time_seed machine_seed upper lower     (the names line may be missing; bounds may be missing)
    Times
    n rows of m processing times
    Machines
    n rows of m machine numbers, 1..m

Tokens are separated by any blanks; CRLF, tabs, trailing blanks and blank lines are fine. Values
are read by count, so a job may be wrapped over several lines; when a block is laid out one row
per line (the normal case) each line must hold exactly one row, which gives a precise error for a
job with too few or too many operations. Job and operation indices in messages are 0-based, like
the tuples of the record. Each machine need not appear exactly once per job (only the range is
checked).

Error codes (every error is a :class:`~schedc.core.diagnostics.SchedcError` with file, line, column):

====  ==========================================================================================
I101  the file cannot be read
I102  the file ends before all jobs are read (a value is missing)
I103  a token is not an integer where one is expected
I104  invalid header: number of jobs or machines below 1
I105  machine index outside 0..m-1
I106  negative processing time
I107  a job line holds the wrong number of values (not exactly m machine/duration pairs)
I108  extra tokens after the last job
I109  ``read_jobshop``: the layout is neither standard nor Taillard
I110  extra tokens on the ``n m`` header line
I150  Taillard: the file cannot be read
I151  Taillard: malformed header (names line not starting with 'Nb', or not 4/6 header values)
I152  Taillard: the file ends inside the Machines block
I153  Taillard: a token is not an integer where one is expected
I154  Taillard: invalid header values (jobs/machines below 1, negative bound)
I155  Taillard: the keyword 'Times' or 'Machines' is missing
I156  Taillard: a Times/Machines row or block has the wrong number of values
I157  Taillard: machine number outside 1..m
I158  Taillard: negative processing time
I159  Taillard: extra tokens after the Machines block (e.g. several instances in one file)
====  ==========================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.tokens import Token, TokenStream, read_source
from schedc.importers.tokens import group_by_line as _by_line
from schedc.importers.tokens import token_error as _error

_INT = re.compile(r"-?[0-9]{1,4000}")  # int() refuses longer digit strings

Operation = tuple[int, int]
"""One operation: ``(machine, duration)``, machine 0-based."""


class JobShopData(msgspec.Struct, frozen=True, kw_only=True):
    """A job-shop instance exactly as stored in its file.

    Attributes:
        name: the file stem (``ft06`` for ``ft06.txt``).
        layout: ``"standard"`` (JSPLib) or ``"taillard"`` (Taillard's original layout).
        n_jobs: number of jobs declared in the header (= ``len(jobs)``).
        n_machines: number of machines declared in the header; machines are ``0 .. n_machines-1``.
        jobs: per job, in file order, its operations in route order as ``(machine, duration)``
            pairs; machine 0-based, duration a non-negative integer. Every job has ``n_machines``
            operations (both layouts require it).
        upper_bound: Taillard header "Upper bound" (historical, not a BKS); None otherwise.
        lower_bound: Taillard header "Lower bound" (historical); None otherwise.
        time_seed: Taillard header "Time seed"; None otherwise.
        machine_seed: Taillard header "Machine seed"; None otherwise.
        comments: the comment lines (first non-blank character '#'), outer blanks stripped, in order.
    """

    name: str
    layout: Literal["standard", "taillard"]
    n_jobs: int
    n_machines: int
    jobs: tuple[tuple[Operation, ...], ...]
    upper_bound: int | None = None
    lower_bound: int | None = None
    time_seed: int | None = None
    machine_seed: int | None = None
    comments: tuple[str, ...] = ()


class _Codes(msgspec.Struct, frozen=True):
    """The error codes one layout uses for the shared token-level failures."""

    short: str  # the file (or block) ends before a value
    not_int: str  # a token is not an integer
    row: str  # a row-per-line block has a row of the wrong length
    extra: str  # tokens after the expected values


_STANDARD = _Codes("I102", "I103", "I107", "I108")
_TAILLARD_TIMES = _Codes("I156", "I153", "I156", "I156")
_TAILLARD_MACHINES = _Codes("I152", "I153", "I156", "I159")
_TAILLARD_HEADER = _Codes("I151", "I153", "I151", "I151")


# ----------------------------------------------------------------------------- token helpers


def _open(path: str | Path, code: str) -> tuple[TokenStream, tuple[str, ...]]:
    """Read ``path``, tokenise it and drop comment lines; return the stream and the comments."""
    text = read_source(path, code).removeprefix("\ufeff")
    stream = TokenStream(text, str(path))
    comment_lines: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            comment_lines[number] = line.strip()
    stream.tokens = [tok for tok in stream.tokens if tok.line not in comment_lines]
    return stream, tuple(comment_lines.values())



def _eof_error(stream: TokenStream, code: str, what: str, hint: str | None = None) -> SchedcError:
    """``expected <what>`` at the end of the file (just after its last token)."""
    message = f"expected {what} (reached the end of the file)"
    if not stream.tokens:
        return SchedcError.at(code, message + "; the file has no data", file=stream.file, line=1,
                              column=1, hint=hint, source=stream.text)
    return _error(stream, code, message, stream.tokens[-1], after=True, hint=hint)


def _to_int(stream: TokenStream, token: Token, what: str, code: str) -> int:
    if not _INT.fullmatch(token.text):
        raise _error(stream, code, f"expected {what} (an integer), found {token.text!r}", token)
    return int(token.text)


def _next_int(stream: TokenStream, what: str, codes: _Codes) -> tuple[int, Token]:
    token = stream.peek()
    if token is None:
        raise _eof_error(stream, codes.short, what)
    stream.pos += 1
    return _to_int(stream, token, what, codes.not_int), token



def _rows(stream: TokenStream, tokens: Sequence[Token], n_rows: int, width: int, codes: _Codes, *,
          row_name: Callable[[int], str], value_name: Callable[[int, int], str],
          boundary: Token | None, boundary_name: str) -> list[list[Token]]:
    """Split a block of tokens into ``n_rows`` rows of ``width`` values.

    If the block occupies exactly ``n_rows`` lines, each line must be one row (precise errors);
    otherwise the values are taken by count. ``boundary`` is the token that ended the block (None:
    end of file) and ``boundary_name`` what is expected after the last row.
    """
    lines = _by_line(tokens)
    if len(lines) == n_rows:
        for index, line in enumerate(lines):
            _check_row(stream, line, width, codes.row, row_name(index))
        return lines
    total = n_rows * width
    if len(tokens) < total:
        row, col = divmod(len(tokens), width)
        what = value_name(row, col)
        if boundary is None:
            raise _eof_error(stream, codes.short, what)
        raise _error(stream, codes.short, f"expected {what}, found {boundary.text!r}", boundary)
    if len(tokens) > total:
        raise _error(stream, codes.extra,
                     f"expected {boundary_name} after {n_rows} rows of {width} values, "
                     f"found extra token {tokens[total].text!r}", tokens[total])
    return [list(tokens[r * width:(r + 1) * width]) for r in range(n_rows)]


def _check_row(stream: TokenStream, line: list[Token], width: int, code: str, name: str) -> None:
    if len(line) == width:
        return
    message = f"{name} on line {line[0].line} has {len(line)} values; expected exactly {width}"
    if len(line) > width:
        raise _error(stream, code, message + f" (first extra value {line[width].text!r})", line[width])
    raise _error(stream, code, message + " (line ends too early)", line[-1], after=True)


# ----------------------------------------------------------------------------- standard layout


def read_jsplib(path: str | Path) -> JobShopData:
    """Read a JSPLib file in the standard layout (``n m`` then n jobs of m ``machine duration`` pairs)."""
    stream, comments = _open(path, "I101")
    n_jobs = _header_count(stream, "the number of jobs n", _STANDARD, "I104")
    n_machines = _header_count(stream, "the number of machines m", _STANDARD, "I104")
    _check_header_line_end(stream, "I110", "'n m'")
    data = stream.tokens[stream.pos:]
    rows = _rows(stream, data, n_jobs, 2 * n_machines, _STANDARD,
                 row_name=lambda j: f"job {j}",
                 value_name=_standard_value_name,
                 boundary=None, boundary_name=f"the end of the file after {n_jobs} jobs")
    hint = f"each job line holds {n_machines} pairs 'machine duration' (machines 0..{n_machines - 1})"
    jobs = tuple(_standard_job(stream, j, row, n_machines, hint) for j, row in enumerate(rows))
    return JobShopData(name=Path(path).stem, layout="standard", n_jobs=n_jobs, n_machines=n_machines,
                       jobs=jobs, comments=comments)


def _standard_value_name(row: int, col: int) -> str:
    kind = "the machine" if col % 2 == 0 else "the processing time"
    return f"{kind} of operation {col // 2} of job {row}"


def _header_count(stream: TokenStream, what: str, codes: _Codes, range_code: str) -> int:
    value, token = _next_int(stream, what, codes)
    if value < 1:
        raise _error(stream, range_code, f"expected {what} to be at least 1, found {value}", token)
    return value


def _check_header_line_end(stream: TokenStream, code: str, header: str) -> None:
    """The header line holds nothing after its values."""
    last, nxt = stream.tokens[stream.pos - 1], stream.peek()
    if nxt is not None and nxt.line == last.line:
        raise _error(stream, code, f"expected the end of the header line after {header}, found "
                     f"{nxt.text!r}", nxt)


def _standard_job(stream: TokenStream, job: int, row: list[Token], n_machines: int,
                  hint: str) -> tuple[Operation, ...]:
    ops: list[Operation] = []
    for k in range(n_machines):
        m_tok, p_tok = row[2 * k], row[2 * k + 1]
        machine = _to_int(stream, m_tok, f"the machine of operation {k} of job {job}", "I103")
        if not 0 <= machine < n_machines:
            raise _error(stream, "I105", f"machine of operation {k} of job {job} must be in "
                         f"0..{n_machines - 1}, found {machine}", m_tok, hint=hint)
        duration = _to_int(stream, p_tok, f"the processing time of operation {k} of job {job}", "I103")
        if duration < 0:
            raise _error(stream, "I106", f"processing time of operation {k} of job {job} must be "
                         f"at least 0, found {duration}", p_tok)
        ops.append((machine, duration))
    return tuple(ops)


# ----------------------------------------------------------------------------- Taillard layout


def read_taillard(path: str | Path) -> JobShopData:
    """Read a file in Taillard's original layout; machines are shifted to 0-based."""
    stream, comments = _open(path, "I150")
    _skip_names_line(stream)
    header = _taillard_header(stream)
    n_jobs, n_machines = header[0], header[1]
    times_kw = stream.peek()
    if times_kw is None:
        raise _eof_error(stream, "I155", "the keyword 'Times' after the header values")
    stream.pos += 1
    if times_kw.text.lower() != "times":
        raise _error(stream, "I155", f"expected the keyword 'Times' after the header values, found "
                     f"{times_kw.text!r}", times_kw)
    rest = stream.tokens[stream.pos:]
    split = next((i for i, tok in enumerate(rest) if tok.text.lower() == "machines"), None)
    if split is None:
        raise _eof_error(stream, "I155", "the keyword 'Machines' after the Times block")
    times = _taillard_block(stream, rest[:split], n_jobs, n_machines, "processing time",
                            _TAILLARD_TIMES, rest[split], "the keyword 'Machines'")
    machines = _taillard_block(stream, rest[split + 1:], n_jobs, n_machines, "machine number",
                               _TAILLARD_MACHINES, None, "the end of the file")
    jobs = tuple(_taillard_job(stream, j, times[j], machines[j], n_machines) for j in range(n_jobs))
    upper, lower = (header[4], header[5]) if len(header) == 6 else (None, None)
    return JobShopData(name=Path(path).stem, layout="taillard", n_jobs=n_jobs, n_machines=n_machines,
                       jobs=jobs, upper_bound=upper, lower_bound=lower, time_seed=header[2],
                       machine_seed=header[3], comments=comments)


def _skip_names_line(stream: TokenStream) -> None:
    """Skip the 'Nb of jobs, Nb of Machines, ...' line if present."""
    first = stream.peek()
    if first is None or _INT.fullmatch(first.text):
        return
    if first.text.lower() != "nb":
        raise _error(stream, "I151", "expected the Taillard header line 'Nb of jobs, Nb of Machines, "
                     f"Time seed, Machine seed, Upper bound, Lower bound', found {first.text!r}", first)
    while stream.peek() is not None and stream.tokens[stream.pos].line == first.line:
        stream.pos += 1


def _taillard_header(stream: TokenStream) -> list[int]:
    """The header values up to 'Times': n, m, time seed, machine seed[, upper bound, lower bound]."""
    start = stream.peek()
    values: list[tuple[int, Token]] = []
    names = ("the number of jobs", "the number of machines", "the time seed", "the machine seed",
             "the upper bound", "the lower bound")
    while (tok := stream.peek()) is not None and tok.text.lower() != "times":
        if len(values) == len(names):
            raise _error(stream, "I151", f"expected the keyword 'Times' after 6 header values, found "
                         f"{tok.text!r}", tok)
        values.append(_next_int(stream, names[len(values)], _TAILLARD_HEADER))
    if len(values) not in (4, 6):
        where = tok if tok is not None else start
        if where is None:
            raise _eof_error(stream, "I151", "the Taillard header values")
        raise _error(stream, "I151", f"expected 4 or 6 header values (jobs, machines, time seed, "
                     f"machine seed[, upper bound, lower bound]), found {len(values)}", where)
    for index, (value, tok) in enumerate(values):
        minimum = 1 if index < 2 else (0 if index >= 4 else None)
        if minimum is not None and value < minimum:
            raise _error(stream, "I154", f"expected {names[index]} to be at least {minimum}, found "
                         f"{value}", tok)
    return [value for value, _ in values]


def _taillard_block(stream: TokenStream, tokens: Sequence[Token], n_jobs: int, n_machines: int,
                    kind: str, codes: _Codes, boundary: Token | None,
                    boundary_name: str) -> list[list[Token]]:
    return _rows(stream, tokens, n_jobs, n_machines, codes,
                 row_name=lambda j: f"the {kind} row of job {j}",
                 value_name=lambda r, c: f"the {kind} of operation {c} of job {r}",
                 boundary=boundary, boundary_name=boundary_name)


def _taillard_job(stream: TokenStream, job: int, times: list[Token], machines: list[Token],
                  n_machines: int) -> tuple[Operation, ...]:
    ops: list[Operation] = []
    for k, (p_tok, m_tok) in enumerate(zip(times, machines, strict=True)):
        duration = _to_int(stream, p_tok, f"the processing time of operation {k} of job {job}", "I153")
        if duration < 0:
            raise _error(stream, "I158", f"processing time of operation {k} of job {job} must be at "
                         f"least 0, found {duration}", p_tok)
        machine = _to_int(stream, m_tok, f"the machine number of operation {k} of job {job}", "I153")
        if not 1 <= machine <= n_machines:
            raise _error(stream, "I157", f"machine number of operation {k} of job {job} must be in "
                         f"1..{n_machines} (Taillard numbers machines from 1), found {machine}", m_tok)
        ops.append((machine - 1, duration))
    return tuple(ops)


# ----------------------------------------------------------------------------- detection


def read_jobshop(path: str | Path) -> JobShopData:
    """Read a job-shop file in either layout, detected from its content.

    Taillard layout when the first non-comment token is ``Nb`` or a ``Times`` keyword occurs;
    standard layout when the first token is an integer; otherwise error I109.
    """
    stream, _ = _open(path, "I101")
    words = {tok.text.lower() for tok in stream.tokens}
    first = stream.peek()
    if "times" in words or (first is not None and first.text.lower() == "nb"):
        return read_taillard(path)
    if first is None or _INT.fullmatch(first.text):
        return read_jsplib(path)
    raise _error(stream, "I109", f"expected a job-shop file: 'n m' (standard layout) or 'Nb of jobs, "
                 f"...' (Taillard layout), found {first.text!r}", first)

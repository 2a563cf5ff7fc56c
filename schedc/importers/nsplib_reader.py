"""Raw readers for NSPLib nurse-scheduling files: problem files ``.nsp`` and case files ``.gen``.

``.nsp`` layout (blank lines between blocks are ignored)::

    N D S                    nurses, days, shift types; the LAST shift type is the free shift
    D rows of S values       coverage: minimum number of nurses per (day, shift type)
    N rows of D*S values     preference cost per nurse, day-major: (day 0: S values), (day 1: ...) ...

``.gen`` layout::

    D S
    minA maxA                working assignments per nurse over the horizon
    minC maxC                length of every run of consecutive working days
    S rows: minC_s maxC_s minA_s maxA_s    per shift type, free shift last

Files use tabs, CRLF, trailing tabs and blank lines; they are read as token streams and must
hold exactly the expected number of integers (``3 + D*S + N*D*S`` for ``.nsp``, ``2 + 4 + 4*S``
for ``.gen``). When the rows occupy exactly one line each (the normal case) each line must have
the right width, which locates a missing or extra value precisely. Indices in messages (nurse,
day, shift) are 0-based, like the record tuples.

Checks: the header line holds only its numbers; N, D >= 1 and S >= 2 (at least one working
shift plus the free one); coverage and every ``.gen`` number >= 0; every ``.gen`` min <= its
max. Preference costs are stored as given (any integer; NSPLib uses 1..4, lower = better).

Error codes (every error is a :class:`~schedc.core.diagnostics.SchedcError` with file, line, column):

====  ==========================================================================================
I601  the file cannot be read
I602  the file ends before all values are read (a value is missing)
I603  a token is not an integer where one is expected
I604  invalid ``.nsp`` header: nurses or days below 1, or fewer than 2 shift types
I605  negative coverage requirement
I606  a row (coverage, preference or ``.gen`` row) holds the wrong number of values
I607  extra tokens after the last expected value
I608  invalid ``.gen`` header: days below 1 or fewer than 2 shift types
I609  negative ``.gen`` value
I610  a ``.gen`` minimum exceeds its maximum
I611  ``check_pair``: the ``.gen`` days or shift types differ from the ``.nsp`` file
I612  extra tokens on the header line (``N D S`` or ``D S``)
====  ==========================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from schedc.core.diagnostics import Diagnostic, SchedcError, Span
from schedc.importers.tokens import Token, TokenStream, read_source
from schedc.importers.tokens import group_by_line as _by_line
from schedc.importers.tokens import token_error as _error

_INT = re.compile(r"-?[0-9]{1,4000}")  # int() refuses longer digit strings


class NspData(msgspec.Struct, frozen=True, kw_only=True):
    """An NSPLib problem file (``.nsp``) exactly as stored.

    Attributes:
        name: the file stem (``1`` for ``N25/1.nsp``).
        n_nurses: N, the number of nurses.
        n_days: D, the number of days of the horizon.
        n_shifts: S, the number of shift types **including** the free shift, which is the last
            one (index ``S-1``).
        coverage: ``coverage[d][s]`` = minimum number of nurses on shift type s on day d
            (D rows of S values; the free column is 0 in every NSPLib file).
        preferences: ``preferences[n][d][s]`` = preference cost of nurse n for shift type s on
            day d, free shift included (lower = more desirable).
    """

    name: str
    n_nurses: int
    n_days: int
    n_shifts: int
    coverage: tuple[tuple[int, ...], ...]
    preferences: tuple[tuple[tuple[int, ...], ...], ...]


class ShiftRule(msgspec.Struct, frozen=True, kw_only=True):
    """The four numbers of one shift-type line of a ``.gen`` file, in file order.

    Attributes:
        min_consecutive: minimum length of a run of consecutive days on this shift type.
        max_consecutive: maximum length of such a run.
        min_assignments: minimum number of days on this shift type over the horizon.
        max_assignments: maximum number of days on this shift type over the horizon.
    """

    min_consecutive: int
    max_consecutive: int
    min_assignments: int
    max_assignments: int


class GenCase(msgspec.Struct, frozen=True, kw_only=True):
    """An NSPLib case file (``.gen``: contract rules, identical for all nurses) exactly as stored.

    Attributes:
        name: the file stem (``8`` for ``Cases/8.gen``).
        n_days: D, must equal the paired ``.nsp`` file's D (see :func:`check_pair`).
        n_shifts: S including the free shift, must equal the ``.nsp`` file's S.
        min_assignments: minimum number of working days (non-free assignments) per nurse.
        max_assignments: maximum number of working days per nurse.
        min_consecutive_working: minimum length of a run of consecutive working days.
        max_consecutive_working: maximum length of a run of consecutive working days.
        shift_rules: one :class:`ShiftRule` per shift type in file order; the last is the free
            shift (its runs are runs of days off, its assignments the number of days off).
    """

    name: str
    n_days: int
    n_shifts: int
    min_assignments: int
    max_assignments: int
    min_consecutive_working: int
    max_consecutive_working: int
    shift_rules: tuple[ShiftRule, ...]


# ----------------------------------------------------------------------------- token helpers


def _open(path: str | Path) -> TokenStream:
    return TokenStream(read_source(path, "I601").removeprefix("\ufeff"), str(path))



def _eof_error(stream: TokenStream, what: str) -> SchedcError:
    if not stream.tokens:
        return SchedcError.at("I602", f"expected {what} (the file is empty)", file=stream.file, line=1,
                              column=1, source=stream.text)
    return _error(stream, "I602", f"expected {what} (reached the end of the file)", stream.tokens[-1],
                  after=True)


def _to_int(stream: TokenStream, token: Token, what: str) -> int:
    if not _INT.fullmatch(token.text):
        raise _error(stream, "I603", f"expected {what} (an integer), found {token.text!r}", token)
    return int(token.text)


def _header(stream: TokenStream, names: Sequence[str]) -> list[tuple[int, Token]]:
    values: list[tuple[int, Token]] = []
    for what in names:
        token = stream.peek()
        if token is None:
            raise _eof_error(stream, what)
        stream.pos += 1
        values.append((_to_int(stream, token, what), token))
    return values


def _check_header_line_end(stream: TokenStream, header: str) -> None:
    """The header line holds nothing after its values."""
    last, nxt = stream.tokens[stream.pos - 1], stream.peek()
    if nxt is not None and nxt.line == last.line:
        raise _error(stream, "I612", f"expected the end of the header line after {header}, found "
                     f"{nxt.text!r}", nxt)



def _rows(stream: TokenStream, n_rows: int, width: Callable[[int], int], row_name: Callable[[int], str],
          value_name: Callable[[int, int], str]) -> list[list[int]]:
    """The remaining tokens as ``n_rows`` rows (row r has ``width(r)`` values), converted to integers.

    One row per line is enforced when the data occupies exactly ``n_rows`` lines; otherwise the
    values are taken by count. Either way the total number of values must be exact. Work is
    bounded by the number of tokens, whatever the header claims.
    """
    tokens = stream.tokens[stream.pos:]
    lines = _by_line(tokens)
    if len(lines) == n_rows:
        for index, line in enumerate(lines):
            _check_row(stream, line, width(index), row_name(index))
        rows = lines
    else:
        rows = _split_by_count(stream, tokens, n_rows, width, value_name)
    return [[_to_int(stream, tok, value_name(r, c)) for c, tok in enumerate(row)]
            for r, row in enumerate(rows)]


def _check_row(stream: TokenStream, line: list[Token], width: int, name: str) -> None:
    if len(line) == width:
        return
    message = f"{name} on line {line[0].line} has {len(line)} values; expected exactly {width}"
    if len(line) > width:
        raise _error(stream, "I606", message + f" (first extra value {line[width].text!r})", line[width])
    raise _error(stream, "I606", message + " (line ends too early)", line[-1], after=True)


def _split_by_count(stream: TokenStream, tokens: Sequence[Token], n_rows: int, width: Callable[[int], int],
                    value_name: Callable[[int, int], str]) -> list[list[Token]]:
    rows: list[list[Token]] = []
    start = 0
    for index in range(n_rows):
        size = width(index)
        if start + size > len(tokens):
            raise _eof_error(stream, value_name(index, len(tokens) - start))
        rows.append(list(tokens[start:start + size]))
        start += size
    if start < len(tokens):
        raise _error(stream, "I607", f"expected the end of the file after {start} data values, found "
                     f"extra token {tokens[start].text!r}", tokens[start])
    return rows


# ----------------------------------------------------------------------------- .nsp


def read_nsp(path: str | Path) -> NspData:
    """Read an NSPLib problem file (``N D S``, D coverage rows, N preference rows)."""
    stream = _open(path)
    (n, n_tok), (d, d_tok), (s, s_tok) = _header(
        stream, ("the number of nurses N", "the number of days D", "the number of shift types S"))
    _check_dimensions(stream, "I604", ((n, n_tok, "nurses N", 1), (d, d_tok, "days D", 1),
                                       (s, s_tok, "shift types S (including the free shift)", 2)))
    _check_header_line_end(stream, "'N D S'")
    data_start = stream.pos
    rows = _rows(stream, d + n, lambda r: s if r < d else d * s,
                 row_name=lambda r: _nsp_row_name(r, d),
                 value_name=lambda r, c: _nsp_value_name(r, c, d, s))
    coverage = tuple(tuple(row) for row in rows[:d])
    for index, value in enumerate(v for row in coverage for v in row):
        if value < 0:
            token = stream.tokens[data_start + index]
            raise _error(stream, "I605", f"expected the coverage of day {index // s}, shift {index % s} "
                         f"to be at least 0, found {value}", token)
    preferences = tuple(tuple(tuple(row[day * s:(day + 1) * s]) for day in range(d)) for row in rows[d:])
    return NspData(name=Path(path).stem, n_nurses=n, n_days=d, n_shifts=s, coverage=coverage,
                   preferences=preferences)


def _nsp_row_name(row: int, n_days: int) -> str:
    return f"the coverage row of day {row}" if row < n_days else f"the preference row of nurse {row - n_days}"


def _nsp_value_name(row: int, col: int, n_days: int, n_shifts: int) -> str:
    if row < n_days:
        return f"the coverage of day {row}, shift {col}"
    return f"the preference of nurse {row - n_days} for day {col // n_shifts}, shift {col % n_shifts}"


def _check_dimensions(stream: TokenStream, code: str, checks: Sequence[tuple[int, Token, str, int]]) -> None:
    for value, token, what, minimum in checks:
        if value < minimum:
            raise _error(stream, code, f"expected the number of {what} to be at least {minimum}, found "
                         f"{value}", token)


# ----------------------------------------------------------------------------- .gen

_GEN_FIELDS = (
    ("the minimum number of working assignments", "the maximum number of working assignments"),
    ("the minimum number of consecutive working days", "the maximum number of consecutive working days"),
)
_RULE_FIELDS = ("the minimum consecutive days", "the maximum consecutive days",
                "the minimum number of assignments", "the maximum number of assignments")


def read_gen(path: str | Path) -> GenCase:
    """Read an NSPLib case file (``D S``, two bound pairs, then S shift-type rows)."""
    stream = _open(path)
    (d, d_tok), (s, s_tok) = _header(stream, ("the number of days D", "the number of shift types S"))
    _check_dimensions(stream, "I608", ((d, d_tok, "days D", 1),
                                       (s, s_tok, "shift types S (including the free shift)", 2)))
    _check_header_line_end(stream, "'D S'")
    data_start = stream.pos
    rows = _rows(stream, 2 + s, lambda r: 2 if r < 2 else 4,
                 row_name=lambda r: _gen_row_name(r, s),
                 value_name=lambda r, c: _gen_value_name(r, c, s))
    tokens = stream.tokens[data_start:]
    _check_gen_values(stream, rows, tokens, s)
    rules = tuple(ShiftRule(min_consecutive=r[0], max_consecutive=r[1], min_assignments=r[2],
                            max_assignments=r[3]) for r in rows[2:])
    return GenCase(name=Path(path).stem, n_days=d, n_shifts=s, min_assignments=rows[0][0],
                   max_assignments=rows[0][1], min_consecutive_working=rows[1][0],
                   max_consecutive_working=rows[1][1], shift_rules=rules)


def _shift_label(shift: int, n_shifts: int) -> str:
    return f"shift {shift} (free)" if shift == n_shifts - 1 else f"shift {shift}"


def _gen_row_name(row: int, n_shifts: int) -> str:
    if row == 0:
        return "the working-assignments row"
    if row == 1:
        return "the consecutive-working-days row"
    return f"the row of {_shift_label(row - 2, n_shifts)}"


def _gen_value_name(row: int, col: int, n_shifts: int) -> str:
    if row < 2:
        return _GEN_FIELDS[row][col]
    return f"{_RULE_FIELDS[col]} on {_shift_label(row - 2, n_shifts)}"


def _check_gen_values(stream: TokenStream, rows: list[list[int]], tokens: Sequence[Token],
                      n_shifts: int) -> None:
    """Every value >= 0 and every (min, max) pair ordered; ``tokens`` are the data tokens in order."""
    index = 0
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if value < 0:
                raise _error(stream, "I609", f"expected {_gen_value_name(r, c, n_shifts)} to be at least 0, "
                             f"found {value}", tokens[index + c])
        for c in range(0, len(row), 2):
            if row[c] > row[c + 1]:
                raise _error(stream, "I610", f"{_gen_value_name(r, c, n_shifts)} ({row[c]}) exceeds "
                             f"{_gen_value_name(r, c + 1, n_shifts)} ({row[c + 1]})", tokens[index + c])
        index += len(row)


# ----------------------------------------------------------------------------- pairing


def check_pair(nsp: NspData, gen: GenCase, nsp_path: str | Path, gen_path: str | Path) -> None:
    """Fail (I611) when the case file's D or S differ from the problem file's.

    The diagnostics point at the offending number of the ``.gen`` header (the file is re-read
    only to locate it); one diagnostic per mismatch.
    """
    if (nsp.n_days, nsp.n_shifts) == (gen.n_days, gen.n_shifts):
        return
    source: str | None = None
    positions: list[Token] = []
    try:
        stream = _open(gen_path)
        source, positions = stream.text, stream.tokens[:2]
    except SchedcError:
        pass
    diags = []
    for index, (what, got, want) in enumerate((("days D", gen.n_days, nsp.n_days),
                                               ("shift types S", gen.n_shifts, nsp.n_shifts))):
        if got == want:
            continue
        token = positions[index] if index < len(positions) else None
        span = Span(line=token.line, column=token.column) if token else Span(line=1, column=1)
        diags.append(Diagnostic(
            code="I611", file=str(gen_path), span=span,
            message=f"case file has {got} {what} but problem file {nsp_path} has {want}",
            hint="pair each .nsp file with a .gen case of the same number of days and shift types"))
    raise SchedcError(diags, source)

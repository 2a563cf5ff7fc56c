"""Raw reader for ITC-2007 examination track files (``.exam``).

:func:`read_exam` turns one file into an :class:`ExamData` record that mirrors the file; turning
it into the project IR is :mod:`schedc.importers.itc2007_exam`. Layout (McCollum et al., "The
Second International Timetabling Competition: Examination Timetabling Track", v4.0)::

    [Exams:N]                 duration, student, student, ...        (x N, exam i is line i, 0-based)
    [Periods:P]               dd:mm:yyyy, hh:mm:ss, duration, penalty (x P, chronological)
    [Rooms:R]                 capacity, penalty                       (x R)
    [PeriodHardConstraints]   e1, EXAM_COINCIDENCE|EXCLUSION|AFTER, e2
    [RoomHardConstraints]     e, ROOM_EXCLUSIVE
    [InstitutionalWeightings] TWOINAROW, w / TWOINADAY, w / PERIODSPREAD, g /
                              NONMIXEDDURATIONS, w / FRONTLOAD, n_largest, n_last_periods, w

Fields are comma-separated (blanks around them ignored); blank lines are skipped.

Error codes (a :class:`~schedc.core.diagnostics.SchedcError` with file, line and column):

- ``I960`` a section header was expected (missing, misspelt or out of order) or the file ends early.
- ``I961`` a field is not an integer (or is negative) where a count, duration, capacity or penalty is expected.
- ``I962`` a record has the wrong number of fields.
- ``I963`` a date or time that does not parse (``dd:mm:yyyy``, ``hh:mm:ss``).
- ``I964`` an exam number outside ``0 .. N-1`` in a hard constraint.
- ``I965`` an unknown constraint or weighting name.
- ``I966`` a section has more or fewer records than its header count.
- ``I967`` periods not in chronological order.
- ``I968`` a weighting given twice or missing.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.tokens import read_source

_HEADER = re.compile(r"\[(\w+)(?::(\d+))?\]\s*$")
_INT = re.compile(r"[0-9]{1,12}")
WEIGHTINGS = {"TWOINAROW": 1, "TWOINADAY": 1, "PERIODSPREAD": 1, "NONMIXEDDURATIONS": 1, "FRONTLOAD": 3}
RELATIONS = {"EXAM_COINCIDENCE": "coincidence", "EXCLUSION": "exclusion", "AFTER": "after"}


class Exam(msgspec.Struct, frozen=True, kw_only=True):
    """One exam: its duration and its students (ids as written)."""

    duration: int
    students: tuple[str, ...]


class Period(msgspec.Struct, frozen=True, kw_only=True):
    """One period: date, time of day, duration and penalty."""

    date: dt.date
    time: str
    duration: int
    penalty: int


class Room(msgspec.Struct, frozen=True, kw_only=True):
    capacity: int
    penalty: int


class PeriodRule(msgspec.Struct, frozen=True, kw_only=True):
    """``first relation second`` with relation ``after`` (first strictly later), ``exclusion``,
    ``coincidence`` (exam numbers 0-based)."""

    first: int
    relation: str
    second: int


class ExamData(msgspec.Struct, frozen=True, kw_only=True):
    exams: tuple[Exam, ...]
    periods: tuple[Period, ...]
    rooms: tuple[Room, ...]
    period_rules: tuple[PeriodRule, ...]
    exclusive: tuple[int, ...]
    weightings: dict[str, tuple[int, ...]]


class _Lines:
    """The non-blank lines of the file with their numbers, and positioned errors."""

    def __init__(self, path: str | Path):
        self.file = str(path)
        self.text = read_source(path, code="I960")
        self.lines = [(n, line) for n, line in enumerate(self.text.splitlines(), start=1) if line.strip()]
        self.pos = 0

    def error(self, code: str, message: str, line: int | None = None, column: int = 1) -> SchedcError:
        if line is None:
            line = self.lines[self.pos][0] if self.pos < len(self.lines) else max(1, len(self.text.splitlines()))
        return SchedcError.at(code, message, file=self.file, line=line, column=column, source=self.text)

    def peek(self) -> tuple[int, str] | None:
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def header(self, name: str, counted: bool) -> int | None:
        item = self.peek()
        if item is None:
            raise self.error("I960", f"expected the section header [{name}{':N' if counted else ''}], "
                             "found the end of the file")
        match = _HEADER.match(item[1].strip())
        if match is None or match.group(1) != name or (match.group(2) is None) == counted:
            raise self.error("I960", f"expected the section header [{name}{':N' if counted else ''}], "
                             f"found {item[1].strip()!r}")
        self.pos += 1
        return int(match.group(2)) if counted else None

    def records(self, section: str, count: int | None) -> list[tuple[int, list[tuple[str, int]]]]:
        """The records up to the next header: (line, [(field, column)])."""
        out = []
        while (item := self.peek()) is not None and not item[1].lstrip().startswith("["):
            out.append((item[0], _fields(item[1])))
            self.pos += 1
        if count is not None and len(out) != count:
            line = out[count][0] if len(out) > count else None
            raise self.error("I966", f"[{section}:{count}] announces {count} records, found {len(out)}", line)
        return out


def _fields(line: str) -> list[tuple[str, int]]:
    out, start = [], 0
    for part in line.split(","):
        stripped = part.strip()
        out.append((stripped, start + len(part) - len(part.lstrip()) + 1))
        start += len(part) + 1
    return out


def _int(src: _Lines, line: int, field: tuple[str, int], what: str) -> int:
    if not _INT.fullmatch(field[0]):
        raise src.error("I961", f"expected {what} (a non-negative integer), found {field[0]!r}", line, field[1])
    return int(field[0])


def _arity(src: _Lines, line: int, fields: list[tuple[str, int]], n: int, layout: str) -> None:
    if len(fields) != n:
        raise src.error("I962", f"expected {n} fields ({layout}), found {len(fields)}", line,
                        fields[min(n, len(fields) - 1)][1])


def _exam_no(src: _Lines, line: int, field: tuple[str, int], n: int) -> int:
    value = _int(src, line, field, "an exam number")
    if value >= n:
        raise src.error("I964", f"exam {value} does not exist (exams are numbered 0 to {n - 1})", line, field[1])
    return value


def _period(src: _Lines, line: int, fields: list[tuple[str, int]]) -> Period:
    _arity(src, line, fields, 4, "date, time, duration, penalty")
    try:
        day, month, year = (int(x) for x in fields[0][0].split(":"))
        date = dt.date(year, month, day)
    except ValueError:
        raise src.error("I963", f"expected a date dd:mm:yyyy, found {fields[0][0]!r}", line, fields[0][1]) from None
    if not re.fullmatch(r"\d{1,2}:\d{2}:\d{2}", fields[1][0]):
        raise src.error("I963", f"expected a time hh:mm:ss, found {fields[1][0]!r}", line, fields[1][1])
    return Period(date=date, time=fields[1][0].zfill(8), duration=_int(src, line, fields[2], "a duration"),
                  penalty=_int(src, line, fields[3], "a penalty"))


def read_exam(path: str | Path) -> ExamData:
    """Read one ``.exam`` file (see the module docstring for the layout and the error codes)."""
    src = _Lines(path)
    n = src.header("Exams", True) or 0
    exams = []
    for line, fields in src.records("Exams", n):
        duration = _int(src, line, fields[0], "an exam duration")
        students = tuple(f[0] for f in fields[1:] if f[0])
        for f in fields[1:]:
            if f[0]:
                _int(src, line, f, "a student number")
        exams.append(Exam(duration=duration, students=students))
    period_records = src.records("Periods", src.header("Periods", True))
    periods = [_period(src, line, fields) for line, fields in period_records]
    for (line, _), before, after in zip(period_records[1:], periods, periods[1:], strict=False):
        if (after.date, after.time) <= (before.date, before.time):
            raise src.error("I967", "periods must be listed in chronological order", line)
    rooms = []
    for line, fields in src.records("Rooms", src.header("Rooms", True)):
        _arity(src, line, fields, 2, "capacity, penalty")
        rooms.append(Room(capacity=_int(src, line, fields[0], "a capacity"),
                          penalty=_int(src, line, fields[1], "a penalty")))
    src.header("PeriodHardConstraints", False)
    rules = []
    for line, fields in src.records("PeriodHardConstraints", None):
        _arity(src, line, fields, 3, "exam, EXAM_COINCIDENCE|EXCLUSION|AFTER, exam")
        if fields[1][0] not in RELATIONS:
            raise src.error("I965", f"unknown period constraint {fields[1][0]!r} (EXAM_COINCIDENCE, EXCLUSION, AFTER)",
                            line, fields[1][1])
        rules.append(PeriodRule(first=_exam_no(src, line, fields[0], n), relation=RELATIONS[fields[1][0]],
                                second=_exam_no(src, line, fields[2], n)))
    src.header("RoomHardConstraints", False)
    exclusive = []
    for line, fields in src.records("RoomHardConstraints", None):
        _arity(src, line, fields, 2, "exam, ROOM_EXCLUSIVE")
        if fields[1][0] != "ROOM_EXCLUSIVE":
            raise src.error("I965", f"unknown room constraint {fields[1][0]!r} (ROOM_EXCLUSIVE)", line, fields[1][1])
        exclusive.append(_exam_no(src, line, fields[0], n))
    src.header("InstitutionalWeightings", False)
    weightings: dict[str, tuple[int, ...]] = {}
    for line, fields in src.records("InstitutionalWeightings", None):
        name = fields[0][0]
        if name not in WEIGHTINGS:
            raise src.error("I965", f"unknown weighting {name!r} ({', '.join(WEIGHTINGS)})", line, fields[0][1])
        if name in weightings:
            raise src.error("I968", f"weighting {name} given twice", line, fields[0][1])
        _arity(src, line, fields, WEIGHTINGS[name] + 1, f"{name} and {WEIGHTINGS[name]} number(s)")
        weightings[name] = tuple(_int(src, line, f, f"a {name} value") for f in fields[1:])
    missing = [w for w in WEIGHTINGS if w not in weightings]
    if missing:
        raise src.error("I968", f"missing weighting(s): {', '.join(missing)}", len(src.text.splitlines()) or 1)
    return ExamData(exams=tuple(exams), periods=tuple(periods), rooms=tuple(rooms), period_rules=tuple(rules),
                    exclusive=tuple(sorted(set(exclusive))), weightings=weightings)

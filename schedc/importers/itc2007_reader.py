"""Raw reader for ITC-2007 track 3 curriculum-based course timetabling files (``.ctt``).

:func:`read_ctt` turns one file into a :class:`CttData` record that mirrors the file: the
header, and the COURSES, ROOMS, CURRICULA and UNAVAILABILITY_CONSTRAINTS records in file order.
Days and periods stay 0-based as in the file. Nothing is interpreted; turning the record into the
project IR is a separate step.

Layout::

    Name: <name>
    Courses: <n>  Rooms: <n>  Days: <n>  Periods_per_day: <n>  Curricula: <n>  Constraints: <n>
    COURSES:                      <course> <teacher> <lectures> <min_working_days> <students>  (x Courses)
    ROOMS:                        <room> <capacity>                                           (x Rooms)
    CURRICULA:                    <curriculum> <k> <course> ... (k courses)                   (x Curricula)
    UNAVAILABILITY_CONSTRAINTS:   <course> <day> <period>                                     (x Constraints)
    END.

The file is read as a token stream (blanks or tabs, LF or CRLF, any blank lines), so the layout
of lines does not matter; the header counts say how many records each section holds. Line
positions are used only to word an error better: a record that should start a new line is
recognised when a count is wrong.

Error codes (every failure is a :class:`~schedc.core.diagnostics.SchedcError` with file, line and
column, saying what was expected):

- ``I401`` the file cannot be read.
- ``I402`` the file ends early (truncated): a token was expected.
- ``I403`` a word where an integer is expected.
- ``I404`` a negative number (or ``Days``/``Periods_per_day`` below 1).
- ``I405`` a header label or section keyword was expected and something else found (wrong label,
  wrong section order).
- ``I406`` a course id defined twice.
- ``I407`` a room id defined twice.
- ``I408`` a curriculum id defined twice.
- ``I409`` a curriculum lists a course that is not defined in COURSES.
- ``I410`` a curriculum's course count does not match the courses it lists (the next record, a
  section keyword or ``END.`` appears where a course is expected, or a course id where the next
  curriculum id is expected).
- ``I411`` an unavailability constraint names a course that is not defined in COURSES.
- ``I412`` an unavailability day outside ``0 .. Days-1``.
- ``I413`` an unavailability period outside ``0 .. Periods_per_day-1``.
- ``I414`` ``END.`` is missing at the end of the file.
- ``I415`` tokens after ``END.``.
- ``I416`` a section has fewer records than its header count (the next section keyword or
  ``END.`` comes early).
- ``I417`` a section has more records than its header count (a record where the next section
  keyword or ``END.`` is expected).
- ``I418`` a course listed twice in the same curriculum.

Duplicate unavailability rows are legal (harmless) and kept as they are.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.tokens import Token, TokenStream, read_source

_INT = re.compile(r"[+-]?[0-9]{1,4000}")  # int() refuses longer digit strings
_END = "END."
_SECTIONS = ("COURSES:", "ROOMS:", "CURRICULA:", "UNAVAILABILITY_CONSTRAINTS:")
_KEYWORDS = frozenset((*_SECTIONS, _END))
_COUNT_LABELS = ("Courses:", "Rooms:", "Days:", "Periods_per_day:", "Curricula:", "Constraints:")


# ----------------------------------------------------------------------------------------------
# Records


class Course(msgspec.Struct, frozen=True, kw_only=True):
    """One COURSES record."""

    id: str
    """Course id, e.g. ``"c0001"``."""
    teacher: str
    """Teacher id; courses with the same teacher conflict."""
    lectures: int
    """Number of lectures to schedule (each in a different period)."""
    min_days: int
    """Desired minimum number of distinct days the lectures are spread over."""
    students: int
    """Number of enrolled students."""


class Room(msgspec.Struct, frozen=True, kw_only=True):
    """One ROOMS record."""

    id: str
    """Room id, e.g. ``"B"``."""
    capacity: int
    """Number of seats."""


class Curriculum(msgspec.Struct, frozen=True, kw_only=True):
    """One CURRICULA record: courses that share students and so pairwise conflict."""

    id: str
    """Curriculum id, e.g. ``"q000"``."""
    members: tuple[str, ...]
    """Course ids of the curriculum, in file order (distinct, all defined in COURSES)."""


class Unavailability(msgspec.Struct, frozen=True, kw_only=True):
    """One UNAVAILABILITY_CONSTRAINTS record: a period in which a course may not be taught."""

    course: str
    """Course id (defined in COURSES)."""
    day: int
    """Day, 0-based (``0 <= day < days``)."""
    period: int
    """Period within the day, 0-based (``0 <= period < periods_per_day``)."""


class CttData(msgspec.Struct, frozen=True, kw_only=True):
    """The contents of one ITC-2007 ``.ctt`` file."""

    name: str
    """The ``Name:`` field, e.g. ``"Fis0506-1"`` (not the file name)."""
    days: int
    """``Days:``: number of teaching days per week."""
    periods_per_day: int
    """``Periods_per_day:``: number of periods (time slots) per day."""
    courses: tuple[Course, ...]
    """COURSES records in file order (``Courses:`` of them)."""
    rooms: tuple[Room, ...]
    """ROOMS records in file order (``Rooms:`` of them)."""
    curricula: tuple[Curriculum, ...]
    """CURRICULA records in file order (``Curricula:`` of them)."""
    unavailability: tuple[Unavailability, ...]
    """UNAVAILABILITY_CONSTRAINTS records in file order (``Constraints:`` of them)."""


# ----------------------------------------------------------------------------------------------
# Token helpers


def _fail(stream: TokenStream, code: str, message: str, token: Token | None,
          hint: str | None = None) -> SchedcError:
    """An error with ``code`` at ``token`` (or at the end of the file when None)."""
    if token is None:
        line = max(1, len(stream.text.splitlines()))
        return SchedcError.at(code, message + " (reached the end of the file)", file=stream.file,
                              line=line, column=1, hint=hint, source=stream.text)
    return SchedcError.at(code, message, file=stream.file, line=token.line, column=token.column,
                          hint=hint, source=stream.text)


def _int(stream: TokenStream, what: str, minimum: int | None = 0) -> tuple[int, Token]:
    """The next token as an integer (at least ``minimum`` unless None), with the token."""
    token = stream.next(what)
    if not _INT.fullmatch(token.text):
        raise _fail(stream, "I403", f"expected {what} (an integer), found {token.text!r}", token)
    value = int(token.text)
    if minimum is not None and value < minimum:
        raise _fail(stream, "I404", f"expected {what} to be at least {minimum}, found {value}", token)
    return value, token


def _starts_line(stream: TokenStream) -> bool:
    """True if the token just consumed is the first token on its line."""
    index = stream.pos - 1
    return index == 0 or stream.tokens[index - 1].line != stream.tokens[index].line


def _keyword(stream: TokenStream, keyword: str, section: str | None, count: int) -> None:
    """Expect ``keyword`` after ``count`` records of ``section`` (None: after the header)."""
    token = stream.peek()
    if token is None:
        code = "I414" if keyword == _END else "I402"
        raise _fail(stream, code, f"expected {keyword!r}", None,
                    hint="the file may be truncated" if keyword != _END else None)
    if token.text == keyword:
        stream.pos += 1
        return
    if token.text in _KEYWORDS or section is None:
        raise _fail(stream, "I405", f"expected {keyword!r}, found {token.text!r}", token)
    raise _fail(stream, "I417", f"expected {keyword!r} after the {count} {section} record(s) declared in "
                f"the header, found another record {token.text!r}", token,
                hint="the header count is too small, or a record has too many fields")


def _record_start(stream: TokenStream, what: str, section: str, index: int, count: int) -> Token:
    """The first token of record ``index`` (0-based) of ``section``; fails on an early keyword."""
    token = stream.peek()
    if token is not None and token.text in _KEYWORDS:
        raise _fail(stream, "I416", f"expected {what} (record {index + 1} of the {count} {section} "
                    f"record(s) declared in the header), found {token.text!r}", token,
                    hint="the header count is too large, or a record is missing")
    return stream.next(what)


# ----------------------------------------------------------------------------------------------
# Header and sections


class _Header(NamedTuple):
    name: str
    counts: dict[str, int]  # label without colon -> value


def _read_header(stream: TokenStream) -> _Header:
    """Read ``Name:`` and the six count fields, in the standard order."""
    _label(stream, "Name:")
    name = stream.next("the instance name after 'Name:'").text
    counts: dict[str, int] = {}
    for label in _COUNT_LABELS:
        _label(stream, label)
        minimum = 1 if label in ("Days:", "Periods_per_day:") else 0
        counts[label[:-1]], _ = _int(stream, f"the value of {label!r}", minimum)
    return _Header(name, counts)


def _label(stream: TokenStream, label: str) -> None:
    """Consume the header label ``label``."""
    token = stream.peek()
    if token is None:
        raise _fail(stream, "I402", f"expected the header label {label!r}", None)
    if token.text != label:
        raise _fail(stream, "I405", f"expected the header label {label!r}, found {token.text!r}", token)
    stream.pos += 1


def _read_courses(stream: TokenStream, count: int) -> tuple[Course, ...]:
    courses: dict[str, Course] = {}
    for index in range(count):
        token = _record_start(stream, "a course id", "COURSES", index, count)
        if token.text in courses:
            raise _fail(stream, "I406", f"course {token.text!r} is defined twice", token)
        teacher = stream.next(f"the teacher of course {token.text}").text
        lectures, _ = _int(stream, f"the number of lectures of course {token.text}")
        min_days, _ = _int(stream, f"the minimum working days of course {token.text}")
        students, _ = _int(stream, f"the number of students of course {token.text}")
        courses[token.text] = Course(id=token.text, teacher=teacher, lectures=lectures,
                                     min_days=min_days, students=students)
    return tuple(courses.values())


def _read_rooms(stream: TokenStream, count: int) -> tuple[Room, ...]:
    rooms: dict[str, Room] = {}
    for index in range(count):
        token = _record_start(stream, "a room id", "ROOMS", index, count)
        if token.text in rooms:
            raise _fail(stream, "I407", f"room {token.text!r} is defined twice", token)
        capacity, _ = _int(stream, f"the capacity of room {token.text}")
        rooms[token.text] = Room(id=token.text, capacity=capacity)
    return tuple(rooms.values())


def _read_curricula(stream: TokenStream, count: int, courses: set[str]) -> tuple[Curriculum, ...]:
    curricula: dict[str, Curriculum] = {}
    previous: Curriculum | None = None
    for index in range(count):
        token = _record_start(stream, "a curriculum id", "CURRICULA", index, count)
        if previous is not None and token.text in courses and not _starts_line(stream):
            raise _fail(stream, "I410", f"curriculum {previous.id} declares {len(previous.members)} "
                        f"course(s) but lists more: found course {token.text!r} where the next "
                        "curriculum id is expected", token)
        if token.text in curricula:
            raise _fail(stream, "I408", f"curriculum {token.text!r} is defined twice", token)
        size, _ = _int(stream, f"the number of courses of curriculum {token.text}")
        members = _read_members(stream, token.text, size, courses)
        previous = curricula[token.text] = Curriculum(id=token.text, members=members)
    return tuple(curricula.values())


def _read_members(stream: TokenStream, curriculum: str, size: int, courses: set[str]) -> tuple[str, ...]:
    members: list[str] = []
    for _ in range(size):
        token = stream.peek()
        short = (f"curriculum {curriculum} declares {size} course(s) but lists {len(members)}: "
                 f"expected a course id, found")
        if token is not None and token.text in _KEYWORDS:
            raise _fail(stream, "I410", f"{short} {token.text!r}", token)
        token = stream.next(f"course {len(members) + 1} of curriculum {curriculum}")
        if token.text not in courses:
            if _starts_line(stream):
                raise _fail(stream, "I410", f"{short} {token.text!r} at the start of the next line", token,
                            hint="the next curriculum record seems to start here")
            raise _fail(stream, "I409", f"curriculum {curriculum} lists course {token.text!r}, which is not "
                        "defined in COURSES", token)
        if token.text in members:
            raise _fail(stream, "I418", f"curriculum {curriculum} lists course {token.text!r} twice", token)
        members.append(token.text)
    return tuple(members)


def _read_unavailability(stream: TokenStream, count: int, courses: set[str], days: int,
                         periods: int) -> tuple[Unavailability, ...]:
    out: list[Unavailability] = []
    for index in range(count):
        token = _record_start(stream, "a course id", "UNAVAILABILITY_CONSTRAINTS", index, count)
        if token.text not in courses:
            raise _fail(stream, "I411", f"unavailability constraint names course {token.text!r}, which is "
                        "not defined in COURSES", token)
        day, day_token = _int(stream, f"the day of an unavailability of course {token.text}", None)
        if not 0 <= day < days:
            raise _fail(stream, "I412", f"expected a day in 0..{days - 1} (Days: {days}, 0-based), "
                        f"found {day}", day_token)
        period, period_token = _int(stream, f"the period of an unavailability of course {token.text}", None)
        if not 0 <= period < periods:
            raise _fail(stream, "I413", f"expected a period in 0..{periods - 1} (Periods_per_day: "
                        f"{periods}, 0-based), found {period}", period_token)
        out.append(Unavailability(course=token.text, day=day, period=period))
    return tuple(out)


def read_ctt(path: str | Path) -> CttData:
    """Read an ITC-2007 track 3 ``.ctt`` file into a :class:`CttData` record."""
    text = read_source(path, code="I401")
    stream = TokenStream(text, str(path), code="I402")
    header = _read_header(stream)
    counts = header.counts
    _keyword(stream, "COURSES:", None, 0)
    courses = _read_courses(stream, counts["Courses"])
    _keyword(stream, "ROOMS:", "COURSES", counts["Courses"])
    rooms = _read_rooms(stream, counts["Rooms"])
    _keyword(stream, "CURRICULA:", "ROOMS", counts["Rooms"])
    course_ids = {course.id for course in courses}
    curricula = _read_curricula(stream, counts["Curricula"], course_ids)
    _keyword(stream, "UNAVAILABILITY_CONSTRAINTS:", "CURRICULA", counts["Curricula"])
    unavailability = _read_unavailability(stream, counts["Constraints"], course_ids, counts["Days"],
                                          counts["Periods_per_day"])
    _keyword(stream, _END, "UNAVAILABILITY_CONSTRAINTS", counts["Constraints"])
    token = stream.peek()
    if token is not None:
        raise _fail(stream, "I415", f"expected the end of the file after 'END.', found {token.text!r}", token)
    return CttData(name=header.name, days=counts["Days"], periods_per_day=counts["Periods_per_day"],
                   courses=courses, rooms=rooms, curricula=curricula, unavailability=unavailability)

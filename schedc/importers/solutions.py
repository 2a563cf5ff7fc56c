"""Readers for the official solution formats of the competitions (for checking published
solutions with the same evaluator as model answers).

* ITC-2007: one lecture per line, ``course room day period`` (0-based). Like the official
  validator, lines naming an unknown course or room, a day or period out of range, or a
  second lecture of a course in the same period are skipped — and reported.
* INRC-2010: the competition's solution XML (``<Solution>`` with ``<Assignment>`` elements of
  ``Date``, ``Employee``, ``ShiftType``).
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from pathlib import Path

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.importers.tokens import read_source
from schedc.ir import Instance


def _ascii_digits(text: str) -> bool:
    """True for a non-empty run of ASCII digits (``str.isdigit`` also accepts ``٣`` and ``²``)."""
    return text.isascii() and text.isdigit()


def _entity_names(instance: Instance, cls: str) -> set[str]:
    return {e.name for e in instance.entities if e.cls == cls}


def read_itc_solution(path: str | Path, instance: Instance) -> tuple[Solution, list[str]]:
    """An ITC-2007 ``.sol`` file → (solution, warnings for the lines the validator would skip)."""
    text = read_source(path, code="I701")
    courses, rooms = _entity_names(instance, "course"), _entity_names(instance, "room")
    cal = instance.calendar
    assert cal is not None
    seen: set[tuple[str, int, int]] = set()
    assignments: list[Assignment] = []
    warnings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        cells = line.split()
        if not cells:
            continue
        if len(cells) != 4 or not _ascii_digits(cells[2]) or not _ascii_digits(cells[3]):
            raise SchedcError.at("I702", "expected 'course room day period'", file=str(path), line=number,
                                 source=text)
        course, room, day, period = cells[0], cells[1], int(cells[2]), int(cells[3])
        if course not in courses or room not in rooms or day >= cal.days or period >= cal.periods_per_day:
            warnings.append(f"line {number}: unknown course, room, day or period; skipped")
        elif (course, day, period) in seen:
            warnings.append(f"line {number}: repeated lecture of {course} in day {day} period {period}; skipped")
        else:
            seen.add((course, day, period))
            assignments.append(Assignment(course, day, period, room))
    return Solution(assignments=tuple(assignments)), warnings


def read_inrc_solution(path: str | Path, instance: Instance) -> Solution:
    """An INRC-2010 solution XML file → solution (dates mapped to day indices of the instance)."""
    text = read_source(path, code="I711")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line, column = exc.position
        raise SchedcError.at("I712", f"malformed XML: {exc}", file=str(path), line=line, column=column + 1,
                             source=text) from None
    cal = instance.calendar
    if cal is None or cal.start_date is None:
        raise SchedcError.at("I713", f"instance {instance.name} has no dated calendar", file=str(path))
    assignments = []
    for element in root.iter("Assignment"):
        date, employee, shift = (element.findtext(tag) for tag in ("Date", "Employee", "ShiftType"))
        if not (date and employee and shift):
            raise SchedcError.at("I714", "an Assignment needs Date, Employee and ShiftType", file=str(path))
        try:
            day = (dt.date.fromisoformat(date.strip()) - cal.start_date).days
        except ValueError:
            raise SchedcError.at("I715", f"bad date {date!r}", file=str(path)) from None
        assignments.append(Assignment(employee.strip(), day, 0, shift.strip()))
    return Solution(assignments=tuple(assignments))

"""Raw reader for INRC-2010 (first International Nurse Rostering Competition) XML instances.

:func:`read_inrc` turns a competition XML file (``competition.xsd``, root ``<SchedulingPeriod>``)
into an :class:`InrcData` record made of frozen msgspec Structs. The record mirrors the file
(ids, raw on/weight/value attributes, source lines) and resolves the file-level rules of
``shared/reference/inrc2010.md`` §1 ("Importer rules"). The records live in
:mod:`~schedc.importers.inrc2010_records`, positioned XML access and the horizon in
:mod:`~schedc.importers.inrc2010_xml`, the contracts' rules in :mod:`~schedc.importers.inrc2010_contracts`;
this module reads the other sections and assembles the record:

* **Horizon**: ``StartDate`` … ``EndDate`` inclusive; every date becomes a day index
  ``0 … n_days-1``.
* **Demand**: ``demand[d][s]`` is the ``Preferred`` of a ``DateSpecificCover`` for that date and
  shift if one exists, otherwise that of the ``DayOfWeekCover`` for the weekday, otherwise 0
  (a date-specific cover *replaces* the weekday cover for that date/shift; it never adds).
* **Activity**: an on/weight rule is ``active`` iff ``on`` is true and ``weight > 0``; a boolean
  rule iff its text is true and ``weight > 0``. The raw on/weight/value are kept. Other scoring
  remarks of the reference are *not* applied here (min-consecutive rules with value <= 1 are
  vacuous; NoNightShiftBeforeFreeWeekend, TwoFreeDaysAfterNightShifts and
  MaxWorkingWeekendsInFourWeeks are not evaluated; SingleAssignmentPerDay is hard regardless of
  its weight) — the converter decides, from the raw values kept here.
* **Weekends**: the contract's ``WeekendDefinition`` is resolved to its weekday names and to
  the blocks of day indices of the horizon (one block per horizon day whose weekday is the
  definition's first day, cut at the horizon end; a block starting before ``StartDate`` is not
  a weekend). Cut blocks, even of length 1, are kept; the scorer may ignore them.
* **Patterns**: entries in document order; only entry 0's ``Day`` anchors the pattern
  (``InrcPattern.anchor_weekday``), the ``Day`` of later entries is kept but implied.
* **Night shifts**: ``is_night`` iff start time > end time (equal times are not night).
* **Requests**: every request element is kept (duplicates included, each counts); the
  reference ignores weight-0 requests, so those are kept with ``active=False``.

Deliberate choices where the schema is looser than the meaning:

* ``on`` and ``weight`` of rule elements, the ``weight`` of boolean rules and patterns, the
  ``ID`` of patterns and ``Preferred`` of covers are optional in the schema but required here
  (their absence leaves the meaning undefined).
* A contract element that is absent gives a rule with ``present=False`` and ``active=False``
  (``SingleAssignmentPerDay`` absent reads as true, weight 0); an absent ``WeekendDefinition``
  reads as ``SaturdaySunday`` (``weekend_definition_given=False``).
* Skill references are checked against ``<Skills>`` only when that element is present.
* Child order is not enforced; unknown and repeated single elements are errors. A
  ``PatternEntry`` ``index`` attribute, when given, must equal the entry's position.

Every error is a :class:`~schedc.core.diagnostics.SchedcError` naming the file and the line:column of
the offending element's start tag (from expat, stdlib only), saying what was expected:

========  ==================================================================================
code      meaning
========  ==================================================================================
I500      the file cannot be read
I501      malformed XML (expat error, at expat's position)
I502      the root element is not ``<SchedulingPeriod>``
I503      a required element is missing (or a list that needs an entry is empty)
I504      an unexpected element (unknown tag, or children inside a value element)
I505      an element that may occur once occurs twice
I506      a required attribute is missing
I507      an empty value (element text or ID attribute)
I508      stray text inside a container element
I509      a date that is not a valid ``yyyy-mm-dd`` date
I510      ``EndDate`` before ``StartDate``
I511      a date outside the horizon
I512      a time that is not a valid ``hh:mm:ss`` time
I513      a weight that is not a non-negative integer
I514      a value (rule value, ``Preferred``, entry index) that is not a non-negative integer
I515      a boolean that is not ``true``/``false``/``1``/``0``
I516      a duplicate id (skill, shift, pattern, contract, employee, or inside an id list)
I517      an unknown skill id
I518      an unknown shift type id
I519      an unknown pattern id
I520      an unknown contract id
I521      an unknown employee id
I522      an unknown weekend definition
I523      an unknown weekday name
I524      a duplicate cover (same weekday or date and shift twice)
I525      a ``PatternEntry`` index that differs from its position
I526      a shift type id that is a reserved pattern word (``Any``, ``None``)
========  ==================================================================================
"""


from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path

from schedc.importers.inrc2010_contracts import read_contracts
from schedc.importers.inrc2010_records import (
    ANY,
    NONE,
    WEEKDAYS,
    WEEKEND_DEFINITIONS,
    InrcBoolRule,
    InrcContract,
    InrcCover,
    InrcData,
    InrcDayRequest,
    InrcEmployee,
    InrcOnWeightRule,
    InrcPattern,
    InrcPatternEntry,
    InrcShiftRequest,
    InrcShiftType,
)
from schedc.importers.inrc2010_xml import (
    Horizon,
    XmlFile,
    XmlNode,
    children_of,
    clock_time,
    group,
    id_attr,
    id_list,
    leaf,
    one,
    opt,
    parse_tree,
    read_horizon,
    ref,
    some,
    uint,
    unique,
    weekday_name,
    weight_attr,
)
from schedc.importers.tokens import read_source

__all__ = [
    "InrcBoolRule",
    "InrcContract",
    "InrcCover",
    "InrcData",
    "InrcDayRequest",
    "InrcEmployee",
    "InrcOnWeightRule",
    "InrcPattern",
    "InrcPatternEntry",
    "InrcShiftRequest",
    "InrcShiftType",
    "WEEKDAYS",
    "WEEKEND_DEFINITIONS",
    "read_inrc",
]


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


_ROOT_CHILDREN: Mapping[str, bool] = {
    "StartDate": False, "EndDate": False, "Skills": False, "ShiftTypes": False, "Patterns": False,
    "Contracts": False, "Employees": False, "CoverRequirements": False, "DayOffRequests": False,
    "DayOnRequests": False, "ShiftOffRequests": False, "ShiftOnRequests": False,
}


def _read_shift(ctx: XmlFile, node: XmlNode, skills: set[str] | None) -> InrcShiftType:
    """One ``<Shift>`` of ``<ShiftTypes>``."""
    shift_id = id_attr(ctx, node)
    if shift_id in (ANY, NONE):
        raise ctx.error("I526", f"shift type id {shift_id!r} is reserved", node,
                        hint="expected an id other than Any and None (they are pattern wildcards)")
    groups = group(ctx, node, {"StartTime": False, "EndTime": False, "Description": False, "Skills": False})
    start, start_hms = clock_time(ctx, one(ctx, node, groups, "StartTime"))
    end, end_hms = clock_time(ctx, one(ctx, node, groups, "EndTime"))
    description = opt(groups, "Description")
    return InrcShiftType(
        id=shift_id, start=start, end=end,
        description=leaf(ctx, description, "a description", allow_empty=True) if description else None,
        required_skills=id_list(ctx, opt(groups, "Skills"), "Skill", skills, "skill", "I517"),
        is_night=start_hms > end_hms, line=node.line,
    )


def _read_shift_types(ctx: XmlFile, node: XmlNode, skills: set[str] | None) -> tuple[InrcShiftType, ...]:
    """All ``<Shift>`` elements, unique ids, at least one."""
    shifts: list[InrcShiftType] = []
    seen: dict[str, int] = {}
    for child in some(ctx, node, group(ctx, node, {"Shift": True}), "Shift"):
        shift = _read_shift(ctx, child, skills)
        unique(ctx, child, shift.id, seen, "shift type")
        shifts.append(shift)
    return tuple(shifts)


def _read_pattern_entry(ctx: XmlFile, node: XmlNode, position: int, shifts: set[str]) -> InrcPatternEntry:
    """One ``<PatternEntry>``; its ``index``, if given, must equal ``position``."""
    index = node.attrs.get("index")
    what = "the index of <PatternEntry>"
    if index is not None and uint(ctx, node, index.strip(), what, "I514") != position:
        raise ctx.error("I525", f"<PatternEntry> has index {index.strip()} at position {position}", node,
                        hint=f"expected index {position} (entries are numbered 0, 1, … in order)")
    groups = group(ctx, node, {"ShiftType": False, "Day": False})
    shift_node = one(ctx, node, groups, "ShiftType")
    shift = leaf(ctx, shift_node, "a shift type id, Any or None")
    if shift not in shifts and shift not in (ANY, NONE):
        listed = ", ".join(sorted(shifts))
        raise ctx.error("I518", f"unknown shift type {shift!r} in <ShiftType>", shift_node,
                        hint=f"expected Any, None or one of: {listed}")
    return InrcPatternEntry(shift=shift, day=weekday_name(ctx, one(ctx, node, groups, "Day"), allow_any=True))


def _read_pattern(ctx: XmlFile, node: XmlNode, shifts: set[str]) -> InrcPattern:
    """One ``<Pattern ID weight>`` with its entries."""
    pattern_id = id_attr(ctx, node)
    weight = weight_attr(ctx, node)
    entries_node = one(ctx, node, group(ctx, node, {"PatternEntries": False}), "PatternEntries")
    entry_nodes = some(ctx, entries_node, group(ctx, entries_node, {"PatternEntry": True}), "PatternEntry")
    entries = tuple(_read_pattern_entry(ctx, e, i, shifts) for i, e in enumerate(entry_nodes))
    anchor = entries[0].day if entries[0].day != ANY else None
    return InrcPattern(id=pattern_id, weight=weight, entries=entries, anchor_weekday=anchor, line=node.line)


def _read_patterns(ctx: XmlFile, node: XmlNode | None, shifts: set[str]) -> tuple[InrcPattern, ...]:
    """All ``<Pattern>`` elements (none if ``<Patterns>`` is absent or empty), unique ids."""
    patterns: list[InrcPattern] = []
    seen: dict[str, int] = {}
    for child in children_of(ctx, node, "Pattern"):
        pattern = _read_pattern(ctx, child, shifts)
        unique(ctx, child, pattern.id, seen, "pattern")
        patterns.append(pattern)
    return tuple(patterns)


def _read_employee(ctx: XmlFile, node: XmlNode, contracts: set[str], skills: set[str] | None) -> InrcEmployee:
    """One ``<Employee>``."""
    employee_id = id_attr(ctx, node)
    groups = group(ctx, node, {"ContractID": False, "Name": False, "Skills": False})
    name = opt(groups, "Name")
    return InrcEmployee(
        id=employee_id,
        contract=ref(ctx, one(ctx, node, groups, "ContractID"), contracts, "contract", "I520"),
        name=leaf(ctx, name, "a name", allow_empty=True) if name else None,
        skills=id_list(ctx, opt(groups, "Skills"), "Skill", skills, "skill", "I517"),
        line=node.line,
    )


def _read_employees(ctx: XmlFile, node: XmlNode, contracts: set[str],
                    skills: set[str] | None) -> tuple[InrcEmployee, ...]:
    """All ``<Employee>`` elements, unique ids, at least one."""
    employees: list[InrcEmployee] = []
    seen: dict[str, int] = {}
    for child in some(ctx, node, group(ctx, node, {"Employee": True}), "Employee"):
        employee = _read_employee(ctx, child, contracts, skills)
        unique(ctx, child, employee.id, seen, "employee")
        employees.append(employee)
    return tuple(employees)


def _read_cover_group(ctx: XmlFile, node: XmlNode, shifts: set[str],
                      horizon: Horizon) -> list[tuple[InrcCover, XmlNode]]:
    """The covers (with their ``<Cover>`` nodes) of one ``<DayOfWeekCover>``/``<DateSpecificCover>``."""
    weekly = node.tag == "DayOfWeekCover"
    groups = group(ctx, node, {"Day": False, "Cover": True} if weekly else {"Date": False, "Cover": True})
    weekday: str | None = None
    day: int | None = None
    when: date | None = None
    if weekly:
        weekday = weekday_name(ctx, one(ctx, node, groups, "Day"), allow_any=False)
    else:
        day, when = horizon.day(ctx, one(ctx, node, groups, "Date"))
    covers: list[tuple[InrcCover, XmlNode]] = []
    for cover in some(ctx, node, groups, "Cover"):
        parts = group(ctx, cover, {"Shift": False, "Preferred": False})
        shift = ref(ctx, one(ctx, cover, parts, "Shift"), shifts, "shift type", "I518")
        preferred_node = one(ctx, cover, parts, "Preferred")
        preferred = uint(ctx, preferred_node, leaf(ctx, preferred_node, "a non-negative integer"),
                          "<Preferred>", "I514")
        record = InrcCover(kind="DayOfWeek" if weekly else "DateSpecific", weekday=weekday, date=when,
                           day=day, shift=shift, preferred=preferred, line=cover.line)
        covers.append((record, cover))
    return covers


def _read_covers(ctx: XmlFile, node: XmlNode, shifts: set[str], horizon: Horizon) -> tuple[InrcCover, ...]:
    """All covers in file order; the same (weekday or date, shift) twice is an error."""
    group(ctx, node, {"DayOfWeekCover": True, "DateSpecificCover": True})
    covers: list[InrcCover] = []
    seen: dict[tuple[str, str], int] = {}
    for child in node.children:
        for cover, cover_node in _read_cover_group(ctx, child, shifts, horizon):
            key = (cover.weekday if cover.weekday is not None else str(cover.date), cover.shift)
            if key in seen:
                raise ctx.error("I524", f"second cover for {key[0]} and shift {key[1]!r} (first at line "
                                f"{seen[key]})", cover_node,
                                hint="expected one cover per weekday (or date) and shift")
            seen[key] = cover.line
            covers.append(cover)
    return tuple(covers)


def _resolve_demand(covers: tuple[InrcCover, ...], shift_ids: list[str],
                    horizon: Horizon) -> tuple[tuple[int, ...], ...]:
    """``demand[d][s]``: date-specific cover, else weekday cover, else 0."""
    column = {shift: i for i, shift in enumerate(shift_ids)}
    weekly = [[0] * len(shift_ids) for _ in WEEKDAYS]
    dated: dict[tuple[int, int], int] = {}
    for cover in covers:
        if cover.weekday is not None:
            weekly[WEEKDAYS.index(cover.weekday)][column[cover.shift]] = cover.preferred
        else:
            dated[(cover.day, column[cover.shift])] = cover.preferred  # type: ignore[index]
    table = []
    for d in range(horizon.n_days):
        base = weekly[WEEKDAYS.index(horizon.weekday(d))]
        table.append(tuple(dated.get((d, s), base[s]) for s in range(len(shift_ids))))
    return tuple(table)


def _read_day_requests(ctx: XmlFile, node: XmlNode | None, tag: str, employees: set[str],
                       horizon: Horizon) -> tuple[InrcDayRequest, ...]:
    """``<DayOff>``/``<DayOn>`` requests of one request list."""
    requests: list[InrcDayRequest] = []
    for child in children_of(ctx, node, tag):
        weight = weight_attr(ctx, child)
        groups = group(ctx, child, {"EmployeeID": False, "Date": False})
        employee = ref(ctx, one(ctx, child, groups, "EmployeeID"), employees, "employee", "I521")
        day, when = horizon.day(ctx, one(ctx, child, groups, "Date"))
        requests.append(InrcDayRequest(employee=employee, day=day, date=when, weight=weight,
                                       active=weight > 0, line=child.line))
    return tuple(requests)


def _read_shift_requests(ctx: XmlFile, node: XmlNode | None, tag: str, employees: set[str], shifts: set[str],
                         horizon: Horizon) -> tuple[InrcShiftRequest, ...]:
    """``<ShiftOff>``/``<ShiftOn>`` requests of one request list."""
    requests: list[InrcShiftRequest] = []
    for child in children_of(ctx, node, tag):
        weight = weight_attr(ctx, child)
        groups = group(ctx, child, {"ShiftTypeID": False, "EmployeeID": False, "Date": False})
        shift = ref(ctx, one(ctx, child, groups, "ShiftTypeID"), shifts, "shift type", "I518")
        employee = ref(ctx, one(ctx, child, groups, "EmployeeID"), employees, "employee", "I521")
        day, when = horizon.day(ctx, one(ctx, child, groups, "Date"))
        requests.append(InrcShiftRequest(employee=employee, day=day, date=when, shift=shift, weight=weight,
                                         active=weight > 0, line=child.line))
    return tuple(requests)


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def read_inrc(path: str | Path) -> InrcData:
    """Read an INRC-2010 competition XML instance into an :class:`InrcData` record.

    Raises :class:`~schedc.core.diagnostics.SchedcError` (codes I500–I526, see the module docstring)
    for unreadable, malformed or inconsistent input.
    """
    file = str(path)
    ctx = XmlFile(file, read_source(path, code="I500"))
    root = parse_tree(ctx)
    if root.tag != "SchedulingPeriod":
        raise ctx.error("I502", f"root element is <{root.tag}>", root,
                        hint="expected an INRC-2010 instance with root <SchedulingPeriod>")
    period_id = id_attr(ctx, root)
    groups = group(ctx, root, _ROOT_CHILDREN)
    horizon = read_horizon(ctx, groups, root)
    skills_node = opt(groups, "Skills")
    skills = id_list(ctx, skills_node, "Skill", None, "skill", "I517")
    known_skills = set(skills) if skills_node is not None else None
    shift_types = _read_shift_types(ctx, one(ctx, root, groups, "ShiftTypes"), known_skills)
    shift_ids = [s.id for s in shift_types]
    shift_set = set(shift_ids)
    patterns = _read_patterns(ctx, opt(groups, "Patterns"), shift_set)
    contracts = read_contracts(ctx, one(ctx, root, groups, "Contracts"), {p.id for p in patterns}, horizon)
    employees = _read_employees(ctx, one(ctx, root, groups, "Employees"), {c.id for c in contracts},
                                known_skills)
    covers = _read_covers(ctx, one(ctx, root, groups, "CoverRequirements"), shift_set, horizon)
    employee_set = {e.id for e in employees}
    return InrcData(
        id=period_id,
        organisation_id=root.attrs.get("OrganisationID"),
        start_date=horizon.start,
        end_date=horizon.end,
        n_days=horizon.n_days,
        weekdays=tuple(horizon.weekday(d) for d in range(horizon.n_days)),
        skills=skills,
        shift_types=shift_types,
        patterns=patterns,
        contracts=contracts,
        employees=employees,
        covers=covers,
        demand=_resolve_demand(covers, shift_ids, horizon),
        day_off_requests=_read_day_requests(ctx, opt(groups, "DayOffRequests"), "DayOff", employee_set,
                                            horizon),
        day_on_requests=_read_day_requests(ctx, opt(groups, "DayOnRequests"), "DayOn", employee_set,
                                           horizon),
        shift_off_requests=_read_shift_requests(ctx, opt(groups, "ShiftOffRequests"), "ShiftOff",
                                                employee_set, shift_set, horizon),
        shift_on_requests=_read_shift_requests(ctx, opt(groups, "ShiftOnRequests"), "ShiftOn",
                                               employee_set, shift_set, horizon),
        file=file,
    )

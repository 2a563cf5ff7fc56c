"""Raw reader for INRC-2010 (first International Nurse Rostering Competition) XML instances.

:func:`read_inrc` turns a competition XML file (``competition.xsd``, root ``<SchedulingPeriod>``)
into an :class:`InrcData` record made of frozen msgspec Structs. The record mirrors the file
(ids, raw on/weight/value attributes, source lines) and resolves the file-level rules of
``shared/reference/inrc2010.md`` §1 ("Importer rules"):

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

Every error is a :class:`~schedc.diagnostics.SchedcError` naming the file and the line:column of
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

import re
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from xml.parsers import expat

import msgspec

from schedc.diagnostics import SchedcError
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

WEEKDAYS: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
"""Weekday names in ``datetime.date.weekday()`` order (Monday = 0)."""

WEEKEND_DEFINITIONS: Mapping[str, tuple[str, ...]] = {
    "SaturdaySunday": ("Saturday", "Sunday"),
    "FridaySaturdaySunday": ("Friday", "Saturday", "Sunday"),
    "FridaySaturdaySundayMonday": ("Friday", "Saturday", "Sunday", "Monday"),
    "SaturdaySundayMonday": ("Saturday", "Sunday", "Monday"),
}
"""The four ``WeekendDefinition`` values and their days in weekend order."""

ANY = "Any"
NONE = "None"

_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME_RE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})")
_UINT_RE = re.compile(r"[0-9]+")
_BOOLEANS: Mapping[str, bool] = {"true": True, "1": True, "false": False, "0": False}


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


class InrcShiftType(msgspec.Struct, frozen=True, kw_only=True):
    """A ``<Shift>`` of ``<ShiftTypes>``.

    ``id``: the shift type id (``E``, ``L``, ``D``, ``N``, ``DH`` …). ``start``/``end``: the
    ``StartTime``/``EndTime`` text, ``hh:mm:ss``. ``description``: ``Description`` text or None.
    ``required_skills``: the ``Skills/Skill`` ids, in file order. ``is_night``: start > end (the
    shift crosses midnight). ``line``: line of the ``<Shift>`` tag.
    """

    id: str
    start: str
    end: str
    description: str | None
    required_skills: tuple[str, ...]
    is_night: bool
    line: int


class InrcPatternEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One ``<PatternEntry>``: ``shift`` is a shift type id, ``"Any"`` (worked, any shift) or
    ``"None"`` (free); ``day`` is a weekday name or ``"Any"`` (only entry 0's day matters)."""

    shift: str
    day: str


class InrcPattern(msgspec.Struct, frozen=True, kw_only=True):
    """An unwanted shift sequence (``<Pattern ID weight>``).

    ``entries``: in document order (= ``index`` order). ``anchor_weekday``: ``entries[0].day``
    when it is a weekday name (the pattern may only start on that weekday), else None.
    ``weight``: cost per occurrence. ``line``: line of the ``<Pattern>`` tag.
    """

    id: str
    weight: int
    entries: tuple[InrcPatternEntry, ...]
    anchor_weekday: str | None
    line: int


class InrcOnWeightRule(msgspec.Struct, frozen=True, kw_only=True):
    """A contract rule with ``on``/``weight`` attributes and an integer value.

    ``on``, ``weight``, ``value``: as in the file. ``active``: ``on and weight > 0`` (reference
    rule). ``present``: the element occurs in the contract (if not: on False, weight 0,
    value 0). ``line``: line of the element (0 when absent).
    """

    on: bool
    weight: int
    value: int
    active: bool
    present: bool
    line: int


class InrcBoolRule(msgspec.Struct, frozen=True, kw_only=True):
    """A contract rule with a ``weight`` attribute and a boolean text.

    ``value``: the text (``true``/``1`` → True). ``weight``: as in the file. ``active``:
    ``value and weight > 0`` (reference rule). ``present``: the element occurs in the contract.
    ``line``: line of the element (0 when absent).
    """

    value: bool
    weight: int
    active: bool
    present: bool
    line: int


class InrcContract(msgspec.Struct, frozen=True, kw_only=True):
    """A ``<Contract>``: the soft rules shared by its employees.

    The rule fields are named after the elements (``MaxNumAssignments`` →
    ``max_num_assignments`` …). ``single_assignment_per_day`` is kept raw although the
    reference treats it as hard regardless of weight. ``weekend_definition``: the enum text;
    ``weekend_days``: its weekday names in order; ``weekends``: the weekend blocks of the
    horizon as tuples of day indices (cut at the horizon end). ``unwanted_patterns``: the
    pattern ids of ``UnwantedPatterns``, in file order.
    """

    id: str
    description: str | None
    single_assignment_per_day: InrcBoolRule
    max_num_assignments: InrcOnWeightRule
    min_num_assignments: InrcOnWeightRule
    max_consecutive_working_days: InrcOnWeightRule
    min_consecutive_working_days: InrcOnWeightRule
    max_consecutive_free_days: InrcOnWeightRule
    min_consecutive_free_days: InrcOnWeightRule
    max_consecutive_working_weekends: InrcOnWeightRule
    min_consecutive_working_weekends: InrcOnWeightRule
    max_working_weekends_in_four_weeks: InrcOnWeightRule
    weekend_definition: str
    weekend_definition_given: bool
    weekend_days: tuple[str, ...]
    weekends: tuple[tuple[int, ...], ...]
    complete_weekends: InrcBoolRule
    identical_shift_types_during_weekend: InrcBoolRule
    no_night_shift_before_free_weekend: InrcBoolRule
    two_free_days_after_night_shifts: InrcBoolRule
    alternative_skill_category: InrcBoolRule
    unwanted_patterns: tuple[str, ...]
    line: int


class InrcEmployee(msgspec.Struct, frozen=True, kw_only=True):
    """An ``<Employee>``: ``id`` (the key), ``contract`` (a contract id), ``name`` (the
    ``Name`` text or None), ``skills`` (skill ids, file order), ``line`` of the tag."""

    id: str
    contract: str
    name: str | None
    skills: tuple[str, ...]
    line: int


class InrcCover(msgspec.Struct, frozen=True, kw_only=True):
    """One raw ``<Cover>`` as written: ``kind`` is ``"DayOfWeek"`` (then ``weekday`` is set) or
    ``"DateSpecific"`` (then ``date`` and ``day`` — its day index — are set); ``shift`` and
    ``preferred`` as in the file; ``line`` of the ``<Cover>`` tag."""

    kind: str
    weekday: str | None
    date: date | None
    day: int | None
    shift: str
    preferred: int
    line: int


class InrcDayRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A ``<DayOff>``/``<DayOn>`` request: ``employee`` id, ``day`` index, ``date``, ``weight``;
    ``active`` is ``weight > 0`` (weight-0 requests are ignored by the reference)."""

    employee: str
    day: int
    date: date
    weight: int
    active: bool
    line: int


class InrcShiftRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A ``<ShiftOff>``/``<ShiftOn>`` request: as :class:`InrcDayRequest` plus ``shift``."""

    employee: str
    day: int
    date: date
    shift: str
    weight: int
    active: bool
    line: int


class InrcData(msgspec.Struct, frozen=True, kw_only=True):
    """One INRC-2010 instance, read faithfully, with the file-level rules resolved.

    ``id``/``organisation_id``: attributes of ``<SchedulingPeriod>``. ``start_date``,
    ``end_date``: inclusive horizon; ``n_days`` days, day ``d`` is ``start_date + d`` and falls
    on ``weekdays[d]``. ``skills``: declared skill ids. ``shift_types``, ``patterns``,
    ``contracts``, ``employees``: in file order. ``covers``: the raw cover entries.
    ``demand[d][s]``: required number of employees on day ``d`` for ``shift_types[s]``
    (date-specific over weekday cover, default 0). ``*_requests``: every request element in file
    order. ``file``: the path read.
    """

    id: str
    organisation_id: str | None
    start_date: date
    end_date: date
    n_days: int
    weekdays: tuple[str, ...]
    skills: tuple[str, ...]
    shift_types: tuple[InrcShiftType, ...]
    patterns: tuple[InrcPattern, ...]
    contracts: tuple[InrcContract, ...]
    employees: tuple[InrcEmployee, ...]
    covers: tuple[InrcCover, ...]
    demand: tuple[tuple[int, ...], ...]
    day_off_requests: tuple[InrcDayRequest, ...]
    day_on_requests: tuple[InrcDayRequest, ...]
    shift_off_requests: tuple[InrcShiftRequest, ...]
    shift_on_requests: tuple[InrcShiftRequest, ...]
    file: str

    def demand_of(self, day: int, shift: str) -> int:
        """The resolved demand for day index ``day`` and shift type id ``shift``."""
        for index, shift_type in enumerate(self.shift_types):
            if shift_type.id == shift:
                return self.demand[day][index]
        raise KeyError(shift)


# --------------------------------------------------------------------------------------------
# XML tree with positions
# --------------------------------------------------------------------------------------------


class _Node:
    """A parsed element: tag, attributes, children, text chunks and 1-based start position."""

    __slots__ = ("tag", "attrs", "children", "parts", "line", "column")

    def __init__(self, tag: str, attrs: dict[str, str], line: int, column: int):
        self.tag = tag
        self.attrs = attrs
        self.children: list[_Node] = []
        self.parts: list[str] = []
        self.line = line
        self.column = column

    def text(self) -> str:
        """All character data directly inside this element, stripped."""
        return "".join(self.parts).strip()


class _Ctx:
    """The file being read: its name and text, for positioned errors."""

    __slots__ = ("file", "source")

    def __init__(self, file: str, source: str):
        self.file = file
        self.source = source

    def error(self, code: str, message: str, node: _Node | None, hint: str | None = None) -> SchedcError:
        """A :class:`SchedcError` at ``node``'s start tag (no position if ``node`` is None)."""
        line = node.line if node is not None else None
        column = node.column if node is not None else 1
        return SchedcError.at(code, message, file=self.file, line=line, column=column, hint=hint,
                              source=self.source)


def _parse_tree(ctx: _Ctx) -> _Node:
    """Parse the XML text with expat into :class:`_Node` objects carrying line/column."""
    parser = expat.ParserCreate(encoding="UTF-8")
    parser.buffer_text = True
    stack: list[_Node] = []
    roots: list[_Node] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = _Node(tag, attrs, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        stack.pop()

    def chars(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(ctx.source.encode("utf-8"), True)
    except expat.ExpatError as exc:
        raise SchedcError.at("I501", f"malformed XML: {expat.ErrorString(exc.code)}", file=ctx.file,
                             line=exc.lineno, column=exc.offset + 1, source=ctx.source,
                             hint="expected a well-formed XML document") from None
    return roots[0]


# --------------------------------------------------------------------------------------------
# Generic element access
# --------------------------------------------------------------------------------------------


def _group(ctx: _Ctx, node: _Node, allowed: Mapping[str, bool]) -> dict[str, list[_Node]]:
    """Group ``node``'s children by tag; ``allowed`` maps each tag to "may repeat"."""
    if "".join(node.parts).strip():
        raise ctx.error("I508", f"unexpected text inside <{node.tag}>", node,
                        hint="expected only child elements here")
    groups: dict[str, list[_Node]] = {}
    for child in node.children:
        repeat = allowed.get(child.tag)
        if repeat is None:
            raise ctx.error("I504", f"unexpected element <{child.tag}> in <{node.tag}>", child,
                            hint="expected one of " + ", ".join(f"<{t}>" for t in allowed))
        nodes = groups.setdefault(child.tag, [])
        if nodes and not repeat:
            raise ctx.error("I505", f"<{child.tag}> occurs twice in <{node.tag}> (first at line "
                            f"{nodes[0].line})", child, hint=f"expected at most one <{child.tag}>")
        nodes.append(child)
    return groups


def _one(ctx: _Ctx, parent: _Node, groups: dict[str, list[_Node]], tag: str) -> _Node:
    """The single required child ``tag`` of ``parent``."""
    nodes = groups.get(tag)
    if not nodes:
        raise ctx.error("I503", f"<{parent.tag}> has no <{tag}>", parent, hint=f"expected a <{tag}> element")
    return nodes[0]


def _opt(groups: dict[str, list[_Node]], tag: str) -> _Node | None:
    """The optional single child ``tag``, or None."""
    nodes = groups.get(tag)
    return nodes[0] if nodes else None


def _some(ctx: _Ctx, parent: _Node, groups: dict[str, list[_Node]], tag: str) -> list[_Node]:
    """The repeated child ``tag``, at least one."""
    nodes = groups.get(tag)
    if not nodes:
        raise ctx.error("I503", f"<{parent.tag}> has no <{tag}>", parent,
                        hint=f"expected at least one <{tag}> element")
    return nodes


def _list(ctx: _Ctx, node: _Node | None, tag: str) -> list[_Node]:
    """The ``tag`` children of a list element (empty if the list element is absent)."""
    if node is None:
        return []
    return _group(ctx, node, {tag: True}).get(tag, [])


def _leaf(ctx: _Ctx, node: _Node, what: str, allow_empty: bool = False) -> str:
    """The stripped text of a value element (no child elements allowed)."""
    if node.children:
        child = node.children[0]
        raise ctx.error("I504", f"unexpected element <{child.tag}> in <{node.tag}>", child,
                        hint=f"expected {what} as text")
    text = node.text()
    if not text and not allow_empty:
        raise ctx.error("I507", f"<{node.tag}> is empty", node, hint=f"expected {what}")
    return text


def _attr(ctx: _Ctx, node: _Node, name: str) -> str:
    """A required attribute's value, stripped."""
    value = node.attrs.get(name)
    if value is None:
        raise ctx.error("I506", f"<{node.tag}> has no {name!r} attribute", node,
                        hint=f'expected <{node.tag} {name}="…">')
    return value.strip()


def _id_attr(ctx: _Ctx, node: _Node) -> str:
    """The non-empty ``ID`` attribute of ``node``."""
    value = _attr(ctx, node, "ID")
    if not value:
        raise ctx.error("I507", f"<{node.tag}> has an empty ID", node, hint="expected a non-empty ID")
    return value


def _uint(ctx: _Ctx, node: _Node, raw: str, what: str, code: str) -> int:
    """``raw`` as a non-negative integer."""
    if not _UINT_RE.fullmatch(raw):
        raise ctx.error(code, f"{what} is {raw!r}", node, hint="expected a non-negative integer")
    return int(raw)


def _weight(ctx: _Ctx, node: _Node) -> int:
    """The ``weight`` attribute as a non-negative integer."""
    return _uint(ctx, node, _attr(ctx, node, "weight"), f"the weight of <{node.tag}>", "I513")


def _bool(ctx: _Ctx, node: _Node, raw: str, what: str) -> bool:
    """``raw`` as an xs:boolean."""
    value = _BOOLEANS.get(raw)
    if value is None:
        raise ctx.error("I515", f"{what} is {raw!r}", node, hint="expected true, false, 1 or 0")
    return value


def _date(ctx: _Ctx, node: _Node) -> date:
    """The text of ``node`` as a ``yyyy-mm-dd`` date."""
    raw = _leaf(ctx, node, "a date yyyy-mm-dd")
    if _DATE_RE.fullmatch(raw):
        try:
            return date.fromisoformat(raw)
        except ValueError:
            pass
    raise ctx.error("I509", f"<{node.tag}> is {raw!r}, not a date", node, hint="expected a date yyyy-mm-dd")


def _time(ctx: _Ctx, node: _Node) -> tuple[str, tuple[int, int, int]]:
    """The text of ``node`` as ``hh:mm:ss``: the text and its (h, m, s)."""
    raw = _leaf(ctx, node, "a time hh:mm:ss")
    match = _TIME_RE.fullmatch(raw)
    if match:
        hms = (int(match[1]), int(match[2]), int(match[3]))
        if hms[0] < 24 and hms[1] < 60 and hms[2] < 60:
            return raw, hms
    raise ctx.error("I512", f"<{node.tag}> is {raw!r}, not a time", node, hint="expected a time hh:mm:ss")


def _weekday(ctx: _Ctx, node: _Node, allow_any: bool) -> str:
    """The text of ``node`` as a weekday name (or ``Any`` if allowed)."""
    raw = _leaf(ctx, node, "a weekday name")
    if raw in WEEKDAYS or (allow_any and raw == ANY):
        return raw
    expected = ", ".join(WEEKDAYS) + (" or Any" if allow_any else "")
    raise ctx.error("I523", f"unknown weekday {raw!r} in <{node.tag}>", node,
                    hint=f"expected one of {expected}")


def _ref(ctx: _Ctx, node: _Node, known: Mapping[str, object] | set[str], kind: str, code: str) -> str:
    """The text of ``node`` as the id of a known ``kind``."""
    raw = _leaf(ctx, node, f"a {kind} id")
    if raw not in known:
        ids = sorted(known)
        listed = ", ".join(ids[:20]) if ids else "none declared"
        if len(ids) > 20:
            listed += f", … ({len(ids)} in all)"
        raise ctx.error(code, f"unknown {kind} {raw!r} in <{node.tag}>", node,
                        hint=f"expected one of: {listed}")
    return raw


def _unique(ctx: _Ctx, node: _Node, key: str, seen: dict[str, int], kind: str) -> None:
    """Record ``key`` as seen at ``node``; fail if it was seen before."""
    if key in seen:
        raise ctx.error("I516", f"duplicate {kind} id {key!r} (first at line {seen[key]})", node,
                        hint=f"expected each {kind} id once")
    seen[key] = node.line


def _id_list(ctx: _Ctx, node: _Node | None, tag: str, known: set[str] | None, kind: str,
             code: str) -> tuple[str, ...]:
    """The ids of a list like ``<Skills><Skill>…</Skill></Skills>``, unique, checked against ``known``."""
    ids: list[str] = []
    seen: dict[str, int] = {}
    for child in _list(ctx, node, tag):
        if known is None:
            value = _leaf(ctx, child, f"a {kind} id")
        else:
            value = _ref(ctx, child, known, kind, code)
        _unique(ctx, child, value, seen, kind)
        ids.append(value)
    return tuple(ids)


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


class _Horizon:
    """Start date and length of the planning horizon, with date → day index lookup."""

    __slots__ = ("start", "end", "n_days")

    def __init__(self, start: date, end: date):
        self.start = start
        self.end = end
        self.n_days = (end - start).days + 1

    def day(self, ctx: _Ctx, node: _Node) -> tuple[int, date]:
        """The day index and date of a ``<Date>`` element, which must lie in the horizon."""
        value = _date(ctx, node)
        if not self.start <= value <= self.end:
            raise ctx.error("I511", f"date {value.isoformat()} lies outside the horizon", node,
                            hint=f"expected a date from {self.start.isoformat()} to {self.end.isoformat()}")
        return (value - self.start).days, value

    def weekday(self, day: int) -> str:
        """The weekday name of day index ``day``."""
        return WEEKDAYS[(self.start.weekday() + day) % 7]


_ROOT_CHILDREN: Mapping[str, bool] = {
    "StartDate": False, "EndDate": False, "Skills": False, "ShiftTypes": False, "Patterns": False,
    "Contracts": False, "Employees": False, "CoverRequirements": False, "DayOffRequests": False,
    "DayOnRequests": False, "ShiftOffRequests": False, "ShiftOnRequests": False,
}


def _read_horizon(ctx: _Ctx, groups: dict[str, list[_Node]], root: _Node) -> _Horizon:
    """``StartDate``/``EndDate``; the end must not precede the start."""
    start = _date(ctx, _one(ctx, root, groups, "StartDate"))
    end_node = _one(ctx, root, groups, "EndDate")
    end = _date(ctx, end_node)
    if end < start:
        raise ctx.error("I510", f"EndDate {end.isoformat()} is before StartDate {start.isoformat()}",
                        end_node, hint="expected an end date on or after the start date")
    return _Horizon(start, end)


def _read_shift(ctx: _Ctx, node: _Node, skills: set[str] | None) -> InrcShiftType:
    """One ``<Shift>`` of ``<ShiftTypes>``."""
    shift_id = _id_attr(ctx, node)
    if shift_id in (ANY, NONE):
        raise ctx.error("I526", f"shift type id {shift_id!r} is reserved", node,
                        hint="expected an id other than Any and None (they are pattern wildcards)")
    groups = _group(ctx, node, {"StartTime": False, "EndTime": False, "Description": False, "Skills": False})
    start, start_hms = _time(ctx, _one(ctx, node, groups, "StartTime"))
    end, end_hms = _time(ctx, _one(ctx, node, groups, "EndTime"))
    description = _opt(groups, "Description")
    return InrcShiftType(
        id=shift_id, start=start, end=end,
        description=_leaf(ctx, description, "a description", allow_empty=True) if description else None,
        required_skills=_id_list(ctx, _opt(groups, "Skills"), "Skill", skills, "skill", "I517"),
        is_night=start_hms > end_hms, line=node.line,
    )


def _read_shift_types(ctx: _Ctx, node: _Node, skills: set[str] | None) -> tuple[InrcShiftType, ...]:
    """All ``<Shift>`` elements, unique ids, at least one."""
    shifts: list[InrcShiftType] = []
    seen: dict[str, int] = {}
    for child in _some(ctx, node, _group(ctx, node, {"Shift": True}), "Shift"):
        shift = _read_shift(ctx, child, skills)
        _unique(ctx, child, shift.id, seen, "shift type")
        shifts.append(shift)
    return tuple(shifts)


def _read_pattern_entry(ctx: _Ctx, node: _Node, position: int, shifts: set[str]) -> InrcPatternEntry:
    """One ``<PatternEntry>``; its ``index``, if given, must equal ``position``."""
    index = node.attrs.get("index")
    what = "the index of <PatternEntry>"
    if index is not None and _uint(ctx, node, index.strip(), what, "I514") != position:
        raise ctx.error("I525", f"<PatternEntry> has index {index.strip()} at position {position}", node,
                        hint=f"expected index {position} (entries are numbered 0, 1, … in order)")
    groups = _group(ctx, node, {"ShiftType": False, "Day": False})
    shift_node = _one(ctx, node, groups, "ShiftType")
    shift = _leaf(ctx, shift_node, "a shift type id, Any or None")
    if shift not in shifts and shift not in (ANY, NONE):
        listed = ", ".join(sorted(shifts))
        raise ctx.error("I518", f"unknown shift type {shift!r} in <ShiftType>", shift_node,
                        hint=f"expected Any, None or one of: {listed}")
    return InrcPatternEntry(shift=shift, day=_weekday(ctx, _one(ctx, node, groups, "Day"), allow_any=True))


def _read_pattern(ctx: _Ctx, node: _Node, shifts: set[str]) -> InrcPattern:
    """One ``<Pattern ID weight>`` with its entries."""
    pattern_id = _id_attr(ctx, node)
    weight = _weight(ctx, node)
    entries_node = _one(ctx, node, _group(ctx, node, {"PatternEntries": False}), "PatternEntries")
    entry_nodes = _some(ctx, entries_node, _group(ctx, entries_node, {"PatternEntry": True}), "PatternEntry")
    entries = tuple(_read_pattern_entry(ctx, e, i, shifts) for i, e in enumerate(entry_nodes))
    anchor = entries[0].day if entries[0].day != ANY else None
    return InrcPattern(id=pattern_id, weight=weight, entries=entries, anchor_weekday=anchor, line=node.line)


def _read_patterns(ctx: _Ctx, node: _Node | None, shifts: set[str]) -> tuple[InrcPattern, ...]:
    """All ``<Pattern>`` elements (none if ``<Patterns>`` is absent or empty), unique ids."""
    patterns: list[InrcPattern] = []
    seen: dict[str, int] = {}
    for child in _list(ctx, node, "Pattern"):
        pattern = _read_pattern(ctx, child, shifts)
        _unique(ctx, child, pattern.id, seen, "pattern")
        patterns.append(pattern)
    return tuple(patterns)


_ON_WEIGHT_RULES: Mapping[str, str] = {
    "MaxNumAssignments": "max_num_assignments",
    "MinNumAssignments": "min_num_assignments",
    "MaxConsecutiveWorkingDays": "max_consecutive_working_days",
    "MinConsecutiveWorkingDays": "min_consecutive_working_days",
    "MaxConsecutiveFreeDays": "max_consecutive_free_days",
    "MinConsecutiveFreeDays": "min_consecutive_free_days",
    "MaxConsecutiveWorkingWeekends": "max_consecutive_working_weekends",
    "MinConsecutiveWorkingWeekends": "min_consecutive_working_weekends",
    "MaxWorkingWeekendsInFourWeeks": "max_working_weekends_in_four_weeks",
}

_BOOL_RULES: Mapping[str, str] = {
    "SingleAssignmentPerDay": "single_assignment_per_day",
    "CompleteWeekends": "complete_weekends",
    "IdenticalShiftTypesDuringWeekend": "identical_shift_types_during_weekend",
    "NoNightShiftBeforeFreeWeekend": "no_night_shift_before_free_weekend",
    "TwoFreeDaysAfterNightShifts": "two_free_days_after_night_shifts",
    "AlternativeSkillCategory": "alternative_skill_category",
}

_CONTRACT_CHILDREN: Mapping[str, bool] = {
    "Description": False, **dict.fromkeys(_ON_WEIGHT_RULES, False), **dict.fromkeys(_BOOL_RULES, False),
    "WeekendDefinition": False, "UnwantedPatterns": False,
}

_ABSENT_ON_WEIGHT = InrcOnWeightRule(on=False, weight=0, value=0, active=False, present=False, line=0)


def _on_weight_rule(ctx: _Ctx, node: _Node | None) -> InrcOnWeightRule:
    """An on/weight/value rule element (inactive default when absent)."""
    if node is None:
        return _ABSENT_ON_WEIGHT
    on = _bool(ctx, node, _attr(ctx, node, "on"), f"the 'on' attribute of <{node.tag}>")
    weight = _weight(ctx, node)
    value = _uint(ctx, node, _leaf(ctx, node, "a non-negative integer"), f"the value of <{node.tag}>", "I514")
    return InrcOnWeightRule(on=on, weight=weight, value=value, active=on and weight > 0, present=True,
                            line=node.line)


def _bool_rule(ctx: _Ctx, node: _Node | None, absent_value: bool) -> InrcBoolRule:
    """A weight + boolean rule element (``absent_value``, weight 0 when absent)."""
    if node is None:
        return InrcBoolRule(value=absent_value, weight=0, active=False, present=False, line=0)
    weight = _weight(ctx, node)
    value = _bool(ctx, node, _leaf(ctx, node, "true or false"), f"the value of <{node.tag}>")
    return InrcBoolRule(value=value, weight=weight, active=value and weight > 0, present=True, line=node.line)


_Weekend = tuple[str, tuple[str, ...], tuple[tuple[int, ...], ...]]


def _weekend(ctx: _Ctx, node: _Node | None, horizon: _Horizon) -> _Weekend:
    """The weekend definition, its weekday names and its blocks of day indices."""
    name = "SaturdaySunday"
    if node is not None:
        name = _leaf(ctx, node, "a weekend definition")
        if name not in WEEKEND_DEFINITIONS:
            raise ctx.error("I522", f"unknown weekend definition {name!r}", node,
                            hint="expected one of " + ", ".join(WEEKEND_DEFINITIONS))
    days = WEEKEND_DEFINITIONS[name]
    blocks = tuple(
        tuple(range(d, min(d + len(days), horizon.n_days)))
        for d in range(horizon.n_days) if horizon.weekday(d) == days[0]
    )
    return name, days, blocks


def _read_contract(ctx: _Ctx, node: _Node, patterns: set[str], horizon: _Horizon) -> InrcContract:
    """One ``<Contract>``."""
    contract_id = _id_attr(ctx, node)
    groups = _group(ctx, node, _CONTRACT_CHILDREN)
    rules: dict[str, object] = {
        field: _on_weight_rule(ctx, _opt(groups, tag)) for tag, field in _ON_WEIGHT_RULES.items()
    }
    for tag, field in _BOOL_RULES.items():
        rules[field] = _bool_rule(ctx, _opt(groups, tag), absent_value=tag == "SingleAssignmentPerDay")
    weekend_node = _opt(groups, "WeekendDefinition")
    name, days, blocks = _weekend(ctx, weekend_node, horizon)
    description = _opt(groups, "Description")
    return InrcContract(
        id=contract_id,
        description=_leaf(ctx, description, "a description", allow_empty=True) if description else None,
        weekend_definition=name, weekend_definition_given=weekend_node is not None,
        weekend_days=days, weekends=blocks,
        unwanted_patterns=_id_list(ctx, _opt(groups, "UnwantedPatterns"), "Pattern", patterns, "pattern",
                                   "I519"),
        line=node.line,
        **rules,  # type: ignore[arg-type]
    )


def _read_contracts(ctx: _Ctx, node: _Node, patterns: set[str],
                    horizon: _Horizon) -> tuple[InrcContract, ...]:
    """All ``<Contract>`` elements, unique ids, at least one."""
    contracts: list[InrcContract] = []
    seen: dict[str, int] = {}
    for child in _some(ctx, node, _group(ctx, node, {"Contract": True}), "Contract"):
        contract = _read_contract(ctx, child, patterns, horizon)
        _unique(ctx, child, contract.id, seen, "contract")
        contracts.append(contract)
    return tuple(contracts)


def _read_employee(ctx: _Ctx, node: _Node, contracts: set[str], skills: set[str] | None) -> InrcEmployee:
    """One ``<Employee>``."""
    employee_id = _id_attr(ctx, node)
    groups = _group(ctx, node, {"ContractID": False, "Name": False, "Skills": False})
    name = _opt(groups, "Name")
    return InrcEmployee(
        id=employee_id,
        contract=_ref(ctx, _one(ctx, node, groups, "ContractID"), contracts, "contract", "I520"),
        name=_leaf(ctx, name, "a name", allow_empty=True) if name else None,
        skills=_id_list(ctx, _opt(groups, "Skills"), "Skill", skills, "skill", "I517"),
        line=node.line,
    )


def _read_employees(ctx: _Ctx, node: _Node, contracts: set[str],
                    skills: set[str] | None) -> tuple[InrcEmployee, ...]:
    """All ``<Employee>`` elements, unique ids, at least one."""
    employees: list[InrcEmployee] = []
    seen: dict[str, int] = {}
    for child in _some(ctx, node, _group(ctx, node, {"Employee": True}), "Employee"):
        employee = _read_employee(ctx, child, contracts, skills)
        _unique(ctx, child, employee.id, seen, "employee")
        employees.append(employee)
    return tuple(employees)


def _read_cover_group(ctx: _Ctx, node: _Node, shifts: set[str],
                      horizon: _Horizon) -> list[tuple[InrcCover, _Node]]:
    """The covers (with their ``<Cover>`` nodes) of one ``<DayOfWeekCover>``/``<DateSpecificCover>``."""
    weekly = node.tag == "DayOfWeekCover"
    groups = _group(ctx, node, {"Day": False, "Cover": True} if weekly else {"Date": False, "Cover": True})
    weekday: str | None = None
    day: int | None = None
    when: date | None = None
    if weekly:
        weekday = _weekday(ctx, _one(ctx, node, groups, "Day"), allow_any=False)
    else:
        day, when = horizon.day(ctx, _one(ctx, node, groups, "Date"))
    covers: list[tuple[InrcCover, _Node]] = []
    for cover in _some(ctx, node, groups, "Cover"):
        parts = _group(ctx, cover, {"Shift": False, "Preferred": False})
        shift = _ref(ctx, _one(ctx, cover, parts, "Shift"), shifts, "shift type", "I518")
        preferred_node = _one(ctx, cover, parts, "Preferred")
        preferred = _uint(ctx, preferred_node, _leaf(ctx, preferred_node, "a non-negative integer"),
                          "<Preferred>", "I514")
        record = InrcCover(kind="DayOfWeek" if weekly else "DateSpecific", weekday=weekday, date=when,
                           day=day, shift=shift, preferred=preferred, line=cover.line)
        covers.append((record, cover))
    return covers


def _read_covers(ctx: _Ctx, node: _Node, shifts: set[str], horizon: _Horizon) -> tuple[InrcCover, ...]:
    """All covers in file order; the same (weekday or date, shift) twice is an error."""
    _group(ctx, node, {"DayOfWeekCover": True, "DateSpecificCover": True})
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
                    horizon: _Horizon) -> tuple[tuple[int, ...], ...]:
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


def _read_day_requests(ctx: _Ctx, node: _Node | None, tag: str, employees: set[str],
                       horizon: _Horizon) -> tuple[InrcDayRequest, ...]:
    """``<DayOff>``/``<DayOn>`` requests of one request list."""
    requests: list[InrcDayRequest] = []
    for child in _list(ctx, node, tag):
        weight = _weight(ctx, child)
        groups = _group(ctx, child, {"EmployeeID": False, "Date": False})
        employee = _ref(ctx, _one(ctx, child, groups, "EmployeeID"), employees, "employee", "I521")
        day, when = horizon.day(ctx, _one(ctx, child, groups, "Date"))
        requests.append(InrcDayRequest(employee=employee, day=day, date=when, weight=weight,
                                       active=weight > 0, line=child.line))
    return tuple(requests)


def _read_shift_requests(ctx: _Ctx, node: _Node | None, tag: str, employees: set[str], shifts: set[str],
                         horizon: _Horizon) -> tuple[InrcShiftRequest, ...]:
    """``<ShiftOff>``/``<ShiftOn>`` requests of one request list."""
    requests: list[InrcShiftRequest] = []
    for child in _list(ctx, node, tag):
        weight = _weight(ctx, child)
        groups = _group(ctx, child, {"ShiftTypeID": False, "EmployeeID": False, "Date": False})
        shift = _ref(ctx, _one(ctx, child, groups, "ShiftTypeID"), shifts, "shift type", "I518")
        employee = _ref(ctx, _one(ctx, child, groups, "EmployeeID"), employees, "employee", "I521")
        day, when = horizon.day(ctx, _one(ctx, child, groups, "Date"))
        requests.append(InrcShiftRequest(employee=employee, day=day, date=when, shift=shift, weight=weight,
                                         active=weight > 0, line=child.line))
    return tuple(requests)


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def read_inrc(path: str | Path) -> InrcData:
    """Read an INRC-2010 competition XML instance into an :class:`InrcData` record.

    Raises :class:`~schedc.diagnostics.SchedcError` (codes I500–I526, see the module docstring)
    for unreadable, malformed or inconsistent input.
    """
    file = str(path)
    ctx = _Ctx(file, read_source(path, code="I500"))
    root = _parse_tree(ctx)
    if root.tag != "SchedulingPeriod":
        raise ctx.error("I502", f"root element is <{root.tag}>", root,
                        hint="expected an INRC-2010 instance with root <SchedulingPeriod>")
    period_id = _id_attr(ctx, root)
    groups = _group(ctx, root, _ROOT_CHILDREN)
    horizon = _read_horizon(ctx, groups, root)
    skills_node = _opt(groups, "Skills")
    skills = _id_list(ctx, skills_node, "Skill", None, "skill", "I517")
    known_skills = set(skills) if skills_node is not None else None
    shift_types = _read_shift_types(ctx, _one(ctx, root, groups, "ShiftTypes"), known_skills)
    shift_ids = [s.id for s in shift_types]
    shift_set = set(shift_ids)
    patterns = _read_patterns(ctx, _opt(groups, "Patterns"), shift_set)
    contracts = _read_contracts(ctx, _one(ctx, root, groups, "Contracts"), {p.id for p in patterns}, horizon)
    employees = _read_employees(ctx, _one(ctx, root, groups, "Employees"), {c.id for c in contracts},
                                known_skills)
    covers = _read_covers(ctx, _one(ctx, root, groups, "CoverRequirements"), shift_set, horizon)
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
        day_off_requests=_read_day_requests(ctx, _opt(groups, "DayOffRequests"), "DayOff", employee_set,
                                            horizon),
        day_on_requests=_read_day_requests(ctx, _opt(groups, "DayOnRequests"), "DayOn", employee_set,
                                           horizon),
        shift_off_requests=_read_shift_requests(ctx, _opt(groups, "ShiftOffRequests"), "ShiftOff",
                                                employee_set, shift_set, horizon),
        shift_on_requests=_read_shift_requests(ctx, _opt(groups, "ShiftOnRequests"), "ShiftOn",
                                               employee_set, shift_set, horizon),
        file=file,
    )

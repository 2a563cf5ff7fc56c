"""The records of an INRC-2010 instance as :func:`schedc.importers.inrc2010_reader.read_inrc` reads it.

Frozen msgspec Structs that mirror the competition XML (ids, raw on/weight/value attributes,
source lines); the rules that resolve them are stated in the reader's docstring.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import msgspec

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

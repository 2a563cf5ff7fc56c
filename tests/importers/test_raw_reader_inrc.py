"""Tests for the raw INRC-2010 XML reader (schedc.importers.inrc2010_reader)."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import msgspec
import pytest

from schedc.core.diagnostics import SchedcError
from schedc.importers.inrc2010_reader import InrcData, read_inrc

DATA = Path("/work/shared/data/inrc2010")


def _instance(name: str) -> Path:
    """A file under the shared INRC data folder; skip the test when it is absent."""
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"shared data not available: {path}")
    return path


def _all_instances() -> list[str]:
    """Every instance file (not the solution files), relative to DATA."""
    if not DATA.is_dir():
        return []
    names = [p.name for p in sorted(DATA.glob("*.xml"))]
    names.append("solutions/extra/toy1.xml")
    names += [f"solutions/uos_unit_tests/{p.name}"
              for p in sorted((DATA / "solutions/uos_unit_tests").glob("test_*_constraint.xml"))]
    return names


# --------------------------------------------------------------------------------------------
# Real files
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", _all_instances() or ["<no shared data>"])
def test_every_instance_reads(name: str) -> None:
    data = read_inrc(_instance(name))
    assert data.n_days == (data.end_date - data.start_date).days + 1
    assert len(data.weekdays) == data.n_days
    assert len(data.demand) == data.n_days
    assert all(len(row) == len(data.shift_types) for row in data.demand)
    contract_ids = {c.id for c in data.contracts}
    assert all(e.contract in contract_ids for e in data.employees)
    # The record is plain data: it survives a msgspec round trip unchanged.
    assert msgspec.json.decode(msgspec.json.encode(data), type=InrcData) == data


def test_sprint01_horizon_and_staff() -> None:
    data = read_inrc(_instance("sprint01.xml"))
    assert data.id == "sprint01"
    assert data.start_date == date(2010, 1, 1)
    assert data.end_date == date(2010, 1, 28)
    assert data.n_days == 28
    assert data.weekdays[0] == "Friday" and data.start_date.weekday() == 4
    assert len(data.employees) == 10
    assert data.skills == ("Nurse",)
    assert [e.id for e in data.employees] == [str(i) for i in range(10)]
    assert data.employees[6].contract == "2" and data.employees[0].name == "0"


def test_sprint_hidden01_starts_on_a_tuesday_in_june() -> None:
    data = read_inrc(_instance("sprint_hidden01.xml"))
    assert data.start_date == date(2010, 6, 1)
    assert data.start_date.month == 6
    assert data.weekdays[0] == "Tuesday"
    assert data.n_days == 28
    # Weekends are anchored to weekdays, not to 7-day blocks: Sat-Sun = June 5-6, 12-13, ...
    assert data.contracts[0].weekends == ((4, 5), (11, 12), (18, 19), (25, 26))
    assert [s.id for s in data.shift_types] == ["E", "L", "N"]


def test_sprint01_shift_types() -> None:
    data = read_inrc(_instance("sprint01.xml"))
    shifts = {s.id: s for s in data.shift_types}
    assert list(shifts) == ["E", "L", "D", "N"]
    early, night = shifts["E"], shifts["N"]
    assert (early.start, early.end, early.description) == ("06:30:00", "14:30:00", "Early")
    assert early.required_skills == ("Nurse",) and not early.is_night
    assert (night.start, night.end, night.is_night) == ("22:30:00", "06:30:00", True)
    assert [s.id for s in data.shift_types if s.is_night] == ["N"]


def test_demand_from_day_of_week_cover() -> None:
    data = read_inrc(_instance("long01.xml"))
    # 2010-01-04 (day 3) is a Monday: E 8, L 8, D 5, N 6, DH 2; 2010-01-02 (day 1) a Saturday.
    assert data.weekdays[3] == "Monday"
    assert data.demand[3] == (8, 8, 5, 6, 2)
    assert data.demand_of(1, "DH") == 1 and data.demand_of(1, "E") == 6
    sprint = read_inrc(_instance("sprint01.xml"))
    assert sprint.demand_of(0, "E") == 2 and sprint.demand_of(0, "N") == 1  # Friday
    assert sprint.demand_of(2, "E") == 1  # Sunday


def test_date_specific_cover_replaces_day_of_week_cover() -> None:
    data = read_inrc(_instance("solutions/uos_unit_tests/test_01_coverage_constraint.xml"))
    assert data.start_date == date(2013, 8, 5) and data.weekdays[0] == "Monday"
    assert data.demand_of(1, "D") == 2  # Tuesday: weekday cover
    assert data.demand_of(2, "D") == 1  # Wednesday 2013-08-07: date-specific 1 replaces 2
    assert data.demand_of(6, "D") == 1  # Sunday
    dated = [c for c in data.covers if c.kind == "DateSpecific"]
    assert len(dated) == 1 and dated[0].date == date(2013, 8, 7) and dated[0].day == 2


def test_contract_rules_active_per_reference() -> None:
    data = read_inrc(_instance("sprint01.xml"))
    contract = data.contracts[0]
    assert contract.description == "fulltime"
    assert contract.max_num_assignments.value == 16 and contract.max_num_assignments.active
    # on="0" weight="0": kept raw, inactive.
    rule = contract.max_consecutive_working_weekends
    assert (rule.on, rule.weight, rule.value, rule.active, rule.present) == (False, 0, 8, False, True)
    # NoNightShiftBeforeFreeWeekend weight 0 (and false): inactive.
    night = contract.no_night_shift_before_free_weekend
    assert (night.value, night.weight, night.active) == (False, 0, False)
    assert contract.complete_weekends.active and contract.identical_shift_types_during_weekend.active
    assert not contract.two_free_days_after_night_shifts.present
    assert not contract.two_free_days_after_night_shifts.active
    assert contract.single_assignment_per_day.value and contract.single_assignment_per_day.weight == 1
    assert contract.weekend_definition == "SaturdaySunday"
    assert contract.weekends == ((1, 2), (8, 9), (15, 16), (22, 23))
    assert contract.unwanted_patterns == ("0", "1", "2")


def test_boolean_true_with_weight_zero_is_inactive() -> None:
    data = read_inrc(_instance("solutions/extra/toy1.xml"))
    night = data.contracts[0].no_night_shift_before_free_weekend
    assert (night.value, night.weight, night.active) == (True, 0, False)


def test_on_weight_combinations() -> None:
    late = read_inrc(_instance("sprint_late01.xml"))
    rule = late.contracts[0].max_consecutive_working_weekends  # on="1" weight="0"
    assert (rule.on, rule.weight, rule.active) == (True, 0, False)
    assert late.contracts[0].no_night_shift_before_free_weekend.active  # true, weight 1
    hint = read_inrc(_instance("long_hint01.xml"))
    rule = hint.contracts[2].min_consecutive_working_weekends  # on="0" weight="1"
    assert (rule.on, rule.weight, rule.active) == (False, 1, False)
    assert hint.contracts[2].weekend_definition == "FridaySaturdaySunday"
    assert hint.contracts[2].weekend_days == ("Friday", "Saturday", "Sunday")
    assert hint.contracts[2].weekends[0] == (0, 1, 2)
    skill = read_inrc(_instance("sprint_hint01.xml"))
    flags = {(c.alternative_skill_category.value, c.alternative_skill_category.weight,
              c.alternative_skill_category.active) for c in skill.contracts}
    assert (False, 10, False) in flags


def test_patterns_anchor_on_first_entry() -> None:
    data = read_inrc(_instance("sprint01.xml"))
    patterns = {p.id: p for p in data.patterns}
    assert patterns["0"].anchor_weekday is None
    assert [(e.shift, e.day) for e in patterns["0"].entries] == [("L", "Any"), ("D", "Any")]
    weekend = patterns["2"]
    assert weekend.anchor_weekday == "Friday" and weekend.weight == 1
    assert [(e.shift, e.day) for e in weekend.entries] == [
        ("None", "Friday"), ("Any", "Saturday"), ("Any", "Sunday")]
    assert read_inrc(_instance("medium01.xml")).patterns == ()  # <Patterns /> is empty there


def test_requests() -> None:
    data = read_inrc(_instance("sprint01.xml"))
    assert len(data.day_off_requests) == 100 and len(data.shift_off_requests) == 50
    assert data.day_on_requests == () and data.shift_on_requests == ()
    first = data.day_off_requests[0]
    assert (first.employee, first.date, first.day, first.weight, first.active) == (
        "0", date(2010, 1, 2), 1, 1, True)
    shift = data.shift_off_requests[0]
    assert (shift.employee, shift.shift, shift.day, shift.weight) == ("0", "E", 2, 1)
    day_on = read_inrc(_instance("solutions/uos_unit_tests/test_03B_request_constraint.xml"))
    assert [(r.employee, r.day, r.weight) for r in day_on.day_on_requests] == [("0", 6, 10)]


def test_long01_reads_fast() -> None:
    path = _instance("long01.xml")
    read_inrc(path)
    start = time.perf_counter()
    for _ in range(5):
        data = read_inrc(path)
    elapsed = (time.perf_counter() - start) / 5
    assert len(data.employees) == 49
    assert elapsed < 0.25, f"long01 took {elapsed * 1000:.1f} ms"


# --------------------------------------------------------------------------------------------
# Self-contained instance and malformed variants
# --------------------------------------------------------------------------------------------

MINI = """<?xml version="1.0" encoding="UTF-8"?>
<SchedulingPeriod ID="mini">
  <StartDate>2010-01-01</StartDate>
  <EndDate>2010-01-08</EndDate>
  <Skills>
    <Skill>Nurse</Skill>
  </Skills>
  <ShiftTypes>
    <Shift ID="E">
      <StartTime>06:30:00</StartTime>
      <EndTime>14:30:00</EndTime>
      <Description>Early</Description>
      <Skills><Skill>Nurse</Skill></Skills>
    </Shift>
    <Shift ID="N">
      <StartTime>22:30:00</StartTime>
      <EndTime>06:30:00</EndTime>
    </Shift>
  </ShiftTypes>
  <Patterns>
    <Pattern ID="0" weight="3">
      <PatternEntries>
        <PatternEntry index="0"><ShiftType>None</ShiftType><Day>Friday</Day></PatternEntry>
        <PatternEntry index="1"><ShiftType>Any</ShiftType><Day>Saturday</Day></PatternEntry>
      </PatternEntries>
    </Pattern>
  </Patterns>
  <Contracts>
    <Contract ID="0">
      <Description>full</Description>
      <SingleAssignmentPerDay weight="1">true</SingleAssignmentPerDay>
      <MaxNumAssignments on="1" weight="1">5</MaxNumAssignments>
      <MinNumAssignments on="1" weight="0">2</MinNumAssignments>
      <WeekendDefinition>SaturdaySunday</WeekendDefinition>
      <CompleteWeekends weight="1">true</CompleteWeekends>
      <NoNightShiftBeforeFreeWeekend weight="0">true</NoNightShiftBeforeFreeWeekend>
      <UnwantedPatterns><Pattern>0</Pattern></UnwantedPatterns>
    </Contract>
  </Contracts>
  <Employees>
    <Employee ID="A">
      <ContractID>0</ContractID>
      <Name>Alice</Name>
      <Skills><Skill>Nurse</Skill></Skills>
    </Employee>
    <Employee ID="B">
      <ContractID>0</ContractID>
    </Employee>
  </Employees>
  <CoverRequirements>
    <DayOfWeekCover>
      <Day>Friday</Day>
      <Cover><Shift>E</Shift><Preferred>2</Preferred></Cover>
      <Cover><Shift>N</Shift><Preferred>1</Preferred></Cover>
    </DayOfWeekCover>
    <DateSpecificCover>
      <Date>2010-01-01</Date>
      <Cover><Shift>N</Shift><Preferred>0</Preferred></Cover>
    </DateSpecificCover>
  </CoverRequirements>
  <DayOffRequests>
    <DayOff weight="1"><EmployeeID>A</EmployeeID><Date>2010-01-02</Date></DayOff>
    <DayOff weight="0"><EmployeeID>B</EmployeeID><Date>2010-01-03</Date></DayOff>
  </DayOffRequests>
  <ShiftOnRequests>
    <ShiftOn weight="2">
      <ShiftTypeID>E</ShiftTypeID><EmployeeID>B</EmployeeID><Date>2010-01-08</Date>
    </ShiftOn>
  </ShiftOnRequests>
</SchedulingPeriod>
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "instance.xml"
    path.write_text(text, encoding="utf-8")
    return path


def test_mini_instance(tmp_path: Path) -> None:
    data = read_inrc(_write(tmp_path, MINI))
    assert data.n_days == 8 and data.weekdays[0] == "Friday" and data.weekdays[6] == "Thursday"
    assert data.demand[0] == (2, 0)  # Friday; the date-specific N=0 replaces the weekday N=1
    assert data.demand[1] == (0, 0)  # Saturday: no cover at all -> 0
    assert data.demand[7] == (2, 1)  # the next Friday, 2010-01-08
    contract = data.contracts[0]
    assert contract.max_num_assignments.active and not contract.min_num_assignments.active
    assert not contract.max_consecutive_free_days.present
    assert not contract.no_night_shift_before_free_weekend.active
    assert contract.weekends == ((1, 2),)
    assert data.employees[1].name is None and data.employees[1].skills == ()
    assert data.shift_types[1].description is None and data.shift_types[1].required_skills == ()
    assert [(r.employee, r.day, r.active) for r in data.day_off_requests] == [("A", 1, True), ("B", 2, False)]
    assert [(r.employee, r.shift, r.day, r.weight) for r in data.shift_on_requests] == [("B", "E", 7, 2)]
    assert data.patterns[0].weight == 3 and data.patterns[0].anchor_weekday == "Friday"


# case: (old text, new text, expected code, anchor = text at the reported position, occurrence of the anchor)
MALFORMED: dict[str, tuple[str, str, str, str, int]] = {
    "broken_xml": ("<EndDate>2010-01-08</EndDate>", "<EndDate>2010-01-08</EndDat>", "I501", "EndDat>", 0),
    "unknown_contract": ("<ContractID>0</ContractID>\n      <Name>",
                         "<ContractID>9</ContractID>\n      <Name>", "I520", "<ContractID>9", 0),
    "date_outside_horizon": ("<Date>2010-01-02</Date>", "<Date>2010-01-09</Date>", "I511",
                             "<Date>2010-01-09", 0),
    "date_before_horizon": ("<Date>2010-01-01</Date>", "<Date>2009-12-31</Date>", "I511",
                            "<Date>2009-12-31", 0),
    "non_integer_weight": ('<DayOff weight="1">', '<DayOff weight="1.5">', "I513",
                           '<DayOff weight="1.5">', 0),
    "unknown_cover_shift": ("<Cover><Shift>E</Shift>", "<Cover><Shift>X</Shift>", "I518", "<Shift>X", 0),
    "missing_end_date": ("<EndDate>2010-01-08</EndDate>", "", "I503", "<SchedulingPeriod", 0),
    "unexpected_element": ("<Description>full</Description>", "<Descr>full</Descr>", "I504", "<Descr>", 0),
    "repeated_element": ("<WeekendDefinition>SaturdaySunday</WeekendDefinition>",
                         "<WeekendDefinition>SaturdaySunday</WeekendDefinition>"
                         "<WeekendDefinition>FridaySaturdaySunday</WeekendDefinition>",
                         "I505", "<WeekendDefinition>FridaySaturdaySunday", 0),
    "missing_on": ('<MaxNumAssignments on="1" weight="1">', '<MaxNumAssignments weight="1">', "I506",
                   "<MaxNumAssignments", 0),
    "empty_contract_id": ("<ContractID>0</ContractID>\n      <Name>",
                          "<ContractID> </ContractID>\n      <Name>", "I507", "<ContractID> <", 0),
    "stray_text": ("<Skills>\n    <Skill>", "<Skills>oops\n    <Skill>", "I508", "<Skills>oops", 0),
    "invalid_date": ("<StartDate>2010-01-01", "<StartDate>2010-13-01", "I509", "<StartDate>", 0),
    "end_before_start": ("<EndDate>2010-01-08", "<EndDate>2009-12-31", "I510", "<EndDate>", 0),
    "invalid_time": ("<StartTime>06:30:00", "<StartTime>6:30", "I512", "<StartTime>6:30", 0),
    "non_integer_value": (">5</MaxNumAssignments>", ">five</MaxNumAssignments>", "I514",
                          "<MaxNumAssignments", 0),
    "non_integer_rule_weight": ('<MaxNumAssignments on="1" weight="1">',
                                '<MaxNumAssignments on="1" weight="x">', "I513", "<MaxNumAssignments", 0),
    "non_integer_pattern_weight": ('<Pattern ID="0" weight="3">', '<Pattern ID="0" weight="3.0">', "I513",
                                   '<Pattern ID="0"', 0),
    "invalid_boolean": ('<CompleteWeekends weight="1">true', '<CompleteWeekends weight="1">yes', "I515",
                        "<CompleteWeekends", 0),
    "duplicate_employee": ('<Employee ID="B">', '<Employee ID="A">', "I516", '<Employee ID="A">', 1),
    "duplicate_shift": ('<Shift ID="N">', '<Shift ID="E">', "I516", '<Shift ID="E">', 1),
    "unknown_skill": ("<Name>Alice</Name>\n      <Skills><Skill>Nurse",
                      "<Name>Alice</Name>\n      <Skills><Skill>Doc", "I517", "<Skill>Doc", 0),
    "unknown_pattern": ("<UnwantedPatterns><Pattern>0", "<UnwantedPatterns><Pattern>7", "I519",
                        "<Pattern>7", 0),
    "unknown_employee": ("<EmployeeID>B</EmployeeID><Date>2010-01-03",
                         "<EmployeeID>Z</EmployeeID><Date>2010-01-03", "I521", "<EmployeeID>Z", 0),
    "unknown_weekend": ("SaturdaySunday</WeekendDefinition>", "SundayOnly</WeekendDefinition>", "I522",
                        "<WeekendDefinition>", 0),
    "unknown_weekday": ("<Day>Friday</Day>\n      <Cover>", "<Day>Freitag</Day>\n      <Cover>", "I523",
                        "<Day>Freitag", 0),
    "unknown_pattern_weekday": ("<Day>Saturday</Day>", "<Day>Sat</Day>", "I523", "<Day>Sat<", 0),
    "unknown_pattern_shift": ("<ShiftType>Any</ShiftType>", "<ShiftType>Q</ShiftType>", "I518",
                              "<ShiftType>Q", 0),
    "duplicate_cover": ("<Cover><Shift>N</Shift><Preferred>1</Preferred></Cover>",
                        "<Cover><Shift>N</Shift><Preferred>1</Preferred></Cover>"
                        "<Cover><Shift>E</Shift><Preferred>3</Preferred></Cover>",
                        "I524", "<Cover><Shift>E</Shift><Preferred>3", 0),
    "pattern_index": ('<PatternEntry index="1">', '<PatternEntry index="2">', "I525",
                      '<PatternEntry index="2">', 0),
    "reserved_shift_id": ('<Shift ID="N">', '<Shift ID="None">', "I526", '<Shift ID="None">', 0),
    "negative_preferred": ("<Preferred>2</Preferred>", "<Preferred>-2</Preferred>", "I514",
                           "<Preferred>-2", 0),
}


def _position(text: str, anchor: str, occurrence: int) -> tuple[int, int]:
    """1-based line and column of the ``occurrence``-th ``anchor`` in ``text``."""
    offset = -1
    for _ in range(occurrence + 1):
        offset = text.index(anchor, offset + 1)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input(tmp_path: Path, case: str) -> None:
    old, new, code, anchor, occurrence = MALFORMED[case]
    assert MINI.count(old) == 1, "the mutation must hit exactly one place"
    text = MINI.replace(old, new)
    path = _write(tmp_path, text)
    with pytest.raises(SchedcError) as info:
        read_inrc(path)
    (diag,) = info.value.diagnostics
    assert diag.code == code, str(info.value)
    assert diag.file == str(path)
    assert diag.span is not None
    assert (diag.span.line, diag.span.column) == _position(text, anchor, occurrence), str(info.value)
    assert f"{path}:{diag.span.line}:{diag.span.column}: error[{code}]" in str(info.value)
    assert diag.hint and diag.hint.startswith("expected")


def test_wrong_root(tmp_path: Path) -> None:
    text = MINI.replace("SchedulingPeriod", "Solution")
    with pytest.raises(SchedcError) as info:
        read_inrc(_write(tmp_path, text))
    (diag,) = info.value.diagnostics
    assert diag.code == "I502"
    assert diag.span is not None and (diag.span.line, diag.span.column) == _position(text, "<Solution", 0)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as info:
        read_inrc(tmp_path / "missing.xml")
    assert info.value.diagnostics[0].code == "I500"


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as info:
        read_inrc(_write(tmp_path, ""))
    assert info.value.diagnostics[0].code == "I501"
    assert info.value.diagnostics[0].span is not None

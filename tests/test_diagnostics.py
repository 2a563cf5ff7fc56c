"""Snapshot tests of the formatted diagnostics (``str(SchedcError)``) of malformed inputs.

Each case is a small valid text of some family with one mistake edited in (``_edit`` checks
that the edit applies, so a case cannot silently turn into a valid text). The snapshots in
``tests/__snapshots__/test_diagnostics.ambr`` show the whole output a user sees: position,
code, message, source line, caret and hint. Update them with ``pytest --snapshot-update``
after a deliberate change of wording, and read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths
from schedc.lang.family_parser import parse_family_text
from schedc.lang.parser import parse_instance_text

JOBSHOP = """\
instance t family jobshop
resources table
  M1 unary
  M2 unary
end
jobs table
  J1 M1:3 M2:2
  J2 M2:4 M1:1
end
hard precedence_lag routes table
  J1.1 -> J1.2
  J2.1 -> J2.2
end
hard unary_no_overlap machines
hard mode_choice modes
minimize makespan
"""

RCPSP = """\
instance p family rcpsp
resources table
  R1 renewable 4
end
activities (R1) table
  A1 1 3 2
  A2 1 2 3
  A3 1 4 1
end
hard precedence_lag precedence table
  A1 -> A2 A3
end
hard cumulative_renewable renewable
hard mode_choice modes
minimize makespan
"""

MRCPSP = """\
instance m family mrcpsp
resources table
  R1 renewable 4
  N1 nonrenewable 10
end
activities (R1 N1) table
  A1 1 3 2 1
  A1 2 5 1 2
  A2 1 2 3 0
end
hard precedence_lag precedence table
  A1 -> A2
end
hard cumulative_renewable renewable
hard nonrenewable_budget nonrenewable
hard mode_choice modes
minimize makespan
"""

NSPLIB = """\
instance n family nsplib
calendar days=7
shift () table
  S1 S2 Off
end
nurse () table
  N1 N2 N3
end
hard one_per_slot one_shift_per_day exactly=true
hard coverage coverage table
  0 S1=1.. S2=1..
  1 S1=1.. S2=1..
end
hard count_bounds working_count agents=nurse min=3 max=5
minimize penalty
"""

INRC = """\
instance s family inrc2010
calendar days=14 start_date=2010-01-01
shift (start end skills description) table
  E 06:30:00 14:30:00 Nurse Early
  L 14:30:00 22:30:00 Nurse Late
end
contract (description weekend) table
  0 fulltime SaturdaySunday
end
employee (contract skills) table
  0 0 Nurse
  1 0 Nurse
end
hard one_per_slot single_assignment
soft 1 count_bounds c0_max agents=employee[contract=0] max=10
soft 1 window_pattern_cost c0_weekends agents=employee[contract=0] windows=weekends(SaturdaySunday) table
  WF 1
  FW 1
end
minimize penalty
"""

ITC = """\
instance c family itc2007
calendar days=5 periods_per_day=6
course (teacher lectures min_days students) table
  c1 t1 3 2 30
  c2 t2 2 2 40
end
room (capacity) table
  B 200
end
curriculum (members) table
  q1 c1,c2
end
hard count_bounds lectures agents=course min=@lectures max=@lectures
hard one_per_slot one_lecture_per_period
hard slot_conflict conflicts groups=curriculum by=teacher
hard unavailability availability table
  c1 4 0
end
soft 5 spread min_working_days agents=course min=@min_days
minimize penalty
"""

BASES = {"jobshop": JOBSHOP, "rcpsp": RCPSP, "mrcpsp": MRCPSP, "nsplib": NSPLIB, "inrc2010": INRC,
         "itc2007": ITC}


def _edit(text: str, old: str, new: str) -> str:
    """``text`` with its one occurrence of ``old`` replaced (the case is void if ``old`` is absent)."""
    assert text.count(old) == 1, f"{old!r} must occur once in the base text"
    return text.replace(old, new)


FAMILY = """\
family f {
  structure slot
  objective penalty
  kinds [coverage count_bounds]
  class nurse ()
  class shift ()
  decision agent=nurse value=shift grain=day
}
"""

# ---------------------------------------------------------------------------------------- cases

INSTANCE_CASES: dict[str, str] = {
    # -- syntax ------------------------------------------------------------------------------
    "syntax_unknown_character": _edit(JOBSHOP, "minimize makespan", "minimize makespan $"),
    "syntax_missing_end_at_eof": "instance t family jobshop\nresources table\n  M1 unary\n",
    "syntax_missing_end_before_next_table": _edit(JOBSHOP, "  M2 unary\nend\n", "  M2 unary\n"),
    "syntax_table_rows_on_header_line": _edit(JOBSHOP, "resources table\n  M1 unary\n", "resources table M1 unary\n"),
    "syntax_param_blanks_around_equals": _edit(JOBSHOP, "hard unary_no_overlap machines",
                                               "hard unary_no_overlap machines resources = all"),
    "syntax_param_blank_before_equals": _edit(JOBSHOP, "hard unary_no_overlap machines",
                                              "hard unary_no_overlap machines resources =all"),
    "syntax_param_without_equals": _edit(JOBSHOP, "hard unary_no_overlap machines",
                                         "hard unary_no_overlap machines resources all"),
    "syntax_missing_instance_header": _edit(JOBSHOP, "instance t family jobshop\n", ""),
    "syntax_instance_header_without_family": _edit(JOBSHOP, "instance t family jobshop", "instance t jobshop"),
    "syntax_unterminated_string": _edit(JOBSHOP, "instance t family jobshop\n",
                                        'instance t family jobshop\nmeta {\n  source "JSPLib\n}\n'),
    "syntax_unterminated_long_string": _edit(JOBSHOP, "instance t family jobshop\n",
                                             'instance t family jobshop\nmeta {\n  source """JSPLib\n}\n'),
    "syntax_unclosed_meta_block": _edit(JOBSHOP, "instance t family jobshop\n",
                                        "instance t family jobshop\nmeta {\n  bks 55\n"),
    "syntax_unclosed_list": _edit(JOBSHOP, "hard unary_no_overlap machines",
                                  "hard unary_no_overlap machines resources=[M1 M2"),
    "syntax_braces_for_list": _edit(JOBSHOP, "hard unary_no_overlap machines",
                                    "hard unary_no_overlap machines resources={M1 M2}"),
    "syntax_misspelt_statement_keyword": _edit(JOBSHOP, "minimize makespan", "minimise makespan"),
    "syntax_constraint_without_id": _edit(JOBSHOP, "hard mode_choice modes", "hard mode_choice"),
    "syntax_constraint_params_without_id": _edit(NSPLIB, "hard count_bounds working_count agents=nurse",
                                                 "hard count_bounds agents=nurse"),
    "syntax_meta_item_with_equals": _edit(JOBSHOP, "instance t family jobshop\n",
                                          "instance t family jobshop\nmeta {\n  bks=55\n}\n"),
    "syntax_soft_without_weight": _edit(NSPLIB, "hard count_bounds working_count",
                                        "soft count_bounds working_count"),
    "syntax_negative_number": _edit(RCPSP, "instance p family rcpsp\n", "instance p family rcpsp\nhorizon -5\n"),
    "syntax_blank_inside_selector": _edit(INRC, "agents=employee[contract=0] max=10",
                                          "agents=employee[contract = 0] max=10"),
    "syntax_blank_inside_call": _edit(INRC, "windows=weekends(SaturdaySunday)", "windows=weekends( SaturdaySunday)"),
    "syntax_missing_end_before_constraint": _edit(JOBSHOP, "  J2 M2:4 M1:1\nend\n", "  J2 M2:4 M1:1\n"),
    "syntax_missing_end_of_last_table": _edit(RCPSP, "  A1 -> A2 A3\nend\n", "  A1 -> A2 A3\n"),
    "syntax_precedence_row_outside_table": _edit(JOBSHOP, "  J2.1 -> J2.2\nend\n", "end\nJ2.1 -> J2.2\n"),
    # -- statements and tables -----------------------------------------------------------------
    "unknown_family": _edit(JOBSHOP, "family jobshop", "family jobshoop"),
    "instance_given_twice": _edit(JOBSHOP, "minimize makespan", "instance t family jobshop\nminimize makespan"),
    "unknown_table": _edit(JOBSHOP, "jobs table", "job table"),
    "wrong_entity_columns": _edit(ITC, "room (capacity) table", "room (cap) table"),
    "missing_entity_columns": _edit(ITC, "room (capacity) table", "room table"),
    "unknown_resource_column": _edit(RCPSP, "activities (R1) table", "activities (R9) table"),
    "non_integer_cell": _edit(ITC, "B 200", "B 2OO"),
    "entity_row_too_short": _edit(ITC, "c2 t2 2 2 40", "c2 t2 2 40"),
    "unterminated_quoted_cell": _edit(INRC, "Nurse Late", 'Nurse "Late'),
    "undefined_resource_in_job": _edit(JOBSHOP, "J2 M2:4 M1:1", "J2 M2:4 M7:1"),
    "negative_duration_in_job": _edit(JOBSHOP, "M2:4", "M2:-4"),
    "negative_duration_in_activities": _edit(RCPSP, "A2 1 2 3", "A2 1 -2 3"),
    "job_operation_without_duration": _edit(JOBSHOP, "M2:4", "M2"),
    "unknown_resource_kind": _edit(RCPSP, "R1 renewable 4", "R1 renewabel 4"),
    "unknown_constraint_kind": _edit(JOBSHOP, "hard unary_no_overlap", "hard unary_no_overlp"),
    "unknown_parameter_did_you_mean": _edit(JOBSHOP, "hard unary_no_overlap machines",
                                            "hard unary_no_overlap machines resource=all"),
    "unknown_parameter_kind_without_parameters": _edit(JOBSHOP, "hard mode_choice modes",
                                                       "hard mode_choice modes strict=true"),
    "parameter_of_wrong_type": _edit(ITC, "min=@min_days", "min=many"),
    "parameter_list_for_integer": _edit(NSPLIB, "max=5", "max=[5]"),
    "parameter_given_twice": _edit(NSPLIB, "min=3 max=5", "min=3 max=5 min=4"),
    "missing_required_parameter": _edit(ITC, "soft 5 spread min_working_days agents=course",
                                        "soft 5 spread min_working_days"),
    "missing_required_parameter_second": _edit(
        ITC, "soft 5 spread", "soft 1 capacity_overflow room_capacity demand=students\nsoft 5 spread"),
    "soft_weight_not_integer": _edit(INRC, "soft 1 count_bounds", "soft high count_bounds"),
    "kind_without_table_given_table": _edit(JOBSHOP, "hard mode_choice modes\n",
                                            "hard mode_choice modes table\n  J1.1 M1\nend\n"),
    "calendar_without_days": _edit(NSPLIB, "calendar days=7", "calendar start_weekday=Monday"),
    "calendar_bad_date": _edit(INRC, "start_date=2010-01-01", "start_date=2010-13-01"),
    "unknown_objective": _edit(JOBSHOP, "minimize makespan", "minimize lateness"),
    # -- semantic ------------------------------------------------------------------------------
    "duplicate_activity_jobs": _edit(JOBSHOP, "J2 M2:4 M1:1", "J1 M2:4 M1:1"),
    "duplicate_activity_rows": _edit(RCPSP, "A3 1 4 1", "A2 1 4 1"),
    "undefined_activity_in_precedence": _edit(RCPSP, "A1 -> A2 A3", "A1 -> A2 A4"),
    "precedence_cycle": _edit(RCPSP, "A1 -> A2 A3", "A1 -> A2 A3\n  A3 -> A1"),
    "capacity_below_demand_single_mode": _edit(RCPSP, "A2 1 2 3", "A2 1 2 9"),
    "capacity_below_demand_every_mode": _edit(MRCPSP, "A1 1 3 2 1\n  A1 2 5 1 2", "A1 1 3 7 1\n  A1 2 5 9 2"),
    "mode_numbers_out_of_order": _edit(MRCPSP, "A1 2 5 1 2", "A1 3 5 1 2"),
    "day_outside_calendar": _edit(ITC, "c1 4 0", "c1 5 0"),
    "period_outside_calendar": _edit(ITC, "c1 4 0", "c1 4 6"),
    "coverage_day_outside_calendar": _edit(NSPLIB, "1 S1=1.. S2=1..", "7 S1=1.. S2=1.."),
    "undefined_shift_in_coverage": _edit(NSPLIB, "1 S1=1.. S2=1..", "1 S1=1.. S4=1.."),
    "min_greater_than_max": _edit(NSPLIB, "min=3 max=5", "min=6 max=5"),
    "min_greater_than_max_in_coverage": _edit(NSPLIB, "1 S1=1.. S2=1..", "1 S1=3..1 S2=1.."),
    "unknown_weekend_definition": _edit(INRC, "weekends(SaturdaySunday)", "weekends(SatSun)"),
    "attr_ref_to_non_int_attribute": _edit(ITC, "min=@min_days", "min=@teacher"),
    "selector_unknown_attribute": _edit(INRC, "employee[contract=0] max=10", "employee[kontrakt=0] max=10"),
    "interval_kind_in_slot_family": _edit(ITC, "hard one_per_slot one_lecture_per_period",
                                          "hard unary_no_overlap rooms"),
    "absurdly_large_duration": _edit(RCPSP, "A2 1 2 3", "A2 1 20000000000 3"),
    "duplicate_constraint_id": _edit(JOBSHOP, "hard mode_choice modes", "hard mode_choice machines"),
    "objective_of_other_family": _edit(RCPSP, "minimize makespan", "minimize setup_time"),
}

FAMILY_CASES: dict[str, str] = {
    "family_unknown_attribute_type": _edit(FAMILY, "class nurse ()", "class nurse (skill:float)"),
    "family_attribute_without_colon": _edit(FAMILY, "class nurse ()", "class nurse (skill name)"),
    "family_missing_structure": _edit(FAMILY, "  structure slot\n", ""),
    "family_unknown_field": _edit(FAMILY, "  objective penalty\n", "  objective penalty\n  colour red\n"),
    "family_unknown_kind": _edit(FAMILY, "[coverage count_bounds]", "[coverage count_bound]"),
    "family_bad_structure": _edit(FAMILY, "structure slot", "structure slots"),
    "family_incomplete_decision": _edit(FAMILY, "decision agent=nurse value=shift grain=day",
                                        "decision agent=nurse"),
    "family_unclosed_block": _edit(FAMILY, "}\n", ""),
    "family_two_blocks": FAMILY + FAMILY.replace("family f", "family g"),
}


def _error_of(parse, text: str) -> SchedcError:
    with pytest.raises(SchedcError) as info:
        parse(text, file="bad.sched")
    return info.value


@pytest.mark.parametrize("name", sorted(BASES))
def test_base_texts_are_valid(name: str) -> None:
    parse_instance_text(BASES[name], file="ok.sched")


def test_base_family_is_valid() -> None:
    parse_family_text(FAMILY, file="ok.sched")


@pytest.mark.parametrize("name", list(INSTANCE_CASES))
def test_instance_diagnostic(name: str, snapshot) -> None:
    error = _error_of(parse_instance_text, INSTANCE_CASES[name])
    assert all(d.file == "bad.sched" for d in error.diagnostics)
    assert str(error) == snapshot


@pytest.mark.parametrize("name", list(FAMILY_CASES))
def test_family_diagnostic(name: str, snapshot) -> None:
    assert str(_error_of(parse_family_text, FAMILY_CASES[name])) == snapshot


def test_several_semantic_errors_are_reported_together(snapshot) -> None:
    text = _edit(RCPSP, "A1 -> A2 A3", "A1 -> A2 A3 A9\n  A3 -> A1")
    text = _edit(text, "A2 1 2 3", "A2 1 2 9")
    text = _edit(text, "hard mode_choice modes", "hard mode_choice renewable")
    error = _error_of(parse_instance_text, text)
    assert sorted(d.code for d in error.diagnostics) == ["E201", "E202", "E205", "E206"]
    assert str(error) == snapshot


def test_several_build_errors_are_reported_together(snapshot) -> None:
    text = _edit(ITC, "B 200", "B 2OO")
    text = _edit(text, "hard one_per_slot", "hard one_per_slott")
    text = _edit(text, "min=@min_days", "min=@min_days maxi=3")
    error = _error_of(parse_instance_text, text)
    assert sorted(d.code for d in error.diagnostics) == ["E107", "E108", "E109"]
    assert str(error) == snapshot


SLOT_FAMILY_WITHOUT_KINDS = """\
family slotty {
  structure slot
  objective penalty
  class nurse ()
  class shift ()
  decision agent=nurse value=shift grain=day
}
"""


def test_interval_kind_in_slot_family_without_kind_list(tmp_path: Path) -> None:
    """A family that lists no kinds accepts every kind by name; the semantic pass rejects the misfit."""
    (tmp_path / "slotty.sched").write_text(SLOT_FAMILY_WITHOUT_KINDS, encoding="utf-8")
    text = ("instance x family slotty\ncalendar days=3\nnurse () table\n  N1\nend\nshift () table\n  S\nend\n"
            "hard unary_no_overlap machines\nminimize penalty\n")
    with pytest.raises(SchedcError) as info:
        parse_instance_text(text, file="bad.sched", search=[tmp_path])
    assert [d.code for d in info.value.diagnostics] == ["E117"]
    assert str(info.value).startswith("bad.sched:9:1: error[E117]: kind unary_no_overlap does not fit the slot "
                                      "structure of family slotty")


def test_excerpt_shows_the_reported_line_after_a_form_feed() -> None:
    text = 'instance x family jobshop\nmeta {\n  source "a\fb"\n}\nhorizon x\nminimize makespan\n'
    error = _error_of(parse_instance_text, text)
    assert error.diagnostics[0].span.line == 5
    assert "   5 | horizon x\n" in str(error)


# ------------------------------------------------------------------------------ source files

JSPLIB_BAD_MACHINE = "2 2\n0 3 2 2\n1 4 0 1\n"

SM = """\
************************************************************************
file with basedata            : tiny.bas
initial value random generator: 1
************************************************************************
projects                      :  1
jobs (incl. supersource/sink ):  4
horizon                       :  10
RESOURCES
  - renewable                 :  1   R
  - nonrenewable              :  0   N
  - doubly constrained        :  0   D
************************************************************************
PROJECT INFORMATION:
pronr.  #jobs rel.date duedate tardcost  MPM-Time
    1      2      0        5        1        5
************************************************************************
PRECEDENCE RELATIONS:
jobnr.    #modes  #successors   successors
   1        1          2           2   3
   2        1          1           4
   3        1          1           4
   4        1          0
************************************************************************
REQUESTS/DURATIONS:
jobnr. mode duration  R 1
------------------------------------------------------------------------
  1      1     0       0
  2      1     3       2
  3      1     2       1
  4      1     0       0
************************************************************************
RESOURCEAVAILABILITIES:
  R 1
    3
************************************************************************
"""

CTT = """\
Name: Tiny
Courses: 2
Rooms: 1
Days: 2
Periods_per_day: 2
Curricula: 1
Constraints: 1

COURSES:
c1 t1 2 1 10
c2 t2 1 1 20

ROOMS:
r1 30

CURRICULA:
q1 2 c1 c2

UNAVAILABILITY_CONSTRAINTS:
c1 0 0

END.
"""

INRC_XML = """\
<?xml version="1.0" encoding="utf-8"?>
<SchedulingPeriod ID="tiny">
  <StartDate>2010-01-01</StartDate>
  <EndDate>2010-01-03</EndDate>
  <Skills>
    <Skill>Nurse</Skill>
  </Skills>
  <ShiftTypes>
    <Shift ID="E">
      <StartTime>06:30:00</StartTime>
      <EndTime>14:30:00</EndTime>
      <Description>Early</Description>
      <Skills>
        <Skill>Nurse</Skill>
      </Skills>
    </Shift>
  </ShiftTypes>
  <Patterns>
  </Patterns>
  <Contracts>
    <Contract ID="0">
      <Description>full</Description>
      <SingleAssignmentPerDay weight="1">true</SingleAssignmentPerDay>
      <MaxNumAssignments on="1" weight="1">3</MaxNumAssignments>
      <MinNumAssignments on="1" weight="1">1</MinNumAssignments>
      <MaxConsecutiveWorkingDays on="0" weight="0">0</MaxConsecutiveWorkingDays>
      <MinConsecutiveWorkingDays on="0" weight="0">0</MinConsecutiveWorkingDays>
      <MaxConsecutiveFreeDays on="0" weight="0">0</MaxConsecutiveFreeDays>
      <MinConsecutiveFreeDays on="0" weight="0">0</MinConsecutiveFreeDays>
      <MaxConsecutiveWorkingWeekends on="0" weight="0">0</MaxConsecutiveWorkingWeekends>
      <MinConsecutiveWorkingWeekends on="0" weight="0">0</MinConsecutiveWorkingWeekends>
      <MaxWorkingWeekendsInFourWeeks on="0" weight="0">0</MaxWorkingWeekendsInFourWeeks>
      <WeekendDefinition>SaturdaySunday</WeekendDefinition>
      <CompleteWeekends weight="0">true</CompleteWeekends>
      <IdenticalShiftTypesDuringWeekend weight="0">true</IdenticalShiftTypesDuringWeekend>
      <NoNightShiftBeforeFreeWeekend weight="0">false</NoNightShiftBeforeFreeWeekend>
      <AlternativeSkillCategory weight="0">false</AlternativeSkillCategory>
      <UnwantedPatterns></UnwantedPatterns>
    </Contract>
  </Contracts>
  <Employees>
    <Employee ID="0">
      <ContractID>0</ContractID>
      <Name>0</Name>
      <Skills>
        <Skill>Nurse</Skill>
      </Skills>
    </Employee>
  </Employees>
  <CoverRequirements>
    <DateSpecificCover>
      <Date>2010-01-01</Date>
      <Cover>
        <Shift>E</Shift>
        <Preferred>1</Preferred>
      </Cover>
    </DateSpecificCover>
  </CoverRequirements>
  <DayOffRequests></DayOffRequests>
  <ShiftOffRequests></ShiftOffRequests>
</SchedulingPeriod>
"""

NSP = "2 3 2\n\n1 0\n1 0\n1 0\n\n1 2 1 2 1 2\n2 1 2 1 2 1\n"
GEN = "3 2\n\n1 3\n1 3\n\n1 3 0 3\n1 3 0 3\n"

# (format, {relative path: text}, source paths, case paths); every text but the edited one is valid
SOURCE_CASES: dict[str, tuple[str, dict[str, str], list[str], list[str]]] = {
    "jsplib_machine_out_of_range": ("jsplib", {"bad.txt": JSPLIB_BAD_MACHINE}, ["bad.txt"], []),
    "jsplib_missing_duration": ("jsplib", {"short.txt": "2 2\n0 3 1 2\n1 4 0\n"}, ["short.txt"], []),
    "psplib_sm_truncated": ("psplib-sm", {"cut.sm": "".join(SM.splitlines(keepends=True)[:24])}, ["cut.sm"], []),
    "psplib_sm_truncated_in_row": ("psplib-sm", {"cut.sm": "".join(SM.splitlines(keepends=True)[:28])},
                                   ["cut.sm"], []),
    "itc2007_curriculum_unknown_course": ("itc2007", {"bad.ctt": _edit(CTT, "q1 2 c1 c2", "q1 2 c1 c9")},
                                          ["bad.ctt"], []),
    "itc2007_course_count_mismatch": ("itc2007", {"bad.ctt": _edit(CTT, "Courses: 2", "Courses: 3")},
                                      ["bad.ctt"], []),
    "inrc2010_unknown_contract": ("inrc2010", {"bad.xml": _edit(INRC_XML, "<ContractID>0</ContractID>",
                                                                "<ContractID>7</ContractID>")}, ["bad.xml"], []),
    "inrc2010_not_xml": ("inrc2010", {"bad.xml": INRC_XML[:400]}, ["bad.xml"], []),
    "nsplib_days_mismatch": ("nsplib", {"N2/1.nsp": NSP, "Cases/1.gen": _edit(GEN, "3 2\n", "4 2\n")},
                             ["N2/1.nsp"], ["Cases/1.gen"]),
    "nsplib_short_preference_row": ("nsplib", {"N2/1.nsp": _edit(NSP, "2 1 2 1 2 1", "2 1 2 1 2"),
                                               "Cases/1.gen": GEN}, ["N2/1.nsp"], ["Cases/1.gen"]),
}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # relative display names keep the snapshots stable
    return tmp_path


def test_valid_sources_import(in_tmp: Path) -> None:
    files = {"ok.txt": "2 2\n0 3 1 2\n1 4 0 1\n", "ok.sm": SM, "ok.ctt": CTT, "ok.xml": INRC_XML,
             "N2/1.nsp": NSP, "Cases/1.gen": GEN}
    for name, text in files.items():
        (in_tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (in_tmp / name).write_text(text, encoding="utf-8")
    for fmt, path in [("jsplib", "ok.txt"), ("psplib-sm", "ok.sm"), ("itc2007", "ok.ctt"), ("inrc2010", "ok.xml")]:
        assert len(import_paths(fmt, [Path(path)])) == 1
    assert len(import_paths("nsplib", [Path("N2/1.nsp")], cases=[Path("Cases/1.gen")])) == 1


@pytest.mark.parametrize("name", list(SOURCE_CASES))
def test_source_diagnostic(name: str, in_tmp: Path, snapshot) -> None:
    fmt, files, paths, cases = SOURCE_CASES[name]
    for rel, text in files.items():
        (in_tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (in_tmp / rel).write_text(text, encoding="utf-8")
    with pytest.raises(SchedcError) as info:
        import_paths(fmt, [Path(p) for p in paths], cases=[Path(c) for c in cases])
    assert str(in_tmp) not in str(info.value)
    assert str(info.value) == snapshot


def test_every_table_item_knows_its_row() -> None:
    """The line table of a constraint maps each item to the row that states it (two items per coverage row)."""
    text = _edit(NSPLIB, "hard coverage coverage table\n", "hard coverage coverage table\n  # a comment line\n\n")
    instance = parse_instance_text(text, file="ok.sched")
    coverage = next(c for c in instance.constraints if c.id == "coverage")
    lines = text.split("\n")
    assert len(coverage.requirements) == 4
    for index, req in enumerate(coverage.requirements):
        at = coverage.span.entry(index)
        assert lines[at.line - 1].split()[0] == str(req.day) and at.column == 3
    assert coverage.span.entry(4) == coverage.span.head()  # past the table: the statement itself
    assert not coverage.span.head().rows


def test_a_row_with_two_bad_items_gives_one_error_per_problem() -> None:
    text = _edit(NSPLIB, "1 S1=1.. S2=1..", "9 S1=1.. S2=1..\n  8 S1=1..")
    error = _error_of(parse_instance_text, text)
    assert [(d.code, d.span.line) for d in error.diagnostics] == [("E208", 12), ("E208", 13)]

"""Every constraint kind's ``check`` against the formal meaning and counting rule of its docstring,
and the evaluator's aggregation (inactive rules, weighted components, objectives).

One section per kind in ``schedc.kinds.KINDS``: a satisfied example, violated examples with the exact
number of violation records and their amounts, and boundary cases. Instances are small ``.sched``
texts parsed inline with the built-in families (jobshop/fjsp/mrcpsp for intervals, inrc2010/itc2007/
nsplib for slots) or with a tiny test family written beside them; solutions are built directly.
The ``complete_spec`` fixture holds two instances that together use every kind.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.importers.inrc2010 import complete_weekend_table
from schedc.ir import Family, Instance
from schedc.kinds import ANY_STRUCTURE_KINDS, INTERVAL_KINDS, KINDS, SLOT_KINDS, kind_name
from schedc.kinds.context import EvalContext, Violation
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.verify.evaluate import Evaluation, evaluate, make_context

# ============================================================================ helpers


def table(header: str, rows: Iterable[str]) -> str:
    """A ``HEADER table`` … ``end`` block."""
    return "\n".join([f"{header} table", *(f"  {row}" for row in rows), "end"])


def parse(*parts: str, search: Sequence[Path] = ()) -> Instance:
    """An instance from text parts (statements and tables), one per line."""
    return parse_instance_text("\n".join(parts) + "\n", search=search)


def statements(constraints: str | Sequence[str]) -> list[str]:
    """Constraint statements: one line, or the lines of a statement with its table."""
    return [constraints] if isinstance(constraints, str) else list(constraints)


def judge(instance: Instance, solution: Solution, family: Family | None = None) -> Evaluation:
    return evaluate(make_context(instance, family), solution)


def found(instance: Instance, solution: Solution, cid: str = "c", family: Family | None = None) -> list[Violation]:
    """The violation records (hard or soft) of constraint ``cid``."""
    ev = judge(instance, solution, family)
    return [v for v in (*ev.violations, *ev.penalties) if v.constraint == cid]


def amounts(instance: Instance, solution: Solution, cid: str = "c", family: Family | None = None) -> list[int]:
    """The amounts of the violation records of ``cid``, in the kind's order."""
    return [v.amount for v in found(instance, solution, cid, family)]


# ---------------------------------------------------------------- interval instances and solutions


def project(constraints: str | Sequence[str], activities: Sequence[str], family: str = "mrcpsp",
            resources: Sequence[str] = ("R1 renewable 2", "N1 nonrenewable 5")) -> Instance:
    """An interval instance; activity rows are ``name mode duration`` then one amount per resource."""
    columns = " ".join(r.split()[0] for r in resources)
    return parse(f"instance t family {family}", table("resources", resources),
                 table(f"activities ({columns})", activities), *statements(constraints), "minimize makespan")


def shop(constraints: str | Sequence[str], activities: Sequence[str], family: str = "jobshop") -> Instance:
    """A machine instance (unary M1, M2); activity rows give the use of M1 then M2."""
    return project(constraints, activities, family, resources=("M1 unary", "M2 unary"))


def at(modes: dict[str, int] | None = None, **starts: int) -> Solution:
    """Start times (and modes) of activities."""
    return Solution(starts=starts, modes=modes or {})


# ---------------------------------------------------------------- slot instances and solutions


def roster(constraints: str | Sequence[str], days: int = 7, weekday: str = "Monday",
           employees: str = "A B", shifts: str = "E L N") -> Instance:
    """An INRC-2010 roster; an employee ``B:part`` has contract ``part`` (default ``full``)."""
    staff = [f"{e.partition(':')[0]} {e.partition(':')[2] or 'full'} Nurse" for e in employees.split()]
    return parse("instance t family inrc2010", f"calendar days={days} start_weekday={weekday}",
                 table("shift (start end skills description)", [f"{s} 06:00 14:00 Nurse {s}" for s in shifts.split()]),
                 table("contract (description weekend)", ["full x SaturdaySunday", "part x SaturdaySunday"]),
                 table("employee (contract skills)", staff), *statements(constraints), "minimize penalty")


def nurses(constraints: str | Sequence[str], days: int = 3, staff: str = "N1 N2") -> Instance:
    """An NSPLib week: shifts S1 S2 and the explicit free value Off."""
    return parse("instance t family nsplib", f"calendar days={days}", table("shift ()", ["S1 S2 Off"]),
                 table("nurse ()", [staff]), *statements(constraints), "minimize penalty")


def work(**rows: str) -> Solution:
    """Day-grained assignments: one token per day, ``-`` = nothing, ``E+L`` = two values that day."""
    return Solution(assignments=tuple(Assignment(agent, day, 0, value)
                                      for agent, row in rows.items()
                                      for day, token in enumerate(row.split()) if token != "-"
                                      for value in token.split("+")))


COURSES = ("Math t1 3 3 40", "Phys t2 2 2 30", "Chem t2 2 2 25", "Bio t3 2 1 35")
CURRICULA = ("Y1 Math,Phys", "Y2 Chem,Bio")


def timetable(constraints: str | Sequence[str], days: int = 2, periods: int = 3,
              curricula: Sequence[str] = CURRICULA) -> Instance:
    """An ITC-2007 timetable: courses Math (t1, 3 lectures, 3 days, 40 students), Phys and Chem (both
    taught by t2), Bio; rooms Aula (40 seats) and Lab (30)."""
    return parse("instance t family itc2007", f"calendar days={days} periods_per_day={periods}",
                 table("course (teacher lectures min_days students)", COURSES),
                 table("room (capacity)", ["Aula 40", "Lab 30"]),
                 table("curriculum (members)", curricula), *statements(constraints), "minimize penalty")


def lectures(*items: str) -> Solution:
    """Period-grained assignments written ``"agent value day period"``."""
    out = []
    for item in items:
        agent, value, day, period = item.split()
        out.append(Assignment(agent, int(day), int(period), value))
    return Solution(assignments=tuple(out))


# ---------------------------------------------------------------- test families: every slot / interval kind


def family_text(name: str, structure: str, objective: str, kinds: Iterable[str], *lines: str) -> str:
    """A family spec listing ``kinds``."""
    return "\n".join([f"family {name} {{", f'  title "Test family: every {structure} kind"',
                      f"  structure {structure}", f"  objective {objective}", f"  kinds [{' '.join(sorted(kinds))}]",
                      *(f"  {line}" for line in lines), "}", ""])


LAB_SLOT_FAMILY = family_text("lab_slot", "slot", "penalty", SLOT_KINDS | ANY_STRUCTURE_KINDS,
                              "class task (owner:name quota:int spread:int size:int skills:names)",
                              "class room (capacity:int skills:names)",
                              "class team (members:names)", "decision agent=task value=room grain=period")
LAB_INTERVAL_FAMILY = family_text("lab_interval", "interval", "makespan", INTERVAL_KINDS | ANY_STRUCTURE_KINDS,
                                  "class worker (skills:names)")


def write_families(folder: Path) -> None:
    (folder / "lab_slot.sched").write_text(LAB_SLOT_FAMILY, encoding="utf-8")
    (folder / "lab_interval.sched").write_text(LAB_INTERVAL_FAMILY, encoding="utf-8")


@dataclass(frozen=True)
class Lab:
    """The test families in a folder, for period-grained cases no built-in family covers."""

    folder: Path

    @property
    def family(self) -> Family:
        return load_family("lab_slot", [self.folder])

    def slots(self, constraints: str | Sequence[str], days: int = 2, periods: int = 2) -> Instance:
        """Tasks T1 (owner o1, quota 2) and T2 (o2, quota 1), rooms R1 and R2, team G = {T1, T2}."""
        return parse("instance t family lab_slot", f"calendar days={days} periods_per_day={periods}",
                     table("task (owner quota spread size skills)", ["T1 o1 2 2 5 -", "T2 o2 1 1 5 -"]),
                     table("room (capacity skills)", ["R1 5 -", "R2 5 -"]), table("team (members)", ["G T1,T2"]),
                     *statements(constraints), "minimize penalty", search=[self.folder])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    folder = tmp_path_factory.mktemp("lab")
    write_families(folder)
    return Lab(folder)


# ============================================================================ precedence_lag

PRECEDENCE_ACTIVITIES = ("A 1 3 0 0", "A 2 5 0 0", "B 1 2 0 0", "C 1 1 0 0")


def precedence(rows: Sequence[str]) -> Instance:
    return project(["hard precedence_lag c table", *rows, "end"], PRECEDENCE_ACTIVITIES)


def test_precedence_satisfied_when_start_equals_end_plus_lag() -> None:
    assert found(precedence(["A ->+2 B"]), at(A=0, B=5)) == []


def test_precedence_broken_by_one_unit_of_lag() -> None:
    [v] = found(precedence(["A ->+2 B"]), at(A=0, B=4))
    assert (v.amount, v.entities, v.time, v.hard) == (1, ("A", "B"), 4, True)


def test_precedence_without_lag_allows_touching() -> None:
    inst = precedence(["A -> B"])
    assert amounts(inst, at(A=0, B=3)) == []
    assert amounts(inst, at(A=0, B=2)) == [1]


def test_precedence_one_violation_per_broken_edge() -> None:
    inst = precedence(["A -> B -> C", "A -> C"])  # edges A→B, B→C, A→C
    assert amounts(inst, at(A=0, B=0, C=0)) == [1, 1, 1]
    assert amounts(inst, at(A=0, B=3, C=4)) == [1]  # only B→C (B ends at 5)


def test_precedence_uses_the_duration_of_the_chosen_mode() -> None:
    inst = precedence(["A -> B"])
    assert amounts(inst, at(A=0, B=4)) == []
    assert amounts(inst, at({"A": 2}, A=0, B=4)) == [1]  # mode 2 lasts 5


def test_precedence_skips_edges_of_unscheduled_activities() -> None:
    assert amounts(precedence(["A -> B"]), at(B=0)) == []


# ============================================================================ unary_no_overlap
# activity rows: name mode duration use(M1) use(M2)

SHOP = ("A 1 3 1 0", "B 1 3 1 0", "C 1 3 1 0", "Z 1 0 1 0", "Y 1 0 1 0", "D 1 3 0 1")


def unary(scope: str = "") -> Instance:
    return shop(f"hard unary_no_overlap c {scope}".strip(), SHOP)


def test_unary_disjoint_and_touching_intervals_are_allowed() -> None:
    assert amounts(unary(), at(A=0, B=3, C=6)) == []  # E_A = S_B, E_B = S_C


def test_unary_zero_length_operations_never_conflict() -> None:
    assert amounts(unary(), at(A=0, Z=1, Y=1)) == []  # inside A, and at the same time as each other
    assert amounts(unary(), at(A=0, Z=0, Y=3)) == []  # at A's start and end


def test_unary_one_violation_per_overlapping_pair() -> None:
    [v] = found(unary(), at(A=0, B=2))
    assert (v.amount, v.entities, v.time) == (1, ("A", "B", "M1"), 2)


def test_unary_three_mutually_overlapping_intervals_are_three_pairs() -> None:
    assert amounts(unary(), at(A=0, B=1, C=2)) == [1, 1, 1]


def test_unary_a_chain_of_overlaps_counts_only_overlapping_pairs() -> None:
    assert amounts(unary(), at(A=0, B=2, C=4)) == [1, 1]  # A-B and B-C, A ends before C starts


def test_unary_other_machines_and_scope() -> None:
    assert amounts(unary(), at(A=0, D=0)) == []  # D runs on M2
    assert amounts(unary("resources=[M2]"), at(A=0, B=0)) == []  # M1 not in scope


def test_unary_machine_follows_the_chosen_mode() -> None:
    inst = shop("hard unary_no_overlap c", ["X 1 3 1 0", "X 2 3 0 1", "W 1 3 1 0"], family="fjsp")
    assert amounts(inst, at({"X": 2}, X=0, W=0)) == []  # X on M2
    assert amounts(inst, at({"X": 1}, X=0, W=0)) == [1]


# ============================================================================ cumulative_renewable
# R1 has capacity 2; rows: name mode duration use(R1) use(N1)

LOADS = ("A 1 3 2 0", "B 1 2 1 0", "C 1 1 1 0", "D 1 4 2 0", "E 1 6 2 0", "Z 1 0 2 0")


def cumulative() -> Instance:
    return project("hard cumulative_renewable c", LOADS)


def test_cumulative_at_capacity_and_touching_is_satisfied() -> None:
    assert amounts(cumulative(), at(A=0, B=3, C=3)) == []  # load 2 then 2


def test_cumulative_overload_amount_is_excess_times_duration() -> None:
    [v] = found(cumulative(), at(A=0, B=1))  # load 3 on [1, 3)
    assert (v.amount, v.time, v.entities) == (2, 1, ("R1",))


def test_cumulative_varying_excess_is_one_segment_summed_over_time() -> None:
    # D [0,4) 2, B [1,3) 1, C [2,3) 1: loads 2, 3, 4, 2 → overloaded [1,3), excess 1 + 2
    [v] = found(cumulative(), at(D=0, B=1, C=2))
    assert (v.amount, v.time) == (3, 1)


def test_cumulative_overload_carried_by_successive_activities_is_one_segment() -> None:
    # D [0,4) 2, then B [0,2) 1 followed by C [2,3) 1: the load stays 3 on [0,3), one segment, excess 3 × 1
    [v] = found(cumulative(), at(D=0, B=0, C=2))
    assert (v.amount, v.time) == (3, 0)


def test_cumulative_one_record_per_maximal_overloaded_segment() -> None:
    # E [0,6) 2; B [1,3) and C [4,5): two separate overloads
    assert amounts(cumulative(), at(E=0, B=1, C=4)) == [2, 1]


def test_cumulative_zero_length_activity_uses_nothing() -> None:
    assert amounts(cumulative(), at(A=0, Z=1)) == []


# ============================================================================ nonrenewable_budget
# N1 has budget 5

BUDGET = ("A 1 1 0 3", "A 2 1 0 1", "B 1 1 0 2", "B 2 1 0 4")


def budget() -> Instance:
    return project("hard nonrenewable_budget c", BUDGET)


def test_nonrenewable_at_budget_is_satisfied() -> None:
    assert amounts(budget(), at(A=0, B=10)) == []  # 3 + 2 = 5


def test_nonrenewable_excess_is_one_record_whatever_the_timing() -> None:
    [v] = found(budget(), at({"B": 2}, A=0, B=10))  # 3 + 4 = 7, far apart in time
    assert (v.amount, v.entities) == (2, ("N1",))
    assert amounts(budget(), at({"A": 2, "B": 2}, A=0, B=0)) == []  # 1 + 4


# ============================================================================ mode_choice


def modes() -> Instance:
    return project("hard mode_choice c", BUDGET)


def test_mode_choice_valid_modes_and_default_mode_are_satisfied() -> None:
    assert amounts(modes(), at({"A": 2}, A=0, B=0)) == []  # B defaults to mode 1


@pytest.mark.parametrize("number", [0, 3, -1])
def test_mode_choice_invalid_mode_is_one_violation(number: int) -> None:
    [v] = found(modes(), at({"A": number, "B": 2}, A=0, B=0))
    assert (v.amount, v.entities) == (1, ("A",))


def test_mode_choice_one_violation_per_activity() -> None:
    assert amounts(modes(), at({"A": 9, "B": 9}, A=0, B=0)) == [1, 1]


# ============================================================================ one_per_slot


def test_one_per_slot_per_agent_satisfied_with_free_days() -> None:
    assert amounts(roster("hard one_per_slot c"), work(A="E - L", B="L L -")) == []


def test_one_per_slot_per_agent_excess_of_k_is_amount_k() -> None:
    [two, three] = found(roster("hard one_per_slot c"), work(A="E+L - L+L+N"))
    assert (two.amount, two.day, two.entities) == (1, 0, ("A",))
    assert (three.amount, three.day) == (2, 2)


def test_one_per_slot_per_agent_in_periods() -> None:
    inst = timetable("hard one_per_slot c per=agent")
    assert amounts(inst, lectures("Math Aula 0 0", "Math Lab 0 1")) == []
    assert amounts(inst, lectures("Math Aula 0 0", "Math Lab 0 0")) == [1]


def test_one_per_slot_per_value() -> None:
    inst = timetable("hard one_per_slot c per=value")
    assert amounts(inst, lectures("Math Aula 0 0", "Phys Aula 0 1", "Chem Aula 1 0", "Bio Lab 0 0")) == []
    [v] = found(inst, lectures("Math Aula 0 0", "Phys Aula 0 0", "Chem Aula 0 0", "Bio Aula 1 0"))
    assert (v.amount, v.day, v.entities) == (2, 0, ("Aula", "Math", "Phys", "Chem"))


def test_one_per_slot_exactly_every_agent_slot_needs_an_assignment() -> None:
    inst = nurses("hard one_per_slot c exactly=true", days=3)
    assert amounts(inst, work(N1="S1 Off S2", N2="Off Off Off")) == []  # Off is an assignment
    [v] = found(inst, work(N1="S1 - S2", N2="S1 S1 S1"))
    assert (v.amount, v.day, v.entities) == (1, 1, ("N1",))


def test_one_per_slot_exactly_counts_each_missing_slot_and_each_excess() -> None:
    inst = nurses("hard one_per_slot c exactly=true", days=3)
    assert amounts(inst, work(N1="S1+S2 S1 S1")) == [1, 1, 1, 1]  # one excess, N2 missing 3 days


def test_one_per_slot_exactly_in_periods(lab: Lab) -> None:
    inst = lab.slots("hard one_per_slot c exactly=true", days=1, periods=2)
    solution = lectures("T1 R1 0 0", "T1 R1 0 1", "T2 R2 0 1")
    assert amounts(inst, solution, family=lab.family) == [1]  # T2 misses period 0


# ============================================================================ coverage


def covered(rows: Sequence[str], complete: bool = False) -> Instance:
    flag = " complete=true" if complete else ""
    return roster([f"hard coverage c{flag} table", *rows, "end"], days=3, employees="A B C")


def test_coverage_exact_satisfied() -> None:
    assert amounts(covered(["0 E=1 L=1", "1 E=2"]), work(A="E E -", B="L E -")) == []


def test_coverage_exact_counts_surplus_and_missing_agents() -> None:
    vs = found(covered(["0 E=1 L=1"]), work(A="E", B="E", C="E"))  # E has 3 (2 too many), L none
    assert [(v.amount, v.day, v.entities) for v in vs] == [(2, 0, ("E",)), (1, 0, ("L",))]


@pytest.mark.parametrize(("spec", "assigned", "expected"), [
    ("E=2..", 1, [1]), ("E=2..", 3, []), ("E=..1", 3, [2]), ("E=..1", 0, []),
    ("E=1..2", 0, [1]), ("E=1..2", 2, []), ("E=1..2", 3, [1]), ("E=0", 2, [2]),
])
def test_coverage_min_max_and_range_bounds(spec: str, assigned: int, expected: list[int]) -> None:
    rows = {name: "E" for name in "ABC"[:assigned]}
    assert amounts(covered([f"0 {spec}"]), work(**rows)) == expected


def test_coverage_long_rows_with_absent_bounds() -> None:
    inst = covered(["0 E 2 -", "0 L - 0"])
    assert amounts(inst, work(A="E", B="L")) == [1, 1]


def test_coverage_without_a_row_has_no_requirement_unless_complete() -> None:
    solution = work(A="E L", B="N L")  # day 0 N and day 1 L have no row
    assert amounts(covered(["0 E=1"]), solution) == []
    vs = found(covered(["0 E=1"], complete=True), solution)
    assert [(v.amount, v.day, v.entities) for v in vs] == [(1, 0, ("N",)), (2, 1, ("L",))]


def test_coverage_complete_is_satisfied_by_exact_staffing() -> None:
    assert amounts(covered(["0 E=1 L=1", "1 N=1"], complete=True), work(A="E N", B="L -")) == []


def test_coverage_period_rows_and_day_rows(lab: Lab) -> None:
    inst = lab.slots(["hard coverage c table", "0 0 R1 1 1", "1 R2 2 -", "end"])
    assert amounts(inst, lectures("T1 R1 0 0", "T1 R2 1 0", "T2 R2 1 1"), family=lab.family) == []  # day row
    assert amounts(inst, lectures("T1 R1 0 1", "T2 R1 0 1", "T2 R2 1 1"), family=lab.family) == [1, 1]


# ============================================================================ count_bounds


def counted(params: str, agents: str = "employee") -> Instance:
    return roster(f"hard count_bounds c agents={agents} {params}", employees="A B:part")


def test_count_bounds_constants_satisfied_at_the_bounds() -> None:
    assert amounts(counted("min=2 max=3"), work(A="E E E", B="L - L")) == []


@pytest.mark.parametrize(("params", "row", "expected"), [
    ("max=2", "E E L N", 2), ("min=5", "E - E", 3), ("min=3 max=3", "E", 2), ("min=1", "-", 1),
])
def test_count_bounds_constants_deficit_and_excess(params: str, row: str, expected: int) -> None:
    [v] = found(counted(params, agents="employee[A]"), work(A=row, B="E E E"))  # B is not selected
    assert (v.amount, v.entities) == (expected, ("A",))


def test_count_bounds_counts_every_assignment() -> None:
    assert amounts(counted("max=2"), work(A="E+L E", B="E")) == [1]


def test_count_bounds_selector_and_value_filter() -> None:
    inst = roster("hard count_bounds c agents=employee[contract=part] values=[E N] max=1", employees="A B:part")
    assert amounts(inst, work(A="E E E", B="E L L")) == []  # A not selected; B has 1 of E/N
    assert amounts(inst, work(A="E E E", B="E N L")) == [1]


def test_count_bounds_attribute_bounds() -> None:
    inst = timetable("hard count_bounds c agents=course min=@lectures max=@lectures")
    full = lectures("Math Aula 0 0", "Math Aula 0 1", "Math Aula 1 0", "Phys Lab 0 0", "Phys Lab 1 0",
                    "Chem Lab 0 1", "Chem Lab 0 2", "Bio Aula 1 1", "Bio Aula 1 2")
    assert amounts(inst, full) == []
    vs = found(inst, lectures("Math Aula 0 0", "Phys Lab 0 0", "Phys Lab 1 0", "Phys Lab 1 1",
                              "Chem Lab 0 1", "Chem Lab 0 2", "Bio Aula 1 1", "Bio Aula 1 2"))
    assert [(v.entities, v.amount) for v in vs] == [(("Math",), 2), (("Phys",), 1)]


def test_count_bounds_free_days() -> None:
    inst = counted("values=free min=3 max=4")
    assert amounts(inst, work(A="E E E - - - -", B="E E E E - - -")) == []
    assert amounts(inst, work(A="E E E E E - -", B="-")) == [1, 3]  # A 2 free days, B 7


def test_count_bounds_free_counts_an_explicit_free_value() -> None:
    inst = nurses(["hard count_bounds c agents=nurse values=free min=2",
                   "hard count_bounds w agents=nurse max=1"], days=3, staff="N1")
    solution = work(N1="S1 Off S2")
    assert amounts(inst, solution, "c") == [1]  # one free day (Off)
    assert amounts(inst, solution, "w") == [1]  # two working assignments, Off excluded


def test_count_bounds_free_counts_slots_in_period_grained_families(lab: Lab) -> None:
    # "For values=free the count is the number of slots where e has no working assignment."
    inst = lab.slots("hard count_bounds c agents=task values=free max=0", days=2, periods=2)
    solution = lectures("T1 R1 0 0", "T2 R1 0 0", "T2 R1 0 1", "T2 R1 1 0", "T2 R1 1 1")
    assert amounts(inst, solution, family=lab.family) == [3]  # T1 is free in 3 of the 4 slots


# ============================================================================ slot_conflict

CONFLICT_CURRICULA = ("Y1 Math,Phys", "Y2 Chem,Bio", "Y3 Phys,Chem")  # Phys–Chem: a group AND teacher t2


def conflicts(params: str = "groups=curriculum by=teacher", curricula: Sequence[str] = CONFLICT_CURRICULA) -> Instance:
    return timetable(f"hard slot_conflict c {params}", curricula=curricula)


def test_slot_conflict_satisfied_when_conflicting_courses_use_different_periods() -> None:
    assert amounts(conflicts(), lectures("Math Aula 0 0", "Phys Lab 0 1", "Chem Lab 0 2", "Bio Aula 0 1")) == []


def test_slot_conflict_unrelated_courses_may_share_a_period() -> None:
    assert amounts(conflicts(), lectures("Math Aula 0 0", "Chem Lab 0 0")) == []


def test_slot_conflict_pair_with_two_reasons_counts_once() -> None:
    [v] = found(conflicts(), lectures("Phys Aula 1 2", "Chem Lab 1 2"))
    assert (v.amount, v.entities, v.day) == (1, ("Chem", "Phys"), 1)


@pytest.mark.parametrize(("params", "expected"), [("groups=curriculum", [1, 1]), ("by=teacher", [1])])
def test_slot_conflict_reasons_separately(params: str, expected: list[int]) -> None:
    # Math–Phys share a curriculum only, Phys–Chem both: with by=teacher only Phys–Chem conflict
    solution = lectures("Math Aula 0 0", "Phys Lab 0 0", "Chem Lab 0 1", "Phys Aula 0 1")
    assert amounts(conflicts(params), solution) == expected


def test_slot_conflict_one_per_pair_per_slot() -> None:
    inst = conflicts(curricula=("Y1 Math,Phys,Chem",))
    three = lectures("Math Aula 0 0", "Phys Lab 0 0", "Chem Aula 0 0")
    assert amounts(inst, three) == [1, 1, 1]
    assert amounts(inst, lectures("Math Aula 0 0", "Phys Lab 0 0", "Math Aula 1 2", "Phys Lab 1 2")) == [1, 1]


def test_slot_conflict_course_with_two_rooms_is_one_presence() -> None:
    assert amounts(conflicts(), lectures("Math Aula 0 0", "Math Lab 0 0", "Phys Lab 0 0")) == [1]


# ============================================================================ unavailability


def unavailable() -> Instance:
    return timetable(["hard unavailability c table", "Math 0 0", "Bio 1", "end"])


def test_unavailability_satisfied_outside_forbidden_slots() -> None:
    assert amounts(unavailable(), lectures("Math Aula 0 1", "Math Aula 1 0", "Bio Lab 0 0", "Phys Lab 0 0")) == []


def test_unavailability_one_violation_per_assignment_in_a_forbidden_slot() -> None:
    vs = found(unavailable(), lectures("Math Aula 0 0", "Math Lab 0 0", "Bio Lab 1 0", "Bio Lab 1 2"))
    assert [(v.amount, v.entities, v.day) for v in vs] == [(1, ("Math",), 0)] * 2 + [(1, ("Bio",), 1)] * 2


# ============================================================================ consecutive_run_bounds


def runs(params: str, days: int = 7, weekday: str = "Monday") -> Instance:
    return roster(f"soft 1 consecutive_run_bounds c agents=employee {params}", days=days, weekday=weekday,
                  employees="A")


@pytest.mark.parametrize(("params", "row"), [
    ("max=3", "E E E - E E E"), ("min=2", "E E - - E E E"), ("values=free min=2", "- - E E - - E"),
    ("values=free max=2 min=2", "E - - E E - -"), ("values=E max=2", "E E L E E - N"),
])
def test_runs_satisfied(params: str, row: str) -> None:
    assert amounts(runs(params), work(A=row)) == []


def test_runs_max_counts_every_day_beyond_the_limit() -> None:
    [v] = found(runs("max=3"), work(A="- E E E E E -"))
    assert (v.amount, v.day, v.entities) == (2, 1, ("A",))
    assert amounts(runs("max=2", days=10), work(A="E E E E - E E E E E")) == [2, 3]


def test_runs_min_counts_missing_days_per_short_run() -> None:
    assert amounts(runs("min=3"), work(A="E - E - - E E")) == [2, 2, 1]


def test_runs_cut_by_the_horizon_are_judged_by_their_observed_length() -> None:
    [v] = found(runs("values=free min=2"), work(A="E E E E E E -"))  # a single free day at the end
    assert (v.amount, v.day) == (1, 6)
    assert amounts(runs("values=free min=2"), work(A="- E E E E E E")) == [1]  # and at the start
    assert amounts(runs("min=3"), work(A="E E - - - E E")) == [1, 1]


def test_runs_of_a_value() -> None:
    assert amounts(runs("values=E max=2"), work(A="E E E L E E E")) == [1, 1]
    assert amounts(runs("values=[E L] max=2"), work(A="E L E N E L -")) == [1]  # E/L run of 3, then 2


def test_runs_free_with_an_explicit_free_value() -> None:
    inst = nurses("hard consecutive_run_bounds c agents=nurse values=free max=1", days=4, staff="N1")
    assert amounts(inst, work(N1="Off - S1 Off")) == [1]  # Off and no assignment are both free


# ---------------------------------------------------------------- weekends
# 12 days from a Tuesday: weekends (Sat-Sun) are days 4-5 and day 11 alone (cut at the horizon end)


def weekend_runs(params: str, weekend: str = "SaturdaySunday") -> Instance:
    return runs(f"over=weekends({weekend}) {params}", days=12, weekday="Tuesday")


def test_weekend_runs_are_anchored_on_weekdays() -> None:
    # works Friday, Monday and Friday only: no weekend worked (taking day 0 for a Monday would make
    # days 5-6 a weekend, and day 6 is worked)
    assert amounts(weekend_runs("max=0"), work(A="- - - E - - E - - - E -")) == []


def test_weekend_worked_when_any_of_its_days_is_worked() -> None:
    [v] = found(weekend_runs("max=1"), work(A="- - - - - E - - - - - L"))  # Sunday, then the cut Saturday
    assert (v.amount, v.day) == (1, 4)


def test_weekend_cut_at_the_horizon_end_is_a_weekend_of_observed_length() -> None:
    assert amounts(weekend_runs("min=2"), work(A="- - - - - - - - - - - E")) == [1]
    assert amounts(weekend_runs("min=2"), work(A="- - - - E - - - - - - E")) == []


def test_weekend_definition_sets_the_anchor() -> None:
    # Friday-Sunday weekends of that horizon: days 3-5 and 10-11
    row = "- - - E - - - - - - E -"
    assert amounts(weekend_runs("max=1", "FridaySaturdaySunday"), work(A=row)) == [1]
    assert amounts(weekend_runs("max=1"), work(A=row)) == []


def test_free_weekends_need_every_day_free() -> None:
    assert amounts(weekend_runs("values=free max=1"), work(A="- - - - E - - - - - - -")) == []
    assert amounts(weekend_runs("values=free max=1"), work(A="-")) == [1]


# ============================================================================ pattern_prohibition


def pattern(params: str, days: int = 7) -> Instance:
    return roster(f"soft 1 pattern_prohibition c agents=employee {params}", days=days, employees="A")


def test_pattern_satisfied_when_absent() -> None:
    assert amounts(pattern("pattern=[L E]"), work(A="E L L - E L N")) == []


def test_pattern_one_unit_per_occurrence() -> None:
    vs = found(pattern("pattern=[L E]"), work(A="L E L E - L E"))
    assert [(v.amount, v.day) for v in vs] == [(1, 0), (1, 2), (1, 5)]


def test_pattern_entries_work_free_and_values() -> None:
    inst = pattern("pattern=[free work E]")
    assert amounts(inst, work(A="- L E - N N -")) == [1]  # from day 0 only: from day 3 the third day is N
    assert amounts(inst, work(A="- E+L E")) == [1]  # a day holding E and L works


def test_pattern_never_matches_across_the_horizon_end() -> None:
    assert amounts(pattern("pattern=[L E]"), work(A="- - - - - - L")) == []
    assert amounts(pattern("pattern=[free work work]"), work(A="E E E E E - E")) == []


def test_pattern_with_a_weekday_anchor_starts_only_on_that_day() -> None:
    inst = pattern("pattern=[free work work] anchor=Friday", days=14)  # Fridays: days 4 and 11
    assert amounts(inst, work(A="- E E - - E E - E E - - E E")) == [1, 1]
    assert amounts(inst, work(A="- E E E E E E E E E E E E E")) == []  # the same shape on a Monday


def test_pattern_anchor_does_not_match_across_the_horizon_end() -> None:
    inst = pattern("pattern=[free work work] anchor=Friday", days=13)  # day 11 + 2 is outside
    assert amounts(inst, work(A="E E E E E E E E E E E - E")) == []


# ============================================================================ window_pattern_cost


def weekend_table(weekend: str, rows: Iterable[str], days: int = 7, extra: str = "") -> Instance:
    statement = f"soft 1 window_pattern_cost c agents=employee windows=weekends({weekend}) {extra}".strip()
    return roster([f"{statement} table", *rows, "end"], days=days, employees="A")


COMPLETE_3 = [f"{p.pattern} {p.cost}" for p in complete_weekend_table(3)]


@pytest.mark.parametrize(("weekend", "expected"), [
    ("- - - - E E E", 0), ("- - - - - - -", 0), ("- - - - E E -", 1), ("- - - - - E E", 1),
    ("- - - - E - -", 2), ("- - - - - - E", 2), ("- - - - - E -", 2), ("- - - - E - L", 4),
])
def test_window_complete_weekends_on_friday_to_sunday(weekend: str, expected: int) -> None:
    vs = found(weekend_table("FridaySaturdaySunday", COMPLETE_3), work(A=weekend))
    assert [(v.amount, v.day) for v in vs] == ([(expected, 4)] if expected else [])


def test_window_two_day_table_and_unlisted_patterns() -> None:
    inst = weekend_table("SaturdaySunday", ["WF 1", "FW 1"], days=14)
    assert amounts(inst, work(A="- - - - - E - - - - - - E E")) == [1]  # W F, then W W (not listed)


def test_window_cut_weekends_shorter_than_min_length_are_ignored() -> None:
    rows = [*COMPLETE_3, "W 5"]
    assert amounts(weekend_table("FridaySaturdaySunday", rows, days=5), work(A="- - - - E")) == []
    assert amounts(weekend_table("FridaySaturdaySunday", rows, days=5, extra="min_length=1"),
                   work(A="- - - - E")) == [5]
    assert amounts(weekend_table("FridaySaturdaySunday", COMPLETE_3, days=6), work(A="- - - - E -")) == [1]


def mixed(weekend: str) -> Instance:
    return roster(f"soft 1 window_pattern_cost c agents=employee windows=weekends({weekend}) cost=mixed_values",
                  employees="A")


@pytest.mark.parametrize(("weekend", "row", "expected"), [
    ("SaturdaySunday", "- - - - - E E", []), ("SaturdaySunday", "- - - - - E L", [2]),
    ("FridaySaturdaySunday", "- - - - E E E", []), ("FridaySaturdaySunday", "- - - - E L E", [3]),
    ("FridaySaturdaySunday", "- - - - E L N", [6]), ("FridaySaturdaySunday", "- - - - E - L", []),
    ("SaturdaySunday", "- - - - - E -", []),
])
def test_window_mixed_values(weekend: str, row: str, expected: list[int]) -> None:
    assert amounts(mixed(weekend), work(A=row)) == expected


# ============================================================================ assignment_cost


def costs(*rows: str) -> Instance:
    return roster(["soft 1 assignment_cost c table", *rows, "end"], days=3, employees="A B")


@pytest.mark.parametrize(("row", "worked", "expected"), [
    ("A 1 * 3", "- E -", [3]), ("A 1 * 3", "E - E", []),  # day off requested
    ("A 1 E 2", "- E -", [2]), ("A 1 E 2", "- L -", []),  # shift off
    ("A 1 !E 4", "- E -", []), ("A 1 !E 4", "- L -", [4]), ("A 1 !E 4", "- - -", [4]),  # shift on
    ("A 1 !* 5", "- - -", [5]), ("A 1 !* 5", "- N -", []),  # day on
    ("A 1 E 0", "- E -", []),  # zero cost
])
def test_assignment_cost_assigned_and_unassigned(row: str, worked: str, expected: list[int]) -> None:
    assert amounts(costs(row), work(A=worked, B="E E E")) == expected


def test_assignment_cost_unassigned_entry_of_an_agent_without_assignments() -> None:
    assert amounts(costs("A 2 !L 7"), work(B="L L L")) == [7]


def test_assignment_cost_wildcard_day_counts_each_day() -> None:
    vs = found(costs("B * E 1", "B * !* 2"), work(B="E - E"))
    assert [(v.amount, v.day) for v in vs] == [(1, 0), (1, 2), (2, 1)]


def test_assignment_cost_dense_layout() -> None:
    # day-major, within a day the shifts in declaration order S1 S2 Off
    inst = nurses(["soft 1 assignment_cost c layout=dense table", "N1 1 3 2  4 0 6", "N2 0 0 0  0 0 0", "end"],
                  days=2)
    vs = found(inst, work(N1="S2 Off", N2="S1 S1"))
    assert [(v.amount, v.day) for v in vs] == [(3, 0), (6, 1)]
    assert amounts(inst, work(N1="- S2")) == []  # unassigned costs nothing, a zero cost is no record


# ============================================================================ capacity_overflow


def test_capacity_overflow_per_assignment() -> None:
    inst = timetable("soft 1 capacity_overflow c demand=students capacity=capacity")
    assert amounts(inst, lectures("Math Aula 0 0", "Phys Lab 0 0", "Chem Lab 0 1")) == []  # 40 ≤ 40, 30 ≤ 30
    vs = found(inst, lectures("Math Lab 0 0", "Math Lab 1 0", "Bio Lab 0 1", "Phys Aula 0 2"))
    assert [(v.amount, v.entities) for v in vs] == [(10, ("Math", "Lab"))] * 2 + [(5, ("Bio", "Lab"))]


# ============================================================================ spread


def test_spread_satisfied_with_enough_days() -> None:
    inst = timetable("soft 5 spread c agents=course min=@min_days", days=3)
    full = lectures("Math Aula 0 0", "Math Aula 1 0", "Math Aula 2 0", "Phys Lab 0 0", "Phys Lab 2 0",
                    "Chem Lab 1 1", "Chem Lab 2 1", "Bio Aula 1 2")
    assert amounts(inst, full) == []


def test_spread_counts_missing_days() -> None:
    inst = timetable("soft 5 spread c agents=course min=@min_days", days=3)
    vs = found(inst, lectures("Math Aula 0 0", "Math Aula 0 1", "Math Aula 1 0", "Phys Lab 0 0", "Phys Lab 0 2",
                              "Chem Lab 1 1", "Chem Lab 2 1"))
    assert [(v.amount, v.entities) for v in vs] == [(1, ("Math",)), (1, ("Phys",)), (1, ("Bio",))]
    ev = judge(inst, lectures())
    assert ev.components["c"] == 5 * (3 + 2 + 2 + 1)


def test_spread_with_a_constant_minimum() -> None:
    inst = timetable("soft 1 spread c agents=course[Math] min=2")
    assert amounts(inst, lectures("Math Aula 1 0", "Math Aula 1 2", "Phys Lab 0 0")) == [1]


# ============================================================================ stability


def test_stability_extra_values() -> None:
    inst = timetable("soft 1 stability c agents=course max=1")
    assert amounts(inst, lectures("Math Aula 0 0", "Math Aula 1 0", "Phys Lab 0 1")) == []
    vs = found(inst, lectures("Math Aula 0 0", "Math Lab 1 0", "Math Aula 1 1", "Phys Lab 0 1"))
    assert [(v.amount, v.entities) for v in vs] == [(1, ("Math",))]


@pytest.mark.parametrize(("limit", "expected"), [(1, [1]), (2, [])])
def test_stability_with_a_larger_maximum(lab: Lab, limit: int, expected: list[int]) -> None:
    inst = lab.slots(f"soft 1 stability c agents=task max={limit}", days=3, periods=1)
    assert amounts(inst, lectures("T1 R1 0 0", "T1 R2 1 0", "T2 R1 0 0"), family=lab.family) == expected


# ============================================================================ compactness


def compact(curricula: Sequence[str] = ("Y1 Math,Phys",)) -> Instance:
    return timetable("soft 2 compactness c groups=curriculum", days=2, periods=3, curricula=curricula)


def test_compactness_adjacent_lectures_of_a_group_are_not_isolated() -> None:
    assert amounts(compact(), lectures("Math Aula 0 0", "Phys Lab 0 1", "Phys Lab 1 1", "Math Aula 1 2")) == []


def test_compactness_isolated_lecture_costs_its_occupancy() -> None:
    vs = found(compact(), lectures("Math Aula 0 0", "Phys Lab 0 2", "Math Aula 1 1", "Phys Lab 1 1"))
    assert [(v.amount, v.day, v.entities) for v in vs] == [(1, 0, ("Y1",)), (1, 0, ("Y1",)), (2, 1, ("Y1",))]


def test_compactness_adjacency_only_within_the_same_day() -> None:
    # the last period of day 0 and the first of day 1 are consecutive slots but not adjacent
    assert amounts(compact(), lectures("Math Aula 0 2", "Phys Lab 1 0")) == [1, 1]


def test_compactness_counts_per_group() -> None:
    inst = compact(("Y1 Math,Phys", "Y3 Math,Chem"))
    assert amounts(inst, lectures("Math Aula 0 1")) == [1, 1]  # isolated in both curricula
    assert amounts(inst, lectures("Math Aula 0 1", "Phys Lab 0 2")) == [1]  # only in Y3


def test_compactness_member_with_two_values_in_a_period_counts_once() -> None:
    # a[g,p] sums u[e,p] = "e holds some value in p" (ITC-2007 u_{c,p}, de-duplicated)
    assert amounts(compact(), lectures("Math Aula 0 0", "Math Lab 0 0")) == [1]


def test_compactness_weight_applies_after_summing() -> None:
    ev = judge(compact(), lectures("Math Aula 0 0", "Phys Lab 0 2"))
    assert ev.components == {"c": 2 * (1 + 1)}


# ============================================================================ the evaluator


def test_inactive_constraints_are_not_evaluated() -> None:
    inst = roster(['soft 3 inactive "not scored" count_bounds off agents=employee max=0',
                   'hard inactive "not enforced" one_per_slot single',
                   "soft 1 count_bounds on agents=employee max=0"], employees="A")
    ev = judge(inst, work(A="E+L"))
    assert [v.constraint for v in (*ev.violations, *ev.penalties)] == ["on"]
    assert ev.components == {"on": 2} and ev.hard_amounts == {} and ev.objective == 2


def test_soft_components_are_weight_times_amounts_and_the_objective_their_sum() -> None:
    inst = roster(["soft 3 count_bounds many agents=employee max=1",
                   "soft 2 consecutive_run_bounds long agents=employee max=1",
                   "soft 7 pattern_prohibition never agents=employee pattern=[N]",
                   "hard one_per_slot single"], employees="A B")
    ev = judge(inst, work(A="E E E - -", B="E - E - E"))  # A: 3 shifts, run of 3; B: 3 shifts
    assert ev.components == {"many": 3 * (2 + 2), "long": 2 * 2, "never": 0}
    assert ev.hard_amounts == {"single": 0} and ev.feasible
    assert ev.objective == 12 + 4


def test_hard_amounts_sum_violation_amounts() -> None:
    inst = roster(["hard coverage cover table", "0 E=3", "end", "hard one_per_slot single"], employees="A")
    ev = judge(inst, work(A="E+E+L"))
    assert ev.hard_amounts == {"cover": 1, "single": 2} and not ev.feasible
    assert ev.objective == 0 and ev.penalties == ()


def test_makespan_objective() -> None:
    inst = precedence(["A -> B"])
    assert judge(inst, at({"A": 2}, A=0, B=5, C=1)).objective == 7  # B ends at 7
    assert judge(inst, at(A=0, B=3)).objective is None  # C unscheduled
    assert judge(inst, at({"A": 3}, A=0, B=3, C=0)).objective is None  # A has no mode 3


# ============================================================================ time_window, resource_downtime, tardiness


def dynamic_shop(*constraints: str) -> Instance:
    """A dfjsp shop: J1 = M1 for 3 then M2 for 2; J2 = M1 for 4 or M2 for 2."""
    return parse("instance t family dfjsp", table("resources", ["M1 unary", "M2 unary"]),
                 table("jobs", ["J1 M1:3 M2:2", "J2 M1:4/M2:2"]), *constraints, "minimize makespan")


def test_time_window_release_of_a_job_binds_every_step() -> None:
    inst = dynamic_shop("hard time_window c table", "  J1 2", "end")
    assert amounts(inst, at(**{"J1.1": 2, "J1.2": 5, "J2.1": 0})) == []
    assert amounts(inst, at(**{"J1.1": 0, "J1.2": 1, "J2.1": 0})) == [2, 1]


def test_time_window_deadline_and_operation_target() -> None:
    inst = dynamic_shop("hard time_window c table", "  J2.1 1 4", "end")
    assert amounts(inst, at({"J2.1": 2}, **{"J1.1": 0, "J1.2": 3, "J2.1": 2})) == []  # M2: ends at 4
    assert amounts(inst, at({"J2.1": 1}, **{"J1.1": 0, "J1.2": 3, "J2.1": 1})) == [1]  # M1: ends at 5


def test_resource_downtime_touching_is_allowed_and_overlap_is_measured() -> None:
    inst = dynamic_shop("hard resource_downtime c table", "  M1 3 6 repair", "end")
    assert amounts(inst, at(**{"J1.1": 0, "J1.2": 3, "J2.1": 6})) == []
    vs = found(inst, at(**{"J1.1": 2, "J1.2": 5, "J2.1": 8}))
    assert [v.amount for v in vs] == [2] and "(repair)" in vs[0].message  # [2, 5) meets [3, 6) for 2


def test_resource_downtime_follows_the_chosen_machine() -> None:
    inst = dynamic_shop("hard resource_downtime c table", "  M2 0 10", "end")
    assert amounts(inst, at({"J2.1": 1}, **{"J1.1": 0, "J1.2": 10, "J2.1": 3})) == []
    assert amounts(inst, at({"J2.1": 2}, **{"J1.1": 0, "J1.2": 10, "J2.1": 3})) == [2]


def test_tardiness_is_weighted_lateness_of_the_last_step() -> None:
    inst = dynamic_shop("soft 2 tardiness c table", "  J1 4 3", "  J2 10", "end")
    ev = judge(inst, at(**{"J1.1": 0, "J1.2": 3, "J2.1": 7}))  # J1 ends at 5, J2 at 11
    assert amounts(inst, at(**{"J1.1": 0, "J1.2": 3, "J2.1": 7})) == [3, 1]
    assert ev.components["c"] == 2 * (3 + 1)


def test_hard_tardiness_counts_time_units_late() -> None:
    inst = dynamic_shop("hard tardiness c table", "  J1 4 3", "end")
    assert amounts(inst, at(**{"J1.1": 0, "J1.2": 3, "J2.1": 7})) == [1]


@pytest.mark.parametrize(("rows", "message"), [
    (("hard time_window c table", "  J9 0", "end"), "'J9' is neither a job nor an activity"),
    (("hard time_window c table", "  J1 5 5", "end"), "deadline 5 of J1 is not after its release 5"),
    (("hard resource_downtime c table", "  M7 0 4", "end"), "undefined resource 'M7'"),
    (("hard resource_downtime c table", "  M1 4 4", "end"), "a downtime must end after it starts"),
    (("soft 1 tardiness c table", "  J1 x", "end"), "expected due date (an integer)"),
])
def test_time_kinds_report_bad_rows(rows: tuple[str, ...], message: str) -> None:
    with pytest.raises(SchedcError) as exc:
        dynamic_shop(*rows)
    assert message in str(exc.value)


# ============================================================================ complete_spec: every kind

LAB_JOBS = """\
instance lab_jobs family lab_interval
resources table
  M1 unary
  M2 unary
  R1 renewable 2
  N1 nonrenewable 4
end
activities (M1 M2 R1 N1) table
  A 1 3  1 0 1 2
  A 2 2  1 0 2 3
  B 1 2  1 1 1 1
  C 1 4  0 1 2 1
  C 2 1  0 0 1 2
  D 1 0  1 0 2 0
end
worker (skills) table
  W1 lab,exam
  W2 lab
end
hard precedence_lag precedence table
  A -> B ->+1 C
end
hard unary_no_overlap machines
hard cumulative_renewable renewable
hard nonrenewable_budget budget
hard mode_choice modes
hard time_window windows table
  A 0
  B 1 14
end
hard resource_downtime down table
  M1 5 7 service
end
soft 2 tardiness due table
  C 9 3
end
hard setup_times setups table
  M1 A B 1
  M1 B A 2
end
hard optional choice table
  optional D
end
hard no_idle steady resources=[M1]
hard consecutive together table
  A B
end
hard resource_ties tied table
  same A D
end
hard same_sequence flow resources=[M1 M2] table
  A B
  B C
end
hard skill_requirements staff workers=worker table
  A lab 1
  C lab 1
  C exam 1
end
hard objective_bound horizon measure=makespan max=30
minimize makespan
"""

COMPLETE_3_ROWS = "\n".join(f"  {row}" for row in COMPLETE_3)

LAB_WEEK = f"""\
instance lab_week family lab_slot
calendar days=7 periods_per_day=2 start_weekday=Monday
task (owner quota spread size skills) table
  T1 o1 4 3 25 lab,exam
  T2 o1 3 2 10 lab
  T3 o2 2 2 35 -
end
room (capacity skills) table
  R1 30 -
  R2 20 lab
end
team (members) table
  G1 T1,T2
  G2 T2,T3
end
hard one_per_slot task_once per=agent
hard one_per_slot room_once per=value
soft 1 coverage demand table
  0 0 R1 1 1
  1 R2 1 -
  6 R1 - 1
end
hard count_bounds quota agents=task min=@quota max=@quota
soft 1 count_bounds rest agents=task[owner=o1] values=free min=2
hard slot_conflict conflicts groups=team by=owner
hard unavailability closed table
  T3 0
  T1 2 1
end
soft 1 consecutive_run_bounds stretch agents=task max=3 min=2
soft 1 consecutive_run_bounds weekends agents=task over=weekends(SaturdaySunday) max=1
soft 1 pattern_prohibition gap agents=task pattern=[work free work] anchor=Wednesday
soft 1 window_pattern_cost complete agents=task windows=weekends(FridaySaturdaySunday) table
{COMPLETE_3_ROWS}
end
soft 1 window_pattern_cost same agents=task windows=weekends(SaturdaySunday) cost=mixed_values
soft 1 assignment_cost wishes table
  T1 0 * 2
  T2 * !R2 1
end
soft 1 capacity_overflow seats demand=size capacity=capacity
soft 5 spread days agents=task min=@spread
soft 1 stability rooms agents=task max=1
soft 2 inactive "shown only" compactness compact_off groups=team
soft 2 compactness compact groups=team
soft 2 skill_eligibility qualified agents=task
hard skill_demand examiners table
  3 R1 exam - 1
  4 1 R2 lab 1 -
end
soft 1 spacing apart groups=team within=row
hard slot_order order table
  T1 exclusion T3
end
soft 1 shared_capacity shared demand=quota capacity=capacity
soft 1 value_mix owners attr=owner
soft 1 slot_cost priced table
  * 0 0 * 2
  T2 * * R1 1
end
hard objective_bound budget measure=penalty max=400
minimize penalty
"""


@dataclass(frozen=True)
class Spec:
    """An instance file of the complete spec, parsed, with its family."""

    path: Path
    instance: Instance
    family: Family

    def context(self) -> EvalContext:
        return make_context(self.instance, self.family)


@pytest.fixture
def complete_spec(tmp_path: Path) -> list[Spec]:
    """Two small instances (interval and slot) with their families beside them, together using every kind."""
    write_families(tmp_path)
    specs = []
    for name, text in (("lab_jobs", LAB_JOBS), ("lab_week", LAB_WEEK)):
        path = tmp_path / f"{name}.sched"
        path.write_text(text, encoding="utf-8")
        instance = load_instance(path)
        specs.append(Spec(path, instance, load_family(instance.family, [tmp_path])))
    return specs


def random_solution(ctx: EvalContext, rng: random.Random, fill: float = 1.0) -> Solution:
    """A random answer: every activity a start and a valid mode; each agent-slot a value with
    probability ``fill`` (1: a complete assignment)."""
    if ctx.activities:
        starts = {name: rng.randrange(10) for name in ctx.activities}
        chosen = {name: rng.randint(1, len(a.modes)) for name, a in ctx.activities.items()}
        return Solution(starts=starts, modes=chosen)
    return Solution(assignments=tuple(Assignment(agent, day, period, rng.choice(ctx.values))
                                      for agent in ctx.agents for day in range(ctx.days)
                                      for period in range(ctx.periods) if rng.random() < fill))


def test_complete_spec_uses_every_kind(complete_spec: list[Spec]) -> None:
    used = {kind_name(c) for spec in complete_spec for c in spec.instance.constraints}
    assert used == set(KINDS)
    assert len(KINDS) == 36


@pytest.mark.parametrize("fill", [1.0, 0.5])
@pytest.mark.parametrize("seed", range(5))
def test_complete_spec_evaluates_random_answers(complete_spec: list[Spec], seed: int, fill: float) -> None:
    rng = random.Random(seed)
    for spec in complete_spec:
        ctx = spec.context()
        ev = evaluate(ctx, random_solution(ctx, rng, fill))
        active = [c for c in spec.instance.constraints if c.active]
        assert set(ev.hard_amounts) | set(ev.components) == {c.id for c in active}
        assert all(v.amount > 0 for v in (*ev.violations, *ev.penalties))
        assert ev.objective is not None
        if spec.family.objective == "penalty":
            assert ev.objective == sum(ev.components.values())
        assert "compact_off" not in ev.components

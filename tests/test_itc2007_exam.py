"""ITC-2007 examination track: the ``.exam`` reader, the importer's modelling, each cost component on
hand-computed answers, both solver backends, and the spacing kinds in a user family (cohorts).

``tests/data/itc2007_exam/tiny.exam`` (hand-written): exams E0 {s1,s2,s3} 120 min, E1 {s3,s4} 120 min
ROOM_EXCLUSIVE, E2 {s1,s5} 90 min, E3 {s6} 120 min, E4 {s7,s8} 60 min; shared students E0–E1 = 1 (s3),
E0–E2 = 1 (s1). Two days of three periods, global index t = 3·day + period:
t0 120 min, t1 120 min penalty 10, t2 90 min, t3 120, t4 120, t5 120 min penalty 5. Rooms R0 (4 seats),
R1 (2 seats, penalty 3). E3 AFTER E4, E0 EXCLUSION E3. TWOINAROW 7, TWOINADAY 5, PERIODSPREAD 2,
NONMIXEDDURATIONS 10, FRONTLOAD 2 largest (E0: 3 students, E1: 2, first of the 2-student exams in
file order) in the last 1 period (t5), weight 4.

The formulas (McCollum et al., ITC-2007 examination track definition, as the Timefold/OptaPlanner
examination score calculator implements them): two in a row = w · Σ shared students over conflicting
pairs in adjacent periods of one day; two in a day = w · Σ over same-day pairs that are not adjacent;
period spread = Σ over pairs 1 ≤ |Δt| ≤ g (weight 1); mixed durations = w · Σ_(room, period)
(distinct durations − 1); front load = w · large exams in the last periods; period and room penalty =
Σ exams × penalty.
"""

from __future__ import annotations

import csv
import os
import time
from pathlib import Path

import pytest

from schedc.backends import cpsat
from schedc.backends import pyomo as milp
from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths
from schedc.importers.itc2007_exam import exam_solution_answer, overlaps
from schedc.importers.itc2007_exam_reader import read_exam
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.printer import print_instance
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, ROOT

TINY = DATA / "itc2007_exam" / "tiny.exam"
SET4 = DATA / "itc2007_exam" / "exam_comp_set4.exam"
SOLUTIONS = DATA / "itc2007_exam" / "solutions"


def tiny():
    (instance,) = import_paths("itc2007-exam", [TINY])
    return instance, load_family(instance.family)


def verdict(text: str):
    instance, family = tiny()
    return Verifier(instance, family).check(text)


# ------------------------------------------------------------------ reader and importer


def test_reader_mirrors_the_file() -> None:
    data = read_exam(TINY)
    assert [e.duration for e in data.exams] == [120, 120, 90, 120, 60]
    assert data.exams[0].students == ("1", "2", "3")
    assert [(p.duration, p.penalty) for p in data.periods][:2] == [(120, 0), (120, 10)]
    assert [(r.capacity, r.penalty) for r in data.rooms] == [(4, 0), (2, 3)]
    assert [(r.first, r.relation, r.second) for r in data.period_rules] == [(3, "after", 4), (0, "exclusion", 3)]
    assert data.exclusive == (1,)
    assert data.weightings["FRONTLOAD"] == (2, 1, 4)
    assert overlaps(data) == {(0, 1): 1, (0, 2): 1}


def test_import_models_the_hard_rules_and_the_weightings() -> None:
    instance, _ = tiny()
    kinds = {c.id: type(c).__name__ for c in instance.constraints}
    assert kinds == {"every_exam_once": "CountBounds", "one_room_per_exam": "OnePerSlot", "conflicts": "SlotConflict",
                     "period_duration": "Unavailability", "room_capacity": "SharedCapacity",
                     "period_constraints": "SlotOrder", "two_in_a_row": "Spacing", "two_in_a_day": "Spacing",
                     "period_spread": "Spacing", "mixed_durations": "ValueMix", "front_load": "SlotCost",
                     "period_penalty": "SlotCost", "room_penalty": "SlotCost"}
    weights = {c.id: c.weight for c in instance.constraints if not c.hard}
    assert weights == {"two_in_a_row": 7, "two_in_a_day": 5, "period_spread": 1, "mixed_durations": 10,
                       "front_load": 4, "period_penalty": 1, "room_penalty": 1}
    (short,) = [c for c in instance.constraints if c.id == "period_duration"]
    # t2 lasts 90 minutes: the three 120-minute exams may not use it
    assert sorted((u.agent, u.day, u.period) for u in short.slots) == [("E0", 0, 2), ("E1", 0, 2), ("E3", 0, 2)]


def test_import_round_trips_and_matches_the_example(tmp_path: Path) -> None:
    instance, _ = tiny()
    text = print_instance(instance)
    path = tmp_path / "tiny.sched"
    path.write_text(text, encoding="utf-8")
    assert print_instance(load_instance(path)) == text
    example = (ROOT / "examples" / "itc2007_exam_small.sched").read_text(encoding="utf-8")
    assert example.split("calendar", 1)[1] == text.split("calendar", 1)[1]


BROKEN = [
    ("[Exams:1]\n60, 1\n[Periods:1]\n01:06:2026, 09:00:00, 120\n", "I962", 4),
    ("[Exams:2]\n60, 1\n[Periods:1]\n", "I966", 3),
    ("[Exams:1]\nsixty, 1\n", "I961", 2),
    ("[Exams:1]\n60, 1\n[Periods:1]\n31:02:2026, 09:00:00, 120, 0\n", "I963", 4),
    ("[Exams:1]\n60, 1\n[Rooms:1]\n", "I960", 3),
    ("[Exams:1]\n60, 1\n[Periods:1]\n01:06:2026, 09:00:00, 120, 0\n[Rooms:1]\n5, 0\n[PeriodHardConstraints]\n"
     "0, AFTER, 3\n", "I964", 8),
    ("[Exams:1]\n60, 1\n[Periods:1]\n01:06:2026, 09:00:00, 120, 0\n[Rooms:1]\n5, 0\n[PeriodHardConstraints]\n"
     "0, BEFORE, 0\n", "I965", 8),
    ("[Exams:1]\n60, 1\n[Periods:2]\n02:06:2026, 09:00:00, 120, 0\n01:06:2026, 09:00:00, 120, 0\n", "I967", 5),
]


@pytest.mark.parametrize(("text", "code", "line"), BROKEN)
def test_malformed_files_are_reported_with_their_position(tmp_path: Path, text: str, code: str, line: int) -> None:
    path = tmp_path / "bad.exam"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchedcError) as info:
        read_exam(path)
    (d,) = info.value.diagnostics
    assert d.code == code and d.span is not None and d.span.line == line and d.file == str(path)


def test_days_with_fewer_periods_are_padded_and_closed(tmp_path: Path) -> None:
    """Without the 90-minute period, day 0 has two periods (t0, t1) and day 1 three (t2, t3, t4): day 0's
    period 2 is closed to every exam, and the period spread counts only the periods that exist."""
    text = TINY.read_text(encoding="utf-8").replace("01:06:2026, 16:00:00, 90, 0\n", "").replace(
        "[Periods:6]", "[Periods:5]")
    path = tmp_path / "uneven.exam"
    path.write_text(text, encoding="utf-8")
    (instance,) = import_paths("itc2007-exam", [path])
    closed = next(c for c in instance.constraints if c.id == "missing_periods")
    assert [(r.agent, r.day, r.period, r.value) for r in closed.rows] == [("*", 0, 2, "*")]
    spread = next(c for c in instance.constraints if c.id == "period_spread")
    assert [(r.day, r.periods) for r in spread.lengths] == [(0, 2)]
    verifier = Verifier(instance, load_family(instance.family))
    report = verifier.check("E0|R0|0|0\nE1|R1|0|1\nE2|R0|1|0\nE3|R0|1|1\nE4|R0|0|2\n")
    assert [v.constraint for v in report.violations] == ["missing_periods"]  # E4 in the closed slot
    report = verifier.check("E0|R0|0|0\nE1|R1|0|1\nE2|R0|1|0\nE3|R0|1|1\nE4|R0|1|0\n")
    # E0 (t0)–E1 (t1) |Δ| = 1 → 1; E0 (t0)–E2 (day 1 period 0 = t2) |Δ| = 2 ≤ 2 → 1 (3 if the closed slot counted)
    assert report.feasible and report.components["period_spread"] == 2


# ------------------------------------------------------------------ hand-computed costs

#: A feasible answer. E0 t0 R0, E1 t1 R1, E4 t2 R0, E2 and E3 share R0 in t3 (2 + 1 = 3 ≤ 4 seats).
FEASIBLE = "E0|R0|0|0\nE1|R1|0|1\nE2|R0|1|0\nE3|R0|1|0\nE4|R0|0|2\n"


def test_hand_computed_components_of_a_feasible_answer() -> None:
    report = verdict(FEASIBLE)
    assert report.feasible
    # two in a row: E0 (t0) and E1 (t1) adjacent on day 0, 1 shared student × 7 = 7
    # two in a day: no same-day pair with a period between them = 0
    # period spread (g = 2): E0–E1 |Δt| = 1 → 1 student; E0–E2 |Δt| = 3 > 2 → 0; weight 1 = 1
    # mixed durations: R0 in t3 holds 90 (E2) and 120 (E3) → 2 − 1 = 1 × 10 = 10
    # front load: E0, E1 not in t5 = 0
    # period penalty: E1 in t1 → 10; room penalty: E1 in R1 → 3
    assert {k: v for k, v in report.components.items() if v} == {
        "two_in_a_row": 7, "period_spread": 1, "mixed_durations": 10, "period_penalty": 10, "room_penalty": 3}
    assert report.objective == 7 + 0 + 1 + 10 + 0 + 10 + 3 == 31


#: Hard breaches: E0 and E1 share students and t5; R0 in t5 seats 3 + 2 = 5 > 4; E1 is exclusive.
BROKEN_ANSWER = "E0|R0|1|2\nE1|R0|1|2\nE2|R1|1|0\nE3|R1|0|1\nE4|R0|0|0\n"


def test_hand_computed_components_and_breaches() -> None:
    report = verdict(BROKEN_ANSWER)
    hard = sorted((v.constraint, v.amount) for v in report.violations)
    # conflicts: one clash (E0, E1 in t5); room capacity: 1 seat over, and E1 sharing R0 with E0
    assert hard == [("conflicts", 1), ("room_capacity", 1), ("room_capacity", 1)]
    # two in a day: E0 (t5) and E2 (t3) on day 1, not adjacent → 1 × 5 = 5
    # period spread: E0–E2 |Δt| = 2 ≤ 2 → 1 (E0–E1 |Δt| = 0 is a clash, not spread)
    # front load: E0 and E1 in t5 → 2 × 4 = 8
    # period penalty: two exams in t5 × 5 + E3 in t1 × 10 = 20; room penalty: E2, E3 in R1 → 2 × 3 = 6
    assert {k: v for k, v in report.components.items() if v} == {
        "two_in_a_day": 5, "period_spread": 1, "front_load": 8, "period_penalty": 20, "room_penalty": 6}
    assert report.objective == 5 + 1 + 8 + 20 + 6 == 40


@pytest.mark.parametrize(("answer", "broken"), [
    ("E0|R0|0|0\nE1|R1|0|1\nE2|R0|1|0\nE3|R0|0|0\nE4|R0|1|0\n", "period_constraints"),  # E3 t0 ≤ E4 t3; E0, E3 share t0
    ("E0|R0|0|2\nE1|R1|0|1\nE2|R0|1|0\nE3|R0|1|1\nE4|R0|0|0\n", "period_duration"),  # E0 (120) in the 90-minute t2
])
def test_period_rules(answer: str, broken: str) -> None:
    report = verdict(answer)
    assert broken in {v.constraint for v in report.violations}
    if broken == "period_constraints":  # after broken and exclusion broken: one violation per row
        assert sum(v.constraint == broken for v in report.violations) == 2


# ------------------------------------------------------------------ solving


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_both_backends_solve_the_tiny_instance_to_the_same_verified_optimum(backend: str) -> None:
    instance, family = tiny()
    module = cpsat if backend == "cpsat" else milp
    result = module.solve(instance, family, module.SolveOptions(time_limit=60, workers=2, seed=1))
    assert result.status == "optimal" and result.objective == 3  # only E1 (exclusive) pays R1's penalty
    verifier = Verifier(instance, family)
    report = verifier.check(verifier.write(result.solution))
    assert report.feasible and report.objective == 3


def published_costs() -> dict[tuple[str, int], int]:
    with (SOLUTIONS / "costs.csv").open(encoding="utf-8") as f:
        return {(row["instance"], int(row["run"])): int(row["cost"]) for row in csv.DictReader(f)}


def published_cases() -> list[tuple[Path, Path, int]]:
    """(instance file, solution file, published cost): the shipped set-4 runs, and every run of every set
    when ``$SCHEDC_EXAM_SETS`` and ``$SCHEDC_EXAM_RUNS`` hold the competition files and the cMA runs."""
    costs = published_costs()
    cases = [(SET4, SOLUTIONS / f"exam_comp_set4.run{r}.sol", costs[("exam_comp_set4", r)]) for r in range(1, 11)]
    sets, runs = os.environ.get("SCHEDC_EXAM_SETS"), os.environ.get("SCHEDC_EXAM_RUNS")
    if sets and runs:
        cases += [(Path(sets) / f"{name}.exam", Path(runs) / f"run{r}_{name.split('_')[-1]}.sol", cost)
                  for (name, r), cost in costs.items() if name != "exam_comp_set4"]
    return cases


def test_published_solutions_verify_with_their_published_costs() -> None:
    """cMA-ETP-ITC2007 (Leite 2016) publishes ten solutions per competition set and their costs: every one
    verifies feasible with exactly that cost (sets 1–12 agree, 120 of 120, when the files are at hand)."""
    verifiers: dict[Path, tuple[Verifier, object]] = {}
    for exam, solution, cost in published_cases():
        if exam not in verifiers:
            (instance,) = import_paths("itc2007-exam", [exam])
            verifiers[exam] = (Verifier(instance, load_family(instance.family)), read_exam(exam))
        verifier, data = verifiers[exam]
        report = verifier.check(exam_solution_answer(data, solution.read_text(encoding="utf-8"), str(solution)))
        assert report.feasible and report.objective == cost, (solution.name, report.objective, cost)


def test_set4_components_of_a_published_solution() -> None:
    """The per-component split of run 2 (published total 14302)."""
    (instance,) = import_paths("itc2007-exam", [SET4])
    verifier = Verifier(instance, load_family(instance.family))
    report = verifier.check(exam_solution_answer(read_exam(SET4), (SOLUTIONS / "exam_comp_set4.run2.sol").read_text()))
    assert {k: v for k, v in report.components.items() if v} == {
        "two_in_a_row": 6345, "two_in_a_day": 3340, "period_spread": 3627, "front_load": 90, "period_penalty": 900}


@pytest.mark.slow
def test_a_real_competition_set_solves_feasibly() -> None:
    (instance,) = import_paths("itc2007-exam", [SET4])
    family = load_family(instance.family)
    start = time.monotonic()
    result = cpsat.solve(instance, family, cpsat.SolveOptions(time_limit=300, workers=2, seed=1))
    assert result.solution is not None, time.monotonic() - start
    verifier = Verifier(instance, family)
    assert verifier.check(verifier.write(result.solution)).feasible


# ------------------------------------------------------------------ a user family with cohorts

USER = ROOT / "examples" / "exams" / "exams_small.sched"


def test_the_spacing_kinds_work_in_a_user_family_with_cohorts() -> None:
    """``examples/exams``: papers, rooms and cohorts (size-weighted back to back, unweighted spread) in a
    family written as a user would; both backends prove the optimum 2: Maths (t3) and Physics (t4) share
    the Sciences cohort and Maths and History (t4) the Humanities cohort, each 1 period apart ≤ gap 2,
    weight 1 per shared cohort (Maths after Physics is forbidden, and every other placement costs more)."""
    instance = load_instance(USER)
    family = load_family(instance.family, [USER.parent])
    verifier = Verifier(instance, family)
    for module in (cpsat, milp):
        result = module.solve(instance, family, module.SolveOptions(time_limit=60, workers=2, seed=1))
        assert (result.status, result.objective) == ("optimal", 2)
        report = verifier.check(verifier.write(result.solution))
        assert report.feasible and report.objective == 2


@pytest.mark.parametrize("path", [USER, ROOT / "examples" / "itc2007_exam_small.sched"])
def test_every_variant_renders_faithfully(path: Path) -> None:
    from schedc.render.engine import render
    from tests.test_render import VARIANTS, audit, audit_variants

    instance = load_instance(path)
    family = load_family(instance.family, [path.parent])
    r = {v: render(instance, family, v) for v in VARIANTS}
    problems = [p for rendering in r.values() for p in audit(rendering, instance, family)]
    assert not problems + (audit_variants(r, family) if family.plan else [])  # a user family may omit its plan

"""One spec, one meaning (issue 27): specs written as a new user would, where the solvers, ``check`` and the
prompt must agree — ``spread`` over groups, the ``horizon``, skills — and the forms no part can honour,
which the semantic pass rejects with their position and reason.

Each backend is judged by the kind's own ``check`` (the evaluator): its optimum, and its verdict on
fixed schedules (``fixed_verdict``), must equal the evaluator's.
"""

from __future__ import annotations

import random

import pytest

from schedc.backends import get_backend
from schedc.backends.cpsat.solve import fixed_verdict as cpsat_verdict
from schedc.backends.pyomo import fixed_verdict as pyomo_verdict
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.ir import Instance
from schedc.lang.family import load_family
from schedc.lang.parser import parse_instance_text
from schedc.render import VARIANTS, render
from schedc.verify.evaluate import evaluate, make_context
from tests import claim_audit as audit
from tests.conftest import ROOT

ITC = (ROOT / "examples" / "itc2007_small.sched").read_text(encoding="utf-8")
COHORT = "soft 1 spread cohort_spread agents=curriculum min=3"


def itc(*extra: str) -> str:
    """The bundled small timetable with more rules before its objective."""
    return ITC.replace("minimize penalty", "\n".join([*extra, "minimize penalty"]))


def soft_clashes(text: str) -> str:
    """Rooms, conflicts and unavailable periods as soft rules: every timetable of the right sizes is feasible."""
    for rule in ("unavailability", "slot_conflict", "one_per_slot room_occupancy"):
        text = text.replace(f"hard {rule}", f"soft 1 {rule}")
    return text


def solved(instance: Instance, backend: str) -> tuple[str, int | None]:
    module = get_backend(backend)
    result = module.solve(instance, load_family(instance.family), module.SolveOptions(time_limit=20, workers=1))
    return result.status, result.objective


def timetable(rng: random.Random, instance: Instance) -> Solution:
    """A random timetable: every lecture of every course in a random period and room (clashes allowed)."""
    courses = [e for e in instance.entities if e.cls == "course"]
    rooms = [e.name for e in instance.entities if e.cls == "room"]
    cal = instance.calendar
    assert cal is not None
    out = []
    for course in courses:
        slots = rng.sample([(d, p) for d in range(cal.days) for p in range(cal.periods_per_day)],
                           int(course.attrs["lectures"]))
        out += [Assignment(course.name, d, p, rng.choice(rooms)) for d, p in slots]
    return Solution(assignments=tuple(out))


# ============================================================================ spread over groups


def test_spread_over_curricula_counts_the_days_of_their_courses() -> None:
    """A curriculum uses a day when any of its courses has a lecture on it (it held 0 days before)."""
    instance = parse_instance_text(itc(COHORT))
    ctx = make_context(instance)
    # Year1 = Math, Phys: lectures on days 0 and 1 only (2 days: 1 missing); Year2 = Chem, Bio: days 0, 1, 2
    lectures = [("Math", 0, 1), ("Math", 1, 0), ("Math", 1, 1), ("Phys", 0, 2), ("Phys", 1, 2),
                ("Chem", 0, 0), ("Chem", 1, 0), ("Bio", 2, 0), ("Bio", 0, 1)]
    solution = Solution(assignments=tuple(Assignment(c, d, p, "Aula") for c, d, p in lectures))
    found = [v for v in evaluate(ctx, solution).penalties if v.constraint == "cohort_spread"]
    assert [(v.entities, v.amount) for v in found] == [(("Year1",), 1)]


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_both_backends_agree_with_check_on_a_spread_over_groups(backend: str) -> None:
    """The optimum of each backend verifies with the same value; their fixed-schedule verdicts are check's."""
    instance = parse_instance_text(itc(COHORT, "soft 1 spread pair agents=curriculum[Year2] min=2"))
    family = load_family("itc2007")
    status, objective = solved(instance, backend)
    assert status == "optimal"
    other = "pyomo" if backend == "cpsat" else "cpsat"
    assert solved(instance, other) == (status, objective)
    verdict = cpsat_verdict if backend == "cpsat" else pyomo_verdict
    # without the clash rules every random timetable is feasible, so each verdict compares penalties
    loose = parse_instance_text(soft_clashes(itc(COHORT)))
    ctx = make_context(loose, family)
    rng = random.Random(27)
    seen = set()
    for _ in range(5):
        solution = timetable(rng, loose)
        evaluation = evaluate(ctx, solution)
        assert evaluation.feasible
        feasible, value, components = verdict(loose, family, solution)
        assert feasible and value == evaluation.objective
        assert components.get("cohort_spread", 0) == evaluation.components["cohort_spread"]
        seen.add(evaluation.components["cohort_spread"])
    assert len(seen) > 1  # the schedules differ in the rule's penalty


def test_the_spread_of_a_group_is_stated_and_interpreted_as_check_judges_it() -> None:
    instance = parse_instance_text(itc(COHORT))
    family = load_family("itc2007")
    for variant in VARIANTS:
        rendering = render(instance, family, variant, 11)
        record = next(r for r in rendering.claims if r.claim.constraint == "cohort_spread")
        assert "3 different days" in record.text[0] and "a day counts when any of" in record.text[0], record.text
        assert not audit.wording(rendering, family)
    rng = random.Random(5)
    probes = [timetable(rng, instance) for _ in range(6)] + audit.probes(instance, family, rng)
    made, problems = audit.verdicts_disagree(render(instance, family, "v1"), instance, family, probes)
    assert made and not problems


@pytest.mark.parametrize(("rule", "message"), [
    ("soft 1 spread s agents=room min=3", "spread over room counts the days on which any course of a room is "
     "assigned, but room has no list attribute 'members'"),
    ("soft 1 spread s agents=course min=3 members=members", "members= applies to groups"),
    ("soft 1 stability s agents=curriculum", "stability counts the assignments of each course, but agents= "
     "selects curriculum"),
    ("hard count_bounds s agents=curriculum max=4", "count_bounds counts the assignments of each course"),
])
def test_rules_over_classes_that_hold_no_assignments_are_rejected_where_written(rule: str, message: str) -> None:
    text = itc(rule)
    with pytest.raises(SchedcError) as caught:
        parse_instance_text(text, file="t.sched")
    line = text.splitlines().index(rule) + 1
    diagnostic = caught.value.diagnostics[0]
    assert message in diagnostic.message
    assert (diagnostic.file, diagnostic.span.line, diagnostic.span.column) == ("t.sched", line, 1)


# ============================================================================ the horizon

MACHINE = """instance h family single_machine
horizon 12
resources table
  M1 unary
end
jobs table
  J1 M1:3
  J2 M1:4
  J3 M1:5
end
hard unary_no_overlap machines
hard mode_choice modes
{rules}
minimize {objective}
"""
DUE = "hard time_window w table\n  J1 0 - due=20\n  J2 0 - due=16\n  J3 0 - due=30\nend"
CHOICE = "hard optional choice table\n  exactly_one J2.1 J3.1\nend"


def machine(rules: str = DUE, objective: str = "earliness", horizon: int | None = 12) -> Instance:
    text = MACHINE.format(rules=rules, objective=objective)
    if horizon is None:
        text = text.replace("horizon 12\n", "")
    else:
        text = text.replace("horizon 12", f"horizon {horizon}")
    return parse_instance_text(text)


def test_check_rejects_an_end_after_the_horizon_and_accepts_one_at_it() -> None:
    """Half-open intervals: an activity may end exactly at the horizon, not one unit later (check accepted
    any start before)."""
    instance = machine()
    ctx = make_context(instance)
    at = evaluate(ctx, Solution(starts={"J1.1": 0, "J2.1": 3, "J3.1": 7}))
    assert at.feasible
    late = evaluate(ctx, Solution(starts={"J1.1": 0, "J2.1": 3, "J3.1": 8}))
    assert [(v.constraint, v.kind, v.amount) for v in late.violations] == [("horizon", "horizon", 1)]
    assert late.hard_amounts["horizon"] == 1
    far = evaluate(ctx, Solution(starts={"J1.1": 0, "J2.1": 3, "J3.1": 15}))
    assert "J3" in far.violations[0].message and "ends at 20, after the horizon 12" in far.violations[0].message


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_both_backends_keep_the_horizon(backend: str) -> None:
    """Earliness rewards ending late: without the horizon every job ends at its due date (0); with it both
    backends find 40, not 0 (CP-SAT ignored the horizon before), and their answers verify."""
    assert solved(machine(horizon=None), backend) == ("optimal", 0)
    instance = machine()
    module = get_backend(backend)
    result = module.solve(instance, load_family("single_machine"), module.SolveOptions(time_limit=20, workers=1))
    # the machine is busy from 0 to 12 (3 + 4 + 5): the ends sum to at most 5 + 9 + 12, the dues to 66
    assert (result.status, result.objective) == ("optimal", 66 - 26)
    evaluation = evaluate(make_context(instance), result.solution)
    assert evaluation.feasible and evaluation.objective == result.objective


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_fixed_verdicts_at_the_horizon_agree_with_check_also_for_work_left_out(backend: str) -> None:
    """An optional activity binds the horizon only when performed."""
    instance = machine(rules=CHOICE, objective="makespan")
    family = load_family("single_machine")
    ctx = make_context(instance, family)
    verdict = cpsat_verdict if backend == "cpsat" else pyomo_verdict
    for starts in ({"J1.1": 0, "J3.1": 7}, {"J1.1": 0, "J3.1": 8}, {"J1.1": 8, "J2.1": 3},
                   {"J1.1": 0, "J2.1": 9}):
        solution = Solution(starts=starts)
        evaluation = evaluate(ctx, solution)
        feasible, value, _ = verdict(instance, family, solution)
        assert feasible == evaluation.feasible, starts
        assert not feasible or value == evaluation.objective
    assert not evaluate(ctx, Solution(starts={"J1.1": 0, "J2.1": 9})).feasible


def test_every_variant_states_the_horizon() -> None:
    instance = machine()
    family = load_family("single_machine")
    for variant in VARIANTS:
        rendering = render(instance, family, variant, 3)
        closing = next(s for s in rendering.statements if s.category == "closing")
        assert ("horizon",) in closing.facts and "horizon" in closing.text and "time 12" in closing.text
        assert "after it" in closing.text or "later is not" in closing.text or "at or before" in closing.text
    optional = render(machine(rules=CHOICE, objective="makespan"), family, "v1")
    assert "every performed" in optional.text().lower()


def test_the_answer_grammar_bounds_starts_by_the_horizon() -> None:
    from schedc.grammars import answer_grammar

    schema = answer_grammar(machine(), load_family("single_machine"), None, "json-schema")
    assert '"maximum": 12' in schema and "ends by the horizon" in schema


def test_a_horizon_is_rejected_where_it_means_nothing_or_its_name_is_taken() -> None:
    text = itc().replace("calendar days=3", "horizon 5\ncalendar days=3")
    with pytest.raises(SchedcError) as caught:
        parse_instance_text(text, file="t.sched")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.code == "E117" and diagnostic.span.line == text.splitlines().index("horizon 5") + 1
    clash = MACHINE.format(rules=DUE, objective="earliness").replace("mode_choice modes", "mode_choice horizon")
    with pytest.raises(SchedcError, match="constraint id 'horizon' is taken"):
        parse_instance_text(clash)


# ============================================================================ skills

INRC = (ROOT / "examples" / "inrc2010_small.sched").read_text(encoding="utf-8")


def test_skills_are_data_in_every_variant_and_a_nurse_without_the_skill_is_not_penalised() -> None:
    """The INRC-2010 evaluator scores skills only through AlternativeSkillCategory (a soft skill_eligibility
    rule, stated with its contract: tests/test_skills.py); without it a shift's skill is no requirement, and
    the prompt does not say it is."""
    text = INRC.replace("  L 14:30:00 22:30:00 Nurse Late", "  L 14:30:00 22:30:00 Senior Late")
    instance = parse_instance_text(text)
    family = load_family("inrc2010")
    for variant in VARIANTS:
        rendered = render(instance, family, variant, 8).text()
        skill_lines = [line for line in rendered.splitlines() if "skill" in line.lower()]
        assert skill_lines and not any("requir" in line or "need" in line for line in skill_lines), skill_lines
        assert "may work any" in rendered or "may take any" in rendered or "nothing forbids" in rendered
    ctx = make_context(instance, family)
    cover = {0: "EL", 1: "EL", 2: "EEL", 3: "EL", 4: "EL", 5: "E", 6: "L"}
    nurses = ["Ann", "Bob", "Cleo", "Dan"]
    out = [Assignment(nurses[i], day, 0, shift) for day, shifts in cover.items() for i, shift in enumerate(shifts)]
    evaluation = evaluate(ctx, Solution(assignments=tuple(out)))  # Bob (no Senior skill) works L: not forbidden
    assert evaluation.feasible
    assert not any("skill" in key for key in evaluation.components)


# ============================================================================ forms no backend encodes

RCPSP = (ROOT / "examples" / "rcpsp_small.sched").read_text(encoding="utf-8")


@pytest.mark.parametrize(("text", "written", "message"), [
    (MACHINE.format(rules=DUE + "\nsoft 1 unary_no_overlap u", objective="earliness"),
     "soft 1 unary_no_overlap u", "no solver backend encodes a soft unary_no_overlap"),
    (MACHINE.format(rules="soft 1 resource_downtime d table\n  M1 2 4\nend", objective="makespan"),
     "soft 1 resource_downtime d table", "no solver backend encodes a soft resource_downtime"),
    (MACHINE.format(rules=CHOICE + "\nsoft 1 time_window w2 table\n  J3 1\nend", objective="makespan"),
     "  J3 1", "a soft time window of 'J3', whose activity J3.1 is optional"),
    (MACHINE.format(rules=CHOICE + "\nhard tardiness t table\n  J1 9\n  J2 5\nend", objective="makespan"),
     "  J2 5", "a hard tardiness row of 'J2', whose activity J2.1 is optional"),
    (RCPSP.replace("hard cumulative_renewable", "soft 2 cumulative_renewable"), "soft 2 cumulative_renewable",
     "no solver backend encodes a soft cumulative_renewable"),
    (itc().replace("soft 2 compactness", "hard compactness"), "hard compactness",
     "no solver backend encodes a hard compactness"),
])
def test_forms_that_no_backend_encodes_are_rejected_where_written(text: str, written: str, message: str) -> None:
    """Both backends refuse these forms (E501 at solve time); parse, render and check accepted them."""
    with pytest.raises(SchedcError) as caught:
        parse_instance_text(text, file="t.sched")
    diagnostic = caught.value.diagnostics[0]
    line = next(k for k, row in enumerate(text.splitlines(), start=1) if row.startswith(written))
    assert diagnostic.code == "E213" and message in diagnostic.message
    assert (diagnostic.file, diagnostic.span.line) == ("t.sched", line)

"""The interval kinds and objectives of issue #18: the eight precedence relations with signed delays,
time windows with latest starts, earliest ends, due dates and weights, sequence-dependent setup
times, optional activities with selection rules, and the due-date, setup and weighted-sum objectives.

Each kind's ``check`` is tested against its docstring at the boundary (the bound met exactly and
missed by one); each measure against a value computed by hand; both backends on small seeded random
instances (optimal objectives equal, every answer judged feasible by the evaluator with the
objective it claims).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from schedc.backends.base import SolveResult
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds.measures import MEASURES
from schedc.lang.family import load_family
from schedc.lang.parser import parse_instance_text
from schedc.lang.printer import print_instance
from schedc.verify.evaluate import evaluate, make_context
from schedc.verify.verifier import Verifier

LAB = """family lab {
  title "Interval lab: every measure"
  structure interval
  objective [makespan penalty completion flow_time tardy_jobs tardiness earliness max_tardiness max_lateness setup_time]
  kinds [resource_downtime precedence_lag unary_no_overlap mode_choice time_window setup_times optional
         tardiness no_idle consecutive resource_ties objective_bound]
  answer "<job> step <step>: start=<start>"
  roles [job "job" operation "step" machine "machine"]
}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lab")
    (path / "lab.sched").write_text(LAB, encoding="utf-8")
    return path


def shop(folder: Path, jobs: list[str], *statements: str, objective: str = "makespan",
         machines: tuple[str, ...] = ("M1", "M2")) -> Instance:
    text = "\n".join(["instance t family lab", "resources table", *(f"  {m} unary" for m in machines), "end",
                      "jobs table", *(f"  {row}" for row in jobs), "end", "hard unary_no_overlap machines",
                      "hard mode_choice modes", *statements, f"minimize {objective}", ""])
    return parse_instance_text(text, search=[folder])


def table(head: str, *rows: str) -> str:
    return "\n".join([f"{head} table", *(f"  {r}" for r in rows), "end"])


def judge(instance: Instance, folder: Path, **starts: int):
    return evaluate(make_context(instance, load_family("lab", [folder])), Solution(starts=starts))


def amounts(instance: Instance, folder: Path, cid: str, **starts: int) -> list[int]:
    ev = judge(instance, folder, **starts)
    return [v.amount for v in (*ev.violations, *ev.penalties) if v.constraint == cid]


# ============================================================================ generalized precedence

RELATIONS = {  # relation → (point of A, point of B, "at")  with A = J1.1 (d 3), B = J2.1 (d 2)
    "s->s": ("s", "s", False), "s->e": ("s", "e", False), "e->s": ("e", "s", False), "e->e": ("e", "e", False),
    "s=s": ("s", "s", True), "s=e": ("s", "e", True), "e=s": ("e", "s", True), "e=e": ("e", "e", True),
}


@pytest.mark.parametrize("relation", sorted(RELATIONS))
@pytest.mark.parametrize("delay", [-2, 0, 3])
def test_each_relation_holds_exactly_at_its_boundary(folder: Path, relation: str, delay: int) -> None:
    arrow = relation + (f"{delay:+d}" if delay else "")
    inst = shop(folder, ["J1 M1:3", "J2 M2:2"], table("hard precedence_lag p", f"J1.1 {arrow} J2.1"))
    x_point, y_point, at = RELATIONS[relation]
    start_a = 5
    x = start_a + (3 if x_point == "e" else 0) + delay
    start_b_boundary = x - (2 if y_point == "e" else 0)  # Y_b = X_a + δ
    assert amounts(inst, folder, "p", **{"J1.1": start_a, "J2.1": start_b_boundary}) == []
    later = amounts(inst, folder, "p", **{"J1.1": start_a, "J2.1": start_b_boundary + 1})
    earlier = amounts(inst, folder, "p", **{"J1.1": start_a, "J2.1": start_b_boundary - 1})
    assert earlier == [1]
    assert later == ([1] if at else [])


def test_a_maximum_lag_is_the_negative_delay_of_the_reverse_relation(folder: Path) -> None:
    """'J2.1 starts at most 4 after J1.1 starts' is written J2.1 s->s-4 J1.1 (S_J2 − 4 ≤ S_J1)."""
    inst = shop(folder, ["J1 M1:3", "J2 M2:2"], table("hard precedence_lag p", "J2.1 s->s-4 J1.1"))
    assert amounts(inst, folder, "p", **{"J1.1": 2, "J2.1": 6}) == []  # exactly 4 after
    assert amounts(inst, folder, "p", **{"J1.1": 2, "J2.1": 7}) == [1]  # 5 after: too late
    assert amounts(inst, folder, "p", **{"J1.1": 2, "J2.1": 0}) == []  # before is allowed (no minimum)
    result = solve(inst, folder, "cpsat")
    assert result.solution is not None
    assert result.solution.starts["J2.1"] - result.solution.starts["J1.1"] <= 4


def test_precedence_rows_print_back_to_the_same_edges(folder: Path) -> None:
    rows = ("J1.1 -> J2.1", "J1.1 ->+2 J3.1", "J2.1 s->s-10 J3.1", "J3.1 e=s+1 J2.1", "J3.1 ->-1 J1.1")
    inst = shop(folder, ["J1 M1:3", "J2 M2:2", "J3 M1:1"], table("hard precedence_lag p", *rows))
    edges = inst.constraints[2].edges
    assert [(e.relation, e.lag) for e in edges] == [("e->s", 0), ("e->s", 2), ("s->s", -10), ("e=s", 1),
                                                    ("e->s", -1)]
    again = parse_instance_text(print_instance(inst, load_family("lab", [folder])), search=[folder])
    assert again.constraints[2].edges == edges


def test_a_bad_arrow_is_a_positioned_error(folder: Path) -> None:
    with pytest.raises(SchedcError) as exc:
        shop(folder, ["J1 M1:3", "J2 M2:2"], table("hard precedence_lag p", "J1.1 x->s J2.1"))
    assert "s->s s->e e->s e->e s=s s=e e=s e=e" in str(exc.value) and ":" in str(exc.value)


def test_a_cycle_of_maximum_lags_is_not_a_precedence_cycle(folder: Path) -> None:
    shop(folder, ["J1 M1:3", "J2 M2:2"], table("hard precedence_lag p", "J1.1 s->s-5 J2.1", "J2.1 s->s-5 J1.1"))
    with pytest.raises(SchedcError, match="precedence cycle"):
        shop(folder, ["J1 M1:3", "J2 M2:2"], table("hard precedence_lag p", "J1.1 -> J2.1", "J2.1 -> J1.1"))


# ============================================================================ time windows


def test_latest_start_and_earliest_end_at_their_boundaries(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3"], table("hard time_window w", "J1 1 - latest_start=4 earliest_end=6"))
    assert amounts(inst, folder, "w", **{"J1.1": 4}) == []  # starts at ls, ends at 7 ≥ 6
    assert amounts(inst, folder, "w", **{"J1.1": 5}) == [1]  # one after the latest start
    assert amounts(inst, folder, "w", **{"J1.1": 3}) == []  # ends exactly at the earliest end
    assert amounts(inst, folder, "w", **{"J1.1": 2}) == [1]  # ends one before it
    assert amounts(inst, folder, "w", **{"J1.1": 0}) == [1, 3]  # before the release, and ends 3 early


def test_due_and_weight_belong_to_jobs(folder: Path) -> None:
    with pytest.raises(SchedcError, match="due=/weight= belong to the objective's targets"):
        shop(folder, ["J1 M1:3 M2:1"], table("hard time_window w", "J1.2 0 due=3"))
    with pytest.raises(SchedcError, match="latest start 1 of J1 is before its release 2"):
        shop(folder, ["J1 M1:3"], table("hard time_window w", "J1 2 latest_start=1"))
    with pytest.raises(SchedcError, match="unknown cell due_date="):
        shop(folder, ["J1 M1:3"], table("hard time_window w", "J1 0 due_date=3"))


# ============================================================================ measures

MEASURE_JOBS = ["J1 M1:3 M2:2", "J2 M2:4", "J3 M1:2"]
MEASURE_WINDOWS = table("hard time_window w", "J1 0 due=4 weight=2", "J2 1 due=6", "J3 0 due=9 weight=3")
# J1.1 [0,3) J1.2 [3,5) → C=5; J2.1 [5,9) → C=9; J3.1 [3,5) → C=5
MEASURE_STARTS = {"J1.1": 0, "J1.2": 3, "J2.1": 5, "J3.1": 3}
EXPECTED = {"makespan": 9, "penalty": 0, "completion": 2 * 5 + 9 + 3 * 5, "flow_time": 2 * 5 + (9 - 1) + 3 * 5,
            "tardy_jobs": 2 + 1 + 0, "tardiness": 2 * 1 + 3 + 0, "earliness": 3 * 4, "max_tardiness": 3,
            "max_lateness": 3, "setup_time": 0}


@pytest.mark.parametrize("measure", MEASURES)
def test_each_measure_is_recomputed_by_hand(folder: Path, measure: str) -> None:
    inst = shop(folder, MEASURE_JOBS, MEASURE_WINDOWS, objective=measure)
    ev = judge(inst, folder, **MEASURE_STARTS)
    assert ev.feasible and ev.objective == EXPECTED[measure]


def test_a_weighted_sum_reports_every_term(folder: Path) -> None:
    inst = shop(folder, MEASURE_JOBS, MEASURE_WINDOWS, objective="1*makespan + 10*tardiness + earliness")
    ev = judge(inst, folder, **MEASURE_STARTS)
    assert ev.components == {"objective:makespan": 9, "objective:tardiness": 5, "objective:earliness": 12}
    assert ev.objective == 9 + 50 + 12
    text = print_instance(inst, load_family("lab", [folder]))
    assert "minimize 1*makespan + 10*tardiness + 1*earliness" in text
    again = parse_instance_text(text, search=[folder]).objective
    assert (again.measure, again.terms) == (inst.objective.measure, inst.objective.terms)


@pytest.mark.parametrize(("objective", "message"), [
    ("minimize 2*lateness", "unknown objective 'lateness'"),
    ("minimize makespan + makespan", "objective term makespan given twice"),
])
def test_bad_objectives_are_clear_errors(folder: Path, objective: str, message: str) -> None:
    with pytest.raises(SchedcError, match=message):
        shop(folder, ["J1 M1:3"], objective=objective.removeprefix("minimize "))


# ============================================================================ setup times

SETUPS = table("hard setup_times s", "M1 J1.1 J2.1 2", "M1 J2.1 J1.1 5")


def test_setup_applies_between_consecutive_operations_only(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3", "J2 M1:2", "J3 M1:1"], SETUPS, table("hard setup_times t", "M1 J1.1 J3.1 0"))
    assert amounts(inst, folder, "s", **{"J1.1": 0, "J2.1": 5, "J3.1": 9}) == []  # gap 2 = setup
    assert amounts(inst, folder, "s", **{"J1.1": 0, "J2.1": 4, "J3.1": 9}) == [1]  # one short
    # J3.1 between them: J1.1 and J2.1 are no longer consecutive, so no setup is owed
    assert amounts(inst, folder, "s", **{"J1.1": 0, "J3.1": 3, "J2.1": 4}) == []
    assert amounts(inst, folder, "s", **{"J2.1": 0, "J1.1": 3}) == [4]  # J1.1 after J2.1 needs 5, gap 1


def test_setup_time_measure_counts_consecutive_pairs(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3", "J2 M1:2"], SETUPS, objective="setup_time")
    assert judge(inst, folder, **{"J1.1": 0, "J2.1": 5}).objective == 2
    assert judge(inst, folder, **{"J2.1": 0, "J1.1": 7}).objective == 5


def test_setup_rows_are_checked(folder: Path) -> None:
    with pytest.raises(SchedcError, match="J2.1 never uses M2"):
        shop(folder, ["J1 M2:3", "J2 M1:2"], table("hard setup_times s", "M2 J1.1 J2.1 1"))


# ============================================================================ optional activities

OPTIONAL = table("hard optional o", "exactly_one J1.1 J2.1", "all_or_none J3.1 J4.1")


def test_selection_rules_count_what_would_have_to_change(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3", "J2 M1:2", "J3 M2:1", "J4 M2:1", "J5 M1:1"], OPTIONAL)
    assert amounts(inst, folder, "o", **{"J1.1": 0, "J5.1": 3}) == []
    assert amounts(inst, folder, "o", **{"J1.1": 0, "J2.1": 3, "J5.1": 5}) == [1]
    assert amounts(inst, folder, "o", **{"J5.1": 0, "J3.1": 0}) == [1, 1]  # none of J1/J2; J3 without J4


def test_an_omitted_optional_line_is_not_missing(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3", "J2 M1:2", "J3 M2:1", "J4 M2:1", "J5 M1:1"], OPTIONAL)
    verifier = Verifier(inst, load_family("lab", [folder]))
    report = verifier.check("J1 step 1: start=0\nJ5 step 1: start=3\n")
    assert report.feasible and report.coverage == 1.0
    missing = verifier.check("J1 step 1: start=0\n")  # J5 is required
    assert not missing.feasible and any(i.kind == "missing" for i in missing.issues)


# ============================================================================ both backends


def solve(instance: Instance, folder: Path, backend: str) -> SolveResult:
    from schedc.backends import get_backend

    module = get_backend(backend)
    return module.solve(instance, load_family("lab", [folder]), module.SolveOptions(time_limit=20, workers=1))


def random_instance(folder: Path, rng: random.Random, measure: str, optional: bool) -> Instance:
    """3–4 jobs of 1–2 operations on two machines with random due dates, weights, setups and relations."""
    jobs, names = [], []
    for j in range(1, rng.randint(3, 4) + 1):
        ops = [f"M{rng.randint(1, 2)}:{rng.randint(1, 4)}" for _ in range(2 if optional else rng.randint(1, 2))]
        jobs.append(f"J{j} " + " ".join(ops))
        names += [(f"J{j}.{k}", op.split(":")[0]) for k, op in enumerate(ops, start=1)]
    routes = [f"J{j}.1 -> J{j}.2" for j in range(1, len(jobs) + 1) if len(jobs[j - 1].split()) == 3]
    a, b = rng.sample([n for n, _ in names], 2)
    relation = rng.choice(sorted(RELATIONS))
    routes.append(f"{a} {relation}{rng.choice(['', '+1', '-2'])} {b}")
    windows = [f"J{j} {rng.randint(0, 3)} due={rng.randint(3, 12)} weight={rng.randint(1, 3)}"
               for j in range(1, len(jobs) + 1)]
    same = [(x, y) for x, mx in names for y, my in names if x != y and mx == my and mx == "M1"]
    setups = [f"M1 {x} {y} {rng.randint(0, 3)}" for x, y in same]
    statements = [table("hard precedence_lag p", *routes), table("hard time_window w", *windows)]
    if setups:
        statements.append(table("hard setup_times s", *setups))
    if optional:  # the second operations of the first and last jobs: both or neither
        statements.append(table("hard optional o", f"all_or_none J1.2 J{len(jobs)}.2"))
    return shop(folder, jobs, *statements, objective=measure)


CASES = [(m, seed) for seed in range(2) for m in MEASURES if m != "penalty"] + \
    [("3*makespan + 2*tardiness + setup_time", 7), ("completion + earliness", 8)]


@pytest.mark.parametrize(("measure", "seed"), CASES)
def test_both_backends_agree_on_random_instances(folder: Path, measure: str, seed: int) -> None:
    instance = random_instance(folder, random.Random(seed), measure, optional=False)
    cpsat, pyomo = solve(instance, folder, "cpsat"), solve(instance, folder, "pyomo")
    assert cpsat.status == pyomo.status
    if cpsat.status == "infeasible":
        return
    assert cpsat.status == "optimal" and pyomo.status == "optimal"
    assert cpsat.objective == pyomo.objective
    family = load_family("lab", [folder])
    for result in (cpsat, pyomo):
        ev = evaluate(make_context(instance, family), result.solution)
        assert ev.feasible and ev.objective == result.objective


@pytest.mark.parametrize("seed", range(4))
def test_optional_activities_in_both_backends(folder: Path, seed: int) -> None:
    instance = random_instance(folder, random.Random(100 + seed), "1*makespan + 2*setup_time + tardiness",
                               optional=True)
    cpsat, pyomo = solve(instance, folder, "cpsat"), solve(instance, folder, "pyomo")
    assert cpsat.status == pyomo.status
    if cpsat.status == "optimal":
        assert cpsat.objective == pyomo.objective
        family = load_family("lab", [folder])
        for result in (cpsat, pyomo):
            assert evaluate(make_context(instance, family), result.solution).feasible


def test_optional_work_is_left_out_when_it_only_costs(folder: Path) -> None:
    """Leaving J3 out shortens the makespan; the answer then has no line for it."""
    inst = shop(folder, ["J1 M1:3", "J2 M1:2", "J3 M1:6"], table("hard optional o", "optional J3.1"))
    for backend in ("cpsat", "pyomo"):
        result = solve(inst, folder, backend)
        assert result.objective == 5 and "J3.1" not in result.solution.starts


# ============================================================================ no_idle, consecutive, resource_ties


def test_no_idle_counts_the_gap_beyond_the_setup(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3", "J2 M1:2"], SETUPS, "hard no_idle flow resources=[M1]")
    assert amounts(inst, folder, "flow", **{"J1.1": 0, "J2.1": 5}) == []  # gap 2 = setup
    assert amounts(inst, folder, "flow", **{"J1.1": 0, "J2.1": 6}) == [1]
    result = solve(shop(folder, ["J1 M1:3 M2:1", "J2 M1:2"], "hard no_idle flow resources=[M2]",
                        table("hard time_window w", "J2 6")), folder, "pyomo")
    assert result.status == "optimal" and result.objective == 8


def test_consecutive_pairs_allow_no_operation_between(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:3", "J2 M1:2", "J3 M1:1"], table("hard consecutive c", "J1.1 J2.1"))
    assert amounts(inst, folder, "c", **{"J1.1": 0, "J2.1": 4, "J3.1": 6}) == []  # a gap is fine
    assert amounts(inst, folder, "c", **{"J1.1": 0, "J3.1": 3, "J2.1": 4}) == [1]  # J3 between them
    assert amounts(inst, folder, "c", **{"J2.1": 0, "J1.1": 2, "J3.1": 5}) == [1]  # wrong order


def test_resource_ties_compare_the_chosen_machines(folder: Path) -> None:
    inst = parse_instance_text("\n".join([
        "instance t family lab", "resources table", "  M1 unary", "  M2 unary", "end", "jobs table",
        "  J1 M1:3/M2:3", "  J2 M1:2/M2:2", "end", "hard unary_no_overlap machines", "hard mode_choice modes",
        table("hard resource_ties t", "same J1.1 J2.1"), "minimize makespan", ""]), search=[folder])
    ev = evaluate(make_context(inst, family_of(folder)), Solution(starts={"J1.1": 0, "J2.1": 0},
                                                                  modes={"J1.1": 1, "J2.1": 2}))
    assert [v.amount for v in ev.violations] == [1]
    for backend in ("cpsat", "pyomo"):  # tied to one machine: 3 + 2 one after the other
        result = solve(inst, folder, backend)
        assert result.objective == 5
        assert result.solution.modes["J1.1"] == result.solution.modes["J2.1"]


def test_sequencing_rules_need_unary_no_overlap(folder: Path) -> None:
    text = "\n".join(["instance t family lab", "resources table", "  M1 unary", "end", "jobs table", "  J1 M1:3",
                      "  J2 M1:2", "end", "hard mode_choice modes", "hard no_idle flow", "minimize makespan", ""])
    with pytest.raises(SchedcError, match="resource M1 has no hard unary_no_overlap; no_idle needs one"):
        parse_instance_text(text, search=[folder])


@pytest.mark.parametrize("seed", range(3))
def test_sequencing_kinds_agree_in_both_backends(folder: Path, seed: int) -> None:
    rng = random.Random(300 + seed)
    jobs = [f"J{j} M1:{rng.randint(1, 4)} M2:{rng.randint(1, 3)}" for j in range(1, 4)]
    first, second = rng.sample(["J1.1", "J2.1", "J3.1"], 2)
    inst = shop(folder, jobs, table("hard precedence_lag p", *(f"J{j}.1 -> J{j}.2" for j in range(1, 4))),
                table("hard setup_times s", f"M1 {first} {second} {rng.randint(0, 2)}"),
                table("hard consecutive c", f"{first} {second}"), "hard no_idle flow resources=[M2]",
                table("hard time_window w", *(f"J{j} 0 due={rng.randint(4, 10)}" for j in range(1, 4))),
                objective="makespan + tardiness")
    cpsat, pyomo = solve(inst, folder, "cpsat"), solve(inst, folder, "pyomo")
    assert cpsat.status == pyomo.status == "optimal" and cpsat.objective == pyomo.objective
    for result in (cpsat, pyomo):
        assert evaluate(make_context(inst, family_of(folder)), result.solution).feasible


def test_a_bound_on_a_weighted_sum_objective(folder: Path) -> None:
    bound = "hard objective_bound near measure=sum max=15"
    inst = shop(folder, MEASURE_JOBS, MEASURE_WINDOWS, bound, objective="1*makespan + 2*tardiness")
    assert [v.amount for v in judge(inst, folder, **MEASURE_STARTS).violations] == [9 + 2 * 5 - 15]
    optimum = solve(shop(folder, MEASURE_JOBS, MEASURE_WINDOWS, objective="1*makespan + 2*tardiness"), folder,
                    "cpsat").objective
    assert optimum is not None
    tight = shop(folder, MEASURE_JOBS, MEASURE_WINDOWS, f"hard objective_bound near measure=sum max={optimum - 1}",
                 objective="1*makespan + 2*tardiness")
    for backend in ("cpsat", "pyomo"):
        assert solve(tight, folder, backend).status == "infeasible"


# ============================================================================ pausable breaks

BREAKS = table("hard resource_downtime lunch pausable=true", "M1 2 4 lunch", "M1 8 9")


def test_work_pauses_over_breaks_and_may_not_start_inside_one(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:4", "J2 M1:3", "J3 M2:1"], BREAKS, table("hard precedence_lag p", "J1.1 -> J3.1"))
    ok = judge(inst, folder, **{"J1.1": 0, "J3.1": 6, "J2.1": 6})  # J1 [0,6) over [2,4); J2 [6,10) over [8,9)
    assert ok.feasible and ok.objective == 10
    early = judge(inst, folder, **{"J1.1": 0, "J3.1": 5, "J2.1": 6})  # J1 ends at 6, not 4
    assert [v.constraint for v in early.violations] == ["p"]
    inside = amounts(inst, folder, "lunch", **{"J1.1": 3, "J3.1": 9, "J2.1": 10})
    assert inside == [1]  # starts at 3 inside [2, 4): 1 unit before the break ends
    for backend in ("cpsat", "pyomo"):
        result = solve(inst, folder, backend)
        assert result.status == "optimal" and result.objective == 10  # 7 units of work + the 2 + 1 of breaks


def family_of(folder: Path) -> Family:
    return load_family("lab", [folder])


# ============================================================================ renderings and the claim audit

EVERY_NEW_KIND = [
    table("hard precedence_lag p", "J1.1 -> J1.2", "J2.1 -> J2.2", "J4.1 -> J4.2", "J3.1 s->s-6 J1.1", "J4.1 e=s J4.2"),
    table("hard time_window w", "J1 0 due=8 weight=2", "J2 1 - latest_start=9", "J3 0 20 earliest_end=2 due=6"),
    table("hard setup_times s", "M1 J1.1 J2.2 2", "M1 J2.2 J1.1 1"),
    table("hard resource_downtime lunch pausable=true", "M2 5 6 lunch"),
    "hard no_idle flow resources=[M1]",
    table("hard optional o", "at_least_one J4.1 J3.1", "all_or_none J4.1 J4.2"),
    table("hard consecutive c", "J1.1 J2.2"),
    table("hard resource_ties t", "different J1.2 J3.1"),
]
EVERY_NEW_JOBS = ["J1 M1:2 M2:3", "J2 M2:2 M1:3", "J3 M1:1", "J4 M1:2 M1:1"]


@pytest.mark.parametrize("variant", ["v1", "v2", "v3a", "v4"])
def test_every_new_kind_renders_and_passes_the_claim_audit(folder: Path, variant: str) -> None:
    from schedc.render import render
    from tests import claim_audit as audit

    inst = shop(folder, EVERY_NEW_JOBS, *EVERY_NEW_KIND, objective="2*makespan + tardiness + setup_time")
    family = family_of(folder)
    rendering = render(inst, family, variant, 7, [folder])
    problems = (audit.bijection(rendering, inst) + audit.wording(rendering, family)
                + audit.contradictions(rendering, inst, family))
    assert not problems, "\n".join(problems[:10])
    text = rendering.text()
    assert "exactly" in text and "due date 8, weight 2" in text and "2 ×" in text


def test_the_claim_interpreter_agrees_with_check_on_the_new_kinds(folder: Path) -> None:
    from schedc.render import render
    from tests import claim_audit as audit

    inst = shop(folder, EVERY_NEW_JOBS, *EVERY_NEW_KIND, objective="2*makespan + tardiness + setup_time")
    family = family_of(folder)
    rendering = render(inst, family, "v1", 7, [folder])
    solutions = audit.probes(inst, family, random.Random(7), randoms=40)
    made, problems = audit.verdicts_disagree(rendering, inst, family, solutions)
    assert made > 0 and not problems, "\n".join(problems[:10])
    assert solve(inst, folder, "cpsat").status == "optimal"
